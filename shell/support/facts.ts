/**
 * The investor channel's facts, computed when asked from the platform's own durable records, each with
 * its source and the time it was computed:
 *
 *   trading_volume_24h          the 24-hour tickers' quote volume of live trades, summed per quote asset
 *                               (what GET /api/v1/exchange/{symbol}/stats shows, pair by pair)
 *   trading_volume_all_time     the read models' live trades (exchange_trades, mode live): notional summed
 *   trades_all_time             per quote asset, their count, and their taker and maker fees (the fees the
 *   fees_collected_all_time     platform collected), as committed through the read models' applied seq
 *   registered_users            accounts in the identity store
 *   resting_orders              orders resting on the live books, as durable events left them
 *
 * Open interest is kept by the event cards' own view and is not offered to other modules, so it is not a
 * fact here. The all-time sums are kept incrementally: each call adds the trades committed since the last
 * one (by trade id, in one read transaction with the applied seq), so a call costs the new trades only.
 * Sums are BigInt so that no total loses precision.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ShellContext } from '../context.ts';
import { formatSteps, type Asset } from '../../engine/core/units.ts';
import { processTerm } from './retrieval.ts';

export interface Fact {
  readonly name: string;
  readonly label: string;
  /** A decimal string (amounts with the asset's decimals) or a count. */
  readonly value: string;
  /** The asset of an amount, or `count`. */
  readonly unit: string;
  readonly source: string;
  readonly as_of: string;
}

/** Price levels read per book side at most when counting resting orders. */
export const bookLevelsMax = 100_000;

interface PairTotals {
  notional: bigint;
  fees: bigint;
  trades: bigint;
}

/**
 * What a question must say to ask for a fact, by fact name prefix: any one of the word sets, all of its
 * words (after the index's term processing). `order` alone is not enough for the resting orders, since
 * most questions about orders are about how to place them.
 */
const factWords: ReadonlyArray<readonly [string, ReadonlyArray<readonly string[]>]> = [
  ['trading_volume_24h', [['volume'], ['turnover'], ['traded']]],
  ['trading_volume_all_time', [['volume'], ['turnover'], ['traded']]],
  ['trades_all_time', [['trade', 'many'], ['trade', 'number'], ['trade', 'count']]],
  ['fees_collected', [['fee', 'collected'], ['fee', 'earned'], ['fee', 'total'], ['revenue'], ['income'], ['earnings']]],
  ['registered_users', [['user'], ['customer'], ['trader'], ['signup'], ['member']]],
  ['resting_orders', [['open', 'order'], ['resting'], ['open', 'interest'], ['liquidity']]],
];

export class InvestorFacts {
  private readonly db: Database.Database;
  private readonly selectSeq;
  private readonly selectNewTrades;
  private readonly selectUsers;
  private readonly totals = new Map<number, PairTotals>();
  private lastTradeId = 0;

  constructor(private readonly context: ShellContext) {
    // A read-only connection of this module's own: the read models' writer is another thread, and SQLite's
    // WAL lets a reader see whole committed transactions beside it.
    this.db = new Database(join(context.config.dataDir, 'read-models.sqlite'), { readonly: true, fileMustExist: true });
    this.selectSeq = this.db.prepare('SELECT applied_seq FROM read_model_progress WHERE id = 1').pluck().safeIntegers(false);
    this.selectNewTrades = this.db
      .prepare(
        `SELECT pair_id AS pairId, SUM(notional_atoms) AS notional, SUM(taker_fee_atoms + maker_fee_atoms) AS fees, COUNT(*) AS trades,
           MAX(trade_id) AS lastTradeId
         FROM exchange_trades WHERE trade_id > ? AND mode = 0 GROUP BY pair_id`,
      )
      .safeIntegers(true);
    this.selectUsers = context.identity.db.prepare('SELECT COUNT(*) FROM users').pluck();
  }

