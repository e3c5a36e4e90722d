import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Quota, quotaHeaders } from './quota.ts';
import { ApiError } from '../http/errors.ts';

test('a quota counts per subject in fixed windows and refuses with 429, Retry-After and the rate headers', () => {
  let now = 3_600_000 * 10 + 1_000;
  const quota = new Quota(2, 3_600_000, () => now);
  assert.deepEqual(quota.peek('1.2.3.4'), { limit: 2, remaining: 2, resetS: 3600 * 11 });
  assert.deepEqual(quota.take('1.2.3.4'), { limit: 2, remaining: 1, resetS: 3600 * 11 });
  assert.deepEqual(quota.take('1.2.3.4'), { limit: 2, remaining: 0, resetS: 3600 * 11 });
  assert.equal(quota.take('5.6.7.8').remaining, 1, 'another subject has its own window');
  assert.throws(
    () => quota.take('1.2.3.4', 'assessments'),
    (error: unknown) =>
      error instanceof ApiError &&
      error.status === 429 &&
      error.code === 'RATE_LIMITED' &&
      /at most 2 assessments per 3600 s/.test(error.message) &&
      error.headers['Retry-After'] === String(3599) &&
      error.headers['X-RateLimit-Remaining'] === '0',
  );
  assert.equal(quota.peek('1.2.3.4').remaining, 0, 'a refusal does not count beyond the limit');
  now = 3_600_000 * 11;
  assert.equal(quota.take('1.2.3.4').remaining, 1, 'a new window starts afresh');
  assert.deepEqual(quotaHeaders({ limit: 5, remaining: 4, resetS: 99 }), { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '4', 'X-RateLimit-Reset': '99' });
  assert.throws(() => new Quota(0, 1000, () => 0), /positive integer/);
});
