/**
 * The read models' own database, DATA_DIR/read-models.sqlite: orders of both modes with their current
 * state, trades, candles of live trades, withdrawals, the fee accounts' totals (fees collected, revenue share paid
 * out), and the seq of the last command committed to them. It is derived
 * from the journal, so it is kept apart from identity: deleting it costs a replay, not an account.
 */
import { join } from 'node:path';
import { openSqlite, type Db } from '../store/database.ts';

const migrations: string[] = [
  `CREATE TABLE read_model_progress (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     applied_seq INTEGER NOT NULL
   );
   INSERT INTO read_model_progress (id, applied_seq) VALUES (1, 0);
   CREATE TABLE exchange_orders (
     order_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     pair_id INTEGER NOT NULL,
     mode INTEGER NOT NULL,
     side INTEGER NOT NULL,
     order_type INTEGER NOT NULL,
     time_in_force INTEGER NOT NULL,
     post_only INTEGER NOT NULL,
     stp INTEGER NOT NULL,
     price_ticks INTEGER NOT NULL,
     stop_price_ticks INTEGER NOT NULL,
     quantity_lots INTEGER NOT NULL,
     filled_lots INTEGER NOT NULL,
     filled_notional_atoms INTEGER NOT NULL,
     fee_atoms INTEGER NOT NULL,
     status INTEGER NOT NULL,
     client_order_id TEXT NOT NULL,
     created_at_ms INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL
   );
   CREATE INDEX exchange_orders_user ON exchange_orders(user_id, pair_id, mode, order_id);
   CREATE TABLE exchange_trades (
     trade_id INTEGER PRIMARY KEY,
     pair_id INTEGER NOT NULL,
     mode INTEGER NOT NULL,
     price_ticks INTEGER NOT NULL,
     quantity_lots INTEGER NOT NULL,
     notional_atoms INTEGER NOT NULL,
     taker_side INTEGER NOT NULL,
     taker_order_id INTEGER NOT NULL,
     maker_order_id INTEGER NOT NULL,
     taker_user_id INTEGER NOT NULL,
     maker_user_id INTEGER NOT NULL,
     taker_fee_atoms INTEGER NOT NULL,
     maker_fee_atoms INTEGER NOT NULL,
     ts_ms INTEGER NOT NULL
   );
   CREATE INDEX exchange_trades_pair ON exchange_trades(pair_id, mode, trade_id);
   CREATE INDEX exchange_trades_taker ON exchange_trades(taker_user_id, pair_id, mode, trade_id);
   CREATE INDEX exchange_trades_maker ON exchange_trades(maker_user_id, pair_id, mode, trade_id);
   CREATE TABLE exchange_candles (
     pair_id INTEGER NOT NULL,
     interval_ms INTEGER NOT NULL,
     open_time_ms INTEGER NOT NULL,
     open_ticks INTEGER NOT NULL,
     high_ticks INTEGER NOT NULL,
     low_ticks INTEGER NOT NULL,
     close_ticks INTEGER NOT NULL,
     volume_lots INTEGER NOT NULL,
     quote_volume_atoms INTEGER NOT NULL,
     trades INTEGER NOT NULL,
     PRIMARY KEY (pair_id, interval_ms, open_time_ms)
   ) WITHOUT ROWID;`,
  // Withdrawals to external addresses, by the seq of their command. The reference (the client's
  // idempotency key) is indexed but not unique: the shell keeps it unique, and a table constraint that a
  // journaled command could break would stop every replay of that journal.
  `CREATE TABLE withdrawals (
     seq INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     asset_id INTEGER NOT NULL,
     amount_atoms INTEGER NOT NULL,
     chain_id INTEGER NOT NULL,
     address TEXT NOT NULL,
     reference TEXT NOT NULL,
     ts_ms INTEGER NOT NULL
   );
   CREATE INDEX withdrawals_user ON withdrawals(user_id, seq);
   CREATE INDEX withdrawals_reference ON withdrawals(user_id, reference);`,
  // Fills against outside liquidity (AMM pools; for paper orders also the live book) are trades whose
  // other side is the venue: its id and chain, and the settlement's sim- hash. Book trades have venue 0.
  `ALTER TABLE exchange_trades ADD COLUMN venue_id INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE exchange_trades ADD COLUMN chain_id INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE exchange_trades ADD COLUMN tx_hash TEXT NOT NULL DEFAULT '';
   ALTER TABLE exchange_orders ADD COLUMN sim_tx_hash TEXT NOT NULL DEFAULT '';`,
  // The parent of an order placed by the engine for a TWAP (a slice) or a scale order (a rung): its
  // GroupKind and id, so that order history can name it. Client orders have 0 and 0.
  `ALTER TABLE exchange_orders ADD COLUMN group_kind INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE exchange_orders ADD COLUMN group_id INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX exchange_orders_group ON exchange_orders(group_kind, group_id) WHERE group_kind <> 0;`,
  // The fee accounts' exchange figures per mode and asset, as running totals: the fees our orders paid
  // on their fills (collected) and the revenue-share payouts taken from the fee account (paid out), so
  // that collected − paid out is what the exchange's fees left in the fee account.
  `CREATE TABLE fee_account_totals (
     mode INTEGER NOT NULL,
     asset_id INTEGER NOT NULL,
     collected_atoms INTEGER NOT NULL,
     paid_out_atoms INTEGER NOT NULL,
     PRIMARY KEY (mode, asset_id)
   ) WITHOUT ROWID;`,
  // Reads for market makers: open orders across pairs (a partial index over the few live rows, so a
  // long history costs nothing), an order by its client order id, and fills across pairs.
  `CREATE INDEX exchange_orders_open ON exchange_orders(user_id, mode, order_id) WHERE status IN (0, 1, 2);
   CREATE INDEX exchange_orders_client ON exchange_orders(user_id, mode, client_order_id, order_id) WHERE client_order_id <> '';
   CREATE INDEX exchange_trades_taker_all ON exchange_trades(taker_user_id, mode, trade_id);
   CREATE INDEX exchange_trades_maker_all ON exchange_trades(maker_user_id, mode, trade_id);`,
];

export function openReadModelDatabase(dataDir: string): Db {
  return openSqlite(join(dataDir, 'read-models.sqlite'), migrations);
}
