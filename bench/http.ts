/**
 * bench:http: order placement over HTTP on loopback, end to end: wrk → uWebSockets.js → route table →
 * API-key auth and rate limit → sequencer → engine → journal (fsync) → 201, measured twice: with the AMM
 * venues on (the server's default: pools of four chains quoting into the hybrid book) and with them off
 * (AMM_CHAINS empty). Beside it, a bare uWebSockets.js hello-world server measured the same way, once, as
 * the ceiling of HTTP on this machine, and a durable hello-world (bench/http/durable-hello.ts: the same
 * server answering each request only once a group-committed write with the journal's sync mode has put its
 * body on disk, and doing nothing else), once, as the ceiling of any server that acknowledges only durable
 * requests: the order server's ratio to hello-world sits under the durable one's.
 *
 *   npm run bench:http                        human-readable report on stdout (about 2 min here)
 *   npm run bench:http -- --json              the same, then one JSON object as the last stdout line
 *   npm run bench:http -- --duration 5        shorter timed runs (seconds each; default 15)
 *   npm run bench:http -- --amm on            only one configuration (on, off; default both)
 *   npm run bench:http -- --profile           also CPU-profile the order server (node --cpu-prof) and print
 *                                             where its main thread spent the closed-loop and half-rate runs
 *   npm run bench:http -- --baseline DIR      also an AMM-off server run from DIR/dist/shell/server.mjs: another
 *                                             commit's checkout, built there with scripts/build.mjs
 *   npm run bench:http -- --amm off --baseline DIR --rounds 6
 *                                             before the usual runs, closed loops of this build's AMM-off server
 *                                             and the baseline's in turns, the one that goes first alternating
 *                                             round by round; prints each round and the median ratio
 *   npm run bench:http -- --resting 1000000   seed and hold a book of that many resting orders (default 10 000)
 *   options: --connections 128 --threads 1 --rate 50000 --warmup 3 --sync sync|none
 *
 * How: the order server runs as a child process the way `npm start` runs it, as the esbuild bundle
 * dist/shell/server.mjs (built first by scripts/build.mjs), with a fresh DATA_DIR and JOURNAL_SYNC=sync;
 * for "AMM on" without any AMM_* variable (the embedded defaults: AMM_CHAINS=ethereum,base,arbitrum,solana,
 * AMM_FLOW=sim), for "AMM off" with AMM_CHAINS set empty. Over HTTP the bench registers users, creates API
 * keys, raises them to the ADMIN tier (600 000 order requests per key and minute; 32 keys, so no limit is
 * ever reached) and funds the users. With the AMM on it then waits until every ETH/USDC pool quotes
 * (GET /api/v1/exchange/eth/venues) and the hybrid book (GET /api/v1/exchange/eth/book/hybrid) shows venue
 * levels on both sides, and prices the seed against that book: buys below its best ask and sells above
 * its best bid, each with a margin (seedMarginBps), around its mid when the venues' spread leaves room
 * (see seedPrices). It seeds 10 000 resting ETH/USDC orders (`--resting`) with batch placements, the two innermost
 * first and alone, and checks that every one rests. wrk (Debian's package, installed by
 * scripts/ensure-wrk.sh when missing) runs bench/http/orders.lua: single-order requests, rotating the
 * keys, in a mix that keeps the book near its seeded size (post-only passive limits, IOC limits that
 * take the best resting order, cancels of ids read from earlier answers; the script's header says how
 * its prices follow the seed's and what the AMM's moves do to them). wrk runs four times against each
 * server: an untimed warm-up, the throughput run (closed loop: each connection sends its next request
 * when the previous one is answered), and two runs paced with wrk's Lua delay(), at 50 000 requests/s
 * offered and at half the rate its closed loop reached. Both servers are set up first and the runs
 * alternate between them phase by phase (AMM on, then off), so that whatever else the machine does
 * meanwhile weighs on both alike. wrk has no open-loop mode; what the paced latency
 * includes and leaves out is in bench/README.md. The hello-world server (bench/http/hello.ts) gets the
 * same wrk threads, connections and duration with a request of about the same size. Latency figures are
 * wrk's own: from the request written to the response read.
 *
 * The machine has two cores: wrk runs one thread (one core) and the server's event loop the other; the
 * server's journal writes and AMM workers run on other threads and share the cores. The report prints
 * how much CPU the server's main thread, the whole server process and wrk used, which says which side
 * was the limit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { basename, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  Api,
  buildServer,
  type Child,
  checkPair,
  cores,
  cpuProfileSummary,
  cpuSeconds,
  createTrader,
  fmtInt,
  keepCpuProfiles,
  log,
  monotonicUs,
  percentile,
  positiveInteger,
  priceText,
  residentBytes,
  root,
  round,
  seededRandom,
  serverBundle,
  serverNodeArgs,
  startNode,
  stopProcess,
  stopProcessAndOutput,
} from './lib.ts';
import { stoppedCounts } from './http/group-commit.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    duration: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    threads: { type: 'string', default: '1' },
    connections: { type: 'string', default: '128' },
    rate: { type: 'string', default: '50000' },
    sync: { type: 'string', default: 'sync' },
    profile: { type: 'boolean', default: false },
    amm: { type: 'string', default: 'both' },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    resting: { type: 'string', default: '10000' },
  },
});

const durationS = positiveInteger('duration', values.duration);
const warmupS = positiveInteger('warmup', values.warmup);
/**
 * One wrk thread keeps wrk on one of the two cores. 128 connections: the closed loop reached the same
 * throughput with 128 and 512 (the server's main thread is the limit; more connections only add queueing)
 * and less with 32, and at 50 000 requests/s offered 128 leave room for a few milliseconds of stall.
 */
const wrkThreads = positiveInteger('threads', values.threads);
const wrkConnections = positiveInteger('connections', values.connections);
const pacedRate = positiveInteger('rate', values.rate);
const journalSync = values.sync;
if (journalSync !== 'sync' && journalSync !== 'none') throw new Error('--sync must be sync or none');
type AmmMode = 'on' | 'off';
if (values.amm !== 'both' && values.amm !== 'on' && values.amm !== 'off') throw new Error('--amm must be both, on or off');
/** The configurations measured, in this order: the server's default (AMM on) first. */
const ammModes: AmmMode[] = values.amm === 'both' ? ['on', 'off'] : [values.amm];
/**
 * Another commit to compare with in the same run (`--baseline`): its checkout, where scripts/build.mjs
 * has written the bundle (which finds fixtures and packages relative to itself, hence a whole checkout).
 * Its server runs with the AMM off, measured phase by phase after the others, so that the machine's noise
 * (it is shared and has two cores) falls on both builds alike.
 */
const baselineBundle = values.baseline === undefined ? null : resolve(values.baseline, serverBundle);
/**
 * Closed-loop rounds of this build against the baseline (`--rounds`, 1 = none beyond the usual runs). In a
 * pair of runs on this machine the second server has come out ahead of the first by up to 4 % with both
 * running the same build, so a change is judged by rounds that alternate which goes first.
 */
const abRoundCount = positiveInteger('rounds', values.rounds);
if (abRoundCount > 1 && (baselineBundle === null || !ammModes.includes('off'))) {
  throw new Error('--rounds compares the AMM-off server with the baseline: give --baseline, with --amm off or both');
}

/**
 * Resting orders seeded before the load (`--resting`, 10 000 by default, at most a million: eight users'
 * open orders, at most 200 000 each, spread over the keys); the load's mix holds the book near this size.
 */
const restingTarget = positiveInteger('resting', values.resting);
if (restingTarget < 2 || restingTarget > 1_000_000) throw new Error('--resting must be 2 to 1000000');
/** 32 ADMIN keys allow 19.2 M order requests a minute, far above any rate reached here. */
const usersCount = 8;
const keysPerUser = 4;
const symbol = 'eth';
/** The pair's grid as the bench assumes it; checked against GET /api/v1/exchange/pairs. */
const tickSize = '0.01';
const lotSize = '0.0001';
/**
 * Each side of the seeded book spans `depthTicks` ticks behind its edge, so it has at most that many
 * levels. Without venue levels to price against (AMM off) the edges are 2 999.99 and 3 000.01 (mid
 * 3 000.00), as before the AMM existed; with the AMM on they follow the hybrid book (seedPrices).
 */
