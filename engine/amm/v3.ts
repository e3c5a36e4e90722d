/**
 * Uniswap v3 concentrated-liquidity math, from the v3 whitepaper and the documented behaviour of the core
 * contracts (TickMath, SqrtPriceMath, SwapMath, the swap loop of UniswapV3Pool), in bigint.
 *
 * Prices are sqrt(token1 / token0) in Q64.96 (`sqrtPriceX96`); amounts are token atoms; fees are pips
 * (millionths). Every function rounds the way the contract does, so a swap computed here moves the same
 * atoms as the same swap on chain. Where the contract reverts, these functions fail an assertion: callers
 * pass only inputs the contract accepts.
 */
import { assert } from '../core/assert.ts';
import {
  Q96,
  Q128,
  divRoundingUp,
  feePipsDenominator,
  lastAtOrBelow,
  mulDiv,
  mulDivRoundingUp,
  sqrtBasisTable,
  uint160Max,
  uint256Max,
  type InitializedTick,
} from './math.ts';

export const minTick = -887272;
export const maxTick = 887272;

/**
 * Entry i is 2^128 / sqrt(1.0001)^(2^i), rounded to nearest: the factors getSqrtRatioAtTick multiplies
 * for each set bit of |tick|. 20 entries cover |tick| ≤ 887272 < 2^20.
 */
const inverseSqrtBasisQ128 = sqrtBasisTable(true, 128, 20, 'nearest');

/**
 * sqrt(1.0001^tick) × 2^96, rounded up, exactly as TickMath.getSqrtRatioAtTick: the product of the table
 * entries for the bits of |tick| in Q128 (each product truncated), inverted for positive ticks, then
 * shifted to Q96 rounding up so that getTickAtSqrtRatio(getSqrtRatioAtTick(t)) = t.
 */
export function getSqrtRatioAtTick(tick: number): bigint {
  assert(Number.isInteger(tick), 'tick is an integer');
  const absoluteTick = Math.abs(tick);
  assert(absoluteTick <= maxTick, 'tick within MIN_TICK..MAX_TICK');
  let ratio = (absoluteTick & 1) !== 0 ? inverseSqrtBasisQ128[0]! : Q128;
  for (let bit = 1; bit < 20; bit++) {
    if ((absoluteTick & (1 << bit)) !== 0) ratio = (ratio * inverseSqrtBasisQ128[bit]!) >> 128n;
  }
  if (tick > 0) ratio = uint256Max / ratio;
  return (ratio >> 32n) + ((ratio & 0xffffffffn) === 0n ? 0n : 1n);
}

export const minSqrtRatio = getSqrtRatioAtTick(minTick);
export const maxSqrtRatio = getSqrtRatioAtTick(maxTick);

const logSqrtBasis = Math.log(1.0001) / 2;
const logQ96 = 96 * Math.LN2;

/**
 * The greatest tick whose sqrt ratio is at or below `sqrtPriceX96` (TickMath.getTickAtSqrtRatio's
 * definition), for MIN_SQRT_RATIO ≤ price < MAX_SQRT_RATIO. A double logarithm gives the tick to within
 * one; the exact comparisons with getSqrtRatioAtTick then settle it, so the answer never depends on the
 * floating-point library.
 */
export function getTickAtSqrtRatio(sqrtPriceX96: bigint): number {
  assert(sqrtPriceX96 >= minSqrtRatio && sqrtPriceX96 < maxSqrtRatio, 'sqrt price within MIN_SQRT_RATIO..MAX_SQRT_RATIO');
  const estimate = Math.floor((Math.log(Number(sqrtPriceX96)) - logQ96) / logSqrtBasis);
  let tick = Math.min(maxTick - 1, Math.max(minTick, estimate));
  while (tick > minTick && getSqrtRatioAtTick(tick) > sqrtPriceX96) tick--;
  while (tick < maxTick - 1 && getSqrtRatioAtTick(tick + 1) <= sqrtPriceX96) tick++;
  return tick;
}

/** Token0 between two sqrt prices for `liquidity`: L × (√b − √a) / (√a × √b), rounded as asked. */
export function getAmount0Delta(sqrtRatioAX96: bigint, sqrtRatioBX96: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const lower = sqrtRatioAX96 < sqrtRatioBX96 ? sqrtRatioAX96 : sqrtRatioBX96;
  const upper = sqrtRatioAX96 < sqrtRatioBX96 ? sqrtRatioBX96 : sqrtRatioAX96;
  assert(lower > 0n, 'sqrt prices are positive');
  const numerator1 = liquidity << 96n;
  const numerator2 = upper - lower;
  return roundUp
    ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, upper), lower)
    : mulDiv(numerator1, numerator2, upper) / lower;
}

