/**
 * The dead-man's switch against the real server with a clock the test moves: armed with a deadline of
 * the journaled time plus timeout_ms, renewed (the old deadline passes harmlessly), kept across a restart
 * (the deadline is journaled) and fired there, cancelling every open order of the mode; disarmed by 0;
 * bounds refused with 422. The GET reads each of those states from the durable view, across the restart
 * too, and the view corrects at start what a crash between the journal and its table would have lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from './test-client.ts';
import { openDatabase } from '../store/database.ts';

// Near the real time: tokens and keys are checked against it too.
const t0 = Math.floor(Date.now() / 1000) * 1000;

async function until(what: string, condition: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('the switch: armed, renewed, kept across a restart and fired there; disarmed by 0; bounds refused', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cancel-switch-'));
  let now = t0;
  const clock = () => now;
  const start = () => startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog, clock);
  let server: RunningServer = await start();
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'mm@example.com', password: 'correct horse', username: 'marketmaker' });
    const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'bot' }, { authorization: `Bearer ${registered.json['access_token']}` });
    assert.equal(key.status, 201, JSON.stringify(key.json));
    const mm = { 'x-api-key': key.json['api_key'] as string };
    await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset: 'USDC', amount: '100000' }, { 'x-api-key': 'admin' });
    const rest = async (price: string, mode = 'live') => {
      const placed = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '1', price, mode }, mm);
      assert.equal(placed.status, 201, JSON.stringify(placed.json));
    };
    const open = async (mode = 'live') => ((await call(server, 'GET', `/api/v1/exchange/eth/orders/open?mode=${mode}`, undefined, mm)).json['orders'] as unknown[]).length;
    const arm = (timeoutMs: unknown, mode?: string) => call(server, 'POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: timeoutMs, ...(mode === undefined ? {} : { mode }) }, mm);
    const read = async (mode?: string) => {
      const answer = await call(server, 'GET', `/api/v1/exchange/cancel-all-after${mode === undefined ? '' : `?mode=${mode}`}`, undefined, mm);
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
      return answer.json;
    };
    const never = { armed: false, timeout_ms: 0, deadline: null, deadline_ms: null, last_fired_at: null, last_cancelled_orders: null };
    assert.deepEqual(await read(), { ...never, mode: 'live' }, 'never armed');
    await rest('2000');
    await rest('2100');
    await rest('2000', 'paper');

    for (const bad of [500, 600_001, -1, 1.5, '5000']) {
      const refused = await arm(bad);
      assert.equal(refused.status, 422, `${bad}: ${JSON.stringify(refused.json)}`);
      assert.match(refused.json['error']['message'], /timeout_ms/);
    }

    const armed = await arm(5_000);
    assert.equal(armed.status, 200, JSON.stringify(armed.json));
    assert.deepEqual(armed.json, { armed: true, mode: 'live', timeout_ms: 5_000, deadline: new Date(t0 + 5_000).toISOString(), deadline_ms: t0 + 5_000 });
    assert.deepEqual(await read(), { armed: true, mode: 'live', timeout_ms: 5_000, deadline: new Date(t0 + 5_000).toISOString(), deadline_ms: t0 + 5_000, last_fired_at: null, last_cancelled_orders: null });
    assert.deepEqual(await read('paper'), { ...never, mode: 'paper' }, 'the paper switch is apart');
    now = t0 + 4_000;
    const renewed = await arm(5_000);
    assert.equal(renewed.json['deadline_ms'], t0 + 9_000, 'a renewal replaces the deadline');
    assert.equal((await read())['deadline_ms'], t0 + 9_000);
    now = t0 + 6_000;
    // The first deadline passed: nothing fires, the timers look every 100 ms.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await open(), 2);

    // The deadline is journaled: after a restart it is still armed, and it fires once the clock passes it.
    await server.close();
    server = await start();
    assert.equal(await open(), 2);
    assert.deepEqual(await read(), { armed: true, mode: 'live', timeout_ms: 5_000, deadline: new Date(t0 + 9_000).toISOString(), deadline_ms: t0 + 9_000, last_fired_at: null, last_cancelled_orders: null }, 'the read survives the restart, timeout included');
    now = t0 + 9_001;
    await until('the switch fires', async () => (await open()) === 0);
    assert.equal(await open('paper'), 1, 'the paper account had no switch');
    const fired = await read();
    assert.equal(fired['armed'], false);
    assert.equal(fired['deadline'], null);
    assert.equal(fired['timeout_ms'], 0);
    assert.equal(fired['last_cancelled_orders'], 2, 'both live orders');
    assert.ok(Date.parse(fired['last_fired_at']) >= t0 + 9_001, 'fired at the RunTimers after the deadline');

    // Disarmed by 0: the deadline passes and the orders stay; disarming again answers armed false.
    await rest('2000');
    assert.equal((await arm(1_000)).json['armed'], true);
    assert.equal((await read())['timeout_ms'], 1_000);
    const disarmed = await arm(0);
    assert.deepEqual(disarmed.json, { armed: false, mode: 'live', timeout_ms: 0, deadline: null, deadline_ms: null });
    assert.deepEqual(await read(), { ...fired, armed: false, timeout_ms: 0, deadline: null, deadline_ms: null }, 'disarmed; the last firing is still told');
    assert.deepEqual((await arm(0)).json, disarmed.json);
    now = t0 + 20_000;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await open(), 1);

    // A paper switch guards the paper account only.
    const paper = await arm(1_000, 'paper');
    assert.equal(paper.json['mode'], 'paper');
    now = t0 + 21_001;
    await until('the paper switch fires', async () => (await open('paper')) === 0);
    assert.equal(await open(), 1);
    assert.equal((await read('paper'))['last_cancelled_orders'], 1);

    // The read needs credentials, and refuses an unknown mode naming the field.
    assert.equal((await call(server, 'GET', '/api/v1/exchange/cancel-all-after')).status, 401);
    const badMode = await call(server, 'GET', '/api/v1/exchange/cancel-all-after?mode=demo', undefined, mm);
    assert.equal(badMode.status, 422);
    assert.match(badMode.json['error']['message'], /mode/);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the switch read view squares itself with the recovered engine: records a crash lost are corrected at start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cancel-switch-view-'));
  let now = t0;
  const start = () => startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog, () => now);
  let server: RunningServer = await start();
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'view@example.com', password: 'correct horse', username: 'viewer' });
    const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
    const userId = registered.json['user_id'] as number;
    const readOnly = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'reader', permissions: ['read'] }, bearer);
    assert.equal(readOnly.status, 201, JSON.stringify(readOnly.json));
    const read = async (mode = 'live') => (await call(server, 'GET', `/api/v1/exchange/cancel-all-after?mode=${mode}`, undefined, bearer)).json;
    assert.equal((await call(server, 'POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 60_000 }, bearer)).status, 200);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 30_000, mode: 'paper' }, bearer)).status, 200);
    const byReader = await call(server, 'GET', '/api/v1/exchange/cancel-all-after', undefined, { 'x-api-key': readOnly.json['api_key'] });
    assert.equal(byReader.status, 200, 'a read key may look (arming needs trade)');
    assert.equal(byReader.json['timeout_ms'], 60_000);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 0 }, { 'x-api-key': readOnly.json['api_key'] })).status, 403);
    await server.close();

    // As if a crash had come between the journal and the view's table: the live record lost, the paper
    // record still armed though the journal (here: a disarm made while the table is put back) says not.
    const db = openDatabase(dataDir);
    db.prepare('DELETE FROM cancel_switch_view WHERE user_id = ? AND mode = 0').run(userId);
    db.close();
    server = await start();
    assert.equal((await call(server, 'POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 0, mode: 'paper' }, bearer)).status, 200);
    await server.close();
    const again = openDatabase(dataDir);
    again.prepare('UPDATE cancel_switch_view SET timeout_ms = 30000, deadline_ms = ? WHERE user_id = ? AND mode = 1').run(t0 + 30_000, userId);
    again.close();
    server = await start();
    assert.deepEqual(await read(), {
      armed: true,
      mode: 'live',
      timeout_ms: null,
      deadline: new Date(t0 + 60_000).toISOString(),
      deadline_ms: t0 + 60_000,
      last_fired_at: null,
      last_cancelled_orders: null,
    }, 'armed as the journal says; the timeout is unknown');
    assert.equal((await read('paper'))['armed'], false, 'disarmed as the journal says');
    now = t0 + 1_000;
    assert.equal((await call(server, 'POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 10_000 }, bearer)).status, 200);
    assert.equal((await read())['timeout_ms'], 10_000, 'arming again sets it');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
