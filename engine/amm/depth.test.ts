/**
 * Depth quoting against the pool it quotes: on many seeded random pools of all three kinds, the book never
 * promises more than the pool gives (buying the ask levels' lots level by level with swapExactOut costs at
 * most price × lots, selling the bid levels' lots with swapExactIn yields at least that), prices are
 * monotone and on the right side of the pool's price with its fee, sizes are positive safe integers, the
 * band holds, and the levels never cross; and every fixture pool quotes on its engine pair.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadPoolFixtures } from './fixtures.ts';
import { depthLevelsPerSideMax, depthMarketOf, quoteDepth, timeDepthQuotes, type DepthLevels, type DepthMarket, type DepthOptions } from './depth.ts';
import { poolPrice, swapExactIn, swapExactOut, type PoolKind, type PoolState } from './pool.ts';
import { randomMarketPool } from './random-pools.ts';
import { randomInteger, seededRandom, type RandomSource } from './random.ts';

interface Grid {
  /** Quote atoms of (one tick × one lot) = tickLotQuoteAtoms / tickLotDenominator. */
  readonly tickLotQuoteAtoms: bigint;
  readonly tickLotDenominator: bigint;
  readonly lotAtoms: bigint;
  /** Ticks per (quote atom per base atom) = tickBaseAtoms / tickQuoteAtoms. */
  readonly tickQuoteAtoms: bigint;
  readonly tickBaseAtoms: bigint;
}

/** The market's grid, worked out here independently of depth.ts. */
function gridOf(market: DepthMarket): Grid {
  const parse = (text: string): [bigint, number] => {
    const [whole, fraction = ''] = text.split('.');
    return [BigInt(whole! + fraction), fraction.length];
  };
  const [tickMantissa, tickScale] = parse(market.tickSize);
  const [lotMantissa, lotScale] = parse(market.lotSize);
  return {
    tickLotQuoteAtoms: tickMantissa * lotMantissa * 10n ** BigInt(market.quoteDecimals),
    tickLotDenominator: 10n ** BigInt(tickScale + lotScale),
    lotAtoms: (lotMantissa * 10n ** BigInt(market.baseDecimals)) / 10n ** BigInt(lotScale),
    tickQuoteAtoms: tickMantissa * 10n ** BigInt(market.quoteDecimals),
    tickBaseAtoms: 10n ** BigInt(tickScale + market.baseDecimals),
  };
}

/** Quote atoms of `priceTicks` × `lots`, scaled by the grid's denominator (to compare without division). */
function notionalScaled(grid: Grid, priceTicks: number, lots: number): bigint {
  return BigInt(priceTicks) * BigInt(lots) * grid.tickLotQuoteAtoms;
}

function randomOptions(random: RandomSource, pool: PoolState, grid: Grid): DepthOptions {
  const price = poolPrice(pool);
  const midTicks = Number((price.quoteAtoms * grid.tickBaseAtoms) / (price.baseAtoms * grid.tickQuoteAtoms));
  // A level spans from a tenth of a basis point to 30 bps of the price, at least one tick.
  const stepBps = 10 ** (-1 + random.next() * 2.5);
  return {
    levelsPerSide: randomInteger(random, 1, 40),
    levelStepTicks: Math.max(1, Math.round((midTicks * stepBps) / 10_000)),
    bandBps: randomInteger(random, 20, 1500),
  };
}

/** Every structural rule of DepthLevels, and the band and fee side of the pool's price. */
function checkShape(levels: DepthLevels, pool: PoolState, grid: Grid, options: DepthOptions, context: string): void {
  assert.equal(levels.askPriceTicks.length, levels.askLots.length, context);
  assert.equal(levels.bidPriceTicks.length, levels.bidLots.length, context);
  assert.ok(levels.askLots.length <= options.levelsPerSide && levels.bidLots.length <= options.levelsPerSide, context);
  for (const value of [...levels.askPriceTicks, ...levels.askLots, ...levels.bidPriceTicks, ...levels.bidLots]) {
    assert.ok(Number.isSafeInteger(value) && value > 0, `${context}: ${value} is a positive safe integer`);
  }
  for (let index = 1; index < levels.askPriceTicks.length; index++) assert.ok(levels.askPriceTicks[index]! > levels.askPriceTicks[index - 1]!, `${context}: asks ascend`);
  for (let index = 1; index < levels.bidPriceTicks.length; index++) assert.ok(levels.bidPriceTicks[index]! < levels.bidPriceTicks[index - 1]!, `${context}: bids descend`);
  const bestAsk = levels.askPriceTicks[0];
  const bestBid = levels.bidPriceTicks[0];
  if (bestAsk !== undefined && bestBid !== undefined) assert.ok(bestBid < bestAsk, `${context}: bid ${bestBid} below ask ${bestAsk}`);
  // In tick units the mid is midNumerator / midDenominator.
  const price = poolPrice(pool);
  const midNumerator = price.quoteAtoms * grid.tickBaseAtoms;
  const midDenominator = price.baseAtoms * grid.tickQuoteAtoms;
  const band = BigInt(options.bandBps);
  const keep = 1_000_000n - BigInt(pool.feePips);
  for (const ask of levels.askPriceTicks) {
    assert.ok(BigInt(ask) * midDenominator * 10_000n <= midNumerator * (10_000n + band), `${context}: ask ${ask} within the band`);
    assert.ok(BigInt(ask) * midDenominator * keep >= midNumerator * 1_000_000n, `${context}: ask ${ask} at or above the pool's price with its fee`);
  }
  for (const bid of levels.bidPriceTicks) {
    assert.ok(BigInt(bid) * midDenominator * 10_000n >= midNumerator * (10_000n - band), `${context}: bid ${bid} within the band`);
    assert.ok(BigInt(bid) * midDenominator * 1_000_000n <= midNumerator * keep, `${context}: bid ${bid} at or below the pool's price net of its fee`);
  }
}

