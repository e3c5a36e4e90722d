/**
 * Protocol revenue rankings: each protocol's fees or revenue summed over a window of whole UTC days ending
 * today (24h: today's day, 7d: today and the 6 days before, 30d: today and the 29 before), ranked highest
 * first (ties by slug), filtered by chain and category (exact, any case) and by `q`, a full-text search
 * on the name (MiniSearch: prefix matches and a fuzziness of 0.2, so "swa" finds "Swap").
 */
import MiniSearch from 'minisearch';
import type { ProtocolRecord } from './data.ts';

export const windows = { '24h': 1, '7d': 7, '30d': 30 } as const;
export type Window = keyof typeof windows;
export type Metric = 'fees' | 'revenue';

const msPerDay = 86_400_000;

export function windowSum(protocol: ProtocolRecord, metric: Metric, days: number, nowMs: number): number {
  const today = Math.floor(nowMs / msPerDay);
  let sum = 0;
  for (const day of protocol.daily) if (day.day > today - days && day.day <= today) sum += metric === 'fees' ? day.feesUsd : day.revenueUsd;
  return sum;
}

export interface RankingQuery {
  readonly metric: Metric;
  readonly window: Window;
  readonly chain?: string;
  readonly category?: string;
  readonly q?: string;
}

export class ProtocolIndex {
  private readonly search = new MiniSearch<{ id: string; name: string }>({ fields: ['name'], idField: 'id', searchOptions: { prefix: true, fuzzy: 0.2 } });

  constructor(private readonly protocols: readonly ProtocolRecord[]) {
    this.search.addAll(protocols.map((protocol) => ({ id: protocol.slug, name: protocol.name })));
  }

  rank(query: RankingQuery, nowMs: number): Array<{ protocol: ProtocolRecord; value: number }> {
    const matching = query.q === undefined || query.q.trim() === '' ? null : new Set(this.search.search(query.q).map((hit) => String(hit.id)));
    const chain = query.chain?.toLowerCase();
    const category = query.category?.toLowerCase();
    return this.protocols
      .filter((protocol) => (matching === null || matching.has(protocol.slug)) && (chain === undefined || protocol.chain.toLowerCase() === chain) && (category === undefined || protocol.category.toLowerCase() === category))
      .map((protocol) => ({ protocol, value: windowSum(protocol, query.metric, windows[query.window], nowMs) }))
      .sort((a, b) => b.value - a.value || (a.protocol.slug < b.protocol.slug ? -1 : 1));
  }
}
