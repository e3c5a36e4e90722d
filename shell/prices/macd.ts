/**
 * MACD of daily closes, in TA-Lib's convention:
 * - k = 2 / (period + 1) for each EMA;
 * - both EMAs produce their first value at index slow − 1: each is seeded there with the simple mean of the
 *   `period` closes ending at that index (the fast one too), then ema = prev + k × (close − prev);
 * - MACD = fast EMA − slow EMA from index slow − 1; the signal EMA is seeded with the mean of the first
 *   `signal` MACD values (at index slow + signal − 2) and runs on; histogram = MACD − signal;
 * - so the timeseries has days − (slow + signal − 2) points, one per close from index slow + signal − 2.
 *
 * Output (the API specification's fields): numbers are rounded to 8 decimals at output (computation in doubles).
 * - current.trend: `bullish` when the last histogram > 0, `bearish` when < 0, `neutral` when 0;
 * - interpretation.signal: `bullish_crossover` when the histogram went from ≤ 0 to > 0 on the last point,
 *   `bearish_crossover` from ≥ 0 to < 0; otherwise `bullish_momentum` / `bearish_momentum` when the
 *   histogram's magnitude grew on the last point in its direction, `weakening` when it shrank, `neutral`
 *   when it is 0 (a single-point series compares with nothing and is momentum in its sign);
 * - interpretation.strength: |histogram| / current price: `strong` ≥ 0.5 %, `moderate` ≥ 0.1 %, `weak` below;
 * - interpretation.description: one English sentence made from these;
 * - metadata: current_price is the last close, start_date and end_date the first and last date of the
 *   closes used, data_points the number of closes used (= days).
 */

export const macdDefaults = { days: 90, fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 } as const;
export const macdBounds = {
  daysMin: 35,
  daysMax: 365,
  fastMin: 2,
  fastMax: 100,
  slowMin: 3,
  slowMax: 200,
  signalMin: 2,
  signalMax: 100,
} as const;

export interface MacdPeriods {
  readonly fastPeriod: number;
  readonly slowPeriod: number;
  readonly signalPeriod: number;
}

export interface DailyClose {
  readonly date: string;
  readonly close: number;
}

export interface MacdPoint {
  date: string;
  macd: number;
  signal: number;
  histogram: number;
}

export interface MacdResult {
  symbol: string;
  current: { macd: number; signal: number; histogram: number; trend: 'bullish' | 'bearish' | 'neutral' };
  interpretation: { signal: string; strength: 'strong' | 'moderate' | 'weak'; description: string };
  metadata: { current_price: number; start_date: string; end_date: string; data_points: number };
  timeseries: MacdPoint[];
}

function within(name: string, value: number, low: number, high: number): string | null {
  if (!Number.isInteger(value)) return `${name}: must be an integer`;
  if (value < low) return `${name}: must be at least ${low}`;
  if (value > high) return `${name}: must be at most ${high}`;
  return null;
}

/** The first rule the inputs break, naming the field and the limit; null when they are fine. */
export function macdInputProblem(days: number, fast: number, slow: number, signal: number): string | null {
  const b = macdBounds;
  const problem =
    within('days', days, b.daysMin, b.daysMax) ??
    within('fast_period', fast, b.fastMin, b.fastMax) ??
    within('slow_period', slow, b.slowMin, b.slowMax) ??
    within('signal_period', signal, b.signalMin, b.signalMax);
  if (problem !== null) return problem;
  if (fast >= slow) return 'fast_period: must be less than slow_period';
  const needed = slow + signal - 1;
  if (days < needed) return `days: must be at least slow_period + signal_period - 1 (= ${needed})`;
  return null;
}

const round8 = (value: number): number => {
  const rounded = Math.round(value * 1e8) / 1e8;
  return Object.is(rounded, -0) ? 0 : rounded;
};

function mean(values: readonly number[], start: number, end: number): number {
  let sum = 0;
  for (let index = start; index < end; index++) sum += values[index]!;
  return sum / (end - start);
}