const defaultMidTicks = 300_000;
const depthTicks = 500;
/**
 * Margin of the seed's edges from the hybrid book's other side, in basis points of the price (5 bps is
 * about 150 ticks at 3 000). AMM_FLOW=sim moves a pool by at most 4 bps per quote (its moveBpsMax) and
 * quotes every 500 ms; the two edge orders go out milliseconds after the book is read, so at most one
 * quote can come between, and once they rest the engine clips every later venue level that would cross
 * them, so the rest of the seed cannot cross either.
 */
const seedMarginBps = 5;
/** How long the AMM venues may take to quote after setup, and how often the bench looks. */
const ammWaitMs = 30_000;
const ammPollMs = 200;
/**
 * Passive orders placed this many ticks or more behind their side's edge may be named by a later cancel;
 * nearer ones are left to the IOCs. A passive order lands that far with probability
 * 1 - sqrt(300/499) = 0.22 (the script draws floor(499u²) ticks), so cancels settle near 11 % of the
 * requests and IOCs near 39 %, and the IOCs, which take the best price, never reach the far orders that
 * cancels name: no cancel races an IOC for the same order.
 */
const cancelBeyondTicks = 300;
/** Every order has the same quantity (100 lots), so one IOC takes exactly one resting order. */
const quantity = '0.0100';
const fundingUsdc = '10000000';
const fundingEth = '10000';
/** Seeding: orders per batch request (the route's maximum) and batch requests in flight. */
const seedBatchOrders = 10;
const seedConcurrency = 16;
/** `depth` of the book query; every level of a side fits. */
const bookDepthMax = 1000;
/** The load keeps the book within about a connection count of its seeded size; further off fails the bench. */
const bookDriftMax = 1000;
/** Failed requests (other than cancels that lost a race to an IOC) above this share fail the bench. */
const failureShareMax = 0.001;

function ms(us: number): string {
  return (us / 1000).toFixed(2);
}

// -------------------------------------------------------------------------------------------------
// Setup over HTTP

/** Registers the users, creates their keys at the ADMIN tier and funds them; returns the keys. */
async function createKeys(api: Api): Promise<string[]> {
  const keys: string[] = [];
  const funding = [
    { asset: 'USDC', amount: fundingUsdc },
    { asset: 'ETH', amount: fundingEth },
  ];
  for (let user = 1; user <= usersCount; user++) keys.push(...(await createTrader(api, `bench_${user}`, keysPerUser, funding)));
  return keys;
}

