/**
 * One client process of bench:ws: opens its share of the subscribers (bench/ws/raw-client.ts, or the `ws`
 * package with `--client ws`), subscribes each to orderbook and trades, checks the snapshot, then times
 * every message it receives, checks each topic's seq per subscriber, and reports to the parent over the
 * IPC channel. Several of these run side by side so that no single client event loop holds up the messages
 * of all subscribers.
 *
 * Latency of a message: the wall clock when the read that brought it returned (raw client) or its 'message'
 * event ran (ws), to the microsecond (monotonic clock plus an offset taken at the edge of a Date.now()
 * millisecond), minus its `timestamp`, which the server's sequencer took with Date.now() (whole
 * milliseconds, truncated) when the command was sequenced. So each figure is the true latency plus 0-1 ms
 * of truncation. A trade is also timed from the moment the parent sent the HTTP request of the order that
 * made it (matched by trade id; monotonic clock on both sides).
 *
 * The hot path reads seq, trade_id and timestamp straight from the frame's bytes (messages of the same type
 * keep their keys in the same order); snapshots and control messages go through JSON.parse.
 */
import WebSocket from 'ws';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Histogram, monotonicUs, wallMinusMonotonicUs, type HistogramData } from '../lib.ts';
import { RawWebSocket } from './raw-client.ts';

/** `raw`: bench/ws/raw-client.ts (the default; cheap per message); `ws`: the ws package, for comparison. */
export type ClientKind = 'raw' | 'ws';

export type ParentMessage =
  | { type: 'connect'; client: ClientKind; url: string; count: number; concurrency: number; expectedSnapshot: string }
  /** A timed window (wall-clock ms); a run may have several, each announced before it starts. */
  | { type: 'window'; fromWallMs: number; toWallMs: number }
  /** Send times (monotonic µs) of the orders that made these trades. */
  | { type: 'sends'; tradeIds: number[]; sendUs: number[] }
  | { type: 'seqs' }
  | { type: 'drain'; orderbookSeq: number; tradesSeq: number; timeoutMs: number }
  | { type: 'report' }
  | { type: 'close' };

export interface Ready {
  type: 'ready';
  connected: number;
  /** Subscribers with both subscriptions confirmed and a snapshot. */
  ready: number;
  failed: number;
  firstFailure: string;
  snapshotsOk: number;
  snapshotSeqMin: number;
  snapshotSeqMax: number;
}

export interface Seqs {
  type: 'seqs';
  orderbookSeqMax: number;
  tradesSeqMax: number;
}

export interface Drained {
  type: 'drained';
  reached: number;
  open: number;
  waitedMs: number;
}

export interface Report {
  type: 'report';
  /** Messages whose timestamp lies in the window, by topic, over all subscribers of this process. */
  windowBookMessages: number;
  windowTradeMessages: number;
  /** Payload bytes of those messages (frame headers not included). */
  windowBookBytes: number;
  windowTradeBytes: number;
  delivery: HistogramData;
  deliveryBook: HistogramData;
  deliveryTrades: HistogramData;
  tradeFromSend: HistogramData;
  /** Orderbook deltas of the window: seq, and the first and last time a subscriber of this process got it. */
  spreadSeqs: number[];
  spreadFirstUs: number[];
  spreadLastUs: number[];
  /** The same deltas: first receive in this process minus the delta's timestamp (µs). */
  spreadFirstLatencyUs: number[];
  /** Trade messages of window orders whose send time never arrived (should be 0). */
  tradesUnmatched: number;
  /** Messages received before the wall clock said the command was sequenced (clock trouble; should be 0). */
  negativeLatencies: number;
  gapEvents: number;
  missingMessages: number;
  duplicates: number;
  subscribersWithGaps: number;
  disconnects: number;
  disconnectCodes: Record<string, number>;
  errorMessages: number;
  firstError: string;
  /** This process's event-loop delay during the window (µs): how late its timers ran. */
  loopDelayP99Us: number;
  loopDelayMaxUs: number;
  /** Wall clock read directly minus the one derived from the monotonic clock, at the report (µs). */
  clockDriftUs: number;
}

function send(message: Ready | Seqs | Drained | Report): void {
  process.send!(message);
}

