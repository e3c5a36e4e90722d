/**
 * The strategies' rule and the backtest's figures on closes worked by hand: the moving-average signal of
 * both strategy types, entries and exits a day after the signal's close, return, trades, win rate, Sharpe,
 * maximum drawdown and the equity curve; and the same input always gives the same result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runBacktest, signalOf } from './strategy.ts';

const e8 = (usd: number): number => usd * 100_000_000;

test('the signal compares the latest close with the average of the last lookback closes', () => {
  assert.equal(signalOf('momentum', [e8(10), e8(11), e8(12)], 3), 1);
  assert.equal(signalOf('mean_reversion', [e8(10), e8(11), e8(12)], 3), -1);
  assert.equal(signalOf('momentum', [e8(12), e8(11), e8(10)], 3), -1);
  assert.equal(signalOf('momentum', [e8(10), e8(10), e8(10)], 3), 0);
  assert.equal(signalOf('momentum', [e8(10), e8(11)], 3), 0, 'too few closes');
  assert.equal(signalOf('momentum', [e8(50), e8(10), e8(11)], 2), 1, 'only the last lookback closes count');
  // Large prices: the sum stays exact.
  assert.equal(signalOf('momentum', [1e15, 1e15, 1e15 - 1], 3), -1);
});

test('a backtest enters after a long signal, exits after a flat or short one, and reports its figures', () => {
  // Lookback 2: the signal at close i compares close i with the average of closes i-1 and i.
  const closes = [100, 100, 110, 121, 110, 110, 121].map(e8);
  const result = runBacktest({ strategy: 'momentum', lookbackDays: 2, closesE8: closes, firstDay: 20_000 });
  // Close 2 (110 > 105): long at 110; closes 3 (121): still long; close 4 (110 < 115.5): exit at 110
  // (a losing round trip: 110 -> 110 is not above); close 5 (110 = 110): flat; close 6 is the end.
  // Equity: 10000, 10000, 10000, 11000, 10000, 10000, 10000.
  assert.deepEqual(
    result.equity_curve.map((point) => point.equity),
    ['10000.00', '10000.00', '10000.00', '11000.00', '10000.00', '10000.00', '10000.00'],
  );
  assert.equal(result.equity_curve[0]!.date, '2024-10-04');
  assert.equal(result.return_pct, '0.00');
  assert.equal(result.trades, 2);
  assert.equal(result.win_rate, '0.00');
  assert.equal(result.max_drawdown_pct, '9.09');
  assert.equal(result.end_equity, '10000.00');
  // Daily returns 0, 0, 0.1, -1/11, 0, 0: mean 0.0015151..., sample deviation 0.0579..., × sqrt(365).
  const returns = [0, 0, 0.1, 10_000 / 11_000 - 1, 0, 0];
  const mean = returns.reduce((sum, value) => sum + value, 0) / returns.length;
  const deviation = Math.sqrt(returns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (returns.length - 1));
  assert.equal(result.sharpe, ((mean / deviation) * Math.sqrt(365)).toFixed(4));
  assert.deepEqual(runBacktest({ strategy: 'momentum', lookbackDays: 2, closesE8: closes, firstDay: 20_000 }), result, 'same input, same result');
});

test('an open position at the end counts as a round trip valued at the last close; the window is the last 30 closes', () => {
  const closes = Array.from({ length: 40 }, (_, index) => e8(100 + index));
  const result = runBacktest({ strategy: 'momentum', lookbackDays: 3, closesE8: closes, firstDay: 20_000 });
  assert.equal(result.equity_curve.length, 30);
  assert.equal(result.equity_curve[0]!.date, '2024-10-14');
  assert.equal(result.trades, 1);
  assert.equal(result.win_rate, '100.00');
  assert.equal(result.max_drawdown_pct, '0.00');
  // Long from the first close of the window (110) to the last (139).
  assert.equal(result.end_equity, ((10_000 * 139) / 110).toFixed(2));
  const flat = runBacktest({ strategy: 'mean_reversion', lookbackDays: 3, closesE8: closes, firstDay: 20_000 });
  assert.deepEqual([flat.trades, flat.return_pct, flat.sharpe, flat.win_rate], [0, '0.00', '0.0000', '0.00']);
});