/**
 * The promise: a taker sweeping the asks buys each level's lots from the pool for at most price × lots, one
 * level after another; sweeping the bids sells each level's lots for at least price × lots; and each sweep
 * done as a single swap keeps the same bound on the total.
 */
function checkPromise(levels: DepthLevels, pool: PoolState, grid: Grid, context: string): void {
  let buyer = pool;
  let bought = 0n;
  let promisedCost = 0n;
  for (let index = 0; index < levels.askLots.length; index++) {
    const lots = levels.askLots[index]!;
    const swap = swapExactOut(buyer, false, BigInt(lots) * grid.lotAtoms);
    assert.equal(swap.amountOutAtoms, BigInt(lots) * grid.lotAtoms, `${context}: ask ${index} delivered in full`);
    const promised = notionalScaled(grid, levels.askPriceTicks[index]!, lots);
    assert.ok(swap.amountInAtoms * grid.tickLotDenominator <= promised, `${context}: ask ${index} (${lots} lots at ${levels.askPriceTicks[index]}) cost ${swap.amountInAtoms} atoms`);
    buyer = swap.pool;
    bought += BigInt(lots) * grid.lotAtoms;
    promisedCost += promised;
  }
  if (bought > 0n) assert.ok(swapExactOut(pool, false, bought).amountInAtoms * grid.tickLotDenominator <= promisedCost, `${context}: the whole ask side in one swap`);
  let seller = pool;
  let sold = 0n;
  let promisedYield = 0n;
  for (let index = 0; index < levels.bidLots.length; index++) {
    const lots = levels.bidLots[index]!;
    const swap = swapExactIn(seller, true, BigInt(lots) * grid.lotAtoms);
    assert.equal(swap.amountInAtoms, BigInt(lots) * grid.lotAtoms, `${context}: bid ${index} taken in full`);
    const promised = notionalScaled(grid, levels.bidPriceTicks[index]!, lots);
    assert.ok(swap.amountOutAtoms * grid.tickLotDenominator >= promised, `${context}: bid ${index} (${lots} lots at ${levels.bidPriceTicks[index]}) yielded ${swap.amountOutAtoms} atoms`);
    seller = swap.pool;
    sold += BigInt(lots) * grid.lotAtoms;
    promisedYield += promised;
  }
  if (sold > 0n) assert.ok(swapExactIn(pool, true, sold).amountOutAtoms * grid.tickLotDenominator >= promisedYield, `${context}: the whole bid side in one swap`);
}

for (const [kind, seed] of [['v2', 501], ['v3', 502], ['clmm', 503]] as Array<[PoolKind, number]>) {
  test(`${kind}: the book never promises more than the pool gives, on random pools`, () => {
    const random = seededRandom(seed);
    let levelCount = 0;
    let quotesWithBothSides = 0;
    const cases = 120;
    for (let index = 0; index < cases; index++) {
      const { pool, market, priceText } = randomMarketPool(random, kind);
      const grid = gridOf(market);
      const options = randomOptions(random, pool, grid);
      const context = `${kind} case ${index} price ${priceText} fee ${pool.feePips} grid ${market.tickSize}/${market.lotSize} options ${JSON.stringify(options)}`;
      const levels = quoteDepth(pool, market, options);
      checkShape(levels, pool, grid, options, context);
      checkPromise(levels, pool, grid, context);
      levelCount += levels.askLots.length + levels.bidLots.length;
      if (levels.askLots.length > 0 && levels.bidLots.length > 0) quotesWithBothSides++;
    }
    assert.ok(quotesWithBothSides > cases * 0.8, `${quotesWithBothSides} of ${cases} quotes have both sides`);
    assert.ok(levelCount > cases * 10, `${levelCount} levels`);
  });
}

