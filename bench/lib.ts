/**
 * Helpers shared by the benches that drive the order server as a child process over the network
 * (bench/http.ts and bench/ws.ts): building and starting the server bundle, starting and stopping Node
 * children, CPU time from /proc, the setup API client, formatting, a seeded generator, a latency
 * histogram, clocks that agree across processes, and a summary of a `node --cpu-prof` profile.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const startTimeoutMs = 60_000;
const stopTimeoutMs = 30_000;
/** Output of a child kept for the error message when it fails (chunks). */
const childOutputChunksMax = 200;

export function log(line = ''): void {
  process.stdout.write(line + '\n');
}

export function fmtInt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** The nearest-rank percentile of ascending `sorted` values (`fraction` 0.99 for p99); 0 when there are none. */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

export function positiveInteger(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

// -------------------------------------------------------------------------------------------------
// Child processes

export interface Child {
  readonly process: ChildProcess;
  readonly port: number;
  /** The child's first output, for the error message if it fails. */
  readonly output: string[];
}

/**
 * Runs `node nodeArgs…`, through `bash -c 'ulimit -n …; exec node …'` when `fileLimit` is given so that
 * the child may hold that many descriptors (the exec keeps the pid, so /proc figures still name node).
 */
export function spawnNode(nodeArgs: string[], options: { env: NodeJS.ProcessEnv; fileLimit?: number; ipc?: boolean }): ChildProcess {
  const stdio = options.ipc === true ? (['ignore', 'pipe', 'pipe', 'ipc'] as const) : (['ignore', 'pipe', 'pipe'] as const);
  const common = { cwd: root, env: options.env, stdio: [...stdio], serialization: 'advanced' as const };
  if (options.fileLimit === undefined) return spawn(process.execPath, nodeArgs, common);
  return spawn('bash', ['-c', `ulimit -n ${options.fileLimit} && exec "$@"`, 'bash', process.execPath, ...nodeArgs], common);
}

/**
 * Starts a Node child that logs JSON lines on stdout and resolves once it logs `listening` with the port
 * it bound (PORT=0 picks a free one).
 */
export function startNode(label: string, nodeArgs: string[], env: NodeJS.ProcessEnv, fileLimit?: number): Promise<Child> {
  const child = spawnNode(nodeArgs, fileLimit === undefined ? { env } : { env, fileLimit });
  const output: string[] = [];
  const keep = (chunk: Buffer): void => {
    if (output.length < childOutputChunksMax) output.push(chunk.toString('utf8'));
  };
  return new Promise((resolveChild, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not log listening within ${startTimeoutMs} ms:\n${output.join('')}`)), startTimeoutMs);
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      pending += chunk.toString('utf8');
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (!line.startsWith('{')) continue;
        const event = JSON.parse(line) as { event?: string; port?: number };
        if (event.event === 'listening' && typeof event.port === 'number') {
          clearTimeout(timer);
          resolveChild({ process: child, port: event.port, output });
        }
      }
    });
    child.stderr!.on('data', keep);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code ?? signal}) before listening:\n${output.join('')}`));
    });
  });
}

