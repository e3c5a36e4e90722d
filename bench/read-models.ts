/**
 * Throughput of the exchange read models' writer (shell/read-models/writer.ts, which the server runs on a
 * worker thread): how many engine events per second `applyBatch` turns into SQLite rows, at several batch
 * sizes (64-command batches also committed as they go, with the time of each commit), and the replay path
 * used at start.
 *
 *   node --import tsx bench/read-models.ts [commands]      (default 400 000)
 *
 * The seeded generator's mix (resting, crossing, IOC, FOK, market and stop orders, cancels, amends,
 * batches, funding; a fifth in paper mode) runs through an engine first, untimed. Each command's events go
 * onto an event tape per batch, exactly as the sequencer keeps them, so the timed part reads them through
 * the same TapeReader. Every timed run starts from an empty database file (WAL, synchronous=NORMAL, as the
 * server opens it). The "read only" row is the cost of visiting the events with nothing done to them;
 * rows/s counts the rows the tables hold at the end (updates of existing rows come on top).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../engine/core/engine.ts';
import type { DomainEvent, EngineEvent } from '../engine/core/events.ts';
import { noSlot } from '../engine/core/order-store.ts';
import { Result } from '../engine/core/results.ts';
import { CommandGenerator } from '../engine/core/sim/generator.ts';
import { EventTape, TapeReader } from '../engine/runtime/event-tape.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { visitDomainEvents, type DurableBatch } from '../engine/runtime/sequencer.ts';
import { ReadModelWriter } from '../shell/read-models/writer.ts';
import { openReadModelDatabase } from '../shell/read-models/schema.ts';

const commandsWanted = Number(process.argv[2] ?? 400_000);
const batchSizes = [64, 256, 2_048, 16_384];
/**
 * Commands between two commits for the 64-command batches (about what the sequencer makes durable at a
 * time under load): every batch (as when a query waits for each), and about 100 ms of commands at 40 000 a
 * second (the worker's commit interval under load). The other rows commit only when a transaction reaches
 * `replayCommandsPerTransaction` commands.
 */
const commitEveryCommands = [64, 4_096];
const markets = loadMarkets();
const reader = new TapeReader();
/** One command every 50 µs of simulated time: 20 000 commands per second of trading. */
const commandSpacingMs = 0.05;

/** Journaled commands of one batch as the sequencer holds them: a tape, and per command its end and ts. */
class RecordedBatch implements DurableBatch {
  readonly tape = new EventTape();
  readonly eventEnds: number[] = [];
  readonly timestamps: number[] = [];
  lastSeq = 0;

  constructor(readonly firstSeq: number) {}

  forEachDomainEvent(visit: (event: DomainEvent, seq: number, ts: number) => void): void {
    visitDomainEvents(this, visit);
  }

  forEachEvent(visit: (event: EngineEvent, seq: number, ts: number) => void): void {
    let start = 0;
    for (let index = 0; index < this.eventEnds.length; index++) {
      const seq = this.firstSeq + index;
      const ts = this.timestamps[index]!;
      reader.read(this.tape, start, this.eventEnds[index]!, (event) => visit(event, seq, ts));
      start = this.eventEnds[index]!;
    }
  }
}

function record(batchCommands: number): { batches: RecordedBatch[]; events: number; commands: number } {
  const engine = new Engine({ markets });
  const generator = new CommandGenerator({ seed: 11, markets, oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot } });
  const funding = generator.fundingCommands();
  const batches: RecordedBatch[] = [];
  let batch = new RecordedBatch(1);
  let seq = 0;
  let events = 0;
  for (let index = 0; index < commandsWanted; index++) {
    const command = funding.shift() ?? generator.next();
    engine.sink = batch.tape;
    const mark = batch.tape.length;
    if (engine.apply(command) !== Result.ok) {
      batch.tape.length = mark;
      continue;
    }
    seq++;
    batch.eventEnds.push(batch.tape.length);
    batch.timestamps.push(1_767_225_600_000 + Math.floor(seq * commandSpacingMs));
    batch.lastSeq = seq;
    if (batch.eventEnds.length === batchCommands) {
      events += countEvents(batch);
      batches.push(batch);
      batch = new RecordedBatch(seq + 1);
    }
  }
  if (batch.eventEnds.length > 0) {
    events += countEvents(batch);
    batches.push(batch);
  }
  return { batches, events, commands: seq };
}

