/**
 * The prediction markets' streams on a real server with `ws` clients and the `sim` price feed ticking
 * every 100 ms: subscribe answers and snapshots on /ws/markets/{market_id}/orderbook/{asset}, orderbook
 * updates after orders, trades after a match, price updates after oracle ticks, market_status through
 * activation and completion (a market starting about 2 s ahead and ending 3 s later), seq continuity per
 * topic, bad frames answered while the connection stays open, upgrades refused 404 in the error shape,
 * and the legacy /ws/orderbook/{contract_address}'s snapshots of every book as it opens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

type Message = Record<string, any>;

async function user(server: RunningServer, name: string): Promise<{ userId: number; headers: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  const userId = registered.json['user_id'] as number;
  assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset: 'USDC', amount: '1000' }, { 'x-api-key': 'admin' })).status, 200);
  return { userId, headers: { 'x-api-key': key.json['api_key'] } };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

class Client {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;

  constructor(port: number, path: string) {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    this.socket.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString('utf8')) as Message));
  }

  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  of(type: string, where: (message: Message) => boolean = () => true): Message[] {
    return this.messages.filter((message) => message['type'] === type && where(message));
  }

  /** Waits for the `count`th message of `type` matching `where`, and returns it. */
  async wait(type: string, where: (message: Message) => boolean = () => true, count = 1): Promise<Message> {
    await until(`${count} × ${type}`, () => this.of(type, where).length >= count);
    return this.of(type, where)[count - 1]!;
  }
}

/** The topic a server message belongs to, or null for answers (subscribed, errors, pong). */
function topicOf(message: Message): string | null {
  const asset = message['asset'] as string | undefined;
  switch (message['type']) {
    case 'orderbook_snapshot':
    case 'orderbook_update':
      return `orderbook:${asset}`;
    case 'trades_snapshot':
    case 'trade':
      return `trades:${asset}`;
    case 'price_update':
      return `prices:${asset}`;
    case 'market_status':
      return 'market';
    default:
      return null;
  }
}

/** Every topic's messages carry consecutive seqs from its snapshot on. */
function assertSeqContinuity(client: Client): void {
  const last = new Map<string, number>();
  for (const message of client.messages) {
    const topic = topicOf(message);
    if (topic === null) continue;
    assert.equal(typeof message['seq'], 'number', JSON.stringify(message));
    const previous = last.get(topic);
    if (previous !== undefined) assert.equal(message['seq'], previous + 1, `${topic}: ${JSON.stringify(message)}`);
    last.set(topic, message['seq']);
  }
}

async function refusedUpgrade(port: number, path: string): Promise<{ status: number; body: Message }> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
  return await new Promise((resolve) => {
    // An upgrade that succeeds fails the test at once instead of waiting for a refusal that never comes.
    socket.once('open', () => {
      socket.terminate();
      resolve({ status: 101, body: {} });
    });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Message }));
    });
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

