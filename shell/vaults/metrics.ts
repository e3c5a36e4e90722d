/**
 * A vault's performance figures from a NAV-per-share series, and the backtest of a strategy over the
 * oracle's daily closes. Analytics, not money: ratios are computed in floating point and shown as decimal
 * strings rounded to 6 places; no balance is ever derived from them.
 *
 * Rules:
 * - returns over 1d, 7d, 30d and all: the last share price over the last one at or before the window's
 *   start (the first point when the series is shorter: then the window reads as "all so far"), minus one;
 * - daily series: the last point of each UTC day; daily returns are consecutive ratios minus one;
 * - annualised volatility: the sample standard deviation (n − 1) of daily returns × √365;
 * - Sharpe: mean daily return / its standard deviation × √365, with a zero risk-free rate (null when the
 *   deviation is zero or fewer than two returns exist);
 * - max drawdown: the largest fall from a running peak, as a fraction of that peak.
 */
import { Strategy, rebalanceMinBps, priceMemoryMax } from '../../engine/domains/vaults/commands.ts';
import { Vaults } from '../../engine/domains/vaults/vaults.ts';

export interface SeriesPoint {
  readonly ms: number;
  /** Share price (or equity), any positive unit: only ratios are used. */
  readonly value: number;
}

export interface Metrics {
  return_1d: string | null;
  return_7d: string | null;
  return_30d: string | null;
  return_all: string | null;
  volatility_annualised: string | null;
  sharpe: string | null;
  max_drawdown: string | null;
  points: number;
}

export const dayMs = 86_400_000;
const fixed = (value: number | null): string | null => (value === null || !Number.isFinite(value) ? null : value.toFixed(6));

function windowReturn(series: readonly SeriesPoint[], windowMs: number | null): number | null {
  const last = series.at(-1);
  if (last === undefined || series.length < 2) return null;
  let base = series[0]!;
  if (windowMs !== null) {
    for (const point of series) {
      if (point.ms <= last.ms - windowMs) base = point;
      else break;
    }
  }
  return base.value > 0 ? last.value / base.value - 1 : null;
}

/** The last point of each UTC day, in order. */
export function dailyCloses(series: readonly SeriesPoint[]): SeriesPoint[] {
  const closes: SeriesPoint[] = [];
  for (const point of series) {
    const previous = closes.at(-1);
    if (previous !== undefined && Math.floor(previous.ms / dayMs) === Math.floor(point.ms / dayMs)) closes[closes.length - 1] = point;
    else closes.push(point);
  }
  return closes;
}

export function metricsOf(series: readonly SeriesPoint[]): Metrics {
  const daily = dailyCloses(series);
  const returns: number[] = [];
  for (let index = 1; index < daily.length; index++) returns.push(daily[index]!.value / daily[index - 1]!.value - 1);
  let volatility: number | null = null;
  let sharpe: number | null = null;
  if (returns.length >= 2) {
    const mean = returns.reduce((sum, value) => sum + value, 0) / returns.length;
    const variance = returns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (returns.length - 1);
    const deviation = Math.sqrt(variance);
    volatility = deviation * Math.sqrt(365);
    sharpe = deviation > 0 ? (mean / deviation) * Math.sqrt(365) : null;
  }
  let peak = 0;
  let drawdown = 0;
  for (const point of series) {
    peak = Math.max(peak, point.value);
    if (peak > 0) drawdown = Math.max(drawdown, (peak - point.value) / peak);
  }
  return {
    return_1d: fixed(windowReturn(series, dayMs)),
    return_7d: fixed(windowReturn(series, 7 * dayMs)),
    return_30d: fixed(windowReturn(series, 30 * dayMs)),
    return_all: fixed(windowReturn(series, null)),
    volatility_annualised: fixed(volatility),
    sharpe: fixed(sharpe),
    max_drawdown: series.length === 0 ? null : fixed(drawdown),
    points: series.length,
  };
}

/** Days a backtest runs over, and the equity it starts from (in the quote's whole units). */
export const backtestDays = 365;
export const backtestStartEquity = 10_000;

/**
 * The strategy's rule applied once a day over the daily closes of the vault's assets (one series per
 * asset, oldest first, all ending on the same day; the last `backtestDays` common days are used): each
 * day the target share of equity in each asset comes from the same `Vaults.targetBps` the engine's
 * strategies use, with the same price memory; a holding moves to its target when the gap is at least
 * `rebalanceMinBps` of equity, at the close, without fees. Returns the equity curve (one point per day)
 * and its metrics. Pure and deterministic: the same closes give the same curve.
 */
export function backtest(strategy: Strategy, lastDay: number, closesE8: readonly (readonly number[])[]): { curve: SeriesPoint[]; metrics: Metrics } {
  const days = Math.min(backtestDays, ...closesE8.map((closes) => closes.length));
  const series = closesE8.map((closes) => closes.slice(closes.length - days));
  let cash = backtestStartEquity;
  const units = series.map(() => 0);
  const memories: number[][] = series.map(() => []);
  const curve: SeriesPoint[] = [];
  for (let day = 0; day < days; day++) {
    const prices = series.map((closes) => closes[day]! / 1e8);
    series.forEach((closes, asset) => {
      memories[asset]!.push(closes[day]!);
      if (memories[asset]!.length > priceMemoryMax) memories[asset]!.shift();
    });
    const equity = cash + units.reduce((sum, held, asset) => sum + held * prices[asset]!, 0);
    const targets = Vaults.targetBps(strategy, memories);
    prices.forEach((price, asset) => {
      const gap = (equity * targets[asset]!) / 10_000 - units[asset]! * price;
      if (price > 0 && Math.abs(gap) * 10_000 >= equity * rebalanceMinBps) {
        units[asset] = units[asset]! + gap / price;
        cash -= gap;
      }
    });
    curve.push({ ms: (lastDay - days + 1 + day) * dayMs, value: cash + units.reduce((sum, held, asset) => sum + held * prices[asset]!, 0) });
  }
  return { curve, metrics: metricsOf(curve) };
}
