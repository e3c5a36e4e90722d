/**
 * The AMM venues of bench:engine: the fixture pools (fixtures/pools/*.json) loaded and quoted the way the
 * AMM workers do it, for the hybrid mix's venue levels and for timing one worker quote per pool.
 *
 * Loading is the runtime's own `loadPools`; a quote is `quoteDepth` with the worker's default settings
 * (`defaultAmmSettings`, which the shell uses too) and a level step of `levelStepBps` of the pool's
 * price, rounded to whole ticks, as amm-worker.ts computes it before each quote.
 */
import { defaultAmmSettings, loadPools } from '../engine/runtime/amm-manager.ts';
import { depthMarketOf, depthOptionsOf, poolPriceTicks, quoteDepth, timeDepthQuotes, type DepthMarket, type DepthOptions } from '../engine/amm/depth.ts';
import { atomPriceOf } from '../engine/amm/fixtures.ts';
import { baseDecimalsOf, quoteDecimalsOf, swapToPrice, type PoolState } from '../engine/amm/pool.ts';
import { venueLevelsPerSideMax } from '../engine/core/limits.ts';
import { formatPrice, formatSteps, type Markets, type Pair } from '../engine/core/units.ts';
import type { Side } from '../engine/core/commands.ts';
import { benchPairId, midTicks, type VenueQuoteLevels } from './streams.ts';

/** A pool with what the worker quotes it with: the pair's grid and the depth options. */
interface WorkerQuote {
  readonly pool: PoolState;
  readonly market: DepthMarket;
  readonly options: DepthOptions;
}

function pairOf(markets: Markets, pool: PoolState): Pair {
  const pair = markets.pairBySymbol(pool.pair);
  if (pair === undefined) throw new Error(`pool ${pool.poolId}: no engine pair ${pool.pair}`);
  return pair;
}

function marketOf(pool: PoolState, pair: Pair): DepthMarket {
  return depthMarketOf(pool, formatSteps(1, pair.tick), formatSteps(1, pair.lot));
}

/** The pool's price in ticks of its pair (a float, as the worker sizes a level's step from it). */
function priceInTicks(pool: PoolState, pair: Pair): number {
  return poolPriceTicks(pool, marketOf(pool, pair));
}

/** The depth options the worker quotes `pool` with at its current price (amm-worker.ts, the default settings). */
function workerOptions(pool: PoolState, pair: Pair): DepthOptions {
  const settings = defaultAmmSettings;
  return depthOptionsOf(pool, marketOf(pool, pair), { ...settings, levelsPerSide: Math.min(settings.levelsPerSide, venueLevelsPerSideMax) });
}

function workerQuote(markets: Markets, pool: PoolState): WorkerQuote {
  const pair = pairOf(markets, pool);
  return { pool, market: marketOf(pool, pair), options: workerOptions(pool, pair) };
}

// -------------------------------------------------------------------------------------------------
// Venue levels of the hybrid mix

/**
 * How far from the bench's mid the first pools' best levels are put, in ticks; the next pools go this much
 * further out. The exchange-core mix wears the top of its book thin (its takers and the price-moving
 * amends): at 10 000 resting, the best resting order of a side sits a few tens of ticks from the mid and
 * the book gets dense from about 140 ticks out. With the venues 50 and 100 ticks out, a sweep takes the
 * few resting orders in front of the best venue level (fewer than one on average; only the first sweep of
 * a side meets the pre-loaded top, some hundreds) and not the thousands behind it.
 */
const placementStepTicks = 50;

/** Where one pool's best level goes: the side it is on and its price. */
interface Placement {
  readonly side: Side;
  readonly bestPriceTicks: number;
}

/**
 * The pool's own price that puts its best level of `placement.side` at about `placement.bestPriceTicks`.
 * quoteDepth's first level spans one step from the pool's price and is priced at its far boundary with the
 * fee on top (asks) or taken off (bids), so the pool sits a step and the fee behind its best level.
 */
function poolPriceFor(placement: Placement, stepTicks: number, feePips: number): number {
  const keep = 1 - feePips / 1_000_000;
  return placement.side === 1 ? Math.floor(placement.bestPriceTicks * keep) - stepTicks : Math.ceil(placement.bestPriceTicks / keep) + stepTicks;
}

