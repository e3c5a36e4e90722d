/**
 * Seeded random pools with the markets they quote into, for the property tests of depth quoting and pool
 * swaps: realistic shapes (prices from cents to a hundred thousand, depth from ten thousand to a hundred
 * million of quote, engine grids scaled to the price, both token orders), not the extreme states the
 * reference-library tests cover.
 */
import { Q64, Q96 } from './math.ts';
import { ChainId, type PoolKind, type PoolState } from './pool.ts';
import type { DepthMarket } from './depth.ts';
import { atomPriceOf, buildConcentratedPool, sqrtPriceOf, tickAtRatio, tickOfSqrtPrice, type Position } from './fixtures.ts';
import { randomInteger, type RandomSource } from './random.ts';

export interface RandomMarketPool {
  readonly pool: PoolState;
  readonly market: DepthMarket;
  /** The pool's price in quote per base, as generated (for messages). */
  readonly priceText: string;
}

function pick<T>(random: RandomSource, values: readonly T[]): T {
  return values[randomInteger(random, 0, values.length - 1)]!;
}

/** 10^exponent as decimal text: "100", "1", "0.001". */
function powerOfTen(exponent: number): string {
  return exponent >= 0 ? `1${'0'.repeat(exponent)}` : `0.${'0'.repeat(-exponent - 1)}1`;
}

/** A log-uniform price in [10^low, 10^high) with six significant digits, as decimal text. */
function randomPriceText(random: RandomSource, low: number, high: number): string {
  const exponent = low + random.next() * (high - low);
  const digits = Math.floor(10 ** (5 + (exponent - Math.floor(exponent))));
  const shift = Math.floor(exponent) - 5;
  if (shift >= 0) return `${digits}${'0'.repeat(shift)}`;
  const text = digits.toString().padStart(-shift + 1, '0');
  return `${text.slice(0, text.length + shift)}.${text.slice(text.length + shift)}`;
}

/**
 * A pool of `kind` and its market. Concentrated pools get a wide position (±50 %) and up to a dozen narrow
 * ones around the price, so quotes cross ticks; v2 pools get reserves for the depth drawn.
 */
export function randomMarketPool(random: RandomSource, kind: PoolKind): RandomMarketPool {
  const baseDecimals = kind === 'clmm' ? pick(random, [6, 8, 9]) : pick(random, [6, 8, 9, 18]);
  const quoteDecimals = kind === 'clmm' ? 6 : pick(random, [6, 6, 6, 18]);
  const priceText = randomPriceText(random, -2, 5);
  const priceExponent = Math.floor(Math.log10(Number(priceText)));
  // About 10^5 ticks to the price, and a lot worth a cent to a dime of quote, as the engine's pairs have.
  const tickSize = powerOfTen(priceExponent - 5);
  const lotSize = powerOfTen(Math.max(-baseDecimals, -priceExponent - 1 - randomInteger(random, 0, 1)));
  // Virtual quote depth at the price, ten thousand to a hundred million; Whirlpool tokens stay within u64.
  const depthQuote = 10 ** (4 + random.next() * (kind === 'clmm' ? 3 : 4));
  const baseIsToken0 = random.next() < 0.5;
  const price = atomPriceOf(priceText, baseDecimals, quoteDecimals);
  const identity = {
    poolId: randomInteger(random, 1, 60_000),
    chainId: kind === 'clmm' ? ChainId.solana : pick(random, [ChainId.ethereum, ChainId.base, ChainId.arbitrum]),
    pair: 'BASE/USDC',
    venue: `random ${kind}`,
    token0Symbol: baseIsToken0 ? 'BASE' : 'USDC',
    token1Symbol: baseIsToken0 ? 'USDC' : 'BASE',
    token0Decimals: baseIsToken0 ? baseDecimals : quoteDecimals,
    token1Decimals: baseIsToken0 ? quoteDecimals : baseDecimals,
    baseIsToken0,
  };
  const market: DepthMarket = { baseIsToken0, baseDecimals, quoteDecimals, tickSize, lotSize };
  const quoteReserveAtoms = BigInt(Math.floor(depthQuote * 10 ** quoteDecimals));
  if (kind === 'v2') {
    const baseReserveAtoms = (quoteReserveAtoms * price.baseAtoms) / price.quoteAtoms;
    const feePips = pick(random, [3000, 2500, 10_000, 1000]);
    const pool: PoolState = {
      ...identity,
      kind,
      feePips,
      reserve0Atoms: baseIsToken0 ? baseReserveAtoms : quoteReserveAtoms,
      reserve1Atoms: baseIsToken0 ? quoteReserveAtoms : baseReserveAtoms,
    };
    return { pool, market, priceText };
  }
  const [feePips, tickSpacing] = kind === 'v3'
    ? pick(random, [[100, 1], [500, 10], [3000, 60], [10_000, 200]] as const)
    : pick(random, [[100, 1], [300, 4], [400, 4], [1000, 8], [3000, 64], [10_000, 128]] as const);
  const sqrtPrice = sqrtPriceOf(price, kind, baseIsToken0);
  const sqrtReal = Number(sqrtPrice) / Number(kind === 'v3' ? Q96 : Q64);
  // Liquidity whose virtual quote reserve is the depth drawn: L × √P of token1, L / √P of token0.
  const liquidityFor = (quoteAtoms: number): bigint => {
    const liquidity = baseIsToken0 ? quoteAtoms / sqrtReal : quoteAtoms * sqrtReal;
    return BigInt(Math.max(1, Math.floor(liquidity)));
  };
  const tick = tickOfSqrtPrice(kind, sqrtPrice);
  const positions: Position[] = [];
  const wideLower = tickAtRatio(kind, tick, 0.5, tickSpacing);
  const wideUpper = tickAtRatio(kind, tick, 1.5, tickSpacing);
  positions.push({ lowerTick: wideLower, upperTick: Math.max(wideUpper, wideLower + tickSpacing), liquidity: liquidityFor(Number(quoteReserveAtoms) * 0.2) });
  const narrowCount = randomInteger(random, 0, 12);
  for (let index = 0; index < narrowCount; index++) {
    const widthRatio = 10 ** (-3 + random.next() * 2);
    const centreRatio = 1 + (random.next() - 0.5) * 0.06;
    const lowerTick = tickAtRatio(kind, tick, centreRatio * (1 - widthRatio), tickSpacing);
    const upperTick = tickAtRatio(kind, tick, centreRatio * (1 + widthRatio), tickSpacing);
    if (upperTick <= lowerTick) continue;
    positions.push({ lowerTick, upperTick, liquidity: liquidityFor(Number(quoteReserveAtoms) * random.next() * 0.5) });
  }
  const pool = buildConcentratedPool({ ...identity, kind, feePips, tickSpacing, sqrtPrice, positions });
  return { pool, market, priceText };
}
