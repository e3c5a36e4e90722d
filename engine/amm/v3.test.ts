/**
 * v3 math against @uniswap/v3-sdk (TickMath, SqrtPriceMath, SwapMath, v3Swap), which mirrors the core
 * contracts in JSBI, on seeded random states: extreme ticks, both rounding directions, both overflow
 * branches of the token0 price update, exact in and exact out, swaps that cross many ticks and words.
 * The SDK only loads through CommonJS here, hence createRequire.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  computeSwapStep,
  getAmount0Delta,
  getAmount1Delta,
  getNextSqrtPriceFromInput,
  getNextSqrtPriceFromOutput,
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  maxSqrtRatio,
  maxTick,
  minSqrtRatio,
  minTick,
  swapV3,
  type V3Curve,
} from './v3.ts';
import { uint128Max, uint160Max, type InitializedTick } from './math.ts';
import { randomBigintBetween, randomBits, randomInteger, seededRandom, type RandomSource } from './random.ts';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK is untyped through createRequire
const sdk = require('@uniswap/v3-sdk') as any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const JSBI = require('jsbi') as any;

const toJsbi = (value: bigint): unknown => JSBI.BigInt(value.toString());
const fromJsbi = (value: { toString(): string }): bigint => BigInt(value.toString());

/** Runs `call`, giving its result or the fact that it threw (the SDK's invariants and our assertions). */
function attempt<T>(call: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: call() };
  } catch {
    return { ok: false };
  }
}

/** A sqrt price anywhere in the range, spread evenly over ticks, often exactly on a tick. */
function randomSqrtPrice(random: RandomSource): bigint {
  const tick = randomInteger(random, minTick, maxTick - 1);
  const low = getSqrtRatioAtTick(tick);
  if (random.next() < 0.2) return low;
  return randomBigintBetween(random, low, getSqrtRatioAtTick(tick + 1) - 1n);
}

/** Liquidity of every magnitude, realistic ones most often. */
function randomLiquidity(random: RandomSource): bigint {
  const bits = random.next() < 0.7 ? randomInteger(random, 40, 100) : randomInteger(random, 1, 128);
  const liquidity = randomBits(random, bits);
  return liquidity === 0n ? 1n : liquidity > uint128Max ? uint128Max : liquidity;
}

function randomFeePips(random: RandomSource): number {
  const fees = [0, 100, 500, 3000, 10_000];
  return random.next() < 0.8 ? fees[randomInteger(random, 0, fees.length - 1)]! : randomInteger(random, 0, 999_999);
}

test('getSqrtRatioAtTick matches TickMath at every bit, the bounds and random ticks', () => {
  assert.equal(minSqrtRatio, fromJsbi(sdk.TickMath.MIN_SQRT_RATIO));
  assert.equal(maxSqrtRatio, fromJsbi(sdk.TickMath.MAX_SQRT_RATIO));
  const ticks = [0, 1, -1, minTick, maxTick, minTick + 1, maxTick - 1];
  for (let bit = 0; bit < 20; bit++) {
    if (2 ** bit <= maxTick) ticks.push(2 ** bit, -(2 ** bit), 2 ** bit - 1, -(2 ** bit - 1));
  }
  const random = seededRandom(301);
  for (let index = 0; index < 3000; index++) ticks.push(randomInteger(random, minTick, maxTick));
  for (let index = 0; index < 500; index++) ticks.push(randomInteger(random, -2000, 2000));
  for (const tick of ticks) assert.equal(getSqrtRatioAtTick(tick), fromJsbi(sdk.TickMath.getSqrtRatioAtTick(tick)), `tick ${tick}`);
});

test('getTickAtSqrtRatio matches TickMath on and around tick boundaries', () => {
  const random = seededRandom(302);
  const prices = [minSqrtRatio, maxSqrtRatio - 1n, minSqrtRatio + 1n];
  for (let index = 0; index < 1500; index++) {
    const tick = randomInteger(random, minTick, maxTick - 1);
    const low = getSqrtRatioAtTick(tick);
    const high = getSqrtRatioAtTick(tick + 1);
    prices.push(low, high - 1n, randomBigintBetween(random, low, high - 1n));
  }
  for (const price of prices) assert.equal(getTickAtSqrtRatio(price), sdk.TickMath.getTickAtSqrtRatio(toJsbi(price)), `price ${price}`);
});

test('amount deltas match SqrtPriceMath, rounding up and down', () => {
  const random = seededRandom(303);
  for (let index = 0; index < 3000; index++) {
    const a = randomSqrtPrice(random);
    const b = random.next() < 0.3 ? a + randomBits(random, randomInteger(random, 0, 40)) : randomSqrtPrice(random);
    const liquidity = randomLiquidity(random);
    for (const roundUp of [false, true]) {
      assert.equal(getAmount0Delta(a, b, liquidity, roundUp), fromJsbi(sdk.SqrtPriceMath.getAmount0Delta(toJsbi(a), toJsbi(b), toJsbi(liquidity), roundUp)));
      assert.equal(getAmount1Delta(a, b, liquidity, roundUp), fromJsbi(sdk.SqrtPriceMath.getAmount1Delta(toJsbi(a), toJsbi(b), toJsbi(liquidity), roundUp)));
    }
  }
});

