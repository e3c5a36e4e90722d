/**
 * Pools as the AMM workers hold them: one `PoolState` union over the three kinds of curve (constant product,
 * Uniswap v3, Orca Whirlpools), swaps in terms of the engine pair's base and quote, the fill hook the
 * worker calls when our book traded against a pool, and a seeded simulator of outside flow.
 *
 * States are immutable values. A swap returns a new state and never touches the old one; concentrated pools
 * share their (immutable) tick list between the two, so a swap allocates a few small objects and no copy of
 * the ticks. The worker replaces its pool with the state a swap returns.
 */
import { assert } from '../core/assert.ts';
import { Side } from '../core/commands.ts';
import { divRoundingUp, isqrt, uint64Max } from './math.ts';
import { swapV2 } from './v2.ts';
import { maxSqrtRatio, minSqrtRatio, swapV3, type V3Curve } from './v3.ts';
import { maxSqrtPrice, minSqrtPrice, swapClmm, type ClmmCurve } from './whirlpool.ts';
import { randomInteger, type RandomSource } from './random.ts';

/** Chains with AMM pools; the ids are the ones fixtures/chains.json gives. */
export const ChainId = { ethereum: 1, base: 2, arbitrum: 3, solana: 4 } as const;
export type ChainId = (typeof ChainId)[keyof typeof ChainId];

export type PoolKind = 'v2' | 'v3' | 'clmm';

/** What every pool carries besides its curve: who it is, where, for which engine pair, and its tokens. */
export interface PoolIdentity {
  /** Stable id, unique across chains (the engine's venue id; 0 is our own book). */
  readonly poolId: number;
  readonly chainId: ChainId;
  /** The engine pair it quotes, `BASE/QUOTE` as in fixtures/markets.json (e.g. 'ETH/USDC'). */
  readonly pair: string;
  /** Who runs it, for people: 'Uniswap v3 USDC/WETH 0.05 %', 'Orca SOL/USDC 0.04 %'. */
  readonly venue: string;
  /** On-chain token symbols in the pool's own order (token0 = Whirlpools' token A). */
  readonly token0Symbol: string;
  readonly token1Symbol: string;
  readonly token0Decimals: number;
  readonly token1Decimals: number;
  /** Whether the pair's base is token0 (WETH is token1 in Ethereum's USDC/WETH pool, token0 on Base). */
  readonly baseIsToken0: boolean;
  /** Swap fee in pips (millionths): v3's fee, Whirlpools' fee_rate, v2's 0.3 % = 3000. */
  readonly feePips: number;
}

export interface V2PoolState extends PoolIdentity {
  readonly kind: 'v2';
  readonly reserve0Atoms: bigint;
  readonly reserve1Atoms: bigint;
}

export interface V3PoolState extends PoolIdentity, V3Curve {
  readonly kind: 'v3';
}

export interface ClmmPoolState extends PoolIdentity, ClmmCurve {
  readonly kind: 'clmm';
  readonly tickSpacing: number;
}

export type PoolState = V2PoolState | V3PoolState | ClmmPoolState;

/** A swap's amounts in token atoms and the pool after it. */
export interface PoolSwap {
  /** Input paid, fee included. */
  readonly amountInAtoms: bigint;
  readonly amountOutAtoms: bigint;
  /** The part of the input kept as the fee. For v2 it stays in the reserves; it is not separated there (0). */
  readonly feeAtoms: bigint;
  readonly pool: PoolState;
}

/** A price as an exact fraction: quote atoms per base atom, both on-chain atoms. */
export interface AtomPrice {
  readonly quoteAtoms: bigint;
  readonly baseAtoms: bigint;
}

/** The decimals of the pair's base and quote tokens in this pool. */
export function baseDecimalsOf(pool: PoolState): number {
  return pool.baseIsToken0 ? pool.token0Decimals : pool.token1Decimals;
}

export function quoteDecimalsOf(pool: PoolState): number {
  return pool.baseIsToken0 ? pool.token1Decimals : pool.token0Decimals;
}