function countEvents(batch: RecordedBatch): number {
  let count = 0;
  batch.forEachEvent(() => count++);
  return count;
}

function seconds(run: () => void): number {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The time of each `commit` call, in ms, when a run commits as it goes. */
let commitMs: number[] = [];

function commitTimed(writer: ReadModelWriter): void {
  const started = process.hrtime.bigint();
  writer.commit();
  commitMs.push(Number(process.hrtime.bigint() - started) / 1e6);
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function timed(batches: readonly RecordedBatch[], apply: (writer: ReadModelWriter) => void): { seconds: number; rows: number } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-read-models-'));
  const db = openReadModelDatabase(dir);
  try {
    const writer = new ReadModelWriter(db, markets);
    const elapsed = seconds(() => {
      apply(writer);
      writer.commit();
    });
    assert(writer.appliedSeq === batches[batches.length - 1]!.lastSeq, 'every batch applied');
    const rows = ['exchange_orders', 'exchange_trades', 'exchange_candles'].reduce((sum, table) => sum + (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number), 0);
    return { seconds: elapsed, rows };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function assert(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

function line(label: string, events: number, commands: number, elapsed: number, rows: number): void {
  const perSecond = (count: number): string => Math.round(count / elapsed).toLocaleString('en-US').padStart(11);
  process.stdout.write(`${label.padEnd(36)} ${perSecond(events)} events/s ${perSecond(commands)} commands/s ${perSecond(rows)} rows/s\n`);
}

for (const batchCommands of batchSizes) {
  const { batches, events, commands } = record(batchCommands);
  if (batchCommands === batchSizes[0]) process.stdout.write(`${commands.toLocaleString('en-US')} journaled commands, ${events.toLocaleString('en-US')} events\n`);
  const readOnly = seconds(() => batches.forEach((batch) => batch.forEachEvent(() => {})));
  line(`read only, ${batchCommands} per batch`, events, commands, readOnly, 0);
  if (batchCommands === batchSizes[0]) {
    for (const commitEvery of commitEveryCommands) {
      commitMs = [];
      const committed = timed(batches, (writer) => {
        let sinceCommit = 0;
        for (const batch of batches) {
          writer.applyBatch(batch);
          sinceCommit += batch.lastSeq - batch.firstSeq + 1;
          if (sinceCommit < commitEvery) continue;
          commitTimed(writer);
          sinceCommit = 0;
        }
      });
      const sorted = commitMs.sort((a, b) => a - b);
      line(`applyBatch, ${batchCommands}/batch, commit/${commitEvery}`, events, commands, committed.seconds, committed.rows);
      process.stdout.write(`${''.padEnd(36)} commit p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms (${sorted.length} commits)\n`);
    }
  }
  const applied = timed(batches, (writer) => batches.forEach((batch) => writer.applyBatch(batch)));
  line(`applyBatch, ${batchCommands} per batch`, events, commands, applied.seconds, applied.rows);
  if (batchCommands === batchSizes[batchSizes.length - 1]) {
    const replayed = timed(batches, (writer) => {
      const feed = writer.replayFeed();
      for (const batch of batches) batch.forEachEvent((event, seq, ts) => feed.onEvent(event, seq, ts));
      writer.finishReplay(batches[batches.length - 1]!.lastSeq);
    });
    line('replay feed', events, commands, replayed.seconds, replayed.rows);
  }
}
