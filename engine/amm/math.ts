/**
 * Integer helpers shared by the pool math: fixed-point constants, full-precision multiply-divide with an
 * explicit rounding direction, an integer square root, and the tables of powers of sqrt(1.0001) that both
 * tick maths (Uniswap v3 and Orca Whirlpools) are built on.
 *
 * Everything is bigint. The contracts compute in 256-bit words; bigint never overflows, so where a contract's
 * result depends on whether a 256-bit intermediate overflowed (v3's next price from an amount of token0),
 * the caller checks against `uint256Max` itself.
 */
import { assert } from '../core/assert.ts';

export const Q64 = 1n << 64n;
export const Q96 = 1n << 96n;
export const Q128 = 1n << 128n;
export const uint64Max = (1n << 64n) - 1n;
export const uint128Max = (1n << 128n) - 1n;
export const uint160Max = (1n << 160n) - 1n;
export const uint256Max = (1n << 256n) - 1n;

/** Fees of every pool kind are in pips: millionths of the amount (v3's fee 500 = 0.05 %, Whirlpools' fee_rate). */
export const feePipsDenominator = 1_000_000n;

/** floor(a × b / denominator). */
export function mulDiv(a: bigint, b: bigint, denominator: bigint): bigint {
  assert(denominator > 0n, 'mulDiv by a positive denominator');
  return (a * b) / denominator;
}

/** ceil(a × b / denominator), for non-negative operands. */
export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  assert(denominator > 0n, 'mulDivRoundingUp by a positive denominator');
  const product = a * b;
  const quotient = product / denominator;
  return product % denominator === 0n ? quotient : quotient + 1n;
}

/** ceil(numerator / denominator), for non-negative operands. */
export function divRoundingUp(numerator: bigint, denominator: bigint): bigint {
  assert(denominator > 0n, 'divRoundingUp by a positive denominator');
  const quotient = numerator / denominator;
  return numerator % denominator === 0n ? quotient : quotient + 1n;
}

/** floor(sqrt(n)) for n ≥ 0. */
export function isqrt(n: bigint): bigint {
  assert(n >= 0n, 'square root of a non-negative number');
  if (n < 2n) return n;
  // A double's square root puts the first guess within about 2^-52 of the answer for n below 2^1024, so
  // Newton's method needs two or three steps; above that range the guess comes from the bit length.
  const approximate = Number(n);
  let guess = Number.isFinite(approximate) ? BigInt(Math.floor(Math.sqrt(approximate))) : 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  if (guess < 1n) guess = 1n;
  // One Newton step from any positive guess lands at or above floor(sqrt(n)) (the arithmetic-geometric
  // mean inequality); from there the iteration decreases monotonically to the answer.
  let x = (guess + n / guess) >> 1n;
  for (;;) {
    const next = (x + n / x) >> 1n;
    if (next >= x) return x;
    x = next;
  }
}

/** Bits of the fixed point the tick tables are derived in; far more than the 128 bits any table keeps. */
const derivationBits = 512n;

/**
 * Powers sqrt(numerator / denominator)^(2^i) for i = 0 .. count - 1, as fixed-point numbers with
 * `derivationBits` fraction bits (each truncated, so a few units of the last of 512 bits low).
 */
function sqrtRatioSquarings(numerator: bigint, denominator: bigint, count: number): bigint[] {
  const powers: bigint[] = [];
  let power = isqrt((numerator << (2n * derivationBits)) / denominator);
  for (let index = 0; index < count; index++) {
    powers.push(power);
    power = (power * power) >> derivationBits;
  }
  return powers;
}

/** How a table entry is cut to its fixed point: the tick maths differ in this one choice. */
export type TableRounding = 'nearest' | 'floor';

/**
 * The table of a tick math: entry i is sqrt(1.0001)^(±2^i) in fixed point with `fractionBits` fraction
 * bits. `inverse` selects 1/sqrt(1.0001) (the negative powers). Uniswap v3 keeps the inverse powers in
 * Q128 rounded to nearest; Orca Whirlpools keeps the positive powers in Q96 and the inverse powers in Q64,
 * both truncated. Deriving the tables from the definition (rather than listing 39 magic numbers) makes the
 * formula the source; the tests check every entry against the reference libraries' results.
 */
export function sqrtBasisTable(inverse: boolean, fractionBits: number, count: number, rounding: TableRounding): bigint[] {
  const powers = inverse ? sqrtRatioSquarings(10_000n, 10_001n, count) : sqrtRatioSquarings(10_001n, 10_000n, count);
  const shift = derivationBits - BigInt(fractionBits);
  const half = 1n << (shift - 1n);
  return powers.map((power) => (rounding === 'nearest' ? (power + half) >> shift : power >> shift));
}

/** A tick some position starts or ends at, with the liquidity that enters (positive) when the price crosses it upward. */
export interface InitializedTick {
  readonly index: number;
  readonly liquidityNet: bigint;
}

/**
 * Position of the last of the sorted `ticks` at or below `value` (-1 when none): the binary search both
 * concentrated-liquidity swaps use to find the next initialized tick.
 */
export function lastAtOrBelow(ticks: readonly InitializedTick[], value: number): number {
  let low = 0;
  let high = ticks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ticks[middle]!.index <= value) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}
