/**
 * The sequencer's batching, with a journal writer whose writes the test completes by hand: the batch that
 * filled while another was syncing goes to the disk before the synced one is answered, consumers and
 * submitters still see the batches in seq order, a command submitted from an answer is made durable,
 * a failed write fails the batch that was syncing and the one filling, and a batch's domain events read
 * alone are those among all its events (a refused command's left out).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from '../core/commands.ts';
import { Engine } from '../core/engine.ts';
import type { SegmentWriter } from '../journal/segments.ts';
import { loadMarkets } from './markets.ts';
import { Sequencer, SequencerClosedError } from './sequencer.ts';
import { EventTape, TapeReader } from './event-tape.ts';
import { EventKind, type DomainEvent } from '../core/events.ts';
import { noSlot } from '../core/order-store.ts';
import { Result } from '../core/results.ts';
import { CommandGenerator } from '../core/sim/generator.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';

const markets = loadMarkets();

/** A writer that records each append and completes it only when the test says so. */
class ManualWriter {
  readonly writes: Array<{ firstSeq: number; done: (error: Error | null) => void }> = [];
  /** When set, the next append fails before it starts, as a segment that cannot be opened does. */
  failAtOnce: Error | null = null;

  append(_bytes: Uint8Array, firstSeq: number, done: (error: Error | null) => void): void {
    const failure = this.failAtOnce;
    if (failure !== null) {
      this.failAtOnce = null;
      return done(failure);
    }
    this.writes.push({ firstSeq, done });
  }

  /** Completes the oldest write still open. */
  complete(error: Error | null = null): void {
    const write = this.writes.shift();
    assert.ok(write !== undefined, 'no write is open');
    write.done(error);
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function deposit(userId: number): Command {
  return { kind: 5, seq: 0, ts: 0, userId, mode: 0, assetId: 1, amountAtoms: 10 };
}

function setup(): { sequencer: Sequencer; writer: ManualWriter; log: string[] } {
  const writer = new ManualWriter();
  const log: string[] = [];
  const sequencer = new Sequencer({
    engine: new Engine({ markets, domains: platformDomains }),
    writer: writer as unknown as SegmentWriter,
    clock: () => 1_000,
    lastSeq: 0,
    onDurable: (batch) => log.push(`durable ${batch.firstSeq}-${batch.lastSeq} (writes open ${writer.writes.length})`),
  });
  return { sequencer, writer, log };
}

test('the batch that filled during a sync is written before the synced batch is answered, and answers keep seq order', async () => {
  const { sequencer, writer, log } = setup();
  const answered: number[] = [];
  const answer = (outcome: { seq: number }): void => void answered.push(outcome.seq);
  sequencer.enqueue(deposit(1), answer);
  sequencer.enqueue(deposit(2), answer);
  await turn();
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [1]);
  // Two more arrive while the first batch syncs: they fill the next batch.
  sequencer.enqueue(deposit(3), answer);
  sequencer.enqueue(deposit(4), answer);
  await turn();
  assert.equal(writer.writes.length, 1, 'one write at a time');
  writer.complete();
  // The second batch's write began before the first batch's consumers and submitters were told.
  assert.deepEqual(log, ['durable 1-2 (writes open 1)']);
  assert.deepEqual(answered, [1, 2]);
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [3]);
  assert.equal(sequencer.durableSeq, 2);
  writer.complete();
  assert.deepEqual(log, ['durable 1-2 (writes open 1)', 'durable 3-4 (writes open 0)']);
  assert.deepEqual(answered, [1, 2, 3, 4]);
  assert.equal(sequencer.durableSeq, 4);
  assert.equal(sequencer.durableBatches, 2);
  assert.equal(sequencer.durableCommands, 4);
  await sequencer.close();
});

test('a command submitted from an answer is made durable, whether a batch is syncing or not', async () => {
  const { sequencer, writer } = setup();
  const answered: number[] = [];
  const followUp = (userId: number) => (outcome: { seq: number }): void => {
    answered.push(outcome.seq);
    sequencer.enqueue(deposit(userId), (next) => void answered.push(next.seq));
  };
  // Nothing fills during the first sync: the follow-up is written once the answers are given.
  sequencer.enqueue(deposit(1), followUp(11));
  await turn();
  writer.complete();
  assert.deepEqual(answered, [1]);
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [2]);
  // Now a batch fills during the sync: it is written at once, and the follow-up joins the batch after it.
  sequencer.enqueue(deposit(3), followUp(12));
  writer.complete();
  assert.deepEqual(answered, [1, 2]);
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [3]);
  writer.complete();
  assert.deepEqual(answered, [1, 2, 3]);
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [4]);
  const closed = sequencer.close();
  writer.complete();
  await closed;
  assert.deepEqual(answered, [1, 2, 3, 4]);
  assert.equal(sequencer.durableSeq, 4);
});

