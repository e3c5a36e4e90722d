/**
 * The bots routes on a real server: the catalogue grouped by type; every clone refusal with its status,
 * code and `detail` nesting (INVALID_SOURCE_TYPE, SOURCE_NOT_FOUND, SOURCE_INACTIVE, ALREADY_CLONED, and
 * WALLET_GENERATION_RETRY from BOTS_WALLET_FAULT with Retry-After, after which a retry succeeds with
 * nothing left of the failure); the cloned bot record and the legacy shape; a live clone funded and
 * trading on its own key (the order is the clone's, not the owner's); an AI agent clone; the strategy
 * clock making a paper clone trade by itself; backtests queued -> completed with their figures, 404 for an
 * unknown bot and run; a restart keeps the clones and runs; and the journal replays to the live state hash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/core/engine.ts';
import { Result } from '../../engine/core/results.ts';
import { stateHash } from '../../engine/core/state-hash.ts';
import { readJournal } from '../../engine/journal/reader.ts';
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { botsOf } from '../../engine/domains/bots/bots.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

const admin = { 'x-api-key': 'bots-admin' };
const ethMomentum = '6f1c2a0e-1b7d-4c33-9a52-0d4e1f9b7a01';
const dogeRetired = '6f1c2a0e-1b7d-4c33-9a52-0d4e1f9b7a04';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function account(server: RunningServer): Promise<{ key: Record<string, string>; bearer: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: 'bots@example.com', password: 'correct horse', username: 'bots' });
  const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, bearer);
  return { key: { 'x-api-key': key.json['api_key'] }, bearer };
}

function assertNested(response: { status: number; json: Record<string, any> }, status: number, code: string): void {
  assert.equal(response.status, status, JSON.stringify(response.json));
  assert.deepEqual(Object.keys(response.json), ['detail']);
  assert.deepEqual(Object.keys(response.json['detail']), ['error']);
  assert.equal(response.json['detail']['error']['code'], code);
  assert.equal(typeof response.json['detail']['error']['message'], 'string');
}

test('clones, their errors, trading on their own key, agents, strategies and backtests over HTTP', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bots-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AMM_CHAINS: '',
    PRICE_TICK_MS: '200',
    PRICE_HISTORY_DAYS: '60',
    ADMIN_API_KEY: admin['x-api-key'],
    BOTS_STRATEGY_MS: '1000',
    BOTS_WALLET_FAULT: '1',
  });
  let server = await startServer(config, silentLog);
  let running = true;
  try {
    const { key, bearer } = await account(server);

    const available = await call(server, 'GET', '/api/v1/cloned-bots/available', undefined, key);
    assert.equal(available.status, 200);
    assert.deepEqual(Object.keys(available.json), ['wta_species', 'perpetual_agent', 'backtest_bot']);
    const ids = new Set<string>();
    for (const [type, entries] of Object.entries(available.json) as Array<[string, Array<Record<string, unknown>>]>) {
      assert.ok(entries.length > 0);
      for (const entry of entries) {
        assert.equal(entry['source_type'], type);
        assert.ok(!ids.has(entry['source_id'] as string), 'one id per bot');
        ids.add(entry['source_id'] as string);
      }
    }
    assert.equal(available.json['backtest_bot'].find((entry: Record<string, unknown>) => entry['source_id'] === dogeRetired)['is_active'], false);
    assert.equal((await call(server, 'GET', '/api/v1/cloned-bots/available')).status, 401);

    const clone = (body: Record<string, unknown>, query = '') => call(server, 'POST', `/api/v1/cloned-bots/clone${query}`, body, key);
    assertNested(await clone({ source_type: 'hedge_fund', source_id: ethMomentum, paper: true }), 422, 'INVALID_SOURCE_TYPE');
    assertNested(await clone({ source_type: 'backtest_bot', source_id: '00000000-0000-4000-8000-000000000000', paper: true }), 404, 'SOURCE_NOT_FOUND');
    assertNested(await clone({ source_type: 'perpetual_agent', source_id: ethMomentum, paper: true }), 404, 'SOURCE_NOT_FOUND');
    assertNested(await clone({ source_type: 'backtest_bot', source_id: dogeRetired, paper: true }), 409, 'SOURCE_INACTIVE');

    const failed = await clone({ source_type: 'backtest_bot', source_id: ethMomentum, paper: true });
    assertNested(failed, 503, 'WALLET_GENERATION_RETRY');
    assert.equal(failed.headers.get('retry-after'), '1');
    // The failure created nothing: the retry is not ALREADY_CLONED and succeeds.
    const paper = await clone({ source_type: 'backtest_bot', source_id: ethMomentum, paper: true });
    assert.equal(paper.status, 200, JSON.stringify(paper.json));
    const record = paper.json;
    assert.deepEqual(Object.keys(record).sort(), [
      'account_user_id', 'api_key', 'api_secret', 'created_at', 'id', 'is_paper', 'is_trading', 'name', 'risk_profile', 'source_id', 'source_name',
      'source_symbol', 'strategy_type', 'type', 'wallet_address', 'wallet_url',
    ]);
    assert.match(record['id'], uuid);
    assert.equal(record['type'], 'backtest_bot');
    assert.equal(record['source_id'], ethMomentum);
    assert.equal(record['source_name'], 'ETH momentum');
    assert.equal(record['source_symbol'], 'ETH');
    assert.match(record['wallet_address'], /^0x[0-9a-f]{40}$/);
    assert.match(record['wallet_url'], /\/api\/v1\/account\/me\/balances\?mode=paper$/);
    assert.equal(record['is_trading'], true);
    assert.equal(record['is_paper'], true);
    assert.equal(record['strategy_type'], 'momentum');
    assert.equal(record['risk_profile'], 'balanced');
    assert.ok(!Number.isNaN(Date.parse(record['created_at'])));
    assert.match(record['api_key'], /^tpk_/);
    assert.match(record['api_secret'], /^tps_/);
    assertNested(await clone({ source_type: 'backtest_bot', source_id: ethMomentum, paper: true }), 409, 'ALREADY_CLONED');

    // A live clone of the same source is allowed; the legacy shape on request.
    const legacy = await clone({ source_type: 'backtest_bot', source_id: ethMomentum, paper: false }, '?format=legacy');
    assert.equal(legacy.status, 200);
    assert.deepEqual(Object.keys(legacy.json).sort(), ['api_key', 'api_secret', 'clone_id', 'is_paper', 'simulated_balance', 'source_bot_id', 'status']);
    assert.equal(legacy.json['is_paper'], false);
    assert.equal(legacy.json['simulated_balance'], 0);
    assert.equal(legacy.json['status'], 'active');
    assert.equal(legacy.json['source_bot_id'], ethMomentum);
    const paperLegacy = await clone({ source_type: 'perpetual_agent', source_id: '8a0d3c41-5e2f-4b8a-8c61-2f7e9d0c4b01', paper: true }, '?format=legacy');
    assert.equal(paperLegacy.json['simulated_balance'], 100000);

    // The live clone trades on its own key once funded; the order is the clone's, not the owner's.
    const live = await clone({ source_type: 'wta_species', source_id: 'c3b6e2d9-7a14-4f0e-b2d8-91a5f3c6e701', paper: false });
    assert.equal(live.status, 200);
    const cloneKey = { 'x-api-key': live.json['api_key'] };
    const funded = await call(server, 'POST', '/admin/v1/credit', { user_id: live.json['account_user_id'], asset: 'USDC', amount: '1000' }, admin);
    assert.equal(funded.status, 200, JSON.stringify(funded.json));
    const order = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '100.00', post_only: true }, cloneKey);
    assert.equal(order.status, 201, JSON.stringify(order.json));
    const mine = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, cloneKey);
    assert.deepEqual(mine.json['orders'].map((row: Record<string, unknown>) => row['order_id']), [order.json['order_id']]);
    const owners = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, key);
    assert.deepEqual(owners.json['orders'], []);
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, cloneKey);
    assert.equal(balances.status, 200);

    // An AI agent clone: bearer only.
    const agent = await call(server, 'POST', '/api/v1/agents/clone', { agent_id: 'ai-fund', paper: false }, bearer);
    assert.equal(agent.status, 200, JSON.stringify(agent.json));
    assert.equal(agent.json['source_id'], ethMomentum);
    assert.equal(agent.json['is_paper'], false);
    assert.equal((await call(server, 'POST', '/api/v1/agents/clone', { agent_id: 'ai-fund' }, key)).status, 401);
    assertNested(await call(server, 'POST', '/api/v1/agents/clone', { agent_id: 'nobody' }, bearer), 404, 'AGENT_NOT_FOUND');

    // The strategy clock: the paper ETH momentum clone sends its own market orders.
    const paperKey = { 'x-api-key': record['api_key'] };
    await until('a strategy order of the paper clone', async () => {
      const history = await call(server, 'GET', '/api/v1/exchange/eth/orders/history?mode=paper', undefined, paperKey);
      return history.json['orders'].some((row: Record<string, unknown>) => row['order_type'] === 'market');
    });

    // Backtests.
    const queued = await call(server, 'POST', '/api/v1/backtest/bots/eth-momentum/run-backtest', undefined, bearer);
    assert.equal(queued.status, 200, JSON.stringify(queued.json));
    assert.deepEqual(Object.keys(queued.json).sort(), ['run_id', 'slug', 'status']);
    assert.equal(queued.json['status'], 'queued');
    assert.equal(queued.json['slug'], 'eth-momentum');
    assert.equal((await call(server, 'POST', '/api/v1/backtest/bots/nope/run-backtest', undefined, bearer)).status, 404);
    assert.equal((await call(server, 'POST', '/api/v1/backtest/bots/btc-trend-agent/run-backtest', undefined, bearer)).status, 404, 'not a backtest bot');
    const runPath = `/api/v1/backtest/runs/${queued.json['run_id']}`;
    let run: Record<string, any> = {};
    await until('the backtest to complete', async () => {
      run = (await call(server, 'GET', runPath, undefined, bearer)).json;
      return run['status'] === 'completed' || run['status'] === 'failed';
    });
    assert.equal(run['status'], 'completed', JSON.stringify(run));
    const result = run['result'];
    assert.deepEqual(Object.keys(result).sort(), ['end_equity', 'equity_curve', 'max_drawdown_pct', 'return_pct', 'sharpe', 'start_equity', 'trades', 'win_rate']);
    assert.equal(result['equity_curve'].length, 30);
    assert.equal(result['start_equity'], '10000.00');
    assert.equal((await call(server, 'GET', runPath, undefined, key)).status, 200, 'the owner with a key');
    assert.equal((await call(server, 'GET', '/api/v1/backtest/runs/00000000-0000-4000-8000-000000000000', undefined, bearer)).status, 404);

    // A restart keeps the clones (ALREADY_CLONED still) and the runs.
    await server.close();
    running = false;
    server = await startServer(config, silentLog);
    running = true;
    assertNested(await clone({ source_type: 'backtest_bot', source_id: ethMomentum, paper: true }), 409, 'ALREADY_CLONED');
    assert.deepEqual((await call(server, 'GET', runPath, undefined, bearer)).json, run);
    assert.equal(botsOf(server.context.durable.engine).clones().length, 5);

    // Closed first: the oracle journals until it is stopped, so the live state is final only then.
    await server.close();
    running = false;
    const liveHash = stateHash(server.context.durable.engine);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
    assert.equal(botsOf(replayed).clones().length, 5);
  } finally {
    if (running) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
