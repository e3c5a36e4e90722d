/**
 * bench:http: order placement over HTTP on loopback, end to end: wrk → uWebSockets.js → route table →
 * API-key auth and rate limit → sequencer → engine → journal (fsync) → 201. Beside it, a bare
 * uWebSockets.js hello-world server measured the same way, as the ceiling of HTTP on this machine.
 *
 *   npm run bench:http                        human-readable report on stdout (about 90 s here)
 *   npm run bench:http -- --json              the same, then one JSON object as the last stdout line
 *   npm run bench:http -- --duration 5        shorter timed runs (seconds each; default 15)
 *   npm run bench:http -- --profile           also CPU-profile the order server (node --cpu-prof) and print
 *                                             where its main thread spent the closed-loop and half-rate runs
 *   options: --connections 128 --threads 1 --rate 50000 --warmup 3 --sync sync|none
 *
 * How: the order server runs as a child process the way `npm start` runs it, as the esbuild bundle
 * dist/shell/server.mjs (built first by scripts/build.mjs), with a fresh DATA_DIR and JOURNAL_SYNC=sync.
 * Over HTTP the bench registers users, creates API keys, raises them to the ADMIN tier (600 000 order
 * requests per key and minute; 32 keys, so no limit is ever reached) and funds the users, then seeds 10 000
 * resting ETH/USDC orders with batch placements. wrk (Debian's package, installed by scripts/ensure-wrk.sh
 * when missing) runs bench/http/orders.lua: single-order requests, rotating the keys, in a mix that keeps
 * the book near 10 000 resting orders (passive limits, IOC limits that take the best resting order, cancels
 * of ids read from earlier answers; see the script). wrk runs four times against the same server: an untimed
 * warm-up, the throughput run (closed loop: each connection sends its next request when the previous one is
 * answered), and two runs paced with wrk's Lua delay(), at 50 000 requests/s offered and at half the rate
 * the closed loop reached. wrk has no open-loop mode; what the paced latency includes and leaves out is in
 * bench/README.md. The hello-world server (bench/http/hello.ts) gets the same wrk threads, connections and
 * duration with a request of the same size. Latency figures are wrk's own: from the request written to the
 * response read.
 *
 * The machine has two cores: wrk runs one thread (one core) and the server's event loop the other; the
 * server's journal writes run on libuv's thread pool and share the cores. The report prints how much CPU
 * the server's main thread, the whole server process and wrk used, which says which side was the limit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Api,
  buildServer,
  checkPair,
  cores,
  cpuProfileSummary,
  cpuSeconds,
  createTrader,
  fmtInt,
  keepCpuProfile,
  log,
  monotonicUs,
  positiveInteger,
  priceText,
  root,
  round,
  seededRandom,
  serverNodeArgs,
  startNode,
  stopProcess,
} from './lib.ts';

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

/** Resting orders seeded before the load; the load's mix holds the book near this size. */
const restingTarget = 10_000;
/** 32 ADMIN keys allow 19.2 M order requests a minute, far above any rate reached here. */
const usersCount = 8;
const keysPerUser = 4;
const symbol = 'eth';
/** The pair's grid as the bench assumes it; checked against GET /api/v1/exchange/pairs. */
const tickSize = '0.01';
const lotSize = '0.0001';
/** Mid 3 000.00 USDC; passive orders rest 1-500 ticks from it, so each side has at most 500 levels. */
const midTicks = 300_000;
const depthTicks = 500;
/**
 * Passive orders placed more than this many ticks from the mid may be named by a later cancel; nearer ones
 * are left to the IOCs. A passive order lands beyond 300 ticks with probability 1 - sqrt(300/499) = 0.22
 * (the script draws 1 + 499u² ticks), so cancels settle near 11 % of the requests and IOCs near 39 %, and
 * the IOCs, which take the best price, never reach the far orders that cancels name: no cancel races an
 * IOC for the same order.
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

/** Seeds `restingTarget` passive orders, drawn as the load script draws them, with batch placements. */
async function seedBook(api: Api, keys: readonly string[]): Promise<void> {
  const next = seededRandom(20_251_122);
  const batches: Array<{ key: string; orders: unknown[] }> = [];
  for (let placed = 0; placed < restingTarget; placed += seedBatchOrders) {
    const orders: unknown[] = [];
    for (let index = 0; index < seedBatchOrders; index++) {
      const buy = (placed + index) % 2 === 0;
      const u = next();
      const distance = 1 + Math.floor((depthTicks - 1) * u * u);
      orders.push({ side: buy ? 'buy' : 'sell', order_type: 'limit', quantity, price: priceText(buy ? midTicks - distance : midTicks + distance) });
    }
    batches.push({ key: keys[batches.length % keys.length]!, orders });
  }
  let cursor = 0;
  const worker = async (): Promise<void> => {
    while (cursor < batches.length) {
      const batch = batches[cursor++]!;
      const answer = await api.call('POST', `/api/v1/exchange/${symbol}/orders/batch`, { orders: batch.orders }, { 'X-API-Key': batch.key }, [200, 201]);
      for (const result of answer['results'] as Array<Record<string, unknown>>) {
        if (result['status'] !== 'open') throw new Error(`a seed order did not rest: ${JSON.stringify(result)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: seedConcurrency }, worker));
}

interface BookCount {
  orders: number;
  levels: number;
  bestBid: string;
  bestAsk: string;
}

/** Resting orders of the live book, summed over its levels (every level fits in one answer). */
async function bookCount(api: Api, key: string): Promise<BookCount> {
  const book = await api.call('GET', `/api/v1/exchange/${symbol}/book?depth=${bookDepthMax}`, undefined, { 'X-API-Key': key }, [200]);
  const bids = book['bids'] as Array<{ price: string; orders: number }>;
  const asks = book['asks'] as Array<{ price: string; orders: number }>;
  if (bids.length >= bookDepthMax || asks.length >= bookDepthMax) throw new Error('the book has more levels than one query shows');
  const sum = (levels: Array<{ orders: number }>): number => levels.reduce((total, level) => total + level.orders, 0);
  return { orders: sum(bids) + sum(asks), levels: bids.length + asks.length, bestBid: bids[0]?.price ?? '-', bestAsk: asks[0]?.price ?? '-' };
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

async function measureHello(): Promise<HelloRun> {
  const env = { ...process.env, HOST: '127.0.0.1', PORT: '0' };
  const hello = await startNode('the hello-world server', ['--import', 'tsx', 'bench/http/hello.ts'], env);
  try {
    const url = `http://127.0.0.1:${hello.port}`;
    const script = join(root, 'bench/http/hello.lua');
    const pid = hello.process.pid!;
    await runWrk(script, url, Math.min(warmupS, 2), pid, []);
    const run = await runWrk(script, url, durationS, pid, []);
    const f = run.figures;
    const perS = f['requests']! / run.seconds;
    log(
      `hello-world (bare uWebSockets.js): ${fmtInt(perS)} requests/s over ${run.seconds.toFixed(1)} s, latency p50 ${ms(f['latencyP50Us']!)} ms, ` +
        `p99 ${ms(f['latencyP99Us']!)} ms, max ${ms(f['latencyMaxUs']!)} ms; non-2xx ${f['non2xx']}, socket errors ${socketErrors(f)}`,
    );
    log(`  cpu: server ${cores(run.serverCores)} of a core, wrk ${cores(run.wrkCores)}`);
    return { perS, run };
  } finally {
    await stopProcess(hello.process);
  }
}

interface OrderRun {
  placementsPerS: number;
  cancelsPerS: number;
  requestsPerS: number;
  /** Answers that were neither a placement (201), a cancel (200) nor a cancel's 404, plus socket errors. */
  failures: number;
  run: WrkResult;
  book: BookCount;
}

/** Prints one wrk run of the order script. */
function reportOrders(label: string, run: WrkResult, book: BookCount): OrderRun {
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
  const answered = placements + f['cancelled']! + f['cancelMisses']!;
  const share = (count: number): string => `${((100 * count) / Math.max(1, answered)).toFixed(1)}%`;
  log(
    `${label}: ${fmtInt(result.placementsPerS)} placements/s (201) + ${fmtInt(result.cancelsPerS)} cancels/s (200) ` +
      `over ${run.seconds.toFixed(1)} s; ${fmtInt(result.requestsPerS)} requests/s in all`,
  );
  log(
    `  latency (every request): p50 ${ms(f['latencyP50Us']!)} ms, p90 ${ms(f['latencyP90Us']!)} ms, p99 ${ms(f['latencyP99Us']!)} ms, ` +
      `p99.9 ${ms(f['latencyP999Us']!)} ms, max ${ms(f['latencyMaxUs']!)} ms`,
  );
  log(
    `  mix: passive limits ${share(f['placedPassive']!)}, ioc limits ${share(f['placedIoc']!)} (${fmtInt(f['iocFills']!)} fills), ` +
      `cancels ${share(f['cancelled']!)}, cancels too late (404, the order was already taken) ${share(f['cancelMisses']!)}`,
  );
  log(
    `  failures: ${failures} (4xx ${f['status4xx']}, of which 429 ${f['status429']} and 422 ${f['status422']}; ` +
      `5xx ${f['status5xx']}, of which 503 ${f['status503']}; other 2xx ${f['status2xxOther']}; socket errors ${socketErrors(f)})`,
  );
  if (run.firstFailure !== '') log(`  first failure: ${run.firstFailure}`);
  log(`  book after: ${fmtInt(book.orders)} resting orders on ${book.levels} levels, best bid ${book.bestBid}, best ask ${book.bestAsk}`);
  log(`  cpu: server main thread ${cores(run.serverMainCores)} of a core, server process ${cores(run.serverCores)}, wrk ${cores(run.wrkCores)}`);
  log(
    `  group commit: ${fmtInt(run.durableCommands)} commands in ${fmtInt(run.durableBatches)} journal batches ` +
      `(${(run.durableCommands / Math.max(1, run.durableBatches)).toFixed(1)} per batch, ${fmtInt(run.durableBatches / run.seconds)} fsyncs/s)`,
  );
  return result;
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

interface OrderRuns {
  seeded: BookCount;
  closed: OrderRun;
  paced: OrderRun;
  halfRate: number;
  half: OrderRun;
}

async function measureOrders(tmp: string): Promise<OrderRuns> {
  const adminKey = randomBytes(24).toString('base64url');
  const profileDir = join(tmp, 'profile');
  const nodeArgs = serverNodeArgs(values.profile ? profileDir : null);
  const env = { ...process.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: join(tmp, 'data'), ADMIN_API_KEY: adminKey, JOURNAL_SYNC: journalSync };
  const server = await startNode('the order server', nodeArgs, env);
  let stopped = false;
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const api = new Api(url, adminKey);
    const setupStarted = performance.now();
    await checkPair(api, symbol, tickSize, lotSize, 'bench/http.ts');
    const keys = await createKeys(api);
    await seedBook(api, keys);
    const seeded = await bookCount(api, keys[0]!);
    log(
      `order server: journal ${journalSync}, ${usersCount} users x ${keysPerUser} ADMIN keys, seeded ${fmtInt(seeded.orders)} resting orders ` +
        `on ${seeded.levels} levels in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s (best bid ${seeded.bestBid}, best ask ${seeded.bestAsk})`,
    );
    const config = join(tmp, 'orders-config.lua');
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
        `return { keys = { ${keyList} }, symbol = "${symbol}", midTicks = ${midTicks}, depthTicks = ${depthTicks}, ` +
          `cancelBeyondTicks = ${cancelBeyondTicks}, quantity = "${quantity}", rate = ${rate}, threads = ${wrkThreads}, run = ${runNumber} }\n`,
      );
      const before = await api.admin('GET', '/admin/v1/stats', undefined);
      const result = await runWrk(script, url, seconds, pid, [config], rate > 0 ? { BENCH_HTTP_PACED: '1' } : {});
      const after = await api.admin('GET', '/admin/v1/stats', undefined);
      result.durableCommands = (after['durable_commands'] as number) - (before['durable_commands'] as number);
      result.durableBatches = (after['durable_batches'] as number) - (before['durable_batches'] as number);
      return result;
    };
    // Untimed: V8 optimises the request path, and the book settles into the mix's shape.
    await run(warmupS, 0);
    const closedFromUs = monotonicUs();
    const closedRun = await run(durationS, 0);
    const closedToUs = monotonicUs();
    const closed = reportOrders('orders, closed loop (each connection sends when answered)', closedRun, await bookCount(api, keys[0]!));
    const paced = reportOrders(`orders, paced at ${fmtInt(pacedRate)} requests/s offered`, await run(durationS, pacedRate), await bookCount(api, keys[0]!));
    reportPacing(paced, pacedRate);
    // Latency below saturation: half of what the closed loop managed, in thousands.
    const halfRate = Math.max(1000, Math.round(closed.requestsPerS / 2000) * 1000);
    const halfFromUs = monotonicUs();
    const halfRun = await run(durationS, halfRate);
    const halfToUs = monotonicUs();
    const half = reportOrders(`orders, paced at ${fmtInt(halfRate)} requests/s offered (half the closed loop)`, halfRun, await bookCount(api, keys[0]!));
    reportPacing(half, halfRate);
    await stopProcess(server.process);
    stopped = true;
    if (server.process.exitCode !== 0) throw new Error(`the order server exited with ${server.process.exitCode}:\n${server.output.join('')}`);
    if (values.profile) {
      const kept = keepCpuProfile(profileDir, 'bench-http-server');
      for (const line of cpuProfileSummary(kept, 'closed loop', closedFromUs, closedToUs)) log(`  ${line}`);
      for (const line of cpuProfileSummary(kept, `paced at ${fmtInt(halfRate)}/s`, halfFromUs, halfToUs)) log(`  ${line}`);
    }
    return { seeded, closed, paced, halfRate, half };
  } finally {
    if (!stopped) await stopProcess(server.process);
  }
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
  const orders = await measureOrders(tmp);
  const { closed, paced, half } = orders;
  const ratio = closed.placementsPerS / hello.perS;
  const p99PacedMs = paced.run.figures['latencyP99Us']! / 1000;
  const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');
  log();
  log('targets:');
  log(`  >= 100,000 orders/s: ${fmtInt(closed.placementsPerS)} - ${verdict(closed.placementsPerS >= 100_000)}`);
  log(`  >= 0.5 of hello-world: ${ratio.toFixed(2)} (${fmtInt(closed.placementsPerS)} / ${fmtInt(hello.perS)}) - ${verdict(ratio >= 0.5)}`);
  log(
    `  p99 <= 2 ms at ${fmtInt(pacedRate)}/s offered: ${p99PacedMs.toFixed(2)} ms with ${fmtInt(paced.requestsPerS)}/s actually sent - ` +
      verdict(p99PacedMs <= 2 && paced.requestsPerS >= 0.95 * pacedRate),
  );
  log(`total bench time ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
  const problems = [
    failureProblem(closed, 'closed-loop run'),
    failureProblem(paced, `run at ${pacedRate}/s`),
    failureProblem(half, `run at ${orders.halfRate}/s`),
    hello.run.figures['non2xx']! + socketErrors(hello.run.figures) > 0 ? 'hello-world: some requests failed' : null,
  ].filter((problem): problem is string => problem !== null);
  if (values.json) {
    const c = closed.run.figures;
    const p = paced.run.figures;
    const h = half.run.figures;
    console.log(
      JSON.stringify({
        orders_per_s: Math.round(closed.placementsPerS),
        ack_p50_ms: round(c['latencyP50Us']! / 1000, 3),
        ack_p99_ms: round(c['latencyP99Us']! / 1000, 3),
        hello_per_s: Math.round(hello.perS),
        ratio_vs_hello: round(ratio, 3),
        ack_p99_ms_at_50k: round(p99PacedMs, 3),
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
        hello_p50_ms: round(hello.run.figures['latencyP50Us']! / 1000, 3),
        hello_p99_ms: round(hello.run.figures['latencyP99Us']! / 1000, 3),
        book_orders_start: orders.seeded.orders,
        book_orders_after_closed_loop: closed.book.orders,
        book_orders_end: half.book.orders,
        failed_requests: closed.failures + paced.failures + half.failures,
        cancel_misses: c['cancelMisses']! + p['cancelMisses']! + h['cancelMisses']!,
        server_main_thread_cores: round(closed.run.serverMainCores, 2),
        server_process_cores: round(closed.run.serverCores, 2),
        wrk_cores: round(closed.run.wrkCores, 2),
        commands_per_batch: round(closed.run.durableCommands / Math.max(1, closed.run.durableBatches), 1),
        hello_server_cores: round(hello.run.serverCores, 2),
        hello_wrk_cores: round(hello.run.wrkCores, 2),
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
