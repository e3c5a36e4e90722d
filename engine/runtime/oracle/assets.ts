/** Loads the oracle's assets (fixtures/oracle-assets.json), strictly: a bad entry stops the start with its reason. */
import { readFileSync } from 'node:fs';
import { priceScale, type OracleAsset } from './source.ts';

import { defaultOracleAssetsPath } from '../markets.ts';

export { defaultOracleAssetsPath };

const symbolPattern = /^[A-Z0-9]{1,12}$/;
const decimalPattern = /^(0|[1-9][0-9]{0,8})(\.[0-9]{1,8})?$/;

/** A decimal string of at most 8 decimals as an integer count of 10^-8, exactly (no float on the way). */
export function decimalToE8(text: string): number | null {
  const match = decimalPattern.exec(text);
  if (match === null) return null;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '.').slice(1).padEnd(8, '0'));
  return whole * priceScale + fraction;
}

export function loadOracleAssets(path = defaultOracleAssetsPath): OracleAsset[] {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { assets?: unknown };
  if (!Array.isArray(document.assets) || document.assets.length === 0) throw new Error(`${path}: assets must be a non-empty array`);
  const seen = new Set<string>();
  return document.assets.map((entry: Record<string, unknown>, index) => {
    const where = `${path}: assets[${index}]`;
    const symbol = entry['symbol'];
    if (typeof symbol !== 'string' || !symbolPattern.test(symbol) || seen.has(symbol)) throw new Error(`${where}: symbol must be new and 1 to 12 of A-Z, 0-9`);
    seen.add(symbol);
    const assetType = entry['asset_type'];
    if (assetType !== 'crypto' && assetType !== 'stock') throw new Error(`${where}: asset_type must be crypto or stock`);
    const startPriceE8 = typeof entry['start_price'] === 'string' ? decimalToE8(entry['start_price']) : null;
    if (startPriceE8 === null || startPriceE8 < 1) throw new Error(`${where}: start_price must be a positive decimal string of at most 8 decimals`);
    const drift = entry['drift'];
    const volatility = entry['volatility'];
    if (typeof drift !== 'number' || !Number.isFinite(drift) || Math.abs(drift) > 3) throw new Error(`${where}: drift must be a number in [-3, 3]`);
    if (typeof volatility !== 'number' || !(volatility > 0 && volatility <= 3)) throw new Error(`${where}: volatility must be in (0, 3]`);
    return { symbol, assetType, startPriceE8, driftAnnual: drift, volatilityAnnual: volatility };
  });
}
