/**
 * The rubric: band edges of the classification, each rule's points from the evidence that triggers it,
 * the cap of 10 per dimension, the findings listed per dimension, the three fixture sites' scores, and
 * README's rubric table matching the rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { probeLabels, probeNames, runProbes, type ProbeName, type ProbeOutcome, type ProbeResult } from './probes.ts';
import { classifications, classify, dimensionKeys, dimensionLabels, rules, scoreProbes } from './rubric.ts';
import { siteKit } from './test-site.ts';

const { agenticSite, legacySite, mixedSite } = siteKit(http.createServer);

function probe(name: ProbeName, outcome: ProbeOutcome, fields: Record<string, unknown> = {}): ProbeResult {
  return { probe: name, label: probeLabels[name], url: `https://site.example/${name}`, outcome, evidence: { status: outcome === 'found' ? 200 : 404, content_type: null, excerpt: null, fields }, duration_ms: 0 };
}

/** Every probe absent but those given. */
function results(...given: ProbeResult[]): ProbeResult[] {
  return probeNames.map((name) => given.find((result) => result.probe === name) ?? probe(name, 'absent'));
}

test('classification bands: each edge on the right side, totals outside 0..40 refused', () => {
  const edges: Array<[number, string]> = [
    [0, 'legacy'],
    [5, 'legacy'],
    [6, 'ai_assisted'],
    [13, 'ai_assisted'],
    [14, 'ai_integrated'],
    [21, 'ai_integrated'],
    [22, 'ai_native'],
    [29, 'ai_native'],
    [30, 'fully_agentic'],
    [40, 'fully_agentic'],
  ];
  for (const [total, expected] of edges) assert.equal(classify(total), expected, String(total));
  for (const band of classifications) assert.equal(classify(band.min), band.classification);
  for (const bad of [-1, 41, 2.5]) assert.throws(() => classify(bad), RangeError);
});

test('rules: each gives its points once, only for its evidence; a dimension is capped at 10 and lists its findings', () => {
  assert.deepEqual(scoreProbes(results()).dimensions.map((dimension) => dimension.score), [0, 0, 0, 0], 'nothing found, nothing scored');
  assert.equal(scoreProbes(results()).classification, 'legacy');

  const mcp = scoreProbes(results(probe('mcp', 'found', { capabilities: ['tools'] })));
  assert.deepEqual(mcp.dimensions[0]!.findings.map((finding) => [finding.rule, finding.points]), [['mcp_live', 6], ['mcp_tools', 1]]);
  assert.deepEqual(mcp.dimensions[2]!.findings.map((finding) => [finding.rule, finding.points]), [['mcp_interop', 2]]);
  assert.equal(mcp.score, 9);
  const protectedMcp = scoreProbes(results(probe('mcp', 'refused')));
  assert.deepEqual(protectedMcp.dimensions.map((dimension) => dimension.score), [3, 0, 1, 0]);

  const small = scoreProbes(results(probe('openapi', 'found', { operations: 19 })));
  assert.equal(small.dimensions[1]!.score, 4);
  const twenty = scoreProbes(results(probe('openapi', 'found', { operations: 20 })));
  assert.equal(twenty.dimensions[1]!.score, 6);
  const hundred = scoreProbes(results(probe('openapi', 'found', { operations: 100 })));
  assert.equal(hundred.dimensions[1]!.score, 7);
  assert.equal(scoreProbes(results(probe('openapi', 'invalid', { operations: 500 }))).score, 0, 'an invalid document scores nothing');

  // Infrastructure: 7 (OpenAPI) + 3 (llms.txt) + 1 (JSON-LD) + 1 (API docs) = 12, capped at 10.
  const deep = scoreProbes(
    results(
      probe('openapi', 'found', { operations: 150 }),
      probe('llms_txt', 'found', { summary: 'S', sections: 2 }),
      probe('home', 'found', { json_ld_types: ['Organization'], api_docs_links: ['https://site.example/docs'], ai_links: [], ai_terms: ['AI'] }),
    ),
  );
  const infrastructure = deep.dimensions.find((dimension) => dimension.key === 'ai_infrastructure_depth')!;
  assert.equal(infrastructure.points_uncapped, 12);
  assert.equal(infrastructure.score, 10);
  assert.deepEqual(infrastructure.findings.map((finding) => finding.rule), ['openapi', 'openapi_20', 'openapi_100', 'llms_txt', 'llms_summary', 'json_ld', 'api_docs_link']);
  assert.equal(deep.dimensions.find((dimension) => dimension.key === 'self_referential_ai')!.score, 2, 'llms.txt only: one AI term is not two');

  const robots = (ai_crawlers: Record<string, string>) => scoreProbes(results(probe('robots', 'found', { ai_crawlers, wildcard: 'allowed' }))).dimensions[3]!.score;
  assert.equal(robots({}), 0, 'no AI crawler named');
  assert.equal(robots({ GPTBot: 'allowed', ClaudeBot: 'partial' }), 3);
  assert.equal(robots({ GPTBot: 'disallowed', ClaudeBot: 'allowed' }), 2, 'naming AI crawlers counts, shutting one out loses the allowance point');

  const card = scoreProbes(results(probe('agent_card', 'found', { skills: 2, security_schemes: ['apiKey'], interfaces: [{ url: 'https://site.example/mcp', protocol: 'MCP' }] })));
  assert.deepEqual(card.dimensions.map((dimension) => dimension.score), [0, 0, 6, 1]);
  const bareCard = scoreProbes(results(probe('agent_card', 'found', { skills: 0, security_schemes: [], interfaces: [{ url: 'https://site.example/a2a', protocol: '' }] })));
  assert.deepEqual(bareCard.dimensions.map((dimension) => dimension.score), [0, 0, 3, 1]);

  // Every finding of a full house, and the total capped per dimension.
  const full = scoreProbes(
    results(
      probe('home', 'found', { json_ld_types: ['Organization'], api_docs_links: ['x'], ai_links: ['y'], ai_terms: ['AI', 'agent'] }),
      probe('llms_txt', 'found', { summary: 'S', sections: 1 }),
      probe('agent_card', 'found', { skills: 1, security_schemes: ['k'], interfaces: [{ url: 'u', protocol: 'MCP' }] }),
      probe('ai_plugin', 'found'),
      probe('openapi', 'found', { operations: 100 }),
      probe('mcp', 'found', { capabilities: ['tools'] }),
      probe('robots', 'found', { ai_crawlers: { GPTBot: 'allowed' } }),
      probe('skill_md', 'found'),
      probe('ai_endpoints', 'found'),
    ),
  );
  assert.deepEqual(full.dimensions.map((dimension) => dimension.score), [10, 10, 10, 10]);
  assert.equal(full.score, 40);
  assert.equal(full.classification, 'fully_agentic');
  assert.deepEqual(full.dimensions.map((dimension) => dimension.label), dimensionKeys.map((key) => dimensionLabels[key]));
});

