/**
 * The exchange stream against the real server with `ws` clients: after a burst of orders from two users,
 * books rebuilt from snapshot + deltas (JSON, msgpack, and a subscriber that joined mid-burst) equal
 * GET /book; every topic's seq runs without gaps; trades and price updates arrive; bad input gets a clear
 * refusal; a subscriber that stops reading is disconnected rather than buffered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { decode, encode } from '@msgpack/msgpack';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

// Messages are checked field by field.
type Message = Record<string, any>;

class StreamClient {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;
  closed: { code: number } | null = null;

  constructor(server: RunningServer, path: string, readonly binary = false) {
    this.socket = new WebSocket(`ws://127.0.0.1:${server.port}${path}`);
    this.socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.messages.push((isBinary ? decode(data) : JSON.parse(data.toString('utf8'))) as Message);
    });
    this.socket.on('close', (code) => (this.closed = { code }));
  }

  async open(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) return;
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(this.binary ? encode(message) : JSON.stringify(message));
  }

  of(type: string, channel?: string): Message[] {
    return this.messages.filter((message) => message['type'] === type && (channel === undefined || message['channel'] === channel));
  }
}

async function until(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The book a subscriber holds: snapshot, then deltas in seq order (a gap fails the test). */
function rebuild(messages: Message[]): { bids: Array<[string, string]>; asks: Array<[string, string]>; seq: number } {
  const book = messages.filter((message) => message['type'] === 'orderbook_update');
  assert.equal(book[0]?.['snapshot'], true, 'a snapshot comes first');
  const sides = { bids: new Map<string, string>(), asks: new Map<string, string>() };
  let seq = -1;
  for (const message of book) {
    if (message['snapshot']) {
      seq = message['seq'];
      for (const side of ['bids', 'asks'] as const) sides[side] = new Map(message[side]);
      continue;
    }
    assert.equal(message['seq'], seq + 1, 'no gap in the orderbook seq');
    seq = message['seq'];
    for (const side of ['bids', 'asks'] as const) {
      for (const [price, quantity] of message[side] as Array<[string, string]>) {
        if (Number(quantity) === 0) sides[side].delete(price);
        else sides[side].set(price, quantity);
      }
    }
  }
  const sorted = (side: 'bids' | 'asks') => [...sides[side]].sort((a, b) => (side === 'bids' ? Number(b[0]) - Number(a[0]) : Number(a[0]) - Number(b[0])));
  return { bids: sorted('bids'), asks: sorted('asks'), seq };
}

async function trader(server: RunningServer, name: string): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'bot' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '10000000'], ['ETH', '10000']]) {
    await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' });
  }
  return { 'x-api-key': key.json['api_key'] as string };
}