// Per-subscriber state, indexed by the subscriber's number in this process.
let count = 0;
let connections: Connection[] = [];
/**
 * Last seq seen per topic. Orderbook: -1 until the snapshot sets it. Trades: 0, since every subscriber
 * subscribes before the first trade of the server (a fresh one whose seeded orders do not cross), so the
 * first trade must have seq 1.
 */
let orderbookSeq = new Float64Array(0);
let tradesSeq = new Float64Array(0);
/** Bits of `flags`. */
const subscribedBook = 1;
const subscribedTrades = 2;
const snapshotSeen = 4;
const closedFlag = 8;
const gapFlag = 16;
const readyFlag = 32;
let flags = new Uint8Array(0);

let offsetUs = wallMinusMonotonicUs();
/** The timed windows so far, as [from, to) in wall-clock ms. */
const windowsFromMs: number[] = [];
const windowsToMs: number[] = [];
let closing = false;

const delivery = new Histogram();
const deliveryBook = new Histogram();
const deliveryTrades = new Histogram();
const tradeFromSend = new Histogram();
let windowBookMessages = 0;
let windowTradeMessages = 0;
let windowBookBytes = 0;
let windowTradeBytes = 0;
let negativeLatencies = 0;
let gapEvents = 0;
let missingMessages = 0;
let duplicates = 0;
let disconnects = 0;
const disconnectCodes: Record<string, number> = {};
let errorMessages = 0;
let firstError = '';
let snapshotsOk = 0;
let snapshotSeqMin = Number.POSITIVE_INFINITY;
let snapshotSeqMax = Number.NEGATIVE_INFINITY;
/** JSON of [bids, asks] as GET /book showed them before anyone traded: every snapshot must equal it. */
let expectedSnapshot = '';

/** First and last receive time (monotonic µs) of each orderbook delta of the window, by seq. */
const spreadBySeq = new Map<number, [number, number, number]>();

/** Send times by trade id, and receipts that came before their send time did (trade id, receive time). */
const sendUsByTrade = new Map<number, number>();
let pendingTradeIds: number[] = [];
let pendingReceivedUs: number[] = [];

const loopDelay = monitorEventLoopDelay({ resolution: 5 });

// -------------------------------------------------------------------------------------------------
// Reading frames

const quote = 0x22;
const zero = 0x30;