/** SIGTERM, then wait for the exit (the order server makes everything durable and snapshots first). */
export async function stopProcess(running: ChildProcess): Promise<void> {
  if (running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise<void>((done) => running.once('exit', () => done()));
  running.kill('SIGTERM');
  const timer = setTimeout(() => running.kill('SIGKILL'), stopTimeoutMs);
  await exited;
  clearTimeout(timer);
}

/** `stopProcess`, then wait until its stdout has closed, so that what it printed on its way out is read. */
export async function stopProcessAndOutput(running: ChildProcess): Promise<void> {
  await stopProcess(running);
  const stdout = running.stdout;
  if (stdout !== null && !stdout.closed) await new Promise((closed) => stdout.once('close', closed));
}

/** CPU seconds of a process, or of one of its threads, in user and kernel mode, from /proc; NaN once it is gone. */
export function cpuTimes(pid: number, tid?: number): { user: number; system: number } {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  try {
    const stat = readFileSync(path, 'utf8');
    // The fields after the command name (which may hold spaces) start after its closing parenthesis;
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** CPU seconds (user + system) of a process, or of one of its threads; NaN once it is gone. */
export function cpuSeconds(pid: number, tid?: number): number {
  const times = cpuTimes(pid, tid);
  return times.user + times.system;
}

/**
 * Resident memory of a process from /proc/PID/status: now (VmRSS) and the most it has held since it
 * started (VmHWM), in bytes; NaN once it is gone.
 */
export function residentBytes(pid: number): { nowBytes: number; peakBytes: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kibOf = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { nowBytes: 1024 * kibOf('VmRSS'), peakBytes: 1024 * kibOf('VmHWM') };
  } catch {
    return { nowBytes: Number.NaN, peakBytes: Number.NaN };
  }
}

/** Busy and total CPU seconds of the whole machine, summed over its CPUs (/proc/stat's first line). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  // user nice system idle iowait irq softirq steal …, in USER_HZ; idle and iowait are the idle time.
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = fields[3]! + fields[4]!;
  return { busy: (total - idle) / 100, total: total / 100 };
}

export function cores(value: number): string {
  return Number.isNaN(value) ? '?' : `${Math.round(value * 100)}%`;
}

// -------------------------------------------------------------------------------------------------
// The order server

/**
 * The order server as `npm start` runs it: the esbuild bundle of shell/server.ts that scripts/build.mjs
 * writes, relative to the repository root. Not tsx: its keepNames wraps every named closure in a
 * defineProperty call each time the closure is created, which would make the request path measured here
 * slower than the one that is deployed.
 */
export const serverBundle = 'dist/shell/server.mjs';

/** Builds the server bundle and its source map (`${serverBundle}.map`, which the profile summary reads). */
export function buildServer(): void {
  const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) throw new Error('the server bundle did not build (scripts/build.mjs)');
}

/**
 * Node's arguments that run the order server (this checkout's bundle, or another build's); with a
 * `profileDir`, under the CPU profiler writing there.
 */
export function serverNodeArgs(profileDir: string | null, bundle = serverBundle): string[] {
  return [...(profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]), bundle];
}

/**
 * Copies the profile the server wrote into `profileDir` to the system's tmp, since the bench removes its
 * own directory, and prints where; returns the copy's path.
 */
export function keepCpuProfile(profileDir: string, prefix: string): string {
  return keepCpuProfiles(profileDir, prefix).main;
}

/**
 * Node writes one profile per thread (CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile): the main
 * thread's has thread id 0, each worker thread's (the read models' writer, the AMM workers) its own.
 * Copies them all to the system's tmp like `keepCpuProfile`; returns the main thread's and the workers'.
 */
export function keepCpuProfiles(profileDir: string, prefix: string): { main: string; workers: string[] } {
  const files = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
  const threadOf = (name: string): number => Number(name.split('.')[4] ?? '0');
  const mainFile = files.find((name) => threadOf(name) === 0) ?? files[0];
  if (mainFile === undefined) throw new Error('the server wrote no CPU profile');
  const stamp = Date.now();
  const keep = (name: string, suffix: string): string => {
    const kept = join(os.tmpdir(), `${prefix}${suffix}-${stamp}.cpuprofile`);
    copyFileSync(join(profileDir, name), kept);
    return kept;
  };
  const main = keep(mainFile, '');
  log(`server CPU profile (kept): ${main}`);
  const workers = files.filter((name) => name !== mainFile).map((name) => keep(name, `-thread-${threadOf(name)}`));
  for (const worker of workers) log(`worker thread CPU profile (kept): ${worker}`);
  return { main, workers };
}

// -------------------------------------------------------------------------------------------------
// Setup over HTTP

export class Api {
  constructor(
    private readonly base: string,
    private readonly adminKey: string,
  ) {}

