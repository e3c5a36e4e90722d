/**
 * The shell's SQLite database (better-sqlite3, WAL): identity and credentials, and the exchange read models.
 * The engine's state is not here: the journal and snapshots are its truth. Migrations are numbered and
 * applied in order at open, recorded in `schema_version`.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';

export type Db = Database.Database;

const migrations: string[] = [
  `CREATE TABLE users (
     id INTEGER PRIMARY KEY,
     email TEXT NOT NULL UNIQUE COLLATE NOCASE,
     username TEXT NOT NULL UNIQUE COLLATE NOCASE,
     password_hash TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE TABLE refresh_tokens (
     token_hash TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users(id),
     family TEXT NOT NULL,
     expires_at_ms INTEGER NOT NULL,
     used INTEGER NOT NULL DEFAULT 0,
     revoked INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX refresh_tokens_family ON refresh_tokens(family);
   CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);`,
  `CREATE TABLE api_keys (
     id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users(id),
     name TEXT NOT NULL,
     key_hash TEXT NOT NULL UNIQUE,
     secret_hash TEXT NOT NULL,
     masked TEXT NOT NULL,
     permissions TEXT NOT NULL,
     tier TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE INDEX api_keys_user ON api_keys(user_id);`,
  `ALTER TABLE users ADD COLUMN totp_secret TEXT;
   ALTER TABLE users ADD COLUMN totp_pending_secret TEXT;
   ALTER TABLE users ADD COLUMN totp_enabled INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;`,
  `ALTER TABLE api_keys ADD COLUMN requests_per_minute INTEGER;
   CREATE TABLE agents (
     id TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users(id),
     api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
     name TEXT NOT NULL,
     contact_email TEXT NOT NULL,
     intended_use TEXT NOT NULL,
     description TEXT NOT NULL,
     capabilities TEXT NOT NULL,
     role TEXT NOT NULL,
     trust_level TEXT NOT NULL,
     created_at TEXT NOT NULL
   );`,
  // Exchange read models (shell/read-models/): orders of both modes with their current state, trades,
  // candles of live trades, and the seq of the last command applied to them.
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
];

export function openDatabase(dataDir: string): Db {
  const db = new Database(join(dataDir, 'platform.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
  let version = row?.version ?? 0;
  if (row === undefined) db.prepare('INSERT INTO schema_version (version) VALUES (0)').run();
  for (; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.prepare('UPDATE schema_version SET version = ?').run(version + 1);
    })();
  }
  return db;
}
