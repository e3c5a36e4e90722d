/**
 * One case file run against both books, book-level random differentials (one that reaches the fast book's
 * level compaction, one whose slots come back into the levels they left, as the order store reuses them),
 * and the O(1) cancel check on a book of a million resting orders, by counting.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SelfTradePrevention as Stp } from '../commands.ts';
import { Prng } from '../sim/generator.ts';
import { Result } from '../results.ts';
import { noPrice, type Book, type BookFactory, type BookLevel, type MatchHandler } from './book.ts';
import { FastBookFactory, type FastBook } from './fast-book.ts';
import { ReferenceBookFactory } from './reference-book.ts';
import { OrderStore, recordBytes } from '../order-store.ts';

class RecordingHandler implements MatchHandler {
  readonly fills: Array<[slot: number, price: number, lots: number, left: number]> = [];
  readonly removed: Array<[slot: number, lots: number]> = [];
  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    this.fills.push([makerSlot, priceTicks, lots, makerRemainingLots]);
  }
  onSelfTradeMakerRemoved(makerSlot: number, remainingLots: number): void {
    this.removed.push([makerSlot, remainingLots]);
  }
}

function makeBook(factory: BookFactory, levelsMax = 1000): Book {
  factory.ensureSlots(1 << 16);
  return factory.create(levelsMax);
}

function levels(book: Book, side: 0 | 1): BookLevel[] {
  const out: BookLevel[] = [];
  const count = book.depth(side, 100, out);
  return out.slice(0, count).map((level) => ({ ...level }));
}

/** A fast factory whose nodes live in an order store's records (as the engine's are), grown to 2^16 slots. */
function factoryOverOrderRecords(): BookFactory {
  const store = new OrderStore(1 << 16);
  const factory = new FastBookFactory(store, recordBytes);
  while (store.hasRoom()) store.allocate((capacity) => factory.ensureSlots(capacity));
  return factory;
}

const kinds: Array<[string, () => BookFactory]> = [
  ['fast', () => new FastBookFactory()],
  ['fast (nodes in order records)', factoryOverOrderRecords],
  ['reference', () => new ReferenceBookFactory()],
];

