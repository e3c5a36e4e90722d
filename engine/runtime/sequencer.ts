/**
 * The sequencer: the single entry for every state-changing command.
 *
 * `submit` stamps the next seq and the runtime clock's time on a command, encodes its journal frame into
 * the batch being filled, applies it to the engine at once, and returns a promise that resolves only
 * once the batch holding the frame is written and fdatasync'd; the batch's events are released to
 * `onDurable` at the same moment (no output before the journal). While one batch is being synced the
 * next one fills (group commit, pipelined): the disk sees one write and one sync per batch, however many
 * commands it holds.
 *
 * A command the engine refuses changed nothing, so it takes no seq, writes no frame and is answered at
 * once. Batches are bounded in commands and bytes: when the filling batch is full the command is refused
 * with SequencerBusyError (the shell answers 503) rather than growing memory without bound.
 */
import type { Command } from '../core/commands.ts';
import type { Engine } from '../core/engine.ts';
import { copyEvent, type EngineEvent, type EventSink } from '../core/events.ts';
import { Result, type ResultCode } from '../core/results.ts';
import { FrameEncoder } from '../journal/codec.ts';
import type { SegmentWriter } from '../journal/segments.ts';

export class SequencerBusyError extends Error {
  constructor() {
    super('the journal batch is full; retry shortly');
    this.name = 'SequencerBusyError';
  }
}

export class SequencerClosedError extends Error {
  constructor(reason: string) {
    super(`the sequencer is closed: ${reason}`);
    this.name = 'SequencerClosedError';
  }
}

export interface Submission {
  result: ResultCode;
  /** The command's seq, or 0 when it was refused and not journaled. */
  seq: number;
  ts: number;
  events: EngineEvent[];
  /** Per-item results of a batch command. */
  batchResults: ResultCode[];
}

export interface DurableBatch {
  firstSeq: number;
  lastSeq: number;
  submissions: Submission[];
}

export interface SequencerOptions {
  readonly engine: Engine;
  readonly writer: SegmentWriter;
  /** The runtime's clock in milliseconds: the only clock of the system. */
  readonly clock: () => number;
  /** Seq of the last command already in the journal (from recovery). */
  readonly lastSeq: number;
  readonly batchCommandsMax?: number;
  readonly batchBytesMax?: number;
  /** Called with each batch once it is durable, before the submitters' promises resolve. */
  readonly onDurable?: (batch: DurableBatch) => void;
  /** Called after each durable batch with the durable seq: the place to take snapshots. */
  readonly afterDurable?: (durableSeq: number) => void;
}

/** Commands per batch: enough for about 10 ms at a million commands per second (bench:journal). */
export const defaultBatchCommandsMax = 16_384;
export const defaultBatchBytesMax = 8 * 1024 * 1024;

class Batch {
  readonly encoder = new FrameEncoder(1 << 20);
  firstSeq = 0;
  lastSeq = 0;
  readonly submissions: Submission[] = [];
  readonly resolvers: Array<(submission: Submission) => void> = [];
  readonly rejecters: Array<(error: Error) => void> = [];

  reset(): void {
    this.encoder.reset();
    this.firstSeq = 0;
    this.lastSeq = 0;
    this.submissions.length = 0;
    this.resolvers.length = 0;
    this.rejecters.length = 0;
  }
}

export class Sequencer implements EventSink {
  lastSeq: number;
  /** Seq of the last command known to be on disk. */
  durableSeq: number;
  private filling = new Batch();
  private spare = new Batch();
  private flushing: Batch | null = null;
  private flushScheduled = false;
  private failure: Error | null = null;
  private closing = false;
  private current: EngineEvent[] = [];
  private drainWaiters: Array<() => void> = [];
  private readonly batchCommandsMax: number;
  private readonly batchBytesMax: number;

  constructor(private readonly options: SequencerOptions) {
    this.lastSeq = options.lastSeq;
    this.durableSeq = options.lastSeq;
    this.batchCommandsMax = options.batchCommandsMax ?? defaultBatchCommandsMax;
    this.batchBytesMax = options.batchBytesMax ?? defaultBatchBytesMax;
    options.engine.sink = this;
  }

