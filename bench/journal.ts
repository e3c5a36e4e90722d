/**
 * Journal benchmark: durable throughput with group commit, acknowledgement latency at a constant offered
 * rate, replay speed from disk, snapshot write and load times and memory for 1 M resting orders.
 *
 *   npm run bench:journal [-- --json] [-- --sync none]
 *
 * Streams are the exchange-core style mix of bench/streams.ts (ETH/USDC, 10 k resting orders), generated
 * before timing. The journal lives in a temporary directory on the same disk as the system's tmp; the
 * figures depend on that disk's fdatasync latency, so they are printed with it.
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../engine/core/commands.ts';
import { Engine } from '../engine/core/engine.ts';
import { Result } from '../engine/core/results.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import { readJournal } from '../engine/journal/reader.ts';
import { defaultZeroAheadBytes, SegmentWriter, type SyncMode } from '../engine/journal/segments.ts';
import { recordsBuffer } from '../engine/core/order-store.ts';
import { encodeSnapshot, finishSnapshot, loadSnapshotFile, spareAfter, takeSnapshotAt, takenTransfers, writeSnapshotFile } from '../engine/journal/snapshot-file.ts';
import { DurableEngine } from '../engine/runtime/durable-engine.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { SequencerBusyError, type Outcome } from '../engine/runtime/sequencer.ts';
import { createBenchEngine, exchangeCoreMix } from './streams.ts';
import { percentile } from './lib.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    sync: { type: 'string', default: 'sync' },
    commands: { type: 'string', default: '2000000' },
    only: { type: 'string', default: 'durable,ack,snapshot' },
  },
});
const syncMode = values.sync as SyncMode;
if (syncMode !== 'sync' && syncMode !== 'none') throw new Error('--sync must be sync or none');
const commandCount = Number(values.commands);
const markets = loadMarkets();
const engineLimits = { openOrdersPerAccountMax: 1_000_000, ordersMax: 8_000_000, bookOrdersMax: 4_000_000 };
const gc = (globalThis as { gc?: () => void }).gc;

function log(line: string): void {
  if (!values.json) console.log(line);
  else console.error(line);
}

function nowNs(): number {
  return Number(process.hrtime.bigint());
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function openDurable(dataDir: string): DurableEngine {
  return DurableEngine.open({
    dataDir,
    engine: { markets, limits: engineLimits },
    syncMode,
    snapshotEveryCommands: Number.MAX_SAFE_INTEGER,
    snapshotEveryMs: Number.MAX_SAFE_INTEGER,
  });
}

/**
 * Submits commands as fast as the sequencer takes them, a batch's worth per turn of the event loop so the
 * journal's callbacks can run; resolves when every one is answered.
 */
async function submitAll(durable: DurableEngine, commands: readonly Command[]): Promise<{ busy: number; refused: number }> {
  let busy = 0;
  let refused = 0;
  let answered = 0;
  let index = 0;
  const retry: Command[] = [];
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  const onOutcome = (outcome: Outcome): void => {
    if (outcome.error !== null) {
      if (!(outcome.error instanceof SequencerBusyError)) throw outcome.error;
      busy++;
      retry.push(outcome.token as Command);
      return;
    }
    if (outcome.seq === 0) refused++;
    if (++answered === commands.length) finished();
  };
  const pump = (): void => {
    for (let sent = 0; sent < 8192 && (retry.length > 0 || index < commands.length); sent++) {
      const command = retry.length > 0 ? retry.pop()! : commands[index++]!;
      durable.enqueue(command, onOutcome, command);
    }
    if (index < commands.length || retry.length > 0) setImmediate(pump);
  };
  if (commands.length === 0) return { busy, refused };
  pump();
  await done;
  return { busy, refused };
}

async function durableThroughput(): Promise<{ cmdsPerS: number; dataDir: string; hash: string; journaled: number }> {
  const scenario = exchangeCoreMix({ markets, seed: 41, resting: 10_000, commands: commandCount });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-journal-'));
  const durable = openDurable(dataDir);
  await submitAll(durable, scenario.setup);
  const started = nowNs();
  const { busy, refused } = await submitAll(durable, scenario.stream);
  const seconds = (nowNs() - started) / 1e9;
  const hash = stateHash(durable.engine);
  const journaled = durable.sequencer.lastSeq;
  if (hash !== scenario.expectedHash) throw new Error('the durable run did not reach the oracle state');
  await durable.sequencer.close();
  const cmdsPerS = scenario.stream.length / seconds;
  log(`durable (${syncMode}): ${scenario.stream.length} commands in ${seconds.toFixed(2)} s = ${Math.round(cmdsPerS)} cmds/s ` + `(${refused} refused and answered at once, ${busy} busy retries; ${journaled} journaled in all)`);
  return { cmdsPerS, dataDir, hash, journaled };
}

