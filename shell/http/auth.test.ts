/** Registration, login, bearer access to balances and rotating refresh tokens, against the real server. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';


test('register, log in, read balances with a bearer token, and rotate refresh tokens', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-'));
  let server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_API_KEY: 'k' }), silentLog);
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'mm@example.com', password: 'correct horse', username: 'mm_one' });
    assert.equal(registered.status, 201);
    assert.equal(typeof registered.json['access_token'], 'string');
    assert.match(registered.json['refresh_token'], /^rt_/);
    assert.equal(registered.json['user_id'], 1);

    assert.equal((await call(server, 'POST', '/auth/register', { email: 'MM@example.com', password: 'another one', username: 'other' })).json['error'].code, 'EMAIL_TAKEN');
    assert.equal((await call(server, 'POST', '/auth/register', { email: 'x@example.com', password: 'another one', username: 'MM_ONE' })).status, 409);
    const short = await call(server, 'POST', '/auth/register', { email: 'y@example.com', password: 'short', username: 'yy' });
    assert.equal(short.status, 422);
    assert.match(short.json['error'].message, /body\.password/);

    assert.equal((await call(server, 'POST', '/auth/login', { email: 'mm@example.com', password: 'wrong password' })).status, 401);
    assert.equal((await call(server, 'POST', '/auth/login', { email: 'nobody@example.com', password: 'wrong password' })).json['error'].code, 'INVALID_CREDENTIALS');
    const login = await call(server, 'POST', '/auth/login', { email: 'Mm@Example.com', password: 'correct horse' });
    assert.equal(login.status, 200);
    const bearer = { authorization: `Bearer ${login.json['access_token']}` };

    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: 1, asset: 'ETH', amount: 2.5 }, { 'x-api-key': 'k' })).status, 200);
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, bearer);
    assert.equal(balances.status, 200);
    const eth = (balances.json['balances'] as Array<Record<string, string>>).find((row) => row['asset'] === 'ETH');
    assert.deepEqual(eth, { asset: 'ETH', available: '2.50000000', held: '0.00000000', total: '2.50000000' });
    const paper = await call(server, 'GET', '/api/v1/account/me/balances?mode=paper', undefined, bearer);
    assert.equal(paper.json['mode'], 'paper');
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances?mode=demo', undefined, bearer)).status, 422);
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances')).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances', undefined, { authorization: 'Bearer not.a.jwt' })).json['error'].code, 'INVALID_TOKEN');

    // Refresh rotates; the old token then counts as stolen and takes the new one down with it.
    const first = login.json['refresh_token'];
    const rotated = await call(server, 'POST', '/auth/refresh', { refresh_token: first });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.json['refresh_token'], first);
    const reused = await call(server, 'POST', '/auth/refresh', { refresh_token: first });
    assert.equal(reused.json['error'].code, 'REFRESH_TOKEN_REUSED');
    assert.equal((await call(server, 'POST', '/auth/refresh', { refresh_token: rotated.json['refresh_token'] })).status, 401);
    // The registration's own family is untouched.
    assert.equal((await call(server, 'POST', '/auth/refresh', { refresh_token: registered.json['refresh_token'] })).status, 200);

    // Tokens survive a restart (the signing secret is in the database).
    await server.close();
    server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir }), silentLog);
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances', undefined, bearer)).status, 200);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
