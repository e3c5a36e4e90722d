/**
 * The pool fixtures: every file loads, ids are unique across chains, pairs are engine pairs, the real token
 * order holds where it is known, a ±5 % sweep of each concentrated pool crosses several initialized ticks,
 * the writer and the loader round-trip, and each rule of the loader refuses a fixture that breaks it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertDistinctPoolIds, loadPoolFixtures, PoolFixtureError, poolToFixture } from './fixtures.ts';
import { poolPrice, swapToPrice, type PoolState } from './pool.ts';
import { getSqrtRatioAtTick } from './v3.ts';

const chains = ['ethereum', 'base', 'arbitrum', 'solana'] as const;

function readFixture(chain: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../fixtures/pools/${chain}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

function allPools(): PoolState[] {
  return chains.flatMap((chain) => loadPoolFixtures(readFixture(chain)));
}

test('every fixture file loads; pool ids are unique across chains; pairs are engine pairs', () => {
  const pools = allPools();
  assertDistinctPoolIds(pools);
  const markets = JSON.parse(readFileSync(new URL('../../fixtures/markets.json', import.meta.url), 'utf8')) as { pairs: Array<{ base: string; quote: string }> };
  const pairs = new Set(markets.pairs.map((pair) => `${pair.base}/${pair.quote}`));
  for (const pool of pools) assert.ok(pairs.has(pool.pair), `pool ${pool.poolId}: ${pool.pair}`);
  const summary = pools.map((pool) => `${pool.poolId}:${pool.chainId}:${pool.pair}:${pool.kind}`);
  assert.deepEqual(summary, [
    '1:1:ETH/USDC:v3', '2:1:BTC/USDC:v3', '3:1:PLAT/USDC:v2',
    '4:2:ETH/USDC:v3', '5:2:PLAT/USDC:v2', '6:2:PRED/USDC:v2',
    '7:3:ETH/USDC:v3', '8:3:BTC/USDC:v3',
    '9:4:SOL/USDC:clmm', '10:4:DOGE/USDC:v2',
      '11:4:ETH/USDC:clmm',
  ]);
});

test('the real token order: WETH is token1 on Ethereum and token0 on Base and Arbitrum; WBTC and SOL are token0', () => {
  const byId = new Map(allPools().map((pool) => [pool.poolId, pool]));
  const order = (id: number): string => `${byId.get(id)!.token0Symbol}/${byId.get(id)!.token1Symbol}`;
  assert.equal(order(1), 'USDC/WETH');
  assert.equal(byId.get(1)!.baseIsToken0, false);
  assert.equal(order(4), 'WETH/USDC');
  assert.equal(order(7), 'WETH/USDC');
  assert.equal(order(2), 'WBTC/USDC');
  assert.equal(order(8), 'WBTC/USDC');
  assert.equal(order(9), 'SOL/USDC');
  const solana = byId.get(9)!;
  assert.ok(solana.kind === 'clmm' && solana.tickSpacing === 4 && solana.feePips === 400, 'the SOL/USDC whirlpool: tick spacing 4, fee rate 400');
});

test('a ±5 % sweep of each concentrated fixture pool crosses several initialized ticks', () => {
  for (const pool of allPools()) {
    if (pool.kind === 'v2') continue;
    const price = poolPrice(pool);
    const tickOf = (state: PoolState): number => (state.kind === 'v3' ? state.tick : state.kind === 'clmm' ? state.tickIndex : 0);
    const up = swapToPrice(pool, false, { quoteAtoms: price.quoteAtoms * 105n, baseAtoms: price.baseAtoms * 100n });
    const down = swapToPrice(pool, true, { quoteAtoms: price.quoteAtoms * 95n, baseAtoms: price.baseAtoms * 100n });
    const start = tickOf(pool);
    const ends = [tickOf(up.pool), tickOf(down.pool)];
    const crossed = pool.ticks.filter((tick) => ends.some((end) => tick.index > Math.min(start, end) && tick.index <= Math.max(start, end))).length;
    assert.ok(crossed >= 6, `pool ${pool.poolId}: ${crossed} ticks crossed`);
  }
});

test('poolToFixture and loadPoolFixtures round-trip', () => {
  const pools = allPools();
  assert.deepEqual(loadPoolFixtures(JSON.parse(JSON.stringify({ pools: pools.map(poolToFixture) }))), pools);
});

/** A copy of one fixture pool's JSON with `change` applied, wrapped as a file. */
function broken(chain: string, index: number, change: (pool: Record<string, unknown>) => void): unknown {
  const file = readFixture(chain);
  const pools = structuredClone(file['pools']) as Array<Record<string, unknown>>;
  change(pools[index]!);
  return { ...file, pools };
}

test('the loader refuses each broken rule with the pool and the rule named', () => {
  type Ticks = Array<{ index: number; liquidity_net: string }>;
  const cases: Array<[string, unknown, RegExp]> = [
    ['unsorted ticks', broken('ethereum', 0, (pool) => (pool['ticks'] as Ticks).reverse()), /pool 1\.ticks: .*sorted/],
    ['a tick off the spacing', broken('ethereum', 0, (pool) => { (pool['ticks'] as Ticks)[0]!.index += 1; }), /multiple of the tick spacing/],
    ['liquidity not the sum below the tick', broken('base', 0, (pool) => { pool['liquidity'] = '12345'; }), /pool 4\.liquidity: must equal the sum/],
    ['liquidityNet not summing to zero', broken('arbitrum', 1, (pool) => { (pool['ticks'] as Ticks).pop(); }), /sum to zero|liquidity/],
    ['a tick that is not the price\'s', broken('solana', 0, (pool) => { pool['tick'] = (pool['tick'] as number) + 50; }), /pool 9\.tick: must be the tick of the sqrt price/],
    ['the base token not the pair\'s base', broken('ethereum', 0, (pool) => { pool['base'] = 'token0'; }), /the base token USDC must be the pair's base ETH/],
    ['an unknown field', broken('base', 1, (pool) => { pool['fee_bps'] = 30; }), /pool 5\.fee_bps: is not a field/],
    ['a duplicate pool id', broken('base', 2, (pool) => { pool['pool_id'] = 4; }), /unique/],
    ['a pool on another chain than its file', broken('solana', 1, (pool) => { pool['chain_id'] = 1; }), /must be the file's chain 4/],
    ['an empty v2 reserve', broken('solana', 1, (pool) => { pool['reserve0'] = '0'; }), /pool 10\.reserve0/],
    ['a fee in the wrong unit', broken('ethereum', 1, (pool) => { pool['fee_pips'] = 3_000_000; }), /fee_pips/],
    ['a price above every initialized tick', broken('ethereum', 0, (pool) => {
      const ticks = pool['ticks'] as Ticks;
      const tick = ticks[ticks.length - 1]!.index + 10;
      pool['tick'] = tick;
      pool['sqrt_price_x96'] = getSqrtRatioAtTick(tick).toString();
      pool['liquidity'] = '0';
    }), /pool 1\.tick: the price must lie inside the initialized ticks/],
  ];
  for (const [what, json, message] of cases) {
    assert.throws(() => loadPoolFixtures(json), (error: unknown) => error instanceof PoolFixtureError && message.test(error.message), what);
  }
});
