/**
 * Saved assessments, in their own SQLite database (DATA_DIR/due-diligence.sqlite): one row per assessment
 * with its domain, time, score and classification as columns and the whole result as JSON. A domain keeps
 * its `historyPerDomain` newest rows and the database its `storedMax` newest in all; older ones are deleted
 * as new ones are saved, so the store stays bounded whatever is assessed.
 */
import { openSqlite, type Db } from '../store/database.ts';
import type { ProbeResult } from './probes.ts';
import type { Classification, DimensionKey, DimensionScore } from './rubric.ts';

const migrations = [
  `CREATE TABLE assessments (
     id INTEGER PRIMARY KEY,
     domain TEXT NOT NULL,
     assessed_at_ms INTEGER NOT NULL,
     score INTEGER NOT NULL,
     classification TEXT NOT NULL,
     result TEXT NOT NULL
   );
   CREATE INDEX assessments_domain ON assessments(domain, id);`,
];

/** An assessment as saved (the routes add `cached`). */
export interface Assessment {
  readonly domain: string;
  /** The origin the probes were sent to. */
  readonly website: string;
  readonly assessed_at: string;
  readonly rubric_version: number;
  readonly score: number;
  readonly max_score: number;
  readonly classification: Classification;
  readonly dimensions: DimensionScore[];
  readonly probes: ProbeResult[];
}

export interface Saved {
  readonly assessment: Assessment;
  readonly atMs: number;
}

/** One past assessment in a history: its time, score, classification and dimension scores. */
export interface HistoryEntry {
  readonly assessed_at: string;
  readonly score: number;
  readonly classification: Classification;
  readonly dimensions: Record<DimensionKey, number>;
}

export class AssessmentStore {
  private readonly db: Db;
  private readonly insert;
  private readonly trimDomain;
  private readonly trimAll;
  private readonly selectLatest;
  private readonly selectHistory;

  constructor(
    path: string,
    private readonly historyPerDomain: number,
    private readonly storedMax: number,
  ) {
    this.db = openSqlite(path, migrations);
    this.insert = this.db.prepare('INSERT INTO assessments (domain, assessed_at_ms, score, classification, result) VALUES (?, ?, ?, ?, ?)');
    this.trimDomain = this.db.prepare('DELETE FROM assessments WHERE domain = ? AND id NOT IN (SELECT id FROM assessments WHERE domain = ? ORDER BY id DESC LIMIT ?)');
    this.trimAll = this.db.prepare('DELETE FROM assessments WHERE id <= (SELECT MAX(id) FROM assessments) - ?');
    this.selectLatest = this.db.prepare('SELECT assessed_at_ms, result FROM assessments WHERE domain = ? ORDER BY id DESC LIMIT 1');
    this.selectHistory = this.db.prepare('SELECT result FROM assessments WHERE domain = ? ORDER BY id DESC LIMIT ?');
  }

  save(assessment: Assessment, atMs: number): void {
    this.db.transaction(() => {
      this.insert.run(assessment.domain, atMs, assessment.score, assessment.classification, JSON.stringify(assessment));
      this.trimDomain.run(assessment.domain, assessment.domain, this.historyPerDomain);
      // Ids only grow, so the newest `storedMax` rows are those within `storedMax` of the largest id.
      this.trimAll.run(this.storedMax);
    })();
  }

  latest(domain: string): Saved | null {
    const row = this.selectLatest.get(domain) as { assessed_at_ms: number; result: string } | undefined;
    return row === undefined ? null : { assessment: JSON.parse(row.result) as Assessment, atMs: row.assessed_at_ms };
  }

  /** The domain's saved assessments, newest first, at most `limit`. */
  history(domain: string, limit: number): HistoryEntry[] {
    const rows = this.selectHistory.all(domain, limit) as Array<{ result: string }>;
    return rows.map((row) => {
      const assessment = JSON.parse(row.result) as Assessment;
      return {
        assessed_at: assessment.assessed_at,
        score: assessment.score,
        classification: assessment.classification,
        dimensions: Object.fromEntries(assessment.dimensions.map((dimension) => [dimension.key, dimension.score])) as Record<DimensionKey, number>,
      };
    });
  }

  close(): void {
    this.db.close();
  }
}