/**
 * The disk's own floor under acknowledgement latency: 4 KiB O_DSYNC writes (what one batch costs) in a
 * loop for two seconds. No journal can acknowledge faster than the disk makes a write durable.
 */
function diskFloor(): { p50Us: number; p99Us: number; maxUs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-disk-'));
  try {
    const fd = openSync(join(dir, 'probe'), constants.O_WRONLY | constants.O_CREAT | constants.O_DSYNC);
    const block = Buffer.alloc(4096, 7);
    const samples: number[] = [];
    const until = nowNs() + 2e9;
    for (let offset = 0; nowNs() < until; offset += block.length) {
      const started = nowNs();
      writeSync(fd, block, 0, block.length, offset);
      samples.push(nowNs() - started);
    }
    closeSync(fd);
    const sorted = Float64Array.from(samples).sort();
    const floor = { p50Us: percentile(sorted, 0.5) / 1000, p99Us: percentile(sorted, 0.99) / 1000, maxUs: sorted[sorted.length - 1]! / 1000 };
    log(`disk floor: ${sorted.length} O_DSYNC 4 KiB appends: p50 ${floor.p50Us.toFixed(0)} us, p99 ${floor.p99Us.toFixed(0)} us, max ${floor.maxUs.toFixed(0)} us`);
    return floor;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The journal writer's batches against that floor, paced as a lightly loaded sequencer writes them: a
 * 4 KiB batch every 2 ms (each waits for the one before), for two seconds, through the segment writer in
 * sync mode, once with its zeros ahead of the frames (written in the pauses) and once without (each batch
 * grows the file, so its sync also commits the new size). See engine/journal/segments.ts.
 */
async function segmentWrites(zeroAheadBytes: number): Promise<{ p50Us: number; p99Us: number; maxUs: number; zeroWrites: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-segment-'));
  try {
    const writer = new SegmentWriter(dir, 'sync', undefined, zeroAheadBytes);
    const block = Buffer.alloc(4096, 7);
    const samples: number[] = [];
    const started = nowNs();
    for (let seq = 1; nowNs() - started < 2e9; seq++) {
      const slot = started + (seq - 1) * 2e6;
      const wait = (slot - nowNs()) / 1e6;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const issued = nowNs();
      await new Promise<void>((resolve, reject) => writer.append(block, seq, (error) => (error === null ? resolve() : reject(error))));
      samples.push(nowNs() - issued);
    }
    const zeroWrites = writer.zeroWrites;
    while (writer.busy) await new Promise((resolve) => setTimeout(resolve, 1));
    writer.close();
    const sorted = Float64Array.from(samples).sort();
    const figures = { p50Us: percentile(sorted, 0.5) / 1000, p99Us: percentile(sorted, 0.99) / 1000, maxUs: sorted[sorted.length - 1]! / 1000, zeroWrites };
    const how = zeroAheadBytes > 0 ? `onto zeros written ahead in the pauses (${zeroWrites} pieces)` : 'growing the file';
    log(`journal writer, a 4 KiB batch every 2 ms ${how}: ${sorted.length} batches, p50 ${figures.p50Us.toFixed(0)} us, p99 ${figures.p99Us.toFixed(0)} us, max ${figures.maxUs.toFixed(0)} us`);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ackLatency(): Promise<{ p50Us: number; p99Us: number; offered: number }> {
  const offeredPerS = 100_000;
  const seconds = 3;
  // The first second is warm-up (code optimised, first segment created, thread pool started) and not
  // recorded: its one-off costs would otherwise be the whole p99.
  const warmup = offeredPerS;
  const count = offeredPerS * seconds + warmup;
  const scenario = exchangeCoreMix({ markets, seed: 43, resting: 10_000, commands: count, skipHash: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ack-'));
  try {
    const durable = openDurable(dataDir);
    await submitAll(durable, scenario.setup);
    const latencies = new Float64Array(count);
    let answered = 0;
    const intervalNs = 1e9 / offeredPerS;
    const started = nowNs();
    const onOutcome = (outcome: Outcome): void => {
      const at = outcome.token as number;
      latencies[at] = outcome.error === null ? nowNs() - (started + at * intervalNs) : Number.POSITIVE_INFINITY;
      answered++;
    };
    let sent = 0;
    while (sent < count) {
      const due = Math.min(count, Math.floor((nowNs() - started) / intervalNs) + 1);
      for (; sent < due; sent++) durable.enqueue(scenario.stream[sent]!, onOutcome, sent);
      await tick();
    }
    while (answered < count) await tick();
    await durable.sequencer.close();
    const recorded = latencies.subarray(warmup).sort();
    const p50Us = percentile(recorded, 0.5) / 1000;
    const p99Us = percentile(recorded, 0.99) / 1000;
    log(
      `ack latency at ${offeredPerS} cmds/s offered (${syncMode}), ${recorded.length} commands after 1 s of warm-up: ` +
        `p50 ${p50Us.toFixed(0)} us, p99 ${p99Us.toFixed(0)} us, max ${(recorded[recorded.length - 1]! / 1000).toFixed(0)} us`,
    );
    return { p50Us, p99Us, offered: offeredPerS };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function replay(dataDir: string, hash: string, journaled: number): number {
  // Twice: the first run warms the code up; the second is reported.
  let cmdsPerS = 0;
  for (let run = 0; run < 2; run++) {
    const engine = createBenchEngine(markets);
    const started = nowNs();
    const summary = readJournal(join(dataDir, 'journal'), (command) => {
      if (engine.apply(command) !== Result.ok) throw new Error(`replay refused seq ${command.seq}`);
    });
    const seconds = (nowNs() - started) / 1e9;
    if (summary.commands !== journaled || stateHash(engine) !== hash) throw new Error('replay did not reach the live state');
    cmdsPerS = summary.commands / seconds;
    if (run === 1) log(`replay from disk: ${summary.commands} commands (${(summary.bytes / 1048576).toFixed(0)} MiB) in ${seconds.toFixed(2)} s = ${Math.round(cmdsPerS)} cmds/s`);
  }
  return cmdsPerS;
}

/** Builds an engine holding `resting` orders from the benchmark's setup commands. */
function engineWithResting(resting: number): Engine {
  const scenario = exchangeCoreMix({ markets, seed: 47, resting, commands: 1, skipHash: true });
  const engine = createBenchEngine(markets);
  for (const command of scenario.setup) engine.apply(command);
  return engine;
}

/**
 * What a snapshot costs the engine's thread when the server's worker writes it (DurableEngine with a
 * worker): `takeSnapshotAt` (the copies) and the structured clone that transfers the copied records to
 * the worker (a postMessage makes the same clone; here its receiving half is timed too), for a first
 * snapshot into a fresh records buffer, for one into a buffer prepared as the worker prepares it (pages
 * written, off the clock: what a server started on a large book, or whose book outgrew its buffer, copies
 * into), and the median of three more that copy into the buffer the worker side hands back. The worker's
 * side (`finishSnapshot`, untimed) must give the engine's state hash. Milliseconds.
 */
function orderThreadPart(engine: Engine): { firstMs: number; reservedMs: number; reusedMs: number } {
  const hash = stateHash(engine);
  const times: number[] = [];
  let spare: ArrayBuffer | null = null;
  for (let round = 0; round < 5; round++) {
    // Round 1 prepares its buffer as the worker does, before the clock starts; in the server it arrives at
    // start, long before the first snapshot, so the collection that accounts for it is not on the clock either.
    if (round === 1) {
      spare = recordsBuffer(engine.orders.copyBytes, true);
      gc?.();
    }
    const started = nowNs();
    const taken = takeSnapshotAt(engine, 1, spare);
    const received = structuredClone(taken, { transfer: takenTransfers(taken) });
    times.push((nowNs() - started) / 1e6);
    if (finishSnapshot(received).stateHash !== hash) throw new Error('the worker side of the snapshot hashed otherwise');
    spare = round === 0 ? null : spareAfter(received);
  }
  const reused = times.slice(2).sort((a, b) => a - b);
  return { firstMs: times[0]!, reservedMs: times[1]!, reusedMs: reused[1]! };
}

/** Writes the snapshot of a 1 M-order engine; returns its path, hash, size and the seconds it took. */
function writeLargeSnapshot(dir: string): { path: string; hash: string; bytes: number; resting: number; seconds: number; takeFirstMs: number; takeReservedMs: number; takeMs: number } {
  const engine = engineWithResting(1_000_000);
  const resting = engine.contexts[0]!.book.orderCount;
  const started = nowNs();
  const encoded = encodeSnapshot(engine, 1);
  const path = writeSnapshotFile(dir, 1, encoded.bytes);
  const seconds = (nowNs() - started) / 1e9;
  const part = orderThreadPart(engine);
  return { path, hash: encoded.stateHash, bytes: encoded.bytes.length, resting, seconds, takeFirstMs: part.firstMs, takeReservedMs: part.reservedMs, takeMs: part.reusedMs };
}

/** Full collections until array buffers freed by the sweeper are really gone, so memory figures settle. */
async function settle(): Promise<void> {
  for (let round = 0; round < 3; round++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function snapshots(): Promise<{ writeS: number; loadS: number; heapBytes: number; arrayBufferBytes: number; takeFirstMs: number; takeReservedMs: number; takeMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-snapshot-'));
  try {
    const written = writeLargeSnapshot(dir);
    // Memory is measured around the loaded engine alone: everything used to build the snapshot is garbage now.
    await settle();
    const before = process.memoryUsage();
    const started = nowNs();
    const loaded = createBenchEngine(markets);
    const result = loadSnapshotFile(written.path, loaded);
    const loadS = (nowNs() - started) / 1e9;
    if (result.stateHash !== written.hash || loaded.contexts[0]!.book.orderCount !== written.resting) {
      throw new Error('snapshot did not load to the same state');
    }
    await settle();
    const after = process.memoryUsage();
    const heapBytes = after.heapUsed - before.heapUsed;
    const arrayBufferBytes = after.arrayBuffers - before.arrayBuffers;
    log(
      `snapshot of ${written.resting} resting orders: ${(written.bytes / 1048576).toFixed(0)} MiB, write ${written.seconds.toFixed(2)} s, ` +
        `load ${loadS.toFixed(2)} s; memory of the loaded engine: ${(heapBytes / 1048576).toFixed(0)} MiB JS heap + ` +
        `${(arrayBufferBytes / 1048576).toFixed(0)} MiB typed arrays` +
        (gc === undefined ? ' (run with --expose-gc for exact figures)' : ''),
    );
    log(
      `snapshot handed to the writer's thread: the engine's thread held ${written.takeFirstMs.toFixed(1)} ms for the first ` +
        `(a fresh records buffer), ${written.takeReservedMs.toFixed(1)} ms for the first into a buffer the worker prepared, ` +
        `${written.takeMs.toFixed(1)} ms when copying into the buffer handed back (median of 3)`,
    );
    // The loaded engine must still be reachable when memory is read.
    if (loaded.orders.liveCount !== written.resting) throw new Error('lost orders');
    return { writeS: written.seconds, loadS, heapBytes, arrayBufferBytes, takeFirstMs: written.takeFirstMs, takeReservedMs: written.takeReservedMs, takeMs: written.takeMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const stages = new Set(values.only.split(','));
log(`node ${process.version}, journal sync mode ${syncMode}, tmp ${tmpdir()}; figures from one run`);
const figures: Record<string, number | string> = { sync_mode: syncMode };
if (stages.has('durable')) {
  const durable = await durableThroughput();
  figures['durable_cmds_per_s'] = Math.round(durable.cmdsPerS);
  figures['replay_cmds_per_s'] = Math.round(replay(durable.dataDir, durable.hash, durable.journaled));
  rmSync(durable.dataDir, { recursive: true, force: true });
}
if (stages.has('ack')) {
  const floor = diskFloor();
  figures['disk_write_p50_us'] = Math.round(floor.p50Us);
  figures['disk_write_p99_us'] = Math.round(floor.p99Us);
  figures['disk_write_max_us'] = Math.round(floor.maxUs);
  const growing = await segmentWrites(0);
  const zeros = await segmentWrites(defaultZeroAheadBytes);
  figures['segment_grow_p50_us'] = Math.round(growing.p50Us);
  figures['segment_grow_p99_us'] = Math.round(growing.p99Us);
  figures['segment_zeros_p50_us'] = Math.round(zeros.p50Us);
  figures['segment_zeros_p99_us'] = Math.round(zeros.p99Us);
  const ack = await ackLatency();
  figures['ack_p50_us'] = Math.round(ack.p50Us);
  figures['ack_p99_us'] = Math.round(ack.p99Us);
}
if (stages.has('snapshot')) {
  const snapshot = await snapshots();
  figures['snapshot_write_s'] = Number(snapshot.writeS.toFixed(3));
  figures['snapshot_load_s'] = Number(snapshot.loadS.toFixed(3));
  figures['snapshot_take_first_ms'] = Number(snapshot.takeFirstMs.toFixed(1));
  figures['snapshot_take_reserved_ms'] = Number(snapshot.takeReservedMs.toFixed(1));
  figures['snapshot_take_ms'] = Number(snapshot.takeMs.toFixed(1));
  figures['heap_bytes_1m'] = snapshot.heapBytes + snapshot.arrayBufferBytes;
  figures['js_heap_bytes_1m'] = snapshot.heapBytes;
  figures['typed_array_bytes_1m'] = snapshot.arrayBufferBytes;
}
if (values.json) console.log(JSON.stringify(figures));
