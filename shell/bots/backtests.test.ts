/**
 * The backtest queue: runs are stored queued and count against the bound until they end; the worker
 * thread moves them queued -> running -> completed (identical inputs give identical results) or failed
 * (too few closes); runs left unfinished by a stop are run at the next start from their stored input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../log.ts';
import { Backtests } from './backtests.ts';
import { BotsStore } from './store.ts';
import type { BacktestInput } from './strategy.ts';

const input: BacktestInput = { strategy: 'momentum', lookbackDays: 3, closesE8: Array.from({ length: 32 }, (_, index) => 10_000_000_000 + ((index * 7919) % 13) * 100_000_000), firstDay: 20_000 };

async function settled(store: BotsStore, ids: readonly string[]): Promise<void> {
  // Bounded by the test runner's own timeout; each poll is a cheap query.
  while (ids.some((id) => ['queued', 'running'].includes(store.run(id)!.status))) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('runs wait queued within the bound, complete or fail on the worker, and survive a stop', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'backtests-'));
  const store = new BotsStore(dataDir);
  const options = { queueMax: 3, clock: () => Date.parse('2026-01-01T00:00:00Z'), log: silentLog };
  try {
    // Not started: nothing runs, so the runs stay queued and fill the queue.
    const stopped = new Backtests(store, options);
    stopped.enqueue('00000000-0000-4000-8000-000000000001', 1, 'eth-momentum', input);
    stopped.enqueue('00000000-0000-4000-8000-000000000002', 1, 'eth-momentum', input);
    assert.equal(stopped.full, false);
    stopped.enqueue('00000000-0000-4000-8000-000000000003', 2, 'eth-momentum', { ...input, closesE8: [1] });
    assert.equal(stopped.full, true);
    assert.equal(store.activeRunsOf(1), 2);
    assert.deepEqual(store.pendingRuns().map((row) => row.status), ['queued', 'queued', 'queued']);

    // A start (as after a restart) runs what was left, in order.
    const backtests = new Backtests(store, options);
    backtests.start();
    const ids = store.pendingRuns().map((row) => row.id);
    await settled(store, ids);
    await backtests.close();
    const [first, second, third] = ids.map((id) => store.run(id)!);
    assert.equal(first!.status, 'completed');
    assert.equal(second!.status, 'completed');
    assert.equal(first!.result, second!.result, 'same input, same result');
    assert.ok(first!.started_at !== null && first!.finished_at !== null);
    assert.equal(third!.status, 'failed');
    assert.match(third!.error!, /fewer than 2 daily closes/);
    assert.equal(store.activeRunsOf(1), 0);
    assert.equal(backtests.full, false);
  } finally {
    store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
