/**
 * Constant-product (Uniswap v2 style) pool math in bigint: x × y = k with the fee taken from the input and
 * left in the pool, so k grows with every swap.
 *
 * The v2 pair and router compute with a fee of 3/1000; here the fee is in pips (millionths), which gives the
 * same integers for 3000 pips (997000 / 1000000 is 997 / 1000 scaled) and lets platform pools use other fees.
 * Outputs round down and inputs round up plus one, as UniswapV2Library.getAmountOut / getAmountIn do, so
 * the pool never gives an atom it has not been paid for.
 */
import { assert } from '../core/assert.ts';
import { feePipsDenominator } from './math.ts';

function assertFee(feePips: number): bigint {
  assert(Number.isInteger(feePips) && feePips >= 0 && feePips < 1_000_000, 'fee in pips below 100 %');
  return BigInt(feePips);
}

/** Output for an exact input: amountIn × (1 − fee) × reserveOut / (reserveIn + amountIn × (1 − fee)), rounded down. */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePips: number): bigint {
  const fee = assertFee(feePips);
  assert(amountIn > 0n, 'a positive input');
  assert(reserveIn > 0n && reserveOut > 0n, 'a pool with reserves');
  const amountInWithFee = amountIn * (feePipsDenominator - fee);
  return (amountInWithFee * reserveOut) / (reserveIn * feePipsDenominator + amountInWithFee);
}

/**
 * Input for an exact output: reserveIn × amountOut / ((reserveOut − amountOut) × (1 − fee)), rounded down
 * and then plus one, as getAmountIn does (one atom more than needed when the division is exact).
 */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint, feePips: number): bigint {
  const fee = assertFee(feePips);
  assert(amountOut > 0n, 'a positive output');
  assert(reserveIn > 0n && reserveOut > amountOut, 'an output below the reserve');
  const numerator = reserveIn * amountOut * feePipsDenominator;
  const denominator = (reserveOut - amountOut) * (feePipsDenominator - fee);
  return numerator / denominator + 1n;
}

export interface V2Reserves {
  readonly reserve0: bigint;
  readonly reserve1: bigint;
}

export interface V2SwapResult {
  /** Input paid, fee included (the fee stays in the reserves). */
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  readonly reserve0: bigint;
  readonly reserve1: bigint;
}

/**
 * A swap against the reserves: token0 in when `zeroForOne`. `exactInput` makes `amount` the input,
 * otherwise the output; an output at or above the reserve is cut to the reserve less one atom (a v2 pair
 * can never be emptied), so the caller sees a partial fill.
 */
export function swapV2(reserves: V2Reserves, zeroForOne: boolean, amount: bigint, exactInput: boolean, feePips: number): V2SwapResult {
  assert(amount > 0n, 'a swap of a positive amount');
  const reserveIn = zeroForOne ? reserves.reserve0 : reserves.reserve1;
  const reserveOut = zeroForOne ? reserves.reserve1 : reserves.reserve0;
  let amountIn: bigint;
  let amountOut: bigint;
  if (exactInput) {
    amountIn = amount;
    amountOut = getAmountOut(amount, reserveIn, reserveOut, feePips);
  } else {
    amountOut = amount < reserveOut ? amount : reserveOut - 1n;
    amountIn = amountOut > 0n ? getAmountIn(amountOut, reserveIn, reserveOut, feePips) : 0n;
  }
  const newIn = reserveIn + amountIn;
  const newOut = reserveOut - amountOut;
  // The pair's own check: the balances after the swap, with the fee taken off the input, keep k.
  const fee = BigInt(feePips);
  assert(
    (newIn * feePipsDenominator - amountIn * fee) * newOut * feePipsDenominator >= reserveIn * reserveOut * feePipsDenominator * feePipsDenominator,
    'constant product holds after the fee',
  );
  return zeroForOne
    ? { amountIn, amountOut, reserve0: newIn, reserve1: newOut }
    : { amountIn, amountOut, reserve0: newOut, reserve1: newIn };
}
