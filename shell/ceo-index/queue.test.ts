/**
 * The scoring queue on its own: one job per URL, workers and the waiting line bounded (full refuses with
 * 503 BUSY and Retry-After), the result cache bounded (the oldest URL dropped first) and expiring, and URL
 * normalisation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.ts';
import type { PersonRow } from './board.ts';
import { normaliseUrl, ScoringQueue } from './queue.ts';

test('jobs per URL, bounded workers and queue, a bounded and expiring cache', async () => {
  let nowMs = 1_000_000;
  const releases = new Map<string, () => void>();
  const queue = new ScoringQueue({
    workersMax: 1,
    queueMax: 1,
    cacheMs: 10_000,
    failureMs: 5_000,
    cacheMax: 2,
    clock: () => nowMs,
    run: (url, progress) =>
      new Promise<PersonRow>((resolve, reject) => {
        progress('fetching', { url });
        releases.set(url, () => (url.endsWith('/bad') ? reject(new ApiError(422, 'NOT_IDENTIFIED', 'nobody')) : resolve({ slug: url } as unknown as PersonRow)));
      }),
  });
  const a = queue.submit('http://x/a');
  assert.equal(queue.submit('http://x/a'), a, 'one job per URL');
  const b = queue.submit('http://x/b');
  assert.deepEqual(queue.load(), { running: 1, waiting: 1 });
  assert.equal(queue.full(), true);
  assert.throws(() => queue.submit('http://x/c'), (error: unknown) => error instanceof ApiError && error.status === 503 && error.headers['Retry-After'] === '1');
  assert.equal(queue.lookup('http://x/c')?.state, 'failed', 'the busy refusal is remembered for the status');
  releases.get('http://x/a')!();
  assert.equal((await a.done).ok, true);
  assert.deepEqual(a.events.map((event) => event.event), ['queued', 'fetching', 'result']);
  releases.get('http://x/b')!();
  await b.done;
  const bad = queue.submit('http://x/bad');
  releases.get('http://x/bad')!();
  assert.equal((await bad.done).ok, false);
  assert.equal(queue.lookup('http://x/bad')?.state, 'failed');
  const d = queue.submit('http://x/d');
  releases.get('http://x/d')!();
  await d.done;
  assert.equal(queue.lookup('http://x/a'), null, 'the oldest result was dropped past cacheMax');
  assert.equal(queue.lookup('http://x/b')?.state, 'done');
  nowMs += 5_000;
  assert.equal(queue.lookup('http://x/bad'), null, 'a failure is remembered failureMs');
  nowMs += 5_000;
  assert.equal(queue.lookup('http://x/d'), null, 'a result is served cacheMs');
});

test('URLs are normalised for the cache and refused unless absolute http(s) without credentials', () => {
  assert.equal(normaliseUrl(' HTTPS://Example.COM:443/People/Ada/?b=2&utm_source=x&a=1#bio'), 'https://example.com/People/Ada?a=1&b=2');
  assert.equal(normaliseUrl('http://example.com'), 'http://example.com/');
  for (const bad of ['example.com/x', 'ftp://example.com/', 'http://user:pass@example.com/', 'javascript:alert(1)']) {
    assert.throws(() => normaliseUrl(bad), (error: unknown) => error instanceof ApiError && error.status === 422, bad);
  }
});
