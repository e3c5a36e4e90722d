/**
 * The arena over HTTP and /ws/arena on a real server with two-second epochs: every route with its bad
 * input, an order that trades with the house, one that rests and is cancelled (not by another user),
 * positions that outlive an epoch, the stream's snapshots, a trade and an epoch's resolution in sequence,
 * bad frames answered; the journal replays to the live state hash. A second server starts without the
 * automatic seed: the market is 404 until POST /seed creates it, once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Engine } from '../../engine/core/engine.ts';
import { Result } from '../../engine/core/results.ts';
import { stateHash } from '../../engine/core/state-hash.ts';
import { readJournal } from '../../engine/journal/reader.ts';
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

type Message = Record<string, any>;

async function user(server: RunningServer, name: string): Promise<{ userId: number; key: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  return { userId: registered.json['user_id'], key: { 'x-api-key': key.json['api_key'] } };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

class Client {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;

  constructor(port: number) {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}/ws/arena`);
    this.socket.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString('utf8')) as Message));
  }

  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  of(type: string, key?: (message: Message) => boolean): Message[] {
    return this.messages.filter((message) => message['type'] === type && (key === undefined || key(message)));
  }
}

function serverConfig(dataDir: string, extra: Record<string, string> = {}) {
  return loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AMM_CHAINS: '',
    PRICE_TICK_MS: '100',
    PRICE_HISTORY_DAYS: '3',
    ADMIN_API_KEY: 'arena-admin',
    ARENA_EPOCH_MS: '2000',
    ARENA_MM_SIZE: '10',
    ARENA_MM_INVENTORY_MAX: '100',
    ...extra,
  });
}

test('the arena routes and /ws/arena on a running server; the journal replays to the same state', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'arena-'));
  const server = await startServer(serverConfig(dataDir), silentLog);
  let closed = false;
  const client = new Client(server.port);
  try {
    await client.open();
    // The shell seeded the arena at start: a running epoch and both books quoted by the house.
    const market = await call(server, 'GET', '/api/v1/arena/market');
    assert.equal(market.status, 200);
    assert.equal(market.json['market_id'], 'arena');
    assert.equal(market.json['nav_base'], '100.000000');
    assert.deepEqual(market.json['teams'].map((team: Message) => team.team), ['BLUE', 'RED']);
    for (const team of market.json['teams']) {
      assert.match(team.nav, /^[0-9]+\.[0-9]{6}$/);
      assert.match(team.return_pct, /^-?[0-9]+\.[0-9]{2}$/);
      assert.notEqual(team.best_bid, null);
      assert.notEqual(team.best_ask, null);
    }
    assert.ok(market.json['epoch'].epoch >= 1);
    assert.deepEqual(Object.keys(market.json['scoreboard']).sort(), ['BLUE', 'RED', 'ties']);
    assert.equal(market.json['house'].size, '10.000');

    const teams = await call(server, 'GET', '/api/v1/arena/teams');
    assert.equal(teams.status, 200);
    const blue = teams.json['teams'][0];
    assert.equal(blue.portfolio.length, 10);
    assert.deepEqual(blue.portfolio[0].asset, 'BTC');
    assert.equal(blue.portfolio.reduce((sum: number, row: Message) => sum + row.weight_bps, 0), 10_000);
    assert.match(blue.portfolio[0].start_price, /^[0-9]+\.[0-9]{8}$/);

    const book = await call(server, 'GET', '/api/v1/arena/orderbook/blue?depth=5');
    assert.equal(book.status, 200);
    assert.equal(book.json['team'], 'BLUE');
    assert.ok(book.json['bids'].length >= 1 && book.json['asks'].length >= 1);
    assert.ok(Number(book.json['best_bid']) < Number(book.json['best_ask']));
    assert.equal((await call(server, 'GET', '/api/v1/arena/orderbook/RED')).status, 200);
    const green = await call(server, 'GET', '/api/v1/arena/orderbook/green');
    assert.equal(green.status, 404);
    assert.equal(green.json['error'].code, 'TEAM_NOT_FOUND');
    for (const query of ['depth=0', 'depth=501', 'depth=x', 'other=1']) {
      assert.equal((await call(server, 'GET', `/api/v1/arena/orderbook/BLUE?${query}`)).status, 422, query);
    }

    const current = await call(server, 'GET', '/api/v1/arena/epoch/current');
    assert.equal(current.status, 200);
    assert.deepEqual(Object.keys(current.json).sort(), ['countdown_seconds', 'end', 'epoch', 'epoch_seconds', 'leader', 'start', 'status', 'teams', 'updated_at']);
    assert.equal(current.json['epoch_seconds'], 2);
    assert.ok(current.json['countdown_seconds'] >= 0 && current.json['countdown_seconds'] <= 2);
    assert.equal((await call(server, 'GET', '/api/v1/arena/epoch/999999')).json['error'].code, 'EPOCH_NOT_FOUND');
    assert.equal((await call(server, 'GET', '/api/v1/arena/epoch/abc')).status, 422);
    assert.equal((await call(server, 'GET', '/api/v1/arena/history?limit=0')).status, 422);
    const headlines = await call(server, 'GET', '/api/v1/arena/headlines?limit=5');
    assert.equal(headlines.status, 200);
    assert.match(headlines.json['headlines'].at(-1).text, /arena opens|takes the lead|mover|Epoch/);
    assert.equal((await call(server, 'GET', '/api/v1/arena/headlines?limit=51')).status, 422);

    // The stream subscribed the connection to every topic and sent each snapshot.
    await until('seven subscriptions', () => client.of('subscribed').length === 7);
    await until('snapshots', () => client.of('orderbook_update', (message) => message['snapshot'] === true).length === 2);
    assert.equal(client.of('nav_snapshot').length, 1);
    assert.equal(client.of('epoch_state').length, 1);
    assert.equal(client.of('headlines').length, 1);

    // Orders: a buyer and another user.
    const alice = await user(server, 'alice');
    const bob = await user(server, 'bob');
    const credit = await call(server, 'POST', '/admin/v1/credit', { user_id: alice.userId, asset: 'USDC', amount: '10000' }, { 'x-api-key': 'arena-admin' });
    assert.equal(credit.status, 200);
    const refusals: Array<[Message, number, RegExp | string]> = [
      [{ team: 'green', side: 'buy', size: '1', price: '100' }, 422, /body\.team/],
      [{ team: 'BLUE', side: 'hold', size: '1', price: '100' }, 422, /body\.side/],
      [{ team: 'BLUE', side: 'buy', price: '100' }, 422, /body\.size/],
      [{ team: 'BLUE', side: 'buy', size: '1', quantity: '2', price: '100' }, 422, /body\.quantity/],
      [{ team: 'BLUE', side: 'buy', size: '0.0001', price: '100' }, 422, /body\.size/],
      [{ team: 'BLUE', side: 'buy', size: '1', price: '100.001' }, 422, /body\.price/],
      [{ team: 'BLUE', side: 'buy', size: '1', price: '-1' }, 422, /body\.price/],
      [{ team: 'BLUE', side: 'buy', size: '1', price: '100', extra: 1 }, 422, /extra/],
      [{ team: 'RED', side: 'sell', size: '1', price: '100' }, 422, 'INSUFFICIENT_SHARES'],
      [{ team: 'RED', side: 'buy', size: '1000', price: '100' }, 422, 'INSUFFICIENT_BALANCE'],
    ];
    for (const [body, status, expected] of refusals) {
      const refused = await call(server, 'POST', '/api/v1/arena/order', body, alice.key);
      assert.equal(refused.status, status, JSON.stringify(body));
      if (typeof expected === 'string') assert.equal(refused.json['error'].code, expected);
      else assert.match(refused.json['error'].message, expected, JSON.stringify(body));
    }
    assert.equal((await call(server, 'POST', '/api/v1/arena/order', { team: 'BLUE', side: 'buy', size: '1', price: '100' })).status, 401);

    const bestAsk = Number((await call(server, 'GET', '/api/v1/arena/orderbook/BLUE')).json['best_ask']);
    const bought = await call(server, 'POST', '/api/v1/arena/order', { team: 'blue', side: 'buy', quantity: '1.5', price: (bestAsk + 5).toFixed(2) }, alice.key);
    assert.equal(bought.status, 201, JSON.stringify(bought.json));
    assert.equal(bought.json['status'], 'filled');
    assert.equal(bought.json['size'], '1.500');
    assert.equal(bought.json['filled_size'], '1.500');
    assert.equal(bought.json['fills'][0].maker, 'house');
    assert.ok(Number(bought.json['fee']) > 0);
    await until('the trade on the stream', () => client.of('trade', (message) => message['team'] === 'BLUE').length >= 1);
    const trade = client.of('trade')[0]!;
    assert.equal(trade['quantity'], '1.500');
    assert.equal(trade['taker_side'], 'buy');

    const resting = await call(server, 'POST', '/api/v1/arena/order', { team: 'RED', side: 'buy', size: '2', price: '1.00' }, alice.key);
    assert.equal(resting.status, 201);
    assert.equal(resting.json['status'], 'open');
    const orderId = resting.json['order_id'];
    let positions = await call(server, 'GET', '/api/v1/arena/positions', undefined, alice.key);
    assert.equal(positions.status, 200);
    assert.deepEqual(positions.json['positions'].map((row: Message) => [row.team, row.shares]), [['BLUE', '1.500']]);
    assert.deepEqual(positions.json['open_orders'].map((row: Message) => row.order_id), [orderId]);
    assert.equal((await call(server, 'GET', '/api/v1/arena/positions')).status, 401);
    assert.equal((await call(server, 'DELETE', `/api/v1/arena/order/${orderId}`, undefined, bob.key)).status, 404, 'not your order');
    assert.equal((await call(server, 'DELETE', '/api/v1/arena/order/xyz', undefined, alice.key)).status, 404);
    const cancelled = await call(server, 'DELETE', `/api/v1/arena/order/${orderId}`, undefined, alice.key);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.json['status'], 'cancelled');
    assert.equal(cancelled.json['cancelled_size'], '2.000');
    assert.equal((await call(server, 'DELETE', `/api/v1/arena/order/${orderId}`, undefined, alice.key)).json['error'].code, 'ARENA_ORDER_NOT_FOUND');

    // An epoch ends: its resolution on the stream and in the routes; the position stays.
    const epoch = (await call(server, 'GET', '/api/v1/arena/epoch/current')).json['epoch'];
    await until('an epoch resolution after the trade', () => client.of('epoch_resolved', (message) => message['epoch'] >= epoch).length >= 1);
    const resolution = client.of('epoch_resolved', (message) => message['epoch'] >= epoch)[0]!;
    assert.ok(['BLUE', 'RED', null].includes(resolution['winner']));
    assert.equal(resolution['next_epoch'].epoch, resolution['epoch'] + 1);
    const result = await call(server, 'GET', `/api/v1/arena/epoch/${resolution['epoch']}`);
    assert.equal(result.status, 200);
    assert.equal(result.json['winner'], resolution['winner']);
    assert.equal(result.json['teams'].length, 2);
    const history = await call(server, 'GET', '/api/v1/arena/history?limit=2');
    assert.ok(history.json['total'] >= 1);
    assert.ok(history.json['epochs'][0].epoch >= resolution['epoch']);
    positions = await call(server, 'GET', '/api/v1/arena/positions', undefined, alice.key);
    assert.ok(positions.json['epoch'] > epoch);
    assert.deepEqual(positions.json['positions'].map((row: Message) => [row.team, row.shares]), [['BLUE', '1.500']]);

    // Every topic's messages carry seq + 1, + 2, ... after its snapshot.
    const bookMessages = client.of('orderbook_update', (message) => message['team'] === 'BLUE');
    bookMessages.forEach((message, index) => index > 0 && assert.equal(message['seq'], bookMessages[0]!['seq'] + index));
    const navMessages = client.messages.filter((message) => message['type'] === 'nav_snapshot' || message['type'] === 'nav_update');
    navMessages.forEach((message, index) => index > 0 && assert.equal(message['seq'], navMessages[0]!['seq'] + index));
    assert.ok(client.of('orderbook_update', (message) => message['snapshot'] === false).length > 0);

    // Bad frames are answered and the connection stays open.
    const before = client.messages.length;
    client.socket.send('not json');
    client.socket.send(JSON.stringify({ action: 'subscribe', channel: 'orderbook' }));
    client.socket.send(JSON.stringify({ action: 'subscribe', channel: 'weather' }));
    client.socket.send(JSON.stringify({ action: 'ping' }));
    await until('answers to bad frames', () => client.messages.slice(before).filter((message) => message['type'] === 'error' || message['type'] === 'pong').length === 4);
    const errors = client.messages.slice(before).filter((message) => message['type'] === 'error').map((message) => message['error'].code);
    assert.deepEqual(errors, ['MALFORMED_JSON', 'VALIDATION_FAILED', 'VALIDATION_FAILED']);

    // The seed is idempotent: the same market.
    const seeded = await call(server, 'POST', '/api/v1/arena/seed', {}, bob.key);
    assert.equal(seeded.status, 200);
    assert.equal(seeded.json['created'], false);
    assert.equal(seeded.json['market_id'], 'arena');
    assert.equal((await call(server, 'POST', '/api/v1/arena/seed', {})).status, 401);

    client.socket.close();
    await server.close();
    closed = true;
    const liveHash = stateHash(server.context.durable.engine);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
  } finally {
    client.socket.close();
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('without the automatic seed the market is 404 until POST /seed creates it, once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'arena-seed-'));
  const server = await startServer(serverConfig(dataDir, { ARENA_AUTO_SEED: '0', ARENA_EPOCH_MS: '3600000' }), silentLog);
  try {
    const missing = await call(server, 'GET', '/api/v1/arena/market');
    assert.equal(missing.status, 404);
    assert.equal(missing.json['error'].code, 'ARENA_NOT_SEEDED');
    const carol = await user(server, 'carol');
    const [first, second] = await Promise.all([
      call(server, 'POST', '/api/v1/arena/seed', undefined, carol.key),
      call(server, 'POST', '/api/v1/arena/seed', {}, carol.key),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [200, 201]);
    assert.deepEqual([first.json['created'], second.json['created']].sort(), [false, true]);
    assert.equal(first.json['epoch'].epoch, second.json['epoch'].epoch);
    const market = await call(server, 'GET', '/api/v1/arena/market');
    assert.equal(market.status, 200);
    assert.equal(market.json['epoch'].epoch, 1);
    assert.ok(market.json['teams'].every((team: Message) => team.best_bid !== null && team.best_ask !== null));
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