  async call(method: string, path: string, body: unknown, headers: Record<string, string>, expected: readonly number[]): Promise<Record<string, unknown>> {
    const response = await fetch(this.base + path, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  }

  admin(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    return this.call(method, path, body, { 'X-API-Key': this.adminKey }, [200, 201]);
  }
}

/**
 * Fails unless the pair `symbol` has the tick and lot the bench's prices and quantities are written for,
 * so that a changed fixture fails here and not as 422s under load.
 */
export async function checkPair(api: Api, symbol: string, tickSize: string, lotSize: string, bench: string): Promise<void> {
  const answer = await api.call('GET', '/api/v1/exchange/pairs', undefined, {}, [200]);
  const pair = (answer['pairs'] as Array<Record<string, unknown>>).find((candidate) => String(candidate['slug']).toLowerCase() === symbol);
  if (pair === undefined) throw new Error(`no pair ${symbol} in /api/v1/exchange/pairs`);
  if (pair['tick_size'] !== tickSize || pair['lot_size'] !== lotSize) {
    throw new Error(`${bench} assumes tick ${tickSize} and lot ${lotSize} for ${symbol}; the server has ${String(pair['tick_size'])} and ${String(pair['lot_size'])}`);
  }
}

export interface Funding {
  readonly asset: string;
  readonly amount: string;
}

/**
 * Registers a user, creates `keys` API keys with read and trade, raises them to the ADMIN tier (600 000 order
 * requests a minute each) and credits the funding; returns the keys.
 */
export async function createTrader(api: Api, name: string, keys: number, funding: readonly Funding[]): Promise<string[]> {
  const account = { email: `${name}@example.com`, password: 'bench password', username: name };
  const registered = await api.call('POST', '/auth/register', account, {}, [201]);
  const bearer = { Authorization: `Bearer ${String(registered['access_token'])}` };
  const created: string[] = [];
  for (let index = 0; index < keys; index++) {
    const key = await api.call('POST', '/api/v1/api-keys', { key_name: `bench ${index}`, permissions: ['read', 'trade'] }, bearer, [201]);
    await api.admin('PATCH', `/admin/v1/api-keys/${String(key['api_key_id'])}`, { tier: 'ADMIN' });
    created.push(String(key['api_key']));
  }
  for (const { asset, amount } of funding) await api.admin('POST', '/admin/v1/credit', { user_id: registered['user_id'], asset, amount });
  return created;
}

/** Ticks of a 0.01 grid as the decimal text the API takes. */
export function priceText(ticks: number): string {
  return `${Math.floor(ticks / 100)}.${String(ticks % 100).padStart(2, '0')}`;
}

/** A small seeded generator (mulberry32), so every run draws the same numbers. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// -------------------------------------------------------------------------------------------------
// Clocks

/** performance.now() is CLOCK_MONOTONIC less a per-process origin; this adds the origin back. */
const monotonicOriginMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();

/**
 * Microseconds of CLOCK_MONOTONIC, the clock process.hrtime reads: the same in every process on the
 * machine, so a time taken in one process can be subtracted from one taken in another. Read through
 * performance.now(), which allocates no BigInt.
 */
export function monotonicUs(): number {
  return (performance.now() + monotonicOriginMs) * 1000;
}

/**
 * Wall-clock microseconds minus monotonicUs(), taken at the moment Date.now() steps to a new millisecond,
 * so that wall-clock time is known to about a microsecond rather than Date.now()'s millisecond.
 */
export function wallMinusMonotonicUs(): number {
  const start = Date.now();
  let now = start;
  while (now === start) now = Date.now();
  return now * 1000 - monotonicUs();
}

// -------------------------------------------------------------------------------------------------
// Latency histogram

/** Values below this many microseconds have a bucket each; above, each power of two has `subBuckets`. */
const exactBelowUs = 256;
/** 128 buckets per power of two: a bucket's width is under 0.8 % of its values. */
const subBucketBits = 7;
const subBuckets = 1 << subBucketBits;
/** Values are clamped below 2^31 µs (about 36 minutes). */
const valueMaxUs = 2 ** 31 - 1;
export const histogramBuckets = exactBelowUs + (31 - subBucketBits - 1) * subBuckets;

function bucketOf(valueUs: number): number {
  const value = Math.min(valueMaxUs, Math.max(0, Math.floor(valueUs)));
  if (value < exactBelowUs) return value;
  const shift = 31 - Math.clz32(value) - subBucketBits;
  return exactBelowUs + (shift - 1) * subBuckets + ((value >>> shift) - subBuckets);
}

/** The middle of a bucket's range of values. */
function bucketMiddleUs(bucket: number): number {
  if (bucket < exactBelowUs) return bucket;
  const offset = bucket - exactBelowUs;
  const shift = Math.floor(offset / subBuckets) + 1;
  const low = ((offset % subBuckets) + subBuckets) * 2 ** shift;
  return low + (2 ** shift - 1) / 2;
}

/** What a Histogram sends between processes. */
export interface HistogramData {
  counts: Float64Array;
  maxUs: number;
}

/** Counts of latencies in microseconds, log-linear buckets (about 0.4 % error), exact maximum. */
export class Histogram {
  readonly counts: Float64Array;
  total = 0;
  maxUs = 0;

  constructor(data?: HistogramData) {
    this.counts = new Float64Array(histogramBuckets);
    if (data !== undefined) this.merge(data);
  }

