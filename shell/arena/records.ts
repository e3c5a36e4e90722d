/**
 * The arena's records as the routes and /ws/arena send them: decimal strings for money, prices, sizes and
 * percents (prices in USDC with 2 decimals, sizes in shares with 3, NAVs in USDC with 6, oracle prices with
 * 8, returns and changes in percent with 2), ISO 8601 UTC timestamps, teams by name.
 */
import { formatSteps, type Step } from '../../engine/core/units.ts';
import { changeBps, headlineKindNames, teamCount, teamNames } from '../../engine/domains/arena/commands.ts';
import type { EpochRecord, Headline } from '../../engine/domains/arena/arena.ts';
import type { ArenaView } from './view.ts';

export const priceStep: Step = { mantissa: 1n, scale: 2 };
export const sizeStep: Step = { mantissa: 1n, scale: 3 };
export const usdcStep: Step = { mantissa: 1n, scale: 6 };
const e8Step: Step = { mantissa: 1n, scale: 8 };
const percentStep: Step = { mantissa: 1n, scale: 2 };

export const formatPriceTicks = (ticks: number) => formatSteps(ticks, priceStep);
export const formatLots = (lots: number) => formatSteps(lots, sizeStep);
export const formatUsdc = (atoms: number) => formatSteps(atoms, usdcStep);
export const formatE8 = (value: number) => formatSteps(value, e8Step);
/** A change in basis points as a percent with two decimals ("1.23", "-0.05"). */
export const formatBps = (bps: number) => formatSteps(bps, percentStep);
export const iso = (ms: number) => new Date(ms).toISOString();

export function teamName(team: number): 'BLUE' | 'RED' {
  return teamNames[team]!;
}

/** BLUE or RED, any case, or -1. */
export function teamOf(text: unknown): number {
  if (typeof text !== 'string') return -1;
  return teamNames.indexOf(text.toUpperCase() as 'BLUE' | 'RED');
}

export function returnBps(view: ArenaView, team: number): number {
  return changeBps(view.navsAtoms[team]!, view.config!.navBaseAtoms);
}

/** The leading team by NAV this epoch, or null when level. */
export function leader(view: ArenaView): 'BLUE' | 'RED' | null {
  const [blue, red] = view.navsAtoms as [number, number];
  return blue > red ? 'BLUE' : red > blue ? 'RED' : null;
}

export function countdownSeconds(view: ArenaView, nowMs: number): number {
  return Math.max(0, Math.ceil((view.epochEndMs - nowMs) / 1000));
}

export function teamNavs(view: ArenaView) {
  return Array.from({ length: teamCount }, (_, team) => ({
    team: teamName(team),
    nav: formatUsdc(view.navsAtoms[team]!),
    return_pct: formatBps(returnBps(view, team)),
  }));
}

export function epochRecord(view: ArenaView, nowMs: number) {
  return {
    epoch: view.epoch,
    status: 'running',
    start: iso(view.epochStartMs),
    end: iso(view.epochEndMs),
    epoch_seconds: view.config!.epochMs / 1000,
    countdown_seconds: countdownSeconds(view, nowMs),
    teams: teamNavs(view),
    leader: leader(view),
    updated_at: iso(view.updatedMs),
  };
}

export function resultRecord(record: EpochRecord, navBaseAtoms: number) {
  return {
    epoch: record.epoch,
    start: iso(record.startMs),
    end: iso(record.endMs),
    winner: record.winner === -1 ? null : teamName(record.winner),
    tie: record.winner === -1,
    teams: record.navsAtoms.map((nav, team) => ({ team: teamName(team), nav_end: formatUsdc(nav), return_pct: formatBps(changeBps(nav, navBaseAtoms)) })),
    bonus_pool: formatUsdc(record.poolAtoms),
    bonus_paid: formatUsdc(record.paidAtoms),
    bonus_carried: formatUsdc(record.poolAtoms - record.paidAtoms),
    winners_paid: record.winners,
  };
}

export function headlineRecord(line: Headline) {
  return { text: line.text, kind: headlineKindNames[line.kind] ?? 'other', timestamp: iso(line.timestampMs) };
}

export function levelsOf(view: ArenaView, team: number, side: number, depth: number) {
  return view
    .levels(team, side)
    .slice(0, depth)
    .map(([price, level]) => ({ price: formatPriceTicks(price), quantity: formatLots(level.lots), orders: level.orders }));
}

export function bookRecord(view: ArenaView, team: number, depth: number) {
  const bid = view.best(team, 0);
  const ask = view.best(team, 1);
  return {
    team: teamName(team),
    nav: formatUsdc(view.navsAtoms[team]!),
    bids: levelsOf(view, team, 0, depth),
    asks: levelsOf(view, team, 1, depth),
    best_bid: bid < 0 ? null : formatPriceTicks(bid),
    best_ask: ask < 0 ? null : formatPriceTicks(ask),
    spread: bid < 0 || ask < 0 ? null : formatPriceTicks(ask - bid),
  };
}

export function portfolioRecord(view: ArenaView, team: number) {
  const start = view.startPricesE8[team] ?? [];
  const now = view.pricesE8[team] ?? [];
  const weights = view.weights(team);
  return view.symbols(team).map((asset, index) => {
    const from = start[index] ?? 0;
    const price = now[index] ?? 0;
    return {
      asset,
      weight_bps: weights[index]!,
      weight_pct: formatBps(weights[index]!),
      start_price: from === 0 ? null : formatE8(from),
      price: price === 0 ? null : formatE8(price),
      change_pct: from === 0 ? null : formatBps(changeBps(price, from)),
    };
  });
}
