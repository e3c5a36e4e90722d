/**
 * The published board of the embedded sample: every row labelled sample and fictional, rows on rubrics 2,
 * 3 and 4 scored by their own formula, the penalty rule (a penalty with a cited source counts, one without
 * is dropped and flagged), the publish threshold, ranking ties by name, the ETag, and a malformed dataset
 * row refused naming the row and the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBoard, etagMatches } from './board.ts';
import { datasetOf, sampleDataset } from './dataset.ts';
import { weightedScore } from './formulas.ts';

const dataset = sampleDataset();
const board = buildBoard(dataset);
const bySlug = (slug: string) => board.bySlug.get(slug);

test('the sample is fictional and labelled: every row says sample, every evidence address is on sample.invalid', () => {
  assert.equal(dataset.source, 'sample');
  assert.ok(board.rows.length >= 8);
  for (const row of board.rows) {
    assert.equal(row.source, 'sample');
    assert.match(row.name, /\(sample\)$/);
    assert.equal(row.wikipedia_title, null);
    for (const entry of [...row.evidence, ...row.penalty_evidence]) if (entry.source_url !== null) assert.match(entry.source_url, /^https:\/\/sample\.invalid\//);
  }
  assert.deepEqual(new Set(dataset.people.map((person) => person.rubric_version)), new Set([2, 3, 4]));
  assert.deepEqual(new Set(board.rows.map((row) => row.sector)), new Set(['crypto', 'general']));
});

test('each row is scored by its own rubric', () => {
  for (const person of dataset.people) {
    const row = bySlug(person.slug);
    if (row === undefined) continue;
    assert.equal(row.weighted_score, weightedScore(person.rubric_version, person.dimensions), person.slug);
  }
  // Priya Anand is on rubric 2: 70 × (9 + 8 + 10) / 60 + 30 × (12 + 13) / 40 = 31.5 + 18.75 = 50.25 -> 50.
  assert.equal(bySlug('sample-priya-anand')!.weighted_score, 50);
  // Hana Okafor is on rubric 3: 70 × (16 + 10 + 12 + 14 + 13) / 100 + 30 × (15 + 14 + 17) / 60 = 45.5 + 23 = 68.5 -> 69.
  assert.equal(bySlug('sample-hana-okafor')!.weighted_score, 69);
});

test('the penalty rule: a cited penalty counts, an uncited one is dropped and flagged', () => {
  const ines = bySlug('sample-ines-kovac')!;
  assert.deepEqual(ines.penalties, { bought_popularity: 2, capital_without_competence: 0 });
  assert.equal(ines.score, ines.weighted_score - 2);
  assert.deepEqual(ines.penalties_dropped, []);
  const luca = bySlug('sample-luca-brandt')!;
  assert.deepEqual(luca.penalties, { bought_popularity: 0, capital_without_competence: 0 });
  assert.deepEqual(luca.penalties_dropped, [{ penalty: 'capital_without_competence', points: 5, reason: 'no_cited_source' }]);
  assert.equal(luca.score, luca.weighted_score);
  const dario = bySlug('sample-dario-quell')!;
  assert.deepEqual(dario.penalties, { bought_popularity: 6, capital_without_competence: 0 });
  assert.deepEqual(dario.penalties_dropped, [{ penalty: 'capital_without_competence', points: 4, reason: 'no_cited_source' }]);
  assert.equal(dario.score, dario.weighted_score - 6);
});

test('rows under confidence 0.45 are not published; 0.45 is', () => {
  assert.equal(bySlug('sample-yusuf-demir'), undefined, 'confidence 0.44');
  assert.equal(bySlug('sample-celia-marchetti'), undefined, 'confidence 0.30');
  assert.equal(bySlug('sample-erik-lindqvist')!.confidence, 0.45);
  assert.equal(board.unpublishedCount, 2);
  assert.equal(board.rows.length, dataset.people.length - 2);
});

test('ranking: score descending, ties by name, ranks 1..n; tiers by thresholds', () => {
  board.rows.forEach((row, index) => assert.equal(row.rank, index + 1));
  for (let index = 1; index < board.rows.length; index++) assert.ok(board.rows[index - 1]!.score >= board.rows[index]!.score);
  const erik = bySlug('sample-erik-lindqvist')!;
  const nora = bySlug('sample-nora-lindqvist')!;
  assert.equal(erik.score, nora.score);
  assert.equal(nora.rank, erik.rank! + 1, 'Erik before Nora at the same score');
  assert.equal(board.rows[0]!.tier, 'frontier_builder');
  assert.deepEqual(new Set(board.rows.map((row) => row.tier)), new Set(['frontier_builder', 'deep_practitioner', 'technically_fluent', 'informed_operator', 'narrative_only']));
});

test('the export is one body with a strong ETag that If-None-Match matches', () => {
  assert.match(board.etag, /^"[A-Za-z0-9_-]{32}"$/);
  assert.equal(buildBoard(sampleDataset()).etag, board.etag, 'the same data gives the same tag');
  assert.equal(JSON.parse(board.exportJson).people.length, board.rows.length);
  assert.equal(etagMatches(board.etag, board.etag), true);
  assert.equal(etagMatches(`"other", ${board.etag}`, board.etag), true);
  assert.equal(etagMatches(`W/${board.etag}`, board.etag), true);
  assert.equal(etagMatches('*', board.etag), true);
  assert.equal(etagMatches('"other"', board.etag), false);
  assert.equal(etagMatches('', board.etag), false);
});

test('a malformed dataset row stops the load naming the row and the field', () => {
  const good = JSON.parse(JSON.stringify(dataset.people[0]));
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...good, dimensions: { ...good.dimensions, foundations: 21 } }, /people\[0\] \(sample-mara-ellison\): dimensions\.foundations must be an integer 0\.\.20/],
    [{ ...good, penalties: { bought_popularity: 11, capital_without_competence: 0 } }, /penalties\.bought_popularity must be an integer 0\.\.10/],
    [{ ...good, rubric_version: 1 }, /rubric_version must be 2, 3 or 4/],
    [{ ...good, sector: 'other' }, /sector must be crypto or general/],
    [{ ...good, confidence: 2 }, /confidence must be a number 0\.\.1/],
    [{ ...good, evidence: [{ claim: 'x', source_url: 'ftp://x', verified: false }] }, /evidence\[0\]\.source_url must be an http\(s\) URL/],
  ];
  for (const [row, message] of cases) assert.throws(() => datasetOf({ people: [row] }, 'file', 'test.json'), message);
  assert.throws(() => datasetOf({ people: [good, good] }, 'file', 'test.json'), /people\[1\] \(sample-mara-ellison\): slug is a duplicate/);
  assert.equal(datasetOf({ people: [good] }, 'file', 'test.json').people[0]!.slug, 'sample-mara-ellison');
});
