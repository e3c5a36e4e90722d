/**
 * History reads over HTTP against the real server: two users trade on ETH at set times, then order status,
 * order history, public trades, own fills, ticker, stats and candles are checked to the atom; another
 * user's order is a 404; bad input is a 422; and all of it is still there after a restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from './test-client.ts';

/** A registered user with an API key and live funds. */
async function fundedUser(server: RunningServer, name: string): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'history' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '100000'], ['ETH', '10']]) {
    const credit = await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' });
    assert.equal(credit.status, 200);
  }
  return { 'x-api-key': key.json['api_key'] as string };
}

const at = (time: string): number => Date.parse(`2026-01-01T${time}Z`);

test('order status, history, trades, fills, ticker, stats and chart over HTTP', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'history-'));
  const config: Config = loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' });
  let now = at('10:00:05');
  let server = await startServer(config, silentLog, () => now);
  try {
    const alice = await fundedUser(server, 'alice_history');
    const bob = await fundedUser(server, 'bob_history');
    const place = async (key: Record<string, string>, body: Record<string, unknown>): Promise<Record<string, any>> => {
      const placed = await call(server, 'POST', '/api/v1/exchange/eth/orders', body, key);
      assert.equal(placed.status, 201, JSON.stringify(placed.json));
      return placed.json;
    };
    const get = (path: string, key: Record<string, string> = {}) => call(server, 'GET', `/api/v1/exchange/${path}`, undefined, key);

    const ask = await place(alice, { side: 'sell', order_type: 'limit', quantity: '1', price: '3000', client_order_id: 'a-1' });
    now = at('10:00:30');
    const bid = await place(bob, { side: 'buy', order_type: 'limit', quantity: '0.4', price: '3000' }); // trade 1: 0.4 @ 3000
    now = at('10:01:00');
    const higherAsk = await place(alice, { side: 'sell', order_type: 'limit', quantity: '0.5', price: '3010' });
    now = at('10:01:10');
    const sweep = await place(bob, { side: 'buy', order_type: 'market', quantity: '1' }); // trades 2, 3: 0.6 @ 3000, 0.4 @ 3010
    now = at('11:05:00');
    const aliceBid = await place(alice, { side: 'buy', order_type: 'limit', quantity: '0.2', price: '2990' });
    const hit = await place(bob, { side: 'sell', order_type: 'limit', quantity: '0.2', price: '2990' }); // trade 4: 0.2 @ 2990
    const lowBid = await place(bob, { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2000' });
    assert.equal((await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${lowBid['order_id']}`, undefined, bob)).status, 200);
    const stop = await place(bob, { side: 'sell', order_type: 'stop_limit', quantity: '0.1', price: '2490', stop_price: '2500' });
    now = at('11:30:00');

    // One order: any status, with fees and the last change; someone else's order does not exist.
    const filledAsk = await get(`eth/orders/${ask['order_id']}`, alice);
    assert.equal(filledAsk.status, 200);
    assert.deepEqual(filledAsk.json, {
      order_id: ask['order_id'],
      client_order_id: 'a-1',
      symbol: 'ETH',
      pair: 'ETH/USDC',
      side: 'sell',
      order_type: 'limit',
      time_in_force: 'GTC',
      post_only: false,
      stp: 'cancel_taker',
      quantity: '1.0000',
      price: '3000.00',
      stop_price: null,
      mode: 'live',
      status: 'filled',
      filled_quantity: '1.0000',
      average_price: '3000.000000',
      created_at: '2026-01-01T10:00:05.000Z',
      twap_id: null,
      scale_id: null,
      sim_tx_hash: null,
      fee: '0.000000',
      fee_asset: 'USDC',
      updated_at: '2026-01-01T10:01:10.000Z',
    });
    // The placement record plus fees; a market order is IOC whatever time in force it was sent with.
    const { fills: _fills, ...placedSweep } = sweep;
    const sweepStatus = await get(`ETH/orders/${sweep['order_id']}`, bob);
    assert.deepEqual([sweepStatus.json['status'], sweepStatus.json['average_price']], ['filled', '3004.000000']);
    assert.deepEqual(sweepStatus.json, { ...placedSweep, time_in_force: 'IOC', fee: '3.004000', fee_asset: 'USDC', updated_at: '2026-01-01T10:01:10.000Z' });
    assert.equal((await get(`eth/orders/${higherAsk['order_id']}`, alice)).json['status'], 'partially_filled');
    assert.equal((await get(`eth/orders/${stop['order_id']}`, bob)).json['status'], 'pending');
    for (const [path, key] of [
      [`eth/orders/${ask['order_id']}`, bob],
      [`btc/orders/${ask['order_id']}`, alice],
      ['eth/orders/999999', alice],
      ['eth/orders/abc', alice],
      ['eth/orders/99999999999999999999', alice],
    ] as const) {
      const missing = await get(path, key);
      assert.deepEqual([missing.status, missing.json['error']?.code], [404, 'ORDER_NOT_FOUND'], path);
    }
    assert.equal((await get(`eth/orders/${ask['order_id']}`)).status, 401);

    // History: newest first, paged with before, filtered by status and mode.
    const bobOrders = [stop, lowBid, hit, sweep, bid].map((order) => order['order_id']);
    const history = await get('eth/orders/history', bob);
    assert.deepEqual(history.json['orders'].map((order: Record<string, string>) => order['order_id']), bobOrders);
    assert.deepEqual(history.json['orders'].map((order: Record<string, string>) => order['status']), ['pending', 'cancelled', 'filled', 'filled', 'filled']);
    assert.equal(history.json['next_before'], null);
    const firstPage = await get('eth/orders/history?limit=2', bob);
    assert.deepEqual([firstPage.json['orders'].length, firstPage.json['next_before']], [2, lowBid['order_id']]);
    const secondPage = await get(`eth/orders/history?limit=2&before=${firstPage.json['next_before']}`, bob);
    assert.deepEqual(secondPage.json['orders'].map((order: Record<string, string>) => order['order_id']), bobOrders.slice(2, 4));
    const filled = await get('eth/orders/history?status=filled', bob);
    assert.deepEqual(filled.json['orders'].map((order: Record<string, string>) => order['order_id']), bobOrders.slice(2));
    assert.deepEqual((await get('eth/orders/history?mode=paper', bob)).json['orders'], []);
    assert.deepEqual((await get('eth/orders/history', alice)).json['orders'].map((order: Record<string, string>) => order['order_id']), [aliceBid, higherAsk, ask].map((order) => order['order_id']));

    // Public trades: newest first, the taker's side.
    const trades = await get('eth/trades');
    assert.deepEqual(
      trades.json['trades'].map((trade: Record<string, string>) => [trade['price'], trade['quantity'], trade['side'], trade['timestamp']]),
      [
        ['2990.00', '0.2000', 'sell', '2026-01-01T11:05:00.000Z'],
        ['3010.00', '0.4000', 'buy', '2026-01-01T10:01:10.000Z'],
        ['3000.00', '0.6000', 'buy', '2026-01-01T10:01:10.000Z'],
        ['3000.00', '0.4000', 'buy', '2026-01-01T10:00:30.000Z'],
      ],
    );
    const tradeIds = trades.json['trades'].map((trade: Record<string, string>) => trade['trade_id']);
    const latestTwo = await get('eth/trades?limit=2');
    assert.deepEqual([latestTwo.json['trades'].length, latestTwo.json['next_before']], [2, tradeIds[1]]);
    assert.deepEqual((await get(`eth/trades?before=${tradeIds[1]}`)).json['trades'].map((trade: Record<string, string>) => trade['trade_id']), tradeIds.slice(2));
    assert.deepEqual((await get('btc/trades')).json['trades'], []);

    // Own fills: role, own side, fee and order.
    const bobFills = await get('eth/trades/mine', bob);
    assert.deepEqual(
      bobFills.json['trades'].map((fill: Record<string, string>) => [fill['trade_id'], fill['order_id'], fill['role'], fill['side'], fill['quantity'], fill['quote_quantity'], fill['fee']]),
      [
        [tradeIds[0], hit['order_id'], 'taker', 'sell', '0.2000', '598.000000', '0.598000'],
        [tradeIds[1], sweep['order_id'], 'taker', 'buy', '0.4000', '1204.000000', '1.204000'],
        [tradeIds[2], sweep['order_id'], 'taker', 'buy', '0.6000', '1800.000000', '1.800000'],
        [tradeIds[3], bid['order_id'], 'taker', 'buy', '0.4000', '1200.000000', '1.200000'],
      ],
    );
    const aliceFills = await get('eth/trades/mine?limit=3', alice);
    assert.deepEqual(
      aliceFills.json['trades'].map((fill: Record<string, string>) => [fill['order_id'], fill['role'], fill['side'], fill['fee']]),
      [
        [aliceBid['order_id'], 'maker', 'buy', '0.000000'],
        [higherAsk['order_id'], 'maker', 'sell', '0.000000'],
        [ask['order_id'], 'maker', 'sell', '0.000000'],
      ],
    );
    assert.equal(aliceFills.json['next_before'], tradeIds[2]);
    assert.deepEqual((await get('eth/trades/mine?mode=paper', alice)).json['trades'], []);

    // Ticker and stats over the last 24 hours; market cap = price × circulating supply.
    const figures = {
      symbol: 'ETH',
      pair: 'ETH/USDC',
      price: '2990.00',
      open_24h: '3000.00',
      high_24h: '3010.00',
      low_24h: '2990.00',
      change_24h: '-10.00',
      change_percent_24h: '-0.33',
      volume_24h: '1.6000',
      quote_volume_24h: '4802.000000',
      trades_24h: 4,
      window_start: '2025-12-31T11:31:00.000Z',
      timestamp: '2026-01-01T11:30:00.000Z',
    };
    assert.deepEqual((await get('eth/ticker')).json, figures);
    assert.deepEqual((await get('eth/stats')).json, { ...figures, circulating_supply: '120700000', market_cap: '360893000000.00', market_cap_asset: 'USDC' });
    const quiet = (await get('plat/stats')).json;
    assert.deepEqual([quiet['price'], quiet['change_24h'], quiet['volume_24h'], quiet['market_cap']], [null, null, '0.00', null]);

    // Every pair with its ticker in one call: each pair's ticker as /ticker gives it, with its names and steps as /pairs does.
    const markets = await get('markets');
    assert.equal(markets.status, 200);
    assert.equal(markets.json['timestamp'], '2026-01-01T11:30:00.000Z');
    const { timestamp: _, ...ethFigures } = figures;
    const eth = markets.json['markets'].find((market: Record<string, unknown>) => market['symbol'] === 'ETH');
    assert.deepEqual(eth, { ...ethFigures, slug: 'eth', base: 'ETH', quote: 'USDC', tick_size: '0.01', lot_size: '0.0001' });
    const pairs = (await get('pairs')).json['pairs'] as Array<Record<string, unknown>>;
    assert.deepEqual(
      markets.json['markets'].map((market: Record<string, unknown>) => [market['symbol'], market['pair'], market['slug'], market['base'], market['quote'], market['tick_size'], market['lot_size']]),
      pairs.map((pair) => [pair['symbol'], pair['pair'], pair['slug'], pair['base'], pair['quote'], pair['tick_size'], pair['lot_size']]),
      'one entry per pair, in the order of /pairs',
    );
    for (const market of markets.json['markets'] as Array<Record<string, unknown>>) {
      const { timestamp: __, ...ticker } = (await get(`${market['slug']}/ticker`)).json;
      assert.deepEqual(Object.fromEntries(Object.keys(ticker).map((key) => [key, market[key]])), ticker, `${market['pair']}: the ticker's fields`);
    }
    now = at('11:30:00') + 24 * 3_600_000;
    const nextDay = (await get('eth/ticker')).json;
    assert.deepEqual([nextDay['price'], nextDay['open_24h'], nextDay['change_24h'], nextDay['volume_24h']], ['2990.00', '2990.00', '0.00', '0.0000'], 'a day later nothing traded');

    // Candles in time order, from the newest back or from a start.
    const ohlc = (candles: Array<Record<string, string>>) => candles.map((candle) => [candle['time'], candle['open'], candle['high'], candle['low'], candle['close'], candle['volume']]);
    assert.deepEqual(ohlc((await get('eth/chart?interval=1m')).json['candles']), [
      ['2026-01-01T10:00:00.000Z', '3000.00', '3000.00', '3000.00', '3000.00', '0.4000'],
      ['2026-01-01T10:01:00.000Z', '3000.00', '3010.00', '3000.00', '3010.00', '1.0000'],
      ['2026-01-01T11:05:00.000Z', '2990.00', '2990.00', '2990.00', '2990.00', '0.2000'],
    ]);
    const hourly = await get('eth/chart');
    assert.equal(hourly.json['interval'], '1h');
    assert.deepEqual(ohlc(hourly.json['candles']), [
      ['2026-01-01T10:00:00.000Z', '3000.00', '3010.00', '3000.00', '3010.00', '1.4000'],
      ['2026-01-01T11:00:00.000Z', '2990.00', '2990.00', '2990.00', '2990.00', '0.2000'],
    ]);
    assert.deepEqual(hourly.json['candles'][0], { time: '2026-01-01T10:00:00.000Z', open: '3000.00', high: '3010.00', low: '3000.00', close: '3010.00', volume: '1.4000', quote_volume: '4204.000000', trades: 3 });
    assert.deepEqual(ohlc((await get('eth/chart?interval=1d')).json['candles']), [['2026-01-01T00:00:00.000Z', '3000.00', '3010.00', '2990.00', '2990.00', '1.6000']]);
    const times = async (query: string) => (await get(`eth/chart?${query}`)).json['candles'].map((candle: Record<string, string>) => candle['time']!.slice(11, 16));
    assert.deepEqual(await times('interval=1m&limit=1'), ['11:05']);
    assert.deepEqual(await times('interval=1m&start=2026-01-01T10:01:30Z'), ['10:01', '11:05']);
    assert.deepEqual(await times('interval=1m&start=2026-01-01T10:00:00Z&limit=2'), ['10:00', '10:01']);
    assert.deepEqual(await times(`interval=5m&end=${at('10:59:00')}`), ['10:00']);

    // Bad input: 422 naming the field, or 404 for an unknown pair; never a 500.
    for (const path of [
      'eth/chart?interval=2m',
      'eth/chart?limit=0',
      'eth/chart?limit=1001',
      'eth/chart?start=yesterday',
      'eth/chart?start=2026-01-02T00:00:00Z&end=2026-01-01T00:00:00Z',
      'eth/chart?colour=red',
      'eth/trades?limit=1001',
      'eth/trades?limit=-1',
      'eth/trades?before=0',
    ]) {
      const refused = await get(path);
      assert.deepEqual([refused.status, refused.json['error']?.code], [422, 'VALIDATION_FAILED'], path);
    }
    for (const path of ['eth/orders/history?limit=501', 'eth/orders/history?status=done', 'eth/orders/history?before=abc', 'eth/trades/mine?mode=demo']) {
      const refused = await get(path, bob);
      assert.deepEqual([refused.status, refused.json['error']?.code], [422, 'VALIDATION_FAILED'], path);
    }
    for (const path of ['nope/trades', 'nope/stats', 'nope/ticker', 'nope/chart']) assert.equal((await get(path)).status, 404, path);

    // A restart serves the same history, and the same open orders (the memory is loaded from the tables):
    // bob's untriggered stop, by list, by id, and a live order with a client id by that id.
    const resting = await place(bob, { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2100', client_order_id: 'bob-rest' });
    const openPaths = ['orders/open', 'eth/orders/open', `eth/orders/${stop['order_id']}`, `eth/orders/${resting['order_id']}`, 'eth/orders/by-client-id/bob-rest'];
    const openBefore = await Promise.all(openPaths.map(async (path) => (await get(path, bob)).json));
    assert.deepEqual(
      (openBefore[0]!['orders'] as Array<Record<string, unknown>>).map((order) => [order['order_id'], order['status']]),
      [[resting['order_id'], 'open'], [stop['order_id'], 'pending']],
    );
    assert.equal(openBefore[4]!['order_id'], resting['order_id']);
    const before = (await get('eth/trades')).json;
    await server.close();
    server = await startServer(config, silentLog, () => now);
    assert.deepEqual((await get('eth/trades')).json, before);
    for (const [index, path] of openPaths.entries()) assert.deepEqual((await get(path, bob)).json, openBefore[index], path);
    assert.equal((await get(`eth/orders/${ask['order_id']}`, alice)).json['status'], 'filled');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