/** The raw series (unrounded): MACD, signal and histogram from index slow + signal − 2 on. */
export function macdSeries(closes: readonly number[], periods: MacdPeriods): { macd: number[]; signal: number[]; histogram: number[] } {
  const { fastPeriod: fast, slowPeriod: slow, signalPeriod: signal } = periods;
  const first = slow - 1;
  if (closes.length < slow + signal - 1) throw new Error(`MACD needs at least ${slow + signal - 1} closes`);
  const kFast = 2 / (fast + 1);
  const kSlow = 2 / (slow + 1);
  let emaFast = mean(closes, first - fast + 1, first + 1);
  let emaSlow = mean(closes, first - slow + 1, first + 1);
  const macdLine: number[] = [emaFast - emaSlow];
  for (let index = first + 1; index < closes.length; index++) {
    const close = closes[index]!;
    emaFast += kFast * (close - emaFast);
    emaSlow += kSlow * (close - emaSlow);
    macdLine.push(emaFast - emaSlow);
  }
  const kSignal = 2 / (signal + 1);
  let signalValue = mean(macdLine, 0, signal);
  const result = { macd: [] as number[], signal: [] as number[], histogram: [] as number[] };
  for (let index = signal - 1; index < macdLine.length; index++) {
    if (index > signal - 1) signalValue += kSignal * (macdLine[index]! - signalValue);
    result.macd.push(macdLine[index]!);
    result.signal.push(signalValue);
    result.histogram.push(macdLine[index]! - signalValue);
  }
  return result;
}

function interpret(histogram: number, previous: number | undefined, price: number): MacdResult['interpretation'] {
  let signal: string;
  if (previous !== undefined && previous <= 0 && histogram > 0) signal = 'bullish_crossover';
  else if (previous !== undefined && previous >= 0 && histogram < 0) signal = 'bearish_crossover';
  else if (histogram === 0) signal = 'neutral';
  else if (previous === undefined || Math.abs(histogram) > Math.abs(previous)) signal = histogram > 0 ? 'bullish_momentum' : 'bearish_momentum';
  else signal = 'weakening';
  const share = price > 0 ? Math.abs(histogram) / price : 0;
  const strength = share >= 0.005 ? 'strong' : share >= 0.001 ? 'moderate' : 'weak';
  const side = histogram > 0 ? 'above' : histogram < 0 ? 'below' : 'on';
  const words: Record<string, string> = {
    bullish_crossover: 'The MACD line crossed above its signal line',
    bearish_crossover: 'The MACD line crossed below its signal line',
    bullish_momentum: 'The MACD line is above its signal line and pulling away',
    bearish_momentum: 'The MACD line is below its signal line and pulling away',
    weakening: `The MACD line is ${side} its signal line but the gap is narrowing`,
    neutral: 'The MACD line is on its signal line',
  };
  const description = `${words[signal]}; the histogram is ${(share * 100).toFixed(3)}% of the price, a ${strength} signal.`;
  return { signal, strength, description };
}

/** The MACD result of `closes` (oldest first, exactly the closes to use). */
export function computeMacd(symbol: string, closes: readonly DailyClose[], periods: MacdPeriods): MacdResult {
  const values = closes.map((row) => row.close);
  const series = macdSeries(values, periods);
  const offset = periods.slowPeriod + periods.signalPeriod - 2;
  const timeseries = series.macd.map((macd, index) => ({
    date: closes[offset + index]!.date,
    macd: round8(macd),
    signal: round8(series.signal[index]!),
    histogram: round8(series.histogram[index]!),
  }));
  const last = timeseries.at(-1)!;
  const previous = timeseries.at(-2)?.histogram;
  const price = values.at(-1)!;
  return {
    symbol,
    current: { macd: last.macd, signal: last.signal, histogram: last.histogram, trend: last.histogram > 0 ? 'bullish' : last.histogram < 0 ? 'bearish' : 'neutral' },
    interpretation: interpret(last.histogram, previous, price),
    metadata: { current_price: price, start_date: closes[0]!.date, end_date: closes.at(-1)!.date, data_points: closes.length },
    timeseries,
  };
}
