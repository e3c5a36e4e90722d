/** API keys end to end: create, list masked, use with rate-limit headers, limits, permissions, revoke, one-call flow. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';


test('API keys: shown once, listed masked, rate limited by tier, revocable; the one-call flow', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'keys-'));
  // A fixed clock keeps every request in one rate-limit window.
  const now = Date.UTC(2026, 10, 22, 12, 0, 30);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin-secret' }), silentLog, () => now);
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'mm@example.com', password: 'correct horse', username: 'mm_one' });
    assert.equal(registered.status, 201);
    const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
    const created = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'bot', permissions: ['read'] }, bearer);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const apiKey: string = created.json['api_key'];
    assert.match(apiKey, /^tpk_[A-Za-z0-9_-]{43}$/);
    assert.match(created.json['api_secret'], /^tps_/);
    assert.deepEqual(created.json['permissions'], ['read']);
    assert.equal(created.json['tier'], 'STANDARD');

    const listed = await call(server, 'GET', '/api/v1/api-keys', undefined, bearer);
    const [only] = listed.json['api_keys'] as Array<Record<string, unknown>>;
    assert.equal(only!['api_key'], `${apiKey.slice(0, 8)}…${apiKey.slice(-4)}`);
    assert.ok(!JSON.stringify(listed.json).includes(apiKey), 'the plaintext is never listed');

    // STANDARD: 100 general requests per minute, with the headers on every keyed response.
    for (let index = 1; index <= 100; index++) {
      const response = await call(server, 'GET', '/api/v1/account/me/balances', undefined, { 'x-api-key': apiKey });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-ratelimit-limit'), '100');
      assert.equal(response.headers.get('x-ratelimit-remaining'), String(100 - index));
      assert.equal(response.headers.get('x-ratelimit-reset'), String(Date.UTC(2026, 10, 22, 12, 1, 0) / 1000));
    }
    const limited = await call(server, 'GET', '/api/v1/account/me/balances', undefined, { 'x-api-key': apiKey });
    assert.equal(limited.status, 429);
    assert.equal(limited.json['error'].code, 'RATE_LIMITED');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');

    // An administrator raises the tier: the new limit applies at once, in the same window.
    const keyPath = `/admin/v1/api-keys/${created.json['api_key_id']}`;
    const admin = { 'x-api-key': 'admin-secret' };
    assert.equal((await call(server, 'PATCH', keyPath, { tier: 'PLATINUM' }, admin)).status, 422);
    assert.equal((await call(server, 'PATCH', keyPath, { tier: 'MARKET_MAKER' }, { 'x-api-key': apiKey })).status, 403);
    assert.equal((await call(server, 'PATCH', '/admin/v1/api-keys/99999', { tier: 'PREMIUM' }, admin)).status, 404);
    const raised = await call(server, 'PATCH', keyPath, { tier: 'MARKET_MAKER' }, admin);
    assert.equal(raised.status, 200, JSON.stringify(raised.json));
    assert.equal(raised.json['tier'], 'MARKET_MAKER');
    const afterRaise = await call(server, 'GET', '/api/v1/account/me/balances', undefined, { 'x-api-key': apiKey });
    assert.equal(afterRaise.status, 200);
    assert.equal(afterRaise.headers.get('x-ratelimit-limit'), '10000');
    assert.equal(afterRaise.headers.get('x-ratelimit-remaining'), String(10_000 - 101));

    const renamed = await call(server, 'PATCH', `/api/v1/api-keys/${created.json['api_key_id']}`, { key_name: 'renamed', permissions: ['read', 'trade'] }, bearer);
    assert.deepEqual([renamed.json['key_name'], renamed.json['permissions']], ['renamed', ['read', 'trade']]);
    assert.equal((await call(server, 'DELETE', `/api/v1/api-keys/${created.json['api_key_id']}`, undefined, bearer)).status, 200);
    assert.equal((await call(server, 'DELETE', `/api/v1/api-keys/${created.json['api_key_id']}`, undefined, bearer)).status, 404);
    const revoked = await call(server, 'GET', '/api/v1/account/me/balances', undefined, { 'x-api-key': apiKey });
    assert.equal(revoked.json['error'].code, 'INVALID_API_KEY');

    const oneCall = await call(server, 'POST', '/auth/api-key', { email: 'mm@example.com', password: 'correct horse', key_name: 'one-call' });
    assert.equal(oneCall.status, 201);
    assert.match(oneCall.json['api_key'], /^tpk_/);
    assert.equal(typeof oneCall.json['access_token'], 'string');
    assert.equal(typeof oneCall.json['refresh_token'], 'string');
    const twoCall = await call(server, 'POST', '/auth/api-key', { key_name: 'two-call' }, bearer);
    assert.equal(twoCall.status, 201);
    assert.equal(twoCall.json['access_token'], undefined);
    assert.equal((await call(server, 'POST', '/auth/api-key', { key_name: 'x', email: 'mm@example.com', password: 'nope nope' })).status, 401);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
