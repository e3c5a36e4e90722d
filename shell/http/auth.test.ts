/**
 * Registration, login, bearer access to balances and rotating refresh tokens, against the real server. The
 * access token is checked independently of jose with jsonwebtoken: its claims and lifetime, and that forged,
 * re-signed and expired tokens are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from './test-client.ts';

/** The HS256 signing secret the server made on first start and keeps in its database. */
function signingSecret(server: RunningServer): Buffer {
  return (server.context.identity.db.prepare("SELECT value FROM secrets WHERE name = 'jwt'").get() as { value: Buffer }).value;
}

function balancesWith(server: RunningServer, token: string): Promise<{ status: number }> {
  return call(server, 'GET', '/api/v1/account/me/balances', undefined, { authorization: `Bearer ${token}` });
}

test('register, log in, read balances with a bearer token, and rotate refresh tokens', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-'));
  let server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'k' }), silentLog);
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

    const secret = signingSecret(server);
    const claims = jwt.verify(login.json['access_token'], secret, { algorithms: ['HS256'] }) as JwtPayload;
    assert.deepEqual(Object.keys(claims).sort(), ['aud', 'exp', 'fam', 'iat', 'iss', 'jti', 'scope', 'sub']);
    assert.equal(claims.sub, '1');
    assert.equal(claims.iss, 'trading-platform', "the JWT_ISSUER setting's default");
    assert.equal(claims.aud, 'trading-platform-api', "the JWT_AUDIENCE setting's default");
    assert.match(claims.jti!, /^[0-9a-f-]{36}$/, 'a unique id');
    assert.notEqual(claims.jti, (jwt.decode(registered.json['access_token']) as JwtPayload).jti, 'each token its own id');
    assert.equal(claims['scope'], 'full', 'a full session, not the limited 2FA token');
    assert.equal(claims.exp! - claims.iat!, 15 * 60, 'access tokens live 15 minutes');
    assert.equal(login.json['expires_in'], 15 * 60);
    assert.equal(jwt.decode(login.json['access_token'], { complete: true })?.header.alg, 'HS256');
    const good = { scope: 'full' };
    const named = { issuer: 'trading-platform', audience: 'trading-platform-api', jwtid: 'one' };
    assert.equal((await balancesWith(server, jwt.sign(good, secret, { algorithm: 'HS256', subject: '1', expiresIn: 60, ...named }))).status, 200, 'any HS256 signer with the secret');
    assert.equal((await balancesWith(server, jwt.sign(good, secret, { algorithm: 'HS256', subject: '1', expiresIn: 60, ...named, issuer: 'elsewhere' }))).status, 401, 'another issuer');
    assert.equal((await balancesWith(server, jwt.sign(good, secret, { algorithm: 'HS256', subject: '1', expiresIn: 60, ...named, audience: 'other-api' }))).status, 401, 'another audience');
    assert.equal((await balancesWith(server, jwt.sign(good, secret, { algorithm: 'HS256', subject: '1', expiresIn: 60, issuer: named.issuer, audience: named.audience }))).status, 401, 'no jti');
    assert.equal((await balancesWith(server, jwt.sign(good, secret, { algorithm: 'HS256', subject: '1', expiresIn: 60 }))).status, 401, 'no issuer or audience');
    assert.equal((await balancesWith(server, jwt.sign(good, randomBytes(32), { algorithm: 'HS256', subject: '1', expiresIn: 60 }))).status, 401, 'another secret');
    assert.equal((await balancesWith(server, jwt.sign(good, secret, { algorithm: 'HS512', subject: '1', expiresIn: 60 }))).status, 401, 'another algorithm');
    assert.equal((await balancesWith(server, jwt.sign(good, '', { algorithm: 'none', subject: '1' }))).status, 401, 'alg none');
    const [header, , signature] = login.json['access_token'].split('.');
    const otherUser = Buffer.from(JSON.stringify({ ...claims, sub: '2' })).toString('base64url');
    assert.equal((await balancesWith(server, `${header}.${otherUser}.${signature}`)).status, 401, 'a changed subject breaks the signature');

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

    // Refresh rotates; the old token then counts as stolen and takes the new one down with it, and every
    // access token of its family at once (not at their expiry).
    const first = login.json['refresh_token'];
    const rotated = await call(server, 'POST', '/auth/refresh', { refresh_token: first });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.json['refresh_token'], first);
    assert.equal((await balancesWith(server, rotated.json['access_token'])).status, 200);
    const reused = await call(server, 'POST', '/auth/refresh', { refresh_token: first });
    assert.equal(reused.json['error'].code, 'REFRESH_TOKEN_REUSED');
    assert.equal((await call(server, 'POST', '/auth/refresh', { refresh_token: rotated.json['refresh_token'] })).status, 401);
    const revokedAnswer = await call(server, 'GET', '/api/v1/account/me/balances', undefined, { authorization: `Bearer ${rotated.json['access_token']}` });
    assert.equal(revokedAnswer.status, 401, "the rotated pair's access token is refused at once");
    assert.equal(revokedAnswer.json['error'].code, 'TOKEN_REVOKED');
    assert.equal((await balancesWith(server, login.json['access_token'])).status, 401, "so is the login's own access token");
    // The registration's own family is untouched.
    const registrationRefresh = await call(server, 'POST', '/auth/refresh', { refresh_token: registered.json['refresh_token'] });
    assert.equal(registrationRefresh.status, 200);
    assert.equal((await balancesWith(server, registered.json['access_token'])).status, 200);
    const live = { authorization: `Bearer ${registrationRefresh.json['access_token']}` };
    const liveClaims = jwt.decode(registrationRefresh.json['access_token']) as JwtPayload;

    // Tokens survive a restart (the signing secret is in the database), and stop working at their expiry;
    // the revocation survives it too.
    await server.close();
    let now = Date.now();
    server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog, () => now);
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances', undefined, live)).status, 200);
    assert.equal((await balancesWith(server, rotated.json['access_token'])).status, 401, 'still revoked after a restart');
    now = (liveClaims.exp! - 1) * 1000;
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances', undefined, live)).status, 200);
    now = liveClaims.exp! * 1000;
    const expired = await call(server, 'GET', '/api/v1/account/me/balances', undefined, live);
    assert.equal(expired.status, 401);
    assert.equal(expired.json['error'].code, 'INVALID_TOKEN');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('credential attempts are limited per client address; password guessing gets 429', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-limit-'));
  const now = Date.UTC(2026, 10, 22, 9, 0, 10);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog, () => now);
  try {
    assert.equal((await call(server, 'POST', '/auth/register', { email: 'victim@example.com', password: 'correct horse', username: 'victim' })).status, 201);
    for (let attempt = 2; attempt <= 30; attempt++) {
      const guess = await call(server, 'POST', '/auth/login', { email: 'victim@example.com', password: `guess ${attempt}` });
      assert.equal(guess.status, 401);
      assert.equal(guess.headers.get('x-ratelimit-remaining'), String(30 - attempt));
    }
    const blocked = await call(server, 'POST', '/auth/login', { email: 'victim@example.com', password: 'correct horse' });
    assert.equal(blocked.status, 429, 'even the right password waits for the next window');
    assert.equal(blocked.json['error'].code, 'RATE_LIMITED');
    assert.equal(blocked.headers.get('x-ratelimit-reset'), String(Date.UTC(2026, 10, 22, 9, 1, 0) / 1000));
    // Public reads from the same address have their own, larger budget.
    const pairs = await call(server, 'GET', '/api/v1/exchange/pairs');
    assert.equal(pairs.status, 200);
    assert.equal(pairs.headers.get('x-ratelimit-limit'), '1000');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