/** The unsigned integer whose digits start at `at`. */
function digitsAt(data: Buffer, at: number): number {
  let value = 0;
  for (let index = at; index < data.length; index++) {
    const digit = data[index]! - zero;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

function twoDigits(data: Buffer, at: number): number {
  return (data[at]! - zero) * 10 + (data[at + 1]! - zero);
}

/** Milliseconds of the ISO 8601 time `YYYY-MM-DDTHH:MM:SS.mmmZ` starting at `at` (Date.toISOString's form). */
function isoMsAt(data: Buffer, at: number): number {
  const year = twoDigits(data, at) * 100 + twoDigits(data, at + 2);
  const millis = (data[at + 20]! - zero) * 100 + twoDigits(data, at + 21);
  return Date.UTC(year, twoDigits(data, at + 5) - 1, twoDigits(data, at + 8), twoDigits(data, at + 11), twoDigits(data, at + 14), twoDigits(data, at + 17), millis);
}

const seqKey = Buffer.from('"seq":');
// The id is a decimal string, as in REST: the key takes its opening quote, so the digits follow it.
const tradeIdKey = Buffer.from('"trade_id":"');
const timestampKey = Buffer.from('"timestamp":"');
const bookPrefix = Buffer.from('{"type":"orderbook_update"');
const tradePrefix = Buffer.from('{"type":"trade"');
const snapshotFalse = Buffer.from('"snapshot":false');

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

// -------------------------------------------------------------------------------------------------
// Messages

function onMessage(index: number, data: Buffer, receivedUs: number): void {
  if (startsWith(data, tradePrefix)) return onTrade(index, data, receivedUs);
  if (startsWith(data, bookPrefix) && data.indexOf(snapshotFalse) >= 0) return onDelta(index, data, receivedUs);
  onControl(index, JSON.parse(data.toString('utf8')) as Record<string, unknown>);
}

function inWindow(tsMs: number): boolean {
  for (let index = 0; index < windowsFromMs.length; index++) if (tsMs >= windowsFromMs[index]! && tsMs < windowsToMs[index]!) return true;
  return false;
}

/** Records the delivery latency of a message sequenced at `tsMs`; false when outside every window. */
function timeDelivery(tsMs: number, receivedUs: number, topic: Histogram): boolean {
  if (!inWindow(tsMs)) return false;
  const latencyUs = receivedUs + offsetUs - tsMs * 1000;
  if (latencyUs < 0) negativeLatencies++;
  delivery.record(latencyUs);
  topic.record(latencyUs);
  return true;
}

/** Checks `seq` follows `last`; returns the seq to keep. */
function checkSeq(index: number, last: number, seq: number): number {
  if (seq === last + 1) return seq;
  if (seq <= last) {
    duplicates++;
    return last;
  }
  gapEvents++;
  missingMessages += seq - last - 1;
  flags[index]! |= gapFlag;
  return seq;
}

function onDelta(index: number, data: Buffer, receivedUs: number): void {
  const seqAt = data.indexOf(seqKey);
  const tsAt = data.indexOf(timestampKey, seqAt);
  if (seqAt < 0 || tsAt < 0 || data[tsAt + timestampKey.length - 1] !== quote) throw new Error(`unexpected orderbook frame: ${data.toString('utf8', 0, 200)}`);
  const seq = digitsAt(data, seqAt + seqKey.length);
  if ((flags[index]! & snapshotSeen) === 0) throw new Error('an orderbook delta came before the snapshot');
  orderbookSeq[index] = checkSeq(index, orderbookSeq[index]!, seq);
  const tsMs = isoMsAt(data, tsAt + timestampKey.length);
  if (!timeDelivery(tsMs, receivedUs, deliveryBook)) return;
  windowBookMessages++;
  windowBookBytes += data.length;
  const spread = spreadBySeq.get(seq);
  if (spread === undefined) spreadBySeq.set(seq, [receivedUs, receivedUs, tsMs]);
  else if (receivedUs < spread[0]) spread[0] = receivedUs;
  else if (receivedUs > spread[1]) spread[1] = receivedUs;
}

function onTrade(index: number, data: Buffer, receivedUs: number): void {
  const seqAt = data.indexOf(seqKey);
  const idAt = data.indexOf(tradeIdKey, seqAt);
  const tsAt = data.indexOf(timestampKey, idAt);
  if (seqAt < 0 || idAt < 0 || tsAt < 0) throw new Error(`unexpected trade frame: ${data.toString('utf8', 0, 200)}`);
  const seq = digitsAt(data, seqAt + seqKey.length);
  tradesSeq[index] = checkSeq(index, tradesSeq[index]!, seq);
  if (!timeDelivery(isoMsAt(data, tsAt + timestampKey.length), receivedUs, deliveryTrades)) return;
  windowTradeMessages++;
  windowTradeBytes += data.length;
  const tradeId = digitsAt(data, idAt + tradeIdKey.length);
  const sentUs = sendUsByTrade.get(tradeId);
  if (sentUs !== undefined) {
    tradeFromSend.record(receivedUs - sentUs);
    return;
  }
  pendingTradeIds.push(tradeId);
  pendingReceivedUs.push(receivedUs);
}

function onControl(index: number, message: Record<string, unknown>): void {
  const type = message['type'];
  if (type === 'subscribed') {
    flags[index]! |= message['channel'] === 'orderbook' ? subscribedBook : subscribedTrades;
  } else if (type === 'orderbook_update' && message['snapshot'] === true) {
    onSnapshot(index, message);
  } else {
    errorMessages++;
    if (firstError === '') firstError = JSON.stringify(message).slice(0, 300);
  }
  if ((flags[index]! & (subscribedBook | subscribedTrades | snapshotSeen)) === (subscribedBook | subscribedTrades | snapshotSeen)) onReady(index);
}

function onSnapshot(index: number, message: Record<string, unknown>): void {
  const seq = message['seq'];
  const bids = message['bids'];
  const asks = message['asks'];
  if (typeof seq !== 'number' || !Array.isArray(bids) || !Array.isArray(asks)) throw new Error(`malformed snapshot: ${JSON.stringify(message).slice(0, 300)}`);
  if ((flags[index]! & snapshotSeen) !== 0) throw new Error('a second snapshot');
  flags[index]! |= snapshotSeen;
  orderbookSeq[index] = seq;
  if (JSON.stringify([bids, asks]) === expectedSnapshot && typeof message['timestamp'] === 'string') snapshotsOk++;
  snapshotSeqMin = Math.min(snapshotSeqMin, seq);
  snapshotSeqMax = Math.max(snapshotSeqMax, seq);
}

function resolvePending(): void {
  if (pendingTradeIds.length === 0) return;
  const ids = pendingTradeIds;
  const received = pendingReceivedUs;
  pendingTradeIds = [];
  pendingReceivedUs = [];
  for (let index = 0; index < ids.length; index++) {
    const sentUs = sendUsByTrade.get(ids[index]!);
    if (sentUs === undefined) {
      pendingTradeIds.push(ids[index]!);
      pendingReceivedUs.push(received[index]!);
    } else {
      tradeFromSend.record(received[index]! - sentUs);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// Connecting

let readyCount = 0;
let onAllReady: (() => void) | null = null;

function onReady(index: number): void {
  if ((flags[index]! & readyFlag) !== 0) return;
  flags[index]! |= readyFlag;
  readyCount++;
  if (readyCount === count) onAllReady?.();
}

/** Time for the answers to the subscriptions (and the snapshots) once every connection is open. */
const readyTimeoutMs = 30_000;
const subscribeBook = JSON.stringify({ action: 'subscribe', channel: 'orderbook' });
const subscribeTrades = JSON.stringify({ action: 'subscribe', channel: 'trades' });

/** What the process needs of a connection, whichever client made it. */
interface Connection {
  send(text: string): void;
  terminate(): void;
}

function onClose(index: number, code: number, fail: (failure: string) => void): void {
  if ((flags[index]! & closedFlag) !== 0) return;
  flags[index]! |= closedFlag;
  if (closing) return;
  // Before it was ready it is a failure to connect (counted by the opener), after it a disconnect.
  if ((flags[index]! & readyFlag) === 0) return fail(`closed with ${code} while subscribing`);
  disconnects++;
  disconnectCodes[String(code)] = (disconnectCodes[String(code)] ?? 0) + 1;
}

/** Opens subscriber `index`; resolves null once it is open and has sent its subscriptions, or a failure. */
function open(client: ClientKind, url: string, index: number): Promise<string | null> {
  return new Promise((resolveOpen) => {
    const subscribe = (): void => {
      connections[index]!.send(subscribeBook);
      connections[index]!.send(subscribeTrades);
      resolveOpen(null);
    };
    if (client === 'raw') {
      connections[index] = new RawWebSocket(
        new URL(url),
        {
          onOpen: subscribe,
          onMessage: (payload, receivedUs) => onMessage(index, payload, receivedUs),
          onClose: (code, reason) => onClose(index, code, () => resolveOpen(`closed with ${code} (${reason}) while subscribing`)),
        },
        monotonicUs,
      );
      return;
    }
    const socket = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true, handshakeTimeout: 30_000 });
    connections[index] = socket;
    socket.on('message', (data: Buffer) => onMessage(index, data, monotonicUs()));
    socket.once('open', subscribe);
    socket.on('error', (error) => resolveOpen(String(error)));
    socket.on('close', (code) => onClose(index, code, resolveOpen));
  });
}

async function connect(message: Extract<ParentMessage, { type: 'connect' }>): Promise<void> {
  count = message.count;
  expectedSnapshot = message.expectedSnapshot;
  connections = new Array<Connection>(count);
  orderbookSeq = new Float64Array(count).fill(-1);
  tradesSeq = new Float64Array(count);
  flags = new Uint8Array(count);
  const allReady = new Promise<void>((done) => (onAllReady = done));
  let next = 0;
  let failed = 0;
  let firstFailure = '';
  // At most `concurrency` handshakes in flight, so that the server's accept backlog never overflows.
  const opener = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const failure = await open(message.client, message.url, index);
      if (failure !== null) {
        failed++;
        if (firstFailure === '') firstFailure = failure;
      }
    }
  };
  await Promise.all(Array.from({ length: message.concurrency }, opener));
  if (failed === 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allReady, new Promise<void>((done) => (timer = setTimeout(done, readyTimeoutMs)))]);
    clearTimeout(timer);
  }
  send({
    type: 'ready',
    connected: count - failed,
    ready: readyCount,
    failed,
    firstFailure,
    snapshotsOk,
    snapshotSeqMin,
    snapshotSeqMax,
  });
}

