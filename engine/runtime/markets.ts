/**
 * Loads the asset and pair tables from fixtures/markets.json (or another file of the same shape). The
 * engine core takes the parsed tables; reading the file is the runtime's job.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildMarkets, type MarketConfigInput, type Markets } from '../core/units.ts';

export const defaultMarketsPath = fileURLToPath(new URL('../../fixtures/markets.json', import.meta.url));

export function loadMarkets(path: string = defaultMarketsPath): Markets {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as MarketConfigInput;
  return buildMarkets(parsed);
}