  /** Adds the live trades committed since the last call; answers the read models' applied seq. */
  private refresh(): number {
    return this.db.transaction(() => {
      const seq = (this.selectSeq.get() as number | undefined) ?? 0;
      const rows = this.selectNewTrades.all(BigInt(this.lastTradeId)) as Array<{ pairId: bigint; notional: bigint; fees: bigint; trades: bigint; lastTradeId: bigint }>;
      for (const row of rows) {
        const pairId = Number(row.pairId);
        const totals = this.totals.get(pairId) ?? { notional: 0n, fees: 0n, trades: 0n };
        totals.notional += row.notional;
        totals.fees += row.fees;
        totals.trades += row.trades;
        this.totals.set(pairId, totals);
        this.lastTradeId = Math.max(this.lastTradeId, Number(row.lastTradeId));
      }
      return seq;
    })();
  }

  /** Every fact as of now, and that time. */
  facts(): { facts: Fact[]; asOf: string; readModelsSeq: number } {
    const asOf = new Date(this.context.clock()).toISOString();
    const seq = this.refresh();
    const quoteAssets: Asset[] = [];
    for (const pair of this.context.markets.pairs) if (!quoteAssets.includes(pair.quote)) quoteAssets.push(pair.quote);
    const facts: Fact[] = [];
    const add = (name: string, label: string, value: string, unit: string, source: string): void => {
      facts.push({ name, label, value, unit, source, as_of: asOf });
    };
    const suffix = (asset: Asset): string => (quoteAssets.length === 1 ? '' : `_${asset.symbol.toLowerCase()}`);
    for (const quote of quoteAssets) {
      let dayAtoms = 0n;
      let allNotional = 0n;
      let allFees = 0n;
      let allTrades = 0n;
      for (const pair of this.context.markets.pairs) {
        if (pair.quote !== quote) continue;
        dayAtoms += BigInt(this.context.tickers.view(pair.id).quoteVolumeAtoms);
        const totals = this.totals.get(pair.id);
        if (totals === undefined) continue;
        allNotional += totals.notional;
        allFees += totals.fees;
        allTrades += totals.trades;
      }
      const tail = suffix(quote);
      add(`trading_volume_24h${tail}`, `trading volume in the last 24 hours (${quote.symbol} pairs)`, formatSteps(dayAtoms, quote.atom), quote.symbol, '24-hour tickers of live trades, fed by durable batches');
      const committed = `read models, exchange_trades of live mode, committed through seq ${seq}`;
      add(`trading_volume_all_time${tail}`, `trading volume all time (${quote.symbol} pairs)`, formatSteps(allNotional, quote.atom), quote.symbol, committed);
      add(`trades_all_time${tail}`, `trades all time (${quote.symbol} pairs)`, allTrades.toString(), 'count', committed);
      add(`fees_collected_all_time${tail}`, `fees collected all time, taker and maker (${quote.symbol} pairs)`, formatSteps(allFees, quote.atom), quote.symbol, committed);
    }
    add('registered_users', 'registered users', String(this.selectUsers.get() as number), 'count', 'identity store, users table');
    let resting = 0;
    for (const pair of this.context.markets.pairs) {
      for (const side of [0, 1] as const) for (const level of this.context.marketData.depth(pair, side, bookLevelsMax)) resting += level.orders;
    }
    add('resting_orders', 'orders resting on the live order books', String(resting), 'count', 'live order books as durable events left them');
    return { facts, asOf, readModelsSeq: seq };
  }

  close(): void {
    this.db.close();
  }
}

/** The facts a question asks for (see `factWords`). */
export function factsAskedFor(questionTerms: readonly string[], facts: readonly Fact[]): Fact[] {
  const terms = new Set(questionTerms);
  const wanted = factWords
    .filter(([, alternatives]) => alternatives.some((words) => words.every((word) => terms.has(processTerm(word) ?? word))))
    .map(([prefix]) => prefix);
  return facts.filter((fact) => wanted.some((prefix) => fact.name.startsWith(prefix)));
}

/** The facts as sentences, introduced by where they come from. */
export function factsText(facts: readonly Fact[], asOf: string): string {
  const parts = facts.map((fact) => `${fact.label}: ${fact.value}${fact.unit === 'count' ? '' : ` ${fact.unit}`}`);
  return `Computed from the platform's live ledger (its durable records) at ${asOf}: ${parts.join('; ')}.`;
}
