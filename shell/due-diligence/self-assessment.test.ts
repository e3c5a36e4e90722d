/**
 * The assessor run against this platform's own started server (OUTBOUND_ALLOW_PRIVATE=1, so it may probe
 * 127.0.0.1): it must find the platform's llms.txt, agent card, OpenAPI document (/openapi-public.json),
 * SKILL.md and MCP server (/mcp/v1), and classify it at least ai_native. On the same server, the keyed
 * quota: a user with an API key (or a bearer session) counts per user, apart from the address's anonymous
 * quota, and gets 429 with the rate headers past it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { base } from './routes.ts';
import { siteKit } from './test-site.ts';

const { legacySite } = siteKit(http.createServer);


test('this platform assessed by its own assessor: llms.txt, agent card, OpenAPI, SKILL.md and MCP found, at least ai_native; the keyed quota per user', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dd-self-'));
  const now = Date.UTC(2026, 10, 22, 12, 0, 30);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, OUTBOUND_ALLOW_PRIVATE: '1', DD_KEYED_PER_HOUR: '3' }), silentLog, () => now);
  const site = await legacySite();
  try {
    const origin = `http://127.0.0.1:${server.port}`;
    const self = await call(server, 'GET', `${base}?website=${encodeURIComponent(origin)}`);
    assert.equal(self.status, 200, JSON.stringify(self.json));
    const probes = Object.fromEntries((self.json['probes'] as Array<{ probe: string; outcome: string; url: string; evidence: any }>).map((probe) => [probe.probe, probe]));
    assert.equal(probes['llms_txt']!.outcome, 'found');
    assert.equal(probes['agent_card']!.outcome, 'found');
    assert.ok(probes['agent_card']!.evidence.fields.interfaces.some((item: { url: string; protocol: string }) => item.url === `${origin}/mcp/v1` && item.protocol === 'MCP'), 'the card names the MCP endpoint');
    assert.equal(probes['openapi']!.outcome, 'found');
    assert.equal(probes['openapi']!.url, `${origin}/openapi-public.json`);
    assert.ok(probes['openapi']!.evidence.fields.operations >= 100, 'the whole public API is described');
    assert.equal(probes['skill_md']!.outcome, 'found');
    assert.equal(probes['mcp']!.outcome, 'found');
    assert.equal(probes['mcp']!.url, `${origin}/mcp/v1`);
    assert.ok(['ai_native', 'fully_agentic'].includes(self.json['classification']), `classified ${self.json['classification']} with ${self.json['score']}`);
    assert.equal(self.headers.get('x-ratelimit-remaining'), '4', 'anonymous: counted against the address');

    // With an API key: the user's quota (3 here), not the address's.
    const registered = await call(server, 'POST', '/auth/register', { email: 'dd@example.com', password: 'correct horse', username: 'dd_one' });
    const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
    const created = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'dd', permissions: ['read'] }, bearer);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const key = { 'x-api-key': created.json['api_key'] as string };
    const url = `${base}?website=${encodeURIComponent(site.origin)}`;
    const keyed = await call(server, 'GET', url, undefined, key);
    assert.deepEqual([keyed.status, keyed.headers.get('x-ratelimit-limit'), keyed.headers.get('x-ratelimit-remaining')], [200, '3', '2']);
    assert.equal((await call(server, 'GET', url, undefined, key)).json['cached'], true, 'a cache hit');
    assert.equal((await call(server, 'GET', `${url}&fresh=1`, undefined, key)).headers.get('x-ratelimit-remaining'), '1');
    assert.equal((await call(server, 'POST', base, { website: site.origin, fresh: true }, bearer)).headers.get('x-ratelimit-remaining'), '0', 'a bearer session is the same user');
    const limited = await call(server, 'GET', `${url}&fresh=1`, undefined, key);
    assert.equal(limited.status, 429);
    assert.equal(limited.json['error']['code'], 'RATE_LIMITED');
    assert.deepEqual([limited.headers.get('x-ratelimit-limit'), limited.headers.get('x-ratelimit-remaining')], ['3', '0']);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await call(server, 'GET', url, undefined, key)).status, 200, 'cache hits still answer');
    // The address's anonymous quota is its own: one used by the self-assessment.
    const anonymous = await call(server, 'GET', `${url}&fresh=1`);
    assert.deepEqual([anonymous.status, anonymous.headers.get('x-ratelimit-limit'), anonymous.headers.get('x-ratelimit-remaining')], [200, '5', '3']);
    // A bad key is refused, never served anonymously.
    assert.equal((await call(server, 'GET', url, undefined, { 'x-api-key': 'tpk_wrong' })).status, 401);
  } finally {
    await server.close();
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
