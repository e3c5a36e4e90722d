/**
 * The probes against local fixture sites (OUTBOUND_ALLOW_PRIVATE's option): every probe found on a site
 * shaped like this platform, nothing but the home page on a plain one, and invalid, error, refused and
 * absent outcomes with their evidence on a mixed one; the size cap, an unreachable site (502) and a
 * refused address (422); and the readers of each document on their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { ApiError } from '../http/errors.ts';
import { initializeAnswer, outcomeOfStatus, probeNames, readLlmsTxt, readRobots, readSkill, runProbes, type ProbeOptions, type ProbeResult } from './probes.ts';
import { siteKit } from './test-site.ts';

const { agenticSite, legacySite, mixedSite, startSite } = siteKit(http.createServer);

const options: ProbeOptions = { timeoutMs: 5_000, bytesMax: 1024 * 1024, allowPrivate: true, concurrency: 3, deadlineMs: 20_000, clock: () => 0 };

function byName(results: readonly ProbeResult[]): Record<string, ProbeResult> {
  return Object.fromEntries(results.map((result) => [result.probe, result]));
}

test('a site shaped like this platform: every discovery document and the MCP server found, with their fields', async () => {
  const site = await agenticSite();
  try {
    const seen: string[] = [];
    const results = await runProbes(new URL(site.origin), options, (result) => seen.push(result.probe));
    assert.deepEqual(results.map((result) => result.probe), [...probeNames], 'results in the documented order');
    assert.equal(seen[0], 'home', 'the home page is probed first');
    assert.deepEqual([...seen].sort(), [...probeNames].sort(), 'one report per probe');
    const probes = byName(results);
    assert.equal(probes['home']!.outcome, 'absent');
    assert.equal(probes['home']!.evidence.status, 404);
    assert.equal(probes['llms_txt']!.outcome, 'found');
    assert.equal(probes['llms_txt']!.evidence.fields['title'], 'Fixture Trading Platform');
    assert.equal(probes['llms_txt']!.evidence.fields['links'], 4);
    assert.equal(probes['agent_card']!.outcome, 'found');
    assert.equal(probes['agent_card']!.evidence.fields['skills'], 2);
    assert.deepEqual(probes['agent_card']!.evidence.fields['interfaces'], [{ url: `${site.origin}/mcp/v1`, protocol: 'MCP' }]);
    assert.equal(probes['openapi']!.outcome, 'found');
    assert.equal(probes['openapi']!.url, `${site.origin}/openapi-public.json`);
    assert.equal(probes['openapi']!.evidence.fields['operations'], 120);
    assert.equal(probes['mcp']!.outcome, 'found');
    assert.equal(probes['mcp']!.url, `${site.origin}/mcp/v1`);
    assert.deepEqual(
      [probes['mcp']!.evidence.fields['protocol_version'], probes['mcp']!.evidence.fields['server_name'], probes['mcp']!.evidence.fields['transport'], probes['mcp']!.evidence.fields['session']],
      ['2025-06-18', 'fixture-trading-platform', 'sse', true],
    );
    assert.deepEqual(probes['mcp']!.evidence.fields['capabilities'], ['tools', 'resources', 'prompts']);
    assert.equal(probes['skill_md']!.outcome, 'found');
    assert.equal(probes['skill_md']!.evidence.fields['name'], 'fixture-trading-platform');
    assert.equal(probes['ai_plugin']!.outcome, 'absent');
    assert.equal(probes['robots']!.outcome, 'absent');
    assert.equal(probes['ai_endpoints']!.outcome, 'absent');
    // The initialize was a POST to /mcp first (404 there), then /mcp/v1 where it was found; /sse was not tried.
    assert.deepEqual(site.requests.filter((line) => line.startsWith('POST')), ['POST /mcp', 'POST /mcp/v1']);
  } finally {
    await site.close();
  }
});

test('a plain site: the home page found, every other probe absent', async () => {
  const site = await legacySite();
  try {
    const probes = byName(await runProbes(new URL(site.origin), options, () => {}));
    assert.equal(probes['home']!.outcome, 'found');
    assert.equal(probes['home']!.evidence.fields['title'], 'Bakery');
    assert.deepEqual(probes['home']!.evidence.fields['ai_terms'], []);
    for (const name of probeNames.filter((name) => name !== 'home')) assert.equal(probes[name]!.outcome, 'absent', name);
  } finally {
    await site.close();
  }
});

test('a mixed site: invalid documents, an error, a protected MCP endpoint, Swagger at its last location, robots rules, AI links', async () => {
  const site = await mixedSite();
  try {
    const probes = byName(await runProbes(new URL(site.origin), options, () => {}));
    const home = probes['home']!;
    assert.equal(home.outcome, 'found');
    assert.equal(home.evidence.fields['title'], 'Acme AI Assistant');
    assert.deepEqual(home.evidence.fields['json_ld_types'], ['SoftwareApplication'], 'a malformed JSON-LD block is skipped');
    assert.deepEqual(home.evidence.fields['ai_links'], [`${site.origin}/chat`, `${site.origin}/ai/ask`], 'links to other sites and to / are not AI endpoints of this site');
    assert.deepEqual(home.evidence.fields['api_docs_links'], [`${site.origin}/docs/api`]);
    assert.ok((home.evidence.fields['ai_terms'] as string[]).includes('AI') && (home.evidence.fields['ai_terms'] as string[]).includes('language model'));
    assert.equal(probes['llms_txt']!.outcome, 'invalid', 'an HTML page where llms.txt belongs');
    assert.equal(probes['agent_card']!.outcome, 'invalid');
    assert.deepEqual(probes['agent_card']!.evidence.fields['missing'], ['description', 'url or supportedInterfaces']);
    assert.equal(probes['ai_plugin']!.outcome, 'error');
    assert.equal(probes['ai_plugin']!.evidence.status, 500);
    assert.equal(probes['openapi']!.outcome, 'found');
    assert.equal(probes['openapi']!.url, `${site.origin}/swagger.json`);
    assert.deepEqual([probes['openapi']!.evidence.fields['version'], probes['openapi']!.evidence.fields['operations']], ['2.0', 3]);
    assert.deepEqual(
      (probes['openapi']!.evidence.fields['tried'] as Array<{ outcome: string }>).map((item) => item.outcome),
      ['invalid', 'absent', 'absent', 'found'],
    );
    assert.equal(probes['mcp']!.outcome, 'refused');
    assert.equal(probes['mcp']!.evidence.status, 401);
    assert.equal(probes['robots']!.outcome, 'found');
    assert.deepEqual(probes['robots']!.evidence.fields['ai_crawlers'], { GPTBot: 'disallowed', ClaudeBot: 'partial', PerplexityBot: 'partial' });
    assert.equal(probes['robots']!.evidence.fields['wildcard'], 'allowed');
    assert.equal(probes['skill_md']!.outcome, 'invalid');
    assert.equal(probes['ai_endpoints']!.outcome, 'found');
    assert.deepEqual(
      (probes['ai_endpoints']!.evidence.fields['tried'] as Array<{ outcome: string; status: number }>).map((item) => [item.outcome, item.status]),
      [['refused', 403], ['found', 200]],
    );
  } finally {
    await site.close();
  }
});

test('each probe reads at most the size cap: a larger document is an error outcome', async () => {
  const site = await agenticSite();
  try {
    const probes = byName(await runProbes(new URL(site.origin), { ...options, bytesMax: 1024 }, () => {}));
    assert.equal(probes['openapi']!.outcome, 'error');
    assert.match(probes['openapi']!.evidence.excerpt ?? '', /larger than 1024 bytes/);
    assert.equal(probes['llms_txt']!.outcome, 'found', 'smaller documents still pass');
  } finally {
    await site.close();
  }
});

test('the assessment\'s deadline ends the probes still running with error; the others keep their outcomes', async () => {
  const site = await startSite({
    '/': { status: 200, type: 'text/html', body: '<title>Hanging</title>' },
    '/llms.txt': () => new Promise(() => {}),
    '/robots.txt': { status: 200, type: 'text/plain', body: 'User-agent: GPTBot\nAllow: /\n' },
  });
  try {
    const probes = byName(await runProbes(new URL(site.origin), { ...options, deadlineMs: 3_000 }, () => {}));
    assert.equal(probes['home']!.outcome, 'found');
    assert.equal(probes['robots']!.outcome, 'found');
    assert.equal(probes['llms_txt']!.outcome, 'error');
    assert.match(probes['llms_txt']!.evidence.excerpt ?? '', /deadline of 3000 ms passed/);
  } finally {
    await site.close();
  }
});

test('an unreachable site stops at the home page (502 SITE_UNREACHABLE); a private address is refused (422 WEBSITE_NOT_PUBLIC)', async () => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const seen: string[] = [];
  await assert.rejects(runProbes(new URL(`http://127.0.0.1:${port}`), options, (result) => seen.push(result.probe)), (error: unknown) => error instanceof ApiError && error.status === 502 && error.code === 'SITE_UNREACHABLE');
  assert.deepEqual(seen, [], 'no probe is reported');
  await assert.rejects(runProbes(new URL(`http://127.0.0.1:${port}`), { ...options, allowPrivate: false }, () => {}), (error: unknown) => error instanceof ApiError && error.status === 422 && error.code === 'WEBSITE_NOT_PUBLIC');
});

test('the readers: llms.txt, robots.txt, SKILL.md front matter, initialize answers in JSON and SSE, statuses', () => {
  assert.deepEqual(readLlmsTxt('# Site\n\n> Summary\n\n## Docs\n\n- [A](https://a.example/a)\n'), { valid: true, fields: { title: 'Site', summary: 'Summary', links: 1, sections: 1 } });
  assert.equal(readLlmsTxt('Site\n- [A](https://a.example/a)').valid, false, 'no H1 first');
  assert.equal(readLlmsTxt('# Site\nno links').valid, false, 'no link');
  assert.deepEqual(readRobots('User-agent: *\nDisallow: /\n').fields, { groups: 1, ai_crawlers: {}, wildcard: 'disallowed' });
  assert.deepEqual(readRobots('# none\n').fields, { groups: 0, ai_crawlers: {}, wildcard: 'none' });
  assert.deepEqual(readRobots('user-agent: google-extended\ndisallow:\n').fields['ai_crawlers'], { 'Google-Extended': 'allowed' });
  assert.deepEqual(readSkill('---\nname: x-skill\ndescription: "Does x."\n---\n# X\n'), { valid: true, fields: { name: 'x-skill', description: 'Does x.', missing: [] } });
  assert.deepEqual(readSkill('---\nname: x-skill\n---\n').fields['missing'], ['description']);
  const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } };
  assert.deepEqual(initializeAnswer('application/json', JSON.stringify({ jsonrpc: '2.0', id: 1, result })), result);
  assert.deepEqual(initializeAnswer('text/event-stream', `: ping\n\nevent: message\nid: 7\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`), result);
  assert.equal(initializeAnswer('application/json', JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } })), null);
  assert.equal(initializeAnswer('text/html', '<html></html>'), null);
  assert.deepEqual([404, 405, 410, 401, 403, 500, 429].map(outcomeOfStatus), ['absent', 'absent', 'absent', 'refused', 'refused', 'error', 'error']);
});
