/**
 * Where the CEO index's people come from, behind one adapter with two implementations of the same shape:
 * the embedded default, fixtures/ceo-index-sample.json, a sample of FICTIONAL people (every name says
 * "(sample)", every row `"source": "sample"`, evidence on `sample.invalid` addresses that never resolve, so
 * no answer can pass them for real people or real evidence); and CEO_INDEX_DATA_FILE, a JSON file of the
 * same shape whose rows answer `"source": "file"`. Both are read and checked once, when the module is made;
 * a malformed row stops the start naming the row and the field.
 *
 * The file: `{"people": [{slug, name, title, company, sector: "crypto"|"general", rubric_version: 2|3|4,
 * dimensions: {nine keys: 0..20}, penalties: {bought_popularity, capital_without_competence: 0..10},
 * penalty_evidence: [{penalty, claim, source_url}], confidence: 0..1, rationale, evidence: [{claim,
 * source_url, verified, verified_at}], metadata: {}, passes: [string], profile_url, wikipedia_title:
 * string|null, scored_at: ISO 8601}]}`. What the rows do not carry (rank, weighted_score, score, tier,
 * labels) is computed by board.ts from formulas.ts.
 */
import { readFileSync } from 'node:fs';
import { dimensionKeys, isDimensionPoints, isPenaltyPoints, isRubricVersion, penaltyKeys, type Dimensions, type Penalties, type PenaltyKey, type RubricVersion } from './formulas.ts';

export const sectors = ['crypto', 'general'] as const;
export type Sector = (typeof sectors)[number];
export type DataSource = 'sample' | 'file';

export interface Evidence {
  readonly claim: string;
  readonly source_url: string;
  readonly verified: boolean;
  readonly verified_at: string | null;
}

export interface PenaltyEvidence {
  readonly penalty: PenaltyKey;
  readonly claim: string;
  /** The cited source; a penalty without one does not count (board.ts drops it and flags the row). */
  readonly source_url: string | null;
}

/** One person as the dataset states them, before the formulas. */
export interface PersonRecord {
  readonly slug: string;
  readonly name: string;
  readonly title: string;
  readonly company: string;
  readonly sector: Sector;
  readonly rubric_version: RubricVersion;
  readonly dimensions: Dimensions;
  readonly penalties: Penalties;
  readonly penalty_evidence: readonly PenaltyEvidence[];
  readonly confidence: number;
  readonly rationale: string;
  readonly evidence: readonly Evidence[];
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly passes: readonly string[];
  readonly profile_url: string;
  readonly wikipedia_title: string | null;
  readonly scored_at: string;
}

export interface CeoDataset {
  readonly source: DataSource;
  /** Where the rows were read from (a path), for the methodology. */
  readonly origin: string;
  readonly people: readonly PersonRecord[];
}

// Limits of what a dataset may bring.
export const peopleMax = 10_000;
export const evidencePerPersonMax = 64;
export const textCharsMax = 2_000;
export const slugCharsMax = 80;
export const datasetBytesMax = 64 * 1024 * 1024;

/** The embedded sample's path (read relative to this file, so the server finds it from any working directory). */
export const samplePath = new URL('../../fixtures/ceo-index-sample.json', import.meta.url);

class RowError extends Error {}

function text(row: Record<string, unknown>, field: string, { empty = false, max = textCharsMax } = {}): string {
  const value = row[field];
  if (typeof value !== 'string' || (!empty && value.trim() === '') || value.length > max) throw new RowError(`${field} must be a ${empty ? '' : 'non-empty '}string of at most ${max} characters`);
  return value;
}

function httpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function isoTime(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) throw new RowError(`${field} must be an ISO 8601 time`);
  return value;
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RowError(`${field} must be an object`);
  return value as Record<string, unknown>;
}

function list(value: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(value) || value.length > max) throw new RowError(`${field} must be an array of at most ${max} entries`);
  return value;
}

function evidenceOf(value: unknown, field: string): Evidence {
  const entry = object(value, field);
  if (!httpUrl(entry['source_url'])) throw new RowError(`${field}.source_url must be an http(s) URL`);
  if (typeof entry['verified'] !== 'boolean') throw new RowError(`${field}.verified must be a boolean`);
  const verifiedAt = entry['verified_at'] === null || entry['verified_at'] === undefined ? null : isoTime(entry['verified_at'], `${field}.verified_at`);
  return { claim: text(entry, 'claim'), source_url: entry['source_url'], verified: entry['verified'], verified_at: verifiedAt };
}

function penaltyEvidenceOf(value: unknown, field: string): PenaltyEvidence {
  const entry = object(value, field);
  const penalty = entry['penalty'];
  if (!penaltyKeys.includes(penalty as PenaltyKey)) throw new RowError(`${field}.penalty must be one of ${penaltyKeys.join(', ')}`);
  const source = entry['source_url'];
  if (source !== null && source !== undefined && source !== '' && !httpUrl(source)) throw new RowError(`${field}.source_url must be an http(s) URL, empty or null`);
  return { penalty: penalty as PenaltyKey, claim: text(entry, 'claim'), source_url: httpUrl(source) ? source : null };
}