  /** EventSink: events of the command being applied. */
  onEvent(event: EngineEvent): void {
    this.current.push(copyEvent(event));
  }

  submit(command: Command): Promise<Submission> {
    if (this.failure !== null) return Promise.reject(new SequencerClosedError(this.failure.message));
    if (this.closing) return Promise.reject(new SequencerClosedError('shutting down'));
    const batch = this.filling;
    if (batch.encoder.frames >= this.batchCommandsMax || batch.encoder.length >= this.batchBytesMax) {
      return Promise.reject(new SequencerBusyError());
    }
    const seq = this.lastSeq + 1;
    command.seq = seq;
    command.ts = this.options.clock();
    const markBytes = batch.encoder.length;
    const markFrames = batch.encoder.frames;
    const size = batch.encoder.append(command);
    if (size < 0) {
      const result = size === -1 ? Result.commandTooLarge : Result.invalidCommand;
      return Promise.resolve({ result, seq: 0, ts: command.ts, events: [], batchResults: [] });
    }
    const events: EngineEvent[] = [];
    this.current = events;
    const result = this.options.engine.apply(command);
    this.current = [];
    const submission: Submission = {
      result,
      seq,
      ts: command.ts,
      events,
      batchResults: command.kind === 7 || command.kind === 8 ? [...this.options.engine.batchResults] : [],
    };
    if (result !== Result.ok) {
      // Refused: nothing changed, so nothing is journaled and the answer needs no disk.
      batch.encoder.truncate(markBytes, markFrames);
      submission.seq = 0;
      return Promise.resolve(submission);
    }
    this.lastSeq = seq;
    if (batch.firstSeq === 0) batch.firstSeq = seq;
    batch.lastSeq = seq;
    batch.submissions.push(submission);
    const promise = new Promise<Submission>((resolve, reject) => {
      batch.resolvers.push(resolve);
      batch.rejecters.push(reject);
    });
    this.scheduleFlush();
    return promise;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing !== null) return;
    this.flushScheduled = true;
    // Let every command that arrives in this turn of the event loop join the batch.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.flushing !== null || this.failure !== null) return;
    const batch = this.filling;
    if (batch.encoder.frames === 0) {
      this.notifyDrained();
      return;
    }
    this.filling = this.spare;
    this.flushing = batch;
    this.options.writer.append(batch.encoder.bytes(), batch.firstSeq, (error) => this.flushed(batch, error));
  }

  private flushed(batch: Batch, error: Error | null): void {
    this.flushing = null;
    if (error !== null) {
      // A failed write or sync leaves durability unknown: stop taking commands (the process should exit).
      this.failure = error;
      for (const reject of batch.rejecters) reject(new SequencerClosedError(error.message));
      for (const reject of this.filling.rejecters) reject(new SequencerClosedError(error.message));
      this.filling.reset();
      this.notifyDrained();
      return;
    }
    this.durableSeq = batch.lastSeq;
    this.options.onDurable?.({ firstSeq: batch.firstSeq, lastSeq: batch.lastSeq, submissions: batch.submissions });
    for (let index = 0; index < batch.resolvers.length; index++) batch.resolvers[index]!(batch.submissions[index]!);
    batch.reset();
    this.spare = batch;
    this.options.afterDurable?.(this.durableSeq);
    if (this.filling.encoder.frames > 0) this.flush();
    else this.notifyDrained();
  }

  private notifyDrained(): void {
    if (this.flushing !== null || this.filling.encoder.frames > 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter();
  }

  /** Resolves when every command submitted so far is durable. */
  drain(): Promise<void> {
    if (this.flushing === null && this.filling.encoder.frames === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drainWaiters.push(resolve);
      this.scheduleFlush();
    });
  }

  /** Stops taking commands and waits for every accepted one to be durable. */
  async close(): Promise<void> {
    this.closing = true;
    await this.drain();
    if (this.failure !== null) throw this.failure;
  }

  get failed(): Error | null {
    return this.failure;
  }
}
