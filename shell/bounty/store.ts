/**
 * Bug-bounty reports in DATA_DIR/bounty.sqlite: what a reporter sent, the administrators' verdicts
 * (verified with a reward amount, duplicate) and the payment record (amount, reference, time), written
 * when the payment's PayBounty command is durable.
 *
 * Owed: a report that is verified, not a duplicate and has no payment record.
 */
import { join } from 'node:path';
import { openSqlite, type Db } from '../store/database.ts';

export const titleCharsMax = 200;
export const descriptionCharsMax = 10_000;
export const urlCharsMax = 2_000;
export const referenceCharsMax = 200;
export const reportsPerUserMax = 1_000;
export const severities = ['low', 'medium', 'high', 'critical'] as const;

const migrations = [
  `CREATE TABLE bounty_reports (
     id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     title TEXT NOT NULL,
     description TEXT NOT NULL,
     severity TEXT NOT NULL,
     url TEXT,
     created_ms INTEGER NOT NULL,
     verified INTEGER NOT NULL DEFAULT 0,
     amount_atoms INTEGER,
     duplicate INTEGER NOT NULL DEFAULT 0,
     paid_atoms INTEGER,
     payment_reference TEXT,
     paid_ms INTEGER
   );
   CREATE INDEX bounty_reports_user ON bounty_reports(user_id, id);`,
];

export interface ReportRow {
  id: number;
  user_id: number;
  title: string;
  description: string;
  severity: string;
  url: string | null;
  created_ms: number;
  verified: number;
  amount_atoms: number | null;
  duplicate: number;
  paid_atoms: number | null;
  payment_reference: string | null;
  paid_ms: number | null;
}

export class BountyStore {
  private readonly db: Db;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'bounty.sqlite'), migrations);
  }

  countOf(userId: number): number {
    return this.db.prepare('SELECT count(*) FROM bounty_reports WHERE user_id = ?').pluck().get(userId) as number;
  }

  add(userId: number, title: string, description: string, severity: string, url: string | null, nowMs: number): ReportRow {
    const id = this.db.prepare('INSERT INTO bounty_reports (user_id, title, description, severity, url, created_ms) VALUES (?, ?, ?, ?, ?, ?)').run(userId, title, description, severity, url, nowMs).lastInsertRowid;
    return this.get(Number(id))!;
  }

  get(id: number): ReportRow | undefined {
    return this.db.prepare('SELECT * FROM bounty_reports WHERE id = ?').get(id) as ReportRow | undefined;
  }

  ofUser(userId: number): ReportRow[] {
    return this.db.prepare('SELECT * FROM bounty_reports WHERE user_id = ? ORDER BY id DESC').all(userId) as ReportRow[];
  }

  verify(id: number, amountAtoms: number): void {
    this.db.prepare('UPDATE bounty_reports SET verified = 1, amount_atoms = ? WHERE id = ?').run(amountAtoms, id);
  }

  markDuplicate(id: number): void {
    this.db.prepare('UPDATE bounty_reports SET duplicate = 1 WHERE id = ?').run(id);
  }

  recordPayment(id: number, amountAtoms: number, reference: string, paidMs: number): void {
    this.db.prepare('UPDATE bounty_reports SET paid_atoms = ?, payment_reference = ?, paid_ms = ? WHERE id = ?').run(amountAtoms, reference, paidMs, id);
  }

  close(): void {
    this.db.close();
  }
}

/** Totals of a user's reports: verified (non-duplicate), paid, and owed (verified, non-duplicate, unpaid). */
export function totalsOf(rows: readonly ReportRow[]): { verifiedCount: number; verifiedAtoms: number; paidCount: number; paidAtoms: number; owedCount: number; owedAtoms: number } {
  const totals = { verifiedCount: 0, verifiedAtoms: 0, paidCount: 0, paidAtoms: 0, owedCount: 0, owedAtoms: 0 };
  for (const row of rows) {
    if (row.paid_atoms !== null) {
      totals.paidCount++;
      totals.paidAtoms += row.paid_atoms;
    }
    if (row.verified !== 1 || row.duplicate === 1) continue;
    totals.verifiedCount++;
    totals.verifiedAtoms += row.amount_atoms ?? 0;
    if (row.paid_atoms === null) {
      totals.owedCount++;
      totals.owedAtoms += row.amount_atoms ?? 0;
    }
  }
  return totals;
}
