/** Permission, rate-limit and signed-key rules of the Authenticator, without a server. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../store/database.ts';
import { Tokens } from './tokens.ts';
import { ApiKeys } from './api-keys.ts';
import { RateFigures, RateLimiter } from './rate-limit.ts';
import { Authenticator } from './authenticator.ts';
import { ApiError } from '../http/errors.ts';
import { SignatureGuard, signatureOf } from './signatures.ts';

test('a read key cannot trade; order limits follow the tier and count batch weight', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authn-'));
  const db = openDatabase(dir);
  try {
    let now = 1_800_000_000_000;
    const clock = () => now;
    db.prepare("INSERT INTO users (email, username, password_hash, created_at) VALUES ('a@b.c', 'a', 'x', 'now')").run();
    const keys = new ApiKeys(db, clock);
    const authenticator = new Authenticator(new Tokens(db, clock), keys, new RateLimiter(clock), '');
    const readOnly = keys.create(1, 'r', ['read'], 'STANDARD').apiKey;
    const trader = keys.create(1, 't', ['read', 'trade'], 'STANDARD').apiKey;
    const credentials = (apiKey: string) => ({ apiKey, authorization: '', remoteAddress: '' });
    const figures = new RateFigures();
    const trade = { auth: 'key', permission: 'trade', rateLimit: 'orders' } as const;
    assert.throws(
      () => authenticator.authenticate(trade, 1, credentials(readOnly), figures),
      (error: unknown) => error instanceof ApiError && error.status === 403 && error.code === 'PERMISSION_DENIED',
    );
    const first = authenticator.authenticate(trade, 2990, credentials(trader), figures);
    assert.ok(first !== null && !(first instanceof Promise));
    assert.equal(first.userId, 1);
    assert.deepEqual([figures.limit, figures.remaining, figures.resetS], [3000, 10, 1_800_000_060]);
    assert.throws(
      () => authenticator.authenticate(trade, 11, credentials(trader), figures),
      (error: unknown) => error instanceof ApiError && error.status === 429,
    );
    assert.equal(figures.remaining, 10);
    // Revoking another key empties the key cache; the counts live apart from it and stay.
    keys.revoke(1, keys.create(1, 'other', ['read'], 'STANDARD').record.id);
    assert.throws(() => authenticator.authenticate(trade, 11, credentials(trader), figures), (error: unknown) => error instanceof ApiError && error.status === 429);
    now += 60_000;
    const nextWindow = authenticator.authenticate(trade, 11, credentials(trader), figures);
    assert.ok(nextWindow !== null && !(nextWindow instanceof Promise));
    assert.equal(figures.remaining, 2989);
    assert.throws(() => authenticator.authenticate({ auth: 'key', rateLimit: 'general' }, 1, credentials('tpk_unknown'), figures), /unknown or revoked/);
    assert.throws(() => authenticator.authenticate({ auth: 'admin', rateLimit: 'none' }, 1, credentials('x'), figures), /disabled/);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('optional auth serves anonymous callers per address and authenticates those who present a key; the calculator class counts per address', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authn-'));
  const db = openDatabase(dir);
  try {
    const clock = () => 1_800_000_000_000;
    db.prepare("INSERT INTO users (email, username, password_hash, created_at) VALUES ('a@b.c', 'a', 'x', 'now')").run();
    const keys = new ApiKeys(db, clock);
    const authenticator = new Authenticator(new Tokens(db, clock), keys, new RateLimiter(clock), '');
    const reader = keys.create(1, 'r', ['read'], 'STANDARD').apiKey;
    const figures = new RateFigures();
    const optional = { auth: 'optional', permission: 'read', rateLimit: 'general' } as const;
    assert.equal(authenticator.authenticate(optional, 1, { apiKey: '', authorization: '', remoteAddress: '10.0.0.1' }, figures), null);
    assert.equal(figures.limit, 1000, 'anonymous: the per-address public limit');
    const known = authenticator.authenticate(optional, 1, { apiKey: reader, authorization: '', remoteAddress: '' }, figures);
    assert.ok(known !== null && !(known instanceof Promise) && known.userId === 1);
    assert.throws(() => authenticator.authenticate(optional, 1, { apiKey: 'tpk_unknown', authorization: '', remoteAddress: '' }, figures), /unknown or revoked/);

    const calculator = { auth: 'none', rateLimit: 'calculator' } as const;
    for (let index = 0; index < 60; index++) authenticator.authenticate(calculator, 1, { apiKey: '', authorization: '', remoteAddress: '10.0.0.2' }, figures);
    assert.deepEqual([figures.limit, figures.remaining], [60, 0]);
    assert.throws(() => authenticator.authenticate(calculator, 1, { apiKey: '', authorization: '', remoteAddress: '10.0.0.2' }, figures), (error: unknown) => error instanceof ApiError && error.status === 429);
    assert.equal(authenticator.authenticate(calculator, 1, { apiKey: '', authorization: '', remoteAddress: '10.0.0.3' }, figures), null, 'another address has its own window');
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a signed key needs a signature over the request; in-process callers (no request to sign) are refused; sealed secrets survive a reopen', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authn-'));
  let db = openDatabase(dir);
  try {
    const now = 1_800_000_000_000;
    const clock = () => now;
    db.prepare("INSERT INTO users (email, username, password_hash, created_at) VALUES ('a@b.c', 'a', 'x', 'now')").run();
    const created = new ApiKeys(db, clock).create(1, 's', ['read'], 'STANDARD', null, true);
    db.close();
    // A fresh process: the secret comes back from its sealed form.
    db = openDatabase(dir);
    const keys = new ApiKeys(db, clock);
    const authenticator = new Authenticator(new Tokens(db, clock), keys, new RateLimiter(clock), '', new SignatureGuard(5000, clock));
    const figures = new RateFigures();
    const read = { auth: 'key', permission: 'read', rateLimit: 'general' } as const;
    const parts = { method: 'GET', path: '/api/v1/account/me/balances', rawQuery: '', rawBody: null };
    const timestamp = String(now);
    const signature = signatureOf(created.apiSecret, timestamp, parts);
    assert.throws(
      () => authenticator.authenticate(read, 1, { apiKey: created.apiKey, authorization: '', remoteAddress: '', timestamp, signature }, figures),
      (error: unknown) => error instanceof ApiError && error.status === 401 && error.code === 'SIGNATURE_REQUIRED',
      'headers but no request to check them against (an MCP tool call)',
    );
    const principal = authenticator.authenticate(read, 1, { apiKey: created.apiKey, authorization: '', remoteAddress: '', timestamp, signature, signedParts: parts }, figures);
    assert.ok(principal !== null && !(principal instanceof Promise) && principal.userId === 1);
    assert.equal(keys.find(created.apiKey)?.hmacKey?.toString(), created.apiSecret);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
