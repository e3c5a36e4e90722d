/**
 * Snapshots written on the snapshot writer's thread (engine/runtime/snapshot-worker.ts), as the server
 * runs them: the payload taken on the engine's thread encodes to the same bytes after the copy that
 * postMessage makes; periodic snapshots are written by the worker, one at a time, only once durable, and
 * a restart from one of them (the closing snapshot removed) gives the live state; close waits for the
 * one in flight. The test sits under shell/ because it starts the worker as the server does
 * (shell/workers.ts), which nothing under engine/ may import.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from '../engine/core/commands.ts';
import { Engine } from '../engine/core/engine.ts';
import { noSlot, recordsBuffer } from '../engine/core/order-store.ts';
import { takeSnapshot } from '../engine/core/snapshot.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import { CommandGenerator } from '../engine/core/sim/generator.ts';
import { domainGenerators, platformDomains } from '../engine/domains/index.ts';
import { encodeSnapshotPayload, finishSnapshot, listSnapshots, spareAfter, takeSnapshotAt, takenRecords, takenTransfers } from '../engine/journal/snapshot-file.ts';
import { DurableEngine } from '../engine/runtime/durable-engine.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { startWorker } from './workers.ts';

const markets = loadMarkets();

function generatorFor(engine: Engine, seed: number): { generator: CommandGenerator; funding: Command[] } {
  const generator = new CommandGenerator({ seed, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  return { generator, funding: generator.fundingCommands() };
}

/** Runs `body` with a fresh data directory, removed afterwards whatever happens. */
async function withDataDir(body: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'snapshot-writer-'));
  try {
    await body(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('a taken snapshot gives the same hash and bytes after a structured clone (what postMessage hands the worker)', () => {
  const engine = new Engine({ markets, domains: platformDomains });
  const { generator, funding } = generatorFor(engine, 41);
  for (let index = 0; index < 6_000; index++) engine.apply(index < funding.length ? funding[index]! : generator.next());
  assert.ok(engine.orders.liveCount > 0);
  const taken = takeSnapshotAt(engine, 6_000);
  assert.ok(Object.keys(taken.copy.state.domains ?? {}).length > 0, 'the platform domains have state to carry');
  const orders = taken.copy.orders;
  assert.ok('store' in orders, 'the orders are taken as a copy of the records');
  assert.ok(orders.store.clientSlots.length > 0, 'some orders carry client order ids');
  assert.ok(orders.contexts.some((context) => context.buyStops.length + context.sellStops.length > 0), 'some stops wait');
  const transfers = takenTransfers(taken);
  const received = structuredClone(taken, { transfer: transfers });
  const payload = finishSnapshot(received);
  assert.ok(transfers.every((buffer) => buffer.byteLength === 0), 'the copied records were handed over, not copied');
  assert.equal(payload.stateHash, stateHash(engine));
  // The same bytes as the columns read from the engine itself.
  assert.deepEqual(encodeSnapshotPayload(payload), encodeSnapshotPayload({ seq: 6_000, stateHash: stateHash(engine), state: takeSnapshot(engine) }));

  // The worker hands the records' buffer back; the next snapshot copies into it, over what it held before.
  const spare = takenRecords(received);
  assert.ok(spare !== null && spare.byteLength > 0);
  for (let index = 0; index < 300; index++) engine.apply(generator.next());
  const next = takeSnapshotAt(engine, 6_300, spare);
  assert.ok(takenRecords(next) === spare, 'the spare buffer is reused');
  const nextPayload = finishSnapshot(structuredClone(next, { transfer: takenTransfers(next) }));
  assert.equal(nextPayload.stateHash, stateHash(engine));
  assert.deepEqual(encodeSnapshotPayload(nextPayload), encodeSnapshotPayload({ seq: 6_300, stateHash: stateHash(engine), state: takeSnapshot(engine) }));
});

test('the buffer handed back is the copy\'s own while it has room, and a larger one once the book nearly fills it or grows faster', () => {
  const engine = new Engine({ markets, domains: platformDomains });
  const { generator, funding } = generatorFor(engine, 44);
  for (let index = 0; index < 4_000; index++) engine.apply(index < funding.length ? funding[index]! : generator.next());
  const bytes = engine.orders.copyBytes;
  assert.ok(bytes > 0);
  const roomy = takeSnapshotAt(engine, 4_000, recordsBuffer(bytes, false));
  assert.ok(spareAfter(roomy) === takenRecords(roomy), 'an eighth of room left: the same buffer');
  assert.ok(spareAfter(roomy, bytes - bytes / 10) === takenRecords(roomy), 'room for the growth since the snapshot before: the same buffer');
  const growing = spareAfter(roomy, bytes / 2)!;
  assert.ok(growing !== takenRecords(roomy) && growing.byteLength >= bytes * 1.5, `room for as much growth again: ${growing.byteLength} for ${bytes}`);
  const tight = takeSnapshotAt(engine, 4_000, new ArrayBuffer(bytes));
  const larger = spareAfter(tight)!;
  assert.ok(larger !== takenRecords(tight) && larger.byteLength >= bytes * 1.125, `a larger buffer: ${larger.byteLength} for ${bytes}`);
  // No memory for a larger one: the same buffer, and the snapshot goes on.
  const huge = { ...roomy, copy: { ...roomy.copy, orders: { count: 0, contexts: [], store: { slots: 2 ** 38, records: new ArrayBuffer(128), clientSlots: new Int32Array(0), clientIds: [] } } } };
  assert.ok(spareAfter(huge) === huge.copy.orders.store.records);
  // The next snapshot copies into it and hashes alike.
  for (let index = 0; index < 200; index++) engine.apply(generator.next());
  const next = takeSnapshotAt(engine, 4_200, larger);
  assert.ok(takenRecords(next) === larger);
  assert.equal(finishSnapshot(structuredClone(next, { transfer: takenTransfers(next) })).stateHash, stateHash(engine));
});

test('a book recovered at start gets its first snapshot\'s records buffer prepared by the worker', async () => {
  await withDataDir(async (dataDir) => {
    let commandTs = 0;
    const first = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, clock: () => commandTs });
    const { generator, funding } = generatorFor(first.engine, 45);
    const pending: Array<Promise<unknown>> = [];
    for (let index = 0; index < 3_000; index++) {
      const command = index < funding.length ? funding[index]! : generator.next();
      commandTs = command.ts;
      pending.push(first.submit(command));
    }
    await Promise.all(pending.splice(0));
    await first.close();

    const reserved: number[] = [];
    const written: number[] = [];
    const log = (event: string, fields: Record<string, unknown>): void => {
      if (event === 'snapshot_records_reserved') reserved.push(Number(fields['bytes']));
      if (event === 'snapshot_written') written.push(Number(fields['seq']));
      if (event === 'snapshot_failed') assert.fail(`snapshot failed: ${String(fields['error'])}`);
    };
    const durable = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, clock: () => commandTs, snapshotEveryCommands: 100, log, startWorker, reserveRecordsBytesMin: 1 });
    const store = durable.engine.orders;
    const bytesAtStart = store.copyBytes;
    assert.ok(bytesAtStart > 0, 'the recovered book holds orders');
    const spares: Array<number | null> = [];
    const copyRecords = store.copyRecords.bind(store);
    store.copyRecords = (spare = null) => {
      spares.push(spare === null ? null : spare.byteLength);
      return copyRecords(spare);
    };
    for (const deadline = Date.now() + 60_000; reserved.length === 0; ) {
      assert.ok(Date.now() < deadline, 'the worker prepared no records buffer within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(reserved, [recordsBuffer(bytesAtStart, false).byteLength]);
    for (let index = 0; written.length === 0; index++) {
      assert.ok(index < 20_000, 'no snapshot was written');
      const command = generator.next();
      commandTs = command.ts;
      await durable.submit(command);
      if (index % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(spares[0], reserved[0], 'the first snapshot copied into the prepared buffer');
    await durable.close();
  });
});

test('a worker that cannot start at open is reported and the engine opens and takes commands', async () => {
  await withDataDir(async (dataDir) => {
    let commandTs = 0;
    const first = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, clock: () => commandTs });
    const { generator, funding } = generatorFor(first.engine, 46);
    for (let index = 0; index < 1_000; index++) {
      const command = index < funding.length ? funding[index]! : generator.next();
      commandTs = command.ts;
      await first.submit(command);
    }
    await first.close();
    const failures: string[] = [];
    const durable = DurableEngine.open({
      dataDir,
      engine: { markets, domains: platformDomains },
      clock: () => commandTs,
      log: (event, fields) => event === 'snapshot_failed' && failures.push(String(fields['error'])),
      startWorker: () => {
        throw new Error('no thread for the worker');
      },
      reserveRecordsBytesMin: 1,
    });
    assert.deepEqual(failures, ['no thread for the worker']);
    const command = generator.next();
    commandTs = command.ts;
    await durable.submit(command);
    assert.equal(durable.sequencer.lastSeq, command.seq);
    await durable.close();
  });
});

