/**
 * Loads the asset and pair tables from fixtures/markets.json (or another file of the same shape). The
 * engine core takes the parsed tables; reading the file is the runtime's job.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildMarkets, type MarketConfigInput, type Markets } from '../core/units.ts';

export const defaultMarketsPath = fileURLToPath(new URL('../../fixtures/markets.json', import.meta.url));
/**
 * The oracle's asset list. Defined here rather than beside its loader: this file sits two folders below the
 * project root, as the server bundle (dist/shell/server.mjs) does, so the same relative URL finds the
 * fixtures whether the code runs from source or from the bundle.
 */
export const defaultOracleAssetsPath = fileURLToPath(new URL('../../fixtures/oracle-assets.json', import.meta.url));

export function loadMarkets(path: string = defaultMarketsPath): Markets {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as MarketConfigInput;
  return buildMarkets(parsed);
}