/** The pool's marginal price before fees, exactly: the reserves' ratio, or the square of the sqrt price. */
export function poolPrice(pool: PoolState): AtomPrice {
  switch (pool.kind) {
    case 'v2':
      return pool.baseIsToken0
        ? { quoteAtoms: pool.reserve1Atoms, baseAtoms: pool.reserve0Atoms }
        : { quoteAtoms: pool.reserve0Atoms, baseAtoms: pool.reserve1Atoms };
    case 'v3':
      return squaredPrice(pool.sqrtPriceX96, 192n, pool.baseIsToken0);
    case 'clmm':
      return squaredPrice(pool.sqrtPriceX64, 128n, pool.baseIsToken0);
  }
}

/** token1 per token0 = sqrtPrice² / 2^shift; the base's price in quote is that or its inverse. */
function squaredPrice(sqrtPrice: bigint, shift: bigint, baseIsToken0: boolean): AtomPrice {
  const square = sqrtPrice * sqrtPrice;
  return baseIsToken0 ? { quoteAtoms: square, baseAtoms: 1n << shift } : { quoteAtoms: 1n << shift, baseAtoms: square };
}

/** Whether the token going in is token0, given that base (`baseIn`) or quote goes in. */
function zeroForOne(pool: PoolState, baseIn: boolean): boolean {
  return baseIn === pool.baseIsToken0;
}

function unchanged(pool: PoolState): PoolSwap {
  return { amountInAtoms: 0n, amountOutAtoms: 0n, feeAtoms: 0n, pool };
}

/**
 * Sells exactly `amountAtoms` of base (`baseIn`) or of quote to the pool. A swap larger than the pool can
 * take stops where the pool does (v3: the price bounds; Whirlpools: the bounds or a u64 amount), so the
 * input used can be less than asked; Whirlpool amounts above u64 are refused by assertion.
 */
export function swapExactIn(pool: PoolState, baseIn: boolean, amountAtoms: bigint): PoolSwap {
  assert(amountAtoms >= 0n, 'a non-negative amount');
  if (amountAtoms === 0n) return unchanged(pool);
  const direction = zeroForOne(pool, baseIn);
  switch (pool.kind) {
    case 'v2': {
      const result = swapV2({ reserve0: pool.reserve0Atoms, reserve1: pool.reserve1Atoms }, direction, amountAtoms, true, pool.feePips);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: 0n, pool: { ...pool, reserve0Atoms: result.reserve0, reserve1Atoms: result.reserve1 } };
    }
    case 'v3': {
      if (direction ? pool.sqrtPriceX96 <= minSqrtRatio + 1n : pool.sqrtPriceX96 >= maxSqrtRatio - 1n) return unchanged(pool);
      const result = swapV3(pool, direction, amountAtoms);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: result.feeAmount, pool: { ...pool, sqrtPriceX96: result.sqrtPrice, tick: result.tick, liquidity: result.liquidity } };
    }
    case 'clmm': {
      assert(amountAtoms <= uint64Max, 'a Whirlpool amount fits in u64');
      const result = swapClmm(pool, direction, amountAtoms, true);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: result.feeAmount, pool: { ...pool, sqrtPriceX64: result.sqrtPrice, tickIndex: result.tick, liquidity: result.liquidity } };
    }
  }
}

/**
 * Buys exactly `amountAtoms` of the token that comes out: quote when base goes in (`baseIn`), base
 * otherwise. More than the pool can give fills partially (v2 keeps its last atom).
 */
