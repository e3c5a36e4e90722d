/**
 * TWAPs and scale orders over HTTP against the real server, with a clock the test moves: the server's
 * timer runner journals RunTimers when the clock reaches a slice's time, so the slices run at exactly the
 * journaled times the test sets. Also the ladder arithmetic of scale orders, refusals with nothing
 * changed, paper mode, the group ids in order history, and an active TWAP surviving a restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stateHash } from '../../engine/core/state-hash.ts';
import { loadConfig, type Config } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { scaleLadder } from './exchange-algos.ts';
import { call, type JsonResponse } from './test-client.ts';

async function fundedUser(server: RunningServer, name: string, usdc = '100000', eth = '10'): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'algos' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', usdc], ['ETH', eth]]) {
    const credit = await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' });
    assert.equal(credit.status, 200);
  }
  return { 'x-api-key': key.json['api_key'] as string };
}

const at = (time: string): number => Date.parse(`2026-01-01T${time}Z`);
const iso = (ms: number): string => new Date(ms).toISOString();

/** Asks until `ready` holds (the timer runner and the read models work in the background). */
async function waitFor(what: string, ask: () => Promise<JsonResponse>, ready: (answer: JsonResponse) => boolean): Promise<JsonResponse> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await ask();
    if (ready(answer)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('the scale ladder: prices evenly on the grid, sizes by distribution adding up exactly', () => {
  assert.deepEqual(scaleLadder(290_000, 295_000, 5, 10_000, 'flat'), { priceTicks: [290_000, 291_250, 292_500, 293_750, 295_000], lots: [2_000, 2_000, 2_000, 2_000, 2_000] });
  assert.deepEqual(scaleLadder(100, 103, 3, 10, 'flat'), { priceTicks: [100, 102, 103], lots: [3, 3, 4] });
  assert.deepEqual(scaleLadder(100, 104, 5, 10_000, 'increasing').lots, [666, 1_333, 2_000, 2_666, 3_335]);
  assert.deepEqual(scaleLadder(100, 104, 5, 10_000, 'decreasing').lots, [3_335, 2_666, 2_000, 1_333, 666]);
  for (const distribution of ['flat', 'increasing', 'decreasing'] as const) {
    for (const [count, quantity] of [[2, 3], [7, 1_000_003], [50, 5_000], [13, 91]] as const) {
      const ladder = scaleLadder(1_000, 2_000, count, quantity, distribution);
      assert.equal(ladder.lots.reduce((sum, lots) => sum + lots, 0), quantity, `${distribution} ${count} ${quantity}`);
      assert.equal(new Set(ladder.priceTicks).size, count);
      assert.deepEqual([ladder.priceTicks[0], ladder.priceTicks[count - 1]], [1_000, 2_000]);
    }
  }
  assert.throws(() => scaleLadder(100, 103, 5, 100, 'flat'), /body\.count: the price range holds only 4 prices/);
  assert.throws(() => scaleLadder(100, 100, 2, 100, 'flat'), /body\.price_high: must be above price_low/);
  assert.throws(() => scaleLadder(100, 200, 5, 4, 'flat'), /body\.quantity: too small/);
  assert.throws(() => scaleLadder(100, 200, 5, 14, 'increasing'), /body\.quantity: too small/);
});

test('TWAPs over HTTP: slices at the journaled times, the record, listing, cancel, paper, and a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twap-'));
  const config: Config = loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' });
  let now = at('10:00:00');
  let server = await startServer(config, silentLog, () => now);
  try {
    const maker = await fundedUser(server, 'maker_twap');
    const taker = await fundedUser(server, 'taker_twap');
    const other = await fundedUser(server, 'other_twap');
    const ask = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '5', price: '3000' }, maker);
    assert.equal(ask.status, 201);

    now = at('10:00:10');
    const started = await call(server, 'POST', '/api/v1/exchange/eth/twap', { side: 'buy', quantity: '1', duration_seconds: 4, interval_seconds: 1 }, taker);
    assert.equal(started.status, 201, JSON.stringify(started.json));
    const { child_orders: firstChildren, ...record } = started.json;
    assert.deepEqual(record, {
      twap_id: '1',
      symbol: 'ETH',
      pair: 'ETH/USDC',
      side: 'buy',
      quantity: '1.0000',
      filled_quantity: '0.2500',
      remaining_quantity: '0.7500',
      average_price: '3000.000000',
      limit_price: null,
      mode: 'live',
      status: 'active',
      slices_total: 4,
      slices_done: 1,
      slices_refused: 0,
      interval_seconds: 1,
      duration_seconds: 4,
      started_at: iso(at('10:00:10')),
      next_slice_at: iso(at('10:00:11')),
      ends_at: iso(at('10:00:14')),
    });
    assert.equal(firstChildren.length, 1);
    const list = (key: Record<string, string>, query = '') => call(server, 'GET', `/api/v1/exchange/eth/twap${query}`, undefined, key);
    assert.deepEqual((await list(taker)).json['twaps'], [started.json]);
    assert.deepEqual((await list(other)).json['twaps'], []);
    assert.deepEqual((await list(taker, '?mode=paper')).json['twaps'], []);

    // Nothing is due before the next slice time; at it, the timer runs the slice.
    now = at('10:00:10') + 999;
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal((await list(taker)).json['twaps'][0]['slices_done'], 1);
    now = at('10:00:11');
    const second = await waitFor('the second slice', () => list(taker), (answer) => answer.json['twaps'][0]?.['slices_done'] === 2);
    assert.deepEqual([second.json['twaps'][0]['filled_quantity'], second.json['twaps'][0]['next_slice_at']], ['0.5000', iso(at('10:00:12'))]);
    // The runtime falls two slices behind: both run, one RunTimers each, and the TWAP completes.
    now = at('10:00:13');
    await waitFor('the TWAP to complete', () => list(taker), (answer) => answer.json['twaps'].length === 0);

    // The children are orders of their own, with the TWAP's id, placed at the slices' journaled times.
    const children = (await waitFor('the read models', () => call(server, 'GET', '/api/v1/exchange/eth/orders/history?limit=10', undefined, taker), (answer) => answer.json['orders']?.length === 4)).json['orders'] as Array<Record<string, unknown>>;
    assert.deepEqual(
      children.map((order) => [order['twap_id'], order['scale_id'], order['order_type'], order['time_in_force'], order['status'], order['filled_quantity'], order['created_at']]).reverse(),
      [at('10:00:10'), at('10:00:11'), at('10:00:13'), at('10:00:13')].map((ms) => ['1', null, 'market', 'IOC', 'filled', '0.2500', iso(ms)]),
    );
    assert.equal(children.at(-1)!['order_id'], firstChildren[0]);
    assert.equal((await call(server, 'DELETE', '/api/v1/exchange/eth/twap/1', undefined, taker)).status, 404, 'an ended TWAP cannot be cancelled');

    // A paper TWAP with a limit under the market: its slices rest on nothing, and it stays active.
    now = at('10:01:00');
    const paper = await call(server, 'POST', '/api/v1/exchange/eth/twap', { side: 'buy', quantity: '0.3', duration_seconds: 60, interval_seconds: 20, limit_price: '2900', paper: true }, taker);
    assert.equal(paper.status, 201, JSON.stringify(paper.json));
    assert.deepEqual(
      [paper.json['twap_id'], paper.json['mode'], paper.json['limit_price'], paper.json['slices_total'], paper.json['filled_quantity'], paper.json['average_price']],
      ['2', 'paper', '2900.00', 3, '0.0000', null],
    );
    assert.deepEqual((await list(taker)).json['twaps'], []);
    assert.equal((await list(taker, '?mode=paper')).json['twaps'].length, 1);

    // Refusals name the field; nothing starts.
    const refusals: Array<[Record<string, unknown>, number, string]> = [
      [{ side: 'buy', quantity: '1', duration_seconds: 10, interval_seconds: 0 }, 422, 'VALIDATION_FAILED'],
      [{ side: 'buy', quantity: '1', duration_seconds: 7 * 86_400 + 1, interval_seconds: 3600 }, 422, 'VALIDATION_FAILED'],
      [{ side: 'buy', quantity: '1', duration_seconds: 2000, interval_seconds: 1 }, 422, 'VALIDATION_FAILED'],
      [{ side: 'buy', quantity: '0.0003', duration_seconds: 4, interval_seconds: 1 }, 422, 'VALIDATION_FAILED'],
      [{ side: 'buy', quantity: '1', duration_seconds: 4, interval_seconds: 1, limit_price: '3000.001' }, 422, 'PRICE_OFF_TICK'],
      [{ side: 'buy', quantity: '1.00001', duration_seconds: 4, interval_seconds: 1 }, 422, 'QUANTITY_OFF_LOT'],
    ];
    for (const [body, status, code] of refusals) {
      const refused = await call(server, 'POST', '/api/v1/exchange/eth/twap', body, taker);
      assert.deepEqual([refused.status, refused.json['error']?.code], [status, code], JSON.stringify(body));
    }
    assert.match((await call(server, 'POST', '/api/v1/exchange/eth/twap', refusals[3]![0], taker)).json['error'].message, /^body\.quantity: /);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/nope/twap', { side: 'buy', quantity: '1', duration_seconds: 4, interval_seconds: 1 }, taker)).status, 404);
    // A TWAP whose first slice cannot be paid for is refused at once, and starts nothing.
    const poor = await fundedUser(server, 'poor_twap', '10', '1');
    const unfunded = await call(server, 'POST', '/api/v1/exchange/eth/twap', { side: 'buy', quantity: '1', duration_seconds: 4, interval_seconds: 1 }, poor);
    assert.deepEqual([unfunded.status, unfunded.json['error']?.code], [422, 'INSUFFICIENT_BALANCE']);
    assert.deepEqual((await list(poor)).json['twaps'], []);

    // The active paper TWAP survives a restart (snapshot on close, recovery on open) with its schedule.
    const before = (await list(taker, '?mode=paper')).json['twaps'];
    const hash = stateHash(server.context.durable.engine);
    await server.close();
    server = await startServer(config, silentLog, () => now);
    assert.equal(stateHash(server.context.durable.engine), hash);
    assert.deepEqual((await list(taker, '?mode=paper')).json['twaps'], before);

    // Only the owner cancels; the answer is the final record.
    assert.equal((await call(server, 'DELETE', '/api/v1/exchange/eth/twap/2', undefined, other)).status, 404);
    assert.equal((await call(server, 'DELETE', '/api/v1/exchange/btc/twap/2', undefined, taker)).status, 404);
    assert.equal((await call(server, 'DELETE', '/api/v1/exchange/eth/twap/abc', undefined, taker)).status, 404);
    now = at('10:01:05');
    const cancelled = await call(server, 'DELETE', '/api/v1/exchange/eth/twap/2', undefined, taker);
    assert.equal(cancelled.status, 200);
    assert.deepEqual(cancelled.json, { ...before[0], status: 'cancelled', next_slice_at: null });
    now = at('10:02:00');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.deepEqual((await list(taker, '?mode=paper')).json['twaps'], []);
    assert.equal(server.context.timers.commandsRefused, 0, 'the runner sends RunTimers only when something is due');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('scale orders over HTTP: ladders on both paths, each distribution, refusals that change nothing, paper', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'scale-'));
  const config: Config = loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' });
  const server = await startServer(config, silentLog, () => at('12:00:00'));
  try {
    const maker = await fundedUser(server, 'maker_scale');
    const trader = await fundedUser(server, 'trader_scale', '10000', '5');
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '1', price: '3000' }, maker)).status, 201);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '1', price: '2800' }, maker)).status, 201);

    const buys = await call(server, 'POST', '/api/v1/exchange/eth/scale', { side: 'buy', quantity: '1', price_low: '2900', price_high: '2950', count: 5, distribution: 'increasing' }, trader);
    assert.equal(buys.status, 201, JSON.stringify(buys.json));
    const { orders, ...head } = buys.json;
    assert.deepEqual(head, { scale_id: '1', symbol: 'ETH', pair: 'ETH/USDC', side: 'buy', quantity: '1.0000', count: 5, distribution: 'increasing', mode: 'live' });
    assert.deepEqual(
      (orders as Array<Record<string, unknown>>).map((order) => [order['price'], order['quantity'], order['status'], order['scale_id'], order['twap_id'], order['order_type'], order['time_in_force']]),
      [['2900.00', '0.0666'], ['2912.50', '0.1333'], ['2925.00', '0.2000'], ['2937.50', '0.2666'], ['2950.00', '0.3335']].map(([price, quantity]) => [price, quantity, 'open', '1', null, 'limit', 'GTC']),
    );
    const ids = (orders as Array<Record<string, string>>).map((order) => Number(order['order_id']));
    assert.deepEqual(ids, [ids[0]!, ids[0]! + 1, ids[0]! + 2, ids[0]! + 3, ids[0]! + 4]);

    const sells = await call(server, 'POST', '/api/v1/exchange/eth/orders/scale', { side: 'sell', quantity: '0.9', price_low: '3100', price_high: '3300', count: 3, distribution: 'decreasing' }, trader);
    assert.equal(sells.status, 201, JSON.stringify(sells.json));
    assert.deepEqual(
      [sells.json['scale_id'], ...(sells.json['orders'] as Array<Record<string, string>>).map((order) => `${order['quantity']}@${order['price']}`)],
      ['2', '0.4500@3100.00', '0.3000@3200.00', '0.1500@3300.00'],
    );
    const flat = await call(server, 'POST', '/api/v1/exchange/eth/scale', { side: 'sell', quantity: '0.1', price_low: 3400, price_high: 3401, count: 2 }, trader);
    assert.deepEqual([flat.status, flat.json['distribution'], flat.json['orders'].map((order: Record<string, string>) => order['quantity'])], [201, 'flat', ['0.0500', '0.0500']]);

    const open = async (): Promise<number> => (await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, trader)).json['orders'].length;
    assert.equal(await open(), 10);
    const refusals: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ side: 'buy', quantity: '0.1', price_low: '2950', price_high: '3000', count: 3 }, 409, 'SCALE_WOULD_TAKE', /take liquidity/],
      [{ side: 'sell', quantity: '0.1', price_low: '2800', price_high: '2810', count: 2 }, 409, 'SCALE_WOULD_TAKE', /take liquidity/],
      [{ side: 'buy', quantity: '4', price_low: '2000', price_high: '2500', count: 4 }, 422, 'INSUFFICIENT_BALANCE', /balance/],
      [{ side: 'buy', quantity: '1', price_low: '2000', price_high: '2500', count: 1 }, 422, 'VALIDATION_FAILED', /^body\.count: /],
      [{ side: 'buy', quantity: '1', price_low: '2000', price_high: '2500', count: 51 }, 422, 'VALIDATION_FAILED', /^body\.count: /],
      [{ side: 'buy', quantity: '1', price_low: '2000.00', price_high: '2000.03', count: 5 }, 422, 'VALIDATION_FAILED', /^body\.count: the price range holds only 4 prices/],
      [{ side: 'buy', quantity: '0.0004', price_low: '2000', price_high: '2500', count: 5 }, 422, 'VALIDATION_FAILED', /^body\.quantity: /],
      [{ side: 'buy', quantity: '1', price_low: '2500', price_high: '2000', count: 5 }, 422, 'VALIDATION_FAILED', /^body\.price_high: /],
      [{ side: 'buy', quantity: '1', price_low: '2000.001', price_high: '2500', count: 5 }, 422, 'PRICE_OFF_TICK', /^price_low: /],
      [{ side: 'buy', quantity: '1', price_low: '2000', price_high: '2500', count: 5, distribution: 'random' }, 422, 'VALIDATION_FAILED', /distribution/],
    ];
    for (const [body, status, code, message] of refusals) {
      const refused = await call(server, 'POST', '/api/v1/exchange/eth/scale', body, trader);
      assert.deepEqual([refused.status, refused.json['error']?.code], [status, code], JSON.stringify([body, refused.json]));
      assert.match(refused.json['error'].message, message);
    }
    assert.equal(await open(), 10, 'refused scales placed nothing');

    // Paper: the account opens with PAPER_BALANCES; the live book still bounds what a paper ladder may rest at.
    const paper = await call(server, 'POST', '/api/v1/exchange/eth/scale', { side: 'buy', quantity: '0.2', price_low: '2850', price_high: '2990', count: 4, mode: 'paper' }, trader);
    assert.deepEqual([paper.status, paper.json['mode'], paper.json['scale_id']], [201, 'paper', '4']);
    assert.equal(
      (await call(server, 'POST', '/api/v1/exchange/eth/scale', { side: 'buy', quantity: '0.2', price_low: '2900', price_high: '3000', count: 4, is_paper: true }, trader)).json['error'].code,
      'SCALE_WOULD_TAKE',
    );
    assert.equal(await open(), 10);

    // Order history names the scale of each rung.
    const history = await waitFor('the read models', () => call(server, 'GET', `/api/v1/exchange/eth/orders/${ids[4]}`, undefined, trader), (answer) => answer.status === 200);
    assert.deepEqual([history.json['scale_id'], history.json['twap_id'], history.json['quantity']], ['1', null, '0.3335']);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
