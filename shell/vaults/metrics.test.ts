/**
 * Performance figures on a NAV series worked by hand, and the backtest's determinism and rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Strategy } from '../../engine/domains/vaults/commands.ts';
import { backtest, dailyCloses, metricsOf } from './metrics.ts';

const day = 86_400_000;
const t0 = 1_767_225_600_000;

test('metrics on a known series: returns, volatility, Sharpe and drawdown computed by hand', () => {
  // Daily share prices 100, 110, 99, 108.9: returns +10 %, −10 %, +10 %.
  const series = [100, 110, 99, 108.9].map((value, index) => ({ ms: t0 + index * day, value }));
  const metrics = metricsOf(series);
  // 1d: 108.9 / 99 − 1 = 0.1; 7d and all: 108.9 / 100 − 1 = 0.089 (the series is shorter than the window).
  assert.equal(metrics.return_1d, '0.100000');
  assert.equal(metrics.return_7d, '0.089000');
  assert.equal(metrics.return_all, '0.089000');
  // Mean 1/30; deviations 1/15, −2/15, 1/15: variance (1/225 + 4/225 + 1/225) / 2 = 1/75; σ = 0.115470.
  // Volatility σ√365 = 2.206052; Sharpe (1/30)/σ × √365 = √(75 × 365) / 30 = 165.453921 / 30 = 5.515131.
  assert.equal(metrics.volatility_annualised, '2.206052');
  assert.equal(metrics.sharpe, '5.515131');
  // From the peak 110 down to 99: 10 %.
  assert.equal(metrics.max_drawdown, '0.100000');
  assert.equal(metrics.points, 4);
});

test('daily closes keep the last point of each UTC day; a single point has no returns', () => {
  const series = [
    { ms: t0 + 1, value: 1 },
    { ms: t0 + 2, value: 2 },
    { ms: t0 + day, value: 3 },
  ];
  assert.deepEqual(dailyCloses(series).map((point) => point.value), [2, 3]);
  const single = metricsOf([{ ms: t0, value: 5 }]);
  assert.equal(single.return_all, null);
  assert.equal(single.sharpe, null);
  assert.equal(single.max_drawdown, '0.000000');
});

test('the backtest is deterministic and follows the strategy rule', () => {
  const closes = Array.from({ length: 400 }, (_, index) => Math.round(3_000e8 * (1 + 0.2 * Math.sin(index / 20))));
  const first = backtest(Strategy.trend, 20_399, [closes]);
  const second = backtest(Strategy.trend, 20_399, [closes]);
  assert.deepEqual(first, second);
  assert.equal(first.curve.length, 365);
  assert.equal(first.curve[0]!.ms, (20_000 + 35) * day);
  assert.equal(first.curve.at(-1)!.ms, 20_399 * day);
  // A basket over two series uses their common days.
  const basket = backtest(Strategy.basket, 20_399, [closes, closes.slice(-100)]);
  assert.equal(basket.curve.length, 100);
  // A flat price leaves the market-making vault's equity where it started.
  const flat = backtest(Strategy.marketMaking, 9, [Array.from({ length: 10 }, () => 100e8)]);
  assert.ok(flat.curve.every((point) => Math.abs(point.value - 10_000) < 1e-9));
  assert.equal(flat.metrics.return_all, '0.000000');
});
