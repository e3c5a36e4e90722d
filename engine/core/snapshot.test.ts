/**
 * A snapshot restores to the same state hash, and the restored engine then behaves exactly as the
 * original: the same next commands give the same results, events and hashes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from './commands.ts';
import { Engine } from './engine.ts';
import { Result } from './results.ts';
import { orderRequest } from './sim/order-request.ts';
import { CollectingSink } from './events.ts';
import { noSlot } from './order-store.ts';
import { completeSnapshot, restoreSnapshot, snapshotCopyTransfers, takeSnapshot, takeSnapshotCopy } from './snapshot.ts';
import { ReferenceBookFactory } from './book/reference-book.ts';
import { snapshotStateHash, stateHash, stateHashRestWords } from './state-hash.ts';
import { CommandGenerator } from './sim/generator.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';

const markets = loadMarkets();

test('snapshot, restore, and carry on identically', () => {
  const originalEvents = new CollectingSink();
  const original = new Engine({ markets, sink: originalEvents, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 21, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => original.slotOf(orderId) !== noSlot, lastOrderId: () => original.lastOrderId } });
  for (const command of generator.fundingCommands()) original.apply(command);
  for (let index = 0; index < 30_000; index++) original.apply(generator.next());
  assert.ok(original.orders.liveCount > 1000, 'a deep state to snapshot');

  const snapshot = takeSnapshot(original);
  const restoredEvents = new CollectingSink();
  const restored = new Engine({ markets, sink: restoredEvents, domains: platformDomains });
  restoreSnapshot(restored, snapshot);
  assert.equal(stateHash(restored), stateHash(original));
  assert.deepEqual(takeSnapshot(restored), snapshot);

  originalEvents.clear();
  for (let index = 0; index < 10_000; index++) {
    const command = generator.next();
    assert.equal(restored.apply(command), original.apply(command), `result of command ${index}`);
    assert.deepEqual(restoredEvents.events, originalEvents.events, `events of command ${index}`);
    originalEvents.clear();
    restoredEvents.clear();
  }
  assert.equal(stateHash(restored), stateHash(original));
  assert.equal(restored.ledger.audit(), null);
});

test("a snapshot's state hash from its copy and the recorded rest equals the engine's, all through a seeded platform stream", () => {
  const engine = new Engine({ markets, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 23, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  for (const command of generator.fundingCommands()) engine.apply(command);
  let checked = 0;
  let stops = 0;
  for (let index = 1; index <= 20_000; index++) {
    engine.apply(generator.next());
    if (index % 997 !== 0) continue;
    const snapshot = takeSnapshot(engine);
    stops += snapshot.orders.status.filter((status) => status === 0).length;
    const restWords = stateHashRestWords(engine);
    assert.equal(snapshotStateHash(snapshot, restWords, engine.settings.takerFeeBps), stateHash(engine), `after command ${index}`);
    // What another thread gets: a structured clone of both.
    assert.equal(snapshotStateHash(structuredClone(snapshot), structuredClone(restWords), engine.settings.takerFeeBps), stateHash(engine));
    // Taken as a copy of the order records and completed after a transfer: the same snapshot.
    const copy = takeSnapshotCopy(engine, true);
    assert.ok('store' in copy.orders);
    assert.deepEqual(completeSnapshot(structuredClone(copy, { transfer: snapshotCopyTransfers(copy) })), snapshot, `copy after command ${index}`);
    checked++;
  }
  assert.ok(checked >= 20 && stops > 0, `${checked} states checked, ${stops} pending stops among their orders`);
  // Columns out of book order are refused, not hashed into something else.
  const snapshot = takeSnapshot(engine);
  snapshot.orders.context.reverse();
  assert.throws(() => snapshotStateHash(snapshot, stateHashRestWords(engine), engine.settings.takerFeeBps), /out of book order/);
});

test('books that keep their own nodes (the reference book) are snapshotted as columns, the same as the fast books', () => {
  const fast = new Engine({ markets, domains: platformDomains });
  const reference = new Engine({ markets, domains: platformDomains, books: new ReferenceBookFactory() });
  const generator = new CommandGenerator({ seed: 25, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => fast.slotOf(orderId) !== noSlot, lastOrderId: () => fast.lastOrderId } });
  for (const command of generator.fundingCommands()) assert.equal(reference.apply(command), fast.apply(command));
  for (let index = 0; index < 5_000; index++) {
    const command = generator.next();
    assert.equal(reference.apply(command), fast.apply(command));
  }
  const copied = takeSnapshotCopy(fast, true);
  const columns = takeSnapshotCopy(reference, true);
  assert.ok('store' in copied.orders && !('store' in columns.orders));
  assert.deepEqual(snapshotCopyTransfers(columns), []);
  assert.deepEqual(completeSnapshot(columns), completeSnapshot(copied));
});

test('a snapshot is refused by an engine that is not fresh or has other pairs', () => {
  const engine = new Engine({ markets });
  const snapshot = takeSnapshot(engine);
  const used = new Engine({ markets });
  used.apply({ kind: 5, seq: 1, ts: 1, userId: 1, mode: 0, assetId: 1, amountAtoms: 5 });
  assert.throws(() => restoreSnapshot(used, snapshot), /fresh engine/);
  assert.throws(() => restoreSnapshot(new Engine({ markets }), { ...snapshot, pairIds: [1] }), /pairs differ/);
  assert.throws(() => restoreSnapshot(new Engine({ markets }), { ...snapshot, version: 99 }), /version/);
});

test('accounts restored without orders get their order lists: cancel-all, estimates and new orders work as before the snapshot', () => {
  const usdc = markets.assets.find((asset) => asset.symbol === 'USDC')!;
  const eth = markets.pairs.find((pair) => pair.base.symbol === 'ETH')!;
  const original = new Engine({ markets });
  let seq = 0;
  const apply = (engine: Engine, command: Record<string, unknown>): number => engine.apply({ seq: ++seq, ts: 1_000 + seq, ...command } as unknown as Command);
  for (let userId = 1; userId <= 200; userId++) assert.equal(apply(original, { kind: CommandKind.deposit, userId, mode: 0, assetId: usdc.id, amountAtoms: 10_000_000_000 }), Result.ok);
  // Only the first user has an order when the snapshot is taken: the restore grew lists for its account
  // alone (64 accounts), and the last user's account lay past them.
  assert.equal(apply(original, { kind: CommandKind.placeOrder, ...orderRequest({ orderId: original.lastOrderId + 1, userId: 1, pairId: eth.id, priceTicks: 290_000 }) }), Result.ok);
  const restored = new Engine({ markets });
  restoreSnapshot(restored, structuredClone(takeSnapshot(original)));
  const afterSeq = seq;
  for (const engine of [original, restored]) {
    seq = afterSeq;
    // Before the fix, the last user's account lay past the restored lists: cancel-all and the estimate never returned.
    assert.equal(apply(engine, { kind: CommandKind.cancelAll, userId: 200, mode: 0, pairId: 0 }), Result.ok);
    assert.equal(engine.estimateSell(200, 0, eth.id, 1, 1).filledLots, 1, 'one lot sells into the first user\'s bid');
    assert.equal(apply(engine, { kind: CommandKind.placeOrder, ...orderRequest({ orderId: engine.lastOrderId + 1, userId: 200, pairId: eth.id, priceTicks: 290_000 }) }), Result.ok);
    assert.equal(engine.openOrderSlots(200, 0).length, 1, 'the new order is on its account list');
  }
  assert.equal(stateHash(restored), stateHash(original));
});
