/**
 * Pool-level behaviour over all three kinds: swaps move the price the right way and leave the old state
 * alone, applyFill moves exactly the filled base, swapToPrice stops at its limit and not before, and the
 * simulated flow is reproducible and stays within its band.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Side } from '../core/commands.ts';
import { applyFill, poolPrice, simulateFlow, swapExactIn, swapExactOut, swapToPrice, type AtomPrice, type PoolKind, type PoolState } from './pool.ts';
import { randomMarketPool } from './random-pools.ts';
import { randomBits, randomInteger, seededRandom } from './random.ts';

const kinds: readonly PoolKind[] = ['v2', 'v3', 'clmm'];

/** a < b as prices (cross-multiplied, exact). */
function below(a: AtomPrice, b: AtomPrice): boolean {
  return a.quoteAtoms * b.baseAtoms < b.quoteAtoms * a.baseAtoms;
}

/** |a / b − 1| ≤ 1 / toleranceInverse. */
function near(a: AtomPrice, b: AtomPrice, toleranceInverse: bigint): boolean {
  const left = a.quoteAtoms * b.baseAtoms;
  const right = b.quoteAtoms * a.baseAtoms;
  const difference = left > right ? left - right : right - left;
  return difference * toleranceInverse <= right;
}

function snapshot(pool: PoolState): string {
  return JSON.stringify(pool, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

/** A trade size: a random share (up to about a tenth) of the base the pool holds within ±2 %. */
function tradeBaseAtoms(pool: PoolState, baseIn: boolean, seed: number): bigint {
  const random = seededRandom(seed);
  const price = poolPrice(pool);
  const limit = baseIn ? { quoteAtoms: price.quoteAtoms * 98n, baseAtoms: price.baseAtoms * 100n } : { quoteAtoms: price.quoteAtoms * 102n, baseAtoms: price.baseAtoms * 100n };
  const reach = swapToPrice(pool, baseIn, limit);
  const span = baseIn ? reach.amountInAtoms : reach.amountOutAtoms;
  return (span * randomBits(random, 16)) / (10n << 16n) + 1n;
}

test('swaps move the price the right way, pay and charge positive amounts, and never mutate the old state', () => {
  const random = seededRandom(601);
  for (const kind of kinds) {
    for (let index = 0; index < 40; index++) {
      const { pool } = randomMarketPool(random, kind);
      const before = snapshot(pool);
      const start = poolPrice(pool);
      for (const baseIn of [true, false]) {
        const amount = tradeBaseAtoms(pool, baseIn, index);
        const exactIn = baseIn ? swapExactIn(pool, true, amount) : swapExactIn(pool, false, (amount * start.quoteAtoms) / start.baseAtoms + 1n);
        const exactOut = baseIn ? swapExactOut(pool, true, (amount * start.quoteAtoms) / start.baseAtoms / 2n + 1n) : swapExactOut(pool, false, amount);
        for (const swap of [exactIn, exactOut]) {
          assert.ok(swap.amountInAtoms > 0n && swap.amountOutAtoms >= 0n, `${kind}: amounts`);
          const after = poolPrice(swap.pool);
          assert.ok(baseIn ? !below(start, after) : !below(after, start), `${kind}: selling base lowers the price, buying raises it`);
        }
      }
      assert.equal(snapshot(pool), before, `${kind}: the old state is untouched`);
    }
  }
});

test('applyFill: a taker buy takes exactly the base out of the pool, a taker sell puts exactly it in', () => {
  const random = seededRandom(602);
  for (const kind of kinds) {
    for (let index = 0; index < 30; index++) {
      const { pool } = randomMarketPool(random, kind);
      const baseAtoms = tradeBaseAtoms(pool, false, 100 + index);
      const bought = applyFill(pool, Side.buy, baseAtoms);
      assert.equal(bought.amountOutAtoms, baseAtoms, `${kind}: the pool sends the base bought`);
      assert.ok(below(poolPrice(pool), poolPrice(bought.pool)), `${kind}: buying raises the price`);
      const sold = applyFill(pool, Side.sell, baseAtoms);
      assert.equal(sold.amountInAtoms, baseAtoms, `${kind}: the pool takes the base sold`);
      assert.ok(below(poolPrice(sold.pool), poolPrice(pool)), `${kind}: selling lowers the price`);
      if (pool.kind === 'v2' && bought.pool.kind === 'v2') {
        const baseBefore = pool.baseIsToken0 ? pool.reserve0Atoms : pool.reserve1Atoms;
        const baseAfter = bought.pool.baseIsToken0 ? bought.pool.reserve0Atoms : bought.pool.reserve1Atoms;
        assert.equal(baseBefore - baseAfter, baseAtoms, 'v2: the base reserve falls by the base bought');
      }
    }
  }
});

test('swapToPrice stops at the limit, not past it and not short of it', () => {
  const random = seededRandom(603);
  for (const kind of kinds) {
    for (let index = 0; index < 40; index++) {
      const { pool } = randomMarketPool(random, kind);
      const start = poolPrice(pool);
      const bps = BigInt(randomInteger(random, 1, 800));
      for (const baseIn of [true, false]) {
        const limit = baseIn
          ? { quoteAtoms: start.quoteAtoms * (10_000n - bps), baseAtoms: start.baseAtoms * 10_000n }
          : { quoteAtoms: start.quoteAtoms * (10_000n + bps), baseAtoms: start.baseAtoms * 10_000n };
        const swap = swapToPrice(pool, baseIn, limit);
        const reached = poolPrice(swap.pool);
        assert.ok(baseIn ? !below(reached, limit) : !below(limit, reached), `${kind}: not past the limit`);
        // Within a part in 10^5 of it: a unit of the sqrt price is far less, but v2 moves in whole atoms,
        // and one atom of a 6-decimal token in a thin pool is a few parts in a million.
        assert.ok(near(reached, limit, 100_000n), `${kind}: at the limit`);
        // A limit behind the price swaps nothing.
        const behind = swapToPrice(pool, baseIn, baseIn ? { quoteAtoms: start.quoteAtoms * 2n, baseAtoms: start.baseAtoms } : { quoteAtoms: start.quoteAtoms, baseAtoms: start.baseAtoms * 2n });
        assert.equal(behind.amountInAtoms, 0n);
        assert.equal(behind.pool, pool);
      }
    }
  }
});

test('simulateFlow is reproducible from its seed and keeps the price within its band', () => {
  const random = seededRandom(604);
  let swaps = 0;
  for (const kind of kinds) {
    for (let index = 0; index < 20; index++) {
      const { pool } = randomMarketPool(random, kind);
      const before = snapshot(pool);
      const start = poolPrice(pool);
      const options = { swapsMax: randomInteger(random, 1, 5), moveBpsMax: randomInteger(random, 1, 10) };
      const first = simulateFlow(pool, seededRandom(index), options);
      const second = simulateFlow(pool, seededRandom(index), options);
      assert.equal(snapshot(first.pool), snapshot(second.pool), `${kind}: same seed, same flow`);
      assert.ok(first.swaps.length <= options.swapsMax);
      swaps += first.swaps.length;
      const end = poolPrice(first.pool);
      const band = BigInt(options.moveBpsMax);
      // Within the band, to a part in 10^9 (an exact-output swap may round the price a unit further).
      const tolerance = 1_000_000_000n;
      assert.ok(end.quoteAtoms * start.baseAtoms * 10_000n * tolerance <= start.quoteAtoms * end.baseAtoms * (10_000n + band) * (tolerance + 1n), `${kind}: at most ${band} bps up`);
      assert.ok(end.quoteAtoms * start.baseAtoms * 10_000n * tolerance >= start.quoteAtoms * end.baseAtoms * (10_000n - band) * (tolerance - 1n), `${kind}: at most ${band} bps down`);
      assert.equal(snapshot(pool), before, `${kind}: the old state is untouched`);
    }
  }
  assert.ok(swaps > 60, `${swaps} simulated swaps`);
});