export function swapExactOut(pool: PoolState, baseIn: boolean, amountAtoms: bigint): PoolSwap {
  assert(amountAtoms >= 0n, 'a non-negative amount');
  if (amountAtoms === 0n) return unchanged(pool);
  const direction = zeroForOne(pool, baseIn);
  switch (pool.kind) {
    case 'v2': {
      const result = swapV2({ reserve0: pool.reserve0Atoms, reserve1: pool.reserve1Atoms }, direction, amountAtoms, false, pool.feePips);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: 0n, pool: { ...pool, reserve0Atoms: result.reserve0, reserve1Atoms: result.reserve1 } };
    }
    case 'v3': {
      if (direction ? pool.sqrtPriceX96 <= minSqrtRatio + 1n : pool.sqrtPriceX96 >= maxSqrtRatio - 1n) return unchanged(pool);
      const result = swapV3(pool, direction, -amountAtoms);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: result.feeAmount, pool: { ...pool, sqrtPriceX96: result.sqrtPrice, tick: result.tick, liquidity: result.liquidity } };
    }
    case 'clmm': {
      assert(amountAtoms <= uint64Max, 'a Whirlpool amount fits in u64');
      const result = swapClmm(pool, direction, amountAtoms, false);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: result.feeAmount, pool: { ...pool, sqrtPriceX64: result.sqrtPrice, tickIndex: result.tick, liquidity: result.liquidity } };
    }
  }
}

/**
 * Moves the pool by a fill of our book against it. `side` is the taker's side of the engine trade: a buy
 * took base from the pool (the pool sends exactly `baseAtoms` out and takes quote in), a sell gave base to
 * it (the pool takes exactly `baseAtoms` in). Returns the swap; the worker keeps `swap.pool`.
 */
export function applyFill(pool: PoolState, side: Side, baseAtoms: bigint): PoolSwap {
  return side === Side.buy ? swapExactOut(pool, false, baseAtoms) : swapExactIn(pool, true, baseAtoms);
}

/** A large input that no pool can absorb before its price reaches a limit (exact in up to a price). */
const unboundedInputAtoms = 1n << 200n;

/** Iterations of the v2 search for a price's amount: doubling then halving over at most 2^256 atoms. */
const priceSearchStepsMax = 600;

/**
 * Swaps base in (`baseIn`, the price of base falls) or quote in (it rises) until the pool's marginal price
 * reaches `limit`, never past it: the cumulative depth a quote or a simulated trader needs. The swap's
 * input is fee included; for v2, whose fee stays in the reserves, the fee moves the price too. A limit at or
 * behind the current price swaps nothing.
 */
export function swapToPrice(pool: PoolState, baseIn: boolean, limit: AtomPrice): PoolSwap {
  assert(limit.quoteAtoms > 0n && limit.baseAtoms > 0n, 'a positive price limit');
  switch (pool.kind) {
    case 'v2':
      return swapV2ToPrice(pool, baseIn, limit);
    case 'v3': {
      const direction = zeroForOne(pool, baseIn);
      let sqrtLimit = sqrtPriceLimit(limit, 192n, pool.baseIsToken0, direction);
      if (sqrtLimit <= minSqrtRatio) sqrtLimit = minSqrtRatio + 1n;
      if (sqrtLimit >= maxSqrtRatio) sqrtLimit = maxSqrtRatio - 1n;
      if (direction ? sqrtLimit >= pool.sqrtPriceX96 : sqrtLimit <= pool.sqrtPriceX96) return unchanged(pool);
      const result = swapV3(pool, direction, unboundedInputAtoms, sqrtLimit);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: result.feeAmount, pool: { ...pool, sqrtPriceX96: result.sqrtPrice, tick: result.tick, liquidity: result.liquidity } };
    }
    case 'clmm': {
      const direction = zeroForOne(pool, baseIn);
      let sqrtLimit = sqrtPriceLimit(limit, 128n, pool.baseIsToken0, direction);
      if (sqrtLimit < minSqrtPrice) sqrtLimit = minSqrtPrice;
      if (sqrtLimit > maxSqrtPrice) sqrtLimit = maxSqrtPrice;
      if (direction ? sqrtLimit >= pool.sqrtPriceX64 : sqrtLimit <= pool.sqrtPriceX64) return unchanged(pool);
      // A u64 of input is all a Solana account can hold; if reaching the limit needs more, the swap stops
      // short of it, which only understates the depth.
      const result = swapClmm(pool, direction, uint64Max, true, sqrtLimit);
      return { amountInAtoms: result.amountIn, amountOutAtoms: result.amountOut, feeAtoms: result.feeAmount, pool: { ...pool, sqrtPriceX64: result.sqrtPrice, tickIndex: result.tick, liquidity: result.liquidity } };
    }
  }
}