test('a quote with a one-tick step on a pool with few lots per tick keeps the promise to the atom', () => {
  // A thin pool on a fine grid: each level holds a lot or two, where the pool's rounding is worth a tick.
  const random = seededRandom(504);
  for (const kind of ['v2', 'v3', 'clmm'] as const) {
    for (let index = 0; index < 30; index++) {
      const { pool, market } = randomMarketPool(random, kind);
      const grid = gridOf(market);
      const options: DepthOptions = { levelsPerSide: 30, levelStepTicks: 1, bandBps: 1500 };
      const levels = quoteDepth(pool, market, options);
      const context = `${kind} thin case ${index}`;
      checkShape(levels, pool, grid, options, context);
      checkPromise(levels, pool, grid, context);
    }
  }
});

test('quoting does not change the pool, and the same pool quotes the same levels', () => {
  const random = seededRandom(505);
  for (const kind of ['v2', 'v3', 'clmm'] as const) {
    const { pool, market } = randomMarketPool(random, kind);
    const before = JSON.stringify(pool, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    const options: DepthOptions = { levelsPerSide: 20, levelStepTicks: 50, bandBps: 500 };
    const first = quoteDepth(pool, market, options);
    const second = quoteDepth(pool, market, options);
    assert.deepEqual(second, first);
    assert.equal(JSON.stringify(pool, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)), before);
  }
});

test('options at their limits: no levels asked, the most levels allowed', () => {
  const random = seededRandom(506);
  const { pool, market } = randomMarketPool(random, 'v3');
  assert.deepEqual(quoteDepth(pool, market, { levelsPerSide: 0, levelStepTicks: 10, bandBps: 500 }), { bidPriceTicks: [], bidLots: [], askPriceTicks: [], askLots: [] });
  const levels = quoteDepth(pool, market, { levelsPerSide: depthLevelsPerSideMax, levelStepTicks: 1, bandBps: 10_000 });
  assert.ok(levels.askLots.length <= depthLevelsPerSideMax && levels.bidLots.length <= depthLevelsPerSideMax);
  assert.throws(() => quoteDepth(pool, market, { levelsPerSide: depthLevelsPerSideMax + 1, levelStepTicks: 1, bandBps: 500 }));
  assert.throws(() => quoteDepth(pool, market, { levelsPerSide: 10, levelStepTicks: 0, bandBps: 500 }));
});

test('timeDepthQuotes counts quotes with the clock it is given', () => {
  const random = seededRandom(507);
  const pools = (['v2', 'v3', 'clmm'] as const).map((kind) => randomMarketPool(random, kind));
  let now = 0;
  const timing = timeDepthQuotes(pools, { levelsPerSide: 5, levelStepTicks: 100, bandBps: 300 }, 2, () => (now += 5));
  assert.equal(timing.quotes, 6);
  assert.equal(timing.elapsedMs, 5);
});

interface MarketsJson {
  readonly pairs: ReadonlyArray<{ readonly base: string; readonly quote: string; readonly tick_size: string; readonly lot_size: string }>;
}

/** Every fixture pool with the market of its engine pair, read as the workers will read them. */
function fixturePools(): Array<{ pool: PoolState; market: DepthMarket }> {
  const markets = JSON.parse(readFileSync(new URL('../../fixtures/markets.json', import.meta.url), 'utf8')) as MarketsJson;
  const pools = ['ethereum', 'base', 'arbitrum', 'solana'].flatMap((chain) => loadPoolFixtures(JSON.parse(readFileSync(new URL(`../../fixtures/pools/${chain}.json`, import.meta.url), 'utf8'))));
  return pools.map((pool) => {
    const pair = markets.pairs.find((entry) => `${entry.base}/${entry.quote}` === pool.pair);
    assert.ok(pair !== undefined, `pool ${pool.poolId}'s pair ${pool.pair} is an engine pair`);
    return { pool, market: depthMarketOf(pool, pair.tick_size, pair.lot_size) };
  });
}

test('every fixture pool quotes both sides on its engine pair, uncrossed, keeping the promise', () => {
  for (const { pool, market } of fixturePools()) {
    const grid = gridOf(market);
    const price = poolPrice(pool);
    const midTicks = Number((price.quoteAtoms * grid.tickBaseAtoms) / (price.baseAtoms * grid.tickQuoteAtoms));
    // Levels of 2 bps over a 5 % band, as a worker would quote them, and a finer one-tick ladder.
    for (const options of [
      { levelsPerSide: 25, levelStepTicks: Math.max(1, Math.round(midTicks / 5000)), bandBps: 500 },
      { levelsPerSide: 40, levelStepTicks: 1, bandBps: 500 },
    ]) {
      const context = `pool ${pool.poolId} ${pool.pair} ${JSON.stringify(options)}`;
      const levels = quoteDepth(pool, market, options);
      assert.ok(levels.askLots.length > 0 && levels.bidLots.length > 0, `${context}: both sides quoted`);
      checkShape(levels, pool, grid, options, context);
      checkPromise(levels, pool, grid, context);
    }
  }
});
