/**
 * The durable engine: recovery on open, the sequencer while running, snapshots, and a clean close.
 *
 * Open: remove the temporary files of snapshot writes that never finished, load the newest valid snapshot
 * (its state hash verified; a bad one is skipped for an older one),
 * replay the journal after it with seq continuity checked, cut off a torn tail, and continue the last
 * segment (or start a new one when an older format version wrote it). Every replayed command must be accepted again, as it was when journaled; anything else means
 * the journal and the code disagree and the start stops.
 *
 * Snapshots are taken every `snapshotEveryCommands` commands or `snapshotEveryMs` of clock time, and on
 * close. A snapshot may cover commands whose batch is still syncing; its file is written only once they
 * are durable, so a snapshot on disk never holds anything the journal could lose. With `startWorker` (the
 * server) the engine's thread only takes the snapshot (a copy of the state, its orders as the order
 * records' bytes, and the words its hash ends with) and a worker thread builds the orders' columns from the
 * copy, hashes, encodes and writes it (snapshot-worker.ts), one at a time, handing the records' buffer
 * back for the next copy; segments are pruned once the worker has written it. Without, all of it happens
 * on the engine's thread, the columns read from the engine directly.
 */
import { mkdirSync, unlinkSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import type { Command } from '../core/commands.ts';
import { Engine, type EngineOptions } from '../core/engine.ts';
import { nullSink, type EngineEvent } from '../core/events.ts';
import { Result, resultCode, type ResultCode } from '../core/results.ts';
import { stateHash } from '../core/state-hash.ts';
import { readJournal } from '../journal/reader.ts';
import { journalFormatVersion } from '../journal/codec.ts';
import { useRulesOf } from '../journal/rules.ts';
import { SegmentWriter, defaultSegmentBytesMax, listSegments, type SyncMode } from '../journal/segments.ts';
import { encodeSnapshot, loadNewestSnapshot, pruneSnapshots, removeUnfinishedSnapshots, takeSnapshotAt, takenTransfers, writeSnapshotFile } from '../journal/snapshot-file.ts';
import type { FromSnapshotWorker, SnapshotWorkerInput, ToSnapshotWorker } from './snapshot-worker.ts';
import { platformDomains } from '../domains/index.ts';
import { recordsByteOffset } from './memory.ts';
import { Outcome, Sequencer, SequencerClosedError, type DurableBatch, type JournalWriter, type OutcomeCallback, type Submission } from './sequencer.ts';
import { TapeReader } from './event-tape.ts';

export interface DurableEngineOptions {
  readonly dataDir: string;
  readonly engine: Omit<EngineOptions, 'sink'>;
  readonly syncMode?: SyncMode;
  readonly segmentBytesMax?: number;
  readonly snapshotEveryCommands?: number;
  readonly snapshotEveryMs?: number;
  /** Snapshot files kept. */
  readonly snapshotsKept?: number;
  /** Delete segments wholly covered by the newest snapshot. */
  readonly pruneSegments?: boolean;
  readonly batchCommandsMax?: number;
  readonly clock?: () => number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  readonly onDurable?: (batch: DurableBatch) => void;
  /**
   * Wraps the journal's segment writer (a replicated journal: engine/runtime/replication): the sequencer
   * writes through what this returns, and a batch counts as durable when that writer says so.
   */
  readonly wrapWriter?: (local: SegmentWriter) => JournalWriter;
  /**
   * A consumer of durable events that has applied everything up to `afterSeq` (read models kept outside
   * the engine) and must see the rest again: recovery starts from a snapshot no newer than `afterSeq` and
   * hands it the events of every replayed command after it.
   */
  readonly replayFeed?: { readonly afterSeq: number; onEvent(event: EngineEvent, seq: number, ts: number): void };
  /**
   * Starts a worker thread from a module path relative to the repository root (shell/workers.ts in the
   * server): snapshots are then encoded and written on engine/runtime/snapshot-worker.ts.
   */
  readonly startWorker?: (entry: string, workerData: unknown) => Worker;
  /**
   * With `startWorker`: order records (bytes, `OrderStore.copyBytes`) from which the book recovered at start
   * gets its first snapshot's records buffer prepared on the writer's thread at once (logged
   * `snapshot_records_reserved`); default 16 MiB.
   */
  readonly reserveRecordsBytesMin?: number;
}

export interface RecoveryReport {
  snapshotSeq: number;
  snapshotPath: string | null;
  replayedCommands: number;
  lastSeq: number;
  stateHash: string;
  seconds: number;
}

/**
 * Order records (bytes) from which a recovered book gets its first snapshot's buffer prepared at start (16 MiB,
 * about 131 000 orders): below it a fresh buffer costs the first snapshot a millisecond or two.
 */
const reserveRecordsBytesMin = 16 * 1024 * 1024;

export class DurableEngine {
  readonly engine: Engine;
  readonly sequencer: Sequencer;
  readonly recovery: RecoveryReport;
  private readonly writer: SegmentWriter;
  private readonly journalDir: string;
  private readonly snapshotDir: string;
  private readonly clock: () => number;
  private lastSnapshotSeq: number;
  private lastSnapshotAt: number;
  private pendingSnapshot: { seq: number; bytes: Buffer } | null = null;
  /** The snapshot writer's thread, started with the first snapshot it writes (at start for a large book). */
  private snapshotWorker: Worker | null = null;
  /**
   * The snapshot the worker is encoding or writing, whether it was told that its seq is durable, and how
   * long taking it held this thread (ms).
   */
  private snapshotInFlight: { seq: number; durableSent: boolean; heldMs: number } | null = null;
  /**
   * Told how long each snapshot held this thread, in seconds (with the worker: taking the copy and handing
   * it over; without: encoding it, and writing it when its seq is durable already): the operations
   * metrics' histogram. Null when nobody measures.
   */
  snapshotHoldObserver: ((seconds: number) => void) | null = null;
  /** The order records' buffer of the last snapshot, handed back by the worker once it is done with it. */
  private spareRecords: ArrayBuffer | null = null;
  /** Called when the snapshot in flight is written or has failed (close waits for it). */
  private snapshotSettled: (() => void) | null = null;

  private constructor(
    private readonly options: DurableEngineOptions,
    engine: Engine,
    writer: SegmentWriter,
    recovery: RecoveryReport,
  ) {
    this.engine = engine;
    this.writer = writer;
    this.recovery = recovery;
    this.journalDir = join(options.dataDir, 'journal');
    this.snapshotDir = join(options.dataDir, 'snapshots');
    this.clock = options.clock ?? Date.now;
    this.lastSnapshotSeq = recovery.snapshotSeq;
    this.lastSnapshotAt = this.clock();
    this.sequencer = new Sequencer({
      engine,
      writer: options.wrapWriter === undefined ? writer : options.wrapWriter(writer),
      clock: this.clock,
      lastSeq: recovery.lastSeq,
      ...(options.batchCommandsMax === undefined ? {} : { batchCommandsMax: options.batchCommandsMax }),
      ...(options.onDurable === undefined ? {} : { onDurable: options.onDurable }),
      afterDurable: (durableSeq) => this.afterDurable(durableSeq),
    });
    // A large book recovered at start: the writer's thread prepares the first snapshot's records buffer
    // now, so that the first snapshot does not allocate and page in a hundred megabytes on this thread.
    const recordsBytes = engine.orders.copyBytes;
    if (options.startWorker !== undefined && recordsBytes >= (options.reserveRecordsBytesMin ?? reserveRecordsBytesMin)) {
      try {
        this.startSnapshotWorker().postMessage({ type: 'reserve', bytes: recordsBytes } satisfies ToSnapshotWorker);
      } catch (error) {
        // Only a head start: the first snapshot starts the worker again and allocates its own buffer.
        options.log?.('snapshot_failed', { seq: 0, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  static open(options: DurableEngineOptions): DurableEngine {
    const started = process.hrtime.bigint();
    const log = options.log ?? (() => {});
    const journalDir = join(options.dataDir, 'journal');
    const snapshotDir = join(options.dataDir, 'snapshots');
    mkdirSync(journalDir, { recursive: true });
    mkdirSync(snapshotDir, { recursive: true });
    for (const name of removeUnfinishedSnapshots(snapshotDir)) log('snapshot_unfinished_removed', { name });
    // The platform's domains unless the caller chose: a journal must replay with every module that wrote it.
    // The order records on cache-line boundaries as this process's allocator lays buffers out (memory.ts).
    const makeEngine = (): Engine => new Engine({ domains: platformDomains, recordsByteOffset: recordsByteOffset(), ...options.engine });
    const feed = options.replayFeed;
    const loaded = loadNewestSnapshot(snapshotDir, makeEngine, (path, reason) => log('snapshot_skipped', { path, reason }), feed?.afterSeq);
    const engine = loaded?.engine ?? makeEngine();
    const snapshotSeq = loaded?.seq ?? 0;
    let replaying: Command | null = null;
    if (feed !== undefined) {
      engine.sink = {
        onEvent(event) {
          if (replaying !== null && replaying.seq > feed.afterSeq) feed.onEvent(event, replaying.seq, replaying.ts);
        },
      };
    }
    const summary = readJournal(
      journalDir,
      (command, formatVersion) => {
        replaying = command;
        useRulesOf(engine, formatVersion);
        const result = engine.apply(command);
        if (result !== Result.ok) {
          throw new Error(`replay diverged at seq ${command.seq}: ${resultCode(result as ResultCode)} for a journaled command`);
        }
      },
      {
        afterSeq: snapshotSeq,
        truncateTornTail: true,
        onTornTail: (segment, offset, problem) => log('journal_torn_tail_truncated', { segment, offset, problem }),
      },
    );
    engine.sink = nullSink;
    // Whatever the journal's older segments were written under, new commands follow the newest rules.
    useRulesOf(engine, journalFormatVersion);
    const writer = new SegmentWriter(journalDir, options.syncMode ?? 'sync', options.segmentBytesMax ?? defaultSegmentBytesMax);
    const last = summary.lastSegment;
    if (last !== null) writer.resume(last.path, summary.lastSegmentBytes, summary.lastSegmentFormatVersion, last.firstSeq);
    const recovery: RecoveryReport = {
      snapshotSeq,
      snapshotPath: loaded?.path ?? null,
      replayedCommands: summary.commands,
      lastSeq: Math.max(summary.lastSeq, snapshotSeq),
      // The snapshot's hash was verified as it loaded; with nothing replayed after it, it is the state's.
      stateHash: loaded !== null && summary.commands === 0 ? loaded.stateHash : stateHash(engine),
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
    };
    log('recovered', { ...recovery });
    return new DurableEngine(options, engine, writer, recovery);
  }

  /** Why `submit` and `enqueue` refuse every command, or null while they take commands. */
  private commandsRefused: string | null = null;

  /**
   * Refuses every command from now on, through `submit` and `enqueue`, as a closed sequencer does: a
   * stream edge, whose commands come only from the journal stream (its follower feeds the sequencer
   * itself), so that nothing in the server (a module reacting to a durable batch) journals its own.
   */
  refuseCommands(reason: string): void {
    this.commandsRefused = reason;
  }

  submit(command: Command): Promise<Submission> {
    if (this.commandsRefused !== null) return Promise.reject(new SequencerClosedError(this.commandsRefused));
    return this.sequencer.submit(command);
  }

  enqueue(command: Command, done: OutcomeCallback, token?: unknown): void {
    if (this.commandsRefused !== null) {
      const outcome = new Outcome(new TapeReader());
      outcome.result = Result.invalidCommand;
      outcome.token = token;
      outcome.error = new SequencerClosedError(this.commandsRefused);
      return done(outcome);
    }
    this.sequencer.enqueue(command, done, token);
  }

  private afterDurable(durableSeq: number): void {
    const inFlight = this.snapshotInFlight;
    if (inFlight !== null) {
      if (!inFlight.durableSent && durableSeq >= inFlight.seq) this.sendDurable(inFlight);
      return;
    }
    if (this.pendingSnapshot !== null && durableSeq >= this.pendingSnapshot.seq) {
      this.writeSnapshot(this.pendingSnapshot.seq, this.pendingSnapshot.bytes);
      this.pendingSnapshot = null;
    }
    if (this.pendingSnapshot !== null) return;
    const everyCommands = this.options.snapshotEveryCommands ?? 1_000_000;
    const everyMs = this.options.snapshotEveryMs ?? 300_000;
    const lastSeq = this.sequencer.lastSeq;
    if (lastSeq - this.lastSnapshotSeq < everyCommands && this.clock() - this.lastSnapshotAt < everyMs) return;
    if (lastSeq === this.lastSnapshotSeq) return;
    // The next one comes after another interval, whether this one succeeds or not.
    this.lastSnapshotSeq = lastSeq;
    this.lastSnapshotAt = this.clock();
    try {
      if (this.options.startWorker !== undefined) {
        this.snapshotToWorker(lastSeq, lastSeq <= durableSeq);
      } else {
        const started = performance.now();
        const { bytes } = encodeSnapshot(this.engine, lastSeq);
        if (lastSeq <= durableSeq) this.writeSnapshot(lastSeq, bytes);
        else this.pendingSnapshot = { seq: lastSeq, bytes };
        this.snapshotHoldObserver?.((performance.now() - started) / 1000);
      }
    } catch (error) {
      // A snapshot only shortens recovery: the journal holds every command it would cover. A failure to take
      // or write one (no memory for the copy, a full disk) is reported and the exchange carries on.
      this.options.log?.('snapshot_failed', { seq: lastSeq, error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Takes the snapshot of `seq` here and hands it to the writer's thread: postMessage copies the small parts
   * now and transfers the copied order records.
   */
  private snapshotToWorker(seq: number, durable: boolean): void {
    const worker = this.snapshotWorker ?? this.startSnapshotWorker();
    const started = performance.now();
    const taken = takeSnapshotAt(this.engine, seq, this.spareRecords);
    this.spareRecords = null;
    worker.postMessage({ type: 'snapshot', taken, durable } satisfies ToSnapshotWorker, takenTransfers(taken));
    const heldMs = performance.now() - started;
    this.snapshotInFlight = { seq, durableSent: durable, heldMs };
    this.snapshotHoldObserver?.(heldMs / 1000);
  }

  private sendDurable(inFlight: { seq: number; durableSent: boolean }): void {
    inFlight.durableSent = true;
    this.snapshotWorker?.postMessage({ type: 'durable' } satisfies ToSnapshotWorker);
  }

  private startSnapshotWorker(): Worker {
    const input: SnapshotWorkerInput = { dir: this.snapshotDir, kept: this.options.snapshotsKept ?? 3 };
    const worker = this.options.startWorker!('engine/runtime/snapshot-worker', input);
    // A snapshot in flight never keeps the process alive: the journal holds everything it covers.
    worker.unref();
    worker.on('message', (message: FromSnapshotWorker) => {
      if (message.type === 'spare') {
        this.spareRecords = message.records;
        if (message.reserved === true) this.options.log?.('snapshot_records_reserved', { bytes: message.records.byteLength });
        return;
      }
      if (message.type === 'written') {
        const heldMs = this.snapshotInFlight?.heldMs ?? 0;
        this.options.log?.('snapshot_written', { seq: message.seq, path: message.path, bytes: message.bytes, thread: 'worker', held_ms: Math.round(heldMs * 10) / 10 });
        if (this.options.pruneSegments) this.pruneSegments(message.seq);
      } else {
        this.options.log?.('snapshot_failed', { seq: message.seq, error: message.message });
      }
      this.settleSnapshot();
    });
    worker.on('error', (error) => {
      this.options.log?.('snapshot_failed', { seq: this.snapshotInFlight?.seq ?? 0, error: error.message });
      this.snapshotWorker = null;
      this.settleSnapshot();
    });
    this.snapshotWorker = worker;
    return worker;
  }

  private settleSnapshot(): void {
    this.snapshotInFlight = null;
    const settled = this.snapshotSettled;
    this.snapshotSettled = null;
    settled?.();
  }

  private writeSnapshot(seq: number, bytes: Buffer): void {
    const path = writeSnapshotFile(this.snapshotDir, seq, bytes);
    this.options.log?.('snapshot_written', { seq, path, bytes: bytes.length });
    pruneSnapshots(this.snapshotDir, this.options.snapshotsKept ?? 3);
    if (this.options.pruneSegments) this.pruneSegments(seq);
  }

  /** Deletes segments whose frames all precede `seq` (the next segment starts at or before seq + 1). */
  private pruneSegments(seq: number): void {
    const segments = listSegments(this.journalDir);
    for (let index = 0; index + 1 < segments.length; index++) {
      if (segments[index + 1]!.firstSeq > seq + 1) break;
      unlinkSync(segments[index]!.path);
      this.options.log?.('segment_pruned', { segment: segments[index]!.name });
    }
  }

  /** Takes no more commands, waits until all are durable, writes a final snapshot and closes the journal. */
  async close(): Promise<void> {
    await this.sequencer.close();
    const inFlight = this.snapshotInFlight;
    if (inFlight !== null) {
      // Every command is durable now: the worker writes what it holds; the closing snapshot comes after it.
      const settled = new Promise<void>((resolve) => (this.snapshotSettled = resolve));
      if (!inFlight.durableSent) this.sendDurable(inFlight);
      await settled;
    }
    if (this.snapshotWorker !== null) {
      await this.snapshotWorker.terminate();
      this.snapshotWorker = null;
    }
    if (this.pendingSnapshot !== null) {
      this.writeSnapshot(this.pendingSnapshot.seq, this.pendingSnapshot.bytes);
      this.pendingSnapshot = null;
    }
    const seq = this.sequencer.lastSeq;
    if (seq > 0 && seq !== this.lastSnapshotSeq) {
      this.writeSnapshot(seq, encodeSnapshot(this.engine, seq).bytes);
      this.lastSnapshotSeq = seq;
    }
    this.writer.close();
  }
}
