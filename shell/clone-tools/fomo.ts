/**
 * The fomo radar's rules: wallets' realised track records from closed round trips, their 0-100 score, and
 * the signals (their recent trades) with the kind of conviction each shows.
 *
 * Round trips, per wallet and token, in time order: a buy opens a position or adds to it (its cost is the
 * sum of its buys' USD); the first sell after it closes it, and the round trip's return is (that sell's USD
 * − the cost) / the cost. A sell with no open position is ignored for the record (its buy was before the
 * data). Open positions count nothing until they close.
 *
 * Score (0-100): with n closed round trips, w the share of them that gained (return > 0) and r their mean
 * return (a fraction, clamped to [-1, 1]), edge E = clamp(0.5 × (2w − 1) + 0.5 × r, −1, 1) and
 * score = round(50 + 50 × n / (n + 5) × E). The factor n / (n + 5) shrinks a short record toward 50, and a
 * wallet with no closed round trip scores exactly 50. A wallet is `qualified` when n ≥ 5 and score ≥ 60;
 * so never with no closed trade.
 *
 * conviction_kind of a trade: `new_position` (a buy with no open position of the token), `add` (a buy
 * while one is open), `exit` (a sell that closes one), `orphan_sell` (a sell with none open).
 */
import type { WalletRecord, WalletTrade } from './data.ts';

export const qualifiedTradesMin = 5;
export const qualifiedScoreMin = 60;
export const neutralScore = 50;
/** The pseudo-count that shrinks short records toward 50. */
const shrinkTrades = 5;

export type ConvictionKind = 'new_position' | 'add' | 'exit' | 'orphan_sell';

export interface TrackRecord {
  readonly closedTrades: number;
  readonly wins: number;
  readonly winRate: number | null;
  readonly meanReturn: number | null;
  readonly realisedPnlUsd: number;
  readonly score: number;
  readonly qualified: boolean;
  /** The conviction kind of each trade, in the wallet's trade order. */
  readonly kinds: readonly ConvictionKind[];
}

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

export function scoreOf(closedTrades: number, wins: number, meanReturn: number): number {
  if (closedTrades === 0) return neutralScore;
  const edge = clamp(0.5 * (2 * (wins / closedTrades) - 1) + 0.5 * clamp(meanReturn, -1, 1), -1, 1);
  return Math.round(neutralScore + 50 * (closedTrades / (closedTrades + shrinkTrades)) * edge);
}

export function trackRecord(trades: readonly WalletTrade[]): TrackRecord {
  const openCost = new Map<string, number>();
  const kinds: ConvictionKind[] = [];
  let closedTrades = 0;
  let wins = 0;
  let returns = 0;
  let pnl = 0;
  for (const trade of trades) {
    const cost = openCost.get(trade.token);
    if (trade.side === 'buy') {
      kinds.push(cost === undefined ? 'new_position' : 'add');
      openCost.set(trade.token, (cost ?? 0) + trade.amountUsd);
      continue;
    }
    if (cost === undefined || cost <= 0) {
      kinds.push('orphan_sell');
      continue;
    }
    kinds.push('exit');
    openCost.delete(trade.token);
    const gain = trade.amountUsd - cost;
    closedTrades++;
    if (gain > 0) wins++;
    returns += gain / cost;
    pnl += gain;
  }
  const meanReturn = closedTrades === 0 ? null : returns / closedTrades;
  const score = scoreOf(closedTrades, wins, meanReturn ?? 0);
  return {
    closedTrades,
    wins,
    winRate: closedTrades === 0 ? null : wins / closedTrades,
    meanReturn,
    realisedPnlUsd: pnl,
    score,
    qualified: closedTrades >= qualifiedTradesMin && score >= qualifiedScoreMin,
    kinds,
  };
}

export const signalFilters = ['all', 'hot', 'fresh', 'exits'] as const;
export type SignalFilter = (typeof signalFilters)[number];
/** Signals look back this far; `fresh` keeps new positions of the last hour; `hot` tokens have buys of this many wallets. */
export const signalWindowMs = 86_400_000;
export const freshWindowMs = 3_600_000;
export const hotWalletsMin = 3;

export interface Signal {
  readonly wallet: WalletRecord;
  readonly record: TrackRecord;
  readonly trade: WalletTrade;
  readonly kind: ConvictionKind;
}

/**
 * The trades of the last 24 hours, newest first, by filter: `all`; `hot`, trades of tokens that at least
 * 3 distinct wallets bought in the window; `fresh`, new positions of the last hour; `exits`, exits.
 */
export function signals(wallets: readonly WalletRecord[], filter: SignalFilter, nowMs: number): Signal[] {
  const rows: Signal[] = [];
  for (const wallet of wallets) {
    const record = trackRecord(wallet.trades);
    wallet.trades.forEach((trade, index) => {
      if (trade.timeMs > nowMs || nowMs - trade.timeMs > signalWindowMs) return;
      rows.push({ wallet, record, trade, kind: record.kinds[index]! });
    });
  }
  let kept = rows;
  if (filter === 'hot') {
    const buyers = new Map<string, Set<string>>();
    for (const row of rows) if (row.trade.side === 'buy') (buyers.get(row.trade.token) ?? buyers.set(row.trade.token, new Set()).get(row.trade.token)!).add(row.wallet.address);
    kept = rows.filter((row) => (buyers.get(row.trade.token)?.size ?? 0) >= hotWalletsMin);
  } else if (filter === 'fresh') {
    kept = rows.filter((row) => row.kind === 'new_position' && nowMs - row.trade.timeMs <= freshWindowMs);
  } else if (filter === 'exits') {
    kept = rows.filter((row) => row.kind === 'exit');
  }
  return kept.sort((a, b) => b.trade.timeMs - a.trade.timeMs || (a.wallet.address < b.wallet.address ? -1 : 1));
}

/** Wallets ranked by score, then closed round trips, then address. */
export function rankTraders(wallets: readonly WalletRecord[]): Array<{ wallet: WalletRecord; record: TrackRecord }> {
  return wallets
    .map((wallet) => ({ wallet, record: trackRecord(wallet.trades) }))
    .sort((a, b) => b.record.score - a.record.score || b.record.closedTrades - a.record.closedTrades || (a.wallet.address < b.wallet.address ? -1 : 1));
}
