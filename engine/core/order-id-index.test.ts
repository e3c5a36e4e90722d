import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderIdIndex } from './order-id-index.ts';
import { noSlot, OrderStore } from './order-store.ts';
import { Prng } from './sim/generator.ts';

/**
 * The index against a Map, driven as the engine drives it: ids handed out in sequence (from a start that
 * may lie beyond 2^32), each placed in a slot of a real order store whose record holds the id, removed
 * before the slot is released, looked up live, ended and never issued.
 */
function exercise(seed: number, firstId: number, steps: number, liveTarget: number, longLivedShare: number): OrderIdIndex {
  const random = new Prng(seed);
  const store = new OrderStore(1 << 20);
  const index = new OrderIdIndex(store, 4);
  const reference = new Map<number, number>();
  const live: number[] = [];
  const ended: number[] = [];
  let nextId = firstId;
  for (let step = 0; step < steps; step++) {
    const roll = random.next();
    if (roll < 0.45 || live.length < liveTarget / 2) {
      const slot = store.allocate(() => {});
      const orderId = nextId++;
      store.setOrderId(slot, orderId);
      index.add(orderId, slot);
      reference.set(orderId, slot);
      live.push(orderId);
    } else if (roll < 0.9 && live.length > 0) {
      // Mostly recent orders end; a share of old ones stays live for a long time, so ids overflow.
      const pick = random.chance(longLivedShare) ? random.int(0, live.length - 1) : random.int(Math.max(0, live.length - 64), live.length - 1);
      const orderId = live[pick]!;
      live[pick] = live[live.length - 1]!;
      live.pop();
      const slot = reference.get(orderId)!;
      index.delete(orderId, slot);
      reference.delete(orderId);
      store.setOrderId(slot, -1);
      store.release(slot);
      ended.push(orderId);
    } else {
      const which = random.next();
      const orderId =
        which < 0.5 && live.length > 0 ? live[random.int(0, live.length - 1)]!
        : which < 0.8 && ended.length > 0 ? ended[random.int(0, ended.length - 1)]!
        : nextId + random.int(0, 1 << 22);
      assert.equal(index.get(orderId), reference.get(orderId) ?? noSlot, `get ${orderId} at step ${step}`);
      // A peek names no slot or a live order's (this id's, or an older one's sharing its entry).
      const peeked = index.peek(orderId);
      if (peeked !== noSlot) assert.equal(reference.get(store.orderId(peeked)), peeked, `peek ${orderId} at step ${step}`);
      if (peeked !== noSlot && store.orderId(peeked) === orderId) assert.equal(index.get(orderId), peeked);
    }
    assert.equal(index.size, reference.size);
  }
  for (const [orderId, slot] of reference) assert.equal(index.get(orderId), slot);
  for (const orderId of ended) assert.equal(index.get(orderId), noSlot);
  return index;
}

test('OrderIdIndex agrees with a Map through growth, overflow and ids beyond 2^32', () => {
  for (const [seed, firstId] of [[1, 1], [2, 2 ** 32 - 5_000], [3, 2 ** 40 + 17]] as const) {
    const index = exercise(seed, firstId, 150_000, 3_000, 0.3);
    assert.ok(index.overflowCount > 0, `seed ${seed}: some ids overflowed (${index.overflowCount}), so that path ran`);
  }
});

test('OrderIdIndex: an id whose entry is taken waits in the overflow and is found after the older order ends', () => {
  const store = new OrderStore(1 << 12);
  const index = new OrderIdIndex(store, 4);
  const slots: number[] = [];
  const place = (orderId: number): number => {
    const slot = store.allocate(() => {});
    store.setOrderId(slot, orderId);
    index.add(orderId, slot);
    slots[orderId] = slot;
    return slot;
  };
  // Sixteen live orders fit a table of 64 entries (four per order); the sixteenth, one table length after
  // the first id, lands on the first's entry.
  for (let orderId = 1; orderId <= 15; orderId++) place(orderId);
  place(65);
  assert.equal(index.overflowCount, 1);
  assert.equal(index.get(65), slots[65]);
  assert.equal(index.get(1), slots[1]);
  index.delete(1, slots[1]!);
  store.release(slots[1]!);
  assert.equal(index.get(1), noSlot);
  assert.equal(index.get(65), slots[65], 'still found through the overflow');
  // The freed entry takes the next id of its position; the overflowed one stays where it is.
  place(129);
  assert.equal(index.get(129), slots[129]);
  assert.equal(index.overflowCount, 1);
  // Growth places every live order again: 65 and 129 now have entries of their own (the table is 128 long).
  for (let orderId = 200; orderId < 202; orderId++) place(orderId);
  assert.equal(index.overflowCount, 0);
  for (const orderId of [2, 15, 65, 129, 200, 201]) assert.equal(index.get(orderId), slots[orderId], `id ${orderId} after growth`);
  place(257);
  assert.equal(index.overflowCount, 1, '257 meets 129 in a table of 128');
  for (let orderId = 300; orderId < 320; orderId++) place(orderId);
  assert.equal(index.get(257), slots[257], 'an overflowed id survives growth');
  index.delete(65, slots[65]!);
  assert.equal(index.get(65), noSlot);
  assert.equal(index.get(129), slots[129]);
});

test('reserving room for a restore keeps every live id, its overflow included, and the store its records', () => {
  const store = new OrderStore(1 << 20);
  const index = new OrderIdIndex(store, 4);
  const grown: number[] = [];
  // Ids a table length apart share an entry: the second goes to the overflow.
  const ids = [5, 5 + 64, 7, 1_000_000_123];
  for (const orderId of ids) {
    const slot = store.allocate((capacity) => grown.push(capacity));
    store.setOrderId(slot, orderId);
    index.add(orderId, slot);
  }
  assert.ok(index.overflowCount > 0);
  store.reserve(5_000, (capacity) => grown.push(capacity));
  index.reserve(5_000);
  assert.deepEqual(grown, [1024, 8192], 'the capacity the doublings from 1024 would reach, told once');
  assert.equal(store.capacity, 8192);
  ids.forEach((orderId, slot) => {
    assert.equal(index.get(orderId), slot);
    assert.equal(store.orderId(slot), orderId);
  });
  store.reserve(100, () => assert.fail('no growth when the room is there'));
  for (let orderId = 2_000; orderId < 7_000; orderId++) {
    const slot = store.allocate(() => assert.fail('reserved: no growth'));
    store.setOrderId(slot, orderId);
    index.add(orderId, slot);
  }
  for (let orderId = 2_000; orderId < 7_000; orderId++) assert.equal(store.orderId(index.get(orderId)), orderId);
  ids.forEach((orderId, slot) => assert.equal(index.get(orderId), slot));
});