/** Token1 between two sqrt prices for `liquidity`: L × (√b − √a), rounded as asked. */
export function getAmount1Delta(sqrtRatioAX96: bigint, sqrtRatioBX96: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const lower = sqrtRatioAX96 < sqrtRatioBX96 ? sqrtRatioAX96 : sqrtRatioBX96;
  const upper = sqrtRatioAX96 < sqrtRatioBX96 ? sqrtRatioBX96 : sqrtRatioAX96;
  return roundUp ? mulDivRoundingUp(liquidity, upper - lower, Q96) : mulDiv(liquidity, upper - lower, Q96);
}

/**
 * The sqrt price after adding (`add`) or removing `amount` of token0, rounded up so the price moves less
 * when token0 comes in and more when it goes out. The contract takes L × √P / (L + amount × √P) when
 * amount × √P and the sum fit in 256 bits, and the equivalent L / (L / √P + amount) otherwise; the two
 * round differently, so the same overflow test picks the same branch here.
 */
export function getNextSqrtPriceFromAmount0RoundingUp(sqrtPriceX96: bigint, liquidity: bigint, amount: bigint, add: boolean): bigint {
  if (amount === 0n) return sqrtPriceX96;
  const numerator1 = liquidity << 96n;
  const product = amount * sqrtPriceX96;
  if (add) {
    if (product <= uint256Max) {
      const denominator = numerator1 + product;
      if (denominator <= uint256Max) return mulDivRoundingUp(numerator1, sqrtPriceX96, denominator);
    }
    return divRoundingUp(numerator1, numerator1 / sqrtPriceX96 + amount);
  }
  assert(product <= uint256Max && numerator1 > product, 'token0 out is less than the pool holds in range');
  const next = mulDivRoundingUp(numerator1, sqrtPriceX96, numerator1 - product);
  assert(next <= uint160Max, 'next sqrt price fits in 160 bits');
  return next;
}

/** The sqrt price after adding or removing `amount` of token1, rounded down (again in the pool's favour). */
export function getNextSqrtPriceFromAmount1RoundingDown(sqrtPriceX96: bigint, liquidity: bigint, amount: bigint, add: boolean): bigint {
  if (add) {
    const next = sqrtPriceX96 + (amount << 96n) / liquidity;
    assert(next <= uint160Max, 'next sqrt price fits in 160 bits');
    return next;
  }
  const quotient = divRoundingUp(amount << 96n, liquidity);
  assert(sqrtPriceX96 > quotient, 'token1 out is less than the pool holds in range');
  return sqrtPriceX96 - quotient;
}

/** The sqrt price after `amountIn` of the input token (token0 when `zeroForOne`). */
export function getNextSqrtPriceFromInput(sqrtPriceX96: bigint, liquidity: bigint, amountIn: bigint, zeroForOne: boolean): bigint {
  assert(sqrtPriceX96 > 0n && liquidity > 0n, 'price and liquidity are positive');
  return zeroForOne
    ? getNextSqrtPriceFromAmount0RoundingUp(sqrtPriceX96, liquidity, amountIn, true)
    : getNextSqrtPriceFromAmount1RoundingDown(sqrtPriceX96, liquidity, amountIn, true);
}

/** The sqrt price after `amountOut` of the output token (token1 when `zeroForOne`). */
export function getNextSqrtPriceFromOutput(sqrtPriceX96: bigint, liquidity: bigint, amountOut: bigint, zeroForOne: boolean): bigint {
  assert(sqrtPriceX96 > 0n && liquidity > 0n, 'price and liquidity are positive');
  return zeroForOne
    ? getNextSqrtPriceFromAmount1RoundingDown(sqrtPriceX96, liquidity, amountOut, false)
    : getNextSqrtPriceFromAmount0RoundingUp(sqrtPriceX96, liquidity, amountOut, false);
}

export interface SwapStep {
  readonly sqrtRatioNextX96: bigint;
  /** Input without the fee. */
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  readonly feeAmount: bigint;
}

