/**
 * bench:engine: throughput of the matching engine on pre-generated command streams, against the
 * nodejs-order-book package on the same streams (the exchange-core mix at 10 k resting, translated into its
 * limits, cancels and modifies, and the simple mix), the hybrid mix (the same mix with AMM venue levels on the
 * pair), the AMM worker's quote time per pool, and latency at a constant offered rate of 1 M ops/s.
 *
 *   npm run bench:engine            a table on stdout
 *   npm run bench:engine -- --json  the table, then one JSON object as the last stdout line
 *
 * Streams come from bench/streams.ts and are generated (and checked against an oracle engine) before any
 * clock is read. Each timed run applies a stream to a fresh engine prepared with the same deposits and
 * resting orders; the results are then compared with the oracle's, so a stream that silently got refused,
 * or an engine that did different work, shows up in the table instead of as a fast number.
 */
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Engine } from '../engine/core/engine.ts';
import type { Command } from '../engine/core/commands.ts';
import { resultCode, type ResultCode } from '../engine/core/results.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import { formatPrice, formatQuantity } from '../engine/core/units.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { benchPairId, exchangeCoreMix, hybridMix, midTicks, quoteTickCommands, simpleMix, type Scenario, type VenueQuoteLevels } from './streams.ts';
import { depthDifference, peerPlan, preparePeer, timePeer, type DepthDifference } from './peer.ts';
import { clockNs, prepare, settle, timeEach, timeStream } from './timing.ts';
import { hybridVenues, timeWorkerQuotes, type QuoteTimes } from './venues.ts';
import { fmtInt, log, percentile } from './lib.ts';
import { mallocHugePages, rerunWithHugePages, transparentHugePages } from './huge-pages.ts';

// With huge pages for the large buffers where the machine allows it (bench/huge-pages.ts): this process
// runs itself again with the tunable set, and leaves with that run's exit code.
const rerun = rerunWithHugePages();
if (rerun !== null) process.exit(await rerun);

const json = process.argv.includes('--json');
const markets = loadMarkets();

/** Timed commands per throughput run of our engine; the peer runs the whole simple-mix stream too. */
const engineCommands = 3_000_000;
/** Throughput runs per scenario of our engine (the median is reported); the peer, much slower, runs once. */
const timedRuns = 3;
/** Commands of the paced latency run (at 1 µs apart, about two seconds). */
const latencyCommands = 2_000_000;
const warmupCommands = 1_000_000;
const peerWarmupCommands = 300_000;
const pacedWarmupCommands = 300_000;
/** Offered rate of the latency run: one command every 1 000 ns. */
const offeredIntervalNs = 1_000;
/** Timed quotes of each fixture pool (a few milliseconds each). */
const quoteRounds = 20;

/**
 * Paced run: command i is offered at start + i µs. When the engine is ahead it spins until the command is
 * due; when it is behind, the command waits (its latency includes the queueing), as it would for a real
 * sequencer feeding the engine at that rate. Latency = finish − offered time; service = finish − the time
 * the engine took the command up; both in nanoseconds.
 */
function timePaced(engine: Engine, stream: readonly Command[], results: Uint16Array, latencies: Float64Array, service: Float64Array): number {
  const count = stream.length;
  let now = clockNs();
  // The first command is due a millisecond from now, so that the loop starts on time.
  const start = now + 1e6;
  for (let index = 0; index < count; index++) {
    const due = start + index * offeredIntervalNs;
    while (now < due) now = clockNs();
    const begun = now;
    results[index] = engine.apply(stream[index]!);
    now = clockNs();
    latencies[index] = now - due;
    service[index] = now - begun;
  }
  return (now - start) / 1e9;
}

interface Check {
  nonOk: number;
  /** Non-ok results by code name, e.g. "ORDER_NOT_FOUND=12". */
  codes: string;
  /** Commands whose result differs from the oracle's. */
  mismatches: number;
  /** Whether the timed engine ends in the oracle's state ('' when not compared). */
  hash: 'same' | 'DIFFERENT' | '';
  resting: number;
}

