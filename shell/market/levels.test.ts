import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SideLevels } from './levels.ts';
import { Prng } from '../../engine/core/sim/generator.ts';

test('SideLevels keeps lots and orders per price and visits best first, on both sides, through adds and removals', () => {
  for (const side of [0, 1] as const) {
    const random = new Prng(side === 0 ? 3 : 4);
    const levels = new SideLevels(side);
    const reference = new Map<number, { lots: number; orders: number }>();
    for (let step = 0; step < 20_000; step++) {
      // Prices crowd near a top that moves, as a book's do; now and then far from it.
      const top = 300_000 + Math.round(Math.sin(step / 500) * 200);
      const priceTicks = random.chance(0.9) ? top + random.int(-30, 30) : random.int(1, 600_000);
      const level = reference.get(priceTicks);
      if (level === undefined || random.chance(0.6)) {
        const lots = random.int(1, 50);
        levels.change(priceTicks, lots, 1);
        reference.set(priceTicks, { lots: (level?.lots ?? 0) + lots, orders: (level?.orders ?? 0) + 1 });
      } else {
        // Each order that stays keeps at least a lot.
        const share = level.orders === 1 ? level.lots : random.int(1, level.lots - (level.orders - 1));
        levels.change(priceTicks, -share, -1);
        if (level.orders === 1) reference.delete(priceTicks);
        else reference.set(priceTicks, { lots: level.lots - share, orders: level.orders - 1 });
      }
      if (step % 97 === 0 || step === 19_999) {
        const expected = [...reference.keys()].sort((a, b) => (side === 0 ? b - a : a - b));
        const visited: number[] = [];
        levels.visit(Number.MAX_SAFE_INTEGER, (price, lots, orders) => {
          visited.push(price);
          assert.deepEqual({ lots, orders }, reference.get(price));
        });
        assert.deepEqual(visited, expected, `step ${step}`);
        assert.equal(levels.size, reference.size);
        assert.equal(levels.best(), expected[0] ?? -1);
        const few: number[] = [];
        levels.visit(5, (price) => few.push(price));
        assert.deepEqual(few, expected.slice(0, 5));
      }
    }
    for (const [price, level] of reference) {
      assert.equal(levels.lotsAt(price), level.lots);
      assert.equal(levels.ordersAt(price), level.orders);
    }
    assert.equal(levels.lotsAt(-5), 0);
  }
});

test('SideLevels refuses a change that would leave a level inconsistent', () => {
  const levels = new SideLevels(1);
  assert.throws(() => levels.change(100, 5, -1), /missing price/);
  levels.change(100, 5, 1);
  assert.throws(() => levels.change(100, -6, -1), /would hold/);
  assert.throws(() => levels.change(100, -5, 0), /would hold/);
  levels.change(100, -5, -1);
  assert.equal(levels.size, 0);
  assert.equal(levels.best(), -1);
});
