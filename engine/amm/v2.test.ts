/**
 * Constant-product math against hand-computed cases (the v2 library's own examples and a few worked by
 * hand with the 997/1000 fee), and the invariant on random swaps: k never falls, outputs round down, inputs
 * round up, and the round trip exact-out → exact-in never pays out more than it took.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getAmountIn, getAmountOut, swapV2 } from './v2.ts';
import { randomBits, randomInteger, seededRandom } from './random.ts';

test('getAmountOut and getAmountIn on hand-computed cases', () => {
  // UniswapV2Library's test vectors: 2 in against 100/100 gives 1 out; 1 out costs 2 in.
  assert.equal(getAmountOut(2n, 100n, 100n, 3000), 1n);
  assert.equal(getAmountIn(1n, 100n, 100n, 3000), 2n);
  // 1000 × 997 × 100000 / (100000 × 1000 + 1000 × 997) = 99 700 000 000 / 100 997 000 = 987.15… → 987.
  assert.equal(getAmountOut(1000n, 100_000n, 100_000n, 3000), 987n);
  // 100000 × 987 × 1000 / ((100000 − 987) × 997) = 98 700 000 000 / 98 715 961 = 999.83… → 999, plus one.
  assert.equal(getAmountIn(987n, 100_000n, 100_000n, 3000), 1000n);
  // With no fee and an exact division, getAmountIn still adds its one atom: 100 × 50 / 50 = 100 → 101.
  assert.equal(getAmountIn(50n, 100n, 100n, 0), 101n);
  assert.equal(getAmountOut(100n, 100n, 100n, 0), 50n);
  // 1 ETH into 1 000 ETH / 3 000 000 USDC (6 decimals) at 0.3 %:
  // 0.997e18 × 3e12 / (1e21 + 0.997e18) = 2.991e9 / 1.000997 = 2 988 020 943.12 → 2 988 020 943 atoms (2 988.02 USDC).
  assert.equal(getAmountOut(10n ** 18n, 10n ** 21n, 3n * 10n ** 12n, 3000), 2_988_020_943n);
  // The same in pips and in the pair's 997/1000 form: identical integers for 3000 pips.
  const amountIn = 123_456_789n;
  const reserveIn = 987_654_321_987n;
  const reserveOut = 55_555_555_555n;
  assert.equal(getAmountOut(amountIn, reserveIn, reserveOut, 3000), (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n));
  assert.equal(getAmountIn(amountIn, reserveIn, reserveOut, 3000), (reserveIn * amountIn * 1000n) / ((reserveOut - amountIn) * 997n) + 1n);
});

test('refuses what the pair refuses: zero amounts, empty pools, an output of the whole reserve', () => {
  assert.throws(() => getAmountOut(0n, 100n, 100n, 3000));
  assert.throws(() => getAmountOut(1n, 0n, 100n, 3000));
  assert.throws(() => getAmountIn(100n, 100n, 100n, 3000));
  assert.throws(() => getAmountOut(1n, 100n, 100n, 1_000_000));
});

test('random swaps keep the constant product and round in the pool\'s favour', () => {
  const random = seededRandom(201);
  for (let index = 0; index < 3000; index++) {
    const reserve0 = randomBits(random, randomInteger(random, 20, 100)) + 1000n;
    const reserve1 = randomBits(random, randomInteger(random, 20, 100)) + 1000n;
    const feePips = [0, 500, 2500, 3000, 10_000][randomInteger(random, 0, 4)]!;
    const zeroForOne = random.next() < 0.5;
    const reserveIn = zeroForOne ? reserve0 : reserve1;
    const reserveOut = zeroForOne ? reserve1 : reserve0;
    const exactInput = random.next() < 0.5;
    const amount = exactInput ? randomBits(random, randomInteger(random, 1, 90)) + 1n : (reserveOut * BigInt(randomInteger(random, 1, 999_999))) / 1_000_000n + 1n;
    const swap = swapV2({ reserve0, reserve1 }, zeroForOne, amount, exactInput, feePips);
    assert.ok(swap.reserve0 * swap.reserve1 >= reserve0 * reserve1, 'k never falls');
    assert.equal(swap.reserve0 + swap.reserve1 - reserve0 - reserve1, swap.amountIn - swap.amountOut, 'the amounts are the reserves\' changes');
    if (exactInput) {
      assert.equal(swap.amountIn, amount);
      // Rounded down: one atom more out would break k after the fee.
      const fee = BigInt(feePips);
      const balanceIn = (reserveIn + swap.amountIn) * 1_000_000n - swap.amountIn * fee;
      assert.ok(balanceIn * (reserveOut - swap.amountOut - 1n) < reserveIn * reserveOut * 1_000_000n || swap.amountOut + 1n >= reserveOut, 'the output is the most the pool can give');
    } else {
      assert.equal(swap.amountOut, amount < reserveOut ? amount : reserveOut - 1n);
      // The input pays at least the exact-in price of that output.
      if (swap.amountOut > 0n) assert.ok(getAmountOut(swap.amountIn, reserveIn, reserveOut, feePips) >= swap.amountOut, 'the input buys the output');
    }
  }
});
