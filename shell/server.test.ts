/**
 * The real uWebSockets.js server on an ephemeral port: public reads, the error shapes (404, 405, 400,
 * 413, 422, 401/403), a journaled admin credit that survives a restart, and no 500 for bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.ts';
import { silentLog } from './log.ts';
import { startServer, type RunningServer } from './server.ts';
import { call } from './http/test-client.ts';

async function start(dataDir: string): Promise<RunningServer> {
  return startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'test-admin-key', BODY_BYTES_MAX: '2048' }), silentLog);
}


function errorCode(json: unknown): string {
  return (json as { error: { code: string } }).error.code;
}

test('the shell serves the route table with the API error shapes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shell-'));
  let server = await start(dataDir);
  try {
    const pairs = await call(server, 'GET', '/api/v1/exchange/pairs');
    assert.equal(pairs.status, 200);
    const list = (pairs.json as { pairs: Array<{ slug: string; tick_size: string; taker_fee_bps: number }> }).pairs;
    assert.deepEqual(list.map((pair) => pair.slug), ['eth', 'btc', 'sol', 'doge', 'plat', 'pred']);
    assert.equal(list[0]!.tick_size, '0.01');
    assert.equal(list[0]!.taker_fee_bps, 10);

    const time = await call(server, 'GET', '/api/v1/exchange/time');
    assert.match((time.json as { server_time: string }).server_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const bbo = await call(server, 'GET', '/api/v1/exchange/Eth/bbo');
    assert.deepEqual(bbo.json, { symbol: 'ETH', pair: 'ETH/USDC', best_bid: null, best_ask: null, spread: null, clob_best_bid: null, clob_best_ask: null, clob_spread: null });

    assert.deepEqual([(await call(server, 'GET', '/api/v1/exchange/xyz/bbo')).status], [404]);
    const notFound = await call(server, 'GET', '/nowhere');
    assert.equal(notFound.status, 404);
    assert.equal(errorCode(notFound.json), 'NOT_FOUND');
    const wrongMethod = await call(server, 'DELETE', '/api/v1/exchange/pairs');
    assert.equal(wrongMethod.status, 405);
    assert.equal(errorCode(wrongMethod.json), 'METHOD_NOT_ALLOWED');

    const admin = { 'x-api-key': 'test-admin-key', 'content-type': 'application/json' };
    const credit = await call(server, 'POST', '/admin/v1/credit', JSON.stringify({ user_id: 7, asset: 'usdc', amount: '1500.25' }), admin);
    assert.equal(credit.status, 200);
    // The seq follows whatever the price oracle journaled first (its histories at the first start).
    const { seq, ...credited } = credit.json;
    assert.ok(Number.isSafeInteger(seq) && seq >= 1);
    assert.deepEqual(credited, { user_id: 7, asset: 'USDC', amount: '1500.250000', available: '1500.250000' });

    const stats = await call(server, 'GET', '/admin/v1/stats', undefined, admin);
    assert.equal(stats.status, 200);
    const lastSeq = stats.json['last_seq'];
    assert.ok(lastSeq >= seq);
    assert.deepEqual([stats.json['durable_seq'], stats.json['durable_commands']], [lastSeq, lastSeq]);
    assert.ok(stats.json['durable_batches'] >= 1 && stats.json['durable_batches'] <= lastSeq);
    assert.equal(stats.json['stream_connections'], 0);
    assert.equal((await call(server, 'GET', '/admin/v1/stats', undefined, { 'x-api-key': 'nope' })).status, 403);

    const malformed = await call(server, 'POST', '/admin/v1/credit', '{"user_id": 7,', admin);
    assert.equal(malformed.status, 400);
    assert.equal(errorCode(malformed.json), 'MALFORMED_JSON');
    const invalid = await call(server, 'POST', '/admin/v1/credit', JSON.stringify({ user_id: 7, asset: 'USDC' }), admin);
    assert.equal(invalid.status, 422);
    assert.match((invalid.json as { error: { message: string } }).error.message, /body\.amount: must have required property/);
    const offGrid = await call(server, 'POST', '/admin/v1/credit', JSON.stringify({ user_id: 7, asset: 'USDC', amount: '0.0000001' }), admin);
    assert.equal(offGrid.status, 422);
    assert.equal(errorCode(offGrid.json), 'TOO_MANY_DECIMALS');
    const huge = await call(server, 'POST', '/admin/v1/credit', JSON.stringify({ user_id: 7, asset: 'USDC', amount: '1'.repeat(30) + 'x'.repeat(3000) }), admin);
    assert.equal(huge.status, 413);
    const noKey = await call(server, 'POST', '/admin/v1/credit', JSON.stringify({ user_id: 7, asset: 'USDC', amount: '1' }), { 'content-type': 'application/json' });
    assert.equal(noKey.status, 401);
    const wrongKey = await call(server, 'POST', '/admin/v1/credit', JSON.stringify({ user_id: 7, asset: 'USDC', amount: '1' }), { 'x-api-key': 'nope' });
    assert.equal(wrongKey.status, 403);

    // The credit was journaled: a restart recovers it.
    await server.close();
    server = await start(dataDir);
    const ledger = server.context.durable.engine.ledger;
    assert.equal(ledger.availableAtoms(ledger.find(7, 0), 0), 1_500_250_000);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
