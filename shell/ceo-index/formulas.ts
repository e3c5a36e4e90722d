/**
 * The CEO AI expertise index's arithmetic, in one place: the nine dimensions and their groups, the
 * weighted score of each rubric version (2, 3 and the current 4), the penalty rule, the tiers, the ranking
 * and the publish threshold. The routes, the scorer and scripts/verify-ceo-export.ts all use these
 * functions, so the served rows and their re-verification cannot disagree about a formula.
 *
 * Every score is computed in integers: a weighted score is a sum of fractions `weight × sum / maximum`,
 * brought to one common denominator and rounded half-up with integer division, so that an exact x.5 is
 * never lost to a binary float (70 × 3 / 60 + 30 × 1 / 40 is exactly 4.25, and 4.5 rounds to 5).
 */

/** The nine dimensions of rubric 4, research group first. */
export const dimensionKeys = [
  'foundations',
  'vector_embeddings',
  'transformers_lm',
  'frontier_founder',
  'lm_domain_depth',
  'lm_domain_breadth',
  'hands_on_engineering',
  'industry_impact',
  'scientific_founder',
] as const;
export type DimensionKey = (typeof dimensionKeys)[number];
export type Dimensions = Readonly<Record<DimensionKey, number>>;

export const dimensionLabels: Readonly<Record<DimensionKey, string>> = {
  foundations: 'ML foundations',
  vector_embeddings: 'Vector embeddings and retrieval',
  transformers_lm: 'Transformers and language models',
  frontier_founder: 'Frontier lab founder',
  lm_domain_depth: 'Language-model depth (training, scaling, alignment)',
  lm_domain_breadth: 'AI breadth (vision, speech, robotics, agents)',
  hands_on_engineering: 'Hands-on engineering',
  industry_impact: 'Industry impact',
  scientific_founder: 'Scientific founder (research record)',
};

/** Points of one dimension at most (each is 0..20). */
export const dimensionPointsMax = 20;
/** Points of one penalty at most (each is 0..10). */
export const penaltyPointsMax = 10;
export const penaltyKeys = ['bought_popularity', 'capital_without_competence'] as const;
export type PenaltyKey = (typeof penaltyKeys)[number];
export type Penalties = Readonly<Record<PenaltyKey, number>>;

/** The index's own rubric version; rows on older versions keep their own formula. */
export const currentRubricVersion = 4;
export const rubricVersions = [2, 3, 4] as const;
export type RubricVersion = (typeof rubricVersions)[number];

/**
 * One rubric: its weighted parts, each `weight × (sum of dims) / (points max of those dims)`. The weights
 * add up to 100, so a row with every counted dimension at 20 scores exactly 100.
 */
export interface RubricPart {
  readonly group: 'research' | 'practice';
  readonly weight: number;
  readonly dimensions: readonly DimensionKey[];
}

export const rubrics: Readonly<Record<RubricVersion, readonly RubricPart[]>> = {
  2: [
    { group: 'research', weight: 70, dimensions: ['foundations', 'vector_embeddings', 'transformers_lm'] },
    { group: 'practice', weight: 30, dimensions: ['hands_on_engineering', 'industry_impact'] },
  ],
  3: [
    { group: 'research', weight: 70, dimensions: ['foundations', 'vector_embeddings', 'transformers_lm', 'frontier_founder', 'lm_domain_depth'] },
    { group: 'practice', weight: 30, dimensions: ['hands_on_engineering', 'industry_impact', 'scientific_founder'] },
  ],
  4: [
    { group: 'research', weight: 70, dimensions: ['foundations', 'vector_embeddings', 'transformers_lm', 'frontier_founder', 'lm_domain_depth', 'lm_domain_breadth'] },
    { group: 'practice', weight: 30, dimensions: ['hands_on_engineering', 'industry_impact', 'scientific_founder'] },
  ],
};

export function isRubricVersion(value: unknown): value is RubricVersion {
  return value === 2 || value === 3 || value === 4;
}

/** round(numerator / denominator) with halves rounded up, for a non-negative numerator and a positive denominator. */
export function roundHalfUp(numerator: number, denominator: number): number {
  if (!Number.isSafeInteger(numerator) || !Number.isSafeInteger(denominator) || numerator < 0 || denominator <= 0) {
    throw new RangeError(`roundHalfUp needs integers numerator >= 0 and denominator > 0, got ${numerator}/${denominator}`);
  }
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The weighted score as an exact fraction: the sum over the rubric's parts of weight × sum / (20 × count),
 * over their least common denominator.
 */
export function weightedFraction(version: RubricVersion, dimensions: Dimensions): { numerator: number; denominator: number } {
  const parts = rubrics[version];
  let denominator = 1;
  for (const part of parts) {
    const max = dimensionPointsMax * part.dimensions.length;
    denominator = (denominator * max) / gcd(denominator, max);
  }
  let numerator = 0;
  for (const part of parts) {
    const max = dimensionPointsMax * part.dimensions.length;
    let sum = 0;
    for (const key of part.dimensions) sum += dimensions[key];
    numerator += part.weight * sum * (denominator / max);
  }
  return { numerator, denominator };
}

/** weighted_score of a row on its rubric: 0..100, half-up. */
export function weightedScore(version: RubricVersion, dimensions: Dimensions): number {
  const { numerator, denominator } = weightedFraction(version, dimensions);
  return roundHalfUp(numerator, denominator);
}

/** score = max(0, weighted_score − bought_popularity − capital_without_competence). */
export function finalScore(weighted: number, penalties: Penalties): number {
  return Math.max(0, weighted - penalties.bought_popularity - penalties.capital_without_competence);
}

export const tiers = [
  { tier: 'frontier_builder', label: 'Frontier builder', minScore: 85 },
  { tier: 'deep_practitioner', label: 'Deep practitioner', minScore: 65 },
  { tier: 'technically_fluent', label: 'Technically fluent', minScore: 45 },
  { tier: 'informed_operator', label: 'Informed operator', minScore: 25 },
  { tier: 'narrative_only', label: 'Narrative only', minScore: 0 },
] as const;
export type Tier = (typeof tiers)[number]['tier'];

/** The highest tier whose minimum the score reaches. */
export function tierOf(score: number): (typeof tiers)[number] {
  for (const entry of tiers) if (score >= entry.minScore) return entry;
  throw new Error(`score ${score} is below every tier`);
}

/** Least confidence (0..1) a row needs to be published; below it a row is kept out of every answer. */
export const publishConfidenceMin = 0.45;

/** Whether a row's confidence reaches the publish threshold (compared in hundredths, so 0.45 is exactly in). */
export function publishable(confidence: number): boolean {
  return Math.round(confidence * 100) >= Math.round(publishConfidenceMin * 100);
}

/** The board's order: score descending, then name ascending (code-point order, so every reader agrees). */
export function compareRanked(a: { score: number; name: string }, b: { score: number; name: string }): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function isDimensionPoints(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= dimensionPointsMax;
}

export function isPenaltyPoints(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= penaltyPointsMax;
}