function check(scenario: Scenario, engine: Engine, results: Uint16Array, count: number, compareHash: boolean): Check {
  const byCode = new Map<number, number>();
  let nonOk = 0;
  let mismatches = 0;
  for (let index = 0; index < count; index++) {
    const result = results[index]!;
    if (result !== 0) {
      nonOk++;
      byCode.set(result, (byCode.get(result) ?? 0) + 1);
    }
    if (result !== scenario.expected[index]) mismatches++;
  }
  const codes = [...byCode].map(([code, n]) => `${resultCode(code as ResultCode)}=${n}`).join(' ');
  let hash: Check['hash'] = '';
  if (compareHash && count === scenario.stream.length) hash = stateHash(engine) === scenario.expectedHash ? 'same' : 'DIFFERENT';
  return { nonOk, codes, mismatches, hash, resting: engine.contexts[0]!.book.orderCount };
}

interface Row {
  label: string;
  resting: number;
  commands: number;
  seconds: number;
  opsPerS: number;
  nonOk: number;
}

const rows: Row[] = [];

function describe(scenario: Scenario): string {
  const mix = scenario.mix;
  const total = scenario.stream.length;
  const pct = (n: number): string => ((100 * n) / total).toFixed(1) + '%';
  const amends = mix.amendPrice + mix.amendReduce + mix.amendIncrease;
  const parts = [`gtc limits ${pct(mix.gtc)} passive + ${pct(mix.crossingGtc)} crossing`];
  if (mix.ioc > 0) parts.push(`ioc ${pct(mix.ioc)}`);
  parts.push(`cancel ${pct(mix.cancel)}`);
  if (amends > 0) {
    parts.push(`amend ${pct(amends)} (price ${pct(mix.amendPrice)}, reduce ${pct(mix.amendReduce)}, increase ${pct(mix.amendIncrease)})`);
  }
  const sweeps = mix.sweepIoc + mix.sweepMarket;
  if (sweeps > 0) parts.push(`sweeps into venues ${pct(sweeps)} (ioc ${pct(mix.sweepIoc)}, market ${pct(mix.sweepMarket)})`);
  if (mix.quote > 0) parts.push(`${fmtInt(mix.quote)} venue quotes`);
  parts.push(`${fmtInt(scenario.trades)} trades`);
  if (scenario.ammFills > 0) {
    const byPool = [...scenario.ammFillsByVenue].map(([poolId, fills]) => `pool ${poolId} ${fmtInt(fills)}`).join(', ');
    parts.push(`${fmtInt(scenario.ammFills)} AMM fills (${byPool})`);
  }
  return parts.join(', ');
}

/**
 * Prepares, times and checks one scenario of our engine `timedRuns` times, each on a fresh engine with
 * the same stream; returns the median ops/s and the last engine. The median of a few runs, rather than
 * one, because this machine is a small shared VM whose virtual CPUs are now and then taken away for
 * milliseconds (see the machine-noise line of the latency section).
 */
function runOurs(label: string, scenario: Scenario, loop = timeStream): { opsPerS: number; engine: Engine } {
  const samples: number[] = [];
  let engine: Engine | undefined;
  let verdict: Check | undefined;
  for (let run = 0; run < timedRuns; run++) {
    engine = prepare(markets, scenario);
    const results = new Uint16Array(scenario.stream.length);
    settle();
    const seconds = loop(engine, scenario.stream, results);
    samples.push(seconds);
    const runVerdict = check(scenario, engine, results, scenario.stream.length, true);
    if (verdict === undefined || runVerdict.nonOk !== 0 || runVerdict.mismatches !== 0 || runVerdict.hash !== 'same') verdict = runVerdict;
  }
  const sorted = samples.slice().sort((a, b) => a - b);
  const seconds = sorted[Math.floor(sorted.length / 2)]!;
  const opsPerS = scenario.stream.length / seconds;
  rows.push({ label, resting: scenario.restingTarget, commands: scenario.stream.length, seconds, opsPerS, nonOk: verdict!.nonOk });
  const each = samples.map((run) => fmtInt(scenario.stream.length / run)).join(' / ');
  log(`  ${label}: ${fmtInt(opsPerS)} ops/s (median of ${each}) over ${fmtInt(scenario.stream.length)} commands each`);
  log(`    stream: ${describe(scenario)}`);
  log(
    `    check${timedRuns > 1 ? ' (worst run)' : ''}: non-ok ${verdict!.nonOk}${verdict!.codes === '' ? '' : ` (${verdict!.codes})`}, ` +
      `result mismatches vs oracle ${verdict!.mismatches}, state hash ${verdict!.hash}, ` +
      `resting ${fmtInt(scenario.restingAfterSetup)} -> ${fmtInt(verdict!.resting)}`,
  );
  if (verdict!.mismatches !== 0 || verdict!.hash === 'DIFFERENT') log('    WARNING: a timed run did not repeat the oracle; the figure above is suspect');
  return { opsPerS, engine: engine! };
}