  record(valueUs: number): void {
    this.counts[bucketOf(valueUs)]!++;
    this.total++;
    if (valueUs > this.maxUs) this.maxUs = valueUs;
  }

  merge(data: HistogramData): void {
    if (data.counts.length !== histogramBuckets) throw new Error('histogram of another layout');
    for (let bucket = 0; bucket < histogramBuckets; bucket++) {
      const count = data.counts[bucket]!;
      this.counts[bucket]! += count;
      this.total += count;
    }
    if (data.maxUs > this.maxUs) this.maxUs = data.maxUs;
  }

  /** The value (µs) at quantile `q` in 0..1: the middle of the bucket that holds it; NaN when empty. */
  quantileUs(q: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let bucket = 0; bucket < histogramBuckets; bucket++) {
      seen += this.counts[bucket]!;
      if (seen >= rank) return Math.min(this.maxUs, bucketMiddleUs(bucket));
    }
    return this.maxUs;
  }

  /** How many values exceeded `limitUs` (counted by bucket: exact to the bucket's width). */
  countAboveUs(limitUs: number): number {
    let count = 0;
    for (let bucket = bucketOf(limitUs) + 1; bucket < histogramBuckets; bucket++) count += this.counts[bucket]!;
    return count;
  }

  data(): HistogramData {
    return { counts: this.counts, maxUs: this.maxUs };
  }
}

// -------------------------------------------------------------------------------------------------
// CPU profile summary (node --cpu-prof)

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A position in a source file; `line` counts from 1. */
interface SourcePosition {
  file: string;
  line: number;
}

/** A file URL or path as the summary shows it: relative to the repository, or to node_modules for a package. */
function shortPath(urlOrPath: string): string {
  return urlOrPath.replace(`file://${root}/`, '').replace(`${root}/`, '').replace(/^.*node_modules\//, '');
}

/**
 * Maps a position in the server bundle (serverBundle, what `npm start` runs) back to its source file and
 * line through the bundle's source map; null for code outside the bundle, which is shown as it is.
 */
function bundlePositions(bundle: string): (url: string, line: number, column: number) => SourcePosition | null {
  const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
  return (url, line, column) => {
    if (url !== `file://${bundle}`) return null;
    const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number };
    if (entry.originalSource === undefined || entry.originalLine === undefined) return null;
    const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : resolve(dirname(bundle), entry.originalSource);
    return { file: shortPath(source), line: entry.originalLine + 1 };
  };
}

/** Rows of each table of a profile summary. */
const profileRows = 16;

/**
 * Where the order server's main thread was during [fromUs, toUs] (monotonicUs(), the clock V8's profiler
 * stamps its samples with): samples summed by function and by source file, self time only. Positions in
 * the bundle are mapped to source lines. Native code called from JavaScript (uWS writes and the socket
 * send under them, JSON, hashing) is counted in the function that called it; `(idle)` is the thread
 * waiting in epoll.
 */
export function cpuProfileSummary(path: string, label: string, fromUs: number, toUs: number, bundle = join(root, serverBundle)): string[] {
  return cpuProfileSummaryOf(path, label, [[fromUs, toUs]], bundle);
}

/** The same over several windows (bench:ws times the order server in turns with its baseline). */
export function cpuProfileSummaryOf(path: string, label: string, windows: ReadonlyArray<readonly [number, number]>, bundle = join(root, serverBundle)): string[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const positionOf = bundlePositions(bundle);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string): void => void counts.set(key, (counts.get(key) ?? 0) + 1);
  let at = profile.startTime;
  let total = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index]!;
    if (!windows.some(([fromUs, toUs]) => at >= fromUs && at <= toUs)) continue;
    total++;
    const frame = byId.get(profile.samples[index]!)!.callFrame;
    const position = positionOf(frame.url, frame.lineNumber, frame.columnNumber);
    const file = position?.file ?? shortPath(frame.url);
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    const line = position?.line ?? 0;
    add(byFunction, file === '' ? name : `${name}  ${file}${line > 0 ? `:${line}` : ''}`);
    add(byFile, file === '' ? name : file);
  }
  const rows = (counts: Map<string, number>): string[] =>
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, profileRows)
      .map(([name, samples]) => `  ${((100 * samples) / Math.max(1, total)).toFixed(1).padStart(5)}%  ${name}`);
  return [`${label}: ${fmtInt(total)} samples of the main thread; self time by function:`, ...rows(byFunction), 'self time by file:', ...rows(byFile)];
}
