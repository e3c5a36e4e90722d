/**
 * Identification by each rule (JSON-LD Person, og:title, <title>, a sentence of the text) and its refusal,
 * and the keyword rubric: an anchor counts once, a dimension caps at 20, the evidence is the matched
 * sentences, and the confidence rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { identify, pageText } from './extract.ts';
import { anchors, confidenceHundredths, evidenceOf, scoreSentences, sectorOf } from './rubric.ts';

const filler = '<p>The company was started in a small office and grew over many years with a steady team of people who cared about their work.</p>';

function page(head: string, body: string): string {
  return `<!doctype html><html><head>${head}</head><body><article>${body}${filler}</article></body></html>`;
}

test('a JSON-LD Person with an executive jobTitle identifies the person first', () => {
  const html = page(
    '<title>Home</title><script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"x"},{"@type":"Person","name":"Ada Q. Byron","jobTitle":"Chief Executive Officer","worksFor":{"@type":"Organization","name":"Fictional Engines"}}]}</script>',
    '<p>Welcome to the page.</p>',
  );
  assert.deepEqual(identify(pageText(html, 'http://x/')), { name: 'Ada Q. Byron', title: 'Chief Executive Officer', company: 'Fictional Engines', identifiedBy: 'json_ld' });
});

test('og:title and <title> written as "Name - Role at Company" identify the person', () => {
  const og = page('<meta property="og:title" content="Rowan Vale - CEO at Fictional Orbit"><title>Profile</title>', '<p>About.</p>');
  assert.deepEqual(identify(pageText(og, 'http://x/')), { name: 'Rowan Vale', title: 'CEO', company: 'Fictional Orbit', identifiedBy: 'og_title' });
  const title = page('<title>Dr. Sana Iqbal | Founder and CEO of Fictional Fields</title>', '<p>About.</p>');
  assert.deepEqual(identify(pageText(title, 'http://x/')), { name: 'Sana Iqbal', title: 'Founder and CEO', company: 'Fictional Fields', identifiedBy: 'title' });
});

test('a sentence "Name is the Role of Company" identifies the person when the metadata does not', () => {
  const html = page('<title>Team</title>', '<p>Our team page. Milo Fenwick is the chief executive officer of Fictional Tide. He joined in 2019.</p>');
  const identity = identify(pageText(html, 'http://x/'));
  assert.equal(identity?.name, 'Milo Fenwick');
  assert.equal(identity?.title, 'chief executive officer');
  assert.equal(identity?.company, 'Fictional Tide');
  assert.equal(identity?.identifiedBy, 'text');
});

test('a page with no name and role identifies nobody', () => {
  const html = page('<title>Weather today</title><meta property="og:title" content="Sunny with clouds">', '<p>It will be sunny with a light breeze in the afternoon.</p>');
  assert.equal(identify(pageText(html, 'http://x/')), null);
  const nameOnly = page('<title>Milo Fenwick</title>', '<p>Milo Fenwick likes sailing.</p>');
  assert.equal(identify(pageText(nameOnly, 'http://x/')), null);
});

test('the rubric: an anchor counts once per page, a dimension caps at 20, evidence is the matched sentences', () => {
  const sentences = [
    'She wrote papers on transformers and transformers again.',
    'Her team built a language model with self-attention and a new tokenizer.',
    'They did pre-training and pretraining and fine-tuning of the attention mechanisms.',
    'Nothing here matches.',
  ];
  const result = scoreSentences(sentences);
  // transformer* 6 + language model* 6 + self-attention 6 + tokeni* 3 + pre-training 4 + pretraining 4 + fine-tun* 4 + attention mechanism* 5 = 38 -> 20.
  assert.equal(result.dimensions.transformers_lm, 20);
  assert.equal(result.dimensions.foundations, 0);
  assert.equal(result.matches.filter((match) => match.phrase === 'transformer*').length, 1);
  const evidence = evidenceOf(result.matches, 'http://x/p', '2026-01-01T00:00:00.000Z');
  assert.ok(evidence.length <= 3, 'at most three sentences per dimension');
  assert.equal(evidence[0]!.claim, sentences[0]);
  assert.equal(evidence[0]!.source_url, 'http://x/p');
  assert.equal(evidence[0]!.verified, true);
  assert.ok(!evidence.some((entry) => entry.claim === 'Nothing here matches.'));
  for (const list of Object.values(anchors)) for (const anchor of list) assert.ok(anchor.points > 0 && anchor.points <= 20 && anchor.phrase === anchor.phrase.toLowerCase());
});

test('anchors match on word boundaries only', () => {
  assert.equal(scoreSentences(['A rag doll and a cudahy street.']).matches.length, 0);
  assert.equal(scoreSentences(['Uses CUDA kernels.']).dimensions.hands_on_engineering, 5);
});

test('the confidence rule and the sector rule', () => {
  const identity = { name: 'A B', title: 'CEO', company: 'C', identifiedBy: 'json_ld' as const };
  assert.equal(confidenceHundredths({ ...identity, company: '', identifiedBy: 'text' }, [], 100), 20);
  assert.equal(confidenceHundredths(identity, [], 100), 40);
  const eleven = Array.from({ length: 11 }, () => ({ dimension: 'foundations' as const, phrase: 'x', points: 1, sentence: 's' }));
  assert.equal(confidenceHundredths(identity, eleven, 2000), 90);
  assert.equal(sectorOf('crypto blockchain and bitcoin'), 'crypto');
  assert.equal(sectorOf('a crypto mention and a blockchain'), 'general');
});