/**
 * One step of a swap inside one range of constant liquidity (SwapMath.computeSwapStep): from the current
 * price toward the target, spending (exact in, `amountRemaining` ≥ 0) or receiving (exact out,
 * `amountRemaining` < 0) at most the remaining amount. The fee is taken from the input: the whole rest of
 * the input when the step stops short of the target, otherwise the input grossed up by the fee rounded up.
 */
export function computeSwapStep(sqrtRatioCurrentX96: bigint, sqrtRatioTargetX96: bigint, liquidity: bigint, amountRemaining: bigint, feePips: number): SwapStep {
  const fee = BigInt(feePips);
  assert(fee >= 0n && fee < feePipsDenominator, 'fee below 100 %');
  const zeroForOne = sqrtRatioCurrentX96 >= sqrtRatioTargetX96;
  const exactIn = amountRemaining >= 0n;
  let sqrtRatioNextX96: bigint;
  let amountIn = 0n;
  let amountOut = 0n;
  if (exactIn) {
    const amountRemainingLessFee = mulDiv(amountRemaining, feePipsDenominator - fee, feePipsDenominator);
    amountIn = zeroForOne
      ? getAmount0Delta(sqrtRatioTargetX96, sqrtRatioCurrentX96, liquidity, true)
      : getAmount1Delta(sqrtRatioCurrentX96, sqrtRatioTargetX96, liquidity, true);
    sqrtRatioNextX96 = amountRemainingLessFee >= amountIn
      ? sqrtRatioTargetX96
      : getNextSqrtPriceFromInput(sqrtRatioCurrentX96, liquidity, amountRemainingLessFee, zeroForOne);
  } else {
    amountOut = zeroForOne
      ? getAmount1Delta(sqrtRatioTargetX96, sqrtRatioCurrentX96, liquidity, false)
      : getAmount0Delta(sqrtRatioCurrentX96, sqrtRatioTargetX96, liquidity, false);
    sqrtRatioNextX96 = -amountRemaining >= amountOut
      ? sqrtRatioTargetX96
      : getNextSqrtPriceFromOutput(sqrtRatioCurrentX96, liquidity, -amountRemaining, zeroForOne);
  }
  const reachedTarget = sqrtRatioTargetX96 === sqrtRatioNextX96;
  if (zeroForOne) {
    if (!(reachedTarget && exactIn)) amountIn = getAmount0Delta(sqrtRatioNextX96, sqrtRatioCurrentX96, liquidity, true);
    if (!(reachedTarget && !exactIn)) amountOut = getAmount1Delta(sqrtRatioNextX96, sqrtRatioCurrentX96, liquidity, false);
  } else {
    if (!(reachedTarget && exactIn)) amountIn = getAmount1Delta(sqrtRatioCurrentX96, sqrtRatioNextX96, liquidity, true);
    if (!(reachedTarget && !exactIn)) amountOut = getAmount0Delta(sqrtRatioCurrentX96, sqrtRatioNextX96, liquidity, false);
  }
  // Rounding up the price can leave the output a unit above what was asked; never pay more than that.
  if (!exactIn && amountOut > -amountRemaining) amountOut = -amountRemaining;
  const feeAmount = exactIn && sqrtRatioNextX96 !== sqrtRatioTargetX96
    ? amountRemaining - amountIn
    : mulDivRoundingUp(amountIn, fee, feePipsDenominator - fee);
  return { sqrtRatioNextX96, amountIn, amountOut, feeAmount };
}

/** What a v3 swap needs of a pool: its fee, tick spacing, current price, tick and liquidity, and its ticks. */
export interface V3Curve {
  readonly feePips: number;
  readonly tickSpacing: number;
  readonly sqrtPriceX96: bigint;
  readonly tick: number;
  readonly liquidity: bigint;
  /** Initialized ticks sorted by index, each a multiple of the tick spacing. */
  readonly ticks: readonly InitializedTick[];
}

export interface ConcentratedSwapResult {
  /** Input spent, fee included. */
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  /** The part of `amountIn` that went to liquidity providers. */
  readonly feeAmount: bigint;
  /** The pool's sqrt price after the swap (Q64.96 for v3, Q64.64 for Whirlpools). */
  readonly sqrtPrice: bigint;
  readonly tick: number;
  readonly liquidity: bigint;
  /** Initialized ticks crossed (a measure of the work, and of how far the swap went). */
  readonly ticksCrossed: number;
}

