/**
 * Depth quoting: a pool's state turned into price levels on an engine pair's integer grid, the virtual
 * liquidity the hybrid book merges with resting orders.
 *
 * Levels start at the pool's price and are `levelStepTicks` engine ticks apart: the ask boundaries are
 * floor(mid) + k × step and the bid boundaries ceil(mid) − k × step (k = 1, 2, …), so the first level runs
 * from the pool's price to the first boundary, a little less than one step away. For each side the pool is
 * swapped, boundary by boundary, up to each level's boundary price: asks count the base the pool sends out
 * as the price rises, bids the base (fee included) it takes in as the price falls. A level holds the growth
 * of that cumulative base, in whole lots (cumulative lots are floored, so the levels never add up to more
 * than the pool holds to that boundary). Its price is its worst boundary for the taker with the fee: asks
 * the upper boundary grossed up by the fee and rounded up to a tick, bids the lower boundary net of the fee
 * and rounded down.
 *
 * The contract is that the book never promises more than the pool gives: buying a level's lots from the
 * pool (after the better levels) costs at most price × lots, and selling them yields at least that. The
 * boundary-and-fee price guarantees it up to the pool's own integer rounding (an atom or two per swap
 * step); to make it hold to the atom, each level's lots are also swapped exactly, in order, and a level
 * whose exact cost would exceed its price is priced one or more ticks worse. That happens only for levels of
 * a few lots, where an atom is worth a tick.
 *
 * The band applies to the quoted prices (fee included): levels stop before the first price beyond
 * mid × (1 ± bandBps / 10 000).
 */
import { assert } from '../core/assert.ts';
import { safeIntegerMax } from '../core/limits.ts';
import { feePipsDenominator } from './math.ts';
import { baseDecimalsOf, poolPrice, quoteDecimalsOf, swapExactIn, swapExactOut, swapToPrice, type AtomPrice, type PoolState } from './pool.ts';

/** How a pool's tokens map to an engine pair: the pair's grid and which token is the base. */
export interface DepthMarket {
  readonly baseIsToken0: boolean;
  readonly baseDecimals: number;   // the base token's on-chain decimals (WETH 18)
  readonly quoteDecimals: number;  // the quote token's on-chain decimals (USDC 6)
  readonly tickSize: string;       // the engine pair's price step in quote per base, decimal text ("0.01")
  readonly lotSize: string;        // the engine pair's quantity step in base, decimal text ("0.0001")
}

export interface DepthOptions {
  readonly levelsPerSide: number;  // at most this many levels per side
  readonly levelStepTicks: number; // each level spans this many engine ticks of price
  readonly bandBps: number;        // stop once the price is this far from the pool's mid (e.g. 500 = 5 %)
}

export interface DepthLevels {
  /** Best first: bids descending, asks ascending. Prices in engine ticks, sizes in engine lots (positive integers). */
  readonly bidPriceTicks: number[];
  readonly bidLots: number[];
  readonly askPriceTicks: number[];
  readonly askLots: number[];
}

/** Levels one quote may ask for per side: a worker posts one quote per pool, and the book holds them all. */
export const depthLevelsPerSideMax = 256;

/**
 * Boundaries examined per level asked for. Empty levels (less than a lot between two boundaries) are
 * skipped rather than sent, so a thin pool or a fine step needs more boundaries than levels; this bounds
 * the swaps one quote costs.
 */
export const boundariesPerLevelMax = 8;

/** A decimal step as mantissa × 10^-scale. */
interface DecimalStep {
  readonly mantissa: bigint;
  readonly scale: number;
}

/** The exact conversions between a pool's atoms and the pair's ticks and lots. */
interface Grid {
  /** Quote atoms per base atom of one tick: tickQuoteAtoms / tickBaseAtoms. */
  readonly tickQuoteAtoms: bigint;
  readonly tickBaseAtoms: bigint;
  readonly lotAtoms: bigint;
  /** Quote atoms of one tick × one lot, as a fraction: tickLotQuoteAtoms / tickLotDenominator. */
  readonly tickLotQuoteAtoms: bigint;
  readonly tickLotDenominator: bigint;
}

const decimalPattern = /^(\d+)(?:\.(\d+))?$/;