/** A price of the 0.01 grid ("3029.24") in ticks. */
function ticksOf(price: string): number {
  const [whole, fraction = ''] = price.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

interface HybridRow {
  price: string;
  source: string;
}

/** Both sides of the hybrid book (GET /api/v1/exchange/{symbol}/book/hybrid), best first. */
async function hybridBook(api: Api, depth: number): Promise<{ bids: HybridRow[]; asks: HybridRow[] }> {
  const book = await api.call('GET', `/api/v1/exchange/${symbol}/book/hybrid?depth=${depth}`, undefined, {}, [200]);
  return { bids: book['bids'] as HybridRow[], asks: book['asks'] as HybridRow[] };
}

/** The best venue (non-`clob`) price of each side of the hybrid book, in ticks; -1 for a side without one. */
async function venueTop(api: Api): Promise<{ bid: number; ask: number }> {
  const book = await hybridBook(api, bookDepthMax);
  const best = (rows: HybridRow[]): number => {
    const row = rows.find((candidate) => candidate.source !== 'clob');
    return row === undefined ? -1 : ticksOf(row.price);
  };
  return { bid: best(book.bids), ask: best(book.asks) };
}

/**
 * With the AMM on: waits until every ETH/USDC pool listed by GET /venues quotes and the hybrid book shows
 * venue levels on both sides (at most ammWaitMs). With it off: checks that no pool quotes. Returns the
 * pools quoting and listed.
 */
async function waitForVenues(api: Api, amm: AmmMode): Promise<{ quoting: number; listed: number }> {
  const deadline = performance.now() + ammWaitMs;
  for (;;) {
    const answer = await api.call('GET', `/api/v1/exchange/${symbol}/venues`, undefined, {}, [200]);
    const pools = (answer['venues'] as Array<{ venue: string; venue_id: number; quoting: boolean }>).filter((row) => row.venue_id !== 0);
    const quoting = pools.filter((pool) => pool.quoting).length;
    if (amm === 'off') {
      if (quoting > 0) throw new Error(`AMM_CHAINS is empty, yet ${quoting} ${symbol} pools quote`);
      return { quoting, listed: pools.length };
    }
    if (pools.length === 0) throw new Error(`GET /api/v1/exchange/${symbol}/venues lists no AMM pool: nothing to measure with the AMM on`);
    const top = await venueTop(api);
    if (quoting === pools.length && top.bid >= 0 && top.ask >= 0) return { quoting, listed: pools.length };
    if (performance.now() > deadline) {
      const silent = pools.filter((pool) => !pool.quoting).map((pool) => pool.venue);
      throw new Error(`the AMM venues did not all quote within ${ammWaitMs} ms (not quoting: ${silent.join(', ') || 'none'}; venue bid ${top.bid}, ask ${top.ask})`);
    }
    await sleep(ammPollMs);
  }
}

interface SeedPrices {
  /** The inner edge of each side of our book: buys rest at bidTopTicks - k, sells at askBottomTicks + k. */
  bidTopTicks: number;
  askBottomTicks: number;
  /** The hybrid book's best bid and ask when it was read (venue levels only: our book is still empty); -1: none. */
  hybridBidTicks: number;
  hybridAskTicks: number;
  venuesQuoting: number;
  venuesListed: number;
}

/**
 * The seed's edges from the hybrid book (GET /book/hybrid), read once the venues quote. Every buy must
 * stay below the best ask and every sell above the best bid, by seedMarginBps of the price. When the
 * venues' spread leaves room for that, the edges sit one tick either side of its mid (the tightest book:
 * our best bid is then above the venues' best bid and our best ask below their best ask, so an IOC takes
 * our order); when it does not (a narrow spread, or a crossed one: the pools of different chains move
 * independently), the edges are the margins themselves and our book's spread holds the venues' inside.
 * Without venue levels: mid 3 000.00.
 */
async function seedPrices(api: Api, amm: AmmMode): Promise<SeedPrices> {
  const venues = await waitForVenues(api, amm);
  const book = await hybridBook(api, 1);
  const bid = book.bids[0] === undefined ? -1 : ticksOf(book.bids[0].price);
  const ask = book.asks[0] === undefined ? -1 : ticksOf(book.asks[0].price);
  const margin = (ticks: number): number => Math.ceil((ticks * seedMarginBps) / 10_000);
  let mid = defaultMidTicks;
  if (bid >= 0 && ask >= 0) mid = Math.floor((bid + ask) / 2);
  else if (bid >= 0) mid = bid + margin(bid) + 1;
  else if (ask >= 0) mid = ask - margin(ask) - 1;
  let bidTopTicks = mid - 1;
  let askBottomTicks = mid + 1;
  if (ask >= 0) bidTopTicks = Math.min(bidTopTicks, ask - margin(ask));
  if (bid >= 0) askBottomTicks = Math.max(askBottomTicks, bid + margin(bid));
  if (bidTopTicks - depthTicks < 1) throw new Error(`the hybrid book's best ask ${ask} leaves no room for the seed's bids`);
  return { bidTopTicks, askBottomTicks, hybridBidTicks: bid, hybridAskTicks: ask, venuesQuoting: venues.quoting, venuesListed: venues.listed };
}

/**
 * Seeds `restingTarget` passive orders, drawn as the load script draws them, with batch placements, and
 * checks that every one rests. The first two, the edges of each side, go alone and first: once they rest
 * the engine clips every venue level that would cross them, so no later seed order can meet a venue.
 */
async function seedBook(api: Api, keys: readonly string[], prices: SeedPrices): Promise<void> {
  const next = seededRandom(20_251_122);
  const orders: unknown[] = [];
  for (let index = 0; index < restingTarget; index++) {
    const buy = index % 2 === 0;
    const u = next();
    const behind = index < 2 ? 0 : Math.floor((depthTicks - 1) * u * u);
    const ticks = buy ? prices.bidTopTicks - behind : prices.askBottomTicks + behind;
    orders.push({ side: buy ? 'buy' : 'sell', order_type: 'limit', quantity, price: priceText(ticks) });
  }
  const batches: Array<{ key: string; orders: unknown[] }> = [];
  const place = async (batch: { key: string; orders: unknown[] }): Promise<void> => {
    const answer = await api.call('POST', `/api/v1/exchange/${symbol}/orders/batch`, { orders: batch.orders }, { 'X-API-Key': batch.key }, [200, 201]);
    for (const result of answer['results'] as Array<Record<string, unknown>>) {
      if (result['status'] !== 'open') throw new Error(`a seed order did not rest: ${JSON.stringify(result)}`);
    }
  };
  await place({ key: keys[0]!, orders: orders.slice(0, 2) });
  for (let placed = 2; placed < restingTarget; placed += seedBatchOrders) {
    batches.push({ key: keys[(batches.length + 1) % keys.length]!, orders: orders.slice(placed, placed + seedBatchOrders) });
  }
  let cursor = 0;
  const worker = async (): Promise<void> => {
    while (cursor < batches.length) await place(batches[cursor++]!);
  };
  await Promise.all(Array.from({ length: seedConcurrency }, worker));
}

interface BookCount {
  orders: number;
  levels: number;
  bestBid: string;
  bestAsk: string;
  /** The best venue levels the hybrid book shows (ticks; -1: none). */
  venueBid: number;
  venueAsk: number;
}

/**
 * Resting orders of the live book, summed over its levels (every level fits in one answer), and the best
 * venue levels of the hybrid book.
 */
async function bookCount(api: Api, key: string): Promise<BookCount> {
  const book = await api.call('GET', `/api/v1/exchange/${symbol}/book?depth=${bookDepthMax}`, undefined, { 'X-API-Key': key }, [200]);
  const bids = book['bids'] as Array<{ price: string; orders: number }>;
  const asks = book['asks'] as Array<{ price: string; orders: number }>;
  if (bids.length >= bookDepthMax || asks.length >= bookDepthMax) throw new Error('the book has more levels than one query shows');
  const sum = (levels: Array<{ orders: number }>): number => levels.reduce((total, level) => total + level.orders, 0);
  const venues = await venueTop(api);
  return {
    orders: sum(bids) + sum(asks),
    levels: bids.length + asks.length,
    bestBid: bids[0]?.price ?? '-',
    bestAsk: asks[0]?.price ?? '-',
    venueBid: venues.bid,
    venueAsk: venues.ask,
  };
}

// -------------------------------------------------------------------------------------------------
// wrk

interface WrkResult {
  /** The BENCH_HTTP line of the script's done(): counters and wrk's latency percentiles (µs). */
  figures: Record<string, number>;
  /** Status and body of the first failed answer ('' if none failed). */
  firstFailure: string;
  seconds: number;
  /** CPU used during the run, in cores (1 = one core busy the whole time). */
  serverMainCores: number;
  serverCores: number;
  wrkCores: number;
  /** Commands the server made durable during the run, and the journal batches they took (GET /admin/v1/stats). */
  durableCommands: number;
  durableBatches: number;
  /** AMM quotes the server journaled during the run, and fills of our orders against venues it sent to the AMM workers. */
  ammQuotes: number;
  ammFills: number;
  /**
   * From the server's /metrics over the run: the journal's batch writes with their sync (seconds summed,
   * count), and the order routes' answers from arrival to the answer written (seconds summed, count).
   * Beside wrk's latency they say where a request's time went: the disk, the server's thread, or the
   * client and the network between them.
   */
  journalWriteS: number;
  journalWrites: number;
  serverAckS: number;
  serverAcks: number;
  /**
   * Closed loop only: round trips (µs, sorted) of the read probe's GET of open orders during the run: what
   * a market maker polling its orders gets while the server is saturated. Since `01a2c1c` the server
   * answers it from memory, current with every durable batch; before, it waited until the read models'
   * SQLite writer held every command durable at its arrival (and made the writer commit at once).
   */
  readsUs: number[];
  /** The server's resident memory when the run ended, and the most it had held since it started (bytes). */
  serverResidentBytes: number;
  serverPeakResidentBytes: number;
}

interface CpuSample {
  cpu: number;
  at: number;
}

/**
 * Runs wrk to completion and samples CPU meanwhile: the server's main thread and whole process over the
 * run, and wrk itself every 250 ms while it runs (its last moments before exit are not seen).
 */
async function runWrk(script: string, url: string, seconds: number, serverPid: number, scriptArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<WrkResult> {
  const args = ['-t', String(wrkThreads), '-c', String(wrkConnections), '-d', `${seconds}s`, '--timeout', '10s', '--latency', '-s', script, url];
  if (scriptArgs.length > 0) args.push('--', ...scriptArgs);
  const serverMainBefore = cpuSeconds(serverPid, serverPid);
  const serverBefore = cpuSeconds(serverPid);
  const started = performance.now();
  const wrk = spawn('wrk', args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  wrk.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  wrk.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const samples: CpuSample[] = [];
  const sampler = setInterval(() => {
    const cpu = cpuSeconds(wrk.pid!);
    if (!Number.isNaN(cpu)) samples.push({ cpu, at: performance.now() });
  }, 250);
  const code = await new Promise<number | null>((done) => wrk.once('exit', (exitCode) => done(exitCode)));
  clearInterval(sampler);
  const wall = (performance.now() - started) / 1000;
  const serverMainCores = (cpuSeconds(serverPid, serverPid) - serverMainBefore) / wall;
  const serverCores = (cpuSeconds(serverPid) - serverBefore) / wall;
  const memory = residentBytes(serverPid);
  const first = samples[0];
  const last = samples[samples.length - 1];
  const wrkCores = first !== undefined && last !== undefined && last.at > first.at ? (last.cpu - first.cpu) / ((last.at - first.at) / 1000) : Number.NaN;
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${stdout}\n${stderr}`);
  const outputLines = stdout.split('\n');
  const line = outputLines.find((text) => text.startsWith('BENCH_HTTP '));
  if (line === undefined) throw new Error(`wrk printed no BENCH_HTTP line:\n${stdout}\n${stderr}`);
  const figures = JSON.parse(line.slice('BENCH_HTTP '.length)) as Record<string, number>;
  const failure = outputLines.find((text) => text.startsWith('BENCH_HTTP_FAILURE '));
  return {
    figures,
    firstFailure: failure === undefined ? '' : failure.slice('BENCH_HTTP_FAILURE '.length, 400),
    seconds: figures['durationUs']! / 1e6,
    serverMainCores,
    serverCores,
    wrkCores,
    durableCommands: 0,
    durableBatches: 0,
    ammQuotes: 0,
    ammFills: 0,
    journalWriteS: 0,
    journalWrites: 0,
    serverAckS: 0,
    serverAcks: 0,
    readsUs: [],
    serverResidentBytes: memory.nowBytes,
    serverPeakResidentBytes: memory.peakBytes,
  };
}

/** Sums of the /metrics samples the bench reads (every label set of a name added together). */
interface MetricSums {
  journalWriteS: number;
  journalWrites: number;
  serverAckS: number;
  serverAcks: number;
}

/** Reads the journal-write and order-ack histograms' sums and counts from the server's /metrics text. */
async function metricSums(url: string): Promise<MetricSums> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const sums = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^(tp_journal_fsync_seconds|tp_order_ack_seconds)_(sum|count)(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (match === null) continue;
    const key = `${match[1]}_${match[2]}`;
    sums.set(key, (sums.get(key) ?? 0) + Number(match[3]));
  }
  return {
    journalWriteS: sums.get('tp_journal_fsync_seconds_sum') ?? 0,
    journalWrites: sums.get('tp_journal_fsync_seconds_count') ?? 0,
    serverAckS: sums.get('tp_order_ack_seconds_sum') ?? 0,
    serverAcks: sums.get('tp_order_ack_seconds_count') ?? 0,
  };
}

function socketErrors(figures: Record<string, number>): number {
  return figures['connectErrors']! + figures['readErrors']! + figures['writeErrors']! + figures['timeouts']!;
}

// -------------------------------------------------------------------------------------------------
// The runs

interface HelloRun {
  perS: number;
  run: WrkResult;
}

/** The durable hello-world's run, and how many requests each of its writes carried (its group commit). */
interface DurableHelloRun extends HelloRun {
  requestsPerWrite: number;
}

/**
 * A baseline server (bench/http/hello.ts, or bench/http/durable-hello.ts when `durableFile` is given) under
 * wrk with hello.lua: a warm-up, then the timed run.
 */
async function measureBaseline(label: string, entry: string, durableFile: string | null): Promise<{ run: WrkResult; perS: number; output: string[] }> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0' };
  if (durableFile !== null) {
    env['DURABLE_FILE'] = durableFile;
    env['DURABLE_SYNC'] = journalSync;
  }
  const server = await startNode(label, ['--import', 'tsx', entry], env);
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const script = join(root, 'bench/http/hello.lua');
    const pid = server.process.pid!;
    await runWrk(script, url, Math.min(warmupS, 2), pid, []);
    const run = await runWrk(script, url, durationS, pid, []);
    return { run, perS: run.figures['requests']! / run.seconds, output: server.output };
  } finally {
    // What it printed on its way out (the durable one's counts) is read once its stdout has closed.
    await stopProcessAndOutput(server.process);
  }
}

function logBaseline(title: string, { run, perS }: HelloRun): void {
  const f = run.figures;
  log(
    `${title}: ${fmtInt(perS)} requests/s over ${run.seconds.toFixed(1)} s, latency p50 ${ms(f['latencyP50Us']!)} ms, ` +
      `p99 ${ms(f['latencyP99Us']!)} ms, max ${ms(f['latencyMaxUs']!)} ms; non-2xx ${f['non2xx']}, socket errors ${socketErrors(f)}`,
  );
  log(`  cpu: server ${cores(run.serverCores)} of a core, wrk ${cores(run.wrkCores)}; per request: server ${usPer(run.serverCores, perS)} µs, wrk ${usPer(run.wrkCores, perS)} µs`);
}

async function measureHello(): Promise<HelloRun> {
  const hello = await measureBaseline('the hello-world server', 'bench/http/hello.ts', null);
  logBaseline('hello-world (bare uWebSockets.js)', hello);
  return hello;
}

/**
 * The durable hello-world (bench/http/durable-hello.ts): the same wrk load, each request answered when a
 * write with the journal's sync mode has put its body on disk. Its rate is what acknowledging only durable
 * requests leaves of hello-world's before any work is done: the ceiling the order server's ratio sits under.
 */
async function measureDurableHello(dir: string, hello: HelloRun): Promise<DurableHelloRun> {
  const measured = await measureBaseline('the durable hello-world server', 'bench/http/durable-hello.ts', join(dir, 'durable-hello.bin'));
  const stopped = stoppedCounts(measured.output).at(-1) ?? { writes: 0, requests: 0 };
  const durable = { ...measured, requestsPerWrite: stopped.requests / Math.max(1, stopped.writes) };
  logBaseline(`durable hello-world (the same, each request answered once its body is written; sync ${journalSync})`, durable);
  log(`  ${(durable.perS / hello.perS).toFixed(2)} of hello-world; ${durable.requestsPerWrite.toFixed(1)} requests per write (group commit)`);
  return durable;
}

interface OrderRun {
  placementsPerS: number;
  cancelsPerS: number;
  requestsPerS: number;
  /**
   * Answers that were neither a placement (201), a cancel (200), a cancel's 404 nor a post-only refusal
   * (409), plus socket errors.
   */
  failures: number;
  run: WrkResult;
  book: BookCount;
}

/** CPU microseconds per request from cores busy over a run and its request rate. */
function cpuUs(cores: number, perS: number): number {
  return (1e6 * cores) / Math.max(1, perS);
}

function usPer(cores: number, perS: number): string {
  return cpuUs(cores, perS).toFixed(1);
}

function mib(bytes: number): string {
  return Number.isNaN(bytes) ? '?' : fmtInt(bytes / 2 ** 20);
}

/** CPU time one request of a closed-loop run costs the server (all its threads) and wrk together, in µs. */
function requestCpuUs(closed: OrderRun): number {
  return cpuUs(closed.run.serverCores + closed.run.wrkCores, closed.requestsPerS);
}

/**
 * The ratio to hello-world if both runs were limited by CPU alone: wrk and the server share the machine's
 * two cores, so with both busy the request rate is 2 cores ÷ the CPU time one request costs the two of
 * them, and the ratio (hello-world's CPU per request ÷ an order request's) × the share of placements among
 * the requests. A measured ratio near it says the order path is as far behind as its CPU cost puts it;
 * one above it, that the hello-world run did not have the cores either (other work on the machine).
 */
function cpuRatio(closed: OrderRun, hello: HelloRun): number {
  const helloUs = cpuUs(hello.run.serverCores + hello.run.wrkCores, hello.perS);
  return (helloUs / requestCpuUs(closed)) * (closed.placementsPerS / Math.max(1, closed.requestsPerS));
}

/** Placements/s the two cores would carry if the server and wrk had them to themselves, at the run's CPU per request and mix. */
function twoCorePlacementsPerS(closed: OrderRun): number {
  return (2e6 / requestCpuUs(closed)) * (closed.placementsPerS / Math.max(1, closed.requestsPerS));
}

function pct(count: number, total: number): string {
  return `${((100 * count) / Math.max(1, total)).toFixed(1)}%`;
}

/** Prints one wrk run of the order script. */
function reportOrders(label: string, amm: AmmMode, run: WrkResult, book: BookCount): OrderRun {
  const f = run.figures;
  const placements = f['placedPassive']! + f['placedIoc']!;
  const failures = f['status4xx']! + f['status5xx']! + f['status2xxOther']! + socketErrors(f);
  const result: OrderRun = {
    placementsPerS: placements / run.seconds,
    cancelsPerS: f['cancelled']! / run.seconds,
    requestsPerS: f['requests']! / run.seconds,
    failures,
    run,
    book,
  };
  const answered = placements + f['postOnlyRefused']! + f['cancelled']! + f['cancelMisses']!;
  const share = (count: number): string => pct(count, answered);
  log(
    `${label}: ${fmtInt(result.placementsPerS)} placements/s (201) + ${fmtInt(result.cancelsPerS)} cancels/s (200) ` +
      `over ${run.seconds.toFixed(1)} s; ${fmtInt(result.requestsPerS)} requests/s in all`,
  );
  log(
    `  latency (every request): p50 ${ms(f['latencyP50Us']!)} ms, p90 ${ms(f['latencyP90Us']!)} ms, p99 ${ms(f['latencyP99Us']!)} ms, ` +
      `p99.9 ${ms(f['latencyP999Us']!)} ms, max ${ms(f['latencyMaxUs']!)} ms`,
  );
  log(
    `  mix: passive limits ${share(f['placedPassive']!)}, ioc limits ${share(f['placedIoc']!)}, cancels ${share(f['cancelled']!)}, ` +
      `cancels too late (404, the order was already taken) ${share(f['cancelMisses']!)}, post-only passives refused (409) ${share(f['postOnlyRefused']!)}`,
  );
  log(
    `  ioc fills: ${fmtInt(f['iocFills']!)} of our resting orders, ${fmtInt(f['iocVenueFills']!)} against AMM venues ` +
      `(${pct(f['iocVenueFills']!, f['iocFills']! + f['iocVenueFills']!)}); post-only passives refused: ${fmtInt(f['postOnlyRefused']!)} ` +
      `(${pct(f['postOnlyRefused']!, f['placedPassive']! + f['postOnlyRefused']!)} of the passives)`,
  );
  log(
    `  failures: ${failures} (4xx ${f['status4xx']}, of which 429 ${f['status429']} and 422 ${f['status422']}; ` +
      `5xx ${f['status5xx']}, of which 503 ${f['status503']}; other 2xx ${f['status2xxOther']}; socket errors ${socketErrors(f)})`,
  );
  if (run.firstFailure !== '') log(`  first failure: ${run.firstFailure}`);
  const venues = amm === 'on' ? `; best venue levels in the hybrid book: bid ${venuePrice(book.venueBid)}, ask ${venuePrice(book.venueAsk)}` : '';
  log(`  book after: ${fmtInt(book.orders)} resting orders on ${book.levels} levels, best bid ${book.bestBid}, best ask ${book.bestAsk}${venues}`);
  log(
    `  cpu: server main thread ${cores(run.serverMainCores)} of a core, server process ${cores(run.serverCores)}, wrk ${cores(run.wrkCores)}; ` +
      `per request: main thread ${usPer(run.serverMainCores, result.requestsPerS)} µs, the server's other threads ` +
      `${usPer(run.serverCores - run.serverMainCores, result.requestsPerS)} µs, wrk ${usPer(run.wrkCores, result.requestsPerS)} µs`,
  );
  log(`  memory: server resident ${mib(run.serverResidentBytes)} MiB at the end of the run, at most ${mib(run.serverPeakResidentBytes)} MiB since it started`);
  log(
    `  group commit: ${fmtInt(run.durableCommands)} commands in ${fmtInt(run.durableBatches)} journal batches ` +
      `(${(run.durableCommands / Math.max(1, run.durableBatches)).toFixed(1)} per batch, ${fmtInt(run.durableBatches / run.seconds)} fsyncs/s)` +
      (amm === 'on' ? `; AMM: ${fmtInt(run.ammQuotes / run.seconds)} quotes journaled/s, ${fmtInt(run.ammFills)} fills sent to the AMM workers` : ''),
  );
  log(
    `  where the time went (means): a batch every ${ms((1e6 * run.seconds) / Math.max(1, run.durableBatches))} ms, its write and sync ` +
      `${ms((1e6 * run.journalWriteS) / Math.max(1, run.journalWrites))} ms; order answers ${ms((1e6 * run.serverAckS) / Math.max(1, run.serverAcks))} ms ` +
      `from arrival at the server (wrk's mean from writing the request: ${ms(f['latencyMeanUs']!)} ms)`,
  );
  if (run.readsUs.length > 0) {
    const reads = run.readsUs;
    log(
      `  reads meanwhile (GET open orders, ${readProbePerS}/s, each holding every order durable at its arrival): ` +
        `p50 ${ms(percentile(reads, 0.5))} ms, p99 ${ms(percentile(reads, 0.99))} ms, max ${ms(reads[reads.length - 1]!)} ms over ${fmtInt(reads.length)} reads`,
    );
  }
  return result;
}

function venuePrice(ticks: number): string {
  return ticks < 0 ? '-' : priceText(ticks);
}

function reportPacing(run: OrderRun, offered: number): void {
  const f = run.run.figures;
  log(
    `  pacing: ${fmtInt(run.requestsPerS)} of ${fmtInt(offered)} requests/s sent; ${fmtInt(f['lateSends']!)} sends more than 1 ms ` +
      `behind their slot (every connection was waiting for an answer), the worst ${ms(f['lateMaxUs']!)} ms late`,
  );
}

function failureProblem(run: OrderRun, label: string): string | null {
  const requests = run.run.figures['requests']!;
  return run.failures > Math.max(10, failureShareMax * requests) ? `${label}: ${run.failures} of ${requests} requests failed` : null;
}

/**
 * The script's accounting is off: the book left its seeded size, a fill named a venue with the AMM off, or
 * no cancel was sent (the order record's fields no longer read as the script expects, see bench/http/orders.lua).
 */
function bookProblem(orders: OrderRuns): string | null {
  const label = orders.label;
  const runs = [orders.closed, orders.paced, orders.half];
  const drift = Math.max(...runs.map((run) => Math.abs(run.book.orders - orders.seeded.orders)));
  if (drift > bookDriftMax) return `${label}: the book moved ${drift} orders from its seeded ${orders.seeded.orders}`;
  const venueFills = runs.reduce((total, run) => total + run.run.figures['iocVenueFills']!, 0);
  if (orders.amm === 'off' && venueFills > 0) return `${label}: ${venueFills} IOC fills did not name the clob as their venue`;
  // Far orders are kept from their answers' ids; none kept means none of those answers read as expected.
  const cancels = orders.closed.run.figures['cancelled']! + orders.closed.run.figures['cancelMisses']!;
  if (orders.closed.run.figures['requests']! > 10_000 && cancels === 0) return `${label}: no cancels sent (no order id read from the answers)`;
  return null;
}

interface OrderRuns {
  amm: AmmMode;
  label: string;
  baseline: boolean;
  prices: SeedPrices;
  seeded: BookCount;
  closed: OrderRun;
  paced: OrderRun;
  halfRate: number;
  half: OrderRun;
}

/** AMM_* variables: unset for AMM on (the server's embedded defaults), AMM_CHAINS empty for AMM off. */
const ammVariables = ['AMM_CHAINS', 'AMM_FLOW', 'AMM_QUOTE_INTERVAL_MS', 'AMM_SEED'];

function ammLabel(amm: AmmMode): string {
  return amm === 'on' ? 'AMM on' : 'AMM off';
}

/** One side of an A/B round: its closed loop's placements/s, the main thread's CPU per request, failures. */
interface AbSide {
  placementsPerS: number;
  mainUs: number;
  failures: number;
  requests: number;
}

/** One A/B round (`--rounds`): this build's side and the baseline's, and which ran first. */
interface AbRound {
  thisFirst: boolean;
  current: AbSide;
  baseline: AbSide;
}

/** One configuration's order server, set up and seeded, ready for wrk runs. */
interface OrderServer {
  amm: AmmMode;
  baseline: boolean;
  /** The bundle it runs (absolute). */
  bundle: string;
  label: string;
  server: Child;
  api: Api;
  keys: string[];
  prices: SeedPrices;
  seeded: BookCount;
  profileDir: string;
  /** Runs wrk once against this server (0 = closed loop) and adds the server's counters over the run. */
  run(seconds: number, rate: number): Promise<WrkResult>;
}

/** Reads of the probe per second: few enough that their CPU does not show beside wrk's requests. */
const readProbePerS = 50;

/**
 * The read probe: while wrk runs, one GET of the caller's open orders (`limit=1`) every 1/readProbePerS s,
 * one at a time, each timed from send to the whole answer. `stop` ends it and returns the round trips
 * (µs, sorted); a read that fails or takes over 30 s stops the bench when the probe is stopped.
 */
function readProbe(url: string, key: string): { stop(): Promise<number[]> } {
  const timesUs: number[] = [];
  let running = true;
  const intervalMs = 1000 / readProbePerS;
  // A failure is kept and thrown by `stop`, so that it ends the bench through its cleanup (the servers
  // stopped), not as an unhandled rejection while wrk runs.
  let failure: unknown = null;
  const loop = (async () => {
    while (running) {
      const startedMs = performance.now();
      const response = await fetch(`${url}/api/v1/exchange/${symbol}/orders/open?limit=1`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`read probe: GET open orders answered ${response.status}: ${text}`);
      const tookMs = performance.now() - startedMs;
      timesUs.push(tookMs * 1000);
      if (tookMs < intervalMs) await new Promise((resolve) => setTimeout(resolve, intervalMs - tookMs));
    }
  })().catch((error: unknown) => {
    failure = error;
  });
  return {
    async stop() {
      running = false;
      await loop;
      if (failure !== null) throw failure;
      return timesUs.sort((a, b) => a - b);
    },
  };
}

/** Starts the order server of one configuration, sets it up over HTTP and seeds its book. */
async function startOrderServer(dir: string, amm: AmmMode, bundle: string | null = null): Promise<OrderServer> {
  const adminKey = randomBytes(24).toString('base64url');
  const profileDir = join(dir, 'profile');
  const nodeArgs = serverNodeArgs(values.profile ? profileDir : null, bundle ?? undefined);
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: join(dir, 'data'), ADMIN_API_KEY: adminKey, JOURNAL_SYNC: journalSync };
  for (const name of ammVariables) delete env[name];
  if (amm === 'off') env['AMM_CHAINS'] = '';
  const label = bundle === null ? ammLabel(amm) : `${ammLabel(amm)}, baseline`;
  log();
  if (bundle !== null) log(`${label}: the build in ${bundle}`);
  log(
    amm === 'on'
      ? `${label}: the server's default AMM settings (no AMM_* variable: AMM_CHAINS=ethereum,base,arbitrum,solana, AMM_FLOW=sim)`
      : `${label}: AMM_CHAINS empty (no AMM worker, no venue levels)`,
  );
  const server = await startNode(`the order server (${label})`, nodeArgs, env);
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const api = new Api(url, adminKey);
    const setupStarted = performance.now();
    await checkPair(api, symbol, tickSize, lotSize, 'bench/http.ts');
    const keys = await createKeys(api);
    const prices = await seedPrices(api, amm);
    await seedBook(api, keys, prices);
    const seeded = await bookCount(api, keys[0]!);
    const hybrid =
      amm === 'on'
        ? `${prices.venuesQuoting} of ${prices.venuesListed} ${symbol} pools quoting, hybrid book before seeding: best bid ${venuePrice(prices.hybridBidTicks)}, ` +
          `best ask ${venuePrice(prices.hybridAskTicks)}; `
        : '';
    log(`  ${hybrid}seed edges: bids from ${priceText(prices.bidTopTicks)} down, asks from ${priceText(prices.askBottomTicks)} up (${depthTicks} ticks a side)`);
    log(
      `order server (${label}): journal ${journalSync}, ${usersCount} users x ${keysPerUser} ADMIN keys, seeded ${fmtInt(seeded.orders)} resting orders ` +
        `on ${seeded.levels} levels in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s (best bid ${seeded.bestBid}, best ask ${seeded.bestAsk})`,
    );
    const config = join(dir, 'orders-config.lua');
    const script = join(root, 'bench/http/orders.lua');
    const pid = server.process.pid!;
    // Each wrk run tags its client order ids with its number, so that none repeats the id of an order an
    // earlier run left resting (the engine refuses a client order id in use).
    let runNumber = 0;
    const run = async (seconds: number, rate: number): Promise<WrkResult> => {
      runNumber++;
      const keyList = keys.map((key) => `"${key}"`).join(', ');
      writeFileSync(
        config,
        `return { keys = { ${keyList} }, symbol = "${symbol}", bidTopTicks = ${prices.bidTopTicks}, askBottomTicks = ${prices.askBottomTicks}, ` +
          `depthTicks = ${depthTicks}, cancelBeyondTicks = ${cancelBeyondTicks}, quantity = "${quantity}", rate = ${rate}, threads = ${wrkThreads}, ` +
          `run = ${runNumber} }\n`,
      );
      const before = await api.admin('GET', '/admin/v1/stats', undefined);
      const metricsBefore = await metricSums(url);
      const probe = rate === 0 ? readProbe(url, keys[0]!) : null;
      const result = await runWrk(script, url, seconds, pid, [config], rate > 0 ? { BENCH_HTTP_PACED: '1' } : {});
      result.readsUs = probe === null ? [] : await probe.stop();
      const metricsAfter = await metricSums(url);
      const after = await api.admin('GET', '/admin/v1/stats', undefined);
      result.journalWriteS = metricsAfter.journalWriteS - metricsBefore.journalWriteS;
      result.journalWrites = metricsAfter.journalWrites - metricsBefore.journalWrites;
      result.serverAckS = metricsAfter.serverAckS - metricsBefore.serverAckS;
      result.serverAcks = metricsAfter.serverAcks - metricsBefore.serverAcks;
      const delta = (name: string): number => (after[name] as number) - (before[name] as number);
      result.durableCommands = delta('durable_commands');
      result.durableBatches = delta('durable_batches');
      result.ammQuotes = delta('amm_quotes_journaled');
      result.ammFills = delta('amm_fills_sent');
      return result;
    };
    return { amm, baseline: bundle !== null, bundle: bundle ?? join(root, serverBundle), label, server, api, keys, prices, seeded, profileDir, run };
  } catch (error) {
    await stopProcess(server.process);
    throw error;
  }
}