test('a failed write fails the syncing batch and the filling one, and the sequencer takes no more', async () => {
  const { sequencer, writer, log } = setup();
  const errors: Array<Error | null> = [];
  const record = (outcome: { error: Error | null }): void => void errors.push(outcome.error);
  sequencer.enqueue(deposit(1), record);
  await turn();
  sequencer.enqueue(deposit(2), record);
  writer.complete(new Error('disk gone'));
  assert.deepEqual(log, []);
  assert.equal(errors.length, 2);
  assert.ok(errors.every((error) => error instanceof SequencerClosedError));
  assert.equal(writer.writes.length, 0);
  sequencer.enqueue(deposit(3), record);
  assert.ok(errors[2] instanceof SequencerClosedError);
  assert.equal(sequencer.accepting, false);
});

test('a durable batch visits each event with its command seq and time, also when a consumer reads it again inside its visitor', async () => {
  const writer = new ManualWriter();
  let now = 1_000;
  const seen: string[] = [];
  const sequencer = new Sequencer({
    engine: new Engine({ markets, domains: platformDomains }),
    writer: writer as unknown as SegmentWriter,
    clock: () => now++,
    lastSeq: 0,
    onDurable: (batch) =>
      batch.forEachEvent((_event, seq, ts) => {
        let inner = 0;
        batch.forEachEvent(() => void inner++);
        seen.push(`${seq}@${ts} of ${inner}`);
      }),
  });
  sequencer.enqueue(deposit(1), () => {});
  sequencer.enqueue(deposit(2), () => {});
  await turn();
  writer.complete();
  // A deposit makes one event (its balance change): two events in the batch, each read with its own stamps.
  assert.deepEqual(seen, ['1@1000 of 2', '2@1001 of 2']);
  await sequencer.close();
});

test('when the next batch cannot even start its write, the durable batch is still released and answered', async () => {
  const { sequencer, writer, log } = setup();
  const answers: string[] = [];
  const record = (outcome: { seq: number; error: Error | null }): void => void answers.push(outcome.error === null ? `ok ${outcome.seq}` : 'failed');
  sequencer.enqueue(deposit(1), record);
  await turn();
  sequencer.enqueue(deposit(2), record);
  writer.failAtOnce = new Error('cannot open the next segment');
  writer.complete();
  assert.deepEqual(answers, ['failed', 'ok 1']);
  assert.deepEqual(log, ['durable 1-1 (writes open 0)']);
  assert.equal(sequencer.durableSeq, 1);
  assert.equal(sequencer.accepting, false);
  await assert.rejects(sequencer.close(), /cannot open the next segment/);
});

test('a clean point asked for under steady load: new commands wait unapplied until what was applied is durable, then run in arrival order', async () => {
  const writer = new ManualWriter();
  let sequencer: Sequencer | null = null;
  const clean: boolean[] = [];
  sequencer = new Sequencer({
    engine: new Engine({ markets, domains: platformDomains }),
    writer: writer as unknown as SegmentWriter,
    clock: () => 1_000,
    lastSeq: 0,
    onDurable: (batch) => void clean.push(sequencer!.lastSeq === batch.lastSeq),
  });
  const answered: number[] = [];
  const errors: Array<Error | null> = [];
  const answer = (outcome: { seq: number; error: Error | null }): void => {
    answered.push(outcome.seq);
    errors.push(outcome.error);
  };
  // Already clean: nothing to wait for, the next command runs at once.
  sequencer.requestCleanPoint();
  sequencer.enqueue(deposit(1), answer);
  sequencer.enqueue(deposit(2), answer);
  assert.equal(sequencer.lastSeq, 2);
  await turn();
  sequencer.enqueue(deposit(3), answer); // fills the next batch while 1-2 syncs: steady load
  sequencer.requestCleanPoint();
  sequencer.enqueue(deposit(4), answer);
  sequencer.enqueue(deposit(5), answer);
  assert.equal(sequencer.lastSeq, 3, 'commands after the request are not applied yet');
  assert.equal(sequencer.queueDepth, 5, 'but they are counted in the queue');
  writer.complete();
  assert.deepEqual(clean, [false], '1-2 is durable, 3 was applied after it');
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [3]);
  assert.equal(sequencer.lastSeq, 3);
  writer.complete();
  assert.deepEqual(clean, [false, true], 'the batch of 3 is a clean point');
  // Then the held commands ran, in arrival order, and their batch is being written.
  assert.equal(sequencer.lastSeq, 5);
  assert.deepEqual(writer.writes.map((write) => write.firstSeq), [4]);
  writer.complete();
  assert.deepEqual(answered, [1, 2, 3, 4, 5]);
  assert.ok(errors.every((error) => error === null));
  // Without a request, steady load never gives one.
  sequencer.enqueue(deposit(6), answer);
  await turn();
  sequencer.enqueue(deposit(7), answer);
  writer.complete();
  sequencer.enqueue(deposit(8), answer);
  writer.complete();
  assert.deepEqual(clean, [false, true, true, false, false]);
  const closed = sequencer.close();
  writer.complete();
  await closed;
  assert.deepEqual(answered, [1, 2, 3, 4, 5, 6, 7, 8]);
});