// -------------------------------------------------------------------------------------------------
// Formatting

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** What one clock read costs here: it is part of every latency sample (one or two reads each). */
function clockReadNs(): number {
  const reads = 2_000_000;
  const start = clockNs();
  let sum = 0;
  for (let index = 0; index < reads; index++) sum += clockNs();
  return sum > 0 ? (clockNs() - start) / reads : 0;
}

interface Jitter {
  /** Milliseconds per second lost to gaps over 10 µs between two clock reads. */
  lostMsPerS: number;
  gapsOver10us: number;
  worstGapUs: number;
}

/**
 * The machine's own noise: a loop that does nothing but read the clock, for `ms` milliseconds, counting
 * the gaps between reads longer than 10 µs (the thread was descheduled or the virtual CPU stolen). Any
 * latency tail measured here sits on top of this floor.
 */
function machineJitter(ms: number): Jitter {
  const start = clockNs();
  const end = start + ms * 1e6;
  let previous = start;
  let gaps = 0;
  let lostNs = 0;
  let worstNs = 0;
  while (previous < end) {
    const now = clockNs();
    const gap = now - previous;
    if (gap > 10_000) {
      gaps++;
      lostNs += gap;
    }
    if (gap > worstNs) worstNs = gap;
    previous = now;
  }
  return { lostMsPerS: lostNs / 1e6 / (ms / 1000), gapsOver10us: gaps, worstGapUs: worstNs / 1000 };
}

// -------------------------------------------------------------------------------------------------
// Phases. Each runs in its own function so that its streams and engines are garbage when it returns, and
// the full collection before the next timed section leaves a small heap (cheap scavenges) behind.

/**
 * The same kinds of stream through the same timing functions on throw-away engines and books, so that
 * V8 has optimised the engine, the peer and the timing loops themselves before anything is timed.
 *
 * Each timing function first gets a tiny input: a long first call is optimised on the stack in mid-loop,
 * before the code after the loop has ever run, and that code is given up (deoptimised) when the loop
 * ends, leaving the next call to start unoptimised; on the clock, that start-up would show as a stall.
 */
function warmUp(venues: readonly VenueQuoteLevels[]): void {
  const exchange = exchangeCoreMix({ markets, seed: 901, resting: 10_000, commands: warmupCommands, skipHash: true, withPeer: true });
  const simple = simpleMix({ markets, seed: 902, resting: 10_000, commands: warmupCommands, skipHash: true });
  const hybrid = hybridMix({ markets, seed: 903, resting: 10_000, commands: warmupCommands, skipHash: true, venues });
  for (const length of [1_000, pacedWarmupCommands, pacedWarmupCommands]) {
    const paced = exchange.stream.slice(0, length);
    timePaced(prepare(markets, exchange), paced, new Uint16Array(length), new Float64Array(length), new Float64Array(length));
  }
  for (const scenario of [exchange, simple, hybrid]) {
    for (const length of [1_000, scenario.stream.length]) {
      timeStream(prepare(markets, scenario), scenario.stream.slice(0, length), new Uint16Array(length));
      timeEach(prepare(markets, scenario), scenario.stream.slice(0, length), new Uint16Array(length));
    }
  }
  for (const scenario of [exchange, simple]) {
    for (const length of [1_000, peerWarmupCommands]) timePeer(preparePeer(scenario), peerPlan(scenario.peerStream!, length));
  }
  clockReadNs();
  machineJitter(100);
}

