/**
 * Loads the incentives catalogue (fixtures/incentives.json) strictly: a bad entry stops the start with its
 * reason. Amounts are decimal strings in the token's units, converted with the project's converter; APYs
 * are decimal percent strings of at most two decimals (whole bps); times are ISO 8601. The file sits where
 * the server bundle finds it too (two folders below the project root, as dist/shell/server.mjs is).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Result } from '../../engine/core/results.ts';
import { amountToAtoms, newConversion, toSteps, type Asset, type Markets } from '../../engine/core/units.ts';
import { BoostKind, tiers, type IncentivesCatalogue } from '../../engine/domains/incentives/commands.ts';

export const defaultIncentivesPath = fileURLToPath(new URL('../../fixtures/incentives.json', import.meta.url));

/** The catalogue to journal and the display names the journal does not keep. */
export interface IncentivesFixture {
  readonly catalogue: IncentivesCatalogue;
  readonly poolNames: ReadonlyMap<number, string>;
  readonly airdropNames: ReadonlyMap<number, string>;
  readonly boostNames: ReadonlyMap<number, string>;
}

type Row = Record<string, unknown>;

export function loadIncentives(markets: Markets, path = defaultIncentivesPath): IncentivesFixture {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { pools?: Row[]; airdrops?: Row[]; boosts?: Row[] };
  const fail = (what: string, rule: string): never => {
    throw new Error(`${path}: ${what}: ${rule}`);
  };
  const token = (what: string, symbol: unknown): Asset => markets.assetBySymbol(String(symbol)) ?? fail(what, `unknown token ${JSON.stringify(symbol)}`);
  const amount = (what: string, value: unknown, asset: Asset): number => {
    const converted = amountToAtoms(value, asset);
    if (converted.code !== Result.ok && !(value === '0' || value === 0)) fail(what, `an amount of ${asset.symbol} with at most ${asset.decimals} decimals`);
    return converted.code === Result.ok ? converted.value : 0;
  };
  const time = (what: string, value: unknown): number => {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isFinite(ms) ? ms : fail(what, 'an ISO 8601 time');
  };
  const integer = (what: string, value: unknown): number => (Number.isSafeInteger(value) ? (value as number) : fail(what, 'an integer'));
  const usdc = markets.assetBySymbol('USDC') ?? fail('volume', 'the USDC asset is needed');
  const percentStep = { mantissa: 1n, scale: 2 };

  const poolNames = new Map<number, string>();
  const pools = (document.pools ?? []).map((row, index) => {
    const what = `pools[${index}]`;
    const asset = token(what, row['token']);
    const apy = toSteps(row['apy_percent'], percentStep, true, Result.tooManyDecimals, newConversion());
    if (apy.code !== Result.ok) fail(`${what}.apy_percent`, 'a percent of at most two decimals');
    const lockups = Array.isArray(row['lockup_days']) ? (row['lockup_days'] as unknown[]).map((days) => integer(`${what}.lockup_days`, days)) : fail(`${what}.lockup_days`, 'a list of days');
    const poolId = integer(`${what}.pool_id`, row['pool_id']);
    poolNames.set(poolId, String(row['name'] ?? `Pool ${poolId}`));
    return {
      poolId,
      assetId: asset.id,
      apyBps: apy.value,
      minStakeAtoms: amount(`${what}.min_stake`, row['min_stake'], asset),
      maxStakeAtoms: amount(`${what}.max_stake`, row['max_stake'], asset),
      capacityAtoms: amount(`${what}.capacity`, row['capacity'], asset),
      lockupDays: lockups,
    };
  });
  const airdropNames = new Map<number, string>();
  const airdrops = (document.airdrops ?? []).map((row, index) => {
    const what = `airdrops[${index}]`;
    const asset = token(what, row['token']);
    const airdropId = integer(`${what}.airdrop_id`, row['airdrop_id']);
    airdropNames.set(airdropId, String(row['name'] ?? `Airdrop ${airdropId}`));
    return {
      airdropId,
      assetId: asset.id,
      amountAtoms: amount(`${what}.amount`, row['amount'], asset),
      minVolumeAtoms: amount(`${what}.min_volume_usdc`, row['min_volume_usdc'], usdc),
      windowStartMs: time(`${what}.window_start`, row['window_start']),
      windowEndMs: time(`${what}.window_end`, row['window_end']),
      claimEndMs: time(`${what}.claim_end`, row['claim_end']),
    };
  });
  const boostNames = new Map<number, string>();
  const boosts = (document.boosts ?? []).map((row, index) => {
    const what = `boosts[${index}]`;
    const asset = token(what, row['cost_token']);
    const kind = row['kind'] === 'staking_apy' ? BoostKind.stakingApy : row['kind'] === 'fee_discount' ? BoostKind.feeDiscount : fail(`${what}.kind`, 'staking_apy or fee_discount');
    const minTier = tiers.findIndex((tier) => tier.name === row['min_tier']);
    if (minTier < 0) fail(`${what}.min_tier`, `one of ${tiers.map((tier) => tier.name).join(', ')}`);
    const boostId = integer(`${what}.boost_id`, row['boost_id']);
    boostNames.set(boostId, String(row['name'] ?? `Boost ${boostId}`));
    return {
      boostId,
      kind,
      value: kind === BoostKind.stakingApy ? integer(`${what}.multiplier_percent`, row['multiplier_percent']) : integer(`${what}.discount_bps`, row['discount_bps']),
      durationMs: integer(`${what}.duration_hours`, row['duration_hours']) * 3_600_000,
      costAssetId: asset.id,
      costAtoms: amount(`${what}.cost`, row['cost'], asset),
      minTier,
    };
  });
  return { catalogue: { pools, airdrops, boosts }, poolNames, airdropNames, boostNames };
}
