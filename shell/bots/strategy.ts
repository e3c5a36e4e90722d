/**
 * The source bots' strategies as pure functions of daily closes (integers, priceE8), shared by the live
 * runtime (shell/bots/runner.ts, at each strike of the bots domain's clock) and the backtests (on a worker
 * thread), so a backtest runs exactly the rule a clone trades by.
 *
 * Signal: the simple moving average of the last `lookbackDays` closes (the latest included) against the
 * latest close. momentum is long (+1) when the close is above the average and short (-1) below it;
 * mean_reversion the opposite; equal is flat (0).
 */
export const strategyTypes = ['momentum', 'mean_reversion'] as const;
export type StrategyType = (typeof strategyTypes)[number];
export const riskProfiles = ['conservative', 'balanced', 'aggressive'] as const;
export type RiskProfile = (typeof riskProfiles)[number];
export const lookbackDaysMin = 2;
export const lookbackDaysMax = 30;
/** The backtest window: the last 30 daily closes of the oracle. */
export const backtestDays = 30;
/** A backtest's starting equity, in USDC. */
export const backtestStartEquity = 10_000;

export type Signal = -1 | 0 | 1;

/** The signal on `closesE8` (oldest first) using its last `lookbackDays`; 0 when there are fewer closes. */
export function signalOf(strategy: StrategyType, closesE8: readonly number[], lookbackDays: number): Signal {
  if (closesE8.length < lookbackDays) return 0;
  let sum = 0n;
  for (let index = closesE8.length - lookbackDays; index < closesE8.length; index++) sum += BigInt(closesE8[index]!);
  const last = BigInt(closesE8[closesE8.length - 1]!) * BigInt(lookbackDays);
  const trend: Signal = last > sum ? 1 : last < sum ? -1 : 0;
  return strategy === 'momentum' ? trend : ((-trend) as Signal);
}

export interface BacktestInput {
  readonly strategy: StrategyType;
  readonly lookbackDays: number;
  /** Daily closes, oldest first: the window's `backtestDays` closes preceded by up to lookbackDays - 1 earlier ones. */
  readonly closesE8: readonly number[];
  /** Day number (UTC days since 1970) of `closesE8[0]`. */
  readonly firstDay: number;
}

export interface BacktestResult {
  /** Total return over the window, percent, 2 decimals. */
  return_pct: string;
  trades: number;
  /** Closed round trips that made money, percent of closed round trips, 2 decimals ("0.00" without any). */
  win_rate: string;
  /** Mean daily return over its standard deviation, times sqrt(365), 4 decimals ("0.0000" when flat). */
  sharpe: string;
  /** The largest fall from a peak of the equity curve, percent, 2 decimals. */
  max_drawdown_pct: string;
  start_equity: string;
  end_equity: string;
  /** Equity at each close of the window, USDC with 2 decimals. */
  equity_curve: Array<{ date: string; equity: string }>;
}

const dateOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);

/**
 * Runs the strategy over the window, long-only and all in: at each close the signal of the closes up to it
 * decides the position for the next day (long: all equity in the asset at that close; otherwise all in
 * cash). Equity moves with the asset's close-to-close change while long. A trade is every entry and every
 * exit; a round trip (entry then exit, or an entry still open at the end, valued at the last close) wins
 * when its exit close is above its entry close.
 */
export function runBacktest(input: BacktestInput): BacktestResult {
  const closes = input.closesE8;
  const windowStart = Math.max(0, closes.length - backtestDays);
  let equity = backtestStartEquity;
  let long = false;
  let entryClose = 0;
  let trades = 0;
  let wins = 0;
  let roundTrips = 0;
  let peak = equity;
  let maxDrawdown = 0;
  const dailyReturns: number[] = [];
  const curve: Array<{ date: string; equity: string }> = [];
  for (let index = windowStart; index < closes.length; index++) {
    const close = closes[index]!;
    if (index > windowStart) {
      const before = equity;
      if (long) equity = (equity * close) / closes[index - 1]!;
      dailyReturns.push(equity / before - 1);
    }
    peak = Math.max(peak, equity);
    maxDrawdown = Math.max(maxDrawdown, (peak - equity) / peak);
    curve.push({ date: dateOfDay(input.firstDay + index), equity: equity.toFixed(2) });
    if (index === closes.length - 1) break;
    const wantsLong = signalOf(input.strategy, closes.slice(0, index + 1), input.lookbackDays) === 1;
    if (wantsLong && !long) {
      long = true;
      entryClose = close;
      trades++;
    } else if (!wantsLong && long) {
      long = false;
      trades++;
      roundTrips++;
      if (close > entryClose) wins++;
    }
  }
  if (long) {
    roundTrips++;
    if (closes[closes.length - 1]! > entryClose) wins++;
  }
  const mean = dailyReturns.length === 0 ? 0 : dailyReturns.reduce((sum, value) => sum + value, 0) / dailyReturns.length;
  const variance = dailyReturns.length < 2 ? 0 : dailyReturns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (dailyReturns.length - 1);
  const deviation = Math.sqrt(variance);
  return {
    return_pct: ((equity / backtestStartEquity - 1) * 100).toFixed(2),
    trades,
    win_rate: roundTrips === 0 ? '0.00' : ((wins / roundTrips) * 100).toFixed(2),
    sharpe: deviation === 0 ? '0.0000' : ((mean / deviation) * Math.sqrt(365)).toFixed(4),
    max_drawdown_pct: (maxDrawdown * 100).toFixed(2),
    start_equity: backtestStartEquity.toFixed(2),
    end_equity: equity.toFixed(2),
    equity_curve: curve,
  };
}
