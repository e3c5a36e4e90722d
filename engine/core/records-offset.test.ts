/**
 * Where the order records start in their buffer (`EngineOptions.recordsByteOffset`, order-store.ts) moves
 * them in memory and nothing else: engines at offsets 0 and 48 given the same seeded platform stream return
 * the same results and events, reach the same state hash, and take the same snapshot, whole or as a copy
 * of the records; a snapshot of one restores into the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from './engine.ts';
import { CollectingSink } from './events.ts';
import { OrderStore, noSlot, recordBytes } from './order-store.ts';
import { completeSnapshot, restoreSnapshot, snapshotCopyTransfers, takeSnapshot, takeSnapshotCopy } from './snapshot.ts';
import { stateHash } from './state-hash.ts';
import { CommandGenerator } from './sim/generator.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';

const markets = loadMarkets();

test('engines with the records at offsets 0 and 48 behave and snapshot alike', () => {
  const plainEvents = new CollectingSink();
  const movedEvents = new CollectingSink();
  const plain = new Engine({ markets, sink: plainEvents, domains: platformDomains });
  const moved = new Engine({ markets, sink: movedEvents, domains: platformDomains, recordsByteOffset: 48 });
  const generator = new CommandGenerator({ seed: 31, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => plain.slotOf(orderId) !== noSlot, lastOrderId: () => plain.lastOrderId } });
  for (const command of generator.fundingCommands()) assert.equal(moved.apply(command), plain.apply(command));
  for (let index = 0; index < 30_000; index++) {
    const command = generator.next();
    assert.equal(moved.apply(command), plain.apply(command), `result of command ${index}`);
    assert.deepEqual(movedEvents.events, plainEvents.events, `events of command ${index}`);
    plainEvents.clear();
    movedEvents.clear();
  }
  // The records grew through several doublings, each into a buffer with the records 48 bytes in.
  assert.ok(moved.orders.capacity >= 2048, `capacity ${moved.orders.capacity}`);
  assert.equal(moved.orders.f64.byteOffset, 48);
  assert.equal(moved.orders.i32.byteOffset, 48);
  assert.equal(moved.orders.i32.length, moved.orders.capacity * (recordBytes / 4));
  assert.equal(plain.orders.f64.byteOffset, 0);
  assert.equal(stateHash(moved), stateHash(plain));

  const snapshot = takeSnapshot(plain);
  assert.deepEqual(takeSnapshot(moved), snapshot);
  const copy = takeSnapshotCopy(moved, true);
  assert.ok('store' in copy.orders, 'a copy of the records');
  assert.deepEqual(completeSnapshot(structuredClone(copy, { transfer: snapshotCopyTransfers(copy) })), snapshot);

  const restored = new Engine({ markets, domains: platformDomains, recordsByteOffset: 48 });
  restoreSnapshot(restored, snapshot);
  assert.equal(restored.orders.f64.byteOffset, 48);
  assert.equal(stateHash(restored), stateHash(plain));
});

test('the records offset is a multiple of 8 below 64', () => {
  for (const offset of [0, 8, 56]) assert.doesNotThrow(() => new OrderStore(1024, offset));
  for (const offset of [-8, 4, 64, 1.5]) assert.throws(() => new OrderStore(1024, offset), /records offset/);
});
