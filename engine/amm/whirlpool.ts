/**
 * Orca Whirlpools concentrated-liquidity math (Solana), from the Whirlpools documentation and the
 * documented behaviour of its core library, in bigint.
 *
 * Whirlpools follow Uniswap v3's design with their own fixed point and rounding: prices are
 * sqrt(tokenB / tokenA) in Q64.64 (`sqrtPriceX64`), tick indexes run -443636..443636, amounts are u64 token
 * atoms, and the fee rate is in hundredths of a basis point (fee_rate / 1 000 000, so 400 = 0.04 %): the same
 * unit as v3's pips. Token A is token0, token B is token1.
 *
 * The amount-delta functions return the exact bigint even above u64; the swap applies the u64 bound where
 * the program does. Inputs the program refuses fail an assertion here.
 */
import { assert } from '../core/assert.ts';
import { Q64, divRoundingUp, feePipsDenominator, lastAtOrBelow, mulDiv, mulDivRoundingUp, sqrtBasisTable, uint64Max, type InitializedTick } from './math.ts';
import type { ConcentratedSwapResult } from './v3.ts';

export const minTickIndex = -443636;
export const maxTickIndex = 443636;

/** sqrt(1.0001)^(2^i) in Q96, truncated: the factors for positive tick indexes (19 bits cover 443636). */
const sqrtBasisQ96 = sqrtBasisTable(false, 96, 19, 'floor');
/** 1 / sqrt(1.0001)^(2^i) in Q64, truncated: the factors for negative tick indexes. */
const inverseSqrtBasisQ64 = sqrtBasisTable(true, 64, 19, 'floor');
const Q96 = 1n << 96n;

/**
 * sqrt(1.0001^tickIndex) in Q64.64 as Whirlpools compute it: positive indexes multiply the Q96 factors
 * (each product truncated) and drop 32 bits at the end; negative indexes multiply the Q64 inverse factors.
 * Both directions truncate, so neither is the inverse of the other bit for bit.
 */
export function tickIndexToSqrtPrice(tickIndex: number): bigint {
  assert(Number.isInteger(tickIndex), 'tick index is an integer');
  assert(tickIndex >= minTickIndex && tickIndex <= maxTickIndex, 'tick index within bounds');
  if (tickIndex >= 0) {
    let ratio = (tickIndex & 1) !== 0 ? sqrtBasisQ96[0]! : Q96;
    for (let bit = 1; bit < 19; bit++) {
      if ((tickIndex & (1 << bit)) !== 0) ratio = (ratio * sqrtBasisQ96[bit]!) >> 96n;
    }
    return ratio >> 32n;
  }
  const absoluteIndex = -tickIndex;
  let ratio = (absoluteIndex & 1) !== 0 ? inverseSqrtBasisQ64[0]! : Q64;
  for (let bit = 1; bit < 19; bit++) {
    if ((absoluteIndex & (1 << bit)) !== 0) ratio = (ratio * inverseSqrtBasisQ64[bit]!) >> 64n;
  }
  return ratio;
}

export const minSqrtPrice = tickIndexToSqrtPrice(minTickIndex);
export const maxSqrtPrice = tickIndexToSqrtPrice(maxTickIndex);

const logSqrtBasis = Math.log(1.0001) / 2;
const logQ64 = 64 * Math.LN2;

/**
 * The greatest tick index whose sqrt price is at or below `sqrtPriceX64`, for prices within the bounds.
 * As in v3.ts, a double logarithm estimates it and exact comparisons settle it.
 */
export function sqrtPriceToTickIndex(sqrtPriceX64: bigint): number {
  assert(sqrtPriceX64 >= minSqrtPrice && sqrtPriceX64 <= maxSqrtPrice, 'sqrt price within bounds');
  const estimate = Math.floor((Math.log(Number(sqrtPriceX64)) - logQ64) / logSqrtBasis);
  let tickIndex = Math.min(maxTickIndex, Math.max(minTickIndex, estimate));
  while (tickIndex > minTickIndex && tickIndexToSqrtPrice(tickIndex) > sqrtPriceX64) tickIndex--;
  while (tickIndex < maxTickIndex && tickIndexToSqrtPrice(tickIndex + 1) <= sqrtPriceX64) tickIndex++;
  return tickIndex;
}

/** Token A between two sqrt prices: L × (√u − √l) × 2^64 / (√l × √u), rounded as asked. */
export function getAmountDeltaA(sqrtPrice1X64: bigint, sqrtPrice2X64: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const lower = sqrtPrice1X64 < sqrtPrice2X64 ? sqrtPrice1X64 : sqrtPrice2X64;
  const upper = sqrtPrice1X64 < sqrtPrice2X64 ? sqrtPrice2X64 : sqrtPrice1X64;
  assert(lower > 0n, 'sqrt prices are positive');
  const numerator = (liquidity * (upper - lower)) << 64n;
  const denominator = lower * upper;
  return roundUp ? divRoundingUp(numerator, denominator) : numerator / denominator;
}

