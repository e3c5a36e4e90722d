/**
 * The prediction market routes on a real server with the `sim` price feed: creation and its 422s, one
 * market by address and by id, 404 MARKET_NOT_FOUND, orders (filled at the maker's price with the taker
 * fee, resting, cancelled; 403 on someone else's user_id; off-grid and out-of-range 422s; paper refused),
 * the order book's levels, own open orders, WTA bets, list paging over more than two pages with a market
 * created between pages, cursor and filter refusals, settlement by the runtime's timers (results, the
 * escrow drained, the resting order released), and a replay of the journal to the live state hash.
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
import { listSnapshots, loadSnapshotFile } from '../../engine/journal/snapshot-file.ts';
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { marketsOf } from '../../engine/domains/markets/index.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { MarketsView } from './view.ts';

interface Client {
  userId: number;
  headers: Record<string, string>;
}

async function client(server: RunningServer, name: string): Promise<Client> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  const userId = registered.json['user_id'] as number;
  assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset: 'USDC', amount: '10000' }, { 'x-api-key': 'admin' })).status, 200);
  return { userId, headers: { 'x-api-key': key.json['api_key'] } };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

test('prediction markets over HTTP: create, trade, bet, page, settle; the journal replays to the same state', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'markets-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_SEED: '3', ADMIN_API_KEY: 'admin' });
  const server = await startServer(config, silentLog);
  let closed = false;
  try {
    const alice = await client(server, 'alice');
    const bob = await client(server, 'bob');
    const a = alice.headers;
    const b = bob.headers;
    // Polls use a key of their own: a STANDARD key has 100 general requests a minute.
    const watcher = await client(server, 'watcher');
    for (const asset of ['BTC', 'ETH', 'SOL']) await until(`a price of ${asset}`, async () => (await call(server, 'GET', `/api/v1/prices/${asset}`, undefined, watcher.headers)).status === 200);

    // Creation and its refusals.
    const now = Date.now();
    const market = (overrides: Record<string, unknown> = {}) => ({
      name: 'Crypto sprint',
      description: 'Which of BTC, ETH and SOL gains most',
      assets: ['BTC', 'eth', 'SOL'],
      asset_type: 'crypto',
      token: 'USDC',
      start_time: iso(now + 2_500),
      end_time: iso(now + 6_000),
      min_bet: '1',
      max_bet: 100,
      ...overrides,
    });
    const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ assets: ['BTC', 'AAPL'] }, 'ASSET_TYPE_MISMATCH', /body\.assets\[1\]/],
      [{ assets: ['BTC', 'NOPE'] }, 'UNKNOWN_ASSET', /body\.assets\[1\]/],
      [{ assets: ['BTC'] }, 'VALIDATION_FAILED', /body\.assets/],
      [{ assets: ['BTC', 'btc'] }, 'VALIDATION_FAILED', /distinct/],
      [{ token: 'NOPE' }, 'INVALID_TOKEN', /body\.token/],
      [{ start_time: '2026-01-01 10:00' }, 'VALIDATION_FAILED', /body\.start_time/],
      [{ start_time: iso(now - 60_000) }, 'INVALID_SCHEDULE', /start_time/],
      [{ end_time: iso(now + 2_500) }, 'INVALID_SCHEDULE', /end_time/],
      [{ end_time: iso(now + 91 * 86_400_000) }, 'INVALID_SCHEDULE', /90 days/],
      [{ min_bet: '5', max_bet: '4' }, 'INVALID_BET_BOUNDS', /min_bet/],
      [{ min_bet: '0.0000001' }, 'TOO_MANY_DECIMALS', /body\.min_bet/],
      [{ extra: 1 }, 'VALIDATION_FAILED', /extra/],
    ];
    for (const [overrides, code, message] of refusals) {
      const refused = await call(server, 'POST', '/api/v1/markets', market(overrides), a);
      assert.equal(refused.status, 422, JSON.stringify(overrides));
      assert.equal(refused.json['error'].code, code, JSON.stringify(overrides));
      assert.match(refused.json['error'].message, message, JSON.stringify(overrides));
    }
    // Times from the moment of creation, so that a slow machine cannot push the start into the past.
    const startMs = Date.now() + 2_500;
    const created = await call(server, 'POST', '/api/v1/markets', market({ start_time: iso(startMs), end_time: iso(startMs + 12_000) }), a);
    assert.equal(created.status, 201);
    const record = created.json;
    assert.match(record['contract_address'], /^0x[0-9a-f]{40}$/);
    assert.equal(typeof record['id'], 'number');
    assert.deepEqual(record['assets'], ['BTC', 'ETH', 'SOL']);
    assert.equal(record['status'], 'pending');
    assert.equal(record['min_bet'], '1.000000');
    assert.equal(record['max_bet'], '100.000000');
    assert.equal(record['creator_user_id'], alice.userId);
    assert.equal(record['start_prices'], null);
    const address = record['contract_address'] as string;
    const id = record['id'] as number;
    assert.deepEqual((await call(server, 'GET', `/api/v1/markets/${address}`, undefined, b)).json, record);
    assert.deepEqual((await call(server, 'GET', `/api/v1/markets/${id}`, undefined, b)).json, record);
    assert.deepEqual((await call(server, 'GET', `/api/v1/markets/${address.toUpperCase().replace('0X', '0x')}`, undefined, b)).json, record);
    for (const path of [`/api/v1/markets/0x${'0'.repeat(40)}`, '/api/v1/markets/999999/results', '/api/v1/markets/nope/orderbook?asset=BTC']) {
      const missing = await call(server, 'GET', path, undefined, a);
      assert.deepEqual([missing.status, missing.json['error'].code], [404, 'MARKET_NOT_FOUND'], path);
    }
    assert.equal((await call(server, 'GET', `/api/v1/markets/${id}`)).status, 401);

    // Orders: alice bids 0.600 for 2 shares; bob sells 1 at 0.550 and fills at alice's 0.600.
    const orders = `/api/v1/markets/${address}/orders`;
    const bid = await call(server, 'POST', orders, { user_id: alice.userId, asset: 'BTC', side: 'buy', price: '0.6', quantity: 2 }, a);
    assert.equal(bid.status, 201);
    assert.equal(bid.json['status'], 'open');
    assert.equal(bid.json['price'], '0.600');
    assert.equal(bid.json['quantity'], '2.000');
    const orderRefusals: Array<[Record<string, unknown>, number, string]> = [
      [{ user_id: bob.userId }, 403, 'USER_MISMATCH'],
      [{ price: '0.6005' }, 422, 'PRICE_OFF_TICK'],
      [{ price: 1 }, 422, 'PRICE_OUT_OF_RANGE'],
      [{ price: '0' }, 422, 'ZERO_VALUE'],
      [{ quantity: '0.0001' }, 422, 'QUANTITY_OFF_LOT'],
      [{ quantity: '100001' }, 422, 'QUANTITY_OUT_OF_RANGE'],
      [{ asset: 'DOGE' }, 422, 'ASSET_NOT_IN_MARKET'],
      [{ mode: 'paper' }, 422, 'PAPER_NOT_SUPPORTED'],
      [{ quantity: '20000' }, 422, 'INSUFFICIENT_BALANCE'],
      [{ side: 'hold' }, 422, 'VALIDATION_FAILED'],
    ];
    for (const [overrides, status, code] of orderRefusals) {
      const refused = await call(server, 'POST', orders, { user_id: alice.userId, asset: 'ETH', side: 'buy', price: '0.5', quantity: '1', ...overrides }, a);
      assert.deepEqual([refused.status, refused.json['error'].code], [status, code], JSON.stringify(overrides));
    }
    const sell = await call(server, 'POST', orders, { user_id: bob.userId, asset: 'btc', side: 'sell', price: 0.55, quantity: '1' }, b);
    assert.equal(sell.status, 201);
    assert.equal(sell.json['status'], 'filled');
    assert.deepEqual(sell.json['fills'], [{ price: '0.600', quantity: '1.000', role: 'taker', fee: '0.000600' }]);
    const book = await call(server, 'GET', `/api/v1/markets/${id}/orderbook?asset=BTC`, undefined, b);
    assert.equal(book.status, 200);
    assert.deepEqual(book.json['bids'], [{ price: '0.600', quantity: '1.000', orders: 1 }]);
    assert.deepEqual(book.json['asks'], []);
    assert.equal(book.json['best_bid'], '0.600');
    assert.equal(book.json['spread'], null);
    assert.equal((await call(server, 'GET', `/api/v1/markets/${id}/orderbook`, undefined, b)).status, 422);
    assert.equal((await call(server, 'GET', `/api/v1/markets/${id}/orderbook?asset=DOGE`, undefined, b)).json['error'].code, 'ASSET_NOT_IN_MARKET');
    const mine = await call(server, 'GET', orders, undefined, a);
    assert.deepEqual(mine.json['orders'].map((order: { order_id: string; status: string; remaining_quantity: string }) => [order.order_id, order.status, order.remaining_quantity]), [[bid.json['order_id'], 'partially_filled', '1.000']]);
    assert.deepEqual((await call(server, 'GET', orders, undefined, b)).json['orders'], []);
    const foreign = await call(server, 'DELETE', `${orders}/${bid.json['order_id']}`, undefined, b);
    assert.deepEqual([foreign.status, foreign.json['error'].code], [404, 'MARKET_ORDER_NOT_FOUND']);
    const cancelled = await call(server, 'DELETE', `${orders}/${bid.json['order_id']}`, undefined, a);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.json['remaining_quantity'], '1.000');
    assert.deepEqual((await call(server, 'GET', `/api/v1/markets/${id}/orderbook?asset=BTC`, undefined, b)).json['bids'], []);
    // A bid that rests until the market ends: settlement cancels it and releases its hold.
    assert.equal((await call(server, 'POST', orders, { user_id: alice.userId, asset: 'SOL', side: 'buy', price: '0.1', quantity: '3' }, a)).status, 201);

    // WTA bets.
    const bet = (who: Client, body: Record<string, unknown>, path = `/api/v1/wta/markets/${id}/bet`) => call(server, 'POST', path, { user_id: who.userId, ...body }, who.headers);
    const placed = await bet(alice, { asset: 'ETH', amount: '5' });
    assert.equal(placed.status, 201);
    assert.equal(placed.json['pool'], '5.000000');
    assert.equal((await bet(bob, { asset: 'BTC', amount: 5 }, `/api/v1/wta/markets/${address}/bet`)).json['pool'], '10.000000');
    assert.deepEqual([(await bet(bob, { asset: 'BTC', amount: '0.5' })).json['error'].code], ['BET_OUT_OF_BOUNDS']);
    assert.equal((await bet(bob, { asset: 'BTC', amount: '101' })).status, 422);
    assert.equal((await call(server, 'POST', `/api/v1/wta/markets/${id}/bet`, { user_id: alice.userId, asset: 'BTC', amount: '5' }, b)).status, 403);
    assert.equal((await bet(bob, { asset: 'BTC', amount: '5', mode: 'paper' })).json['error'].code, 'PAPER_NOT_SUPPORTED');
    assert.equal((await bet(bob, { asset: 'BTC', amount: '5' }, '/api/v1/wta/markets/424242/bet')).status, 404);

    // Paging: 6 more markets far in the future, pages of 2, a new market created between pages.
    const later = (index: number) => market({ name: `Later ${index}`, start_time: iso(now + 3_600_000), end_time: iso(now + 7_200_000) });
    for (let index = 0; index < 6; index++) assert.equal((await call(server, 'POST', '/api/v1/markets', later(index), b)).status, 201);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? 'limit=2' : `limit=2&cursor=${cursor}`;
      const page = await call(server, 'GET', `/api/v1/markets?${query}`, undefined, a);
      assert.equal(page.status, 200);
      assert.ok(page.json['markets'].length <= 2);
      seen.push(...page.json['markets'].map((row: { id: number }) => row.id));
      cursor = page.json['cursor'];
      pages++;
      if (pages === 2) assert.equal((await call(server, 'POST', '/api/v1/markets', later(6), b)).status, 201);
    } while (cursor !== null);
    assert.ok(pages > 2, `pages: ${pages}`);
    assert.deepEqual(seen, Array.from({ length: 8 }, (_, index) => id + index), 'every market once, ascending, the inserted one included');
    const first = await call(server, 'GET', '/api/v1/markets?limit=2', undefined, a);
    const mismatched = await call(server, 'GET', `/api/v1/markets?limit=2&status=pending&cursor=${first.json['cursor']}`, undefined, a);
    assert.deepEqual([mismatched.status, mismatched.json['error'].code], [422, 'VALIDATION_FAILED']);
    assert.match(mismatched.json['error'].message, /query\.cursor/);
    for (const query of ['limit=0', 'limit=1001', 'cursor=%%%', 'cursor=bm9wZQ', 'status=open', 'asset_type=bond']) {
      const refused = await call(server, 'GET', `/api/v1/markets?${query}`, undefined, a);
      assert.equal(refused.status, 422, query);
    }
    const filtered = await call(server, 'GET', `/api/v1/markets?tickers=${address},0x${'1'.repeat(40)}&asset_type=crypto`, undefined, a);
    assert.deepEqual(filtered.json['markets'].map((row: { id: number }) => row.id), [id]);
    assert.deepEqual((await call(server, 'GET', '/api/v1/markets?asset_type=stock', undefined, a)).json['markets'], []);

    // Settlement by the runtime's timers.
    await until('the market to complete', async () => (await call(server, 'GET', `/api/v1/markets/${id}`, undefined, watcher.headers)).json['status'] === 'completed');
    const done = (await call(server, 'GET', `/api/v1/markets/${id}`, undefined, a)).json;
    assert.deepEqual(Object.keys(done['start_prices']), ['BTC', 'ETH', 'SOL']);
    assert.ok(done['winners'].length >= 1);
    const results = (await call(server, 'GET', `/api/v1/markets/${address}/results`, undefined, b)).json;
    assert.equal(results['status'], 'completed');
    assert.equal(results['standings'].length, 3);
    for (const row of results['standings']) {
      assert.match(row.change_pct, /^-?[0-9]+\.[0-9]{2}$/);
      assert.equal(row.rank === 1, done['winners'].includes(row.asset));
    }
    assert.equal(results['wta'].pool, '10.000000');
    assert.equal(results['wta'].bets.length, 2);
    const payouts = results['wta'].payouts as Array<{ user_id: number; asset: string; payout: string }>;
    const backedWinner = payouts.some((row) => done['winners'].includes(row.asset));
    assert.equal(results['wta'].refunded, !backedWinner);
    // One BTC share: alice held YES, bob NO; whichever side was right is paid 1 USDC.
    assert.equal(results['positions_payout_total'], '1.000000');
    const paid = results['positions_payouts'][0];
    assert.equal(paid.user_id, done['winners'].includes('BTC') ? alice.userId : bob.userId);
    assert.equal((await call(server, 'GET', orders, undefined, a)).json['orders'].length, 0, 'the resting bid was cancelled at the end');
    const late = await call(server, 'POST', orders, { user_id: alice.userId, asset: 'BTC', side: 'buy', price: '0.5', quantity: '1' }, a);
    assert.deepEqual([late.status, late.json['error'].code], [409, 'MARKET_COMPLETED']);
    assert.equal((await call(server, 'GET', `/api/v1/markets?status=completed`, undefined, a)).json['markets'].length, 1);

    await server.close();
    closed = true;
    const live = server.context.durable.engine;
    assert.equal(marketsOf(live).audit(), null);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), stateHash(live));

    // The shutdown snapshot restores the markets, and a view built from it (a restart) shows the results.
    const newest = listSnapshots(join(dataDir, 'snapshots'))[0]!;
    const restored = new Engine({ markets: loadMarkets(), domains: platformDomains });
    loadSnapshotFile(newest.path, restored);
    assert.equal(stateHash(restored), stateHash(live));
    const recovered = new MarketsView(restored);
    const settled = recovered.find(address)!;
    assert.deepEqual(settled.completion!.winners.map((index) => settled.assets[index]), done['winners']);
    assert.equal(recovered.markets.size, 8);
  } finally {
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
