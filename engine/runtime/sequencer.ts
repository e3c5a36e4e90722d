/**
 * The sequencer: the single entry for every state-changing command.
 *
 * `enqueue` stamps the next seq and the runtime clock's time on a command, encodes its journal frame into
 * the batch being filled, applies it to the engine at once (its events go onto the batch's event tape),
 * and calls back only once the batch holding the frame is written and fdatasync'd; the batch's events are
 * released to `onDurable` at the same moment (no output before the journal). While one batch is being
 * synced the next one fills (group commit, pipelined): the disk sees one write and one sync per batch,
 * however many commands it holds. When a batch becomes durable, the batch that filled meanwhile is
 * handed to the disk first and only then is the durable one released and answered, so that the disk
 * syncs while the thread writes the answers (bench:http: answering a batch of about 50 orders took 0.9 ms
 * of a 2.1 ms cycle, and the disk sat idle through it). Three batches take turns: one filling, one
 * syncing, one being answered.
 *
 * A command the engine refuses changed nothing, so it takes no seq, writes no frame and is answered at
 * once. Batches are bounded in commands and bytes: when the filling batch is full the command is refused
 * with SequencerBusyError (the shell answers 503) rather than growing memory without bound.
 *
 * Nothing per command is allocated here beyond what the caller passes: the answer is a reused `Outcome`
 * valid during the callback, whose events are read off the tape. `submit` wraps this in a promise with
 * copied events, for callers that prefer that and do not need the speed.
 */
import { CommandKind, type Command } from '../core/commands.ts';
import type { Engine } from '../core/engine.ts';
import { copyEvent, EventKind, type DomainEvent, type EngineEvent } from '../core/events.ts';
import { Result, type ResultCode } from '../core/results.ts';
import { FrameEncoder } from '../journal/codec.ts';
import { EventTape, TapeReader, type EventVisitor } from './event-tape.ts';

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

/** The answer to one command; reused, valid only during the callback. */
export class Outcome {
  result: ResultCode = Result.ok;
  /** The command's seq, or 0 when it was refused and not journaled. */
  seq = 0;
  ts = 0;
  /** What the caller passed to `enqueue`, to find its request again without a closure. */
  token: unknown = undefined;
  /** Per-item results of a batch command (empty otherwise). */
  batchResults: readonly ResultCode[] = noResults;
  /** Set when the command could not be run at all (busy, closed, journal failure); `result` is then meaningless. */
  error: Error | null = null;
  tape: EventTape | null = null;
  eventsStart = 0;
  eventsEnd = 0;
  private readonly reader: TapeReader;

  constructor(reader: TapeReader) {
    this.reader = reader;
  }

  /** Visits the command's events in order (reused objects: copy what you keep). */
  forEachEvent(visit: EventVisitor): void {
    if (this.tape !== null) this.reader.read(this.tape, this.eventsStart, this.eventsEnd, visit);
  }
}

export type OutcomeCallback = (outcome: Outcome) => void;

/** The answer of `submit`: a plain object with copied events, safe to keep. */
export interface Submission {
  result: ResultCode;
  seq: number;
  ts: number;
  events: EngineEvent[];
  batchResults: ResultCode[];
}

/** A durable batch, handed to `onDurable`: its commands' events, readable during the call. */
export interface DurableBatch {
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** Visits every event of the batch with the seq and ts of the command that made it. */
  forEachEvent(visit: (event: EngineEvent, seq: number, ts: number) => void): void;
  /**
   * Visits the batch's domain events only, in order, with the seq and ts of the command that made each:
   * for consumers that read nothing else, without reading the order book's events they would skip.
   */
  forEachDomainEvent(visit: (event: DomainEvent, seq: number, ts: number) => void): void;
}

/** Visits the domain events of a batch by reading all of its events (a batch that keeps no index of them). */
export function visitDomainEvents(batch: Pick<DurableBatch, 'forEachEvent'>, visit: (event: DomainEvent, seq: number, ts: number) => void): void {
  batch.forEachEvent((event, seq, ts) => {
    if (event.kind === EventKind.domain) visit(event, seq, ts);
  });
}

/** A DurableBatch made of its seqs and a way to read its events (batches made by hand: tests, benches). */
export function batchOfEvents(firstSeq: number, lastSeq: number, forEachEvent: DurableBatch['forEachEvent']): DurableBatch {
  const batch: DurableBatch = { firstSeq, lastSeq, forEachEvent, forEachDomainEvent: (visit) => visitDomainEvents(batch, visit) };
  return batch;
}

/**
 * Where batches go: the journal's SegmentWriter, or a writer that wraps it (a replicated journal). `done` is
 * called once the batch is durable wherever the writer promises; an error stops the sequencer.
 */
