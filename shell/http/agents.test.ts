/** Agent self-registration: an mcp_ key that trades at its registered rate. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';

test('an agent registers, gets an mcp_ key limited to 60 requests per minute, and can use it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agents-'));
  const now = Date.UTC(2026, 10, 22, 12, 0, 5);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog, () => now);
  try {
    const registered = await call(server, 'POST', '/mcp/v1/register', {
      name: 'Research agent',
      contact_email: 'ops@agent.example',
      intended_use: 'market making on ETH/USDC in paper mode',
      capabilities: ['trading', 'analysis'],
    });
    assert.equal(registered.status, 201);
    assert.match(registered.json['api_key'], /^mcp_/);
    assert.equal(registered.json['trust_level'], 'recognized');
    assert.deepEqual(registered.json['rate_limits'], { requests_per_minute: 60 });
    assert.match(registered.json['onboarding_url'], /^http:\/\/127\.0\.0\.1:\d+\/llms\.txt$/);
    assert.match(registered.json['agent_id'], /^[0-9a-f-]{36}$/);

    const key = { 'x-api-key': registered.json['api_key'] };
    const first = await call(server, 'GET', '/api/v1/account/me/balances', undefined, key);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-ratelimit-limit'), '60');
    const order = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '3000' }, key);
    assert.equal(order.json['error'].code, 'INSUFFICIENT_BALANCE', 'the key may trade; the new account has no funds');
    assert.equal((await call(server, 'POST', '/mcp/v1/register', { name: 'x', contact_email: 'not-an-email', intended_use: 'y' })).status, 422);
    assert.equal((await call(server, 'POST', '/mcp/v1/register', { name: 'x', contact_email: 'a@b.c' })).status, 422);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