/**
 * Measures every configuration, interleaved: both servers are set up and seeded first, then each phase
 * (warm-up, closed loop, paced at --rate, paced at half the closed loop) runs against one server after
 * the other, so that a change in what else the machine runs meanwhile (it has two cores) falls on both
 * configurations alike rather than on one of them. The server not being measured sits idle meanwhile
 * (with the AMM on, its workers still quote, a few quotes a second).
 */
async function measureOrders(dir: string, abRounds: AbRound[]): Promise<OrderRuns[]> {
  const servers: OrderServer[] = [];
  try {
    for (const amm of ammModes) servers.push(await startOrderServer(join(dir, `amm-${amm}`), amm));
    if (baselineBundle !== null) servers.push(await startOrderServer(join(dir, 'baseline'), 'off', baselineBundle));
    log();
    // Untimed: V8 optimises the request path, and the book settles into the mix's shape.
    for (const server of servers) await server.run(warmupS, 0);
    if (abRoundCount > 1) await runAbRounds(servers, abRounds);
    const closed: OrderRun[] = [];
    const closedSpans: Array<[number, number]> = [];
    for (const server of servers) {
      const fromUs = monotonicUs();
      const result = await server.run(durationS, 0);
      closedSpans.push([fromUs, monotonicUs()]);
      closed.push(reportOrders(`orders (${server.label}), closed loop (each connection sends when answered)`, server.amm, result, await bookCount(server.api, server.keys[0]!)));
    }
    const paced: OrderRun[] = [];
    for (const server of servers) {
      const result = await server.run(durationS, pacedRate);
      const run = reportOrders(`orders (${server.label}), paced at ${fmtInt(pacedRate)} requests/s offered`, server.amm, result, await bookCount(server.api, server.keys[0]!));
      reportPacing(run, pacedRate);
      paced.push(run);
    }
    // Latency below saturation: half of what each closed loop managed, in thousands.
    const halfRates = closed.map((run) => Math.max(1000, Math.round(run.requestsPerS / 2000) * 1000));
    const half: OrderRun[] = [];
    const halfSpans: Array<[number, number]> = [];
    for (const [index, server] of servers.entries()) {
      const halfRate = halfRates[index]!;
      const fromUs = monotonicUs();
      const result = await server.run(durationS, halfRate);
      halfSpans.push([fromUs, monotonicUs()]);
      const run = reportOrders(`orders (${server.label}), paced at ${fmtInt(halfRate)} requests/s offered (half its closed loop)`, server.amm, result, await bookCount(server.api, server.keys[0]!));
      reportPacing(run, halfRate);
      half.push(run);
    }
    const measured: OrderRuns[] = [];
    for (const [index, server] of servers.entries()) {
      await stopProcess(server.server.process);
      if (server.server.process.exitCode !== 0) {
        throw new Error(`the order server (${server.label}) exited with ${server.server.process.exitCode}:\n${server.server.output.join('')}`);
      }
      if (values.profile) {
        const kept = keepCpuProfiles(server.profileDir, `bench-http-server-amm-${server.amm}${server.baseline ? '-baseline' : ''}`);
        log(`  ${server.label}:`);
        const bundle = server.bundle;
        for (const line of cpuProfileSummary(kept.main, 'closed loop', ...closedSpans[index]!, bundle)) log(`  ${line}`);
        for (const line of cpuProfileSummary(kept.main, `paced at ${fmtInt(halfRates[index]!)}/s`, ...halfSpans[index]!, bundle)) log(`  ${line}`);
        // The worker threads (the read models' writer; with the AMM on, the AMM workers): their share of the cores.
        for (const worker of kept.workers) for (const line of cpuProfileSummary(worker, `${basename(worker)}, closed loop`, ...closedSpans[index]!, bundle)) log(`  ${line}`);
      }
      measured.push({ amm: server.amm, label: server.label, baseline: server.baseline, prices: server.prices, seeded: server.seeded, closed: closed[index]!, paced: paced[index]!, halfRate: halfRates[index]!, half: half[index]! });
    }
    return measured;
  } finally {
    for (const server of servers) await stopProcess(server.server.process);
  }
}