export interface JournalWriter {
  append(bytes: Uint8Array, firstSeq: number, done: (error: Error | null) => void): void;
}

export interface SequencerOptions {
  readonly engine: Engine;
  readonly writer: JournalWriter;
  /** The runtime's clock in milliseconds: the only clock of the system. */
  readonly clock: () => number;
  /** Seq of the last command already in the journal (from recovery). */
  readonly lastSeq: number;
  readonly batchCommandsMax?: number;
  readonly batchBytesMax?: number;
  /** Called with each batch once it is durable, before the submitters are answered. */
  readonly onDurable?: (batch: DurableBatch) => void;
  /** Called after each durable batch with the durable seq: the place to take snapshots. */
  readonly afterDurable?: (durableSeq: number) => void;
}

/** Commands per batch: enough for about 10 ms at a million commands per second (bench:journal). */
export const defaultBatchCommandsMax = 16_384;
export const defaultBatchBytesMax = 8 * 1024 * 1024;
const noResults: readonly ResultCode[] = [];

class Batch implements DurableBatch {
  readonly encoder = new FrameEncoder(1 << 20);
  readonly tape = new EventTape();
  firstSeq = 0;
  lastSeq = 0;
  count = 0;
  readonly callbacks: OutcomeCallback[] = [];
  readonly tokens: unknown[] = [];
  readonly timestamps: number[] = [];
  readonly eventEnds: number[] = [];
  /** Per-item results of batch commands, by index in this batch (sparse use: batches are rare). */
  readonly batchResults = new Map<number, ResultCode[]>();

  constructor(private readonly reader: TapeReader) {}

  reset(): void {
    this.encoder.reset();
    this.tape.reset();
    this.firstSeq = 0;
    this.lastSeq = 0;
    this.count = 0;
    this.callbacks.length = 0;
    this.tokens.length = 0;
    this.timestamps.length = 0;
    this.eventEnds.length = 0;
    this.batchResults.clear();
  }

  /**
   * Every consumer of a durable batch (the read models, the market data, each module's view) reads it
   * through here, so the relay to `visit` is one function made with the batch, told the seq and time of
   * the command being read through fields, rather than a closure per command and consumer.
   */
  forEachEvent(visit: (event: EngineEvent, seq: number, ts: number) => void): void {
    // A consumer may read the batch again from inside its visitor: the outer reading's state is restored.
    const outerVisit = this.visit;
    const outerSeq = this.visitSeq;
    const outerTs = this.visitTs;
    this.visit = visit;
    let start = 0;
    try {
      for (let index = 0; index < this.count; index++) {
        const end = this.eventEnds[index]!;
        this.visitSeq = this.firstSeq + index;
        this.visitTs = this.timestamps[index]!;
        this.reader.read(this.tape, start, end, this.relay);
        start = end;
      }
    } finally {
      this.visit = outerVisit;
      this.visitSeq = outerSeq;
      this.visitTs = outerTs;
    }
  }

  forEachDomainEvent(visit: (event: DomainEvent, seq: number, ts: number) => void): void {
    const { objects, objectAt } = this.tape;
    let command = 0;
    for (let index = 0; index < objectAt.length; index++) {
      while (objectAt[index]! >= this.eventEnds[command]!) command++;
      visit(objects[index]!, this.firstSeq + command, this.timestamps[command]!);
    }
  }

  private visit: ((event: EngineEvent, seq: number, ts: number) => void) | null = null;
  private visitSeq = 0;
  private visitTs = 0;
  private readonly relay = (event: EngineEvent): void => this.visit!(event, this.visitSeq, this.visitTs);
}

export class Sequencer {
  lastSeq: number;
  /** Seq of the last command known to be on disk. */
  durableSeq: number;
  /** Batches made durable since start, and the commands in them: their ratio is the group-commit factor. */
  durableBatches = 0;
  durableCommands = 0;
  /**
   * Told each batch's journal write time in seconds (the O_DSYNC write, so the sync's latency in `sync`
   * mode) once it is durable: the operations metrics' histogram. Null when nobody measures.
   */
  journalWriteObserver: ((seconds: number) => void) | null = null;
  private flushStartedMs = 0;
  private readonly reader = new TapeReader();
  private filling: Batch;
  /** Batches not in use (at most two: the third is filling). */
  private readonly spares: Batch[];
  private flushing: Batch | null = null;
  private flushScheduled = false;
  private failure: Error | null = null;
  private closing = false;
  private drainWaiters: Array<() => void> = [];
  private readonly refusalTape = new EventTape();
  /** Answers given from the durable callback, and answers given at once: two objects, so that a command
   * submitted from inside a durable callback and refused at once does not overwrite the outer answer. */
  private readonly outcome: Outcome;
  private readonly immediate: Outcome;
  private readonly batchCommandsMax: number;
  private readonly batchBytesMax: number;
  /** Whether a clean point was asked for and not reached yet (`requestCleanPoint`). */
  private cleanPointAsked = false;
  /** Commands that arrived meanwhile, applied in arrival order once it is reached. */
  private held: Array<{ command: Command; done: OutcomeCallback; token: unknown }> = [];