test('the worker writes periodic snapshots once durable, and a restart from one gives the live state', async () => {
  await withDataDir(async (dataDir) => {
    let commandTs = 0;
    const written: Array<{ seq: number; thread: unknown }> = [];
    const log = (event: string, fields: Record<string, unknown>): void => {
      if (event === 'snapshot_written') written.push({ seq: Number(fields['seq']), thread: fields['thread'] });
      if (event === 'snapshot_failed') assert.fail(`snapshot failed: ${String(fields['error'])}`);
    };
    const durable = DurableEngine.open({
      dataDir,
      engine: { markets, domains: platformDomains },
      clock: () => commandTs,
      snapshotEveryCommands: 1_500,
      log,
      startWorker,
    });
    const { generator, funding } = generatorFor(durable.engine, 42);
    const pending: Array<Promise<unknown>> = [];
    for (let index = 0; index < 9_000; index++) {
      const command = index < funding.length ? funding[index]! : generator.next();
      commandTs = command.ts;
      pending.push(durable.submit(command));
      if (index % 250 === 249) {
        await Promise.all(pending.splice(0));
        // Let the worker's answers in between batches, as the server's event loop does.
        await new Promise((resolve) => setTimeout(resolve, 5));
        // The first snapshot starts the worker, which loads its modules first (slowly from the sources, on
        // a busy machine slower still): wait for it, so that the later ones come while commands flow.
        for (const deadline = Date.now() + 60_000; written.length === 0; ) {
          assert.ok(Date.now() < deadline, 'the worker wrote no snapshot within 60 s');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    }
    await Promise.all(pending);
    const liveHash = stateHash(durable.engine);
    const lastSeq = durable.sequencer.lastSeq;
    await durable.close();

    const byWorker = written.filter((entry) => entry.thread === 'worker');
    assert.ok(byWorker.length >= 2, `periodic snapshots written by the worker: ${JSON.stringify(written)}`);
    for (let index = 1; index < byWorker.length; index++) assert.ok(byWorker[index]!.seq > byWorker[index - 1]!.seq, 'one at a time, in order');
    assert.ok(byWorker.every((entry) => entry.seq <= lastSeq));
    // The newest file covers the last command: the closing snapshot, written on the engine's thread, unless
    // the worker's last one already did. Without the closing one the newest is the worker's.
    const snapshots = listSnapshots(join(dataDir, 'snapshots'));
    assert.equal(snapshots[0]!.seq, lastSeq);
    const newestByWorker = byWorker[byWorker.length - 1]!.seq;
    if (newestByWorker !== lastSeq) rmSync(snapshots[0]!.path);
    const reopened = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, clock: () => commandTs, log: (event, fields) => event === 'snapshot_skipped' && assert.fail(`snapshot skipped: ${JSON.stringify(fields)}`) });
    assert.equal(reopened.recovery.snapshotSeq, newestByWorker, `files ${JSON.stringify(snapshots.map((file) => file.seq))}, written ${JSON.stringify(written)}`);
    assert.equal(reopened.recovery.lastSeq, lastSeq);
    assert.equal(reopened.recovery.stateHash, liveHash);
    await reopened.close();
  });
});