/** Closed loops of this build's AMM-off server and the baseline's, in turns, the first alternating. */
async function runAbRounds(servers: OrderServer[], rounds: AbRound[]): Promise<void> {
  const current = servers.find((server) => server.amm === 'off' && !server.baseline)!;
  const baseline = servers.find((server) => server.baseline)!;
  const closedLoop = async (server: OrderServer): Promise<AbSide> => {
    const result = await server.run(durationS, 0);
    const f = result.figures;
    return {
      placementsPerS: (f['placedPassive']! + f['placedIoc']!) / result.seconds,
      mainUs: cpuUs(result.serverMainCores, f['requests']! / result.seconds),
      // As reportOrders counts them: the expected 404 and 409 answers are not failures.
      failures: f['status4xx']! + f['status5xx']! + f['status2xxOther']! + socketErrors(f),
      requests: f['requests']!,
    };
  };
  log(`A/B rounds: closed loops of ${durationS} s, this build (AMM off) against the baseline, the first of each round alternating`);
  for (let round = 0; round < abRoundCount; round++) {
    const thisFirst = round % 2 === 0;
    const first = await closedLoop(thisFirst ? current : baseline);
    const second = await closedLoop(thisFirst ? baseline : current);
    const entry: AbRound = { thisFirst, current: thisFirst ? first : second, baseline: thisFirst ? second : first };
    rounds.push(entry);
    log(
      `  round ${round + 1} (${thisFirst ? 'this build first' : 'baseline first'}): this build ${fmtInt(entry.current.placementsPerS)} placements/s ` +
        `(main thread ${entry.current.mainUs.toFixed(1)} µs per request), baseline ${fmtInt(entry.baseline.placementsPerS)} ` +
        `(${entry.baseline.mainUs.toFixed(1)} µs): ${(entry.current.placementsPerS / entry.baseline.placementsPerS).toFixed(3)}`,
    );
  }
}

