/**
 * The baseline of bench:ws: a bare uWebSockets.js publish loop, run as its own process and driven by the
 * same subscribers, client processes and order schedule as the order server, so that the platform's
 * fan-out can be given as a ratio to it. It has no engine, no journal and no message building: each frame
 * is a prepared template of the platform's message (same keys, same values' lengths) into which the seq,
 * the trade id and the timestamp are spliced.
 *
 * What it speaks, only as far as bench/ws/subscribers.ts needs it:
 * - `/ws/exchange/:symbol`: `{"action":"subscribe","channel":"orderbook"|"trades"}` subscribes the
 *   connection to one uWS topic per channel and answers `subscribed`; an orderbook subscriber then gets a
 *   snapshot, BARE_SNAPSHOT (JSON of [bids, asks], the book the clients expect), stamped with the
 *   topic's seq. Same socket options as the exchange stream (no compression, 1 MiB backpressure limit,
 *   pings).
 * - `POST /api/v1/exchange/:symbol/orders`: each order is one "durable batch" of the platform. It takes
 *   the time (Date.now(), like the sequencer), publishes one orderbook delta and, when the body holds an
 *   IOC (which on the platform takes one resting order), one trade message, and answers 201 with the
 *   order's status and fills, the shape the bench reads.
 *
 * HOST and PORT from the environment; it prints one JSON line `{"event":"listening","port":…}` when it
 * accepts connections, like shell/server.ts.
 */
import uWS from 'uWebSockets.js';
import { listenAndAnnounce } from '../listen.ts';

const snapshotSides = JSON.parse(process.env['BARE_SNAPSHOT'] ?? '[[],[]]') as [unknown, unknown];
/** As the exchange stream: a subscriber this far behind is closed rather than buffered without bound. */
const backpressureBytes = 1024 * 1024;
const clientMessageBytesMax = 4096;
const orderBodyBytesMax = 4096;

const bookTopic = 'orderbook';
const tradesTopic = 'trades';
/** The platform's names for the bench's pair (ETH/USDC), so that the frames have the same lengths. */
const symbol = 'ETH';
const pairName = 'ETH/USDC';

let bookSeq = 0;
let tradesSeq = 0;
let tradeId = 0;

// The frames the platform sends for one order, cut where the variable fields go: an orderbook delta with
// one changed level, and a trade with its price, quantity, side and venue.
const deltaHead = `{"type":"orderbook_update","channel":"orderbook","symbol":"${symbol}","asset":"${symbol}","pair":"${pairName}","seq":`;
const deltaMiddle = `,"snapshot":false,"bids":[["2999.99","0.0100"]],"asks":[],"best_bid":"2999.99","best_ask":"3000.01","spread":"0.02","timestamp":"`;
const tradeHead = `{"type":"trade","channel":"trades","symbol":"${symbol}","asset":"${symbol}","seq":`;
const tradeIdPart = `,"trade_id":"`;
const tradeMiddle = `","price":"2999.99","quantity":"0.0100","side":"sell","venue":"clob","timestamp":"`;
const frameTail = `"}`;
const ioc = Buffer.from('"IOC"');

function publishOrder(body: Buffer): string {
  const timestamp = new Date(Date.now()).toISOString();
  bookSeq++;
  app.publish(bookTopic, deltaHead + bookSeq + deltaMiddle + timestamp + frameTail, false);
  if (body.indexOf(ioc) < 0) return '{"status":"open","fills":[]}';
  tradesSeq++;
  tradeId++;
  app.publish(tradesTopic, tradeHead + tradesSeq + tradeIdPart + tradeId + tradeMiddle + timestamp + frameTail, false);
  return `{"status":"filled","fills":[{"trade_id":"${tradeId}"}]}`;
}

function snapshot(): string {
  return JSON.stringify({
    type: 'orderbook_update',
    channel: 'orderbook',
    symbol,
    asset: symbol,
    pair: pairName,
    seq: bookSeq,
    snapshot: true,
    bids: snapshotSides[0],
    asks: snapshotSides[1],
    timestamp: new Date().toISOString(),
  });
}

const app = uWS.App();

app.ws('/ws/exchange/:symbol', {
  compression: uWS.DISABLED,
  maxPayloadLength: clientMessageBytesMax,
  maxBackpressure: backpressureBytes,
  closeOnBackpressureLimit: 1,
  idleTimeout: 120,
  sendPingsAutomatically: true,
  message: (ws, data) => {
    // Not the hot path: two subscriptions per connection, before the timed window.
    const request = JSON.parse(Buffer.from(data).toString('utf8')) as { action?: unknown; channel?: unknown };
    const channel = request.channel;
    if (request.action !== 'subscribe' || (channel !== bookTopic && channel !== tradesTopic)) {
      ws.send(JSON.stringify({ type: 'error', error: { code: 'VALIDATION_FAILED', message: 'the bare server knows subscribe to orderbook and trades only' } }), false);
      return;
    }
    // As on the platform, the snapshot and the subscription happen in one turn of the loop.
    ws.subscribe(channel);
    ws.send(JSON.stringify({ type: 'subscribed', channel, symbol }), false);
    if (channel === bookTopic) ws.send(snapshot(), false);
  },
});

app.post('/api/v1/exchange/:symbol/orders', (res) => {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((chunk, isLast) => {
    if (aborted) return;
    bytes += chunk.byteLength;
    // uWS reuses the chunk's memory after the call: keep a copy.
    if (bytes <= orderBodyBytesMax) chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (!isLast) return;
    const answer = publishOrder(Buffer.concat(chunks));
    res.cork(() => res.writeStatus('201 Created').writeHeader('Content-Type', 'application/json').end(answer));
  });
});

app.any('/*', (res) => {
  res.writeStatus('404 Not Found').end();
});

listenAndAnnounce(app);
