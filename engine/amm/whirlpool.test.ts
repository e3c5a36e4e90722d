/**
 * Whirlpool math against @orca-so/whirlpools-core (Orca's own Rust core compiled to WASM) on seeded random
 * states: tick index ↔ sqrt price, amount deltas with both roundings, next prices from A and B, and whole
 * swaps (swapQuoteByInputToken / swapQuoteByOutputToken) across initialized ticks. The package only loads
 * through CommonJS here, hence createRequire.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  getAmountDeltaA,
  getAmountDeltaB,
  getNextSqrtPriceFromA,
  getNextSqrtPriceFromB,
  maxSqrtPrice,
  maxTickIndex,
  minSqrtPrice,
  minTickIndex,
  sqrtPriceToTickIndex,
  swapClmm,
  tickIndexToSqrtPrice,
  type ClmmCurve,
} from './whirlpool.ts';
import { uint128Max, uint64Max, type InitializedTick } from './math.ts';
import { randomBigintBetween, randomBits, randomInteger, seededRandom, type RandomSource } from './random.ts';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the WASM bindings are untyped through createRequire
const orca = require('@orca-so/whirlpools-core') as any;

const tickArraySize = 88;
/** The core quote takes at most six tick arrays. */
const tickArraysMax = 6;

function attempt<T>(call: () => T): { ok: true; value: T } | { ok: false; error: string } {
  try {
    return { ok: true, value: call() };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

function randomSqrtPrice(random: RandomSource): bigint {
  const tickIndex = randomInteger(random, minTickIndex, maxTickIndex - 1);
  const low = tickIndexToSqrtPrice(tickIndex);
  if (random.next() < 0.2) return low;
  return randomBigintBetween(random, low, tickIndexToSqrtPrice(tickIndex + 1) - 1n);
}

/** Liquidity of every magnitude u128 holds, for the one-formula tests. */
function randomLiquidity(random: RandomSource): bigint {
  const bits = random.next() < 0.7 ? randomInteger(random, 30, 90) : randomInteger(random, 1, 128);
  const liquidity = randomBits(random, bits);
  return liquidity === 0n ? 1n : liquidity > uint128Max ? uint128Max : liquidity;
}

/**
 * Liquidity of a position in a swapped pool around `centreTick`: as deep as keeps both virtual reserves
 * (L / √P and L × √P) within u64, the most a Solana token account holds; deeper pools make both
 * implementations refuse nearly every swap (the amount exceeds u64) and compare nothing.
 */
function randomPositionLiquidity(random: RandomSource, centreTick: number, deep: boolean): bigint {
  const sqrtPriceBits = Math.ceil((Math.abs(centreTick) * Math.log2(1.0001)) / 2);
  const bitsMax = 62 - sqrtPriceBits;
  const liquidity = randomBits(random, randomInteger(random, deep ? bitsMax - 4 : 20, bitsMax));
  return liquidity === 0n ? 1n : liquidity;
}

function randomFeePips(random: RandomSource): number {
  const fees = [0, 100, 300, 400, 1000, 3000, 10_000, 20_000];
  return random.next() < 0.85 ? fees[randomInteger(random, 0, fees.length - 1)]! : randomInteger(random, 0, 60_000);
}

test('tickIndexToSqrtPrice matches at every bit, the bounds and random indexes', () => {
  assert.equal(minSqrtPrice, 4295048016n);
  assert.equal(maxSqrtPrice, 79226673515401279992447579055n);
  assert.equal(minTickIndex, orca._MIN_TICK_INDEX());
  assert.equal(maxTickIndex, orca._MAX_TICK_INDEX());
  const indexes = [0, 1, -1, minTickIndex, maxTickIndex];
  for (let bit = 0; 2 ** bit <= maxTickIndex; bit++) indexes.push(2 ** bit, -(2 ** bit), 2 ** bit - 1, -(2 ** bit - 1));
  const random = seededRandom(401);
  for (let index = 0; index < 20_000; index++) indexes.push(randomInteger(random, minTickIndex, maxTickIndex));
  for (const tickIndex of indexes) assert.equal(tickIndexToSqrtPrice(tickIndex), orca.tickIndexToSqrtPrice(tickIndex), `tick ${tickIndex}`);
});

test('sqrtPriceToTickIndex matches on and around tick boundaries', () => {
  const random = seededRandom(402);
  const prices = [minSqrtPrice, maxSqrtPrice, minSqrtPrice + 1n, maxSqrtPrice - 1n];
  for (let index = 0; index < 3000; index++) {
    const tickIndex = randomInteger(random, minTickIndex, maxTickIndex - 1);
    const low = tickIndexToSqrtPrice(tickIndex);
    const high = tickIndexToSqrtPrice(tickIndex + 1);
    prices.push(low, high - 1n, randomBigintBetween(random, low, high - 1n));
  }
  for (const price of prices) assert.equal(sqrtPriceToTickIndex(price), orca.sqrtPriceToTickIndex(price), `price ${price}`);
});

test('amount deltas A and B match tryGetAmountDeltaA/B, rounding up and down, with the u64 bound', () => {
  const random = seededRandom(403);
  let overU64 = 0;
  for (let index = 0; index < 4000; index++) {
    const a = randomSqrtPrice(random);
    const b = random.next() < 0.4 ? a + randomBits(random, randomInteger(random, 0, 64)) : randomSqrtPrice(random);
    if (b > maxSqrtPrice) continue;
    const liquidity = randomLiquidity(random);
    for (const roundUp of [false, true]) {
      const cases: Array<[bigint, () => bigint]> = [
        [getAmountDeltaA(a, b, liquidity, roundUp), () => orca.tryGetAmountDeltaA(a, b, liquidity, roundUp)],
        [getAmountDeltaB(a, b, liquidity, roundUp), () => orca.tryGetAmountDeltaB(a, b, liquidity, roundUp)],
      ];
      for (const [mine, theirs] of cases) {
        const reference = attempt(theirs);
        if (mine <= uint64Max) {
          assert.ok(reference.ok, `reference refused ${mine}`);
          assert.equal(mine, reference.value);
        } else {
          // Above u64 the core refuses (AMOUNT_EXCEEDS_MAX_U64); we give the exact amount and the swap bounds it.
          assert.ok(!reference.ok, `reference gave ${reference.ok ? reference.value : ''} where the amount is ${mine}`);
          overU64++;
        }
      }
    }
  }
  assert.ok(overU64 > 100, `amounts above u64: ${overU64}`);
});

test('next sqrt price from A and from B matches tryGetNextSqrtPriceFromA/B', () => {
  const random = seededRandom(404);
  let compared = 0;
  for (let index = 0; index < 4000; index++) {
    const price = randomSqrtPrice(random);
    const liquidity = randomLiquidity(random);
    const amount = randomBits(random, randomInteger(random, 0, 64));
    const specifiedInput = random.next() < 0.5;
    // The core forms L × √P × 2^64 in 256 bits and wraps above (L ≥ 2^128 / √P, far beyond any real pool);
    // the exact bigint here does not, so those inputs are left out.
    if (((liquidity * price) << 64n) >> 256n !== 0n) continue;
    const pairs: Array<[() => bigint, () => bigint]> = [
      [() => getNextSqrtPriceFromA(price, liquidity, amount, specifiedInput), () => orca.tryGetNextSqrtPriceFromA(price, liquidity, amount, specifiedInput)],
      [() => getNextSqrtPriceFromB(price, liquidity, amount, specifiedInput), () => orca.tryGetNextSqrtPriceFromB(price, liquidity, amount, specifiedInput)],
    ];
    for (const [ours, theirs] of pairs) {
      const mine = attempt(ours);
      const reference = attempt(theirs);
      assert.equal(mine.ok, reference.ok, `price ${price} L ${liquidity} amount ${amount} input ${specifiedInput}: ${reference.ok ? '' : reference.error}`);
      if (mine.ok && reference.ok) {
        assert.equal(mine.value, reference.value);
        compared++;
      }
    }
  }
  assert.ok(compared > 5000, `compared ${compared}`);
});

interface RandomWhirlpool {
  readonly curve: ClmmCurve;
  readonly tickSpacing: number;
  /** The tick arrays handed to the core quote, and the tick range they cover. */
  readonly tickArrays: unknown[];
  readonly coveredLow: number;
  readonly coveredHigh: number;
}

function emptyTick(): Record<string, unknown> {
  return { initialized: false, liquidityNet: 0n, liquidityGross: 0n, feeGrowthOutsideA: 0n, feeGrowthOutsideB: 0n, rewardGrowthsOutside: [0n, 0n, 0n] };
}

/** A pool of a few positions inside the six tick arrays around a random price (the quote sees no further). */
function randomWhirlpool(random: RandomSource): RandomWhirlpool {
  const spacings = [1, 2, 4, 8, 16, 64, 128];
  const tickSpacing = spacings[randomInteger(random, 0, spacings.length - 1)]!;
  const arrayTicks = tickArraySize * tickSpacing;
  const centre = randomInteger(random, -150_000, 150_000);
  const centreArray = Math.floor(centre / arrayTicks) * arrayTicks;
  const firstArray = centreArray - 3 * arrayTicks;
  const coveredLow = firstArray;
  const coveredHigh = firstArray + tickArraysMax * arrayTicks - 1;
  const net = new Map<number, bigint>();
  const positions: Array<[number, number, bigint]> = [];
  const snap = (tick: number): number => Math.min(Math.floor(coveredHigh / tickSpacing), Math.max(Math.ceil(coveredLow / tickSpacing), Math.round(tick / tickSpacing))) * tickSpacing;
  positions.push([snap(coveredLow + tickSpacing), snap(coveredHigh - tickSpacing), randomPositionLiquidity(random, centre, true)]);
  const count = randomInteger(random, 1, 10);
  for (let index = 0; index < count; index++) {
    const lower = snap(centre - randomInteger(random, 0, 200) * tickSpacing);
    const upper = snap(centre + randomInteger(random, 1, 200) * tickSpacing);
    if (upper > lower) positions.push([lower, upper, randomPositionLiquidity(random, centre, false)]);
  }
  for (const [lower, upper, liquidity] of positions) {
    net.set(lower, (net.get(lower) ?? 0n) + liquidity);
    net.set(upper, (net.get(upper) ?? 0n) - liquidity);
  }
  const ticks: InitializedTick[] = [...net.entries()].filter(([, value]) => value !== 0n).map(([index, liquidityNet]) => ({ index, liquidityNet })).sort((a, b) => a.index - b.index);
  const tickIndex = centre;
  let sqrtPriceX64 = tickIndexToSqrtPrice(tickIndex);
  if (random.next() < 0.8) sqrtPriceX64 = randomBigintBetween(random, sqrtPriceX64, tickIndexToSqrtPrice(tickIndex + 1) - 1n);
  let liquidity = 0n;
  for (const [lower, upper, amount] of positions) if (lower <= tickIndex && tickIndex < upper) liquidity += amount;
  const tickArrays: unknown[] = [];
  for (let array = 0; array < tickArraysMax; array++) {
    const startTickIndex = firstArray + array * arrayTicks;
    const arrayTicksList = Array.from({ length: tickArraySize }, emptyTick);
    for (const tick of ticks) {
      const offset = tick.index - startTickIndex;
      if (offset >= 0 && offset < arrayTicks) arrayTicksList[offset / tickSpacing] = { ...emptyTick(), initialized: true, liquidityNet: tick.liquidityNet, liquidityGross: tick.liquidityNet < 0n ? -tick.liquidityNet : tick.liquidityNet };
    }
    tickArrays.push({ startTickIndex, ticks: arrayTicksList });
  }
  return { curve: { feePips: randomFeePips(random), sqrtPriceX64, tickIndex, liquidity, ticks }, tickSpacing, tickArrays, coveredLow, coveredHigh };
}

function facade(pool: RandomWhirlpool): Record<string, unknown> {
  const reward = { emissionsPerSecondX64: 0n, growthGlobalX64: 0n };
  return {
    // A fee tier index equal to the tick spacing marks a pool without the adaptive fee.
    feeTierIndexSeed: new Uint8Array([pool.tickSpacing & 0xff, pool.tickSpacing >> 8]),
    tickSpacing: pool.tickSpacing,
    feeRate: pool.curve.feePips,
    protocolFeeRate: 0,
    liquidity: pool.curve.liquidity,
    sqrtPrice: pool.curve.sqrtPriceX64,
    tickCurrentIndex: pool.curve.tickIndex,
    feeGrowthGlobalA: 0n,
    feeGrowthGlobalB: 0n,
    rewardLastUpdatedTimestamp: 0n,
    rewardInfos: [reward, reward, reward],
  };
}

test('swapClmm matches swapQuoteByInputToken / swapQuoteByOutputToken over random pools', () => {
  const random = seededRandom(405);
  let compared = 0;
  let crossings = 0;
  const cases = 600;
  const reasons = new Map<string, number>();
  for (let index = 0; index < cases; index++) {
    const pool = randomWhirlpool(random);
    const aToB = random.next() < 0.5;
    const specifiedInput = random.next() < 0.5;
    // Sized against the virtual reserve of the specified token (L / √P of A, L × √P of B), from a sliver
    // of it to about all of it, so swaps stay within a range or cross many ticks.
    const liquidity = pool.curve.liquidity > 0n ? pool.curve.liquidity : 1n << 40n;
    const specifiesA = specifiedInput === aToB;
    const reserve = specifiesA ? (liquidity << 64n) / pool.curve.sqrtPriceX64 : (liquidity * pool.curve.sqrtPriceX64) >> 64n;
    let amount = (reserve * randomBits(random, 16)) >> BigInt(randomInteger(random, 15, 32));
    if (amount === 0n) amount = 1n;
    if (amount > uint64Max >> 1n) amount = uint64Max >> 1n;
    const mine = attempt(() => swapClmm(pool.curve, aToB, amount, specifiedInput));
    if (!mine.ok) {
      const reference = attempt(() => (specifiedInput
        ? orca.swapQuoteByInputToken(amount, aToB, 0, facade(pool), null, pool.tickArrays, 0n)
        : orca.swapQuoteByOutputToken(amount, !aToB, 0, facade(pool), null, pool.tickArrays, 0n)));
      const reason = `${mine.error} / reference ${reference.ok ? 'ok' : reference.error}`;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      continue;
    }
    // The quote only knows the six arrays: compare the swaps that end inside them.
    if (mine.value.tick <= pool.coveredLow || mine.value.tick >= pool.coveredHigh) {
      reasons.set('outside', (reasons.get('outside') ?? 0) + 1);
      continue;
    }
    const context = `case ${index}: spacing ${pool.tickSpacing} fee ${pool.curve.feePips} aToB ${aToB} input ${specifiedInput} amount ${amount}`;
    // The quote names the token by what the caller specifies: the input token when exact in (A when a→b),
    // the output token when exact out (A when b→a).
    if (specifiedInput) {
      const quote = orca.swapQuoteByInputToken(amount, aToB, 0, facade(pool), null, pool.tickArrays, 0n);
      assert.equal(mine.value.amountIn, quote.tokenIn, context);
      assert.equal(mine.value.amountOut, quote.tokenEstOut, context);
      assert.equal(mine.value.feeAmount, quote.tradeFee, context);
    } else {
      const quote = orca.swapQuoteByOutputToken(amount, !aToB, 0, facade(pool), null, pool.tickArrays, 0n);
      assert.equal(mine.value.amountOut, quote.tokenOut, context);
      assert.equal(mine.value.amountIn, quote.tokenEstIn, context);
      assert.equal(mine.value.feeAmount, quote.tradeFee, context);
    }
    compared++;
    crossings += mine.value.ticksCrossed;
  }
  assert.ok(compared > cases * 0.6, `compared ${compared} of ${cases}; ${[...reasons].join(' ')}`);
  assert.ok(crossings > compared / 3, `swaps crossed ${crossings} initialized ticks in ${compared} swaps; ${[...reasons].join(" ")}`);
});
