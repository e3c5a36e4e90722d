/**
 * bench:ws: market-data fan-out. 10 000 WebSocket subscribers on one book (ETH/USDC), each subscribed to
 * orderbook and trades, while orders arrive over HTTP at a steady rate; how late messages reach the
 * subscribers, how many are delivered per second, and whether every subscriber saw every message.
 *
 *   npm run bench:ws                          human-readable report on stdout (about 70 s here)
 *   npm run bench:ws -- --json                the same, then one JSON object as the last stdout line
 *   npm run bench:ws -- --rate 200            orders per second (default 5: see below)
 *   npm run bench:ws -- --no-bare             the platform only, without the bare uWS baseline (about 35 s)
 *   options: --subscribers 10000 --duration 20 --warmup 3 --rounds 2 --processes 4 --sync sync|none --client raw|ws
 *            --profile (node --cpu-prof on the server; where its main thread spent the timed window)
 *
 * Baseline: beside the order server, bench/ws/bare-server.ts runs, a bare uWS.js server that answers each
 * order by publishing prepared frames of the platform's sizes on one topic per channel (an orderbook delta
 * per order, a trade per IOC), with no engine and no journal. Each server gets its own client processes
 * and subscribers, all connected at once; the order load then goes to one server at a time, in turns
 * (`--rounds` windows each, baseline first), so that the machine's other work falls on both alike. The
 * report gives the platform's figures as ratios to the baseline's (delivery p99, server CPU per delivered
 * message; goal <= 1.5). --rounds 2 by default.
 *
 * How: the order server runs as a child process the way bench:http and `npm start` run it, as the esbuild
 * bundle dist/shell/server.mjs (built first by scripts/build.mjs), with a fresh DATA_DIR and, through
 * bash's `ulimit -n`, a descriptor per subscriber. Over HTTP the bench registers a user, creates an API
 * key at the ADMIN tier, funds the user and seeds a small book. `--processes` client processes
 * (bench/ws/subscribers.ts) open the subscribers between them, subscribe each to orderbook and trades and
 * check its snapshot against GET /book. The bench then places orders on an absolute schedule (open loop:
 * an order goes out when it is due, whether or not earlier ones were answered): passive limits and IOC
 * limits that each take one resting order, in turn, so the book keeps its size and every second order
 * trades. Messages whose timestamp (the time the server sequenced the command) falls in the timed window
 * are counted and timed; the warm-up before it is not. At the end the bench waits until every subscriber
 * has the last message of both topics, collects the clients' histograms, closes everything and stops the
 * server. What each figure means, and why the default rate is 5 orders/s (on this two-core VM 10 000
 * subscribers saturate it at 10-20 orders/s), is in bench/README.md (# bench:ws). The order server runs
 * with AMM_CHAINS empty (a pure order book): with the pools quoting into the hybrid book, orders would fill
 * against pools priced elsewhere and the book would not keep its shape.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import {
  Api,
  Histogram,
  buildServer,
  checkPair,
  cores,
  cpuProfileSummaryOf,
  cpuSeconds,
  cpuTimes,
  createTrader,
  fmtInt,
  keepCpuProfile,
  log,
  machineCpuSeconds,
  monotonicUs,
  positiveInteger,
  priceText,
  round,
  seededRandom,
  serverNodeArgs,
  spawnNode,
  startNode,
  stopProcess,
  wallMinusMonotonicUs,
  type Child,
} from './lib.ts';
import type { ClientKind, Drained, ParentMessage, Ready, Report, Seqs } from './ws/subscribers.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    subscribers: { type: 'string', default: '10000' },
    // Below saturation with 10 000 subscribers here, so that the figures are latencies, not queues.
    rate: { type: 'string', default: '5' },
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    processes: { type: 'string', default: '4' },
    sync: { type: 'string', default: 'sync' },
    client: { type: 'string', default: 'raw' },
    profile: { type: 'boolean', default: false },
    'no-bare': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '2' },
  },
});

const subscribers = positiveInteger('subscribers', values.subscribers);
const ratePerS = positiveInteger('rate', values.rate);
const durationS = positiveInteger('duration', values.duration);
const warmupS = positiveInteger('warmup', values.warmup);
const processes = Math.min(subscribers, positiveInteger('processes', values.processes));
/** With the baseline, the timed seconds of each server are cut into this many windows, taken in turns. */
const rounds = values['no-bare'] ? 1 : positiveInteger('rounds', values.rounds);
/** Between two servers' turns: time for the last turn's fan-out to finish before the other server starts. */
const turnGapMs = 1000;
const journalSync = values.sync;
if (journalSync !== 'sync' && journalSync !== 'none') throw new Error('--sync must be sync or none');
if (values.client !== 'raw' && values.client !== 'ws') throw new Error('--client must be raw or ws');
const clientKind: ClientKind = values.client;

/** Loopback has about 28 000 ephemeral ports (32768-60999) for connections to one server port. */
const subscribersMax = 25_000;
if (subscribers > subscribersMax) throw new Error(`--subscribers at most ${subscribersMax} (ephemeral ports of one client address)`);
/** The server's default WS_CONNECTIONS_MAX; above it the bench raises the server's limit. */
const serverConnectionsDefault = 20_000;
/** Descriptors beyond the sockets: journal, database, pipes, HTTP connections. */
const fileMargin = 1024;

const latencyTargetMs = 20;
/** Enables the admin routes of this server only. */
const adminKey = `bench-ws-${randomBytes(18).toString('base64url')}`;
const symbol = 'eth';
const tickSize = '0.01';
const lotSize = '0.0001';
/** Mid 3 000.00 USDC; passive orders rest 1-50 ticks from it, so each side has at most 50 levels. */
const midTicks = 300_000;
const depthTicks = 50;
/** Resting orders seeded before any subscriber connects (half on each side); the load keeps the count. */
const seedOrders = 200;
const seedBatchOrders = 10;
/** Every order is 100 lots, so an IOC takes exactly one resting order and makes one trade. */
const quantity = '0.0100';
/** IOCs are priced this far beyond the mid: past every resting order of the other side. */
const iocBeyondTicks = depthTicks + 10;
/** Handshakes in flight per client process while connecting. */
const connectConcurrency = 50;
/** Connections the order load may open (requests in flight at most). */
const ordersConnectionsMax = 64;
/** A send more than this behind its slot in the schedule counts as late. */
const lateSendUs = 2000;
/** How often the send times of answered orders go to the client processes. */
const forwardEveryMs = 20;
/** Time for every subscriber to receive the last messages after the last answer. */
const drainTimeoutMs = 15_000;
/** Time for the last answers after the last send; later ones count as unanswered. */
const answersTimeoutMs = 20_000;

