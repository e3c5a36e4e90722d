/**
 * The index's formula table: the weighted score of each rubric (2, 3, 4) on rows chosen to land exactly on
 * x.5 and next to it (half-up, in integers: 0.7 × 15 is 10.4999… as a float but 10.5 here), the penalty
 * floor, every tier boundary, the ranking tie-break and the publish threshold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRanked, dimensionKeys, finalScore, publishable, roundHalfUp, tierOf, weightedFraction, weightedScore, type DimensionKey, type Dimensions, type RubricVersion } from './formulas.ts';

function dims(values: Partial<Record<DimensionKey, number>>): Dimensions {
  return Object.fromEntries(dimensionKeys.map((key) => [key, values[key] ?? 0])) as unknown as Dimensions;
}

const all = (points: number): Dimensions => dims(Object.fromEntries(dimensionKeys.map((key) => [key, points])));

test('roundHalfUp rounds exact halves up and everything else to the nearest integer', () => {
  assert.equal(roundHalfUp(1, 2), 1);
  assert.equal(roundHalfUp(3, 2), 2);
  assert.equal(roundHalfUp(149, 100), 1);
  assert.equal(roundHalfUp(150, 100), 2);
  assert.equal(roundHalfUp(0, 7), 0);
  assert.throws(() => roundHalfUp(-1, 2), RangeError);
  assert.throws(() => roundHalfUp(1, 0), RangeError);
});

test('formula table: weighted_score of each rubric, including the half-up edges', () => {
  // [rubric, dimensions, exact value as numerator/denominator, expected weighted_score]
  const table: Array<[RubricVersion, Dimensions, string, number]> = [
    // Rubric 4: 70 × research / 120 + 30 × practice / 60 = (70 r + 60 p) / 120.
    [4, all(20), '12000/120', 100],
    [4, all(0), '0/120', 0],
    [4, dims({ foundations: 6 }), '420/120', 4], // 3.5 -> 4
    [4, dims({ foundations: 5 }), '350/120', 3], // 2.9166 -> 3
    [4, dims({ foundations: 18 }), '1260/120', 11], // 10.5 -> 11
    [4, dims({ lm_domain_breadth: 6, scientific_founder: 2 }), '540/120', 5], // 4.5 -> 5: breadth and scientific_founder count in rubric 4
    [4, dims({ foundations: 3, hands_on_engineering: 1 }), '270/120', 2], // 2.25 -> 2
    // Rubric 3: 70 × (five research dims) / 100 + 30 × practice / 60 = (21 r + 15 p) / 30.
    [3, dims({ foundations: 15 }), '315/30', 11], // 10.5 -> 11 (0.7 × 15 as floats is 10.499999999999998)
    [3, dims({ frontier_founder: 5 }), '105/30', 4], // 3.5 -> 4
    [3, dims({ lm_domain_breadth: 20 }), '0/30', 0], // breadth is not in rubric 3
    [3, dims({ scientific_founder: 1 }), '15/30', 1], // 0.5 -> 1
    [3, dims({ foundations: 1, scientific_founder: 1 }), '36/30', 1], // 1.2 -> 1
    [3, all(20), '3000/30', 100],
    // Rubric 2: 70 × (three dims) / 60 + 30 × (two dims) / 40 = (14 r + 9 p) / 12.
    [2, dims({ hands_on_engineering: 2 }), '18/12', 2], // 1.5 -> 2
    [2, dims({ transformers_lm: 6, industry_impact: 2 }), '102/12', 9], // 8.5 -> 9
    [2, dims({ transformers_lm: 3, industry_impact: 1 }), '51/12', 4], // 4.25 -> 4
    [2, dims({ frontier_founder: 20, lm_domain_depth: 20, scientific_founder: 20 }), '0/12', 0], // none of these is in rubric 2
    [2, all(20), '1200/12', 100],
  ];
  for (const [version, dimensions, exact, expected] of table) {
    const { numerator, denominator } = weightedFraction(version, dimensions);
    const [n, d] = exact.split('/').map(Number) as [number, number];
    assert.equal(numerator * d, n * denominator, `rubric ${version} ${JSON.stringify(dimensions)}: ${numerator}/${denominator} is ${exact}`);
    assert.equal(weightedScore(version, dimensions), expected, `rubric ${version} ${exact}`);
  }
});

test('the penalty rule: score is the weighted score less both penalties, never below 0', () => {
  assert.equal(finalScore(60, { bought_popularity: 0, capital_without_competence: 0 }), 60);
  assert.equal(finalScore(60, { bought_popularity: 4, capital_without_competence: 6 }), 50);
  assert.equal(finalScore(7, { bought_popularity: 10, capital_without_competence: 10 }), 0);
});

test('tiers by minimum score, at and next to every boundary', () => {
  const cases: Array<[number, string]> = [
    [100, 'frontier_builder'],
    [85, 'frontier_builder'],
    [84, 'deep_practitioner'],
    [65, 'deep_practitioner'],
    [64, 'technically_fluent'],
    [45, 'technically_fluent'],
    [44, 'informed_operator'],
    [25, 'informed_operator'],
    [24, 'narrative_only'],
    [0, 'narrative_only'],
  ];
  for (const [score, tier] of cases) assert.equal(tierOf(score).tier, tier, String(score));
});

test('ranking: score descending, then name ascending', () => {
  const rows = [
    { score: 60, name: 'Nora' },
    { score: 70, name: 'Zed' },
    { score: 60, name: 'Erik' },
    { score: 10, name: 'Aaron' },
  ];
  assert.deepEqual(rows.sort(compareRanked).map((row) => row.name), ['Zed', 'Erik', 'Nora', 'Aaron']);
});

test('the publish threshold is confidence 0.45, inclusive', () => {
  assert.equal(publishable(0.45), true);
  assert.equal(publishable(0.9), true);
  assert.equal(publishable(0.44), false);
  assert.equal(publishable(0), false);
});
