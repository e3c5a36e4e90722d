/** The platform tokens of the revenue share (fixtures/platform-tokens.json): ledger asset, address, total supply. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Asset, Markets } from '../../engine/core/units.ts';

export interface PlatformToken {
  readonly asset: Asset;
  readonly address: string;
  /** Whole tokens. */
  readonly totalSupply: number;
}

export const platformTokensPath = fileURLToPath(new URL('../../fixtures/platform-tokens.json', import.meta.url));

export function loadPlatformTokens(markets: Markets, path = platformTokensPath): PlatformToken[] {
  const data = JSON.parse(readFileSync(path, 'utf8')) as { tokens?: Array<{ symbol?: unknown; address?: unknown; total_supply?: unknown }> };
  if (!Array.isArray(data.tokens) || data.tokens.length === 0) throw new Error(`${path}: tokens must be a non-empty array`);
  return data.tokens.map((row, index) => {
    const asset = typeof row.symbol === 'string' ? markets.assetBySymbol(row.symbol) : undefined;
    if (asset === undefined) throw new Error(`${path}: tokens[${index}].symbol is not a ledger asset`);
    if (typeof row.address !== 'string' || !/^[A-Za-z0-9]{8,64}$/.test(row.address)) throw new Error(`${path}: tokens[${index}].address must be 8 to 64 letters and digits`);
    const supply = typeof row.total_supply === 'string' ? Number(row.total_supply) : NaN;
    if (!Number.isSafeInteger(supply) || supply < 1) throw new Error(`${path}: tokens[${index}].total_supply must be a positive whole number`);
    return { asset, address: row.address, totalSupply: supply };
  });
}