/**
 * ops/s of the exchange-core mix by resting count, with the peer on the very 10 k stream; then, as
 * `applyEach`, the 1 M stream again with `apply` on each command in turn (the sequencer's way), which
 * `Engine.applyRun`'s reading ahead leaves out.
 */
function exchangeThroughput(): { opsByResting: Map<number, number>; applyEach1m: number; peer: PeerComparison } {
  const opsByResting = new Map<number, number>();
  let applyEach1m = 0;
  let peer: PeerComparison | null = null;
  for (const [resting, seed] of [
    [1_000, 11],
    [10_000, 12],
    [1_000_000, 13],
  ] as const) {
    const scenario = exchangeCoreMix({ markets, seed, resting, commands: engineCommands, withPeer: resting === 10_000 });
    const ours = runOurs(`exchange-core mix, ${fmtInt(resting)} resting`, scenario);
    opsByResting.set(resting, ours.opsPerS);
    if (resting === 10_000) peer = versusPeer('exchange-core mix, 10,000 resting', scenario, ours);
    if (resting === 1_000_000) applyEach1m = runOurs('the same, apply one by one (no reading ahead)', scenario, timeEach).opsPerS;
  }
  return { opsByResting, applyEach1m, peer: peer! };
}

interface PeerComparison {
  oursOpsPerS: number;
  peerOpsPerS: number;
  peerCommands: number;
}

/**
 * The peer on the very stream our engine just ran (`ours`, its median figure and last engine): one run,
 * then a comparison of the two final books. On the simple mix the books end equal level by level. On the
 * exchange-core mix they may drift apart a little: the peer's modify always sends the order to the back
 * of its level, where our amend keeps the place of an order whose quantity goes down, so a taker may fill
 * a different order of the same level; the check prints how far apart they ended and how many cancels
 * and modifies named an order the peer no longer held.
 */
function versusPeer(label: string, scenario: Scenario, ours: { opsPerS: number; engine: Engine }): PeerComparison {
  const book = preparePeer(scenario);
  const plan = peerPlan(scenario.peerStream!, scenario.stream.length);
  settle();
  const peer = timePeer(book, plan);
  const peerOpsPerS = scenario.stream.length / peer.seconds;
  rows.push({
    label: `${label} (nodejs-order-book)`,
    resting: scenario.restingTarget,
    commands: scenario.stream.length,
    seconds: peer.seconds,
    opsPerS: peerOpsPerS,
    nonOk: peer.errors + peer.cancelMisses + peer.modifyMisses,
  });
  log(`  ${label} (nodejs-order-book): ${fmtInt(peerOpsPerS)} ops/s over ${fmtInt(scenario.stream.length)} commands in ${peer.seconds.toFixed(3)} s`);
  log(
    `    check: limit errors ${peer.errors}, cancels of unknown ids ${peer.cancelMisses}, modifies of unknown ids ${peer.modifyMisses}, ` +
      `final book depth equal to ours (every level, price and lots): ${describeDifference(depthDifference(book, ours.engine))}`,
  );
  return { oursOpsPerS: ours.opsPerS, peerOpsPerS, peerCommands: scenario.stream.length };
}

/** "yes", or "NO" with how many levels differ and the two books' lots. */
function describeDifference(difference: DepthDifference): string {
  const { differing, levels, ourLots, peerLots } = difference;
  return differing === 0 ? 'yes' : `NO (${fmtInt(differing)} of ${fmtInt(levels)} levels differ; lots ours ${fmtInt(ourLots)}, the peer's ${fmtInt(peerLots)})`;
}

/** The simple mix on our engine, then on the peer with the very same stream. */
function simpleVersusPeer(): PeerComparison {
  const simple = simpleMix({ markets, seed: 21, resting: 10_000, commands: engineCommands });
  return versusPeer('simple mix, 10,000 resting', simple, runOurs('simple mix, 10,000 resting (ours)', simple));
}