/**
 * The sqrt price (with `shift` / 2 fraction bits) at a base price, rounded so the swap stops at or before
 * the price: token0 going in lowers the sqrt price, so its limit rounds up; token1 going in raises it, so
 * its limit rounds down.
 */
function sqrtPriceLimit(limit: AtomPrice, shift: bigint, baseIsToken0: boolean, zeroForOneSwap: boolean): bigint {
  const numerator = (baseIsToken0 ? limit.quoteAtoms : limit.baseAtoms) << shift;
  const denominator = baseIsToken0 ? limit.baseAtoms : limit.quoteAtoms;
  if (!zeroForOneSwap) return isqrt(numerator / denominator);
  const root = isqrt(divRoundingUp(numerator, denominator));
  return root * root * denominator < numerator ? root + 1n : root;
}

/**
 * v2 has no price limit on chain: find the largest amount whose swap keeps the reserves' price at or
 * before `limit`. Taking base out raises the price, putting base in lowers it; both are monotone in the
 * amount, so a doubling-then-halving search over exact swaps finds the amount to the atom. A closed-form
 * estimate from doubles (the quadratic in the amount with the fee kept in the pool) starts the search
 * near the answer; the answer itself never depends on the doubles.
 */
function swapV2ToPrice(pool: V2PoolState, baseIn: boolean, limit: AtomPrice): PoolSwap {
  const baseReserve = pool.baseIsToken0 ? pool.reserve0Atoms : pool.reserve1Atoms;
  const quoteReserve = pool.baseIsToken0 ? pool.reserve1Atoms : pool.reserve0Atoms;
  const within = (swap: PoolSwap): boolean => {
    const price = poolPrice(swap.pool);
    return baseIn
      ? price.quoteAtoms * limit.baseAtoms >= limit.quoteAtoms * price.baseAtoms
      : price.quoteAtoms * limit.baseAtoms <= limit.quoteAtoms * price.baseAtoms;
  };
  if (!within(unchanged(pool))) return unchanged(pool);
  const trial = (amount: bigint): PoolSwap => (baseIn ? swapExactIn(pool, true, amount) : swapExactOut(pool, false, amount));
  const amountMax = baseIn ? uint64Max * uint64Max : baseReserve - 1n;
  const best = largestWithin((amount) => amount <= amountMax && within(trial(amount)), v2AmountEstimate(baseReserve, quoteReserve, pool.feePips, limit, baseIn));
  return best === 0n ? unchanged(pool) : trial(best);
}

/**
 * The amount of base in (or out) that moves a constant-product pool to `limit`, in doubles: with γ = 1 − fee
 * and the fee kept in the pool, base in s solves γs² + x(1+γ)s + x² − xy/p = 0, and quote in g (for base
 * out) solves γg² + y(1+γ)g + y² − pxy = 0. Both are solved in the cancellation-free form 2c / (b + √(b² + 4γc)).
 */
function v2AmountEstimate(baseReserve: bigint, quoteReserve: bigint, feePips: number, limit: AtomPrice, baseIn: boolean): bigint {
  const x = Number(baseReserve);
  const y = Number(quoteReserve);
  const price = Number(limit.quoteAtoms) / Number(limit.baseAtoms);
  const gamma = 1 - feePips / 1_000_000;
  let estimate: number;
  if (baseIn) {
    const c = (x * y) / price - x * x;
    const b = x * (1 + gamma);
    estimate = (2 * c) / (b + Math.sqrt(b * b + 4 * gamma * c));
  } else {
    const c = price * x * y - y * y;
    const b = y * (1 + gamma);
    const quoteIn = (2 * c) / (b + Math.sqrt(b * b + 4 * gamma * c));
    estimate = x - (x * y) / (y + gamma * quoteIn);
  }
  return Number.isFinite(estimate) && estimate >= 1 ? BigInt(Math.floor(estimate)) : 1n;
}