for (const [name, factory] of kinds) {
  describe(`${name} book`, () => {
    test('best prices and depth follow price priority', () => {
      const book = makeBook(factory());
      assert.equal(book.bestPrice(0), noPrice);
      book.add(1, 10, 0, 100, 5);
      book.add(2, 11, 0, 102, 3);
      book.add(3, 12, 0, 100, 4);
      book.add(4, 13, 1, 105, 7);
      book.add(5, 13, 1, 104, 1);
      assert.equal(book.bestPrice(0), 102);
      assert.equal(book.bestPrice(1), 104);
      assert.equal(book.orderCount, 5);
      assert.deepEqual(levels(book, 0), [
        { priceTicks: 102, lots: 3, orders: 1 },
        { priceTicks: 100, lots: 9, orders: 2 },
      ]);
      assert.deepEqual(levels(book, 1), [
        { priceTicks: 104, lots: 1, orders: 1 },
        { priceTicks: 105, lots: 7, orders: 1 },
      ]);
    });

    test('a taker fills price first, then time, at the makers prices, within its limit', () => {
      const book = makeBook(factory());
      book.add(1, 10, 1, 101, 2);
      book.add(2, 11, 1, 100, 3);
      book.add(3, 12, 1, 100, 4);
      book.add(4, 13, 1, 103, 9);
      const handler = new RecordingHandler();
      const filled = book.match(0, 101, 8, 99, Stp.cancelTaker, handler);
      assert.equal(filled, 8);
      assert.deepEqual(handler.fills, [
        [2, 100, 3, 0],
        [3, 100, 4, 0],
        [1, 101, 1, 1],
      ]);
      assert.equal(book.remainingLots(1), 1);
      assert.equal(book.bestPrice(1), 101);
      assert.equal(book.orderCount, 2);
    });

    test('a taker stops at its limit price', () => {
      const book = makeBook(factory());
      book.add(1, 10, 0, 100, 2);
      book.add(2, 10, 0, 99, 2);
      const handler = new RecordingHandler();
      assert.equal(book.match(1, 100, 10, 99, Stp.none, handler), 2);
      assert.equal(book.bestPrice(0), 99);
    });

    test('remove and reduce keep the others in order', () => {
      const book = makeBook(factory());
      book.add(1, 10, 1, 100, 2);
      book.add(2, 11, 1, 100, 3);
      book.add(3, 12, 1, 100, 4);
      assert.equal(book.remove(2), 3);
      book.reduce(1, 1);
      const handler = new RecordingHandler();
      book.match(0, 100, 10, 99, Stp.none, handler);
      assert.deepEqual(handler.fills, [
        [1, 100, 1, 0],
        [3, 100, 4, 0],
      ]);
      assert.equal(book.bestPrice(1), noPrice);
    });

    test('cancel_taker stops at the first own order', () => {
      const book = makeBook(factory());
      book.add(1, 10, 1, 100, 2);
      book.add(2, 7, 1, 100, 3);
      book.add(3, 11, 1, 100, 4);
      const handler = new RecordingHandler();
      assert.equal(book.match(0, 100, 9, 7, Stp.cancelTaker, handler), 2);
      assert.equal(book.stoppedBySelfTrade, true);
      assert.deepEqual(handler.removed, []);
      assert.equal(book.orderCount, 2);
    });

    test('cancel_maker removes own orders and keeps matching', () => {
      const book = makeBook(factory());
      book.add(1, 7, 1, 100, 2);
      book.add(2, 11, 1, 100, 3);
      book.add(3, 7, 1, 101, 4);
      book.add(4, 12, 1, 101, 4);
      const handler = new RecordingHandler();
      assert.equal(book.fillableLots(0, 101, 9, 7, Stp.cancelMaker), 7);
      assert.equal(book.match(0, 101, 9, 7, Stp.cancelMaker, handler), 7);
      assert.equal(book.stoppedBySelfTrade, false);
      assert.deepEqual(handler.removed, [
        [1, 2],
        [3, 4],
      ]);
      assert.deepEqual(handler.fills, [
        [2, 100, 3, 0],
        [4, 101, 4, 0],
      ]);
    });

    test('cancel_both removes the own order and stops', () => {
      const book = makeBook(factory());
      book.add(1, 11, 1, 100, 2);
      book.add(2, 7, 1, 100, 3);
      book.add(3, 12, 1, 100, 4);
      const handler = new RecordingHandler();
      assert.equal(book.match(0, 100, 9, 7, Stp.cancelBoth, handler), 2);
      assert.equal(book.stoppedBySelfTrade, true);
      assert.deepEqual(handler.removed, [[2, 3]]);
      assert.equal(book.orderCount, 1);
    });

    test('stp none trades with own orders', () => {
      const book = makeBook(factory());
      book.add(1, 7, 1, 100, 2);
      const handler = new RecordingHandler();
      assert.equal(book.match(0, 100, 2, 7, Stp.none, handler), 2);
      assert.deepEqual(handler.fills, [[1, 100, 2, 0]]);
    });

    test('fillable lots count what a match would fill and change nothing', () => {
      const book = makeBook(factory());
      book.add(1, 10, 0, 100, 2);
      book.add(2, 7, 0, 99, 3);
      book.add(3, 11, 0, 98, 4);
      assert.equal(book.fillableLots(1, 98, 100, 7, Stp.none), 9);
      assert.equal(book.fillableLots(1, 98, 100, 7, Stp.cancelTaker), 2);
      assert.equal(book.fillableLots(1, 98, 100, 7, Stp.cancelMaker), 6);
      assert.equal(book.fillableLots(1, 99, 4, 8, Stp.cancelTaker), 4);
      assert.equal(book.orderCount, 3);
    });

    test('a new price level is refused past the limit, an existing one is not', () => {
      const book = makeBook(factory(), 2);
      book.add(1, 10, 0, 100, 1);
      book.add(2, 10, 0, 101, 1);
      assert.equal(book.canRest(0, 102), Result.tooManyPriceLevels);
      assert.equal(book.canRest(0, 101), Result.ok);
      assert.equal(book.canRest(1, 102), Result.ok);
      book.remove(2);
      assert.equal(book.canRest(0, 102), Result.ok);
    });
  });
}

