/**
 * Pool snapshots as data: the loader that turns a parsed fixtures/pools/*.json into validated `PoolState`s,
 * the writer that turns states back into that JSON, and the builder that makes a concentrated pool from
 * positions (how the fixtures were made, and how tests make pools). No file access here: the caller reads
 * the file and passes the parsed JSON.
 *
 * A fixture that breaks a rule is refused with a `PoolFixtureError` naming the pool and the rule: fixtures
 * are input, and a bad one must stop the worker at startup rather than quote a pool that cannot exist.
 */
import { isqrt, uint128Max, type InitializedTick } from './math.ts';
import { getTickAtSqrtRatio, maxSqrtRatio, maxTick, minSqrtRatio, minTick } from './v3.ts';
import { maxSqrtPrice, maxTickIndex, minSqrtPrice, minTickIndex, sqrtPriceToTickIndex } from './whirlpool.ts';
import { ChainId, type AtomPrice, type ClmmPoolState, type PoolIdentity, type PoolKind, type PoolState, type V3PoolState } from './pool.ts';

export class PoolFixtureError extends Error {
  override readonly name = 'PoolFixtureError';
}

/** Pools one fixture file may hold. */
export const poolsPerFixtureMax = 64;
/** Initialized ticks one pool may carry: enough for every position within a wide band around the price. */
export const ticksPerPoolMax = 4096;
/** Decimals a token may have (SPL tokens allow up to 255; every real token we list has at most 18). */
const tokenDecimalsMax = 36;
/** The widest tick spacing either protocol uses (Whirlpools' full-range-only spacing is 32768). */
const tickSpacingMax = 32768;
/** v2 reserves are uint112 in the pair contract. */
const v2ReserveMax = (1n << 112n) - 1n;
/** Fees above 10 % exist nowhere we quote; a larger value is a unit mistake (bps for pips, say). */
const feePipsMax = 100_000;

const integerText = /^-?\d+$/;
const pairPattern = /^([A-Z0-9]+)\/([A-Z0-9]+)$/;
const chainIds = new Set<number>(Object.values(ChainId));

type Json = Record<string, unknown>;

function fail(where: string, rule: string): never {
  throw new PoolFixtureError(`${where}: ${rule}`);
}

function objectAt(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'must be an object');
  return value as Json;
}

function integerAt(value: unknown, where: string, low: number, high: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < low || value > high) fail(where, `must be an integer in ${low}..${high}`);
  return value;
}

function bigintAt(value: unknown, where: string, low: bigint, high: bigint): bigint {
  if (typeof value !== 'string' || !integerText.test(value)) fail(where, 'must be an integer as decimal text');
  const parsed = BigInt(value);
  if (parsed < low || parsed > high) fail(where, `must be in ${low}..${high}`);
  return parsed;
}

function textAt(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) fail(where, 'must be text of 1..64 characters');
  return value;
}

/** A wrapped token stands for its native asset in a pair: WETH for ETH, WBTC for BTC. */
function tokenIsAsset(tokenSymbol: string, assetSymbol: string): boolean {
  return tokenSymbol === assetSymbol || tokenSymbol === `W${assetSymbol}`;
}

/**
 * Parses and validates one fixture file's JSON: `{ "chain_id": 1, "pools": [...] }` (chain_id optional;
 * when given every pool must be on that chain; other top-level keys, such as a comment, are ignored). Pool
 * ids must be unique within the file; across files use `assertDistinctPoolIds`.
 */
export function loadPoolFixtures(json: unknown): PoolState[] {
  const root = objectAt(json, 'pool fixtures');
  const entries = root['pools'];
  if (!Array.isArray(entries) || entries.length > poolsPerFixtureMax) fail('pool fixtures', `pools must be an array of at most ${poolsPerFixtureMax}`);
  const pools = entries.map((entry, index) => loadPool(entry, `pools[${index}]`));
  const fileChainId = root['chain_id'];
  if (fileChainId !== undefined) {
    for (const pool of pools) if (pool.chainId !== fileChainId) fail(`pool ${pool.poolId}.chain_id`, `must be the file's chain ${String(fileChainId)}`);
  }
  assertDistinctPoolIds(pools);
  return pools;
}

/** Refuses two pools with one id (the engine's venue id must name one pool). */
export function assertDistinctPoolIds(pools: readonly PoolState[]): void {
  const seen = new Set<number>();
  for (const pool of pools) {
    if (seen.has(pool.poolId)) fail(`pool ${pool.poolId}`, 'pool ids must be unique across all fixtures');
    seen.add(pool.poolId);
  }
}

