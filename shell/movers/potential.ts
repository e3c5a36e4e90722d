/**
 * The movers screen ("potential"): oracle symbols ranked by a risk-adjusted momentum of their daily closes.
 *
 * With c the daily closes, oldest first, ending with today's close so far:
 * - momentum_7d = (c[-1] − c[-8]) / c[-8] × 100, the percentage change over the last 7 days;
 * - momentum_30d = (c[-1] − c[-31]) / c[-31] × 100, or null with fewer than 31 closes;
 * - volatility_30d = the population standard deviation of the daily percentage changes over the last 30
 *   days (fewer when there are fewer closes, at least 7 changes);
 * - score = momentum_7d / max(volatility_30d, 0.01): a week's move in units of a typical day's move.
 * A symbol with fewer than 8 closes is not ranked. Ranking: score, highest first; ties by symbol.
 * Figures are rounded to 4 decimals for the answer (a screen, not money).
 */

export interface PotentialRow {
  readonly symbol: string;
  readonly momentum7dPct: number;
  readonly momentum30dPct: number | null;
  readonly volatility30dPct: number;
  readonly score: number;
}

/** Closes a symbol needs to be ranked: a week of changes. */
export const closesNeeded = 8;
/** Closes the screen reads per symbol: 30 daily changes. */
export const closesRead = 31;
const volatilityFloor = 0.01;

const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;

export function potentialOf(symbol: string, closesE8: readonly number[]): PotentialRow | null {
  const count = closesE8.length;
  if (count < closesNeeded) return null;
  const last = closesE8[count - 1]!;
  const change = (from: number, to: number): number => ((to - from) / from) * 100;
  const momentum7dPct = change(closesE8[count - 8]!, last);
  const momentum30dPct = count >= 31 ? change(closesE8[count - 31]!, last) : null;
  const changes: number[] = [];
  for (let index = Math.max(1, count - 30); index < count; index++) changes.push(change(closesE8[index - 1]!, closesE8[index]!));
  const mean = changes.reduce((sum, value) => sum + value, 0) / changes.length;
  const volatility30dPct = Math.sqrt(changes.reduce((sum, value) => sum + (value - mean) ** 2, 0) / changes.length);
  return {
    symbol,
    momentum7dPct: round4(momentum7dPct),
    momentum30dPct: momentum30dPct === null ? null : round4(momentum30dPct),
    volatility30dPct: round4(volatility30dPct),
    score: round4(momentum7dPct / Math.max(volatility30dPct, volatilityFloor)),
  };
}

export function rankPotential(rows: readonly PotentialRow[]): PotentialRow[] {
  return [...rows].sort((a, b) => b.score - a.score || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
}