  constructor(private readonly options: SequencerOptions) {
    this.lastSeq = options.lastSeq;
    this.durableSeq = options.lastSeq;
    this.batchCommandsMax = options.batchCommandsMax ?? defaultBatchCommandsMax;
    this.batchBytesMax = options.batchBytesMax ?? defaultBatchBytesMax;
    this.filling = new Batch(this.reader);
    this.spares = [new Batch(this.reader), new Batch(this.reader)];
    this.outcome = new Outcome(this.reader);
    this.immediate = new Outcome(this.reader);
  }

  /**
   * Runs a command and calls `done` once it is durable (or at once when refused or not runnable). The
   * callback must not submit synchronously into a full batch expecting success; it may submit more.
   */
  enqueue(command: Command, done: OutcomeCallback, token?: unknown): void {
    if (this.failure !== null) return this.answerError(done, token, new SequencerClosedError(this.failure.message));
    if (this.closing) return this.answerError(done, token, new SequencerClosedError('shutting down'));
    if (this.cleanPointAsked) {
      if (this.held.length >= this.batchCommandsMax) return this.answerError(done, token, new SequencerBusyError());
      this.held.push({ command, done, token });
      return;
    }
    this.run(command, done, token);
  }

  /** Applies an accepted command into the filling batch (or answers its refusal at once). */
  private run(command: Command, done: OutcomeCallback, token: unknown): void {
    if (this.failure !== null) return this.answerError(done, token, new SequencerClosedError(this.failure.message));
    const batch = this.filling;
    if (batch.count >= this.batchCommandsMax || batch.encoder.length >= this.batchBytesMax) {
      return this.answerError(done, token, new SequencerBusyError());
    }
    const seq = this.lastSeq + 1;
    command.seq = seq;
    command.ts = this.options.clock();
    const markBytes = batch.encoder.length;
    const markFrames = batch.encoder.frames;
    const size = batch.encoder.append(command);
    if (size < 0) return this.answerRefusal(done, token, command, size === -1 ? Result.commandTooLarge : Result.invalidCommand, null);
    const engine = this.options.engine;
    const tapeMark = batch.tape.length;
    engine.sink = batch.tape;
    const result = engine.apply(command);
    if (result !== Result.ok) {
      // Refused: nothing changed, so nothing is journaled and the answer needs no disk.
      batch.encoder.truncate(markBytes, markFrames);
      const refusal = this.refusalTape;
      refusal.reset();
      this.reader.read(batch.tape, tapeMark, batch.tape.length, (event) => refusal.onEvent(event));
      batch.tape.truncate(tapeMark);
      return this.answerRefusal(done, token, command, result, refusal);
    }
    this.lastSeq = seq;
    if (batch.count === 0) batch.firstSeq = seq;
    batch.lastSeq = seq;
    if (command.kind === CommandKind.placeBatch || command.kind === CommandKind.cancelBatch) {
      batch.batchResults.set(batch.count, [...engine.batchResults]);
    }
    batch.callbacks.push(done);
    batch.tokens.push(token);
    batch.timestamps.push(command.ts);
    batch.eventEnds.push(batch.tape.length);
    batch.count++;
    this.scheduleFlush();
  }

  /**
   * Asks for a clean point: a durable batch after which the engine applied nothing more. Readers of what
   * the engine holds beyond the events (the ledger's balances, for the private stream) read it only there,
   * so that they never show what a crash could take back; but under steady load one batch is applied
   * while the previous one syncs, and that may never happen on its own. From now until every command
   * applied so far is durable, new commands wait unapplied; that batch's `onDurable` then sees the
   * sequencer's `lastSeq` equal to its own, and after its answers the waiting commands are applied in
   * arrival order (their `ts` is when they are applied). The wait is at most the syncing batch and the one
   * filling behind it. Nothing to do when the engine is clean already.
   */
  requestCleanPoint(): void {
    if (this.lastSeq === this.durableSeq || this.failure !== null) return;
    this.cleanPointAsked = true;
  }