test('a snapshot that cannot be taken (no memory for the copy) is reported, the commands go on, and the next one is written', async () => {
  await withDataDir(async (dataDir) => {
    let commandTs = 0;
    const events: Array<{ event: string; seq: number; thread?: unknown }> = [];
    const log = (event: string, fields: Record<string, unknown>): void => {
      if (event.startsWith('snapshot_')) events.push({ event, seq: Number(fields['seq']), thread: fields['thread'] });
    };
    const durable = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, clock: () => commandTs, snapshotEveryCommands: 500, log, startWorker });
    const store = durable.engine.orders;
    const copyRecords = store.copyRecords.bind(store);
    let refusals = 1;
    store.copyRecords = (spare) => {
      if (refusals-- > 0) throw new RangeError('Array buffer allocation failed');
      return copyRecords(spare);
    };
    const { generator, funding } = generatorFor(durable.engine, 43);
    // Every submission is answered (a broken sequencer would reject them).
    for (let index = 0; index < 2_000; index++) {
      const command = index < funding.length ? funding[index]! : generator.next();
      commandTs = command.ts;
      await durable.submit(command);
      if (index % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const deadline = Date.now() + 60_000; !events.some((entry) => entry.event === 'snapshot_written'); ) {
      assert.ok(Date.now() < deadline, `no snapshot written within 60 s: ${JSON.stringify(events)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const liveHash = stateHash(durable.engine);
    const lastSeq = durable.sequencer.lastSeq;
    await durable.close();
    const failed = events.filter((entry) => entry.event === 'snapshot_failed');
    assert.equal(failed.length, 1, JSON.stringify(events));
    const written = events.filter((entry) => entry.event === 'snapshot_written' && entry.thread === 'worker');
    assert.ok(written.length >= 1 && written[0]!.seq > failed[0]!.seq, JSON.stringify(events));
    const reopened = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, clock: () => commandTs });
    assert.equal(reopened.recovery.stateHash, liveHash);
    assert.equal(reopened.recovery.lastSeq, lastSeq);
    await reopened.close();
  });
});
