/**
 * The shell's SQLite databases (better-sqlite3, WAL): platform.sqlite holds identity and credentials (and
 * the dead-man's switch view's one record per account); read-models.sqlite (shell/read-models/schema.ts)
 * holds data derived from the journal.
 * The engine's state is not here: the journal and snapshots are its truth. Migrations are numbered and
 * applied in order at open, recorded in `schema_version`.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
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
  `CREATE TABLE withdrawal_addresses (
     user_id INTEGER NOT NULL REFERENCES users(id),
     chain_id INTEGER NOT NULL,
     address TEXT NOT NULL,
     label TEXT NOT NULL,
     created_at_ms INTEGER NOT NULL,
     usable_at_ms INTEGER NOT NULL,
     PRIMARY KEY (user_id, chain_id, address)
   ) WITHOUT ROWID;`,
  // Signed API keys keep their secret sealed (shell/auth/api-keys.ts); wallets that signed in with SIWE
  // name their user; token families revoked for a reused refresh token stay revoked for access tokens
  // until the last access token of the family has expired.
  `ALTER TABLE api_keys ADD COLUMN signed INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE api_keys ADD COLUMN secret_sealed BLOB;
   CREATE TABLE wallet_users (
     address TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL UNIQUE REFERENCES users(id),
     created_at TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE revoked_token_families (family TEXT PRIMARY KEY, until_ms INTEGER NOT NULL) WITHOUT ROWID;`,
  // SIWE nonces outlive a restart between handing one out and signing in with it (shell/auth/siwe.ts); the
  // dead-man's switch view keeps what the engine's state lacks, the timeout and the last firing
  // (shell/http/cancel-switch-view.ts).
  `CREATE TABLE siwe_nonces (nonce TEXT PRIMARY KEY, expires_at_ms INTEGER NOT NULL) WITHOUT ROWID;
   CREATE INDEX siwe_nonces_expiry ON siwe_nonces(expires_at_ms);
   CREATE TABLE cancel_switch_view (
     user_id INTEGER NOT NULL,
     mode INTEGER NOT NULL,
     timeout_ms INTEGER,
     deadline_ms INTEGER,
     fired_at_ms INTEGER,
     cancelled_orders INTEGER,
     PRIMARY KEY (user_id, mode)
   ) WITHOUT ROWID;
   CREATE INDEX cancel_switch_view_armed ON cancel_switch_view(deadline_ms) WHERE deadline_ms IS NOT NULL;`,
];

/** A named random secret of the deployment (made on first use, kept in the identity database). */
export function namedSecret(db: Db, name: string, bytes = 32): Uint8Array {
  const row = db.prepare('SELECT value FROM secrets WHERE name = ?').get(name) as { value: Buffer } | undefined;
  if (row !== undefined) return new Uint8Array(row.value);
  const secret = randomBytes(bytes);
  db.prepare('INSERT INTO secrets (name, value) VALUES (?, ?)').run(name, secret);
  return new Uint8Array(secret);
}

/** The identity and credentials database, DATA_DIR/platform.sqlite. */
export function openDatabase(dataDir: string): Db {
  return openSqlite(join(dataDir, 'platform.sqlite'), migrations);
}

/** Opens (creating if needed) a WAL database and brings it to the last of its numbered migrations. */
export function openSqlite(path: string, schema: readonly string[]): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
  let version = row?.version ?? 0;
  if (row === undefined) db.prepare('INSERT INTO schema_version (version) VALUES (0)').run();
  if (version > schema.length) throw new Error(`${path}: schema version ${version} is newer than this code's ${schema.length}`);
  for (; version < schema.length; version++) {
    db.transaction(() => {
      db.exec(schema[version]!);
      db.prepare('UPDATE schema_version SET version = ?').run(version + 1);
    })();
  }
  return db;
}