const commonKeys = ['pool_id', 'chain_id', 'pair', 'venue', 'kind', 'token0', 'token1', 'base', 'fee_pips'];
const keysOfKind: Record<PoolKind, ReadonlySet<string>> = {
  v2: new Set([...commonKeys, 'reserve0', 'reserve1']),
  v3: new Set([...commonKeys, 'tick_spacing', 'sqrt_price_x96', 'tick', 'liquidity', 'ticks']),
  clmm: new Set([...commonKeys, 'tick_spacing', 'sqrt_price_x64', 'tick', 'liquidity', 'ticks']),
};

function loadPool(value: unknown, at: string): PoolState {
  const entry = objectAt(value, at);
  const poolId = integerAt(entry['pool_id'], `${at}.pool_id`, 1, 65_535);
  const where = `pool ${poolId}`;
  const kindValue = entry['kind'];
  if (kindValue !== 'v2' && kindValue !== 'v3' && kindValue !== 'clmm') fail(`${where}.kind`, 'must be "v2", "v3" or "clmm"');
  // Unknown keys are refused so that a misspelt field (fee_bps for fee_pips) cannot pass as absent.
  for (const key of Object.keys(entry)) if (!keysOfKind[kindValue].has(key)) fail(`${where}.${key}`, `is not a field of a ${kindValue} pool`);
  const chainId = integerAt(entry['chain_id'], `${where}.chain_id`, 1, 4);
  if (!chainIds.has(chainId)) fail(`${where}.chain_id`, 'must be a known chain');
  const pair = textAt(entry['pair'], `${where}.pair`);
  const pairMatch = pairPattern.exec(pair);
  if (pairMatch === null) fail(`${where}.pair`, 'must be BASE/QUOTE');
  const token0 = objectAt(entry['token0'], `${where}.token0`);
  const token1 = objectAt(entry['token1'], `${where}.token1`);
  const base = entry['base'];
  if (base !== 'token0' && base !== 'token1') fail(`${where}.base`, 'must be "token0" or "token1"');
  const identity: PoolIdentity = {
    poolId,
    chainId: chainId as ChainId,
    pair,
    venue: textAt(entry['venue'], `${where}.venue`),
    token0Symbol: textAt(token0['symbol'], `${where}.token0.symbol`),
    token1Symbol: textAt(token1['symbol'], `${where}.token1.symbol`),
    token0Decimals: integerAt(token0['decimals'], `${where}.token0.decimals`, 0, tokenDecimalsMax),
    token1Decimals: integerAt(token1['decimals'], `${where}.token1.decimals`, 0, tokenDecimalsMax),
    baseIsToken0: base === 'token0',
    feePips: integerAt(entry['fee_pips'], `${where}.fee_pips`, 0, feePipsMax),
  };
  const baseSymbol = identity.baseIsToken0 ? identity.token0Symbol : identity.token1Symbol;
  const quoteSymbol = identity.baseIsToken0 ? identity.token1Symbol : identity.token0Symbol;
  if (!tokenIsAsset(baseSymbol, pairMatch[1]!)) fail(`${where}.base`, `the base token ${baseSymbol} must be the pair's base ${pairMatch[1]}`);
  if (!tokenIsAsset(quoteSymbol, pairMatch[2]!)) fail(`${where}.base`, `the quote token ${quoteSymbol} must be the pair's quote ${pairMatch[2]}`);
  switch (kindValue) {
    case 'v2':
      return {
        ...identity,
        kind: kindValue,
        reserve0Atoms: bigintAt(entry['reserve0'], `${where}.reserve0`, 1n, v2ReserveMax),
        reserve1Atoms: bigintAt(entry['reserve1'], `${where}.reserve1`, 1n, v2ReserveMax),
      };
    case 'v3':
    case 'clmm':
      return loadConcentrated(entry, identity, kindValue, where);
  }
}