test('next sqrt price from an input or an output matches SqrtPriceMath, both overflow branches', () => {
  const random = seededRandom(304);
  let compared = 0;
  let refusedBoth = 0;
  for (let index = 0; index < 4000; index++) {
    const price = randomSqrtPrice(random);
    const liquidity = randomLiquidity(random);
    // Amount sizes from one atom to beyond 2^256 / price, so that amount × price overflows 256 bits too.
    const amount = randomBits(random, randomInteger(random, 0, random.next() < 0.1 ? 250 : 130));
    const zeroForOne = random.next() < 0.5;
    const cases: Array<[() => bigint, () => { toString(): string }]> = [
      [() => getNextSqrtPriceFromInput(price, liquidity, amount, zeroForOne), () => sdk.SqrtPriceMath.getNextSqrtPriceFromInput(toJsbi(price), toJsbi(liquidity), toJsbi(amount), zeroForOne)],
      [() => getNextSqrtPriceFromOutput(price, liquidity, amount, zeroForOne), () => sdk.SqrtPriceMath.getNextSqrtPriceFromOutput(toJsbi(price), toJsbi(liquidity), toJsbi(amount), zeroForOne)],
    ];
    for (const [ours, theirs] of cases) {
      const mine = attempt(ours);
      const reference = attempt(() => fromJsbi(theirs()));
      if (mine.ok && reference.ok) {
        assert.equal(mine.value, reference.value);
        compared++;
      } else if (!mine.ok && reference.ok) {
        // The contract casts the result to uint160 and reverts above it; the SDK does not check.
        assert.ok(reference.value > uint160Max, `we refused where the SDK gave ${reference.value}`);
        refusedBoth++;
      } else {
        assert.equal(mine.ok, reference.ok, 'both refuse the same inputs');
        refusedBoth++;
      }
    }
  }
  assert.ok(compared > 5000, `compared ${compared}, refused ${refusedBoth}`);
});

test('computeSwapStep matches SwapMath, exact in and exact out', () => {
  const random = seededRandom(305);
  let compared = 0;
  for (let index = 0; index < 4000; index++) {
    const current = randomSqrtPrice(random);
    const target = random.next() < 0.5 ? randomSqrtPrice(random) : current + randomBits(random, randomInteger(random, 0, 90)) * (random.next() < 0.5 ? -1n : 1n);
    if (target < minSqrtRatio || target > maxSqrtRatio) continue;
    const liquidity = random.next() < 0.03 ? 0n : randomLiquidity(random);
    const magnitude = randomBits(random, randomInteger(random, 0, 140));
    const amountRemaining = random.next() < 0.5 ? magnitude : -magnitude;
    const feePips = randomFeePips(random);
    const mine = attempt(() => computeSwapStep(current, target, liquidity, amountRemaining, feePips));
    const reference = attempt(() => sdk.SwapMath.computeSwapStep(toJsbi(current), toJsbi(target), toJsbi(liquidity), toJsbi(amountRemaining), feePips) as Array<{ toString(): string }>);
    assert.equal(mine.ok, reference.ok, `step ${current} → ${target} L ${liquidity} amount ${amountRemaining} fee ${feePips}`);
    if (!mine.ok || !reference.ok) continue;
    const [next, amountIn, amountOut, feeAmount] = reference.value.map(fromJsbi);
    assert.deepEqual([mine.value.sqrtRatioNextX96, mine.value.amountIn, mine.value.amountOut, mine.value.feeAmount], [next, amountIn, amountOut, feeAmount]);
    compared++;
  }
  assert.ok(compared > 3500, `compared ${compared}`);
});

interface RandomPool {
  readonly curve: V3Curve;
  /** The SDK's tick list: index and liquidityNet (the SDK wants liquidityGross too; its value is unused). */
  readonly sdkTicks: Array<{ index: number; liquidityNet: unknown; liquidityGross: unknown }>;
}

/**
 * A pool of a few positions around a random price: one wide position so the active range is never empty
 * near the price, narrower ones so swaps cross ticks, and liquidityNet summed per tick as the contract keeps it.
 */