function parseStep(text: string, what: string): DecimalStep {
  const match = decimalPattern.exec(text);
  assert(match !== null, `${what} is a plain decimal`);
  const fraction = match[2] ?? '';
  const mantissa = BigInt(match[1]! + fraction);
  assert(mantissa > 0n, `${what} is positive`);
  return { mantissa, scale: fraction.length };
}

function gridOf(market: DepthMarket): Grid {
  assert(Number.isInteger(market.baseDecimals) && market.baseDecimals >= 0 && market.baseDecimals <= 30, 'base decimals in range');
  assert(Number.isInteger(market.quoteDecimals) && market.quoteDecimals >= 0 && market.quoteDecimals <= 30, 'quote decimals in range');
  const tick = parseStep(market.tickSize, 'tick size');
  const lot = parseStep(market.lotSize, 'lot size');
  // One tick of price is tick quote per whole base: tick × 10^quoteDecimals quote atoms per 10^baseDecimals base atoms.
  const tickQuoteAtoms = tick.mantissa * 10n ** BigInt(market.quoteDecimals);
  const tickBaseAtoms = 10n ** BigInt(tick.scale + market.baseDecimals);
  const lotNumerator = lot.mantissa * 10n ** BigInt(market.baseDecimals);
  const lotDenominator = 10n ** BigInt(lot.scale);
  assert(lotNumerator % lotDenominator === 0n, 'a lot is a whole number of base atoms');
  return {
    tickQuoteAtoms,
    tickBaseAtoms,
    lotAtoms: lotNumerator / lotDenominator,
    tickLotQuoteAtoms: tick.mantissa * lot.mantissa * 10n ** BigInt(market.quoteDecimals),
    tickLotDenominator: 10n ** BigInt(tick.scale + lot.scale),
  };
}

/** The atom price of a whole number of ticks. */
function priceAtTicks(grid: Grid, priceTicks: number): AtomPrice {
  return { quoteAtoms: BigInt(priceTicks) * grid.tickQuoteAtoms, baseAtoms: grid.tickBaseAtoms };
}

/** An atom price in ticks, as the exact fraction numerator / denominator. */
function priceInTicks(grid: Grid, price: AtomPrice): { numerator: bigint; denominator: bigint } {
  return { numerator: price.quoteAtoms * grid.tickBaseAtoms, denominator: price.baseAtoms * grid.tickQuoteAtoms };
}

function emptyLevels(): DepthLevels {
  return { bidPriceTicks: [], bidLots: [], askPriceTicks: [], askLots: [] };
}

/**
 * The pool's depth as levels on the pair's grid (see the file's comment for the rules). Never mutates the
 * pool. A pool whose price is off the grid's safe range (beyond 2^53 ticks) quotes nothing.
 */
export function quoteDepth(pool: PoolState, market: DepthMarket, options: DepthOptions): DepthLevels {
  assert(market.baseIsToken0 === pool.baseIsToken0, 'the market and the pool agree on the base token');
  assert(market.baseDecimals === baseDecimalsOf(pool) && market.quoteDecimals === quoteDecimalsOf(pool), 'the market has the pool\'s decimals');
  assert(Number.isInteger(options.levelsPerSide) && options.levelsPerSide >= 0 && options.levelsPerSide <= depthLevelsPerSideMax, 'levels per side within the limit');
  assert(Number.isInteger(options.levelStepTicks) && options.levelStepTicks >= 1, 'a level spans at least one tick');
  assert(Number.isInteger(options.bandBps) && options.bandBps >= 1 && options.bandBps <= 10_000, 'band within 0..100 %');
  const grid = gridOf(market);
  const mid = priceInTicks(grid, poolPrice(pool));
  const bandScale = 10_000n;
  const midFloorTicks = mid.numerator / mid.denominator;
  const midCeilTicks = midFloorTicks + (mid.numerator % mid.denominator === 0n ? 0n : 1n);
  const askBandTicks = (mid.numerator * (bandScale + BigInt(options.bandBps))) / (mid.denominator * bandScale);
  const bidBandScaled = mid.numerator * (bandScale - BigInt(options.bandBps));
  const bidBandTicks = bidBandScaled / (mid.denominator * bandScale) + (bidBandScaled % (mid.denominator * bandScale) === 0n ? 0n : 1n);
  const levels = emptyLevels();
  const lastBoundary = midFloorTicks + BigInt(options.levelsPerSide * boundariesPerLevelMax + 1) * BigInt(options.levelStepTicks);
  if (options.levelsPerSide === 0 || lastBoundary > BigInt(safeIntegerMax) || askBandTicks > BigInt(safeIntegerMax)) return levels;
  quoteAsks(pool, grid, options, Number(midFloorTicks), Number(askBandTicks), levels);
  quoteBids(pool, grid, options, Number(midCeilTicks), Number(bidBandTicks), levels);
  return levels;
}