/** Token B between two sqrt prices: L × (√u − √l) / 2^64, rounded as asked. */
export function getAmountDeltaB(sqrtPrice1X64: bigint, sqrtPrice2X64: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const difference = sqrtPrice1X64 < sqrtPrice2X64 ? sqrtPrice2X64 - sqrtPrice1X64 : sqrtPrice1X64 - sqrtPrice2X64;
  const product = liquidity * difference;
  return roundUp ? divRoundingUp(product, Q64) : product >> 64n;
}

/**
 * The sqrt price after `amount` of token A comes in (`specifiedInput`) or goes out: L × √P / (L ± amount × √P)
 * in Q64, always rounded up (the price falls less when A comes in, rises more when A goes out).
 */
export function getNextSqrtPriceFromA(sqrtPriceX64: bigint, liquidity: bigint, amount: bigint, specifiedInput: boolean): bigint {
  if (amount === 0n) return sqrtPriceX64;
  const product = sqrtPriceX64 * amount;
  const numerator = (liquidity * sqrtPriceX64) << 64n;
  const liquidityShifted = liquidity << 64n;
  assert(specifiedInput || liquidityShifted > product, 'token A out is less than the pool holds in range');
  const next = divRoundingUp(numerator, specifiedInput ? liquidityShifted + product : liquidityShifted - product);
  assert(next >= minSqrtPrice && next <= maxSqrtPrice, 'next sqrt price within bounds');
  return next;
}

/**
 * The sqrt price after `amount` of token B comes in or goes out: √P ± amount × 2^64 / L, the quotient
 * rounded down when B comes in and up when it goes out.
 */
export function getNextSqrtPriceFromB(sqrtPriceX64: bigint, liquidity: bigint, amount: bigint, specifiedInput: boolean): bigint {
  if (amount === 0n) return sqrtPriceX64;
  const shifted = amount << 64n;
  const next = specifiedInput ? sqrtPriceX64 + shifted / liquidity : sqrtPriceX64 - divRoundingUp(shifted, liquidity);
  assert(next >= minSqrtPrice && next <= maxSqrtPrice, 'next sqrt price within bounds');
  return next;
}

export interface ClmmSwapStep {
  readonly nextSqrtPriceX64: bigint;
  /** Input without the fee. */
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  readonly feeAmount: bigint;
}

/** The amount of the token whose amount is given (input when `specifiedInput`), rounded as the program does. */
function fixedDelta(currentX64: bigint, targetX64: bigint, liquidity: bigint, aToB: boolean, specifiedInput: boolean): bigint {
  return aToB === specifiedInput
    ? getAmountDeltaA(currentX64, targetX64, liquidity, specifiedInput)
    : getAmountDeltaB(currentX64, targetX64, liquidity, specifiedInput);
}

/** The amount of the other token, rounded against the trader. */
function unfixedDelta(currentX64: bigint, targetX64: bigint, liquidity: bigint, aToB: boolean, specifiedInput: boolean): bigint {
  return aToB === specifiedInput
    ? getAmountDeltaB(currentX64, targetX64, liquidity, !specifiedInput)
    : getAmountDeltaA(currentX64, targetX64, liquidity, !specifiedInput);
}

function assertU64(amount: bigint, what: string): bigint {
  assert(amount >= 0n && amount <= uint64Max, `${what} fits in u64`);
  return amount;
}

/**
 * One step within a range of constant liquidity, as Whirlpools compute it: like v3's, with the u64 bound
 * (a fixed amount above u64 to reach the target means the target is out of reach) and the fee on a
 * completed step taken as ceil(amountIn × 10^6 / (10^6 − fee)) − amountIn.
 */
export function computeClmmSwapStep(amountRemaining: bigint, feePips: number, liquidity: bigint, currentX64: bigint, targetX64: bigint, aToB: boolean, specifiedInput: boolean): ClmmSwapStep {
  const fee = BigInt(feePips);
  assert(fee >= 0n && fee < feePipsDenominator, 'fee below 100 %');
  assertU64(amountRemaining, 'amount remaining');
  const initialFixed = fixedDelta(currentX64, targetX64, liquidity, aToB, specifiedInput);
  const initialFixedFits = initialFixed <= uint64Max;
  const amountCalculated = specifiedInput ? mulDiv(amountRemaining, feePipsDenominator - fee, feePipsDenominator) : amountRemaining;
  let nextSqrtPriceX64: bigint;
  if (initialFixedFits && initialFixed <= amountCalculated) nextSqrtPriceX64 = targetX64;
  else if (aToB === specifiedInput) nextSqrtPriceX64 = getNextSqrtPriceFromA(currentX64, liquidity, amountCalculated, specifiedInput);
  else nextSqrtPriceX64 = getNextSqrtPriceFromB(currentX64, liquidity, amountCalculated, specifiedInput);
  const reachedTarget = nextSqrtPriceX64 === targetX64;
  const unfixed = assertU64(unfixedDelta(currentX64, nextSqrtPriceX64, liquidity, aToB, specifiedInput), 'amount');
  const fixed = !reachedTarget || !initialFixedFits
    ? assertU64(fixedDelta(currentX64, nextSqrtPriceX64, liquidity, aToB, specifiedInput), 'amount')
    : initialFixed;
  const amountIn = specifiedInput ? fixed : unfixed;
  let amountOut = specifiedInput ? unfixed : fixed;
  if (!specifiedInput && amountOut > amountRemaining) amountOut = amountRemaining;
  const feeAmount = specifiedInput && !reachedTarget
    ? amountRemaining - amountIn
    : assertU64(mulDivRoundingUp(amountIn, feePipsDenominator, feePipsDenominator - fee), 'amount with fee') - amountIn;
  return { nextSqrtPriceX64, amountIn, amountOut, feeAmount };
}