test('the markets streams: snapshots, book, trade, price and status messages with seq per topic; bad frames and 404 upgrades', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'markets-stream-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_SEED: '5', ADMIN_API_KEY: 'admin' });
  const server = await startServer(config, silentLog);
  const clients: Client[] = [];
  const connect = async (path: string): Promise<Client> => {
    const client = new Client(server.port, path);
    clients.push(client);
    await client.open();
    return client;
  };
  try {
    const alice = await user(server, 'alice');
    const bob = await user(server, 'bob');
    for (const asset of ['BTC', 'ETH']) await until(`a price of ${asset}`, async () => (await call(server, 'GET', `/api/v1/prices/${asset}`, undefined, alice.headers)).status === 200);

    const startMs = Date.now() + 2_000;
    const created = await call(server, 'POST', '/api/v1/markets', { name: 'Sprint', description: 'BTC or ETH', assets: ['BTC', 'ETH'], asset_type: 'crypto', token: 'USDC', start_time: iso(startMs), end_time: iso(startMs + 3_000), min_bet: '1', max_bet: '100' }, alice.headers);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json['id'] as number;
    const address = created.json['contract_address'] as string;
    const names = { market_id: id, contract_address: address };

    // The per-asset path, by id; a subscribe's asset defaults to the path's.
    const a = await connect(`/ws/markets/${id}/orderbook/btc`);
    a.send({ action: 'subscribe', channel: 'market' });
    a.send({ action: 'subscribe', channel: 'orderbook' });
    a.send({ action: 'subscribe', channel: 'trades' });
    a.send({ action: 'subscribe', channel: 'prices' });
    a.send({ action: 'subscribe', channel: 'orderbook', asset: 'eth' });
    await until('five subscriptions', () => a.of('subscribed').length === 5);
    assert.deepEqual(a.of('subscribed')[0], { type: 'subscribed', channel: 'market', ...names });
    assert.deepEqual(a.of('subscribed')[1], { type: 'subscribed', channel: 'orderbook', ...names, asset: 'BTC' });
    assert.deepEqual(a.of('subscribed')[4], { type: 'subscribed', channel: 'orderbook', ...names, asset: 'ETH' });
    const status = await a.wait('market_status');
    assert.equal(status['status'], 'pending');
    assert.equal(status['start_prices'], null);
    assert.equal(status['start_time'], iso(startMs));
    const emptyBook = { bids: [], asks: [], best_bid: null, best_ask: null, spread: null };
    const btcBook = await a.wait('orderbook_snapshot', (message) => message['asset'] === 'BTC');
    assert.deepEqual(btcBook, { type: 'orderbook_snapshot', ...names, asset: 'BTC', ...emptyBook, seq: 0 });
    assert.deepEqual(await a.wait('trades_snapshot'), { type: 'trades_snapshot', ...names, asset: 'BTC', trades: [], seq: 0 });
    const priceSnapshot = await a.wait('price_update');
    assert.equal(priceSnapshot['asset'], 'BTC');
    assert.match(priceSnapshot['price'], /^[0-9]+(\.[0-9]{1,8})?$/);
    assert.ok(priceSnapshot['change_24h'] === null || /^-?[0-9]+\.[0-9]{2}$/.test(priceSnapshot['change_24h']));

    // The legacy path, by address: every book's snapshot as it opens, without asking.
    const legacy = await connect(`/ws/orderbook/${address}`);
    await until('the legacy snapshots', () => legacy.of('orderbook_snapshot').length === 2);
    assert.deepEqual(legacy.of('subscribed').map((message) => [message['channel'], message['asset']]), [['orderbook', 'BTC'], ['orderbook', 'ETH']]);
    assert.deepEqual(legacy.of('orderbook_snapshot').map((message) => message['asset']), ['BTC', 'ETH']);
    assert.deepEqual(legacy.of('orderbook_snapshot')[1], { type: 'orderbook_snapshot', ...names, asset: 'ETH', ...emptyBook, seq: 0 });
    legacy.send({ action: 'subscribe', channel: 'trades', asset: 'BTC' });
    await legacy.wait('trades_snapshot');

    // Bad frames are answered and the connection stays open; a ping still gets its pong.
    const bad: Array<[unknown, string]> = [
      ['not json', 'MALFORMED_JSON'],
      [[1, 2], 'VALIDATION_FAILED'],
      [{ action: 'dance' }, 'VALIDATION_FAILED'],
      [{ action: 'subscribe', channel: 'weather' }, 'VALIDATION_FAILED'],
      [{ action: 'subscribe', channel: 'trades', asset: 'DOGE' }, 'ASSET_NOT_FOUND'],
      [{ action: 'subscribe', channel: 'trades', asset: 7 }, 'VALIDATION_FAILED'],
    ];
    for (const [frame] of bad) a.send(frame);
    await until('the errors', () => a.of('error').length === bad.length);
    assert.deepEqual(a.of('error').map((message) => message['error'].code), bad.map(([, code]) => code));
    assert.match(a.of('error')[4]!['error'].message, /BTC, ETH/);
    legacy.send({ action: 'subscribe', channel: 'orderbook' });
    await until('the legacy path needs an asset', () => legacy.of('error').length === 1);
    assert.match(legacy.of('error')[0]!['error'].message, /^asset:/);
    a.send({ action: 'ping' });
    await a.wait('pong');
    assert.equal(a.socket.readyState, WebSocket.OPEN);

    // Upgrades of unknown markets and assets are refused in the error shape.
    for (const [path, code] of [
      ['/ws/markets/999999/orderbook/BTC', 'MARKET_NOT_FOUND'],
      [`/ws/markets/0x${'0'.repeat(40)}/orderbook/BTC`, 'MARKET_NOT_FOUND'],
      [`/ws/markets/${address}/orderbook/DOGE`, 'ASSET_NOT_FOUND'],
      [`/ws/orderbook/0x${'1'.repeat(40)}`, 'MARKET_NOT_FOUND'],
    ] as const) {
      const refused = await refusedUpgrade(server.port, path);
      assert.equal(refused.status, 404, path);
      assert.equal(refused.body['error'].code, code, path);
    }

    // A resting bid: the book's full levels on both paths, with the same seq.
    const orders = `/api/v1/markets/${address}/orders`;
    assert.equal((await call(server, 'POST', orders, { user_id: alice.userId, asset: 'BTC', side: 'buy', price: '0.6', quantity: '2' }, alice.headers)).status, 201);
    const rested = await a.wait('orderbook_update', (message) => message['asset'] === 'BTC');
    assert.deepEqual({ ...rested, timestamp: undefined }, { type: 'orderbook_update', ...names, asset: 'BTC', bids: [{ price: '0.600', quantity: '2.000', orders: 1 }], asks: [], best_bid: '0.600', best_ask: null, spread: null, timestamp: undefined, seq: 1 });
    assert.deepEqual(await legacy.wait('orderbook_update'), rested);
    // A crossing sell: one trade at the maker's price, then the book with what is left.
    assert.equal((await call(server, 'POST', orders, { user_id: bob.userId, asset: 'BTC', side: 'sell', price: '0.55', quantity: '1.5' }, bob.headers)).status, 201);
    const trade = await a.wait('trade');
    assert.deepEqual({ ...trade, timestamp: undefined }, { type: 'trade', ...names, asset: 'BTC', price: '0.600', quantity: '1.500', side: 'sell', timestamp: undefined, seq: 1 });
    assert.match(trade['timestamp'], /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(await legacy.wait('trade'), trade);
    const afterTrade = await a.wait('orderbook_update', (message) => message['asset'] === 'BTC', 2);
    assert.deepEqual(afterTrade['bids'], [{ price: '0.600', quantity: '0.500', orders: 1 }]);
    assert.equal(afterTrade['seq'], 2);
    // An ask on ETH: a spread once both sides are there.
    assert.equal((await call(server, 'POST', orders, { user_id: bob.userId, asset: 'ETH', side: 'sell', price: '0.7', quantity: '1' }, bob.headers)).status, 201);
    assert.equal((await call(server, 'POST', orders, { user_id: alice.userId, asset: 'ETH', side: 'buy', price: '0.4', quantity: '1' }, alice.headers)).status, 201);
    const ethBook = await a.wait('orderbook_update', (message) => message['asset'] === 'ETH', 2);
    assert.deepEqual([ethBook['best_bid'], ethBook['best_ask'], ethBook['spread']], ['0.400', '0.700', '0.300']);
    // A WTA bet on each asset.
    assert.equal((await call(server, 'POST', `/api/v1/wta/markets/${id}/bet`, { user_id: alice.userId, asset: 'ETH', amount: '5' }, alice.headers)).status, 201);
    assert.equal((await call(server, 'POST', `/api/v1/wta/markets/${address}/bet`, { user_id: bob.userId, asset: 'BTC', amount: '5' }, bob.headers)).status, 201);

    // Oracle ticks reach the subscriber as price updates; unsubscribing is answered.
    await a.wait('price_update', () => true, 3);
    a.send({ action: 'unsubscribe', channel: 'prices' });
    await a.wait('unsubscribed');
    assert.deepEqual(a.of('unsubscribed')[0], { type: 'unsubscribed', channel: 'prices', ...names, asset: 'BTC' });

    // Activation, then completion with the results; the books are sent empty once more.
    const active = await a.wait('market_status', (message) => message['status'] === 'active');
    assert.deepEqual(Object.keys(active['start_prices']), ['BTC', 'ETH']);
    assert.equal(active['seq'], 1);
    const completed = await a.wait('market_status', (message) => message['status'] === 'completed');
    assert.equal(completed['seq'], 2);
    assert.equal(completed['token'], 'USDC');
    assert.deepEqual(completed['standings'].map((row: Message) => row['asset']), ['BTC', 'ETH']);
    assert.ok(completed['winners'].length >= 1);
    assert.equal(completed['wta'].pool, '10.000000');
    assert.equal(completed['wta'].payouts.length, 2);
    assert.equal(completed['positions_payouts'].length > 0, true);
    const results = await call(server, 'GET', `/api/v1/markets/${address}/results`, undefined, alice.headers);
    assert.deepEqual(completed['standings'], results.json['standings']);
    assert.deepEqual(completed['wta'], results.json['wta']);
    assert.deepEqual(completed['positions_payouts'], results.json['positions_payouts']);
    const finalBtc = await a.wait('orderbook_update', (message) => message['asset'] === 'BTC' && message['bids'].length === 0);
    assert.deepEqual([finalBtc['bids'], finalBtc['asks'], finalBtc['best_bid']], [[], [], null]);
    await legacy.wait('orderbook_update', (message) => message['asset'] === 'ETH' && message['bids'].length === 0 && message['asks'].length === 0);

    // A subscriber arriving after the end gets the completed status with its results as the snapshot.
    const late = await connect(`/ws/markets/${address}/orderbook/ETH`);
    late.send({ action: 'subscribe', channel: 'market' });
    const lateStatus = await late.wait('market_status');
    assert.equal(lateStatus['status'], 'completed');
    assert.deepEqual(lateStatus['winners'], completed['winners']);

    for (const client of [a, legacy]) assertSeqContinuity(client);
    assert.equal(a.socket.readyState, WebSocket.OPEN);
  } finally {
    for (const client of clients) client.socket.terminate();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