/** Whole lots in `atoms`, capped at the largest safe integer (a cap only ever quotes less). */
function lotsIn(grid: Grid, atoms: bigint): number {
  const lots = atoms / grid.lotAtoms;
  return lots > BigInt(safeIntegerMax) ? safeIntegerMax : Number(lots);
}

function quoteAsks(pool: PoolState, grid: Grid, options: DepthOptions, midFloorTicks: number, bandTicks: number, levels: DepthLevels): void {
  const feeKeep = feePipsDenominator - BigInt(pool.feePips);
  let boundaryPool = pool;
  let consumerPool = pool;
  let cumulativeAtoms = 0n;
  let cumulativeLots = 0;
  let previousPriceTicks = 0;
  const boundariesMax = options.levelsPerSide * boundariesPerLevelMax;
  for (let boundary = 1; boundary <= boundariesMax && levels.askLots.length < options.levelsPerSide; boundary++) {
    const upperTicks = midFloorTicks + boundary * options.levelStepTicks;
    // The level's price: its upper boundary grossed up by the fee, rounded up to a tick.
    let priceTicks = Number((BigInt(upperTicks) * feePipsDenominator + feeKeep - 1n) / feeKeep);
    if (priceTicks > bandTicks) break;
    const reach = swapToPrice(boundaryPool, false, priceAtTicks(grid, upperTicks));
    boundaryPool = reach.pool;
    cumulativeAtoms += reach.amountOutAtoms;
    const lots = lotsIn(grid, cumulativeAtoms) - cumulativeLots;
    if (lots === 0) continue;
    // Buy the level's lots exactly as a taker would after the better levels; if the pool's rounding makes
    // them cost more than the boundary price promises, quote the level that much worse.
    const bought = swapExactOut(consumerPool, false, BigInt(lots) * grid.lotAtoms);
    if (bought.amountOutAtoms < BigInt(lots) * grid.lotAtoms) break;
    consumerPool = bought.pool;
    const notionalScale = BigInt(lots) * grid.tickLotQuoteAtoms;
    const costTicks = (bought.amountInAtoms * grid.tickLotDenominator + notionalScale - 1n) / notionalScale;
    if (costTicks > BigInt(priceTicks)) priceTicks = Number(costTicks);
    if (priceTicks <= previousPriceTicks) priceTicks = previousPriceTicks + 1;
    if (priceTicks > bandTicks) break;
    levels.askPriceTicks.push(priceTicks);
    levels.askLots.push(lots);
    cumulativeLots += lots;
    previousPriceTicks = priceTicks;
  }
}

