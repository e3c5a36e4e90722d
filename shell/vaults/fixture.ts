/**
 * fixtures/vaults.json: the platform's vaults, read and checked at start (a bad file stops the start,
 * naming the vault and the field).
 */
import { readFileSync } from 'node:fs';
import { Strategy, basketPairsMax, isSlug, strategyNames } from '../../engine/domains/vaults/commands.ts';
import type { Markets, Pair } from '../../engine/core/units.ts';

export interface VaultMeta {
  readonly slug: string;
  readonly address: string;
  readonly name: string;
  readonly description: string;
  readonly strategy: Strategy;
  readonly pairs: readonly Pair[];
  readonly manager: string;
  readonly featured: boolean;
}

/** The slug of the AI fund among the fixture's vaults. */
export const aiFundSlug = 'ai-fund';

export function loadVaultFixture(markets: Markets, path = new URL('../../fixtures/vaults.json', import.meta.url)): VaultMeta[] {
  const data = JSON.parse(readFileSync(path, 'utf8')) as { vaults?: unknown };
  if (!Array.isArray(data.vaults)) throw new Error('fixtures/vaults.json: vaults must be a list');
  const metas: VaultMeta[] = [];
  for (const [index, row] of (data.vaults as Array<Record<string, unknown>>).entries()) {
    const fail = (field: string): never => {
      throw new Error(`fixtures/vaults.json: vault ${index}: ${field} is missing or malformed`);
    };
    const text = (field: string, max: number): string => {
      const value = row[field];
      return typeof value === 'string' && value.length >= 1 && value.length <= max ? value : fail(field);
    };
    const slug = text('slug', 32);
    if (!isSlug(slug) || metas.some((meta) => meta.slug === slug)) fail('slug');
    const address = text('address', 42).toLowerCase();
    if (!/^0x[0-9a-f]{40}$/.test(address) || metas.some((meta) => meta.address === address)) fail('address');
    const strategy = strategyNames.indexOf(text('strategy', 32) as (typeof strategyNames)[number]);
    if (strategy < 0) fail('strategy');
    const names = row['pairs'];
    const single = strategy === Strategy.marketMaking || strategy === Strategy.trend;
    if (!Array.isArray(names) || names.length < 1 || names.length > (single ? 1 : basketPairsMax)) fail('pairs');
    const pairs = (names as unknown[]).map((name) => (typeof name === 'string' ? markets.pairBySymbol(name) : undefined) ?? fail('pairs'));
    if (new Set(pairs).size !== pairs.length || pairs.some((pair) => pair.quote !== pairs[0]!.quote)) fail('pairs');
    metas.push({
      slug,
      address,
      name: text('name', 64),
      description: text('description', 280),
      strategy: strategy as Strategy,
      pairs,
      manager: text('manager', 64),
      featured: row['featured'] === true,
    });
  }
  return metas;
}