/** The median of the rounds' ratios (this build ÷ baseline), and how often this build and the first server were ahead. */
function abSummary(rounds: readonly AbRound[]): { median: number; thisAhead: number; firstAhead: number; mainUsMedian: number } {
  const ratios = rounds.map((round) => round.current.placementsPerS / round.baseline.placementsPerS).sort((a, b) => a - b);
  const mainRatios = rounds.map((round) => round.current.mainUs / round.baseline.mainUs).sort((a, b) => a - b);
  const middle = (sorted: number[]): number => {
    const half = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
  };
  return {
    median: middle(ratios),
    thisAhead: rounds.filter((round) => round.current.placementsPerS > round.baseline.placementsPerS).length,
    firstAhead: rounds.filter((round) => (round.thisFirst ? round.current : round.baseline).placementsPerS > (round.thisFirst ? round.baseline : round.current).placementsPerS).length,
    mainUsMedian: middle(mainRatios),
  };
}

/** The figures of one configuration for the JSON line. */
function configJson(orders: OrderRuns, hello: HelloRun, durableHello: HelloRun): Record<string, unknown> {
  const { closed, paced, half } = orders;
  const c = closed.run.figures;
  const p = paced.run.figures;
  const h = half.run.figures;
  const sum = (name: string): number => c[name]! + p[name]! + h[name]!;
  return {
    orders_per_s: Math.round(closed.placementsPerS),
    ack_p50_ms: round(c['latencyP50Us']! / 1000, 3),
    ack_p99_ms: round(c['latencyP99Us']! / 1000, 3),
    ratio_vs_hello: round(closed.placementsPerS / hello.perS, 3),
    ratio_vs_durable_hello: round(closed.placementsPerS / durableHello.perS, 3),
    ack_p99_ms_at_50k: round(p['latencyP99Us']! / 1000, 3),
    ack_p50_ms_at_50k: round(p['latencyP50Us']! / 1000, 3),
    sent_per_s_at_50k: Math.round(paced.requestsPerS),
    late_sends_at_50k: p['lateSends']!,
    half_rate_per_s: orders.halfRate,
    ack_p50_ms_at_half: round(h['latencyP50Us']! / 1000, 3),
    ack_p99_ms_at_half: round(h['latencyP99Us']! / 1000, 3),
    late_sends_at_half: h['lateSends']!,
    cancels_per_s: Math.round(closed.cancelsPerS),
    requests_per_s: Math.round(closed.requestsPerS),
    ack_p999_ms: round(c['latencyP999Us']! / 1000, 3),
    ack_max_ms: round(c['latencyMaxUs']! / 1000, 3),
    book_orders_start: orders.seeded.orders,
    book_orders_after_closed_loop: closed.book.orders,
    book_orders_end: half.book.orders,
    failed_requests: closed.failures + paced.failures + half.failures,
    cancel_misses: sum('cancelMisses'),
    server_main_thread_cores: round(closed.run.serverMainCores, 2),
    cpu_us_per_request_main: round(cpuUs(closed.run.serverMainCores, closed.requestsPerS), 1),
    cpu_us_per_request_other_threads: round(cpuUs(closed.run.serverCores - closed.run.serverMainCores, closed.requestsPerS), 1),
    cpu_us_per_request_wrk: round(cpuUs(closed.run.wrkCores, closed.requestsPerS), 1),
    cpu_ratio: round(cpuRatio(closed, hello), 3),
    two_core_placements_per_s: Math.round(twoCorePlacementsPerS(closed)),
    journal_write_ms: round((1000 * closed.run.journalWriteS) / Math.max(1, closed.run.journalWrites), 3),
    server_ack_mean_ms: round((1000 * closed.run.serverAckS) / Math.max(1, closed.run.serverAcks), 3),
    read_p50_ms_closed_loop: round(percentile(closed.run.readsUs, 0.5) / 1000, 3),
    read_p99_ms_closed_loop: round(percentile(closed.run.readsUs, 0.99) / 1000, 3),
    server_process_cores: round(closed.run.serverCores, 2),
    server_resident_mib_after_closed_loop: Math.round(closed.run.serverResidentBytes / 2 ** 20),
    server_peak_resident_mib: Math.round(half.run.serverPeakResidentBytes / 2 ** 20),
    wrk_cores: round(closed.run.wrkCores, 2),
    commands_per_batch: round(closed.run.durableCommands / Math.max(1, closed.run.durableBatches), 1),
    venues_quoting: orders.prices.venuesQuoting,
    hybrid_bid_at_seed: orders.prices.hybridBidTicks < 0 ? null : priceText(orders.prices.hybridBidTicks),
    hybrid_ask_at_seed: orders.prices.hybridAskTicks < 0 ? null : priceText(orders.prices.hybridAskTicks),
    seed_bid_top: priceText(orders.prices.bidTopTicks),
    seed_ask_bottom: priceText(orders.prices.askBottomTicks),
    amm_quotes_per_s: Math.round(closed.run.ammQuotes / closed.run.seconds),
    ioc_fills_book: sum('iocFills'),
    ioc_fills_venue: sum('iocVenueFills'),
    post_only_refused: sum('postOnlyRefused'),
  };
}