  /** Promise form of `enqueue`: resolves with a copy of the outcome; rejects when the command could not run. */
  submit(command: Command): Promise<Submission> {
    return new Promise((resolve, reject) => {
      this.enqueue(command, (outcome) => {
        if (outcome.error !== null) return reject(outcome.error);
        const events: EngineEvent[] = [];
        outcome.forEachEvent((event) => events.push(copyEvent(event)));
        resolve({ result: outcome.result, seq: outcome.seq, ts: outcome.ts, events, batchResults: [...outcome.batchResults] });
      });
    });
  }

  private answerError(done: OutcomeCallback, token: unknown, error: Error): void {
    const outcome = this.immediate;
    outcome.result = Result.invalidCommand;
    outcome.seq = 0;
    outcome.ts = 0;
    outcome.token = token;
    outcome.batchResults = noResults;
    outcome.error = error;
    outcome.tape = null;
    done(outcome);
  }

  private answerRefusal(done: OutcomeCallback, token: unknown, command: Command, result: ResultCode, tape: EventTape | null): void {
    const outcome = this.immediate;
    outcome.result = result;
    outcome.seq = 0;
    outcome.ts = command.ts;
    outcome.token = token;
    outcome.batchResults = noResults;
    outcome.error = null;
    outcome.tape = tape;
    outcome.eventsStart = 0;
    outcome.eventsEnd = tape === null ? 0 : tape.length;
    done(outcome);
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
    if (batch.count === 0) {
      this.notifyDrained();
      return;
    }
    this.filling = this.spares.pop() ?? new Batch(this.reader);
    this.flushing = batch;
    if (this.journalWriteObserver !== null) this.flushStartedMs = performance.now();
    this.options.writer.append(batch.encoder.bytes(), batch.firstSeq, (error) => this.flushed(batch, error));
  }

  private flushed(batch: Batch, error: Error | null): void {
    this.flushing = null;
    if (error !== null) {
      // A failed write or sync leaves durability unknown: stop taking commands (the process should exit).
      this.failure = error;
      this.failAll(batch, error);
      this.failAll(this.filling, error);
      this.releaseHeld();
      this.notifyDrained();
      return;
    }
    if (this.journalWriteObserver !== null) this.journalWriteObserver((performance.now() - this.flushStartedMs) / 1000);
    this.durableSeq = batch.lastSeq;
    this.durableBatches++;
    this.durableCommands += batch.count;
    // The next batch goes to the disk before this one is answered. Its write ends in a later turn of the
    // event loop, so this batch's consumers and submitters still see the batches in seq order; a write
    // that fails at once fails only that batch and the filling one, and this one is still answered.
    if (this.filling.count > 0) this.flush();
    this.options.onDurable?.(batch);
    const outcome = this.outcome;
    let start = 0;
    for (let index = 0; index < batch.count; index++) {
      const end = batch.eventEnds[index]!;
      outcome.result = Result.ok;
      outcome.seq = batch.firstSeq + index;
      outcome.ts = batch.timestamps[index]!;
      outcome.token = batch.tokens[index];
      outcome.batchResults = batch.batchResults.get(index) ?? noResults;
      outcome.error = null;
      outcome.tape = batch.tape;
      outcome.eventsStart = start;
      outcome.eventsEnd = end;
      batch.callbacks[index]!(outcome);
      start = end;
    }
    batch.reset();
    this.spares.push(batch);
    this.options.afterDurable?.(this.durableSeq);
    if (this.cleanPointAsked && this.lastSeq === this.durableSeq) this.releaseHeld();
    // Commands submitted by the callbacks above (or held for a clean point), when no batch was syncing.
    if (this.flushing === null && this.filling.count > 0) this.flush();
    else this.notifyDrained();
  }

  /**
   * Ends a clean point's wait: the held commands run now, in arrival order (refused if the sequencer
   * failed; run even if it is closing, since they were taken before).
   */
  private releaseHeld(): void {
    this.cleanPointAsked = false;
    const held = this.held;
    this.held = [];
    for (const { command, done, token } of held) this.run(command, done, token);
  }

  private failAll(batch: Batch, error: Error): void {
    const callbacks = batch.callbacks.slice();
    const tokens = batch.tokens.slice();
    batch.reset();
    for (let index = 0; index < callbacks.length; index++) this.answerError(callbacks[index]!, tokens[index], new SequencerClosedError(error.message));
  }

  private notifyDrained(): void {
    if (this.flushing !== null || this.filling.count > 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter();
  }

  /** Resolves when every command accepted so far is durable. */
  drain(): Promise<void> {
    if (this.flushing === null && this.filling.count === 0) return Promise.resolve();
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

  /** Whether commands are taken: not closing and no failed journal write. */
  get accepting(): boolean {
    return !this.closing && this.failure === null;
  }

  /** Commands accepted and not yet durable (the queue in front of the journal). */
  get queueDepth(): number {
    return this.lastSeq - this.durableSeq + this.held.length;
  }
}
