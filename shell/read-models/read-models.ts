/**
 * The exchange read models as the server uses them: order status and history, trades, own fills and
 * candles, fed by durable batches and kept in DATA_DIR/read-models.sqlite.
 *
 * Writing them is not on the order path. Durable batches are packed (their events on a tape of numbers)
 * and posted to a worker thread that writes and commits them (worker.ts, writer.ts); in bench:http the
 * SQLite statements were a sixth of the order thread's time when they ran there. One message is in flight
 * at a time: batches that become durable while the worker is busy go together in the next one, so under
 * load each message carries many batches (a message per batch cost the order thread a wake-up each), and
 * each commit many messages (commit-policy.ts: a commit writes the changed pages to the WAL each time).
 * Queries run here, on a connection of their own, and see committed transactions only; so that a client
 * reads its own writes, a query first waits (`whenApplied`) until the worker has committed every command
 * that was durable when the query arrived, which is every command the client was answered for. While a
 * query waits, a shared flag tells the worker to commit as soon as it has written what it holds (a `commit`
 * message wakes it when it holds everything already). Under light load that wait is short; under heavy
 * load it is the rest of the message being written and the next one, some milliseconds. A user's open
 * orders, the read polled most, are answered from memory instead (open-orders.ts), fed here with every
 * durable batch as it is handed over: they never wait and never make the worker commit early.
 *
 * At start, before the worker exists, the read models catch up on this thread: `replayFeed` gets the
 * events of every command after the committed `applied_seq` from the durable engine's recovery, and
 * `finishReplay` commits them and starts the worker.
 *
 * Limits: the worker may fall at most `lagCommandsMax` commands behind (`busy` then says so and order
 * routes refuse with 503 rather than queue without bound), and at most `waitersMax` queries may wait.
 * An exception in the worker is a bug and stops the process; recovery replays what it had not committed.
 */
import type { Worker } from 'node:worker_threads';
import type { Markets } from '../../engine/core/units.ts';
import type { EngineEvent } from '../../engine/core/events.ts';
import { BatchPacker, transferables } from '../../engine/runtime/packed-batch.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import type { Db } from '../store/database.ts';
import { startWorker } from '../workers.ts';
import { OpenOrders } from './open-orders.ts';
import { ReadModelQueries } from './queries.ts';
import { openReadModelDatabase } from './schema.ts';
import type { FromReadModelWorker, ReadModelWorkerInput, ToReadModelWorker } from './worker.ts';
import { ReadModelWriter } from './writer.ts';
import { commitIntervalMs } from './commit-policy.ts';
import type { ThreadPriority } from '../thread-priority.ts';

/** Commands the worker may be behind before order routes are refused (about half a minute at full load). */
export const lagCommandsMax = 1_000_000;
/**
 * Time between two messages to the worker at least, unless a query is waiting for them or
 * `postCommandsMax` commands are packed. Each message wakes the worker, and on a busy two-core machine a
 * wake-up cost the order thread 60-150 µs (5 % of its time in bench:http at one message per durable batch,
 * 300 a second). Messages are not commits: the worker commits on its own schedule (commit-policy.ts), at
 * once while a query waits. Queries that wait make messages go as soon as they come, whatever the interval.
 */
export const postIntervalMs = 100;
/**
 * Commands packed at which a message goes without waiting for `postIntervalMs`. It bounds the work of one
 * message (about 20 µs a command in the worker, so about 20 ms), and with it how long a query that
 * arrives while a message is in flight waits for the rows it needs, whatever the order rate.
 */
export const postCommandsMax = 1_024;
/**
 * How long packed batches wait before the next message to the worker (0: send now), given the queries
 * waiting, the commands packed, when the last message went and the time now (ms).
 */
export function postWaitMs(waiting: number, packedCommands: number, lastPostMs: number, nowMs: number): number {
  if (waiting > 0 || packedCommands >= postCommandsMax) return 0;
  return Math.max(0, lastPostMs + postIntervalMs - nowMs);
}

/** Queries waiting for the worker at once; more are refused with 503. */
export const waitersMax = 10_000;