/**
 * Random adds, removals, reductions and takers on a fast book and the reference book, compared step by step.
 * With `reuseSlots`, a slot that leaves is handed out again, newest first (as the order store does), so
 * that a slot's new order may rest in the level its old order left; `bidPrices` and `askPrices` are the
 * ranges placements are priced in.
 */
function randomDifferential(seed: number, reuseSlots: boolean, bidPrices: [number, number], askPrices: [number, number], steps: number): void {
  const random = new Prng(seed);
  const fastFactory = new FastBookFactory();
  const fast = makeBook(fastFactory, 100_000) as FastBook;
  const reference = makeBook(new ReferenceBookFactory(), 100_000);
  const live: number[] = [];
  const freeSlots: number[] = [];
  let nextSlot = 0;
  const release = (slot: number): void => {
    if (reuseSlots) freeSlots.push(slot);
  };
  const stps = [Stp.cancelTaker, Stp.cancelMaker, Stp.cancelBoth, Stp.none];
  for (let step = 0; step < steps; step++) {
    const roll = random.next();
    if (roll < 0.5 && (freeSlots.length > 0 || nextSlot < 60_000)) {
      const side = random.chance(0.5) ? 0 : 1;
      const price = side === 0 ? random.int(bidPrices[0], bidPrices[1]) : random.int(askPrices[0], askPrices[1]);
      const slot = freeSlots.length > 0 ? freeSlots.pop()! : nextSlot++;
      const account = random.int(1, 5);
      const lots = random.int(1, 50);
      fast.add(slot, account, side, price, lots);
      reference.add(slot, account, side, price, lots);
      live.push(slot);
    } else if (roll < 0.8 && live.length > 0) {
      const index = random.int(0, live.length - 1);
      const slot = live[index]!;
      live[index] = live[live.length - 1]!;
      live.pop();
      assert.equal(fast.remove(slot), reference.remove(slot));
      release(slot);
    } else if (roll < 0.85 && live.length > 0) {
      const slot = live[random.int(0, live.length - 1)]!;
      const lots = fast.remainingLots(slot);
      if (lots > 1) {
        const reduced = random.int(1, lots - 1);
        fast.reduce(slot, reduced);
        reference.reduce(slot, reduced);
      }
    } else {
      const side = random.chance(0.5) ? 0 : 1;
      const limit = side === 0 ? random.int(5001, 5200) : random.int(4800, 5000);
      const lots = random.int(1, 400);
      const account = random.int(1, 5);
      const stp = random.pick(stps);
      assert.equal(fast.fillableLots(side, limit, lots, account, stp), reference.fillableLots(side, limit, lots, account, stp));
      const fastHandler = new RecordingHandler();
      const referenceHandler = new RecordingHandler();
      assert.equal(fast.match(side, limit, lots, account, stp, fastHandler), reference.match(side, limit, lots, account, stp, referenceHandler));
      assert.deepEqual(fastHandler.fills, referenceHandler.fills);
      assert.deepEqual(fastHandler.removed, referenceHandler.removed);
      assert.equal(fast.stoppedBySelfTrade, reference.stoppedBySelfTrade);
      const gone = new Set([...fastHandler.removed.map(([slot]) => slot), ...fastHandler.fills.filter(([, , , left]) => left === 0).map(([slot]) => slot)]);
      for (let index = live.length - 1; index >= 0; index--) {
        if (gone.has(live[index]!)) {
          release(live[index]!);
          live[index] = live[live.length - 1]!;
          live.pop();
        }
      }
    }
    assert.equal(fast.orderCount, reference.orderCount);
    if (step % 500 === 0) {
      for (const side of [0, 1] as const) {
        assert.equal(fast.bestPrice(side), reference.bestPrice(side));
        assert.deepEqual(levels(fast, side), levels(reference, side));
        assert.deepEqual(visited(fast, side), visited(reference, side));
      }
    }
  }
}

/** Every resting order of a side in priority order, as `visit` gives it. */
function visited(book: Book, side: 0 | 1): Array<[slot: number, account: number, priceTicks: number, lots: number]> {
  const out: Array<[number, number, number, number]> = [];
  book.visit(side, (slot, account, priceTicks, lots) => out.push([slot, account, priceTicks, lots]));
  return out;
}

test('random operations give the same fills and depth in both books, through many emptied levels', () => {
  // A wide range of prices makes many one-order levels, which empty and get compacted.
  randomDifferential(42, false, [1, 5000], [5001, 10_000], 30_000);
});