// -------------------------------------------------------------------------------------------------
// Client processes

class ClientProcess {
  private readonly waiting = new Map<string, (message: unknown) => void>();
  readonly output: string[] = [];
  failure: Error | null = null;

  constructor(
    readonly process: ChildProcess,
    readonly count: number,
  ) {
    process.on('message', (message: { type: string }) => {
      const resolve = this.waiting.get(message.type);
      this.waiting.delete(message.type);
      resolve?.(message);
    });
    const keep = (chunk: Buffer): void => {
      if (this.output.length < 50) this.output.push(chunk.toString('utf8'));
    };
    process.stdout!.on('data', keep);
    process.stderr!.on('data', keep);
    process.once('exit', (code) => {
      if (code !== 0 || this.waiting.size > 0) this.failure = new Error(`a client process exited with ${code}:\n${this.output.join('')}`);
      for (const resolve of this.waiting.values()) resolve(null);
      this.waiting.clear();
    });
  }

  send(message: ParentMessage): void {
    this.process.send(message);
  }

  /** Sends `message` and waits for the answer of type `answer`. */
  ask<T>(message: ParentMessage, answer: string): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.process.exitCode !== null) return reject(this.failure ?? new Error('a client process is gone'));
      this.waiting.set(answer, (reply) => (reply === null ? reject(this.failure ?? new Error('a client process exited')) : resolve(reply as T)));
      this.send(message);
    });
  }
}

function startClients(): ClientProcess[] {
  const clients: ClientProcess[] = [];
  for (let index = 0; index < processes; index++) {
    const count = Math.floor(subscribers / processes) + (index < subscribers % processes ? 1 : 0);
    const child = spawnNode(['--import', 'tsx', 'bench/ws/subscribers.ts'], { env: process.env, fileLimit: count + fileMargin, ipc: true });
    clients.push(new ClientProcess(child, count));
  }
  return clients;
}

