/**
 * The price routes over HTTP on a real server with the `sim` feed: one price, several (repeated query
 * key), the history (400 closes from the seeded history, ending with today's close), the MACD on exactly
 * those closes and its 422s, 404s for unknown assets, 401 without a key; and the journal (history seeds
 * and ticks) replays without any source to the live state hash and the same closes.
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
import { platformDomains, pricesOf } from '../../engine/domains/index.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

async function apiKey(server: RunningServer): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: 'prices@example.com', password: 'correct horse', username: 'prices' });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  return { 'x-api-key': key.json['api_key'] };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('prices, history and MACD over HTTP; the journal replays to the same prices', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'prices-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_SEED: '7' });
  const server = await startServer(config, silentLog);
  let closed = false;
  try {
    const key = await apiKey(server);
    const today = new Date().toISOString().slice(0, 10);
    await until('a tick after the history', async () => (await call(server, 'GET', '/api/v1/prices/BTC', undefined, key)).json['timestamp']?.slice(0, 10) === today);

    const btc = await call(server, 'GET', '/api/v1/prices/btc', undefined, key);
    assert.equal(btc.status, 200);
    assert.deepEqual(Object.keys(btc.json).sort(), ['asset', 'asset_type', 'change_24h', 'price', 'source', 'stale', 'timestamp']);
    assert.equal(btc.json['asset'], 'BTC');
    assert.equal(btc.json['asset_type'], 'crypto');
    assert.match(btc.json['price'], /^[0-9]+(\.[0-9]{1,8})?$/);
    assert.match(btc.json['change_24h'], /^-?[0-9]+\.[0-9]{2}$/);
    assert.equal(btc.json['source'], 'sim');
    assert.equal(btc.json['stale'], false);

    const several = await call(server, 'GET', '/api/v1/prices?assets=BTC&assets=eth&assets=AAPL', undefined, key);
    assert.equal(several.status, 200);
    assert.deepEqual(several.json['prices'].map((row: { asset: string }) => row.asset), ['BTC', 'ETH', 'AAPL']);
    assert.equal(several.json['prices'][2].asset_type, 'stock');

    for (const path of ['/api/v1/prices/NOPE', '/api/v1/prices?assets=BTC&assets=NOPE', '/api/v1/prices/NOPE/history', '/api/v1/technical-indicators/macd/NOPE']) {
      const missing = await call(server, 'GET', path, undefined, key);
      assert.equal(missing.status, 404, path);
      assert.equal(missing.json['error'].code, 'ASSET_NOT_FOUND', path);
    }
    assert.equal((await call(server, 'GET', '/api/v1/prices/BTC')).status, 401);

    const history = await call(server, 'GET', '/api/v1/prices/BTC/history?days=400', undefined, key);
    assert.equal(history.status, 200);
    const closes = history.json['history'] as Array<{ date: string; close: string }>;
    assert.equal(closes.length, 400);
    assert.equal(closes.at(-1)!.date, today, 'ends with today\'s close');
    for (let index = 1; index < closes.length; index++) {
      assert.equal(Date.parse(closes[index]!.date) - Date.parse(closes[index - 1]!.date), 86_400_000, 'one close per day');
    }
    for (const days of ['0', '401', 'abc', '-1']) {
      const refused = await call(server, 'GET', `/api/v1/prices/BTC/history?days=${days}`, undefined, key);
      assert.equal(refused.status, 422, days);
      assert.match(refused.json['error'].message, /days/);
    }

    // The MACD runs on exactly the closes the history route gives for the same days (a tick may land
    // between the two reads and move today's close, so compare the days before today).
    const macd = await call(server, 'GET', '/api/v1/technical-indicators/macd/BTC', undefined, key);
    assert.equal(macd.status, 200);
    const ninety = (await call(server, 'GET', '/api/v1/prices/BTC/history?days=90', undefined, key)).json['history'] as Array<{ date: string; close: string }>;
    assert.equal(macd.json['symbol'], 'BTC');
    assert.equal(macd.json['metadata'].data_points, 90);
    assert.equal(macd.json['metadata'].start_date, ninety[0]!.date);
    assert.equal(macd.json['metadata'].end_date, today);
    assert.equal(macd.json['timeseries'].length, 90 - (26 + 9 - 2));
    assert.equal(macd.json['timeseries'][0].date, ninety[26 + 9 - 2]!.date);
    assert.deepEqual(Object.keys(macd.json['current']).sort(), ['histogram', 'macd', 'signal', 'trend']);
    assert.deepEqual(Object.keys(macd.json['interpretation']).sort(), ['description', 'signal', 'strength']);
    const custom = await call(server, 'GET', '/api/v1/technical-indicators/macd/ETH?days=60&fast_period=5&slow_period=13&signal_period=4', undefined, key);
    assert.equal(custom.status, 200);
    assert.equal(custom.json['timeseries'].length, 60 - (13 + 4 - 2));
    const refusals: Array<[string, RegExp]> = [
      ['days=34', /days/],
      ['days=366', /days/],
      ['fast_period=26&slow_period=26', /fast_period/],
      ['fast_period=30', /fast_period/],
      ['days=1.5', /days/],
      ['unknown=1', /unknown/],
    ];
    for (const [query, names] of refusals) {
      const refused = await call(server, 'GET', `/api/v1/technical-indicators/macd/BTC?${query}`, undefined, key);
      assert.equal(refused.status, 422, query);
      assert.equal(refused.json['error'].code, 'VALIDATION_FAILED', query);
      assert.match(refused.json['error'].message, names, query);
    }

    // Closed first: the oracle journals until it is stopped, so the live state is final only then.
    await server.close();
    closed = true;
    const live = server.context.durable.engine;
    const liveHash = stateHash(live);
    const liveCloses = pricesOf(live).closes('BTC', 400);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
    assert.deepEqual(pricesOf(replayed).closes('BTC', 400), liveCloses);
  } finally {
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
