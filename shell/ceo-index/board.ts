/**
 * The published board: every dataset row put through the formulas (weighted score of its own rubric, the
 * penalty rule, score, tier), rows under the publish confidence left out, the rest ranked by score then
 * name. Built once from the dataset (which is read once at start), together with the export's JSON text
 * and its strong ETag, so that every answer of the board is the same bytes until the server restarts.
 */
import { createHash } from 'node:crypto';
import type { CeoDataset, DataSource, Evidence, PenaltyEvidence, PersonRecord, Sector } from './dataset.ts';
import {
  compareRanked,
  currentRubricVersion,
  dimensionLabels,
  finalScore,
  penaltyKeys,
  publishable,
  publishConfidenceMin,
  tierOf,
  weightedScore,
  type Dimensions,
  type Penalties,
  type PenaltyKey,
  type RubricVersion,
} from './formulas.ts';

/** A penalty the dataset stated but that does not count, and why. */
export interface DroppedPenalty {
  readonly penalty: PenaltyKey;
  readonly points: number;
  readonly reason: 'no_cited_source';
}

/** One person as every route answers them (the specification's person row, plus `penalties_dropped`). */
export interface PersonRow {
  readonly slug: string;
  readonly name: string;
  readonly title: string;
  readonly company: string;
  readonly sector: Sector;
  /** Place on the whole board (1 = first); null for a scoring's result, which is not on the board. */
  readonly rank: number | null;
  readonly rubric_version: RubricVersion;
  readonly dimensions: Dimensions;
  readonly dimension_labels: typeof dimensionLabels;
  readonly weighted_score: number;
  /** The penalties that count (a stated penalty without a cited source is 0 here and listed in penalties_dropped). */
  readonly penalties: Penalties;
  readonly penalty_evidence: readonly PenaltyEvidence[];
  readonly penalties_dropped: readonly DroppedPenalty[];
  readonly score: number;
  readonly tier: string;
  readonly tier_label: string;
  readonly confidence: number;
  readonly rationale: string;
  readonly evidence: readonly Evidence[];
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly passes: readonly string[];
  readonly source: DataSource | 'scored';
  readonly profile_url: string;
  readonly wikipedia_title: string | null;
  readonly scored_at: string;
}

/**
 * The penalties that count: a stated penalty counts only when penalty_evidence cites a source URL for it;
 * otherwise it is 0 and reported in `dropped`.
 */
export function countedPenalties(stated: Penalties, evidence: readonly PenaltyEvidence[]): { penalties: Penalties; dropped: DroppedPenalty[] } {
  const dropped: DroppedPenalty[] = [];
  const counted = { bought_popularity: 0, capital_without_competence: 0 };
  for (const key of penaltyKeys) {
    const points = stated[key];
    if (points === 0) continue;
    if (evidence.some((entry) => entry.penalty === key && entry.source_url !== null)) counted[key] = points;
    else dropped.push({ penalty: key, points, reason: 'no_cited_source' });
  }
  return { penalties: counted, dropped };
}

/** A dataset row through the formulas (rank is set when the board is ordered). */
export function rowOf(person: PersonRecord, source: DataSource | 'scored', rank: number | null): PersonRow {
  const weighted = weightedScore(person.rubric_version, person.dimensions);
  const { penalties, dropped } = countedPenalties(person.penalties, person.penalty_evidence);
  const score = finalScore(weighted, penalties);
  const tier = tierOf(score);
  return {
    slug: person.slug,
    name: person.name,
    title: person.title,
    company: person.company,
    sector: person.sector,
    rank,
    rubric_version: person.rubric_version,
    dimensions: person.dimensions,
    dimension_labels: dimensionLabels,
    weighted_score: weighted,
    penalties,
    penalty_evidence: person.penalty_evidence,
    penalties_dropped: dropped,
    score,
    tier: tier.tier,
    tier_label: tier.label,
    confidence: person.confidence,
    rationale: person.rationale,
    evidence: person.evidence,
    metadata: person.metadata,
    passes: person.passes,
    source,
    profile_url: person.profile_url,
    wikipedia_title: person.wikipedia_title,
    scored_at: person.scored_at,
  };
}

export interface Board {
  readonly source: DataSource;
  /** Published rows, ranked. */
  readonly rows: readonly PersonRow[];
  readonly bySlug: ReadonlyMap<string, PersonRow>;
  /** Dataset rows left out for a confidence under the threshold. */
  readonly unpublishedCount: number;
  /** The export's body and its strong ETag (a hash of exactly those bytes). */
  readonly exportJson: string;
  readonly etag: string;
}

/** The published board of a dataset. */
export function buildBoard(dataset: CeoDataset): Board {
  const published = dataset.people.filter((person) => publishable(person.confidence));
  const unranked = published.map((person) => rowOf(person, dataset.source, null));
  unranked.sort(compareRanked);
  const rows = unranked.map((row, index) => ({ ...row, rank: index + 1 }));
  const exportJson = JSON.stringify({
    index: 'ceo_ai_expertise',
    rubric_version: currentRubricVersion,
    source: dataset.source,
    publish_confidence_min: publishConfidenceMin,
    count: rows.length,
    unpublished_count: dataset.people.length - rows.length,
    people: rows,
  });
  const etag = `"${createHash('sha256').update(exportJson).digest('base64url').slice(0, 32)}"`;
  return { source: dataset.source, rows, bySlug: new Map(rows.map((row) => [row.slug, row])), unpublishedCount: dataset.people.length - rows.length, exportJson, etag };
}

/**
 * Whether an If-None-Match header matches the ETag: `*`, or any listed tag equal to it by the weak
 * comparison that If-None-Match uses (a `W/` prefix is ignored).
 */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '') return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => bare(tag) === bare(etag));
}
