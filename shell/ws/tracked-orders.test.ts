/**
 * The private stream's tracked orders: fields kept per slot, freed slots reused without leaking the old
 * order's fields, an account's orders dropped together, and growth past the first arrays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { TrackedOrders, untracked } from './tracked-orders.ts';

const pair = loadMarkets().pairs[0]!;

function order(orderId: number, userId: number, mode: 0 | 1, clientOrderId = '') {
  return { orderId, userId, mode, pair, side: 1, orderType: 0, clientOrderId, quantityLots: orderId * 10, priceTicks: 1000 + orderId, filledLots: 0, filledNotionalAtoms: 0 } as const;
}

test('tracked orders keep their fields by slot, reuse freed slots and drop an account at once', () => {
  const tracked = new TrackedOrders();
  const a = tracked.track(order(1, 7, 0, 'a-1'));
  const b = tracked.track(order(2, 7, 1));
  const c = tracked.track(order(3, 8, 0));
  assert.equal(tracked.size, 3);
  assert.deepEqual([tracked.userId(b), tracked.mode(b), tracked.clientOrderId(a), tracked.quantityLots(c), tracked.priceTicks(c)], [7, 1, 'a-1', 30, 1003]);
  tracked.filled(a, 4, 400);
  tracked.filled(a, 1, 101);
  tracked.amended(a, 999, 8);
  assert.deepEqual([tracked.filledLots(a), tracked.filledNotionalAtoms(a), tracked.priceTicks(a), tracked.quantityLots(a)], [5, 501, 999, 8]);
  // Tracking an order again sets its fields anew in the same slot.
  assert.equal(tracked.track(order(1, 7, 0, 'a-1')), a);
  assert.equal(tracked.filledLots(a), 0);
  tracked.untrack(a);
  assert.equal(tracked.slotOf(1), untracked);
  const d = tracked.track(order(4, 9, 0));
  assert.equal(d, a, 'the freed slot is reused');
  assert.deepEqual([tracked.orderId(d), tracked.clientOrderId(d), tracked.filledLots(d)], [4, '', 0]);
  tracked.untrackAccount(7, 1);
  assert.deepEqual([tracked.slotOf(2), tracked.slotOf(3), tracked.slotOf(4), tracked.size], [untracked, c, d, 2]);
});

test('tracked orders grow past their first arrays and drop a large account whole', () => {
  const tracked = new TrackedOrders();
  for (let id = 1; id <= 5000; id++) tracked.track(order(id, id % 2 === 0 ? 1 : 2, 0));
  assert.equal(tracked.size, 5000);
  assert.equal(tracked.quantityLots(tracked.slotOf(4999)), 49_990);
  tracked.untrackAccount(1, 0);
  assert.equal(tracked.size, 2500);
  for (let id = 1; id <= 5000; id++) assert.equal(tracked.slotOf(id) === untracked, id % 2 === 0, `order ${id}`);
});