function loadConcentrated(entry: Json, identity: PoolIdentity, kind: 'v3' | 'clmm', where: string): V3PoolState | ClmmPoolState {
  const v3 = kind === 'v3';
  const tickLow = v3 ? minTick : minTickIndex;
  const tickHigh = v3 ? maxTick : maxTickIndex;
  const tickSpacing = integerAt(entry['tick_spacing'], `${where}.tick_spacing`, 1, tickSpacingMax);
  const priceKey = v3 ? 'sqrt_price_x96' : 'sqrt_price_x64';
  const sqrtPrice = v3
    ? bigintAt(entry[priceKey], `${where}.${priceKey}`, minSqrtRatio, maxSqrtRatio - 1n)
    : bigintAt(entry[priceKey], `${where}.${priceKey}`, minSqrtPrice, maxSqrtPrice);
  const tick = integerAt(entry['tick'], `${where}.tick`, tickLow, tickHigh);
  const expectedTick = v3 ? getTickAtSqrtRatio(sqrtPrice) : sqrtPriceToTickIndex(sqrtPrice);
  if (tick !== expectedTick) fail(`${where}.tick`, `must be the tick of the sqrt price (${expectedTick})`);
  const liquidity = bigintAt(entry['liquidity'], `${where}.liquidity`, 0n, uint128Max);
  const rawTicks = entry['ticks'];
  if (!Array.isArray(rawTicks) || rawTicks.length < 2 || rawTicks.length > ticksPerPoolMax) fail(`${where}.ticks`, `must be an array of 2..${ticksPerPoolMax}`);
  const ticks: InitializedTick[] = rawTicks.map((raw, index) => {
    const tickEntry = objectAt(raw, `${where}.ticks[${index}]`);
    const tickIndex = integerAt(tickEntry['index'], `${where}.ticks[${index}].index`, tickLow, tickHigh);
    if (tickIndex % tickSpacing !== 0) fail(`${where}.ticks[${index}]`, 'must be a multiple of the tick spacing');
    const liquidityNet = bigintAt(tickEntry['liquidity_net'], `${where}.ticks[${index}].liquidity_net`, -uint128Max, uint128Max);
    if (liquidityNet === 0n) fail(`${where}.ticks[${index}]`, 'an initialized tick has a non-zero liquidity_net');
    return { index: tickIndex, liquidityNet };
  });
  for (let index = 1; index < ticks.length; index++) {
    if (ticks[index]!.index <= ticks[index - 1]!.index) fail(`${where}.ticks`, 'must be sorted by index, each once');
  }
  let running = 0n;
  let active = 0n;
  for (const current of ticks) {
    running += current.liquidityNet;
    if (running < 0n) fail(`${where}.ticks`, `liquidity below tick ${current.index} would be negative`);
    if (current.index <= tick) active = running;
  }
  if (running !== 0n) fail(`${where}.ticks`, 'liquidity_net must sum to zero (every position has a lower and an upper tick)');
  if (active !== liquidity) fail(`${where}.liquidity`, `must equal the sum of liquidity_net at or below the current tick (${active})`);
  if (!(ticks[0]!.index <= tick && tick < ticks[ticks.length - 1]!.index)) fail(`${where}.tick`, 'the price must lie inside the initialized ticks');
  if (liquidity === 0n) fail(`${where}.liquidity`, 'a quoted pool has liquidity at its price');
  return v3
    ? { ...identity, kind: 'v3', tickSpacing, sqrtPriceX96: sqrtPrice, tick, liquidity, ticks }
    : { ...identity, kind: 'clmm', tickSpacing, sqrtPriceX64: sqrtPrice, tickIndex: tick, liquidity, ticks };
}

/** The JSON of one pool, in the fixture format `loadPoolFixtures` reads (bigints as decimal text). */
export function poolToFixture(pool: PoolState): Record<string, unknown> {
  const common = {
    pool_id: pool.poolId,
    chain_id: pool.chainId,
    pair: pool.pair,
    venue: pool.venue,
    kind: pool.kind,
    token0: { symbol: pool.token0Symbol, decimals: pool.token0Decimals },
    token1: { symbol: pool.token1Symbol, decimals: pool.token1Decimals },
    base: pool.baseIsToken0 ? 'token0' : 'token1',
    fee_pips: pool.feePips,
  };
  const ticks = (list: readonly InitializedTick[]): Array<Record<string, unknown>> => list.map((entry) => ({ index: entry.index, liquidity_net: entry.liquidityNet.toString() }));
  switch (pool.kind) {
    case 'v2':
      return { ...common, reserve0: pool.reserve0Atoms.toString(), reserve1: pool.reserve1Atoms.toString() };
    case 'v3':
      return { ...common, tick_spacing: pool.tickSpacing, sqrt_price_x96: pool.sqrtPriceX96.toString(), tick: pool.tick, liquidity: pool.liquidity.toString(), ticks: ticks(pool.ticks) };
    case 'clmm':
      return { ...common, tick_spacing: pool.tickSpacing, sqrt_price_x64: pool.sqrtPriceX64.toString(), tick: pool.tickIndex, liquidity: pool.liquidity.toString(), ticks: ticks(pool.ticks) };
  }
}