function openSubscribers(): number {
  let open = 0;
  for (let index = 0; index < count; index++) if ((flags[index]! & closedFlag) === 0) open++;
  return open;
}

async function drain(message: Extract<ParentMessage, { type: 'drain' }>): Promise<void> {
  const started = performance.now();
  const reachedAll = (): number => {
    let reached = 0;
    for (let index = 0; index < count; index++) {
      if ((flags[index]! & closedFlag) !== 0) continue;
      if (orderbookSeq[index]! >= message.orderbookSeq && tradesSeq[index]! >= message.tradesSeq) reached++;
    }
    return reached;
  };
  let reached = reachedAll();
  while (reached < openSubscribers() && performance.now() - started < message.timeoutMs) {
    await new Promise((done) => setTimeout(done, 20));
    reached = reachedAll();
  }
  send({ type: 'drained', reached, open: openSubscribers(), waitedMs: performance.now() - started });
}

function report(): void {
  resolvePending();
  loopDelay.disable();
  let subscribersWithGaps = 0;
  for (let index = 0; index < count; index++) if ((flags[index]! & gapFlag) !== 0) subscribersWithGaps++;
  send({
    type: 'report',
    windowBookMessages,
    windowTradeMessages,
    windowBookBytes,
    windowTradeBytes,
    delivery: delivery.data(),
    deliveryBook: deliveryBook.data(),
    deliveryTrades: deliveryTrades.data(),
    tradeFromSend: tradeFromSend.data(),
    spreadSeqs: [...spreadBySeq.keys()],
    spreadFirstUs: [...spreadBySeq.values()].map((spread) => spread[0]),
    spreadLastUs: [...spreadBySeq.values()].map((spread) => spread[1]),
    spreadFirstLatencyUs: [...spreadBySeq.values()].map((spread) => spread[0] + offsetUs - spread[2] * 1000),
    tradesUnmatched: pendingTradeIds.length,
    negativeLatencies,
    gapEvents,
    missingMessages,
    duplicates,
    subscribersWithGaps,
    disconnects,
    disconnectCodes,
    errorMessages,
    firstError,
    loopDelayP99Us: loopDelay.count === 0 ? Number.NaN : loopDelay.percentile(99) / 1000,
    loopDelayMaxUs: loopDelay.count === 0 ? Number.NaN : loopDelay.max / 1000,
    clockDriftUs: Date.now() * 1000 - (monotonicUs() + offsetUs),
  });
}

