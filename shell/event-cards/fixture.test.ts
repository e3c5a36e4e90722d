/** The cards fixture: the shipped one loads over oracle assets; bad entries stop the start with their reason. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { loadEventCards } from './fixture.ts';

test('the shipped fixture has 4 to 6 cards over oracle assets, weights summing to 10 000', () => {
  const cards = loadEventCards(undefined, new Set(loadOracleAssets().map((asset) => asset.symbol)));
  assert.ok(cards.length >= 4 && cards.length <= 6);
  for (const card of cards) assert.equal(card.weightsBps.reduce((sum, weight) => sum + weight, 0), 10_000, card.slug);
  assert.equal(cards[0]!.baseIndexE8, 100_000_000_000);
});

test('a bad card, a repeated id or an unknown asset stops the load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cards-fixture-'));
  try {
    const card = { id: 'ok', name: 'Ok', base_index: '100', constituents: [{ symbol: 'BTC', weight: 10_000 }] };
    const write = (cards: unknown[]): string => {
      const path = join(dir, 'cards.json');
      writeFileSync(path, JSON.stringify({ cards }));
      return path;
    };
    assert.equal(loadEventCards(write([card])).length, 1);
    assert.throws(() => loadEventCards(write([{ ...card, constituents: [{ symbol: 'BTC', weight: 9_999 }] }])), /cards\[0\]/);
    assert.throws(() => loadEventCards(write([{ ...card, id: 'Not Ok' }])), /cards\[0\]/);
    assert.throws(() => loadEventCards(write([{ ...card, base_index: '0.5' }])), /cards\[0\]/);
    assert.throws(() => loadEventCards(write([card, card])), /cards\[1\]/);
    assert.throws(() => loadEventCards(write([{ ...card, constituents: [{ symbol: 'ZZZ', weight: 10_000 }] }]), new Set(['BTC'])), /ZZZ is not an oracle asset/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
