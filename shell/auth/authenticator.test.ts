/** Permission and rate-limit rules of the Authenticator, without a server. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../store/database.ts';
import { Tokens } from './tokens.ts';
import { ApiKeys } from './api-keys.ts';
import { RateLimiter } from './rate-limit.ts';
import { Authenticator } from './authenticator.ts';
import { ApiError } from '../http/errors.ts';

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
    const header = (key: string) => (name: string) => (name === 'x-api-key' ? key : '');
    assert.throws(
      () => authenticator.authenticate({ auth: 'key', permission: 'trade', rateLimit: 'orders', weight: 1 }, header(readOnly)),
      (error: unknown) => error instanceof ApiError && error.status === 403 && error.code === 'PERMISSION_DENIED',
    );
    const first = authenticator.authenticate({ auth: 'key', permission: 'trade', rateLimit: 'orders', weight: 2990 }, header(trader));
    assert.ok(!(first instanceof Promise));
    assert.equal(first.headers['X-RateLimit-Remaining'], '10');
    assert.throws(
      () => authenticator.authenticate({ auth: 'key', permission: 'trade', rateLimit: 'orders', weight: 11 }, header(trader)),
      (error: unknown) => error instanceof ApiError && error.status === 429,
    );
    now += 60_000;
    const nextWindow = authenticator.authenticate({ auth: 'key', permission: 'trade', rateLimit: 'orders', weight: 11 }, header(trader));
    assert.ok(!(nextWindow instanceof Promise) && nextWindow.headers['X-RateLimit-Remaining'] === '2989');
    assert.throws(() => authenticator.authenticate({ auth: 'key', rateLimit: 'general', weight: 1 }, header('tpk_unknown')), /unknown or revoked/);
    assert.throws(() => authenticator.authenticate({ auth: 'admin', rateLimit: 'none', weight: 1 }, header('x')), /disabled/);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
