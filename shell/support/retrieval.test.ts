/**
 * The corpus and the index without a server: Markdown cut by headings (code blocks whole, front matter
 * left out, long blocks cut), docs/ found under a repository root, OpenAPI operations as passages, term
 * processing, the half-the-terms rule, and the answer rule's bounds and citations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markdownPassages, numbered, openApiPassages, passageCharsMax, repositoryPassages } from './corpus.ts';
import { answerCharsMax, answerPassagesMax, processTerm, SupportIndex, termsOf } from './retrieval.ts';

const guide = `---
name: guide
description: front matter is metadata
---
# Guide

Intro before any section.

## Orders

### Scale orders

A scale order places count limit orders between price_low and price_high. It only rests.

\`\`\`
# not a heading: a comment in code
curl -X POST /api/v1/exchange/eth/scale
\`\`\`

## Accounts

API keys are created with POST /api/v1/api-keys. Their secret is shown once.
`;

test('Markdown is cut into passages by headings; code stays whole and front matter is left out', () => {
  const passages = markdownPassages('docs/guide.md', guide);
  assert.deepEqual(
    passages.map((passage) => [passage.section, passage.title, passage.code]),
    [
      ['Guide', 'Guide', false],
      ['Orders > Scale orders', 'Scale orders', false],
      ['Orders > Scale orders', 'Scale orders', true],
      ['Accounts', 'Accounts', false],
    ],
  );
  assert.ok(passages.every((passage) => !passage.text.includes('front matter')));
  assert.match(passages[2]!.text, /# not a heading/);
  const long = markdownPassages('README.md', `## Long\n\n${Array.from({ length: 40 }, () => 'word '.repeat(20).trim()).join('\n')}\n`);
  assert.ok(long.length > 1, 'a long block is cut');
  assert.ok(long.every((passage) => passage.text.length <= passageCharsMax));
});

test('the repository corpus reads README.md and every Markdown file under docs/', () => {
  const root = mkdtempSync(join(tmpdir(), 'support-corpus-'));
  try {
    writeFileSync(join(root, 'README.md'), '# Title\n\n## Start\n\nHello there.\n');
    mkdirSync(join(root, 'docs', 'skills', 'default'), { recursive: true });
    writeFileSync(join(root, 'docs', 'skills', 'default', 'SKILL.md'), guide);
    writeFileSync(join(root, 'docs', 'notes.txt'), 'not Markdown');
    const documents = new Set(repositoryPassages(root).map((passage) => passage.document));
    assert.deepEqual([...documents], ['README.md', 'docs/skills/default/SKILL.md']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('OpenAPI operations become one passage each, named by operationId', () => {
  const passages = openApiPassages({
    paths: {
      '/api/v1/exchange/{symbol}/scale': {
        post: {
          operationId: 'tp_clob_place_scale',
          summary: 'Place a scale order',
          tags: ['Exchange'],
          parameters: [{ name: 'symbol', in: 'path', required: true }],
          requestBody: { content: { 'application/json': { schema: { properties: { side: {}, count: {} }, required: ['side'] } } } },
          security: [{ bearer: [] }, { apiKey: [] }],
        },
      },
    },
  });
  assert.equal(passages.length, 1);
  assert.deepEqual(passages[0], {
    document: 'openapi:tp_clob_place_scale',
    section: 'Exchange > POST /api/v1/exchange/{symbol}/scale',
    title: 'tp clob place scale',
    text: 'POST /api/v1/exchange/{symbol}/scale: Place a scale order.\nParameters: symbol (path, required).\nBody fields: side (required), count.\nCredentials: bearer or apiKey.',
    code: false,
  });
});

test('terms: lower case, stop words out, a plural s cut, overlong tokens out', () => {
  assert.equal(processTerm('Orders'), 'order');
  assert.equal(processTerm('the'), null);
  assert.equal(processTerm('address'), 'address');
  assert.equal(processTerm('status'), 'status');
  assert.equal(processTerm('x'.repeat(41)), null);
  assert.deepEqual(termsOf('How do I place the scale orders, scale order?'), ['place', 'scale', 'order']);
});

test('retrieval: the right passage, half of the terms at least, bounded and cited answers, the same every time', () => {
  const index = new SupportIndex(numbered([...markdownPassages('docs/guide.md', guide), ...markdownPassages('README.md', `## Filler\n\n${'Unrelated prose about nothing. '.repeat(80)}\n`)]));
  const scale = index.answer('how do I place a scale order');
  assert.equal(scale.answered, true);
  assert.deepEqual(scale.citations[0] && { document: scale.citations[0].document, section: scale.citations[0].section }, { document: 'docs/guide.md', section: 'Orders > Scale orders' });
  assert.match(scale.text, /^A scale order places count limit orders between price_low and price_high\./);
  assert.ok(scale.citations.length <= answerPassagesMax);
  assert.deepEqual(index.answer('how do I place a scale order'), scale);
  const key = index.answer('how are API keys created');
  assert.equal(key.citations[0]?.section, 'Accounts');
  assert.match(key.text, /POST \/api\/v1\/api-keys/);
  // A typo still finds it (fuzzy), and a prefix does too.
  assert.equal(index.answer('scale ordres')?.citations[0]?.section, 'Orders > Scale orders');
  assert.equal(index.answer('secr')?.citations[0]?.section, 'Accounts');
  // One term of three is not enough.
  assert.equal(index.answer('scale weather tomorrow').answered, false);
  assert.equal(index.answer('the of and').answered, false, 'only stop words');
  const nothing = index.answer('weather in paris');
  assert.deepEqual([nothing.answered, nothing.citations], [false, []]);
  const long = index.answer('unrelated prose nothing');
  assert.ok(long.text.length <= answerCharsMax);
});