/**
 * The next tick a step may run to, as TickBitmap.nextInitializedTickWithinOneWord finds it: the nearest
 * initialized tick at or below (`lte`) or above the current one, but no further than the edge of the
 * 256-spacing word the search starts in. Steps end at word edges even when no tick is there, and each step
 * rounds on its own, so this matters for exact agreement with the contract.
 */
function nextTickWithinOneWord(ticks: readonly InitializedTick[], tick: number, lte: boolean, tickSpacing: number): { tickNext: number; initialized: boolean } {
  const compressed = Math.floor(tick / tickSpacing);
  const below = lastAtOrBelow(ticks, tick);
  if (lte) {
    const wordStart = (compressed >> 8) * 256 * tickSpacing;
    const candidate = below >= 0 ? ticks[below]!.index : Number.NEGATIVE_INFINITY;
    return candidate >= wordStart ? { tickNext: candidate, initialized: true } : { tickNext: wordStart, initialized: false };
  }
  const wordEnd = (((compressed + 1) >> 8) * 256 + 255) * tickSpacing;
  const candidate = below + 1 < ticks.length ? ticks[below + 1]!.index : Number.POSITIVE_INFINITY;
  return candidate <= wordEnd ? { tickNext: candidate, initialized: true } : { tickNext: wordEnd, initialized: false };
}

/**
 * A whole swap (UniswapV3Pool.swap without the transfers): steps from range to range, crossing initialized
 * ticks (liquidityNet added moving up, subtracted moving down), until the amount is used or the price
 * reaches `sqrtPriceLimitX96` (default: just inside the price bounds, as routers pass). `amountSpecified`
 * > 0 is an exact input, < 0 an exact output. A swap larger than the pool can fill stops at the limit with
 * the amounts it did fill.
 */
export function swapV3(curve: V3Curve, zeroForOne: boolean, amountSpecified: bigint, sqrtPriceLimitX96?: bigint): ConcentratedSwapResult {
  assert(amountSpecified !== 0n, 'a swap of a non-zero amount');
  const limit = sqrtPriceLimitX96 ?? (zeroForOne ? minSqrtRatio + 1n : maxSqrtRatio - 1n);
  if (zeroForOne) assert(limit < curve.sqrtPriceX96 && limit > minSqrtRatio, 'price limit below the price and above the minimum');
  else assert(limit > curve.sqrtPriceX96 && limit < maxSqrtRatio, 'price limit above the price and below the maximum');
  const exactInput = amountSpecified > 0n;
  let remaining = amountSpecified;
  let amountIn = 0n;
  let amountOut = 0n;
  let feeAmount = 0n;
  let sqrtPriceX96 = curve.sqrtPriceX96;
  let tick = curve.tick;
  let liquidity = curve.liquidity;
  let ticksCrossed = 0;
  while (remaining !== 0n && sqrtPriceX96 !== limit) {
    const start = sqrtPriceX96;
    const next = nextTickWithinOneWord(curve.ticks, tick, zeroForOne, curve.tickSpacing);
    const tickNext = Math.min(maxTick, Math.max(minTick, next.tickNext));
    const sqrtPriceNextX96 = getSqrtRatioAtTick(tickNext);
    const target = (zeroForOne ? sqrtPriceNextX96 < limit : sqrtPriceNextX96 > limit) ? limit : sqrtPriceNextX96;
    const step = computeSwapStep(sqrtPriceX96, target, liquidity, remaining, curve.feePips);
    sqrtPriceX96 = step.sqrtRatioNextX96;
    if (exactInput) remaining -= step.amountIn + step.feeAmount;
    else remaining += step.amountOut;
    amountIn += step.amountIn + step.feeAmount;
    amountOut += step.amountOut;
    feeAmount += step.feeAmount;
    if (sqrtPriceX96 === sqrtPriceNextX96) {
      if (next.initialized && tickNext === next.tickNext) {
        const crossed = curve.ticks[lastAtOrBelow(curve.ticks, tickNext)]!;
        liquidity += zeroForOne ? -crossed.liquidityNet : crossed.liquidityNet;
        assert(liquidity >= 0n, 'liquidity stays non-negative across a tick');
        ticksCrossed++;
      }
      tick = zeroForOne ? tickNext - 1 : tickNext;
    } else if (sqrtPriceX96 !== start) {
      tick = getTickAtSqrtRatio(sqrtPriceX96);
    }
  }
  return { amountIn, amountOut, feeAmount, sqrtPrice: sqrtPriceX96, tick, liquidity, ticksCrossed };
}