/**
 * The largest amount for which `holds` is true, given that it holds for 0, is monotone, and fails
 * somewhere: probes outward from `hint` in doubling steps to bracket the answer, then halves the bracket.
 */
function largestWithin(holds: (amount: bigint) => boolean, hint: bigint): bigint {
  let low = 0n;
  let high = -1n;
  let step = hint >> 40n > 0n ? hint >> 40n : 1n;
  let steps = 0;
  if (holds(hint)) {
    low = hint;
    for (;;) {
      const probe = low + step;
      if (!holds(probe)) {
        high = probe;
        break;
      }
      low = probe;
      step *= 2n;
      assert(++steps < priceSearchStepsMax, 'the v2 price search brackets its answer');
    }
  } else {
    high = hint;
    for (;;) {
      const probe = high - step > 0n ? high - step : 0n;
      if (probe === 0n || holds(probe)) {
        low = probe;
        break;
      }
      high = probe;
      step *= 2n;
      assert(++steps < priceSearchStepsMax, 'the v2 price search brackets its answer');
    }
  }
  while (high - low > 1n) {
    const middle = (low + high) >> 1n;
    if (holds(middle)) low = middle;
    else high = middle;
    assert(++steps < priceSearchStepsMax, 'the v2 price search converges');
  }
  return low;
}

/** Bounds of the simulated outside flow: a few trades that together move the price a little. */
export interface FlowOptions {
  /** Swaps in one call, at most (at least one). */
  readonly swapsMax: number;
  /** How far from its starting price one call may leave the pool, at most, in basis points. */
  readonly moveBpsMax: number;
}

export const defaultFlowOptions: FlowOptions = { swapsMax: 3, moveBpsMax: 4 };

export interface SimulatedFlow {
  readonly pool: PoolState;
  readonly swaps: readonly PoolSwap[];
}

/**
 * Outside traders hitting the pool (the worker's 'sim' flow in the embedded default): a few swaps in random
 * directions, each a random share (small ones most often) of what would take the price to the edge of a
 * band of ±`moveBpsMax` around the price the call started from. However deep or thin the pool, one call
 * leaves the price within that band (to a unit of the sqrt price). The same pool and random stream give
 * the same swaps.
 */
export function simulateFlow(pool: PoolState, random: RandomSource, options: FlowOptions = defaultFlowOptions): SimulatedFlow {
  assert(Number.isInteger(options.swapsMax) && options.swapsMax >= 1, 'flow makes at least one swap');
  assert(Number.isInteger(options.moveBpsMax) && options.moveBpsMax > 0 && options.moveBpsMax < 10_000, 'flow moves the price less than 100 %');
  const start = poolPrice(pool);
  const bpsScale = 10_000n;
  const move = BigInt(options.moveBpsMax);
  const bandLow = { quoteAtoms: start.quoteAtoms * (bpsScale - move), baseAtoms: start.baseAtoms * bpsScale };
  const bandHigh = { quoteAtoms: start.quoteAtoms * (bpsScale + move), baseAtoms: start.baseAtoms * bpsScale };
  const swaps: PoolSwap[] = [];
  const count = randomInteger(random, 1, options.swapsMax);
  let current = pool;
  for (let index = 0; index < count; index++) {
    const baseIn = random.next() < 0.5;
    const reach = swapToPrice(current, baseIn, baseIn ? bandLow : bandHigh);
    const baseAtomsMax = baseIn ? reach.amountInAtoms : reach.amountOutAtoms;
    const shareMillionths = BigInt(Math.floor(random.next() ** 2 * 1_000_000));
    const baseAtoms = (baseAtomsMax * shareMillionths) / 1_000_000n;
    if (baseAtoms === 0n) continue;
    const swap = baseIn ? swapExactIn(current, true, baseAtoms) : swapExactOut(current, false, baseAtoms);
    swaps.push(swap);
    current = swap.pool;
  }
  return { pool: current, swaps };
}