/** A venue's best level on the side that faces the book: "ask mid+50 = 3000.50 for 163.4307 ETH". */
function venueTouch(venue: VenueQuoteLevels): string {
  const pair = markets.pairById(benchPairId)!;
  const { askPriceTicks, askLots, bidPriceTicks, bidLots } = venue.levels;
  const asks = askPriceTicks[0]! - midTicks < midTicks - bidPriceTicks[0]!;
  const [side, priceTicks, lots] = asks ? ['ask', askPriceTicks[0]!, askLots[0]!] : ['bid', bidPriceTicks[0]!, bidLots[0]!];
  const gap = priceTicks - midTicks;
  return (
    `pool ${venue.poolId} (chain ${venue.chainId}, ${venue.venue}): best ${side} mid${gap < 0 ? '' : '+'}${gap} = ` +
    `${formatPrice(priceTicks, pair)} for ${formatQuantity(lots, pair)} ${pair.base.symbol}, ${bidPriceTicks.length} bid and ${askPriceTicks.length} ask levels`
  );
}

/**
 * The hybrid mix at 10 k resting: the exchange-core mix with the fixture pools' levels on the pair (see
 * streams.ts and venues.ts), timed like the CLOB-only rows; its ops/s next to the CLOB-only mix's.
 */
function hybridThroughput(venues: readonly VenueQuoteLevels[]): { opsPerS: number; ammFills: number } {
  const scenario = hybridMix({ markets, seed: 14, resting: 10_000, commands: engineCommands, venues });
  log(`  hybrid mix venues (fixture pools moved next to the mid, quoted with the AMM worker's settings; re-quoted at ticks every ${fmtInt(quoteTickCommands)} commands):`);
  for (const venue of venues) log(`    ${venueTouch(venue)}`);
  const { opsPerS } = runOurs(`hybrid mix, 10,000 resting, ${venues.length} venues`, scenario);
  return { opsPerS, ammFills: scenario.ammFills };
}

/** The AMM worker's quote computation per fixture pool (quoteDepth with the worker's settings). */
function quoteTiming(): QuoteTimes {
  settle();
  const times = timeWorkerQuotes(markets, quoteRounds);
  const each = times.pools.map((pool) => `${pool.poolId} ${pool.pair} ${fmtInt(pool.microseconds)}`).join(', ');
  log(`AMM worker quote (quoteDepth, ${times.pools.length} fixture pools, ${times.rounds} timed quotes each): ${fmtInt(times.microsecondsPerPool)} us per pool on average`);
  log(`  by pool (id, pair, us): ${each}`);
  return times;
}

interface Latency {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  commands: number;
  over10us: number;
  over100us: number;
  /** Service time alone (no queueing), µs. */
  serviceP50: number;
  serviceP99: number;
  serviceP999: number;
  jitter: Jitter;
}

/** Latency (µs) of the exchange-core mix at 10 k resting, offered at a constant 1 M ops/s. */
function pacedLatency(): Latency {
  const paced = exchangeCoreMix({ markets, seed: 31, resting: 10_000, commands: latencyCommands });
  const engine = prepare(markets, paced);
  const results = new Uint16Array(paced.stream.length);
  const latencies = new Float64Array(paced.stream.length);
  const service = new Float64Array(paced.stream.length);
  const nsPerRead = clockReadNs();
  settle();
  const jitter = machineJitter(1_000);
  const seconds = timePaced(engine, paced.stream, results, latencies, service);
  const verdict = check(paced, engine, results, paced.stream.length, true);
  let over10 = 0;
  let over100 = 0;
  let worst = 0;
  for (let index = 0; index < latencies.length; index++) {
    const ns = latencies[index]!;
    if (ns > 10_000) over10++;
    if (ns > 100_000) over100++;
    if (ns > latencies[worst]!) worst = index;
  }
  const sorted = latencies.slice().sort();
  const sortedService = service.sort();
  const latency: Latency = {
    p50: percentile(sorted, 0.5) / 1000,
    p99: percentile(sorted, 0.99) / 1000,
    p999: percentile(sorted, 0.999) / 1000,
    max: sorted[sorted.length - 1]! / 1000,
    commands: paced.stream.length,
    over10us: over10,
    over100us: over100,
    serviceP50: percentile(sortedService, 0.5) / 1000,
    serviceP99: percentile(sortedService, 0.99) / 1000,
    serviceP999: percentile(sortedService, 0.999) / 1000,
    jitter,
  };
  log(`latency at 1,000,000 ops/s offered (exchange-core mix, 10,000 resting, ${fmtInt(paced.stream.length)} commands):`);
  log(`  p50 ${latency.p50.toFixed(3)} us, p99 ${latency.p99.toFixed(3)} us, p99.9 ${latency.p999.toFixed(3)} us, max ${latency.max.toFixed(1)} us`);
  log(
    `  service time alone (finish - taken up, no queueing): p50 ${latency.serviceP50.toFixed(3)} us, ` +
      `p99 ${latency.serviceP99.toFixed(3)} us, p99.9 ${latency.serviceP999.toFixed(3)} us`,
  );
  log(`  samples over 10 us: ${fmtInt(over10)}, over 100 us: ${fmtInt(over100)}; the worst is command ${fmtInt(worst)}`);
  log(
    `  the paced run took ${seconds.toFixed(3)} s for ${((paced.stream.length * offeredIntervalNs) / 1e9).toFixed(3)} s of offered commands; ` +
      `one clock read costs ${nsPerRead.toFixed(0)} ns and every sample includes one or two`,
  );
  log(
    `  machine noise just before (a bare clock loop for 1 s): ${fmtInt(jitter.gapsOver10us)} gaps over 10 us losing ` +
      `${jitter.lostMsPerS.toFixed(1)} ms per second, the worst ${jitter.worstGapUs.toFixed(0)} us`,
  );
  log(
    `  check: non-ok ${verdict.nonOk}${verdict.codes === '' ? '' : ` (${verdict.codes})`}, result mismatches vs oracle ${verdict.mismatches}, ` +
      `state hash ${verdict.hash}`,
  );
  return latency;
}