test('random operations give the same fills, depth and order in both books when slots come back into the levels they left', () => {
  // A few prices a side make long levels, in which the slots of orders that left come back as new orders
  // (as the order store hands them out again), ahead of and behind orders that stayed.
  randomDifferential(7, true, [4990, 5000], [5001, 5010], 60_000);
});

/** Fills a fast book with `ordersCount` orders, cancels them all in random order, and counts touches. */
function cancelTouches(ordersCount: number): { average: number; singleTouchShare: number } {
  const factory = new FastBookFactory();
  factory.ensureSlots(ordersCount);
  const book = factory.create(ordersCount);
  const random = new Prng(7);
  // Half the orders share busy levels; the other half sit alone on their own level, so cancels both
  // shorten long levels and empty levels in the middle of the book. Lone levels arrive from the deep end
  // towards the top, as a book builds up, which keeps the set-up fast (this test counts cancels only).
  for (let slot = 0; slot < ordersCount; slot++) {
    const side = slot & 1 ? 1 : 0;
    const busy = slot % 4 < 2;
    const offset = busy ? random.int(1, 1000) : 1000 + ordersCount - slot;
    book.add(slot, slot % 100, side, side === 0 ? 10_000_000 - offset : 10_000_000 + offset, random.int(1, 100));
  }
  assert.equal(book.orderCount, ordersCount);
  const slots = Array.from({ length: ordersCount }, (_, slot) => slot);
  for (let index = slots.length - 1; index > 0; index--) {
    const other = random.int(0, index);
    [slots[index], slots[other]] = [slots[other]!, slots[index]!];
  }
  let total = 0;
  let singleTouch = 0;
  for (const slot of slots) {
    const before = book.operations;
    book.remove(slot);
    const spent = book.operations - before;
    total += spent;
    if (spent === 1) singleTouch++;
  }
  assert.equal(book.orderCount, 0);
  assert.equal(book.bestPrice(0), noPrice);
  assert.equal(book.bestPrice(1), noPrice);
  return { average: total / ordersCount, singleTouchShare: singleTouch / ordersCount };
}

test('cancel is O(1) in a book of 1 000 000 resting orders (counted, not timed)', () => {
  const large = cancelTouches(1_000_000);
  const small = cancelTouches(1_000);
  // A cancel unlinks its node: one touch. Now and then the cancel that leaves too many empty levels
  // pays for one compaction pass over the side, bounded by the removals that emptied those levels, so
  // the average stays a small constant that does not grow with the book.
  assert.ok(large.singleTouchShare > 0.999, `share of one-touch cancels ${large.singleTouchShare}`);
  assert.ok(large.average < 3, `average touches per cancel ${large.average}`);
  assert.ok(large.average <= small.average * 1.5 + 0.5, `average grows with the book: ${small.average} -> ${large.average}`);
});

test('touchNeighbours reads the level neighbours of a resting node, any slot below the capacity, and changes nothing', () => {
  for (const factory of [new FastBookFactory(), factoryOverOrderRecords()]) {
    const book = makeBook(factory);
    // One level of three orders (slots 1, 2, 3 of accounts 10, 11, 12), a second level with slot 4 alone.
    book.add(1, 10, 0, 100, 5);
    book.add(2, 11, 0, 100, 3);
    book.add(3, 12, 0, 100, 4);
    book.add(4, 13, 0, 99, 7);
    const before = levels(book, 0);
    assert.equal(factory.touchNeighbours(2), 10 ^ 12, 'the middle order: both neighbours');
    assert.equal(factory.touchNeighbours(1), 11, 'the head: its next only');
    assert.equal(factory.touchNeighbours(4), 0, 'alone in its level');
    book.remove(2);
    // An ended order's stale links, and slots never used (links 0), are read without harm.
    for (const slot of [2, 5, 1000, (1 << 16) - 1]) assert.equal(typeof factory.touchNeighbours(slot), 'number');
    assert.deepEqual(levels(book, 0), before.map((level) => (level.priceTicks === 100 ? { ...level, lots: level.lots - 3, orders: level.orders - 1 } : level)));
  }
  assert.equal(new ReferenceBookFactory().touchNeighbours(), 0);
});