async function stopClients(clients: readonly ClientProcess[]): Promise<void> {
  await Promise.all(
    clients.map(async (client) => {
      if (client.process.exitCode !== null || client.process.signalCode !== null) return;
      const exited = new Promise<void>((done) => client.process.once('exit', () => done()));
      if (client.process.connected) client.send({ type: 'close' });
      else client.process.kill('SIGTERM');
      const timer = setTimeout(() => client.process.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

// -------------------------------------------------------------------------------------------------
// Setup

interface Book {
  orders: number;
  levels: number;
  bestBid: string;
  bestAsk: string;
  /** JSON of [bids, asks] as [price, quantity] pairs, the form of an orderbook snapshot. */
  snapshot: string;
}

async function readBook(api: Api, key: string): Promise<Book> {
  const book = await api.call('GET', `/api/v1/exchange/${symbol}/book?depth=1000`, undefined, { 'X-API-Key': key }, [200]);
  const bids = book['bids'] as Array<{ price: string; quantity: string; orders: number }>;
  const asks = book['asks'] as Array<{ price: string; quantity: string; orders: number }>;
  const sum = (levels: Array<{ orders: number }>): number => levels.reduce((total, level) => total + level.orders, 0);
  const pairs = (levels: Array<{ price: string; quantity: string }>): string[][] => levels.map((level) => [level.price, level.quantity]);
  return {
    orders: sum(bids) + sum(asks),
    levels: bids.length + asks.length,
    bestBid: bids[0]?.price ?? '-',
    bestAsk: asks[0]?.price ?? '-',
    snapshot: JSON.stringify([pairs(bids), pairs(asks)]),
  };
}

/** 1..depthTicks ticks from the mid, denser near it (as real depth is). */
function passiveTicks(next: () => number, buy: boolean): number {
  const u = next();
  const distance = 1 + Math.floor((depthTicks - 1) * u * u);
  return buy ? midTicks - distance : midTicks + distance;
}

async function seedBook(api: Api, key: string, next: () => number): Promise<void> {
  for (let placed = 0; placed < seedOrders; placed += seedBatchOrders) {
    const orders = Array.from({ length: seedBatchOrders }, (_, index) => {
      const buy = (placed + index) % 2 === 0;
      return { side: buy ? 'buy' : 'sell', order_type: 'limit', quantity, price: priceText(passiveTicks(next, buy)) };
    });
    const answer = await api.call('POST', `/api/v1/exchange/${symbol}/orders/batch`, { orders }, { 'X-API-Key': key }, [200, 201]);
    for (const result of answer['results'] as Array<Record<string, unknown>>) {
      if (result['status'] !== 'open') throw new Error(`a seed order did not rest: ${JSON.stringify(result)}`);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// The order load

interface Load {
  sent: number;
  answered: number;
  rested: number;
  filled: number;
  /** IOCs that found nothing to take (the other side was empty). */
  expired: number;
  failures: number;
  firstFailure: string;
  lateSends: number;
  lateMaxUs: number;
  /** HTTP round trip of the orders sent in the window. */
  answer: Histogram;
  sentInWindow: number;
  tradesInWindow: number;
  /** Orders still unanswered `answersTimeoutMs` after the last send (the server was saturated). */
  unanswered: number;
}

/**
 * Sends `total` orders on an absolute schedule from `startUs` and resolves when all are answered. Cycle of
 * four: passive buy, IOC sell (takes the best bid), passive sell, IOC buy (takes the best ask).
 */
async function placeOrders(url: string, key: string, clients: readonly ClientProcess[], startUs: number, total: number, windowFromUs: number, windowToUs: number): Promise<Load> {
  const load: Load = {
    sent: 0,
    answered: 0,
    rested: 0,
    filled: 0,
    expired: 0,
    failures: 0,
    firstFailure: '',
    lateSends: 0,
    lateMaxUs: 0,
    answer: new Histogram(),
    sentInWindow: 0,
    tradesInWindow: 0,
    unanswered: 0,
  };
  const next = seededRandom(20_251_123);
  const intervalUs = 1e6 / ratePerS;
  const ordersUrl = `${url}/api/v1/exchange/${symbol}/orders`;
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': key };
  // node:http with kept-alive connections: fetch() cost several times more CPU per request here, and the
  // bench shares the machine with the server and the clients.
  const agent = new http.Agent({ keepAlive: true, maxSockets: ordersConnectionsMax });
  let tradeIds: number[] = [];
  let sendUs: number[] = [];
  const forward = (): void => {
    if (tradeIds.length === 0) return;
    for (const client of clients) client.send({ type: 'sends', tradeIds, sendUs });
    tradeIds = [];
    sendUs = [];
  };
  const forwarder = setInterval(forward, forwardEveryMs);
  let allAnswered: () => void = () => {};
  const answeredAll = new Promise<void>((done) => (allAnswered = done));
  let stopped = false;
  const onAnswer = (sentUs: number, status: number, text: string): void => {
    if (stopped) return;
    const answeredUs = monotonicUs();
    const inWindow = sentUs >= windowFromUs && sentUs < windowToUs;
    if (inWindow) load.answer.record(answeredUs - sentUs);
    if (status !== 201) {
      load.failures++;
      if (load.firstFailure === '') load.firstFailure = `${status} ${text.slice(0, 300)}`;
    } else {
      const order = JSON.parse(text) as { status: string; fills: Array<{ trade_id: string }> };
      if (order.status === 'open') load.rested++;
      else if (order.status === 'filled') load.filled++;
      else load.expired++;
      for (const fill of order.fills) {
        tradeIds.push(Number(fill.trade_id));
        sendUs.push(sentUs);
      }
      if (inWindow) load.tradesInWindow += order.fills.length;
    }
    if (++load.answered === total) allAnswered();
  };
  const sendOrder = (index: number): void => {
    const kind = index % 4;
    const buy = kind === 0 || kind === 3;
    const body =
      kind === 0 || kind === 2
        ? { side: buy ? 'buy' : 'sell', order_type: 'limit', quantity, price: priceText(passiveTicks(next, buy)) }
        : { side: buy ? 'buy' : 'sell', order_type: 'limit', time_in_force: 'IOC', quantity, price: priceText(buy ? midTicks + iocBeyondTicks : midTicks - iocBeyondTicks), stp: 'none' };
    const sentUs = monotonicUs();
    if (sentUs >= windowFromUs && sentUs < windowToUs) load.sentInWindow++;
    load.sent++;
    const payload = JSON.stringify(body);
    const request = http.request(ordersUrl, { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(payload) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => onAnswer(sentUs, response.statusCode ?? 0, text));
    });
    request.on('error', (error) => onAnswer(sentUs, 0, String(error)));
    request.end(payload);
  };
  for (let index = 0; index < total; index++) {
    const dueUs = startUs + index * intervalUs;
    let nowUs = monotonicUs();
    // Timers have millisecond resolution and may wake a little early: never send before the slot.
    while (dueUs > nowUs) {
      await new Promise((done) => setTimeout(done, Math.max(1, Math.ceil((dueUs - nowUs) / 1000))));
      nowUs = monotonicUs();
    }
    const lateUs = nowUs - dueUs;
    if (lateUs > lateSendUs) load.lateSends++;
    if (lateUs > load.lateMaxUs) load.lateMaxUs = lateUs;
    sendOrder(index);
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([answeredAll, new Promise<void>((done) => (timer = setTimeout(done, answersTimeoutMs)))]);
  clearTimeout(timer);
  // A saturated server may still owe answers: they are counted as unanswered, and what they would have
  // taken is in no latency figure.
  stopped = true;
  load.unanswered = total - load.answered;
  clearInterval(forwarder);
  agent.destroy();
  forward();
  return load;
}

// -------------------------------------------------------------------------------------------------
// CPU during the window

interface CpuMark {
  serverMain: number;
  serverMainSystem: number;
  server: number;
  clients: number;
  bench: number;
  machineBusy: number;
  machineTotal: number;
  atUs: number;
}

function cpuMark(serverPid: number, clients: readonly ClientProcess[]): CpuMark {
  const usage = process.cpuUsage();
  const machine = machineCpuSeconds();
  const main = cpuTimes(serverPid, serverPid);
  return {
    serverMain: main.user + main.system,
    serverMainSystem: main.system,
    server: cpuSeconds(serverPid),
    clients: clients.reduce((total, client) => total + cpuSeconds(client.process.pid!), 0),
    bench: (usage.user + usage.system) / 1e6,
    machineBusy: machine.busy,
    machineTotal: machine.total,
    atUs: monotonicUs(),
  };
}

/** CPU used between two marks, in cores (1 = one core busy the whole time). */
interface CpuUse {
  serverMain: number;
  /** The part of serverMain spent in the kernel (socket sends above all). */
  serverMainSystem: number;
  server: number;
  clients: number;
  bench: number;
  /** Busy cores of the whole machine (all processes, including other people's). */
  machine: number;
}

function cpuUse(from: CpuMark, to: CpuMark): CpuUse {
  const seconds = (to.atUs - from.atUs) / 1e6;
  return {
    serverMain: (to.serverMain - from.serverMain) / seconds,
    serverMainSystem: (to.serverMainSystem - from.serverMainSystem) / seconds,
    server: (to.server - from.server) / seconds,
    clients: (to.clients - from.clients) / seconds,
    bench: (to.bench - from.bench) / seconds,
    machine: ((to.machineBusy - from.machineBusy) / (to.machineTotal - from.machineTotal)) * os.cpus().length,
  };
}

// -------------------------------------------------------------------------------------------------
// The run

interface Setup {
  server: Child;
  url: string;
  /** The setup client of the order server (null for the bare server, which has no API). */
  api: Api | null;
  key: string;
  seeded: Book;
}

async function prepare(server: Child): Promise<Setup> {
  const url = `http://127.0.0.1:${server.port}`;
  const api = new Api(url, adminKey);
  await checkPair(api, symbol, tickSize, lotSize, 'bench/ws.ts');
  const [key] = await createTrader(api, 'bench_ws', 1, [
    { asset: 'USDC', amount: '100000000' },
    { asset: 'ETH', amount: '100000' },
  ]);
  await seedBook(api, key!, seededRandom(20_251_122));
  const seeded = await readBook(api, key!);
  log(`server: seeded ${seeded.orders} resting orders on ${seeded.levels} levels (best bid ${seeded.bestBid}, best ask ${seeded.bestAsk})`);
  return { server, url, api, key: key!, seeded };
}

/** Opens every subscriber; fails unless each confirmed both subscriptions and got the right snapshot. */
async function connectSubscribers(clients: readonly ClientProcess[], setup: Setup, label: string): Promise<number> {
  const wsUrl = `ws://127.0.0.1:${setup.server.port}/ws/exchange/${symbol}`;
  const started = performance.now();
  const readies = await Promise.all(
    clients.map((client) =>
      client.ask<Ready>(
        { type: 'connect', client: clientKind, url: wsUrl, count: client.count, concurrency: connectConcurrency, expectedSnapshot: setup.seeded.snapshot },
        'ready',
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const total = (field: 'connected' | 'ready' | 'snapshotsOk'): number => readies.reduce((count, ready) => count + ready[field], 0);
  const seqLow = Math.min(...readies.map((ready) => ready.snapshotSeqMin));
  const seqHigh = Math.max(...readies.map((ready) => ready.snapshotSeqMax));
  log(
    `${label} subscribers (${clientKind} client): ${fmtInt(total('connected'))} of ${fmtInt(subscribers)} connected in ${seconds.toFixed(1)} s; ` +
      `${fmtInt(total('ready'))} confirmed both subscriptions; ${fmtInt(total('snapshotsOk'))} got a snapshot equal to GET /book ` +
      `(${setup.seeded.levels} levels, seq ${seqLow}${seqHigh === seqLow ? '' : `-${seqHigh}`})`,
  );
  if (total('ready') < subscribers || total('snapshotsOk') < subscribers) {
    const failure = readies.find((ready) => ready.firstFailure !== '');
    throw new Error(`not every subscriber is ready${failure === undefined ? '' : `; first failure: ${failure.firstFailure}`}`);
  }
  return seconds;
}

interface Measured {
  load: Load;
  /** Averaged over the windows, weighted by their lengths. */
  cpu: CpuUse;
  /** The timed windows, [from, to] in monotonic µs. */
  windows: Array<[number, number]>;
  /** Their total length. */
  seconds: number;
}

/**
 * One turn of the order schedule: `warmS` seconds of warm-up (none after a server's first turn), then a
 * timed window of `windowS` seconds; CPU is read at the window's edges.
 */
async function measure(setup: Setup, clients: readonly ClientProcess[], warmS: number, windowS: number): Promise<Measured> {
  const total = Math.round(ratePerS * (warmS + windowS));
  const wallOffsetUs = wallMinusMonotonicUs();
  const startUs = monotonicUs() + 100_000;
  const windowFromUs = startUs + warmS * 1e6;
  const windowToUs = windowFromUs + windowS * 1e6;
  const fromWallMs = Math.ceil((windowFromUs + wallOffsetUs) / 1000);
  for (const client of clients) client.send({ type: 'window', fromWallMs, toWallMs: fromWallMs + Math.round(windowS * 1000) });
  const serverPid = setup.server.process.pid!;
  const markAt = (dueUs: number): Promise<CpuMark> =>
    new Promise((done) => setTimeout(() => done(cpuMark(serverPid, clients)), Math.max(0, (dueUs - monotonicUs()) / 1000)));
  const from = markAt(windowFromUs);
  const to = markAt(windowToUs);
  const load = await placeOrders(setup.url, setup.key, clients, startUs, total, windowFromUs, windowToUs);
  const fromMark = await from;
  const toMark = await to;
  return { load, cpu: cpuUse(fromMark, toMark), windows: [[fromMark.atUs, toMark.atUs]], seconds: (toMark.atUs - fromMark.atUs) / 1e6 };
}

/** Two turns of the same server as one measurement. */
function mergeMeasured(a: Measured | null, b: Measured): Measured {
  if (a === null) return b;
  const seconds = a.seconds + b.seconds;
  const cpu = {} as CpuUse;
  for (const key of Object.keys(a.cpu) as Array<keyof CpuUse>) cpu[key] = (a.cpu[key] * a.seconds + b.cpu[key] * b.seconds) / seconds;
  const answer = new Histogram(a.load.answer.data());
  answer.merge(b.load.answer.data());
  const load: Load = { ...a.load, answer, firstFailure: a.load.firstFailure === '' ? b.load.firstFailure : a.load.firstFailure, lateMaxUs: Math.max(a.load.lateMaxUs, b.load.lateMaxUs) };
  const counts = ['sent', 'answered', 'rested', 'filled', 'expired', 'failures', 'lateSends', 'sentInWindow', 'tradesInWindow', 'unanswered'] as const;
  for (const key of counts) load[key] = a.load[key] + b.load[key];
  return { load, cpu, windows: [...a.windows, ...b.windows], seconds };
}

interface Collected {
  reports: Report[];
  drained: Drained[];
  lastBookSeq: number;
  lastTradesSeq: number;
}

/**
 * Waits until every subscriber has the last message of both topics (the highest seq any subscriber saw:
 * every order is answered, so everything is published), then collects the clients' reports.
 */
async function collect(clients: readonly ClientProcess[]): Promise<Collected> {
  await new Promise((done) => setTimeout(done, 200));
  const seqs = await Promise.all(clients.map((client) => client.ask<Seqs>({ type: 'seqs' }, 'seqs')));
  const lastBookSeq = Math.max(...seqs.map((seq) => seq.orderbookSeqMax));
  const lastTradesSeq = Math.max(...seqs.map((seq) => seq.tradesSeqMax));
  const drained = await Promise.all(
    clients.map((client) => client.ask<Drained>({ type: 'drain', orderbookSeq: lastBookSeq, tradesSeq: lastTradesSeq, timeoutMs: drainTimeoutMs }, 'drained')),
  );
  const reports = await Promise.all(clients.map((client) => client.ask<Report>({ type: 'report' }, 'report')));
  return { reports, drained, lastBookSeq, lastTradesSeq };
}

/**
 * Per orderbook delta of the window: the last receive over all subscribers minus the first (the fan-out),
 * and the first receive minus the delta's timestamp (what comes before the fan-out: the server's path from
 * sequencing to publishing, and any wait behind an earlier fan-out).
 */
function fanOutSpread(reports: readonly Report[]): { spread: Histogram; toFirst: Histogram } {
  const bySeq = new Map<number, [number, number, number]>();
  for (const report of reports) {
    for (let index = 0; index < report.spreadSeqs.length; index++) {
      const seq = report.spreadSeqs[index]!;
      const first = report.spreadFirstUs[index]!;
      const last = report.spreadLastUs[index]!;
      const toFirst = report.spreadFirstLatencyUs[index]!;
      const known = bySeq.get(seq);
      bySeq.set(seq, known === undefined ? [first, last, toFirst] : [Math.min(known[0], first), Math.max(known[1], last), Math.min(known[2], toFirst)]);
    }
  }
  const spread = new Histogram();
  const toFirst = new Histogram();
  for (const [first, last, firstLatency] of bySeq.values()) {
    spread.record(last - first);
    toFirst.record(Math.max(0, firstLatency));
  }
  return { spread, toFirst };
}

function sum(reports: readonly Report[], field: keyof Report): number {
  return reports.reduce((total, report) => total + (report[field] as number), 0);
}

function merged(reports: readonly Report[], field: 'delivery' | 'deliveryBook' | 'deliveryTrades' | 'tradeFromSend'): Histogram {
  const histogram = new Histogram();
  for (const report of reports) histogram.merge(report[field]);
  return histogram;
}

/** Everything the report prints, from the measured run and the clients' reports. */
interface Figures {
  measured: Measured;
  collected: Collected;
  /** The order server's book after the run (null for the bare server). */
  book: Book | null;
  connectS: number;
  delivery: Histogram;
  deliveryBook: Histogram;
  deliveryTrades: Histogram;
  tradeFromSend: Histogram;
  spread: Histogram;
  toFirst: Histogram;
  windowBook: number;
  windowTrades: number;
  windowBookBytes: number;
  windowTradeBytes: number;
  gapEvents: number;
  missing: number;
  duplicates: number;
  withGaps: number;
  disconnects: number;
  disconnectCodes: Record<string, number>;
  errorMessages: number;
  firstError: string;
  reached: number;
  open: number;
  drainMs: number;
  tradesUnmatched: number;
  negative: number;
  loopP99Us: number;
  loopMaxUs: number;
  driftUs: number;
}

function figuresOf(measured: Measured, collected: Collected, book: Book | null, connectS: number): Figures {
  const { reports, drained } = collected;
  const disconnectCodes: Record<string, number> = {};
  for (const report of reports) {
    for (const [code, count] of Object.entries(report.disconnectCodes)) disconnectCodes[code] = (disconnectCodes[code] ?? 0) + count;
  }
  return {
    measured,
    collected,
    book,
    connectS,
    delivery: merged(reports, 'delivery'),
    deliveryBook: merged(reports, 'deliveryBook'),
    deliveryTrades: merged(reports, 'deliveryTrades'),
    tradeFromSend: merged(reports, 'tradeFromSend'),
    ...fanOutSpread(reports),
    windowBook: sum(reports, 'windowBookMessages'),
    windowTrades: sum(reports, 'windowTradeMessages'),
    windowBookBytes: sum(reports, 'windowBookBytes'),
    windowTradeBytes: sum(reports, 'windowTradeBytes'),
    gapEvents: sum(reports, 'gapEvents'),
    missing: sum(reports, 'missingMessages'),
    duplicates: sum(reports, 'duplicates'),
    withGaps: sum(reports, 'subscribersWithGaps'),
    disconnects: sum(reports, 'disconnects'),
    disconnectCodes,
    errorMessages: sum(reports, 'errorMessages'),
    firstError: reports.find((report) => report.firstError !== '')?.firstError ?? '',
    reached: drained.reduce((total, d) => total + d.reached, 0),
    open: drained.reduce((total, d) => total + d.open, 0),
    drainMs: Math.max(...drained.map((d) => d.waitedMs)),
    tradesUnmatched: sum(reports, 'tradesUnmatched'),
    negative: sum(reports, 'negativeLatencies'),
    loopP99Us: Math.max(...reports.map((report) => report.loopDelayP99Us)),
    loopMaxUs: Math.max(...reports.map((report) => report.loopDelayMaxUs)),
    driftUs: Math.max(...reports.map((report) => Math.abs(report.clockDriftUs))),
  };
}

function bytesPer(bytes: number, messages: number): string {
  return messages === 0 ? '-' : (bytes / messages).toFixed(1);
}

function msText(us: number): string {
  return Number.isNaN(us) ? '-' : (us / 1000).toFixed(2);
}

function latencyLine(histogram: Histogram, unit: string): string {
  return (
    `p50 ${msText(histogram.quantileUs(0.5))} ms, p90 ${msText(histogram.quantileUs(0.9))} ms, p99 ${msText(histogram.quantileUs(0.99))} ms, ` +
    `p99.9 ${msText(histogram.quantileUs(0.999))} ms, max ${msText(histogram.maxUs)} ms over ${fmtInt(histogram.total)} ${unit}`
  );
}

function printReport(f: Figures): void {
  const { load, cpu } = f.measured;
  const { lastBookSeq, lastTradesSeq } = f.collected;
  log(
    `orders: ${(load.sentInWindow / durationS).toFixed(1)}/s sent in the window (${fmtInt(ratePerS)}/s offered; ${fmtInt(load.lateSends)} sends more than ` +
      `${lateSendUs / 1000} ms behind their slot, the worst ${msText(load.lateMaxUs)} ms); of all ${fmtInt(load.sent)}: ${fmtInt(load.rested)} rested, ` +
      `${fmtInt(load.filled)} IOCs filled, ${fmtInt(load.expired)} IOCs found nothing, ${fmtInt(load.failures)} failed, ${fmtInt(load.unanswered)} unanswered`,
  );
  if (load.firstFailure !== '') log(`  first failed order: ${load.firstFailure}`);
  if (load.unanswered > 0) {
    log(`  SATURATED: ${fmtInt(load.unanswered)} orders had no answer ${answersTimeoutMs / 1000} s after the last send; no figure below includes their wait`);
  }
  log(
    `  HTTP answer (send to 201, orders sent in the window): ${latencyLine(load.answer, 'orders')}` +
      (f.book === null ? '' : `; book after: ${f.book.orders} resting orders on ${f.book.levels} levels`),
  );
  log(
    `delivered in the window: ${fmtInt((f.windowBook + f.windowTrades) / durationS)} messages/s over all subscribers; per subscriber ` +
      `${(f.windowBook / subscribers / durationS).toFixed(1)} orderbook deltas/s + ${(f.windowTrades / subscribers / durationS).toFixed(1)} trades/s ` +
      `(${(load.tradesInWindow / durationS).toFixed(1)} trades/s made by orders sent in the window); payload bytes per message: ` +
      `orderbook delta ${bytesPer(f.windowBookBytes, f.windowBook)}, trade ${bytesPer(f.windowTradeBytes, f.windowTrades)}`,
  );
  log(`delivery latency (receive - message timestamp, which is truncated to the ms: each figure includes 0-1 ms of it):`);
  log(`  all messages:      ${latencyLine(f.delivery, 'messages')}`);
  log(`  orderbook deltas:  ${latencyLine(f.deliveryBook, 'messages')}`);
  log(`  trades:            ${latencyLine(f.deliveryTrades, 'messages')}`);
  log(`  over ${latencyTargetMs} ms: ${fmtInt(f.delivery.countAboveUs(latencyTargetMs * 1000))} messages`);
  log(`trades from the HTTP send of the order that made them (matched by trade id): ${latencyLine(f.tradeFromSend, 'messages')}`);
  log(`fan-out (last minus first subscriber to receive the same orderbook delta): ${latencyLine(f.spread, 'deltas')}`);
  log(`to the first subscriber (its receive minus the delta's timestamp): ${latencyLine(f.toFirst, 'deltas')}`);
  log(
    `checks: seq gaps ${fmtInt(f.gapEvents)} in ${fmtInt(f.withGaps)} subscribers (${fmtInt(f.missing)} messages missing), ` +
      `${fmtInt(f.duplicates)} repeated or out of order; disconnects ${fmtInt(f.disconnects)}` +
      `${f.disconnects > 0 ? ` (close codes ${JSON.stringify(f.disconnectCodes)})` : ''}; error messages ${f.errorMessages}; ` +
      `${fmtInt(f.reached)} of ${fmtInt(f.open)} open subscribers got the last orderbook seq ${lastBookSeq} and trades seq ${lastTradesSeq} ` +
      `(waited ${(f.drainMs / 1000).toFixed(1)} s)`,
  );
  if (f.firstError !== '') log(`  first error message: ${f.firstError}`);
  if (f.tradesUnmatched > 0 || f.negative > 0) log(`  trades without a send time ${fmtInt(f.tradesUnmatched)}, negative latencies ${fmtInt(f.negative)}`);
  log(
    `cpu in the window: server main thread ${cores(cpu.serverMain)} of a core (${cores(cpu.serverMainSystem)} in the kernel), server process ` +
      `${cores(cpu.server)}, client processes ${cores(cpu.clients)} (all ${processes}), bench ${cores(cpu.bench)}; ` +
      `the machine ${cpu.machine.toFixed(2)} of ${os.cpus().length} cores busy`,
  );
  log(
    `client event loops: timer delay p99 ${msText(f.loopP99Us)} ms, max ${msText(f.loopMaxUs)} ms (the worst process); ` +
      `wall clock vs monotonic drift at the end ${msText(f.driftUs)} ms`,
  );
}

function printProfile(profileDir: string, measured: Measured): void {
  const kept = keepCpuProfile(profileDir, 'bench-ws-server');
  const label = measured.windows.length === 1 ? 'the timed window' : `the ${measured.windows.length} timed windows`;
  for (const line of cpuProfileSummaryOf(kept, label, measured.windows)) log(`  ${line}`);
  log('  (idle) includes native work outside JavaScript, the socket sends of uWS pub/sub among it: see the kernel share on the cpu line');
}

function jsonLine(f: Figures, bare: Figures | null, coalesced: { batches: number; coalesced: number }): string {
  const { load, cpu } = f.measured;
  const ms = (us: number): number => round(us / 1000, 3);
  const own = summaryOf(f);
  return JSON.stringify({
    subscribers,
    msgs_per_s: Math.round((f.windowBook + f.windowTrades) / durationS),
    delivery_p99_ms: ms(f.delivery.quantileUs(0.99)),
    delivery_p50_ms: ms(f.delivery.quantileUs(0.5)),
    delivery_max_ms: ms(f.delivery.maxUs),
    orders_per_s: round(load.sentInWindow / durationS, 1),
    disconnects: f.disconnects,
    delivery_p90_ms: ms(f.delivery.quantileUs(0.9)),
    delivery_p999_ms: ms(f.delivery.quantileUs(0.999)),
    messages_over_target: f.delivery.countAboveUs(latencyTargetMs * 1000),
    book_p99_ms: ms(f.deliveryBook.quantileUs(0.99)),
    trades_p99_ms: ms(f.deliveryTrades.quantileUs(0.99)),
    trade_from_send_p50_ms: ms(f.tradeFromSend.quantileUs(0.5)),
    trade_from_send_p99_ms: ms(f.tradeFromSend.quantileUs(0.99)),
    fan_out_p50_ms: ms(f.spread.quantileUs(0.5)),
    fan_out_p99_ms: ms(f.spread.quantileUs(0.99)),
    to_first_p50_ms: ms(f.toFirst.quantileUs(0.5)),
    to_first_p99_ms: ms(f.toFirst.quantileUs(0.99)),
    answer_p50_ms: ms(load.answer.quantileUs(0.5)),
    answer_p99_ms: ms(load.answer.quantileUs(0.99)),
    book_msgs_per_subscriber_per_s: round(f.windowBook / subscribers / durationS, 2),
    trade_msgs_per_subscriber_per_s: round(f.windowTrades / subscribers / durationS, 2),
    trades_per_s: round(load.tradesInWindow / durationS, 1),
    seq_gaps: f.gapEvents,
    missing_messages: f.missing,
    duplicates: f.duplicates,
    subscribers_behind_at_end: f.open - f.reached,
    error_messages: f.errorMessages,
    order_failures: load.failures,
    unanswered_orders: load.unanswered,
    late_sends: load.lateSends,
    connect_s: round(f.connectS, 1),
    server_main_thread_cores: round(cpu.serverMain, 2),
    server_main_thread_kernel_cores: round(cpu.serverMainSystem, 2),
    server_process_cores: round(cpu.server, 2),
    client_processes_cores: round(cpu.clients, 2),
    bench_cores: round(cpu.bench, 2),
    machine_busy_cores: round(cpu.machine, 2),
    client_loop_delay_p99_ms: ms(f.loopP99Us),
    client: clientKind,
    client_processes: processes,
    rate_per_s: ratePerS,
    duration_s: durationS,
    journal_sync: journalSync,
    server_cpu_s: round(own.serverCpuS, 2),
    cpu_us_per_msg: round(own.cpuUsPerMsg, 3),
    book_frame_bytes: round(f.windowBookBytes / Math.max(1, f.windowBook), 1),
    trade_frame_bytes: round(f.windowTradeBytes / Math.max(1, f.windowTrades), 1),
    durable_batches: coalesced.batches,
    coalesced_batches: coalesced.coalesced,
    ...(bare === null ? {} : bareJson(own, bare)),
  });
}

/** The baseline's figures and the platform's ratios to them, for the JSON line. */
function bareJson(own: Summary, f: Figures): Record<string, number> {
  const bare = summaryOf(f);
  const ms = (us: number): number => round(us / 1000, 3);
  return {
    bare_msgs_per_s: Math.round(bare.msgsPerS),
    bare_p50_ms: ms(bare.p50Us),
    bare_p99_ms: ms(bare.p99Us),
    bare_max_ms: ms(bare.maxUs),
    bare_trades_p99_ms: ms(bare.tradesP99Us),
    bare_trade_from_send_p99_ms: ms(bare.tradeFromSendP99Us),
    bare_fan_out_p50_ms: ms(bare.fanOutP50Us),
    bare_to_first_p50_ms: ms(bare.toFirstP50Us),
    bare_to_first_p99_ms: ms(bare.toFirstP99Us),
    bare_server_cpu_s: round(bare.serverCpuS, 2),
    bare_server_main_thread_cpu_s: round(bare.mainCpuS, 2),
    bare_cpu_us_per_msg: round(bare.cpuUsPerMsg, 3),
    bare_book_frame_bytes: round(f.windowBookBytes / Math.max(1, f.windowBook), 1),
    bare_trade_frame_bytes: round(f.windowTradeBytes / Math.max(1, f.windowTrades), 1),
    ratio_p50_vs_bare: round(own.p50Us / bare.p50Us, 2),
    ratio_p99_vs_bare: round(own.p99Us / bare.p99Us, 2),
    ratio_max_vs_bare: round(own.maxUs / bare.maxUs, 2),
    ratio_msgs_per_s_vs_bare: round(own.msgsPerS / bare.msgsPerS, 3),
    ratio_cpu_per_msg_vs_bare: round(own.cpuUsPerMsg / bare.cpuUsPerMsg, 2),
  };
}

/** The figures the platform is compared with the baseline on. */
interface Summary {
  msgsPerS: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  tradesP99Us: number;
  tradeFromSendP99Us: number;
  fanOutP50Us: number;
  toFirstP50Us: number;
  toFirstP99Us: number;
  /** CPU seconds of the whole server process, and of its main thread, in the timed window. */
  serverCpuS: number;
  mainCpuS: number;
  /** Server process CPU per message delivered in the window (µs). */
  cpuUsPerMsg: number;
}

function summaryOf(f: Figures): Summary {
  const { cpu, seconds } = f.measured;
  const delivered = f.windowBook + f.windowTrades;
  return {
    msgsPerS: delivered / durationS,
    p50Us: f.delivery.quantileUs(0.5),
    p99Us: f.delivery.quantileUs(0.99),
    maxUs: f.delivery.maxUs,
    tradesP99Us: f.deliveryTrades.quantileUs(0.99),
    tradeFromSendP99Us: f.tradeFromSend.quantileUs(0.99),
    fanOutP50Us: f.spread.quantileUs(0.5),
    toFirstP50Us: f.toFirst.quantileUs(0.5),
    toFirstP99Us: f.toFirst.quantileUs(0.99),
    serverCpuS: cpu.server * seconds,
    mainCpuS: cpu.serverMain * seconds,
    cpuUsPerMsg: (cpu.server * seconds * 1e6) / Math.max(1, delivered),
  };
}

/** The goal of the fan-out against the baseline: the platform at most this many times the bare loop. */
const bareRatioGoal = 1.5;

function printComparison(platform: Figures, bareFigures: Figures): { p99: number; cpu: number } {
  const own = summaryOf(platform);
  const bare = summaryOf(bareFigures);
  const row = (name: string, bareValue: string, ownValue: string, ratio: number): void =>
    log(`  ${name.padEnd(46)} ${bareValue.padStart(10)} ${ownValue.padStart(10)} ${(Number.isFinite(ratio) ? ratio.toFixed(2) : '-').padStart(8)}`);
  const msRow = (name: string, bareUs: number, ownUs: number): void => row(name, msText(bareUs), msText(ownUs), ownUs / bareUs);
  log('platform against the bare uWS publish loop (same subscribers, client processes and order schedule; windows in turns):');
  log(`  ${''.padEnd(46)} ${'bare'.padStart(10)} ${'platform'.padStart(10)} ${'ratio'.padStart(8)}`);
  row('delivered messages/s', fmtInt(bare.msgsPerS), fmtInt(own.msgsPerS), own.msgsPerS / bare.msgsPerS);
  msRow('delivery p50 ms (sequenced -> received)', bare.p50Us, own.p50Us);
  msRow('delivery p99 ms', bare.p99Us, own.p99Us);
  msRow('delivery max ms', bare.maxUs, own.maxUs);
  msRow('trades p99 ms', bare.tradesP99Us, own.tradesP99Us);
  msRow('trade from the order\'s HTTP send p99 ms', bare.tradeFromSendP99Us, own.tradeFromSendP99Us);
  msRow('fan-out (last - first subscriber) p50 ms', bare.fanOutP50Us, own.fanOutP50Us);
  msRow('to the first subscriber p50 ms', bare.toFirstP50Us, own.toFirstP50Us);
  msRow('to the first subscriber p99 ms', bare.toFirstP99Us, own.toFirstP99Us);
  row('server CPU s in the windows, process', bare.serverCpuS.toFixed(2), own.serverCpuS.toFixed(2), own.serverCpuS / bare.serverCpuS);
  row('server CPU s in the windows, main thread', bare.mainCpuS.toFixed(2), own.mainCpuS.toFixed(2), own.mainCpuS / bare.mainCpuS);
  row('server CPU µs per delivered message', bare.cpuUsPerMsg.toFixed(2), own.cpuUsPerMsg.toFixed(2), own.cpuUsPerMsg / bare.cpuUsPerMsg);
  return { p99: own.p99Us / bare.p99Us, cpu: own.cpuUsPerMsg / bare.cpuUsPerMsg };
}

/** What makes the run fail (exit code 1): broken checks, not slow figures. */
function problemsOf(f: Figures): string[] {
  const { load } = f.measured;
  const problems: string[] = [];
  if (load.failures > 0) problems.push(`${load.failures} orders failed`);
  if (load.unanswered > 0) problems.push(`${load.unanswered} orders unanswered: the server was saturated at ${ratePerS} orders/s`);
  if (f.gapEvents > 0 || f.duplicates > 0) problems.push(`seq gaps ${f.gapEvents}, repeated or out of order ${f.duplicates}`);
  if (f.reached < f.open) problems.push(`${f.open - f.reached} subscribers did not get the last messages`);
  if (f.errorMessages > 0) problems.push(`${f.errorMessages} error messages`);
  if (f.tradesUnmatched > 0) problems.push(`${f.tradesUnmatched} trades without a send time`);
  return problems;
}

/** A server under test, its client processes, and what its turns measured so far. */
interface Target {
  label: string;
  server: Child;
  setup: Setup;
  clients: ClientProcess[];
  connectS: number;
  measured: Measured | null;
  /** Reads the server's book after the run (null where there is none). */
  bookAfter: () => Promise<Book | null>;
}

/** Starts the target's client processes and opens its subscribers. */
async function connectTarget(target: Target): Promise<void> {
  target.clients = startClients();
  target.connectS = await connectSubscribers(target.clients, target.setup, target.label === 'the order server' ? 'platform' : 'bare');
}

/** Waits for the last messages, collects the clients' reports, stops clients and server. */
async function finishTarget(target: Target): Promise<Figures> {
  const collected = await collect(target.clients);
  const book = await target.bookAfter();
  await stopClients(target.clients);
  await stopProcess(target.server.process);
  if (target.server.process.exitCode !== 0) throw new Error(`${target.label} exited with ${target.server.process.exitCode}:\n${target.server.output.join('')}`);
  return figuresOf(target.measured!, collected, book, target.connectS);
}

/**
 * The baseline: bench/ws/bare-server.ts, a bare uWS publish loop that answers each order by publishing
 * prepared frames of the platform's sizes. Its book is a one-level snapshot the clients are told to expect
 * (snapshots come before the window and are not timed).
 */
async function startBare(): Promise<Target> {
  const snapshot = JSON.stringify([[['2999.99', quantity]], [['3000.01', quantity]]]);
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', BARE_SNAPSHOT: snapshot };
  const server = await startNode('the bare uWS server', ['--import', 'tsx', 'bench/ws/bare-server.ts'], env, subscribers + fileMargin);
  const seeded: Book = { orders: 2, levels: 2, bestBid: '2999.99', bestAsk: '3000.01', snapshot };
  const setup: Setup = { server, url: `http://127.0.0.1:${server.port}`, api: null, key: 'bare', seeded };
  log(`baseline: bare uWS publish loop (bench/ws/bare-server.ts), a one-level book`);
  return { label: 'the bare uWS server', server, setup, clients: [], connectS: 0, measured: null, bookAfter: () => Promise.resolve(null) };
}

async function startPlatform(profileDir: string, dataDir: string): Promise<Target> {
  const nodeArgs = serverNodeArgs(values.profile ? profileDir : null);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: adminKey,
    JOURNAL_SYNC: journalSync,
    // A pure order book: with the AMM's pools quoting into the hybrid book, orders (the seed's among them)
    // would fill against pools priced elsewhere, and the book would not keep the shape the load needs.
    AMM_CHAINS: '',
    ...(subscribers + 100 > serverConnectionsDefault ? { WS_CONNECTIONS_MAX: String(subscribers + 100) } : {}),
  };
  const server = await startNode('the order server', nodeArgs, env, subscribers + fileMargin);
  try {
    const setup = await prepare(server);
    return { label: 'the order server', server, setup, clients: [], connectS: 0, measured: null, bookAfter: () => readBook(setup.api!, setup.key) };
  } catch (error) {
    await stopProcess(server.process);
    throw error;
  }
}

/**
 * Both servers stay up with their subscribers connected; the order load goes to one at a time, in turns
 * (baseline first), each server's first turn preceded by the warm-up. Taking the windows in turns, rather
 * than one server after the other, lets the machine's other work fall on both alike.
 */
async function measureInTurns(targets: readonly Target[]): Promise<void> {
  const windowS = durationS / rounds;
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      if (round > 0 || target !== targets[0]) await new Promise((done) => setTimeout(done, turnGapMs));
      target.measured = mergeMeasured(target.measured, await measure(target.setup, target.clients, round === 0 ? warmupS : 0, windowS));
    }
  }
}

async function run(tmp: string): Promise<void> {
  const started = performance.now();
  log(
    `node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)} at start; ${fmtInt(subscribers)} subscribers ` +
      `in ${processes} client processes per server, orders at ${fmtInt(ratePerS)}/s for ${durationS} s (warm-up ${warmupS} s), journal ${journalSync}` +
      (values['no-bare'] ? '; no baseline' : `; the bare uWS baseline and the platform in turns, ${rounds} windows of ${(durationS / rounds).toFixed(1)} s each`),
  );
  const profileDir = join(tmp, 'profile');
  const targets: Target[] = [];
  let bareFigures: Figures | null = null;
  let figures: Figures;
  let coalesced = { batches: 0, coalesced: 0 };
  try {
    if (!values['no-bare']) targets.push(await startBare());
    targets.push(await startPlatform(profileDir, join(tmp, 'data')));
    for (const target of targets) await connectTarget(target);
    await measureInTurns(targets);
    const platform = targets[targets.length - 1]!;
    const stats = await platform.setup.api!.admin('GET', '/admin/v1/stats', undefined);
    coalesced = { batches: stats['durable_batches'] as number, coalesced: stats['stream_coalesced_batches'] as number };
    if (targets.length > 1) bareFigures = await finishTarget(targets[0]!);
    figures = await finishTarget(platform);
  } finally {
    for (const target of targets) {
      await stopClients(target.clients);
      await stopProcess(target.server.process);
    }
  }
  const bare = bareFigures;
  if (bare !== null) {
    log('== baseline: bare uWS publish loop (bench/ws/bare-server.ts) ==');
    printReport(bare);
    log('== the platform (dist/shell/server.mjs) ==');
  }
  printReport(figures);
  log(
    `  durable batches over the server's life: ${fmtInt(coalesced.batches)}, of which ${fmtInt(coalesced.coalesced)} sent their stream messages ` +
      `with the next batch's (commands were waiting to be made durable when they were ready to go: one fan-out for both)`,
  );
  if (values.profile) printProfile(profileDir, figures.measured);
  const p99Ms = figures.delivery.quantileUs(0.99) / 1000;
  const met = p99Ms <= latencyTargetMs && figures.disconnects === 0 && figures.measured.load.unanswered === 0;
  log(`target: delivery p99 <= ${latencyTargetMs} ms with ${fmtInt(subscribers)} subscribers: ${p99Ms.toFixed(2)} ms - ${met ? 'met' : 'NOT met'}`);
  if (bare !== null) {
    const ratios = printComparison(figures, bare);
    const verdict = (ratio: number): string => (ratio <= bareRatioGoal ? 'met' : 'NOT met');
    log(
      `target: platform/bare <= ${bareRatioGoal}: delivery p99 ${ratios.p99.toFixed(2)} - ${verdict(ratios.p99)}; ` +
        `server CPU per delivered message ${ratios.cpu.toFixed(2)} - ${verdict(ratios.cpu)}`,
    );
  }
  log(`total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (values.json) console.log(jsonLine(figures, bare, coalesced));
  const problems = [...(bare === null ? [] : problemsOf(bare).map((problem) => `bare server: ${problem}`)), ...problemsOf(figures)];
  for (const problem of problems) console.error(`FAILED: ${problem}`);
  if (problems.length > 0) process.exitCode = 1;
}

buildServer();
const tmp = mkdtempSync(join(os.tmpdir(), 'bench-ws-'));
try {
  await run(tmp);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