function main(): void {
  const started = clockNs();
  const cpus = os.cpus();
  log(`bench:engine - node ${process.version}, ${os.platform()} ${os.arch()}, ${cpus[0]?.model ?? 'unknown cpu'} x${cpus.length}, nodejs-order-book ${peerVersion()}`);
  log(`All figures are from one run on this machine (one thread; load average ${os.loadavg()[0]!.toFixed(2)} at start; transparent huge pages ${transparentHugePages()}, malloc ${mallocHugePages() ? 'with glibc.malloc.hugetlb=1' : 'on 4 KiB pages'}); expect some noise between runs.`);
  log();
  const venues = hybridVenues(markets);
  log('warm-up ...');
  warmUp(venues);
  log();
  log('throughput (commands / seconds of the timed loop):');
  const { opsByResting: exchange, applyEach1m, peer: exchangePeer } = exchangeThroughput();
  const exchangeRatio = exchangePeer.oursOpsPerS / exchangePeer.peerOpsPerS;
  log(`  ratio ours / peer on the exchange-core mix: ${exchangeRatio.toFixed(1)}x`);
  const peer = simpleVersusPeer();
  const ratio = peer.oursOpsPerS / peer.peerOpsPerS;
  log(`  ratio ours / peer on the simple mix: ${ratio.toFixed(1)}x`);
  const hybrid = hybridThroughput(venues);
  const hybridRatio = hybrid.opsPerS / exchange.get(10_000)!;
  log(`  ratio hybrid / exchange-core mix at 10,000 resting: ${hybridRatio.toFixed(2)}`);
  log();
  const quotes = quoteTiming();
  log();
  const latency = pacedLatency();
  log();

  log(`our engine: median of ${timedRuns} timed runs per row; nodejs-order-book: one run`);
  log(`${pad('run', 56)}${pad('resting', 11, true)}${pad('commands', 12, true)}${pad('seconds', 9, true)}${pad('ops/s', 13, true)}${pad('non-ok', 8, true)}`);
  for (const row of rows) {
    log(
      `${pad(row.label, 56)}${pad(fmtInt(row.resting), 11, true)}${pad(fmtInt(row.commands), 12, true)}${pad(row.seconds.toFixed(3), 9, true)}` +
        `${pad(fmtInt(row.opsPerS), 13, true)}${pad(String(row.nonOk), 8, true)}`,
    );
  }
  log(`${pad('ratio ours / nodejs-order-book (exchange-core mix)', 56)}${pad(exchangeRatio.toFixed(1) + 'x', 53, true)}`);
  log(`${pad('ratio ours / nodejs-order-book (simple mix)', 56)}${pad(ratio.toFixed(1) + 'x', 53, true)}`);
  log(`${pad('ratio hybrid / exchange-core mix (10,000 resting)', 56)}${pad(hybridRatio.toFixed(2), 53, true)}`);
  log(`${pad('AMM worker quote per pool (fixture pools), us', 56)}${pad(fmtInt(quotes.microsecondsPerPool), 53, true)}`);
  log(`${pad('latency at 1 M ops/s offered: p50 / p99 / p99.9 us', 56)}${pad(`${latency.p50.toFixed(2)} / ${latency.p99.toFixed(2)} / ${latency.p999.toFixed(2)}`, 53, true)}`);
  log();

  const ops1k = exchange.get(1_000)!;
  const ops10k = exchange.get(10_000)!;
  const ops1m = exchange.get(1_000_000)!;
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  log('targets:');
  log(`  >= 5,000,000 ops/s at 10k resting (exchange-core mix): ${fmtInt(ops10k)} - ${met(ops10k >= 5_000_000)}`);
  log(`  >= 20x nodejs-order-book on the same stream (exchange-core mix, 10k resting): ${exchangeRatio.toFixed(1)}x - ${met(exchangeRatio >= 20)} (on the simple mix: ${ratio.toFixed(1)}x)`);
  log(`  1M resting within 1.5x of 1k resting: 1k / 1M = ${(ops1k / ops1m).toFixed(2)} - ${met(ops1k / ops1m <= 1.5)} (apply one by one: ${(ops1k / applyEach1m).toFixed(2)})`);
  log(`  p99 <= 2 us at 1 M ops/s offered: ${latency.p99.toFixed(3)} us - ${met(latency.p99 <= 2)}`);
  log(`  hybrid mix within 2x of the CLOB-only mix (10k resting): hybrid / CLOB = ${hybridRatio.toFixed(2)} - ${met(hybridRatio >= 0.5)}`);
  log(`total bench time ${((clockNs() - started) / 1e9).toFixed(1)} s`);

  if (json) {
    const round = (value: number, digits: number): number => Number(value.toFixed(digits));
    log(
      JSON.stringify({
        ops_per_s_1k: Math.round(ops1k),
        ops_per_s_10k: Math.round(ops10k),
        ops_per_s_1m: Math.round(ops1m),
        ops_per_s_1m_apply_each: Math.round(applyEach1m),
        peer_exchange_ops_per_s_10k: Math.round(exchangePeer.peerOpsPerS),
        ratio_vs_peer_exchange_10k: round(exchangeRatio, 2),
        peer_ops_per_s_10k: Math.round(peer.peerOpsPerS),
        ratio_vs_peer_10k: round(ratio, 2),
        p50_us: round(latency.p50, 3),
        p99_us: round(latency.p99, 3),
        p999_us: round(latency.p999, 3),
        simple_ops_per_s_10k: Math.round(peer.oursOpsPerS),
        max_us: round(latency.max, 1),
        latency_over_10us: latency.over10us,
        service_p50_us: round(latency.serviceP50, 3),
        service_p99_us: round(latency.serviceP99, 3),
        service_p999_us: round(latency.serviceP999, 3),
        machine_lost_ms_per_s: round(latency.jitter.lostMsPerS, 1),
        machine_worst_gap_us: round(latency.jitter.worstGapUs, 0),
        engine_commands: engineCommands,
        engine_timed_runs: timedRuns,
        peer_commands: peer.peerCommands,
        latency_commands: latency.commands,
        hybrid_ops_per_s: Math.round(hybrid.opsPerS),
        hybrid_vs_clob: round(hybridRatio, 3),
        hybrid_amm_fills: hybrid.ammFills,
        quote_us_per_pool: round(quotes.microsecondsPerPool, 0),
        transparent_huge_pages: transparentHugePages(),
        malloc_huge_pages: mallocHugePages(),
      }),
    );
  }
}

/** The installed peer's version, read from its package.json (the package exports no version). */
function peerVersion(): string {
  const path = createRequire(import.meta.url).resolve('nodejs-order-book/package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

main();