// -------------------------------------------------------------------------------------------------

buildServer();
const ensure = spawnSync('bash', [join(root, 'scripts/ensure-wrk.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
if (ensure.status !== 0) throw new Error('wrk is not installed and could not be installed (scripts/ensure-wrk.sh)');
const wrkVersion = (spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? 'wrk').replace(/ Copyright.*$/, '').trim();

const benchStarted = performance.now();
const tmp = mkdtempSync(join(os.tmpdir(), 'bench-http-'));
try {
  log(
    `node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)} at start; ${wrkVersion}, ` +
      `${wrkThreads} thread(s), ${wrkConnections} connections, ${durationS} s per timed run (warm-up ${warmupS} s)`,
  );
  const hello = await measureHello();
  const durableHello = await measureDurableHello(tmp, hello);
  const abRounds: AbRound[] = [];
  const measured = await measureOrders(tmp, abRounds);
  const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');
  for (const orders of measured) {
    const { closed, paced } = orders;
    const ratio = closed.placementsPerS / hello.perS;
    const p99PacedMs = paced.run.figures['latencyP99Us']! / 1000;
    log();
    log(`targets, ${orders.label}${orders.amm === 'on' ? ' (the default)' : ''}:`);
    log(`  >= 100,000 orders/s: ${fmtInt(closed.placementsPerS)} - ${verdict(closed.placementsPerS >= 100_000)}`);
    log(`  >= 0.5 of hello-world: ${ratio.toFixed(2)} (${fmtInt(closed.placementsPerS)} / ${fmtInt(hello.perS)}) - ${verdict(ratio >= 0.5)}`);
    log(
      `    (the durable hello-world, which only writes each request durably before answering it, reached ${(durableHello.perS / hello.perS).toFixed(2)} of ` +
        `hello-world; the order server ${(closed.placementsPerS / durableHello.perS).toFixed(2)} of the durable hello-world)`,
    );
    log(
      `    (CPU per request, server and wrk together: ${requestCpuUs(closed).toFixed(1)} µs for an order request, ` +
        `${(cpuUs(hello.run.serverCores + hello.run.wrkCores, hello.perS)).toFixed(1)} µs for hello-world: a ratio of ` +
        `${cpuRatio(closed, hello).toFixed(2)} if both were limited by CPU alone; the two cores to themselves would carry ` +
        `${fmtInt(twoCorePlacementsPerS(closed))} placements/s at this cost)`,
    );
    log(
      `  p99 <= 2 ms at ${fmtInt(pacedRate)}/s offered: ${p99PacedMs.toFixed(2)} ms with ${fmtInt(paced.requestsPerS)}/s actually sent - ` +
        verdict(p99PacedMs <= 2 && paced.requestsPerS >= 0.95 * pacedRate),
    );
  }
  if (measured.length > 1) {
    const column = 22;
    const row = (label: string, cell: (orders: OrderRuns) => string): void =>
      log(`  ${label.padEnd(44)}${measured.map((orders) => cell(orders).padStart(column)).join('')}`);
    const fig = (run: OrderRun, name: string): number => run.run.figures[name]!;
    log();
    log(`side by side (same hello-world ceiling, ${fmtInt(hello.perS)} requests/s; the durable hello-world ${fmtInt(durableHello.perS)}):`);
    row('', (orders) => (orders.amm === 'on' ? 'AMM on (default)' : orders.label));
    row('placements/s, closed loop', (orders) => fmtInt(orders.closed.placementsPerS));
    row('requests/s, closed loop', (orders) => fmtInt(orders.closed.requestsPerS));
    row('ratio to hello-world', (orders) => (orders.closed.placementsPerS / hello.perS).toFixed(2));
    row('ratio to the durable hello-world', (orders) => (orders.closed.placementsPerS / durableHello.perS).toFixed(2));
    row('latency p50 / p99, closed loop (ms)', (orders) => `${ms(fig(orders.closed, 'latencyP50Us'))} / ${ms(fig(orders.closed, 'latencyP99Us'))}`);
    row(`sent/s of ${fmtInt(pacedRate)}/s offered, p99 (ms)`, (orders) => `${fmtInt(orders.paced.requestsPerS)}, ${ms(fig(orders.paced, 'latencyP99Us'))}`);
    row('half rate/s offered, p50 / p99 (ms)', (orders) => `${fmtInt(orders.halfRate)}: ${ms(fig(orders.half, 'latencyP50Us'))} / ${ms(fig(orders.half, 'latencyP99Us'))}`);
    row('cpu, closed loop: main thread / process', (orders) => `${cores(orders.closed.run.serverMainCores)} / ${cores(orders.closed.run.serverCores)}`);
    row('cpu µs per request: main / other threads / wrk', (orders) => {
      const run = orders.closed;
      return `${usPer(run.run.serverMainCores, run.requestsPerS)} / ${usPer(run.run.serverCores - run.run.serverMainCores, run.requestsPerS)} / ${usPer(run.run.wrkCores, run.requestsPerS)}`;
    });
    row('ratio if limited by CPU alone', (orders) => cpuRatio(orders.closed, hello).toFixed(2));
    row('placements/s two cores would carry', (orders) => fmtInt(twoCorePlacementsPerS(orders.closed)));
    row('commands per journal batch, closed loop', (orders) => (orders.closed.run.durableCommands / Math.max(1, orders.closed.run.durableBatches)).toFixed(1));
    row('AMM quotes journaled/s, closed loop', (orders) => fmtInt(orders.closed.run.ammQuotes / orders.closed.run.seconds));
    row('IOC fills against venues, closed loop', (orders) => pct(fig(orders.closed, 'iocVenueFills'), fig(orders.closed, 'iocFills') + fig(orders.closed, 'iocVenueFills')));
    row('post-only passives refused, closed loop', (orders) => pct(fig(orders.closed, 'postOnlyRefused'), fig(orders.closed, 'placedPassive') + fig(orders.closed, 'postOnlyRefused')));
  }
  if (abRounds.length > 0) {
    const summary = abSummary(abRounds);
    log();
    log(
      `A/B rounds, this build against the baseline: median ratio ${summary.median.toFixed(3)} (this build ahead in ${summary.thisAhead} of ` +
        `${abRounds.length}; the first of the round ahead in ${summary.firstAhead}); main thread µs per request, median ratio ${summary.mainUsMedian.toFixed(3)}`,
    );
  }
  log(`total bench time ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
  const problems = [
    ...abRounds.flatMap((entry, index) =>
      [entry.current, entry.baseline].flatMap((side, at) =>
        side.failures > Math.max(10, failureShareMax * side.requests) ? [`A/B round ${index + 1}, ${at === 0 ? 'this build' : 'baseline'}: ${side.failures} of ${side.requests} requests failed`] : [],
      ),
    ),
    ...measured.flatMap((orders) => [
      failureProblem(orders.closed, `${orders.label}, closed-loop run`),
      failureProblem(orders.paced, `${orders.label}, run at ${pacedRate}/s`),
      failureProblem(orders.half, `${orders.label}, run at ${orders.halfRate}/s`),
      bookProblem(orders),
    ]),
    hello.run.figures['non2xx']! + socketErrors(hello.run.figures) > 0 ? 'hello-world: some requests failed' : null,
    durableHello.run.figures['non2xx']! + socketErrors(durableHello.run.figures) > 0 ? 'durable hello-world: some requests failed' : null,
    durableHello.requestsPerWrite === 0 ? 'durable hello-world: no count of its writes on stop' : null,
  ].filter((problem): problem is string => problem !== null);
  if (values.json) {
    const on = measured.find((orders) => orders.amm === 'on');
    const off = measured.find((orders) => orders.amm === 'off' && !orders.baseline);
    const baseline = measured.find((orders) => orders.baseline);
    console.log(
      JSON.stringify({
        ...(on === undefined ? {} : { amm_on: configJson(on, hello, durableHello) }),
        ...(off === undefined ? {} : { amm_off: configJson(off, hello, durableHello) }),
        ...(on === undefined || off === undefined ? {} : { orders_ratio_amm_on_to_off: round(on.closed.placementsPerS / off.closed.placementsPerS, 3) }),
        ...(baseline === undefined ? {} : { baseline_amm_off: configJson(baseline, hello, durableHello) }),
        ...(abRounds.length === 0
          ? {}
          : {
              ab_rounds: abRounds.map((entry) => ({
                this_first: entry.thisFirst,
                orders_per_s: Math.round(entry.current.placementsPerS),
                baseline_orders_per_s: Math.round(entry.baseline.placementsPerS),
                cpu_us_per_request_main: round(entry.current.mainUs, 1),
                baseline_cpu_us_per_request_main: round(entry.baseline.mainUs, 1),
              })),
              ab_ratio_median: round(abSummary(abRounds).median, 3),
            }),
        hello_per_s: Math.round(hello.perS),
        hello_p50_ms: round(hello.run.figures['latencyP50Us']! / 1000, 3),
        hello_p99_ms: round(hello.run.figures['latencyP99Us']! / 1000, 3),
        hello_server_cores: round(hello.run.serverCores, 2),
        hello_wrk_cores: round(hello.run.wrkCores, 2),
        durable_hello_per_s: Math.round(durableHello.perS),
        durable_hello_ratio_vs_hello: round(durableHello.perS / hello.perS, 3),
        durable_hello_p50_ms: round(durableHello.run.figures['latencyP50Us']! / 1000, 3),
        durable_hello_p99_ms: round(durableHello.run.figures['latencyP99Us']! / 1000, 3),
        durable_hello_requests_per_write: round(durableHello.requestsPerWrite, 1),
        durable_hello_server_cores: round(durableHello.run.serverCores, 2),
        durable_hello_wrk_cores: round(durableHello.run.wrkCores, 2),
        paced_rate_per_s: pacedRate,
        journal_sync: journalSync,
        wrk_threads: wrkThreads,
        wrk_connections: wrkConnections,
        duration_s: durationS,
      }),
    );
  }
  for (const problem of problems) console.error(`FAILED: ${problem}`);
  if (problems.length > 0) process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