/** A decimal price of base in quote ("3012.34") as an exact atom price, given both tokens' decimals. */
export function atomPriceOf(priceText: string, baseDecimals: number, quoteDecimals: number): AtomPrice {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(priceText);
  if (match === null) throw new PoolFixtureError(`price ${priceText}: must be a plain decimal`);
  const fraction = match[2] ?? '';
  return {
    quoteAtoms: BigInt(match[1]! + fraction) * 10n ** BigInt(quoteDecimals),
    baseAtoms: 10n ** BigInt(fraction.length + baseDecimals),
  };
}

/** The sqrt price (Q64.96 for v3, Q64.64 for Whirlpools) of an atom price, rounded down. */
export function sqrtPriceOf(price: AtomPrice, kind: Exclude<PoolKind, 'v2'>, baseIsToken0: boolean): bigint {
  const shift = kind === 'v3' ? 192n : 128n;
  // The pool's price is token1 per token0: the base's price when base is token0, its inverse otherwise.
  return baseIsToken0 ? isqrt((price.quoteAtoms << shift) / price.baseAtoms) : isqrt((price.baseAtoms << shift) / price.quoteAtoms);
}

/** One liquidity position: its range in ticks (multiples of the spacing) and its liquidity. */
export interface Position {
  readonly lowerTick: number;
  readonly upperTick: number;
  readonly liquidity: bigint;
}

export interface ConcentratedPoolSpec extends PoolIdentity {
  readonly kind: 'v3' | 'clmm';
  readonly tickSpacing: number;
  readonly sqrtPrice: bigint;
  readonly positions: readonly Position[];
}

/**
 * A concentrated pool from its positions: liquidityNet summed per tick (in at the lower tick, out at the
 * upper), the tick of the price, and the active liquidity of the positions whose range holds that tick.
 */
export function buildConcentratedPool(spec: ConcentratedPoolSpec): V3PoolState | ClmmPoolState {
  const net = new Map<number, bigint>();
  for (const position of spec.positions) {
    if (position.lowerTick >= position.upperTick || position.lowerTick % spec.tickSpacing !== 0 || position.upperTick % spec.tickSpacing !== 0 || position.liquidity <= 0n) {
      throw new PoolFixtureError(`pool ${spec.poolId}: position ${position.lowerTick}..${position.upperTick} must be an ordered range on the spacing with positive liquidity`);
    }
    net.set(position.lowerTick, (net.get(position.lowerTick) ?? 0n) + position.liquidity);
    net.set(position.upperTick, (net.get(position.upperTick) ?? 0n) - position.liquidity);
  }
  const ticks = [...net.entries()]
    .filter(([, liquidityNet]) => liquidityNet !== 0n)
    .map(([index, liquidityNet]) => ({ index, liquidityNet }))
    .sort((a, b) => a.index - b.index);
  const tick = tickOfSqrtPrice(spec.kind, spec.sqrtPrice);
  let liquidity = 0n;
  for (const position of spec.positions) if (position.lowerTick <= tick && tick < position.upperTick) liquidity += position.liquidity;
  const { sqrtPrice, positions: _positions, ...identity } = spec;
  return spec.kind === 'v3'
    ? { ...identity, kind: 'v3', tickSpacing: spec.tickSpacing, sqrtPriceX96: sqrtPrice, tick, liquidity, ticks }
    : { ...identity, kind: 'clmm', tickSpacing: spec.tickSpacing, sqrtPriceX64: sqrtPrice, tickIndex: tick, liquidity, ticks };
}

/** The tick nearest a price ratio from the current tick, snapped to the spacing (for building positions). */
export function tickAtRatio(kind: 'v3' | 'clmm', tick: number, ratio: number, tickSpacing: number): number {
  const offset = Math.round(Math.log(ratio) / Math.log(1.0001));
  const bound = kind === 'v3' ? maxTick : maxTickIndex;
  const snapped = Math.round((tick + offset) / tickSpacing) * tickSpacing;
  const limit = Math.floor(bound / tickSpacing) * tickSpacing;
  return Math.max(-limit, Math.min(limit, snapped));
}

/** The tick of a sqrt price for either kind: the greatest tick at or below it. */
export function tickOfSqrtPrice(kind: 'v3' | 'clmm', sqrtPrice: bigint): number {
  return kind === 'v3' ? getTickAtSqrtRatio(sqrtPrice) : sqrtPriceToTickIndex(sqrtPrice);
}