process.on('message', (message: ParentMessage) => {
  switch (message.type) {
    case 'connect':
      void connect(message);
      break;
    case 'window':
      // Taken again just before timing starts: the offset then has the least time to drift.
      offsetUs = wallMinusMonotonicUs();
      windowsFromMs.push(message.fromWallMs);
      windowsToMs.push(message.toWallMs);
      if (windowsFromMs.length === 1) {
        loopDelay.reset();
        loopDelay.enable();
      }
      break;
    case 'sends':
      for (let index = 0; index < message.tradeIds.length; index++) sendUsByTrade.set(message.tradeIds[index]!, message.sendUs[index]!);
      resolvePending();
      break;
    case 'seqs': {
      let orderbookSeqMax = -1;
      let tradesSeqMax = -1;
      for (let index = 0; index < count; index++) {
        orderbookSeqMax = Math.max(orderbookSeqMax, orderbookSeq[index]!);
        tradesSeqMax = Math.max(tradesSeqMax, tradesSeq[index]!);
      }
      send({ type: 'seqs', orderbookSeqMax, tradesSeqMax });
      break;
    }
    case 'drain':
      void drain(message);
      break;
    case 'report':
      report();
      break;
    case 'close':
      closing = true;
      for (const connection of connections) connection.terminate();
      // Exit at once rather than when every handle has wound down (the ws sockets took seconds to).
      process.exit(0);
      break;
  }
});
