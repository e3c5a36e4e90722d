/** The movers screen's measures on hand-computed closes, the 8-close minimum and the ranking's ties. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { potentialOf, rankPotential } from './potential.ts';

test('momentum, volatility and score follow the documented formulas', () => {
  // Seven days of +1 % then flat: momentum over 7 days from 100 to 107.2135...
  const closes = [100, 101, 102.01, 103.0301, 104.060401, 105.10100501, 106.1520150601, 107.213535210701].map((value) => Math.round(value * 1e8));
  const row = potentialOf('AAA', closes)!;
  assert.equal(row.momentum7dPct, 7.2135);
  assert.equal(row.momentum30dPct, null);
  assert.equal(row.volatility30dPct, 0, 'every day moved the same 1 %');
  assert.equal(row.score, Math.round((7.2135352107 / 0.01) * 10_000) / 10_000);
  assert.equal(potentialOf('BBB', closes.slice(1)), null, 'fewer than 8 closes');
  const swings = potentialOf('CCC', [100, 110, 99, 108.9, 98.01, 107.811, 97.0299, 106.73289].map((value) => Math.round(value * 1e8)))!;
  // Changes +10, -10, +10, -10, +10, -10, +10: mean 10/7, population deviation sqrt(100 - (10/7)^2).
  assert.equal(swings.volatility30dPct, Math.round(Math.sqrt(100 - (10 / 7) ** 2) * 10_000) / 10_000);
});

test('the ranking is by score, ties by symbol', () => {
  const rows = [
    { symbol: 'B', momentum7dPct: 1, momentum30dPct: null, volatility30dPct: 1, score: 1 },
    { symbol: 'A', momentum7dPct: 1, momentum30dPct: null, volatility30dPct: 1, score: 1 },
    { symbol: 'C', momentum7dPct: 5, momentum30dPct: null, volatility30dPct: 1, score: 5 },
  ];
  assert.deepEqual(rankPotential(rows).map((row) => row.symbol), ['C', 'A', 'B']);
});
