/**
 * Settled perpetual predictions and each market's last resolution, kept in DATA_DIR/perpetual.sqlite so
 * that the trade history outlives a restart (the engine keeps open epochs only). The view writes one
 * transaction per durable EpochResolved, on the main thread, when the batch that carries it is durable;
 * open stakes are not written here: they are in the engine's state, recovered with it.
 *
 * A crash between a batch's durability and this write (the same turn of the event loop) leaves that
 * resolution's records out of the history; balances are the ledger's and are not affected.
 */
import { join } from 'node:path';
import type { Mode } from '../../engine/core/commands.ts';
import type { Outcome, Side } from '../../engine/domains/perpetual/commands.ts';
import { openSqlite, type Db } from '../store/database.ts';

export type TradeOutcome = 'pending' | 'won' | 'lost' | 'refunded';

export interface TradeRecord {
  readonly predictionId: number;
  readonly userId: number;
  readonly mode: Mode;
  readonly symbol: string;
  readonly epoch: number;
  readonly epochEndMs: number;
  readonly side: Side;
  readonly stakeAtoms: number;
  readonly createdMs: number;
  outcome: TradeOutcome;
  payoutAtoms: number | null;
  resolvedMs: number | null;
}

export interface ResolutionView {
  readonly symbol: string;
  readonly epoch: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly startPriceE8: number;
  readonly endPriceE8: number;
  readonly outcome: Outcome;
  /** By mode. */
  readonly yesPoolAtoms: [number, number];
  readonly noPoolAtoms: [number, number];
  readonly resolvedMs: number;
}

const migrations = [
  `CREATE TABLE perpetual_trades (
     prediction_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     mode INTEGER NOT NULL,
     symbol TEXT NOT NULL,
     epoch INTEGER NOT NULL,
     epoch_end_ms INTEGER NOT NULL,
     side INTEGER NOT NULL,
     stake_atoms INTEGER NOT NULL,
     created_ms INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     payout_atoms INTEGER NOT NULL,
     resolved_ms INTEGER NOT NULL
   );
   CREATE INDEX perpetual_trades_account ON perpetual_trades(user_id, mode, prediction_id);
   CREATE TABLE perpetual_resolutions (
     symbol TEXT PRIMARY KEY,
     epoch INTEGER NOT NULL,
     start_ms INTEGER NOT NULL,
     end_ms INTEGER NOT NULL,
     start_price_e8 INTEGER NOT NULL,
     end_price_e8 INTEGER NOT NULL,
     outcome INTEGER NOT NULL,
     yes_live_atoms INTEGER NOT NULL,
     yes_paper_atoms INTEGER NOT NULL,
     no_live_atoms INTEGER NOT NULL,
     no_paper_atoms INTEGER NOT NULL,
     resolved_ms INTEGER NOT NULL
   ) WITHOUT ROWID;`,
];

interface TradeRow {
  prediction_id: number;
  user_id: number;
  mode: number;
  symbol: string;
  epoch: number;
  epoch_end_ms: number;
  side: number;
  stake_atoms: number;
  created_ms: number;
  outcome: string;
  payout_atoms: number;
  resolved_ms: number;
}

interface ResolutionRow {
  symbol: string;
  epoch: number;
  start_ms: number;
  end_ms: number;
  start_price_e8: number;
  end_price_e8: number;
  outcome: number;
  yes_live_atoms: number;
  yes_paper_atoms: number;
  no_live_atoms: number;
  no_paper_atoms: number;
  resolved_ms: number;
}

export class PerpetualHistory {
  private readonly db: Db;
  private readonly insertTrade;
  private readonly upsertResolution;
  private readonly selectTrades;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'perpetual.sqlite'), migrations);
    this.insertTrade = this.db.prepare(
      `INSERT OR REPLACE INTO perpetual_trades (prediction_id, user_id, mode, symbol, epoch, epoch_end_ms, side, stake_atoms, created_ms, outcome, payout_atoms, resolved_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.upsertResolution = this.db.prepare(
      `INSERT OR REPLACE INTO perpetual_resolutions (symbol, epoch, start_ms, end_ms, start_price_e8, end_price_e8, outcome, yes_live_atoms, yes_paper_atoms, no_live_atoms, no_paper_atoms, resolved_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectTrades = this.db.prepare('SELECT * FROM perpetual_trades WHERE user_id = ? AND mode = ? AND prediction_id < ? ORDER BY prediction_id DESC LIMIT ?');
  }

  /** Records one resolution and the trades it settled, in one transaction. */
  settle(resolution: ResolutionView, trades: readonly TradeRecord[]): void {
    this.db.transaction(() => {
      const r = resolution;
      this.upsertResolution.run(r.symbol, r.epoch, r.startMs, r.endMs, r.startPriceE8, r.endPriceE8, r.outcome, r.yesPoolAtoms[0], r.yesPoolAtoms[1], r.noPoolAtoms[0], r.noPoolAtoms[1], r.resolvedMs);
      for (const t of trades) {
        this.insertTrade.run(t.predictionId, t.userId, t.mode, t.symbol, t.epoch, t.epochEndMs, t.side, t.stakeAtoms, t.createdMs, t.outcome, t.payoutAtoms ?? 0, t.resolvedMs ?? 0);
      }
    })();
  }

  /** The account's settled trades with ids below `beforeId`, newest first, at most `limit`. */
  settled(userId: number, mode: Mode, beforeId: number, limit: number): TradeRecord[] {
    const rows = this.selectTrades.all(userId, mode, beforeId, limit) as TradeRow[];
    return rows.map((row) => ({
      predictionId: row.prediction_id,
      userId: row.user_id,
      mode: row.mode as Mode,
      symbol: row.symbol,
      epoch: row.epoch,
      epochEndMs: row.epoch_end_ms,
      side: row.side as Side,
      stakeAtoms: row.stake_atoms,
      createdMs: row.created_ms,
      outcome: row.outcome as TradeOutcome,
      payoutAtoms: row.payout_atoms,
      resolvedMs: row.resolved_ms,
    }));
  }

  /** Every market's last resolution. */
  resolutions(): ResolutionView[] {
    const rows = this.db.prepare('SELECT * FROM perpetual_resolutions').all() as ResolutionRow[];
    return rows.map((row) => ({
      symbol: row.symbol,
      epoch: row.epoch,
      startMs: row.start_ms,
      endMs: row.end_ms,
      startPriceE8: row.start_price_e8,
      endPriceE8: row.end_price_e8,
      outcome: row.outcome as Outcome,
      yesPoolAtoms: [row.yes_live_atoms, row.yes_paper_atoms],
      noPoolAtoms: [row.no_live_atoms, row.no_paper_atoms],
      resolvedMs: row.resolved_ms,
    }));
  }

  close(): void {
    this.db.close();
  }
}
