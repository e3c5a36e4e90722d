/**
 * The open orders in memory against the SQLite read model they stand in for: a seeded stream of every
 * command kind (engine/core/sim/generator.ts, domains included) through a real Engine, handed to both in
 * durable batches of random sizes; after every batch, pages of open orders (every pair and one pair, with
 * and without `before`) are the rows `ReadModelQueries.openOrders` returns, and orders found by id and by
 * client id are the rows of `order` and `orderByClientId`. At the end the view holds
 * exactly the engine's live orders; and a view loaded from the committed tables mid-stream, then fed the
 * rest, ends equal to the one fed from the start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { EventKind } from '../../engine/core/events.ts';
import { Prng } from '../../engine/core/sim/generator.ts';
import type { Mode } from '../../engine/core/commands.ts';
import { OpenOrders } from './open-orders.ts';
import { ReadModelQueries } from './queries.ts';
import { ReadModelWriter } from './writer.ts';
import { batchOf, markets, runEngine, temporaryDb } from './test-kit.ts';

const everything = 1_000_000;

test('open orders in memory page exactly as the SQLite read model, batch after batch, and reload from it', () => {
  const { engine, journaled } = runEngine(41, 40_000);
  const { dir, db } = temporaryDb();
  const writer = new ReadModelWriter(db, markets);
  const queries = new ReadModelQueries(db);
  const view = new OpenOrders();
  let reloaded: OpenOrders | null = null;
  // The same load through the other plan: one pass over the table instead of the partial index.
  let scanned: OpenOrders | null = null;
  const users = new Set<number>();
  for (const command of journaled) for (const event of command.events) if (event.kind === EventKind.orderAccepted) users.add(event.userId);
  const accounts = [...users].flatMap((userId) => [0, 1].map((mode) => ({ userId, mode: mode as Mode })));
  const pairIds = markets.pairs.map((pair) => pair.id);
  const random = new Prng(9);
  let batches = 0;
  let compared = 0;
  let emptyPages = 0;
  let paged = 0;
  let byClientId = 0;
  const check = (subject: OpenOrders, userId: number, mode: Mode, pairId: number, limit: number, before?: number): void => {
    const expected = queries.openOrders(userId, mode, pairId, limit, before);
    assert.deepEqual(subject.list(userId, mode, pairId, limit, before), expected, `user ${userId} mode ${mode} pair ${pairId} limit ${limit} before ${before}`);
    compared++;
    if (expected.length === 0) emptyPages++;
  };
  try {
    for (let start = 0; start < journaled.length; ) {
      const end = Math.min(journaled.length, start + random.int(1, 200));
      const batch = batchOf(journaled.slice(start, end));
      writer.applyBatch(batch);
      writer.commit();
      view.applyBatch(batch);
      reloaded?.applyBatch(batch);
      scanned?.applyBatch(batch);
      batches++;
      if (reloaded === null && end >= journaled.length / 2) {
        reloaded = new OpenOrders();
        queries.forEachOpenOrder((order) => reloaded!.load(order), 0);
        scanned = new OpenOrders();
        queries.forEachOpenOrder((order) => scanned!.load(order), Number.MAX_SAFE_INTEGER);
      }
      // Every account's whole list now and then; one account, one pair and a page before a random open id
      // after every batch.
      if (batches % 25 === 0) for (const { userId, mode } of accounts) check(view, userId, mode, 0, everything);
      const { userId, mode } = accounts[random.int(0, accounts.length - 1)]!;
      check(view, userId, mode, 0, everything);
      check(view, userId, mode, pairIds[random.int(0, pairIds.length - 1)]!, everything);
      const open = view.list(userId, mode, 0, everything);
      if (open.length > 2) {
        check(view, userId, mode, 0, random.int(1, 5), open[random.int(1, open.length - 1)]!.orderId);
        paged++;
      }
      // One order by id and by client id, as the SQLite queries find it.
      for (const order of open.slice(0, 3)) {
        assert.deepEqual(view.get(order.orderId), queries.order(order.orderId));
        if (order.clientOrderId === '') continue;
        assert.deepEqual(view.withClientOrderId(userId, mode, order.clientOrderId), queries.orderByClientId(userId, mode, order.pairId, order.clientOrderId));
        byClientId++;
      }
      start = end;
    }
    assert.ok(compared > 800 && paged > 200 && byClientId > 100, `compared ${compared} pages, ${paged} with before, ${byClientId} by client id`);
    assert.ok(emptyPages < compared / 2, 'most pages compared hold orders');

    // The view holds the engine's live orders, no more, with the engine's figures.
    let listed = 0;
    const store = engine.orders;
    for (const { userId, mode } of accounts) {
      for (const order of view.list(userId, mode, 0, everything)) {
        listed++;
        const slot = engine.slotOf(order.orderId);
        assert.notEqual(slot, -1, `order ${order.orderId} is live in the engine`);
        assert.deepEqual(
          [order.status, order.priceTicks, order.quantityLots, order.filledLots, order.filledNotionalAtoms],
          [store.status(slot), store.priceTicks(slot), store.quantityLots(slot), store.filledLots(slot), store.filledNotionalAtoms(slot)],
        );
      }
    }
    assert.equal(listed, view.size);
    // An order that is not live is not found, by id or by client id.
    const ended = journaled.flatMap((command) => command.events).filter((event) => event.kind === EventKind.orderCancelled).slice(-50);
    assert.equal(ended.length, 50);
    for (const event of ended) {
      if (event.kind !== EventKind.orderCancelled) continue;
      assert.equal(view.get(event.orderId), undefined);
      const row = queries.order(event.orderId)!;
      if (row.clientOrderId !== '') assert.notEqual(view.withClientOrderId(row.userId, row.mode, row.clientOrderId)?.orderId, event.orderId);
    }
    assert.equal(view.size, store.liveCount);
    assert.ok(view.size > 100, `${view.size} live orders at the end`);

    // Loaded from the tables halfway, then fed the rest: the same lists.
    assert.ok(reloaded !== null);
    assert.equal(reloaded.size, view.size);
    for (const { userId, mode } of accounts) assert.deepEqual(reloaded.list(userId, mode, 0, everything), view.list(userId, mode, 0, everything));
    assert.ok(scanned !== null);
    assert.equal(scanned.size, view.size);
    for (const { userId, mode } of accounts) assert.deepEqual(scanned.list(userId, mode, 0, everything), view.list(userId, mode, 0, everything));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
