/**
 * The catalogue: the fixture loads with indexes per type in file order, agents resolve to their sources,
 * and a bad entry stops the start naming it; order sizes in lots are floored and exact.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { loadCatalogue } from './catalogue.ts';
import { lotsWorth } from './runner.ts';

test('the fixture loads: indexes per type, agents, lookups', () => {
  const catalogue = loadCatalogue(undefined, new Set(loadOracleAssets().map((asset) => asset.symbol)));
  const byType = (type: string) => catalogue.sources.filter((source) => source.type === type).map((source) => source.index);
  for (const type of ['wta_species', 'perpetual_agent', 'backtest_bot']) assert.deepEqual(byType(type), byType(type).map((_, index) => index));
  assert.equal(catalogue.bySlug('eth-momentum')?.symbol, 'ETH');
  assert.equal(catalogue.byIndex(2, 0)?.slug, 'eth-momentum');
  assert.equal(catalogue.agent('ai-fund')?.source.slug, 'eth-momentum');
  assert.equal(catalogue.agent(catalogue.agents[1]!.agentId)?.slug, 'ai-perpetual-trend');
  assert.ok(catalogue.sources.some((source) => !source.active));
});

test('a bad entry stops the load, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
  const path = join(dir, 'bots.json');
  const good = { type: 'backtest_bot', id: '6f1c2a0e-1b7d-4c33-9a52-0d4e1f9b7a01', slug: 'a', name: 'A', symbol: 'ETH', strategy_type: 'momentum', risk_profile: 'balanced', lookback_days: 5, order_amount: '1', active: true };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ type: 'hedge' }, /type/],
    [{ id: 'not-a-uuid' }, /id/],
    [{ slug: 'Bad Slug' }, /slug/],
    [{ symbol: 'NOPE' }, /symbol/],
    [{ strategy_type: 'grid' }, /strategy_type/],
    [{ risk_profile: 'reckless' }, /risk_profile/],
    [{ lookback_days: 1 }, /lookback_days/],
    [{ order_amount: '-1' }, /order_amount/],
    [{ active: 'yes' }, /active/],
  ];
  try {
    for (const [change, reason] of cases) {
      writeFileSync(path, JSON.stringify({ sources: [{ ...good, ...change }], agents: [] }));
      assert.throws(() => loadCatalogue(path, new Set(['ETH'])), reason, JSON.stringify(change));
    }
    writeFileSync(path, JSON.stringify({ sources: [good, { ...good, slug: 'b' }], agents: [] }));
    assert.throws(() => loadCatalogue(path, new Set(['ETH'])), /sources\[1\]: id/);
    writeFileSync(path, JSON.stringify({ sources: [good], agents: [{ agent_id: '2e9f7b10-4c8d-4a6e-9f31-7b2c5d8e1a01', slug: 'x', name: 'X', source_id: 'missing' }] }));
    assert.throws(() => loadCatalogue(path, new Set(['ETH'])), /agents\[0\]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an order amount becomes whole lots at the price, floored', () => {
  const eth = loadMarkets().pairBySymbol('eth')!;
  // 250 USDC at 2500 USD is 0.1 ETH.
  const lots = lotsWorth(eth, 250_000_000, 6, 250_000_000_000);
  assert.equal(Number(lots) * Number(eth.lot.mantissa) / 10 ** eth.lot.scale, 0.1);
  assert.equal(lotsWorth(eth, 1, 6, 250_000_000_000), 0);
});