/** The pool after the outside market moved it to `priceTicks`: the swap a trader would make, in the pool's own math. */
function movedTo(pool: PoolState, pair: Pair, priceTicks: number): PoolState {
  const limit = atomPriceOf(formatPrice(priceTicks, pair), baseDecimalsOf(pool), quoteDecimalsOf(pool));
  // Selling base into the pool lowers its price; buying base (quote in) raises it.
  return swapToPrice(pool, priceTicks < priceInTicks(pool, pair), limit).pool;
}

/**
 * The levels of the fixture pools of the bench's pair (ETH/USDC, one pool per chain), quoted as the worker
 * quotes them. The fixture pools trade about 1 % above the bench's mid of 3 000.00, where their bids would
 * cross the whole book, so each pool is first moved (swapToPrice, as an outside trader's swap would) so
 * that its best level sits just outside the book's touch: alternately an ask `placementStepTicks` above
 * the mid and a bid as far below it, the next two pools a further step out. A pool sits a level step and
 * its fee behind its best level, so the four pools' own prices end up within about 0.6 % of each other.
 */
export function hybridVenues(markets: Markets): VenueQuoteLevels[] {
  const pair = markets.pairById(benchPairId)!;
  const pools = loadPools(markets)
    .filter((pool) => pool.pair === pair.name)
    .sort((a, b) => a.poolId - b.poolId);
  if (pools.length === 0) throw new Error(`no fixture pool quotes ${pair.name}`);
  return pools.map((pool, index) => {
    const side: Side = index % 2 === 0 ? 1 : 0;
    const distance = placementStepTicks * (1 + Math.floor(index / 2));
    const placement: Placement = { side, bestPriceTicks: side === 1 ? midTicks + distance : midTicks - distance };
    // The step depends on the pool's price, so the second pass moves the pool with the step it has there.
    let moved = pool;
    for (let pass = 0; pass < 2; pass++) moved = movedTo(pool, pair, poolPriceFor(placement, workerOptions(moved, pair).levelStepTicks, pool.feePips));
    const quote = workerQuote(markets, moved);
    const levels = quoteDepth(quote.pool, quote.market, quote.options);
    if (levels.askPriceTicks.length === 0 || levels.bidPriceTicks.length === 0) throw new Error(`pool ${pool.poolId} quoted an empty side`);
    return { poolId: pool.poolId, chainId: pool.chainId, venue: pool.venue, levels };
  });
}

// -------------------------------------------------------------------------------------------------
// Quote timing

export interface PoolQuoteTime {
  readonly poolId: number;
  readonly venue: string;
  readonly pair: string;
  readonly microseconds: number;
}

export interface QuoteTimes {
  /** Mean over the pools of one quote's time: total time / quotes, every pool quoted equally often. */
  readonly microsecondsPerPool: number;
  readonly rounds: number;
  readonly pools: readonly PoolQuoteTime[];
}

/** Untimed rounds first, so that V8 has optimised the quoting code for every kind of pool. */
const quoteWarmupRounds = 5;

/**
 * A worker's quote computation, per pool: every fixture pool, as loaded, quoted with the options the worker
 * would use for it, by depth.ts's timeDepthQuotes (one pool at a time, because each pool's level step is
 * its own) with performance.now, the worker's clock. Round by round, each pool in turn, as a worker's
 * tick quotes its pools; `rounds` timed rounds after the warm-up ones.
 */
export function timeWorkerQuotes(markets: Markets, rounds: number): QuoteTimes {
  const quotes = loadPools(markets).map((pool) => workerQuote(markets, pool));
  const now = (): number => performance.now();
  const elapsedMs = quotes.map(() => 0);
  for (let round = 0; round < quoteWarmupRounds + rounds; round++) {
    quotes.forEach((quote, index) => {
      const timing = timeDepthQuotes([quote], quote.options, 1, now);
      if (round >= quoteWarmupRounds) elapsedMs[index] = elapsedMs[index]! + timing.elapsedMs;
    });
  }
  const pools = quotes.map((quote, index) => ({
    poolId: quote.pool.poolId,
    venue: quote.pool.venue,
    pair: quote.pool.pair,
    microseconds: (elapsedMs[index]! * 1000) / rounds,
  }));
  const microsecondsPerPool = pools.reduce((sum, pool) => sum + pool.microseconds, 0) / pools.length;
  return { microsecondsPerPool, rounds, pools };
}
