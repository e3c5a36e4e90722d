/**
 * The bots module's SQLite database, DATA_DIR/bots.sqlite (WAL, numbered migrations as in
 * shell/store/database.ts): the clones (who owns which clone account, of which source, with which wallet
 * and key) and the backtest runs with their inputs and results, so both survive restarts. The engine's
 * journal holds what decides trading (StartClone); this holds the records the routes show.
 */
import { join } from 'node:path';
import { openSqlite, type Db } from '../store/database.ts';

const migrations: string[] = [
  `CREATE TABLE clones (
     id TEXT PRIMARY KEY,
     owner_user_id INTEGER NOT NULL,
     clone_user_id INTEGER NOT NULL UNIQUE,
     source_type TEXT NOT NULL,
     source_id TEXT NOT NULL,
     paper INTEGER NOT NULL,
     name TEXT NOT NULL,
     wallet_address TEXT NOT NULL,
     api_key_id INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX clones_owner ON clones(owner_user_id, source_id, paper);
   CREATE TABLE backtest_runs (
     id TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL,
     slug TEXT NOT NULL,
     status TEXT NOT NULL,
     input TEXT NOT NULL,
     result TEXT,
     error TEXT,
     created_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT
   );
   CREATE INDEX backtest_runs_status ON backtest_runs(status, created_at);
   CREATE INDEX backtest_runs_user ON backtest_runs(user_id, status);`,
];

export interface CloneRow {
  id: string;
  owner_user_id: number;
  clone_user_id: number;
  source_type: string;
  source_id: string;
  paper: number;
  name: string;
  wallet_address: string;
  api_key_id: number;
  created_at: string;
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface RunRow {
  id: string;
  user_id: number;
  slug: string;
  status: RunStatus;
  input: string;
  result: string | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export class BotsStore {
  readonly db: Db;
  private readonly statements;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'bots.sqlite'), migrations);
    const db = this.db;
    this.statements = {
      insertClone: db.prepare(
        'INSERT INTO clones (id, owner_user_id, clone_user_id, source_type, source_id, paper, name, wallet_address, api_key_id, created_at) VALUES (@id, @owner_user_id, @clone_user_id, @source_type, @source_id, @paper, @name, @wallet_address, @api_key_id, @created_at)',
      ),
      paperClone: db.prepare('SELECT id FROM clones WHERE owner_user_id = ? AND source_id = ? AND paper = 1'),
      insertRun: db.prepare('INSERT INTO backtest_runs (id, user_id, slug, status, input, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
      run: db.prepare('SELECT * FROM backtest_runs WHERE id = ?'),
      pending: db.prepare("SELECT * FROM backtest_runs WHERE status IN ('queued', 'running') ORDER BY created_at, id"),
      activeOfUser: db.prepare("SELECT COUNT(*) AS count FROM backtest_runs WHERE user_id = ? AND status IN ('queued', 'running')"),
      start: db.prepare("UPDATE backtest_runs SET status = 'running', started_at = ? WHERE id = ?"),
      finish: db.prepare('UPDATE backtest_runs SET status = ?, result = ?, error = ?, finished_at = ? WHERE id = ?'),
    };
  }

  insertClone(row: CloneRow): void {
    this.statements.insertClone.run(row);
  }

  hasPaperClone(ownerUserId: number, sourceId: string): boolean {
    return this.statements.paperClone.get(ownerUserId, sourceId) !== undefined;
  }

  insertRun(id: string, userId: number, slug: string, input: string, createdAt: string): void {
    this.statements.insertRun.run(id, userId, slug, 'queued', input, createdAt);
  }

  run(id: string): RunRow | undefined {
    return this.statements.run.get(id) as RunRow | undefined;
  }

  /** Runs not finished (queued or running), oldest first: re-queued at start. */
  pendingRuns(): RunRow[] {
    return this.statements.pending.all() as RunRow[];
  }

  activeRunsOf(userId: number): number {
    return (this.statements.activeOfUser.get(userId) as { count: number }).count;
  }

  startRun(id: string, at: string): void {
    this.statements.start.run(at, id);
  }

  finishRun(id: string, status: 'completed' | 'failed', result: string | null, error: string | null, at: string): void {
    this.statements.finish.run(status, result, error, at, id);
  }

  close(): void {
    this.db.close();
  }
}