test('the fixture sites: a platform-shaped site is at least ai_native, a plain one legacy, the mixed one in between', async () => {
  const options = { timeoutMs: 5_000, bytesMax: 1024 * 1024, allowPrivate: true, concurrency: 4, deadlineMs: 20_000, clock: () => 0 };
  const sites = [await agenticSite(), await legacySite(), await mixedSite()];
  try {
    const [agentic, legacy, mixed] = await Promise.all(sites.map(async (site) => scoreProbes(await runProbes(new URL(site.origin), options, () => {}))));
    // MCP 6+1, infrastructure 4+2+1+2+1, interoperability 3+1+1+1+2+2, self-reference 2+1+1.
    assert.deepEqual(agentic!.dimensions.map((dimension) => dimension.score), [7, 10, 10, 4]);
    assert.equal(agentic!.score, 31);
    assert.ok(['ai_native', 'fully_agentic'].includes(agentic!.classification));
    assert.equal(legacy!.score, 0);
    assert.equal(legacy!.classification, 'legacy');
    // Protected MCP 3 + AI endpoint 3; Swagger 4 + JSON-LD 1 + API docs 1; protected MCP 1; robots named 2 + AI terms 2 + AI links 1.
    assert.deepEqual(mixed!.dimensions.map((dimension) => dimension.score), [6, 6, 1, 5]);
    assert.equal(mixed!.classification, 'ai_integrated');
  } finally {
    for (const site of sites) await site.close();
  }
});

test('README\'s rubric table lists every rule with its dimension, probe and points', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('**Rubric**', readme.indexOf('### AI due diligence')));
  assert.ok(readme.includes('### AI due diligence') && section.startsWith('**Rubric**'));
  for (const rule of rules) {
    const row = section.split('\n').find((line) => line.startsWith(`| \`${rule.id}\` |`));
    assert.ok(row !== undefined, `README has a row for ${rule.id}`);
    assert.ok(row.includes(`| ${dimensionLabels[rule.dimension]} |`) && row.includes(`| \`${rule.probe}\` |`) && row.includes(`| ${rule.points} |`), `${rule.id}: ${row}`);
  }
});