function randomV3Pool(random: RandomSource): RandomPool {
  const spacings = [1, 10, 60, 200];
  const tickSpacing = spacings[randomInteger(random, 0, spacings.length - 1)]!;
  // Mostly realistic prices; one pool in seven near either end of the tick range.
  const extreme = random.next() < 0.15;
  const centre = extreme ? (random.next() < 0.5 ? -1 : 1) * randomInteger(random, 820_000, maxTick - 2 * tickSpacing) : randomInteger(random, -300_000, 300_000);
  const snap = (tick: number): number => Math.max(Math.ceil(minTick / tickSpacing), Math.min(Math.floor(maxTick / tickSpacing), Math.round(tick / tickSpacing))) * tickSpacing;
  const net = new Map<number, bigint>();
  const positions: Array<[number, number, bigint]> = [];
  const wide = 4000 * tickSpacing;
  positions.push([snap(centre - wide), snap(centre + wide), randomLiquidity(random)]);
  const count = randomInteger(random, 1, 10);
  for (let index = 0; index < count; index++) {
    const lower = snap(centre - randomInteger(random, 0, 600) * tickSpacing);
    const upper = snap(centre + randomInteger(random, 1, 600) * tickSpacing);
    if (upper > lower) positions.push([lower, upper, randomLiquidity(random)]);
  }
  for (const [lower, upper, liquidity] of positions) {
    net.set(lower, (net.get(lower) ?? 0n) + liquidity);
    net.set(upper, (net.get(upper) ?? 0n) - liquidity);
  }
  const ticks: InitializedTick[] = [...net.entries()].filter(([, value]) => value !== 0n).map(([index, liquidityNet]) => ({ index, liquidityNet })).sort((a, b) => a.index - b.index);
  const tick = Math.max(minTick, Math.min(maxTick - 1, centre + randomInteger(random, -tickSpacing, tickSpacing)));
  let sqrtPriceX96 = getSqrtRatioAtTick(tick);
  if (random.next() < 0.8) sqrtPriceX96 = randomBigintBetween(random, sqrtPriceX96, getSqrtRatioAtTick(tick + 1) - 1n);
  let liquidity = 0n;
  for (const [lower, upper, amount] of positions) if (lower <= tick && tick < upper) liquidity += amount;
  const curve: V3Curve = { feePips: randomFeePips(random), tickSpacing, sqrtPriceX96, tick, liquidity, ticks };
  const sdkTicks = ticks.map((entry) => ({ index: entry.index, liquidityNet: toJsbi(entry.liquidityNet), liquidityGross: toJsbi(entry.liquidityNet < 0n ? -entry.liquidityNet : entry.liquidityNet) }));
  return { curve, sdkTicks };
}

test('swapV3 matches v3Swap over random pools, crossing ticks and words, with and without a price limit', async () => {
  const random = seededRandom(306);
  let crossings = 0;
  const cases = 400;
  for (let index = 0; index < cases; index++) {
    const { curve, sdkTicks } = randomV3Pool(random);
    const zeroForOne = random.next() < 0.5;
    const exactIn = random.next() < 0.5;
    // Sized against the active liquidity so swaps move from a few ticks to a few thousand.
    const scale = curve.liquidity > 0n ? curve.liquidity : 1n << 60n;
    let magnitude = (scale * randomBits(random, 20)) >> BigInt(randomInteger(random, 10, 30));
    if (magnitude === 0n) magnitude = 1n;
    const amountSpecified = exactIn ? magnitude : -magnitude;
    let limit: bigint | undefined;
    if (random.next() < 0.5) {
      const ticksAway = randomInteger(random, 1, 3000) * (zeroForOne ? -1 : 1);
      const limitTick = Math.max(minTick + 1, Math.min(maxTick - 1, curve.tick + ticksAway));
      limit = getSqrtRatioAtTick(limitTick);
      if (zeroForOne ? limit >= curve.sqrtPriceX96 : limit <= curve.sqrtPriceX96) continue;
    }
    const provider = new sdk.TickListDataProvider(sdkTicks, curve.tickSpacing);
    const reference = await sdk.v3Swap(toJsbi(BigInt(curve.feePips)), toJsbi(curve.sqrtPriceX96), curve.tick, toJsbi(curve.liquidity), curve.tickSpacing, provider, zeroForOne, toJsbi(amountSpecified), limit === undefined ? undefined : toJsbi(limit));
    const mine = swapV3(curve, zeroForOne, amountSpecified, limit);
    const context = `case ${index}: spacing ${curve.tickSpacing} fee ${curve.feePips} zeroForOne ${zeroForOne} amount ${amountSpecified}`;
    assert.equal(mine.sqrtPrice, fromJsbi(reference.sqrtRatioX96), context);
    assert.equal(mine.tick, reference.tickCurrent, context);
    assert.equal(mine.liquidity, fromJsbi(reference.liquidity), context);
    // The SDK's amountCalculated is the other side of the swap: minus the output for an exact input, plus
    // the input (fee included) for an exact output.
    assert.equal(exactIn ? -mine.amountOut : mine.amountIn, fromJsbi(reference.amountCalculated), context);
    crossings += mine.ticksCrossed;
  }
  assert.ok(crossings > cases, `swaps crossed ${crossings} initialized ticks`);
});
