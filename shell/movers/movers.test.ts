/**
 * The movers routes on a real server fed by a price file of two assets (BTC and ETH): the tournament read
 * anonymously and with a key (my_entry only with one), every 422 reason of an entry naming the symbol
 * (too many, duplicate, unknown, unpriced), an accepted entry with its entry prices, a second entry 409,
 * the screen's shape and bounds, and 401 for an entry without credentials.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('the movers tournament over HTTP: reads, entries and their refusals, the screen', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'movers-'));
  const priceFile = join(dataDir, 'prices.csv');
  const rows = ['timestamp,symbol,price'];
  // Ten days of closes for BTC and ETH ending today, so the screen ranks both.
  for (let day = 9; day >= 0; day--) {
    const date = new Date(Date.now() - day * 86_400_000).toISOString().slice(0, 10);
    rows.push(`${date},BTC,${90_000 + 1000 * (9 - day)}`, `${date},ETH,${3000 - 10 * (9 - day)}`);
  }
  writeFileSync(priceFile, rows.join('\n'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_FEED: 'file', PRICE_FILE: priceFile, PRICE_TICK_MS: '100', MOVERS_ROUND_MS: '3600000' });
  const server = await startServer(config, silentLog);
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'movers@example.com', password: 'correct horse', username: 'mover' });
    const key = { 'x-api-key': (await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` })).json['api_key'] };
    await until('the first round', async () => (await call(server, 'GET', '/api/v1/universe/movers/tournament')).json['round'] === 1);
    await until('BTC and ETH priced', async () => (await call(server, 'GET', '/api/v1/universe/movers/potential')).json['ranked'] === 2);

    const anonymous = await call(server, 'GET', '/api/v1/universe/movers/tournament');
    assert.equal(anonymous.status, 200);
    assert.equal(anonymous.json['round_length_seconds'], 3600);
    assert.ok(anonymous.json['countdown_seconds'] > 0 && anonymous.json['countdown_seconds'] <= 3600);
    assert.deepEqual(anonymous.json['leaderboard'], []);
    assert.equal('my_entry' in anonymous.json, false);
    assert.equal(anonymous.json['round_end'].slice(14), '00:00.000Z', 'rounds end on whole hours');

    const refusals: Array<[unknown, string, RegExp]> = [
      [['BTC', 'ETH', 'SOL', 'DOGE', 'AAPL', 'MSFT'], 'MOVERS_SYMBOL_COUNT', /too many: 6 symbols.*at most 5/],
      [[], 'MOVERS_SYMBOL_COUNT', /too few/],
      [['btc', 'BTC'], 'MOVERS_DUPLICATE_SYMBOL', /symbols\[1\]: BTC is a duplicate/],
      [['BTC', 'NOPE'], 'MOVERS_UNKNOWN_SYMBOL', /symbols\[1\]: NOPE is unknown/],
      [['ETH', 'AAPL'], 'MOVERS_SYMBOL_UNPRICED', /symbols\[1\]: AAPL is unpriced/],
    ];
    for (const [symbols, code, message] of refusals) {
      const refused = await call(server, 'POST', '/api/v1/universe/movers/tournament/enter', { symbols }, key);
      assert.equal(refused.status, 422, JSON.stringify(symbols));
      assert.equal(refused.json['error']['code'], code);
      assert.match(refused.json['error']['message'], message);
    }
    assert.equal((await call(server, 'POST', '/api/v1/universe/movers/tournament/enter', { symbols: ['BTC'] })).status, 401);

    const entered = await call(server, 'POST', '/api/v1/universe/movers/tournament/enter', { symbols: ['eth', 'BTC'] }, key);
    assert.equal(entered.status, 201);
    assert.deepEqual(Object.keys(entered.json).sort(), ['entered_at', 'entry_id', 'entry_prices', 'round', 'symbols']);
    assert.deepEqual(entered.json['symbols'], ['ETH', 'BTC']);
    assert.deepEqual(entered.json['entry_prices'], ['2910', '99000']);
    const again = await call(server, 'POST', '/api/v1/universe/movers/tournament/enter', { symbols: ['BTC'] }, key);
    assert.equal(again.status, 409);
    assert.equal(again.json['error']['code'], 'MOVERS_ALREADY_ENTERED');

    const mine = await call(server, 'GET', '/api/v1/universe/movers/tournament', undefined, key);
    assert.equal(mine.json['entries'], 1);
    assert.equal(mine.json['my_entry']['entry_id'], entered.json['entry_id']);
    assert.equal(mine.json['my_entry']['score_pct'], '0.000000');
    assert.equal(mine.json['leaderboard'][0]['rank'], 1);

    const screen = await call(server, 'GET', '/api/v1/universe/movers/potential?limit=1');
    assert.equal(screen.status, 200);
    assert.equal(screen.json['symbols'].length, 1);
    // BTC rose 1000 a day and ETH fell 10 a day: BTC leads.
    assert.equal(screen.json['symbols'][0]['symbol'], 'BTC');
    assert.deepEqual(Object.keys(screen.json['symbols'][0]).sort(), ['asset_type', 'momentum_30d_pct', 'momentum_7d_pct', 'price', 'rank', 'score', 'symbol', 'volatility_30d_pct']);
    const bad = await call(server, 'GET', '/api/v1/universe/movers/potential?limit=101');
    assert.equal(bad.status, 422);
    assert.match(bad.json['error']['message'], /query\.limit: must be 1 to 100/);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