/** What a Whirlpool swap needs: fee rate, current price, tick index and liquidity, and initialized ticks. */
export interface ClmmCurve {
  readonly feePips: number;
  readonly sqrtPriceX64: bigint;
  readonly tickIndex: number;
  readonly liquidity: bigint;
  /** Initialized ticks sorted by index. */
  readonly ticks: readonly InitializedTick[];
}

/**
 * A whole Whirlpool swap: steps from initialized tick to initialized tick (Whirlpools have no bitmap
 * words, so unlike v3 a step ends only at an initialized tick, the limit or the bounds) until the amount is
 * used or the price reaches `sqrtPriceLimitX64` (default: the price bounds). `amount` is the input when
 * `specifiedInput`, else the output, and fits in u64. A limit at the current price swaps nothing.
 */
export function swapClmm(curve: ClmmCurve, aToB: boolean, amount: bigint, specifiedInput: boolean, sqrtPriceLimitX64?: bigint): ConcentratedSwapResult {
  assertU64(amount, 'swap amount');
  assert(amount > 0n, 'a swap of a non-zero amount');
  const limit = sqrtPriceLimitX64 ?? (aToB ? minSqrtPrice : maxSqrtPrice);
  assert(limit >= minSqrtPrice && limit <= maxSqrtPrice, 'price limit within bounds');
  assert(aToB ? limit <= curve.sqrtPriceX64 : limit >= curve.sqrtPriceX64, 'price limit in the direction of the swap');
  let remaining = amount;
  let calculated = 0n;
  let feeAmount = 0n;
  let sqrtPriceX64 = curve.sqrtPriceX64;
  let tickIndex = curve.tickIndex;
  let liquidity = curve.liquidity;
  let ticksCrossed = 0;
  while (remaining > 0n && sqrtPriceX64 !== limit) {
    const below = lastAtOrBelow(curve.ticks, tickIndex);
    const position = aToB ? below : below + 1;
    const nextTick = position >= 0 && position < curve.ticks.length ? curve.ticks[position]! : undefined;
    const nextTickIndex = nextTick?.index ?? (aToB ? minTickIndex : maxTickIndex);
    const nextTickSqrtPrice = tickIndexToSqrtPrice(nextTickIndex);
    const target = aToB ? (nextTickSqrtPrice > limit ? nextTickSqrtPrice : limit) : nextTickSqrtPrice < limit ? nextTickSqrtPrice : limit;
    const step = computeClmmSwapStep(remaining, curve.feePips, liquidity, sqrtPriceX64, target, aToB, specifiedInput);
    feeAmount += step.feeAmount;
    if (specifiedInput) {
      remaining -= step.amountIn + step.feeAmount;
      calculated += step.amountOut;
    } else {
      remaining -= step.amountOut;
      calculated += step.amountIn + step.feeAmount;
    }
    if (step.nextSqrtPriceX64 === nextTickSqrtPrice) {
      if (nextTick !== undefined) {
        liquidity += aToB ? -nextTick.liquidityNet : nextTick.liquidityNet;
        assert(liquidity >= 0n, 'liquidity stays non-negative across a tick');
        ticksCrossed++;
      }
      tickIndex = aToB ? nextTickIndex - 1 : nextTickIndex;
    } else if (step.nextSqrtPriceX64 !== sqrtPriceX64) {
      tickIndex = sqrtPriceToTickIndex(step.nextSqrtPriceX64);
    }
    sqrtPriceX64 = step.nextSqrtPriceX64;
  }
  const swapped = amount - remaining;
  return {
    amountIn: specifiedInput ? swapped : calculated,
    amountOut: specifiedInput ? calculated : swapped,
    feeAmount,
    sqrtPrice: sqrtPriceX64,
    tick: tickIndex,
    liquidity,
    ticksCrossed,
  };
}