/** One row of a dataset file, checked; throws naming the field. */
export function personOf(value: unknown): PersonRecord {
  const row = object(value, 'row');
  const slug = text(row, 'slug', { max: slugCharsMax });
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) throw new RowError('slug must be lower-case letters and digits joined by single hyphens');
  const sector = row['sector'];
  if (sector !== 'crypto' && sector !== 'general') throw new RowError('sector must be crypto or general');
  const version = row['rubric_version'];
  if (!isRubricVersion(version)) throw new RowError('rubric_version must be 2, 3 or 4');
  const dims = object(row['dimensions'], 'dimensions');
  for (const key of Object.keys(dims)) if (!(dimensionKeys as readonly string[]).includes(key)) throw new RowError(`dimensions.${key} is not a dimension`);
  for (const key of dimensionKeys) if (!isDimensionPoints(dims[key])) throw new RowError(`dimensions.${key} must be an integer 0..20`);
  const pens = object(row['penalties'], 'penalties');
  for (const key of penaltyKeys) if (!isPenaltyPoints(pens[key])) throw new RowError(`penalties.${key} must be an integer 0..10`);
  const confidence = row['confidence'];
  if (typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1)) throw new RowError('confidence must be a number 0..1');
  if (!httpUrl(row['profile_url'])) throw new RowError('profile_url must be an http(s) URL');
  const wikipedia = row['wikipedia_title'];
  if (wikipedia !== null && wikipedia !== undefined && typeof wikipedia !== 'string') throw new RowError('wikipedia_title must be a string or null');
  const passes = list(row['passes'] ?? [], 'passes', 16).map((pass, index) => {
    if (typeof pass !== 'string' || pass === '' || pass.length > 64) throw new RowError(`passes[${index}] must be a short string`);
    return pass;
  });
  return {
    slug,
    name: text(row, 'name', { max: 200 }),
    title: text(row, 'title', { max: 200 }),
    company: text(row, 'company', { max: 200 }),
    sector,
    rubric_version: version,
    dimensions: Object.fromEntries(dimensionKeys.map((key) => [key, dims[key] as number])) as unknown as Dimensions,
    penalties: { bought_popularity: pens['bought_popularity'] as number, capital_without_competence: pens['capital_without_competence'] as number },
    penalty_evidence: list(row['penalty_evidence'] ?? [], 'penalty_evidence', evidencePerPersonMax).map((entry, index) => penaltyEvidenceOf(entry, `penalty_evidence[${index}]`)),
    confidence,
    rationale: text(row, 'rationale', { empty: true }),
    evidence: list(row['evidence'], 'evidence', evidencePerPersonMax).map((entry, index) => evidenceOf(entry, `evidence[${index}]`)),
    metadata: row['metadata'] === undefined ? {} : object(row['metadata'], 'metadata'),
    passes,
    profile_url: row['profile_url'] as string,
    wikipedia_title: typeof wikipedia === 'string' ? wikipedia : null,
    scored_at: isoTime(row['scored_at'], 'scored_at'),
  };
}

/** A dataset from parsed JSON; throws naming the row (by index and slug) and the field. */
export function datasetOf(json: unknown, source: DataSource, origin: string): CeoDataset {
  const top = object(json, 'dataset');
  const rows = top['people'];
  if (!Array.isArray(rows) || rows.length > peopleMax) throw new Error(`${origin}: people must be an array of at most ${peopleMax} rows`);
  const slugs = new Set<string>();
  const people = rows.map((row, index) => {
    const slug = typeof (row as { slug?: unknown } | null)?.slug === 'string' ? ` (${(row as { slug: string }).slug})` : '';
    try {
      const person = personOf(row);
      if (slugs.has(person.slug)) throw new RowError('slug is a duplicate');
      slugs.add(person.slug);
      return person;
    } catch (error) {
      if (error instanceof RowError) throw new Error(`${origin}: people[${index}]${slug}: ${error.message}`);
      throw error;
    }
  });
  return { source, origin, people };
}

function readJson(path: string | URL): unknown {
  const body = readFileSync(path);
  if (body.length > datasetBytesMax) throw new Error(`${String(path)}: over ${datasetBytesMax} bytes`);
  return JSON.parse(body.toString('utf8')) as unknown;
}

/** The embedded fictional sample. */
export function sampleDataset(): CeoDataset {
  return datasetOf(readJson(samplePath), 'sample', 'fixtures/ceo-index-sample.json');
}

/** A dataset file of the same shape (CEO_INDEX_DATA_FILE). */
export function fileDataset(path: string): CeoDataset {
  return datasetOf(readJson(path), 'file', path);
}
