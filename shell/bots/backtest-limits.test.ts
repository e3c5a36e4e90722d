/**
 * The backtest queue's bounds through the real server: with small bounds (2 runs per user, 3 in all) and
 * the queue paused (BOTS_BACKTEST_PAUSED, so runs stay queued and the test never races the worker), a user
 * past the per-user bound gets 429 TOO_MANY_BACKTESTS and a full queue 429 BACKTEST_QUEUE_FULL, both with
 * Retry-After; the refusals store nothing (bots.sqlite holds exactly the accepted runs), and a start
 * without the pause runs the waiting runs, which frees the bounds again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call, type JsonResponse } from '../http/test-client.ts';
import { BotsStore } from './store.ts';

async function bearer(server: RunningServer, name: string): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  return { authorization: `Bearer ${registered.json['access_token']}` };
}

function refused(answer: JsonResponse, code: string): void {
  assert.equal(answer.status, 429, JSON.stringify(answer.json));
  assert.equal(answer.json['error']['code'], code);
  assert.equal(answer.headers.get('retry-after'), '30');
  assert.equal(answer.json['run_id'], undefined);
}

test('backtests past the per-user bound or a full queue get 429 with Retry-After and queue nothing', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'backtest-limits-'));
  const env = { PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', BOTS_BACKTEST_QUEUE_MAX: '3', BOTS_BACKTEST_RUNS_PER_USER: '2' };
  let server = await startServer(loadConfig({ ...env, BOTS_BACKTEST_PAUSED: '1' }), silentLog);
  const accepted: string[] = [];
  try {
    const run = (who: Record<string, string>) => call(server, 'POST', '/api/v1/backtest/bots/eth-momentum/run-backtest', undefined, who);
    const [alice, bob, carol] = [await bearer(server, 'alice'), await bearer(server, 'bob'), await bearer(server, 'carol')];
    for (const who of [alice, alice]) {
      const answer = await run(who);
      assert.equal(answer.status, 200);
      assert.equal(answer.json['status'], 'queued');
      accepted.push(answer.json['run_id']);
    }
    // Alice has her 2; the queue (3) has room, so the bound that stops her is her own.
    refused(await run(alice), 'TOO_MANY_BACKTESTS');
    const third = await run(bob);
    assert.equal(third.status, 200);
    accepted.push(third.json['run_id']);
    // The queue holds 3: Bob (1 of his 2) and Carol (none) are stopped by the queue's bound.
    refused(await run(bob), 'BACKTEST_QUEUE_FULL');
    refused(await run(carol), 'BACKTEST_QUEUE_FULL');
    refused(await run(alice), 'TOO_MANY_BACKTESTS');
    for (const [index, id] of accepted.entries()) {
      const shown = await call(server, 'GET', `/api/v1/backtest/runs/${id}`, undefined, index < 2 ? alice : bob);
      assert.deepEqual([shown.json['status'], shown.json['result']], ['queued', null]);
    }
  } finally {
    await server.close();
  }

  // Only the accepted runs were stored, all still queued.
  let store = new BotsStore(dataDir);
  try {
    assert.deepEqual(store.pendingRuns().map((row) => [row.id, row.status]).sort(), accepted.map((id) => [id, 'queued']).sort());
    assert.equal(store.db.prepare('SELECT COUNT(*) FROM backtest_runs').pluck().get(), 3);
  } finally {
    store.close();
  }

  // Without the pause the waiting runs run, and the bounds take runs again.
  server = await startServer(loadConfig(env), silentLog);
  try {
    store = new BotsStore(dataDir);
    try {
      for (let attempt = 0; store.pendingRuns().length > 0; attempt++) {
        assert.ok(attempt < 600, 'the waiting runs finish');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(accepted.map((id) => store.run(id)!.status), ['completed', 'completed', 'completed']);
    } finally {
      store.close();
    }
    const again = await call(server, 'POST', '/api/v1/backtest/bots/eth-momentum/run-backtest', undefined, await bearer(server, 'dave'));
    assert.equal(again.status, 200);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