export class ReadModelsBusyError extends Error {
  constructor(what: string) {
    super(`the read models are behind (${what}); retry shortly`);
    this.name = 'ReadModelsBusyError';
  }
}

export interface ReadModelsOptions {
  readonly dataDir: string;
  readonly markets: Markets;
  /** The markets file, which the worker loads for itself. */
  readonly marketsPath: string;
  /**
   * How the worker thread runs (thread-priority.ts): absent keeps the process's priority; the server
   * passes READ_MODELS_PRIORITY (`idle` by default), so the order thread gets a core first.
   */
  readonly workerPriority?: ThreadPriority;
  /** Longest the worker leaves written rows uncommitted while no query waits (commit-policy.ts; tests shorten or lengthen it). */
  readonly commitIntervalMs?: number;
  /** Called when the worker fails; by default the error is thrown from a fresh stack and stops the process. */
  readonly onFailure?: (error: Error) => void;
}

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export class ReadModels {
  readonly queries: ReadModelQueries;
  /** Every live order in memory, current with the durable batches (loaded by `finishReplay`). */
  readonly openOrders = new OpenOrders();
  /** Seq the worker's committed tables cover (the replayed prefix, before the worker starts). */
  appliedSeq: number;
  /** Seq of the last batch handed over (posted, or packed to go with the next message). */
  private postedSeq: number;
  /** Messages posted to the worker, and how many of them it has answered for. */
  private postedMessages = 0;
  private answeredMessages = 0;
  /** One Int32 shared with the worker: 1 while any query waits (it then commits without waiting). */
  private readonly queryWaiting = new Int32Array(new SharedArrayBuffer(4));
  /** When the last message went (runtime clock), and the timer that sends the next one, if set. */
  private lastPostMs = -Infinity;
  private postTimer: NodeJS.Timeout | null = null;
  private readonly db: Db;
  private replayWriter: ReadModelWriter | null;
  private worker: Worker | null = null;
  private readonly packer = new BatchPacker();
  /** In seq order: queries come with the durable seq of their arrival, which never goes back. */
  private readonly waiters: Waiter[] = [];
  private failure: Error | null = null;
  private closing: Promise<void> | null = null;
  private closed: (() => void) | null = null;

  constructor(private readonly options: ReadModelsOptions) {
    this.db = openReadModelDatabase(options.dataDir);
    this.queries = new ReadModelQueries(this.db);
    this.replayWriter = new ReadModelWriter(this.db, options.markets);
    this.appliedSeq = this.replayWriter.appliedSeq;
    this.postedSeq = this.appliedSeq;
  }

  /** The replay feed for DurableEngine.open: the events of every command after the committed `applied_seq`. */
  replayFeed(): { afterSeq: number; onEvent(event: EngineEvent, seq: number, ts: number): void } {
    return this.replayWriter!.replayFeed();
  }

  /**
   * Ends the replay at `lastSeq`, the recovered journal's last seq, loads the open orders into memory
   * (`openOrdersHint`: about how many there are, the engine's live orders; it picks the query's plan) and
   * starts the worker.
   */
  finishReplay(lastSeq: number, openOrdersHint = 0): void {
    this.replayWriter!.finishReplay(lastSeq);
    this.replayWriter = null;
    this.queries.forEachOpenOrder((order) => this.openOrders.load(order), openOrdersHint);
    this.appliedSeq = lastSeq;
    this.postedSeq = lastSeq;
    const input: ReadModelWorkerInput = {
      dataDir: this.options.dataDir,
      marketsPath: this.options.marketsPath,
      priority: this.options.workerPriority ?? 'normal',
      queryWaiting: this.queryWaiting.buffer as SharedArrayBuffer,
      commitIntervalMs: this.options.commitIntervalMs ?? commitIntervalMs,
    };
    const worker = startWorker('shell/read-models/worker', input);
    worker.on('message', (message: FromReadModelWorker) => this.onMessage(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (this.closed === null) this.fail(new Error(`the read-model worker exited with code ${code}`));
    });
    this.worker = worker;
  }

  /**
   * Hands a durable batch to the worker and applies it to the open orders in memory (a batch already
   * replayed at start is skipped).
   */
  applyBatch(batch: DurableBatch): void {
    if (batch.lastSeq <= this.postedSeq) return;
    this.openOrders.applyBatch(batch);
    this.packer.add(batch);
    this.postedSeq = batch.lastSeq;
    this.schedulePost();
  }

  /**
   * Sends what is packed when no message is in flight and `postIntervalMs` have passed since the last one
   * (or at once when a query waits or `postCommandsMax` commands are packed); otherwise a timer or the
   * worker's answer sends it later.
   */
  private schedulePost(): void {
    if (this.inFlight) return;
    if (!this.packer.pending) {
      // The rows a query waits for may be written and not yet committed (the worker defers its commits).
      if (this.waiters.length > 0 && this.appliedSeq < this.postedSeq) this.postMessage({ type: 'commit' });
      return;
    }
    const waitMs = postWaitMs(this.waiters.length, this.packer.commands, this.lastPostMs, performance.now());
    if (waitMs <= 0) {
      if (this.postTimer !== null) clearTimeout(this.postTimer);
      this.postTimer = null;
      return this.post();
    }
    if (this.postTimer !== null) return;
    this.postTimer = setTimeout(() => {
      this.postTimer = null;
      this.schedulePost();
    }, waitMs);
  }

  private post(): void {
    this.lastPostMs = performance.now();
    const packed = this.packer.take();
    this.postMessage({ type: 'batch', batch: packed }, transferables(packed));
  }

  private postMessage(message: ToReadModelWorker, transfer?: ArrayBuffer[]): void {
    this.worker!.postMessage(message, transfer);
    this.postedMessages++;
  }

  /** Whether a message is with the worker and not yet answered. */
  private get inFlight(): boolean {
    return this.answeredMessages < this.postedMessages;
  }

  /** Commands handed to the worker and not yet committed. */
  get lagCommands(): number {
    return this.postedSeq - this.appliedSeq;
  }

  /** True when the worker is so far behind that new commands should wait. */
  get busy(): boolean {
    return this.lagCommands > lagCommandsMax;
  }

  /**
   * Null when the committed tables already cover `seq`; otherwise a promise that resolves once they do.
   * Throws ReadModelsBusyError when too many queries wait already.
   */
  whenApplied(seq: number): Promise<void> | null {
    if (this.failure !== null) throw this.failure;
    if (seq <= this.appliedSeq) return null;
    if (this.waiters.length >= waitersMax) throw new ReadModelsBusyError(`${this.waiters.length} queries waiting`);
    const ready = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    Atomics.store(this.queryWaiting, 0, 1);
    this.schedulePost();
    return ready;
  }

  /** Waits for the worker to commit what it was handed, then stops it and closes the query connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const worker = this.worker;
      if (worker !== null && this.failure === null) {
        const done = new Promise<void>((resolve) => (this.closed = resolve));
        // Batches still packed go first (messages arrive in order; the worker commits them at close).
        if (this.postTimer !== null) clearTimeout(this.postTimer);
        this.postTimer = null;
        if (this.packer.pending) this.post();
        this.postMessage({ type: 'close' });
        await done;
        await worker.terminate();
      }
      this.db.close();
    })();
    return this.closing;
  }

  private onMessage(message: FromReadModelWorker): void {
    this.appliedSeq = message.seq;
    const waiters = this.waiters;
    let served = 0;
    while (served < waiters.length && waiters[served]!.seq <= message.seq) waiters[served++]!.resolve();
    if (served > 0) waiters.splice(0, served);
    if (waiters.length === 0) Atomics.store(this.queryWaiting, 0, 0);
    if (message.type === 'closed') return this.closed?.();
    this.answeredMessages = message.received;
    this.schedulePost();
  }

  private fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    this.closed?.();
    const onFailure =
      this.options.onFailure ??
      ((failure: Error) =>
        process.nextTick(() => {
          throw failure;
        }));
    onFailure(error);
  }
}
