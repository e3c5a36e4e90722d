/**
 * Re-checks an export of the CEO AI expertise index (GET /api/v1/ceo-ai-leaderboard/export.json), from a
 * URL or a file:
 *
 *   npm run verify:ceo -- http://127.0.0.1:8080/api/v1/ceo-ai-leaderboard/export.json [--fetch-evidence] [--allow-private]
 *   npm run verify:ceo -- export.json
 *
 * For every row it recomputes weighted_score by the formula of the row's rubric_version and score from it
 * and the penalties, checks every dimension and penalty is in range, every counted penalty cites a source,
 * the tier against the thresholds, the publish threshold, and that the rows are ordered by score then name
 * with ranks 1..n. With --fetch-evidence it also fetches every evidence and penalty source URL through the
 * guarded outbound fetch and reports those that do not answer 2xx. --allow-private (or
 * OUTBOUND_ALLOW_PRIVATE=1) lets a URL on 127.0.0.1 through, for a local server. Exits 0 when every check
 * passes, 1 otherwise, printing each problem.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { outboundBytesCeiling, outboundFetch, outboundFetchJson } from '../engine/runtime/outbound/fetch.ts';
import {
  compareRanked,
  dimensionKeys,
  finalScore,
  isDimensionPoints,
  isPenaltyPoints,
  isRubricVersion,
  penaltyKeys,
  publishable,
  tierOf,
  weightedScore,
  type Dimensions,
  type Penalties,
} from '../shell/ceo-index/formulas.ts';

/** Source URLs fetched at most per run (a larger export is checked by its formulas only past this). */
export const evidenceFetchMax = 5_000;
const evidenceTimeoutMs = 10_000;

export interface VerifyOptions {
  readonly fetchEvidence?: boolean;
  readonly allowPrivate?: boolean;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly rows: number;
  readonly evidenceFetched: number;
  readonly problems: readonly string[];
}

type Row = Record<string, unknown>;

function checkRow(row: Row, index: number, problems: string[]): void {
  const at = `people[${index}] (${String(row['slug'])})`;
  const version = row['rubric_version'];
  if (!isRubricVersion(version)) {
    problems.push(`${at}: rubric_version ${String(version)} is not 2, 3 or 4`);
    return;
  }
  const dims = (row['dimensions'] ?? {}) as Record<string, unknown>;
  const badDims = dimensionKeys.filter((key) => !isDimensionPoints(dims[key]));
  if (badDims.length > 0) {
    problems.push(`${at}: dimensions ${badDims.join(', ')} are not integers 0..20`);
    return;
  }
  const pens = (row['penalties'] ?? {}) as Record<string, unknown>;
  const badPens = penaltyKeys.filter((key) => !isPenaltyPoints(pens[key]));
  if (badPens.length > 0) {
    problems.push(`${at}: penalties ${badPens.join(', ')} are not integers 0..10`);
    return;
  }
  const weighted = weightedScore(version, dims as unknown as Dimensions);
  if (row['weighted_score'] !== weighted) problems.push(`${at}: weighted_score ${String(row['weighted_score'])}, recomputed ${weighted} (rubric ${version})`);
  const cited = Array.isArray(row['penalty_evidence']) ? (row['penalty_evidence'] as Row[]) : [];
  for (const key of penaltyKeys) {
    if ((pens[key] as number) > 0 && !cited.some((entry) => entry['penalty'] === key && typeof entry['source_url'] === 'string' && entry['source_url'] !== '')) {
      problems.push(`${at}: penalty ${key} of ${String(pens[key])} has no cited source_url`);
    }
  }
  const score = finalScore(weighted, pens as unknown as Penalties);
  if (row['score'] !== score) problems.push(`${at}: score ${String(row['score'])}, recomputed ${score}`);
  const tier = tierOf(typeof row['score'] === 'number' ? (row['score'] as number) : score);
  if (row['tier'] !== tier.tier) problems.push(`${at}: tier ${String(row['tier'])}, thresholds give ${tier.tier}`);
  if (typeof row['confidence'] !== 'number' || !publishable(row['confidence'])) problems.push(`${at}: confidence ${String(row['confidence'])} is under the publish threshold`);
}

/** Every source URL of the export (evidence and penalty evidence), once each, in order. */
function sourcesOf(rows: readonly Row[]): string[] {
  const urls = new Set<string>();
  for (const row of rows) {
    for (const list of [row['evidence'], row['penalty_evidence']]) {
      if (!Array.isArray(list)) continue;
      for (const entry of list as Row[]) if (typeof entry['source_url'] === 'string' && entry['source_url'] !== '') urls.add(entry['source_url']);
    }
  }
  return [...urls];
}

/** The checks above over a parsed export. */
export async function verifyExport(data: unknown, options: VerifyOptions = {}): Promise<VerifyReport> {
  const problems: string[] = [];
  const people = (data as { people?: unknown } | null)?.people;
  if (!Array.isArray(people)) return { ok: false, rows: 0, evidenceFetched: 0, problems: ['the export has no people array'] };
  const rows = people as Row[];
  rows.forEach((row, index) => checkRow(row, index, problems));
  rows.forEach((row, index) => {
    if (row['rank'] !== index + 1) problems.push(`people[${index}] (${String(row['slug'])}): rank ${String(row['rank'])}, expected ${index + 1}`);
    const previous = rows[index - 1];
    if (previous !== undefined && compareRanked(previous as { score: number; name: string }, row as { score: number; name: string }) > 0) {
      problems.push(`people[${index}] (${String(row['slug'])}): out of order after ${String(previous['slug'])} (score descending, then name)`);
    }
  });
  const count = (data as { count?: unknown }).count;
  if (count !== undefined && count !== rows.length) problems.push(`count ${String(count)} but ${rows.length} rows`);
  let evidenceFetched = 0;
  if (options.fetchEvidence === true) {
    for (const url of sourcesOf(rows).slice(0, evidenceFetchMax)) {
      evidenceFetched++;
      try {
        await outboundFetch(url, { timeoutMs: evidenceTimeoutMs, bytesMax: 1024 * 1024, allowPrivate: options.allowPrivate === true });
      } catch (error) {
        problems.push(`evidence ${url}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { ok: problems.length === 0, rows: rows.length, evidenceFetched, problems };
}

/** The export at a URL (through the guarded fetch) or in a file. */
export async function loadExport(target: string, allowPrivate: boolean): Promise<unknown> {
  if (/^https?:\/\//i.test(target)) return outboundFetchJson(target, { timeoutMs: 30_000, bytesMax: outboundBytesCeiling, allowPrivate });
  return JSON.parse(readFileSync(target, 'utf8')) as unknown;
}

async function main(args: readonly string[]): Promise<number> {
  const target = args.find((arg) => !arg.startsWith('--'));
  if (target === undefined) {
    console.error('usage: verify-ceo-export <export URL or file> [--fetch-evidence] [--allow-private]');
    return 2;
  }
  const allowPrivate = args.includes('--allow-private') || process.env['OUTBOUND_ALLOW_PRIVATE'] === '1';
  const report = await verifyExport(await loadExport(target, allowPrivate), { fetchEvidence: args.includes('--fetch-evidence'), allowPrivate });
  for (const problem of report.problems) console.log(`FAIL ${problem}`);
  console.log(`${report.ok ? 'OK' : 'FAILED'}: ${report.rows} rows checked, ${report.evidenceFetched} evidence sources fetched, ${report.problems.length} problems`);
  return report.ok ? 0 : 1;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(2);
    },
  );
}