function quoteBids(pool: PoolState, grid: Grid, options: DepthOptions, midCeilTicks: number, bandTicks: number, levels: DepthLevels): void {
  const feeKeep = feePipsDenominator - BigInt(pool.feePips);
  let boundaryPool = pool;
  let consumerPool = pool;
  let cumulativeAtoms = 0n;
  let cumulativeLots = 0;
  let previousPriceTicks = Number.MAX_SAFE_INTEGER;
  const boundariesMax = options.levelsPerSide * boundariesPerLevelMax;
  for (let boundary = 1; boundary <= boundariesMax && levels.bidLots.length < options.levelsPerSide; boundary++) {
    const lowerTicks = midCeilTicks - boundary * options.levelStepTicks;
    if (lowerTicks <= 0) break;
    // The level's price: its lower boundary net of the fee, rounded down to a tick.
    let priceTicks = Number((BigInt(lowerTicks) * feeKeep) / feePipsDenominator);
    if (priceTicks < bandTicks || priceTicks <= 0) break;
    const reach = swapToPrice(boundaryPool, true, priceAtTicks(grid, lowerTicks));
    boundaryPool = reach.pool;
    cumulativeAtoms += reach.amountInAtoms;
    const lots = lotsIn(grid, cumulativeAtoms) - cumulativeLots;
    if (lots === 0) continue;
    // Sell the level's lots exactly as a taker would after the better levels; if the pool's rounding makes
    // them yield less than the boundary price promises, quote the level that much worse.
    const sold = swapExactIn(consumerPool, true, BigInt(lots) * grid.lotAtoms);
    if (sold.amountInAtoms < BigInt(lots) * grid.lotAtoms) break;
    consumerPool = sold.pool;
    const yieldTicks = (sold.amountOutAtoms * grid.tickLotDenominator) / (BigInt(lots) * grid.tickLotQuoteAtoms);
    if (yieldTicks < BigInt(priceTicks)) priceTicks = Number(yieldTicks);
    if (priceTicks >= previousPriceTicks) priceTicks = previousPriceTicks - 1;
    if (priceTicks < bandTicks || priceTicks <= 0) break;
    levels.bidPriceTicks.push(priceTicks);
    levels.bidLots.push(lots);
    cumulativeLots += lots;
    previousPriceTicks = priceTicks;
  }
}

/**
 * A DepthMarket for a pool and an engine pair's tick and lot sizes (fixtures/markets.json's tick_size and
 * lot_size), with the pool's own token order and on-chain decimals.
 */
export function depthMarketOf(pool: PoolState, tickSize: string, lotSize: string): DepthMarket {
  return {
    baseIsToken0: pool.baseIsToken0,
    baseDecimals: baseDecimalsOf(pool),
    quoteDecimals: quoteDecimalsOf(pool),
    tickSize,
    lotSize,
  };
}

/** How a worker shapes a pool's levels: how many a side, each `levelStepBps` of the pool's price wide, within a band. */
export interface DepthShape {
  readonly levelsPerSide: number;
  readonly levelStepBps: number;
  readonly bandBps: number;
}

/**
 * The pool's price in ticks of `market`, as a float: it only sizes a level's step (the levels themselves
 * are exact), so the rounding of a float is harmless here.
 */
export function poolPriceTicks(pool: PoolState, market: DepthMarket): number {
  const price = poolPrice(pool);
  const unitPrice = (Number(price.quoteAtoms) / Number(price.baseAtoms)) * 10 ** (market.baseDecimals - market.quoteDecimals);
  return unitPrice / Number(market.tickSize);
}

/** The depth options to quote `pool` with now: the shape's level width at the pool's price, in whole ticks (at least one). */
export function depthOptionsOf(pool: PoolState, market: DepthMarket, shape: DepthShape): DepthOptions {
  const levelStepTicks = Math.max(1, Math.round((poolPriceTicks(pool, market) * shape.levelStepBps) / 10_000));
  return { levelsPerSide: shape.levelsPerSide, levelStepTicks, bandBps: shape.bandBps };
}

/** What a worker learns from timing its quotes: how many, how long in all, and per quote. */
export interface QuoteTiming {
  readonly quotes: number;
  readonly elapsedMs: number;
  readonly microsecondsPerQuote: number;
}

/**
 * Quotes every pool `rounds` times and reports the time taken, for a worker to size its quoting interval.
 * The clock is the caller's (engine/amm reads none): pass `performance.now` from the worker.
 */
export function timeDepthQuotes(pools: ReadonlyArray<{ pool: PoolState; market: DepthMarket }>, options: DepthOptions, rounds: number, nowMs: () => number): QuoteTiming {
  assert(Number.isInteger(rounds) && rounds >= 1, 'at least one round');
  const startMs = nowMs();
  let quotes = 0;
  for (let round = 0; round < rounds; round++) {
    for (const { pool, market } of pools) {
      quoteDepth(pool, market, options);
      quotes++;
    }
  }
  const elapsedMs = nowMs() - startMs;
  return { quotes, elapsedMs, microsecondsPerQuote: quotes === 0 ? 0 : (elapsedMs * 1000) / quotes };
}