test('commands held for a clean point are refused, not lost, when the journal write fails', async () => {
  const { sequencer, writer } = setup();
  const errors: Array<Error | null> = [];
  const record = (outcome: { error: Error | null }): void => void errors.push(outcome.error);
  sequencer.enqueue(deposit(1), record);
  await turn();
  sequencer.requestCleanPoint();
  sequencer.enqueue(deposit(2), record);
  assert.equal(sequencer.lastSeq, 1);
  writer.complete(new Error('disk gone'));
  assert.equal(errors.length, 2);
  assert.ok(errors.every((error) => error instanceof SequencerClosedError));
  assert.equal(sequencer.lastSeq, 1, 'the held command never ran');
});

test('commands held for a clean point when the sequencer is closed are still made durable', async () => {
  const { sequencer, writer } = setup();
  const answered: number[] = [];
  const answer = (outcome: { seq: number; error: Error | null }): void => void answered.push(outcome.error === null ? outcome.seq : -1);
  sequencer.enqueue(deposit(1), answer);
  await turn();
  sequencer.requestCleanPoint();
  sequencer.enqueue(deposit(2), answer);
  const closed = sequencer.close();
  sequencer.enqueue(deposit(3), answer); // after close: refused
  writer.complete();
  writer.complete();
  await closed;
  assert.deepEqual(answered, [-1, 1, 2]);
  assert.equal(sequencer.durableSeq, 2);
});

test('a durable batch visits its domain events alone exactly as they are among all its events, refused commands left out', async () => {
  const writer = new ManualWriter();
  let now = 5_000;
  const all: string[] = [];
  const domainOnly: string[] = [];
  const engine = new Engine({ markets, domains: platformDomains });
  const sequencer = new Sequencer({
    engine,
    writer: writer as unknown as SegmentWriter,
    clock: () => now++,
    lastSeq: 0,
    onDurable: (batch) => {
      batch.forEachEvent((event, seq, ts) => {
        if (event.kind === EventKind.domain) all.push(`${seq}@${ts} ${JSON.stringify(event)}`);
      });
      batch.forEachDomainEvent((event, seq, ts) => domainOnly.push(`${seq}@${ts} ${JSON.stringify(event)}`));
    },
  });
  const generator = new CommandGenerator({
    seed: 31,
    markets,
    domains: domainGenerators(),
    oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId },
  });
  let refused = 0;
  const count = (outcome: { result: number; error: Error | null }): void => {
    assert.equal(outcome.error, null);
    if (outcome.result !== Result.ok) refused++;
  };
  for (const command of generator.fundingCommands()) sequencer.enqueue(command, count);
  for (let index = 0; index < 6_000; index++) {
    // The sequencer applies at once; a batch is written and released every 300 commands.
    sequencer.enqueue(generator.next(), count);
    if (index % 300 === 299) {
      await turn();
      while (writer.writes.length > 0) writer.complete();
    }
  }
  await turn();
  while (writer.writes.length > 0) writer.complete();
  assert.ok(refused > 0, 'the mix has refused commands');
  assert.ok(domainOnly.length >= 20, `the mix has domain events among its order events (${domainOnly.length})`);
  assert.deepEqual(domainOnly, all);
  await sequencer.close();
});

test('truncating a tape drops the domain events recorded from the mark on, and no others', () => {
  const tape = new EventTape();
  const domain = (type: number): DomainEvent => ({ kind: EventKind.domain, type, body: { type } });
  tape.onEvent(domain(1));
  const mark = tape.length;
  tape.onEvent(domain(2));
  tape.onEvent(domain(3));
  tape.truncate(mark);
  tape.onEvent(domain(4));
  assert.deepEqual(tape.objects.map((event) => event.type), [1, 4]);
  assert.deepEqual(tape.objectAt, [0, mark]);
  const read: number[] = [];
  new TapeReader().read(tape, 0, tape.length, (event) => {
    if (event.kind === EventKind.domain) read.push(event.type);
  });
  assert.deepEqual(read, [1, 4]);
});