test('stream subscribers rebuild the book from snapshot + deltas, equal to GET /book after a burst', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  const clients: StreamClient[] = [];
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    const json = new StreamClient(server, '/ws/exchange/ETH');
    const packed = new StreamClient(server, '/ws/exchange/eth?encoding=msgpack', true);
    clients.push(json, packed);
    await Promise.all([json.open(), packed.open()]);
    for (const channel of ['orderbook', 'trades', 'prices', 'market']) json.send({ action: 'subscribe', channel });
    packed.send({ action: 'subscribe', channel: 'orderbook' });
    await until('subscriptions', () => json.of('subscribed').length === 4 && packed.of('orderbook_update').length === 1);
    assert.deepEqual(json.of('orderbook_update')[0]!['bids'], []);

    // A burst: both users quote around 3000 and cross each other; some orders are cancelled or amended.
    let late: StreamClient | null = null;
    const placed: string[] = [];
    for (let round = 0; round < 10; round++) {
      const requests: Array<Promise<unknown>> = [];
      for (let index = 0; index < 20; index++) {
        const buy = (round + index) % 2 === 0;
        const price = (3000 + (buy ? -1 : 1) * ((index * 7 + round * 3) % 25) * 0.05 + (index % 5 === 0 ? (buy ? 1 : -1) : 0)).toFixed(2);
        const quantity = (0.1 + (index % 4) * 0.05).toFixed(2);
        requests.push(
          call(server, 'POST', '/api/v1/exchange/eth/orders', { side: buy ? 'buy' : 'sell', order_type: 'limit', quantity, price }, index % 3 === 0 ? bob : alice).then(
            (response) => {
              assert.equal(response.status, 201, JSON.stringify(response.json));
              if (response.json['status'] === 'open') placed.push(`${response.json['order_id']}:${index % 3 === 0 ? 'bob' : 'alice'}`);
            },
          ),
        );
      }
      await Promise.all(requests);
      const [victim] = placed.splice(round % Math.max(1, placed.length), 1);
      if (victim !== undefined) {
        const [id, owner] = victim.split(':');
        const cancel = await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${id}`, undefined, owner === 'bob' ? bob : alice);
        assert.ok(cancel.status === 200 || cancel.status === 404, JSON.stringify(cancel.json));
      }
      if (round === 4) {
        late = new StreamClient(server, '/ws/exchange/eth');
        clients.push(late);
        await late.open();
        late.send({ action: 'subscribe', channel: 'orderbook' });
      }
    }

    const book = await call(server, 'GET', '/api/v1/exchange/eth/book?depth=1000', undefined, alice);
    const expected = {
      bids: (book.json['bids'] as Array<Record<string, string>>).map((level) => [level['price'], level['quantity']]),
      asks: (book.json['asks'] as Array<Record<string, string>>).map((level) => [level['price'], level['quantity']]),
    };
    assert.ok(expected.bids.length + expected.asks.length > 10, 'the burst left a book');
    for (const client of [json, packed, late!]) {
      await until('the stream to match the book', () => {
        const rebuilt = rebuild(client.messages);
        return JSON.stringify([rebuilt.bids, rebuilt.asks]) === JSON.stringify([expected.bids, expected.asks]);
      });
    }
    assert.ok(late!.of('orderbook_update')[0]!['seq'] > 0, 'the late subscriber started from a non-empty snapshot');

    const trades = json.of('trade');
    assert.ok(trades.length > 0, 'the burst traded');
    trades.forEach((trade, index) => assert.equal(trade['seq'], index + 1));
    assert.match(trades[0]!['price'], /^\d+\.\d\d$/);
    assert.match(trades[0]!['trade_id'], /^[1-9][0-9]*$/, 'a string, as in REST');
    assert.ok(['buy', 'sell'].includes(trades[0]!['side']));
    assert.match(trades[0]!['timestamp'], /Z$/);
    const prices = json.of('price_update');
    assert.ok(prices.length > 0);
    assert.equal(prices.at(-1)!['price'], trades.at(-1)!['price']);
    const market = json.of('market_update');
    assert.ok(market.length > 0);
    assert.equal(market.at(-1)!['best_bid'], expected.bids[0]?.[0] ?? null);

    // Bad input: refused with a reason, the connection stays usable.
    json.send({ action: 'subscribe', channel: 'candles' });
    json.socket.send('{not json');
    json.send({ action: 'dance' });
    json.send({ action: 'ping' });
    await until('refusals', () => json.of('pong').length === 1);
    assert.deepEqual(
      json.of('error').map((message) => message['error']['code']),
      ['VALIDATION_FAILED', 'MALFORMED_JSON', 'VALIDATION_FAILED'],
    );
    json.send({ action: 'unsubscribe', channel: 'trades' });
    await until('unsubscribed', () => json.of('unsubscribed').length === 1);

    for (const [path, status] of [['/ws/exchange/nope', 404], ['/ws/exchange/eth?encoding=xml', 422]] as const) {
      const refused = new WebSocket(`ws://127.0.0.1:${server.port}${path}`);
      refused.on('error', () => {});
      const code = await new Promise<number>((resolve) => refused.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)));
      assert.equal(code, status, path);
      refused.terminate();
    }
  } finally {
    for (const client of clients) client.socket.terminate();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a subscriber that stops reading is disconnected once it is past the backpressure limit', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-slow-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', WS_BACKPRESSURE_BYTES: String(64 * 1024) }), silentLog);
  const slow = new StreamClient(server, '/ws/exchange/eth');
  const healthy = new StreamClient(server, '/ws/exchange/eth');
  try {
    const alice = await trader(server, 'slow_alice');
    // A deep book makes each snapshot about 60 KB.
    const orders = Array.from({ length: 2000 }, (_, index) => ({ side: 'buy', order_type: 'limit', quantity: '0.01', price: (1000 + index * 0.5).toFixed(2) }));
    for (let start = 0; start < orders.length; start += 10) {
      const batch = await call(server, 'POST', '/api/v1/exchange/eth/orders/batch', { orders: orders.slice(start, start + 10) }, alice);
      assert.equal(batch.status, 200, JSON.stringify(batch.json));
    }
    await Promise.all([slow.open(), healthy.open()]);
    healthy.send({ action: 'subscribe', channel: 'orderbook' });
    // The slow client stops reading and keeps asking for snapshots: the kernel buffers fill, then uWS's.
    (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    for (let index = 0; index < 400 && slow.socket.readyState === WebSocket.OPEN; index++) {
      slow.send({ action: 'unsubscribe', channel: 'orderbook' });
      slow.send({ action: 'subscribe', channel: 'orderbook' });
      await new Promise((resolve) => setImmediate(resolve));
    }
    (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    await until('the slow subscriber to be closed', () => slow.closed !== null, 10_000);
    await until('the healthy subscriber snapshot', () => healthy.of('orderbook_update').length === 1);
    assert.equal(healthy.closed, null, 'other subscribers are unaffected');
    assert.equal((await call(server, 'GET', '/api/v1/exchange/eth/bbo')).json['best_bid']['price'], '1999.50');
  } finally {
    slow.socket.terminate();
    healthy.socket.terminate();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('resume by seq: a subscribe with from_seq gets what followed it without a snapshot, or starts afresh when it is too old', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-resume-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', WS_RESUME_MESSAGES: '4' }), silentLog);
  const clients: StreamClient[] = [];
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    const first = new StreamClient(server, '/ws/exchange/ETH');
    clients.push(first);
    await first.open();
    for (const channel of ['orderbook', 'trades']) first.send({ action: 'subscribe', channel });
    await until('the subscriptions', () => first.of('subscribed').length === 2);
    // Ten trades, one at a time: a resting sell, then a buy taking it.
    for (let index = 0; index < 10; index++) {
      const sell = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '0.1', price: '3000' }, alice);
      assert.equal(sell.status, 201, JSON.stringify(sell.json));
      const buy = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '3000' }, bob);
      assert.equal(buy.status, 201, JSON.stringify(buy.json));
    }
    await until('ten trades', () => first.of('trade').length === 10);
    const lastBook = first.of('orderbook_update').at(-1)!['seq'] as number;

    // Recent enough: the messages after from_seq, the same as the first subscriber got, and no snapshot.
    const resumed = new StreamClient(server, '/ws/exchange/ETH');
    clients.push(resumed);
    await resumed.open();
    resumed.send({ action: 'subscribe', channel: 'trades', from_seq: 8 });
    resumed.send({ action: 'subscribe', channel: 'orderbook', from_seq: lastBook - 1 });
    await until('the resumed messages', () => resumed.of('trade').length === 2 && resumed.of('orderbook_update').length === 1);
    assert.deepEqual(resumed.of('subscribed').map((message) => [message['channel'], message['resumed']]), [['trades', true], ['orderbook', true]]);
    assert.deepEqual(resumed.of('trade'), first.of('trade').slice(8));
    assert.deepEqual(resumed.of('orderbook_update'), [first.of('orderbook_update').at(-1)]);

    // Nothing missed, or ahead of this server: resumed with nothing to send yet.
    const current = new StreamClient(server, '/ws/exchange/ETH');
    clients.push(current);
    await current.open();
    current.send({ action: 'subscribe', channel: 'trades', from_seq: 12 });
    await until('the answer', () => current.of('subscribed').length === 1);
    assert.equal(current.of('subscribed')[0]!['resumed'], true);

    // Too old (only the last WS_RESUME_MESSAGES or so are kept): a fresh subscription, the orderbook with its snapshot.
    const stale = new StreamClient(server, '/ws/exchange/ETH');
    clients.push(stale);
    await stale.open();
    stale.send({ action: 'subscribe', channel: 'orderbook', from_seq: 0 });
    stale.send({ action: 'subscribe', channel: 'trades', from_seq: 0 });
    stale.send({ action: 'subscribe', channel: 'prices', from_seq: -1 });
    await until('the answers', () => stale.of('subscribed').length === 2 && stale.of('error').length === 1);
    assert.deepEqual(stale.of('subscribed').map((message) => [message['channel'], message['resumed']]), [['orderbook', false], ['trades', false]]);
    assert.equal(stale.of('orderbook_update')[0]!['snapshot'], true);
    assert.equal(stale.of('orderbook_update')[0]!['seq'], lastBook);
    assert.deepEqual(stale.of('trade'), []);
    assert.equal(stale.of('error')[0]!['error']['code'], 'VALIDATION_FAILED');
    assert.match(stale.of('error')[0]!['error']['message'], /^from_seq:/);
  } finally {
    for (const client of clients) client.socket.terminate();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
