/**
 * The private user stream against the real server with `ws` clients: the snapshot, then order updates
 * (accepted, partially filled, filled, cancelled) with client order ids and remaining quantities, fills with
 * fee and liquidity, and balance updates, in one gapless seq; recovery after a reconnect; credential
 * refusals; signed keys' subscribe frames (good, stale, replayed, wrong, missing); cancel on disconnect,
 * journaled (the orders stay gone after a restart); and large accounts' snapshots in parts, with the
 * messages published while a slow reader is sent them held until after the last part, within a bound.
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
import { snapshotPartOrders, snapshotQueueBackpressures } from './private-stream.ts';
import { call, schemaFormats } from '../http/test-client.ts';
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import AjvModule from 'ajv';
import { createHmac } from 'node:crypto';
import { signatureOf } from '../auth/signatures.ts';
import { streamCatalogue } from '../discovery/asyncapi.ts';

// The CommonJS default export, as the AsyncAPI test takes it.
const Ajv = AjvModule as unknown as typeof AjvModule.default;

// Messages are checked field by field.
type Message = Record<string, any>;

class StreamClient {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;

  constructor(server: RunningServer, path = '/ws/exchange/private', readonly binary = false) {
    this.socket = new WebSocket(`ws://127.0.0.1:${server.port}${path}`);
    this.socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.messages.push((isBinary ? decode(data) : JSON.parse(data.toString('utf8'))) as Message);
    });
  }

  async open(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) return;
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }

  send(message: unknown): void {
    this.socket.send(this.binary ? encode(message) : JSON.stringify(message));
  }

  of(type: string): Message[] {
    return this.messages.filter((message) => message['type'] === type);
  }
}

async function until(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Trader {
  readonly userId: number;
  readonly key: string;
  readonly token: string;
  readonly headers: Record<string, string>;
}

async function trader(server: RunningServer, name: string): Promise<Trader> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const token = registered.json['access_token'] as string;
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'bot' }, { authorization: `Bearer ${token}` });
  for (const [asset, amount] of [['USDC', '100000'], ['ETH', '100']]) {
    await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' });
  }
  const apiKey = key.json['api_key'] as string;
  return { userId: registered.json['user_id'] as number, key: apiKey, token, headers: { 'x-api-key': apiKey } };
}

async function place(server: RunningServer, who: Trader, body: Record<string, unknown>): Promise<string> {
  const response = await call(server, 'POST', '/api/v1/exchange/eth/orders', { order_type: 'limit', ...body }, who.headers);
  assert.equal(response.status, 201, JSON.stringify(response.json));
  return response.json['order_id'] as string;
}

/** Journals a deposit of 1 USDC atom for `userId` on every turn of the loop until the returned function is called. */
function pressDeposits(server: RunningServer, userId: number): () => void {
  const usdc = server.context.markets.assetBySymbol('USDC')!;
  let pressing = true;
  const press = (): void => {
    if (!pressing) return;
    const deposit: Command = { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId: usdc.id, amountAtoms: 1 };
    server.context.durable.enqueue(deposit, () => {});
    setImmediate(press);
  };
  press();
  return () => {
    pressing = false;
  };
}

/** Every private message matches the payload the AsyncAPI document declares for its type. */
function checkDeclared(messages: readonly Message[]): void {
  const ajv = new Ajv({ allErrors: true, strict: false, formats: schemaFormats });
  const declared = streamCatalogue['/ws/exchange/private']!.messages;
  for (const message of messages) {
    const spec = declared[message['type'] as string];
    if (spec === undefined) continue;
    const validate = ajv.compile(spec.payload);
    assert.ok(validate(message), `${String(message['type'])}: ${ajv.errorsText(validate.errors)}`);
  }
}

/**
 * The private messages after the snapshot, checked: the snapshot's parts come first, numbered 1..parts,
 * each with the snapshot's seq, and the messages after them run seq + 1, seq + 2, ...
 */
function deltas(client: StreamClient, mode = 'live'): Message[] {
  const own = client.messages.filter((message) => message['seq'] !== undefined && message['mode'] === mode);
  assert.equal(own[0]?.['type'], 'account_snapshot', 'the snapshot comes first');
  const parts = own[0]!['parts'] as number;
  const seq = own[0]!['seq'] as number;
  own.slice(0, parts).forEach((message, index) => {
    assert.deepEqual([message['type'], message['part'], message['seq']], ['account_snapshot', index + 1, seq], 'the parts in order, before any message after them');
  });
  const after = own.slice(parts);
  after.forEach((message, index) => assert.equal(message['seq'], seq + 1 + index, `no gap at ${JSON.stringify(message)}`));
  return after;
}

/** The snapshot's orders, every part's in order. */
function snapshotOrders(client: StreamClient, mode = 'live'): Message[] {
  return client.of('account_snapshot').filter((message) => message['mode'] === mode).flatMap((part) => part['orders'] as Message[]);
}

/** Credits and rests `count` post-only sells of 0.005 ETH for `who` through the sequencer, at once, at 4000.00-4000.99. */
async function restMany(server: RunningServer, who: Trader, count: number): Promise<void> {
  const credit = await call(server, 'POST', '/admin/v1/credit', { user_id: who.userId, asset: 'ETH', amount: String(count * 0.005) }, { 'x-api-key': 'admin' });
  assert.equal(credit.status, 200, JSON.stringify(credit.json));
  const engine = server.context.durable.engine;
  const pair = server.context.markets.pairs.find((candidate) => candidate.base.symbol === 'ETH')!;
  const results: number[] = [];
  // In rounds of 2 000, within what the sequencer queues at once.
  for (let first = 0; first < count; first += 2000) {
    const placed: Array<Promise<number>> = [];
    for (let index = first; index < Math.min(count, first + 2000); index++) {
      const command: Command = {
        kind: CommandKind.placeOrder, seq: 0, ts: 0, orderId: engine.lastOrderId + 1, userId: who.userId, mode: 0, pairId: pair.id,
        side: 1, orderType: 0, timeInForce: 0, priceTicks: 400_000 + (index % 100), stopPriceTicks: 0, quantityLots: 50, postOnly: true,
        selfTradePrevention: 0, clientOrderId: '',
      };
      placed.push(new Promise((resolve) => server.context.durable.enqueue(command, (outcome) => resolve(outcome.result))));
    }
    results.push(...(await Promise.all(placed)));
  }
  assert.deepEqual(results.filter((result) => result !== 0), [], 'every order rests');
}

function config(dataDir: string) {
  return loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' });
}

test('the private stream reports own orders, fills with fee and liquidity, and balances, in one gapless seq; a reconnect gets a snapshot', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(config(dataDir), silentLog);
  const clients: StreamClient[] = [];
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    const stream = new StreamClient(server);
    clients.push(stream);
    await stream.open();
    stream.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the snapshot', () => stream.of('account_snapshot').length === 1);
    const [subscribed, snapshot] = stream.messages;
    assert.deepEqual(subscribed, { type: 'subscribed', channel: 'account', mode: 'live', cancel_on_disconnect: false });
    assert.equal(snapshot!['user_id'], alice.userId);
    assert.deepEqual(snapshot!['orders'], []);
    const usdc = (snapshot!['balances'] as Message[]).find((row) => row['asset'] === 'USDC');
    assert.equal(Number(usdc!['available']), 100000);

    // Alice rests a buy; Bob sells into half of it, then the rest; Alice rests another buy and cancels it.
    const buy = await place(server, alice, { side: 'buy', quantity: '1', price: '3000', client_order_id: 'mm-1' });
    await place(server, bob, { side: 'sell', quantity: '0.4', price: '3000' });
    await place(server, bob, { side: 'sell', quantity: '0.6', price: '3000' });
    const second = await place(server, alice, { side: 'buy', quantity: '0.5', price: '2900' });
    const cancelled = await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${second}`, undefined, alice.headers);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.json));
    await until('the cancel', () => stream.of('order_update').some((message) => message['event'] === 'cancelled'));

    const messages = deltas(stream);
    const updates = messages.filter((message) => message['type'] === 'order_update');
    assert.deepEqual(
      updates.map((message) => [message['order_id'], message['event'], message['status'], message['remaining_quantity'], message['client_order_id']]),
      [
        [buy, 'accepted', 'open', '1.0000', 'mm-1'],
        [buy, 'partially_filled', 'partially_filled', '0.6000', 'mm-1'],
        [buy, 'filled', 'filled', '0.0000', 'mm-1'],
        [second, 'accepted', 'open', '0.5000', null],
        [second, 'cancelled', 'cancelled', '0.5000', null],
      ],
      'order updates in order',
    );
    assert.equal(updates[4]!['reason'], 'user');
    const fills = messages.filter((message) => message['type'] === 'fill');
    assert.equal(fills.length, 2);
    for (const fill of fills) {
      assert.equal(fill['order_id'], buy);
      assert.equal(fill['client_order_id'], 'mm-1');
      assert.equal(fill['liquidity'], 'maker', 'the resting order made the liquidity');
      assert.equal(fill['side'], 'buy');
      assert.equal(fill['fee_asset'], 'USDC');
      assert.match(fill['fee'], /^\d+(\.\d+)?$/);
    }
    assert.deepEqual(fills.map((fill) => Number(fill['quantity'])), [0.4, 0.6]);
    // Every balance update agrees with the balance route once the stream has settled.
    const balances = messages.filter((message) => message['type'] === 'balance_update');
    assert.ok(balances.some((message) => message['asset'] === 'ETH') && balances.some((message) => message['asset'] === 'USDC'), 'both assets of the pair moved');
    const route = await call(server, 'GET', '/api/v1/account/me/balances', undefined, alice.headers);
    const lastOf = (asset: string) => balances.filter((message) => message['asset'] === asset).at(-1)!;
    for (const row of route.json['balances'] as Message[]) {
      if (row['asset'] !== 'ETH' && row['asset'] !== 'USDC') continue;
      const { available, held, total } = lastOf(row['asset']);
      assert.deepEqual({ available, held, total }, { available: row['available'], held: row['held'], total: row['total'] }, row['asset']);
    }
    assert.equal(Number(lastOf('ETH')['available']), 101, 'one ETH bought');

    // A taker's fill is flagged taker: Bob's stream sees his sell against Alice's resting order.
    const bobStream = new StreamClient(server, '/ws/exchange/private?encoding=msgpack', true);
    clients.push(bobStream);
    await bobStream.open();
    bobStream.send({ action: 'subscribe', channel: 'account', token: bob.token });
    await until('bob snapshot', () => bobStream.of('account_snapshot').length === 1);

    // Reconnect: a fresh snapshot lists the open order, stamped with the topic's seq; deltas continue from it.
    await stream.close();
    const resting = await place(server, alice, { side: 'buy', quantity: '2', price: '2950', client_order_id: 'mm-2' });
    const again = new StreamClient(server);
    clients.push(again);
    await again.open();
    again.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the new snapshot', () => again.of('account_snapshot').length === 1);
    const fresh = again.of('account_snapshot')[0]!;
    // Messages are made only while someone watches the account, so the seq went on where it stopped.
    assert.equal(fresh['seq'], messages.at(-1)!['seq'], 'the topic\'s seq never restarts');
    assert.deepEqual(
      (fresh['orders'] as Message[]).map((order) => [order['order_id'], order['client_order_id'], order['remaining_quantity'], order['status']]),
      [[resting, 'mm-2', '2.0000', 'open']],
    );
    await place(server, bob, { side: 'sell', quantity: '0.5', price: '2950' });
    await until('the fill after reconnect', () => again.of('fill').length === 1 && bobStream.of('fill').length === 1);
    const after = deltas(again);
    assert.equal(after[0]!['type'], 'fill');
    assert.equal(after[0]!['seq'], fresh['seq'] + 1);
    assert.equal(after[1]!['remaining_quantity'], '1.5000');
    const takerFill = bobStream.of('fill')[0]!;
    assert.equal(takerFill['liquidity'], 'taker');
    assert.equal(takerFill['side'], 'sell');
    assert.ok(Number(takerFill['fee']) > 0, 'the taker pays a fee');
    assert.deepEqual(bobStream.of('order_update').map((message) => message['event']), ['accepted', 'filled']);
    for (const client of [stream, bobStream, again]) checkDeclared(client.messages);
    assert.ok(['account_snapshot', 'order_update', 'fill', 'balance_update'].every((type) => again.of(type).length > 0), 'every kind of message was checked');
  } finally {
    for (const client of clients) client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a subscriber that joins mid-burst rebuilds its open orders and balances from snapshot + deltas, equal to the routes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(config(dataDir), silentLog);
  const late = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    await late.open();
    // Orders of both users, some crossing, sent without waiting, with the subscribe in the middle, while
    // deposits of Bob's are journaled on every turn of the loop: commands are in flight when the subscribe
    // arrives, so its snapshot waits for a clean point and must still agree with the deltas after it.
    const stopPressing = pressDeposits(server, bob.userId);
    const requests: Array<Promise<unknown>> = [];
    for (let index = 0; index < 60; index++) {
      const buy = index % 2 === 0;
      const price = (3000 + (buy ? -1 : 1) * (index % 7) * 0.5 + (index % 5 === 0 ? (buy ? 2 : -2) : 0)).toFixed(2);
      const who = index % 3 === 0 ? bob : alice;
      const placed = call(server, 'POST', '/api/v1/exchange/eth/orders', { side: buy ? 'buy' : 'sell', order_type: 'limit', quantity: (0.1 + (index % 4) * 0.05).toFixed(2), price }, who.headers);
      // Subscribing as the tenth answer arrives, while later orders are being journaled.
      if (index === 10) void placed.then(() => late.send({ action: 'subscribe', channel: 'account', api_key: alice.key }));
      requests.push(placed);
    }
    await Promise.all(requests);
    stopPressing();
    const route = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, alice.headers);
    const expected = new Map((route.json['orders'] as Message[]).map((order) => [order['order_id'] as string, order['filled_quantity'] as string]));
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, alice.headers);
    // Every batch is durable before its answers, so once the answers are in, the stream has sent everything.
    await until('the snapshot', () => late.of('account_snapshot').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const snapshot = late.of('account_snapshot')[0]!;
    const open = new Map((snapshot['orders'] as Message[]).map((order) => [order['order_id'] as string, order['filled_quantity'] as string]));
    const held = new Map((snapshot['balances'] as Message[]).map((row) => [row['asset'] as string, row]));
    for (const message of deltas(late)) {
      if (message['type'] === 'balance_update') held.set(message['asset'], message);
      if (message['type'] !== 'order_update') continue;
      if (['filled', 'cancelled', 'expired'].includes(message['event'])) open.delete(message['order_id']);
      else open.set(message['order_id'], message['filled_quantity']);
    }
    assert.deepEqual([...open].sort(), [...expected].sort(), 'open orders rebuilt from the stream');
    for (const row of balances.json['balances'] as Message[]) {
      const streamed = held.get(row['asset'])!;
      assert.deepEqual([streamed['available'], streamed['held']], [row['available'], row['held']], row['asset']);
    }
    checkDeclared(late.messages);
  } finally {
    late.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the private stream refuses bad frames and credentials, and keeps a connection to its first user', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(config(dataDir), silentLog);
  const client = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    const readOnly = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'watch', permissions: ['read'] }, { authorization: `Bearer ${alice.token}` });
    await client.open();
    const frames: unknown[] = [
      { action: 'subscribe', channel: 'account' },
      { action: 'subscribe', channel: 'account', api_key: 'nope' },
      { action: 'subscribe', channel: 'account', token: 'not-a-token' },
      { action: 'subscribe', channel: 'account', api_key: readOnly.json['api_key'], cancel_on_disconnect: true },
      { action: 'subscribe', channel: 'orders', api_key: alice.key },
      { action: 'subscribe', channel: 'account', api_key: alice.key, mode: 'demo' },
      { action: 'subscribe', channel: 'account', api_key: alice.key, cancel_on_disconnect: 'yes' },
      { action: 'dance' },
    ];
    for (const frame of frames) client.send(frame);
    client.socket.send('{not json');
    await until('every refusal', () => client.of('error').length === frames.length + 1);
    assert.deepEqual(
      // The bearer check answers after the synchronous refusals, so the codes are compared as a set.
      client.of('error').map((message) => message['error']['code']).sort(),
      ['UNAUTHENTICATED', 'INVALID_API_KEY', 'VALIDATION_FAILED', 'VALIDATION_FAILED', 'VALIDATION_FAILED', 'VALIDATION_FAILED', 'MALFORMED_JSON', 'INVALID_TOKEN', 'PERMISSION_DENIED'].sort(),
    );
    assert.equal(client.of('account_snapshot').length, 0, 'nothing private before a credential is accepted');

    // The read-only key may watch; the connection then belongs to Alice and refuses Bob's key.
    client.send({ action: 'subscribe', channel: 'account', api_key: readOnly.json['api_key'] });
    await until('the snapshot', () => client.of('account_snapshot').length === 1);
    client.send({ action: 'subscribe', channel: 'account', api_key: bob.key, mode: 'paper' });
    await until('the refusal', () => client.of('error').length === frames.length + 2);
    assert.equal(client.of('error').at(-1)!['error']['code'], 'PERMISSION_DENIED');
    client.send({ action: 'ping' });
    client.send({ action: 'unsubscribe', channel: 'account' });
    await until('pong and unsubscribed', () => client.of('pong').length === 1 && client.of('unsubscribed').length === 1);
    await place(server, alice, { side: 'buy', quantity: '0.1', price: '2000' });
    const probe = new StreamClient(server);
    await probe.open();
    probe.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the probe snapshot', () => probe.of('account_snapshot').length === 1);
    probe.socket.close();
    assert.equal(client.of('order_update').length, 0, 'an unsubscribed connection gets nothing');
  } finally {
    client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('cancel on disconnect: closing the connection journals a cancel of every open order of its mode; other modes and connections stay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  let server = await startServer(config(dataDir), silentLog);
  try {
    const alice = await trader(server, 'alice');
    const guarded = new StreamClient(server);
    await guarded.open();
    guarded.send({ action: 'subscribe', channel: 'account', api_key: alice.key, cancel_on_disconnect: true });
    await until('subscribed', () => guarded.of('account_snapshot').length === 1);
    assert.equal(guarded.of('subscribed')[0]!['cancel_on_disconnect'], true);
    await place(server, alice, { side: 'buy', quantity: '1', price: '2500' });
    await place(server, alice, { side: 'sell', quantity: '1', price: '3500' });
    await place(server, alice, { side: 'buy', quantity: '1', price: '2500', mode: 'paper' });
    const open = async (mode: string) => (await call(server, 'GET', `/api/v1/exchange/eth/orders/open?mode=${mode}`, undefined, alice.headers)).json['orders'] as Message[];
    assert.equal((await open('live')).length, 2);

    // A watcher without the flag sees the cancels arrive when the guarded connection closes.
    const watcher = new StreamClient(server);
    await watcher.open();
    watcher.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('watcher snapshot', () => watcher.of('account_snapshot').length === 1);
    await guarded.close();
    await until('the cancels', () => watcher.of('order_update').filter((message) => message['event'] === 'cancelled').length === 2);
    assert.deepEqual(
      watcher.of('order_update').map((message) => message['reason']),
      ['cancel_all', 'cancel_all'],
    );
    assert.equal((await open('live')).length, 0);
    assert.equal((await open('paper')).length, 1, 'paper orders were not in the guarded mode');

    // A server shutdown closes the connections too: a guarded connection still open journals its cancel
    // before the journal closes, and after the restart the live orders are gone (the first cancel too).
    watcher.socket.close();
    await place(server, alice, { side: 'buy', quantity: '1', price: '2400' });
    const open2 = new StreamClient(server);
    await open2.open();
    open2.send({ action: 'subscribe', channel: 'account', api_key: alice.key, cancel_on_disconnect: true });
    await until('subscribed again', () => open2.of('account_snapshot').length === 1);
    assert.equal((open2.of('account_snapshot')[0]!['orders'] as Message[]).length, 1);
    await server.close();
    server = await startServer(config(dataDir), silentLog);
    assert.equal((await open('live')).length, 0);
    assert.equal((await open('paper')).length, 1);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('signed keys sign the subscribe frame: good, stale, replayed, wrong and missing signatures', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-signed-'));
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const server = await startServer(config(dataDir), silentLog, () => now);
  const client = new StreamClient(server);
  const other = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice_signed');
    const created = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'signed', signed: true }, { authorization: `Bearer ${alice.token}` });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const apiKey = created.json['api_key'] as string;
    const secret = created.json['api_secret'] as string;
    // The documented canonical string, computed here by hand rather than with the server's helper.
    const sign = (timestamp: string, key = secret, method = 'SUBSCRIBE') => createHmac('sha256', key).update(`${timestamp}\n${method}\n/ws/exchange/private\n\n`).digest('hex');
    assert.equal(sign(String(now)), signatureOf(secret, String(now), { method: 'SUBSCRIBE', path: '/ws/exchange/private', rawQuery: '', rawBody: null }));
    assert.equal(sign('1764072000000', 'tps_example'), 'dc706af3da27bea3a3a16a8705bc922351dd9abd4ec07cc1fc7e0c82eee8d5a5', "README's example");
    await client.open();
    await other.open();
    let errors = 0;
    const refusal = async (frame: Record<string, unknown>): Promise<string> => {
      client.send({ action: 'subscribe', channel: 'account', api_key: apiKey, ...frame });
      errors++;
      await until('the refusal', () => client.of('error').length === errors);
      return client.of('error').at(-1)!['error']['code'];
    };
    assert.equal(await refusal({}), 'SIGNATURE_REQUIRED');
    assert.equal(await refusal({ timestamp: String(now) }), 'SIGNATURE_REQUIRED');
    assert.equal(await refusal({ timestamp: String(now - 5001), signature: sign(String(now - 5001)) }), 'TIMESTAMP_OUTSIDE_WINDOW', 'stale');
    assert.equal(await refusal({ timestamp: String(now + 5001), signature: sign(String(now + 5001)) }), 'TIMESTAMP_OUTSIDE_WINDOW', 'from the future');
    assert.equal(await refusal({ timestamp: String(now), signature: sign(String(now), 'tps_wrong') }), 'SIGNATURE_INVALID', 'another secret');
    assert.equal(await refusal({ timestamp: String(now), signature: sign(String(now), secret, 'GET') }), 'SIGNATURE_INVALID', 'another method');
    assert.equal(await refusal({ timestamp: String(now + 1), signature: sign(String(now)) }), 'SIGNATURE_INVALID', 'another timestamp');
    assert.equal(await refusal({ timestamp: { ms: now }, signature: sign(String(now)) }), 'VALIDATION_FAILED');
    assert.equal(await refusal({ timestamp: String(now), signature: 42 }), 'VALIDATION_FAILED');
    assert.equal(client.of('subscribed').length, 0);

    // A good frame subscribes; the same frame again (here, or on another connection) is a replay.
    const good = { timestamp: String(now - 5000), signature: sign(String(now - 5000)) };
    client.send({ action: 'subscribe', channel: 'account', api_key: apiKey, ...good });
    await until('the snapshot', () => client.of('account_snapshot').length === 1);
    assert.equal(client.of('account_snapshot')[0]!['user_id'], alice.userId);
    assert.equal(await refusal({ ...good, mode: 'paper' }), 'SIGNATURE_REPLAYED');
    other.send({ action: 'subscribe', channel: 'account', api_key: apiKey, ...good });
    await until('the replay refused', () => other.of('error').length === 1);
    assert.equal(other.of('error')[0]!['error']['code'], 'SIGNATURE_REPLAYED');
    // A timestamp may be sent as a number; each frame is signed anew.
    client.send({ action: 'subscribe', channel: 'account', api_key: apiKey, mode: 'paper', timestamp: now + 1, signature: sign(String(now + 1)) });
    await until('the paper snapshot', () => client.of('account_snapshot').length === 2);
    // An unsigned key ignores the fields, as HTTP ignores the headers.
    other.send({ action: 'subscribe', channel: 'account', api_key: alice.key, timestamp: '1', signature: 'bad' });
    await until('the unsigned snapshot', () => other.of('account_snapshot').length === 1);
  } finally {
    client.socket.close();
    other.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('under load that never lets the journal go idle, a snapshot and balance updates still come, within a bound', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(config(dataDir), silentLog);
  const client = new StreamClient(server);
  let stopPressing = (): void => {};
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    await client.open();
    // While one batch syncs the next is already applied: the engine never stops at a durable batch on its own.
    stopPressing = pressDeposits(server, bob.userId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asked = Date.now();
    client.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the snapshot while the load goes on', () => client.of('account_snapshot').length === 1, 3000);
    const snapshotMs = Date.now() - asked;
    // Alice's order holds USDC: the balance update comes while the load goes on too.
    const placed = Date.now();
    await place(server, alice, { side: 'buy', quantity: '1', price: '2000' });
    await until('the balance update while the load goes on', () => client.of('balance_update').some((message) => message['asset'] === 'USDC'), 3000);
    const balanceMs = Date.now() - placed;
    // What it says is what the balances route says (2 000 USDC and the taker-fee cap held).
    const usdcRow = client.of('balance_update').find((message) => message['asset'] === 'USDC')!;
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, alice.headers);
    const routeRow = (balances.json['balances'] as Message[]).find((row) => row['asset'] === 'USDC')!;
    assert.deepEqual([usdcRow['available'], usdcRow['held']], [routeRow['available'], routeRow['held']]);
    assert.equal(usdcRow['held'], '2002.000000');
    assert.ok(server.context.durable.sequencer.durableBatches > 20, 'the load kept the journal writing');
    assert.ok(snapshotMs < 3000 && balanceMs < 3000, `snapshot after ${snapshotMs} ms, balance update after ${balanceMs} ms`);
  } finally {
    stopPressing();
    client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('an account with more open orders than one part holds gets its snapshot in parts, every order once, newest first', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(config(dataDir), silentLog);
  const client = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice');
    const count = 2 * snapshotPartOrders + 5;
    await restMany(server, alice, count);
    await client.open();
    client.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the snapshot', () => client.of('account_snapshot').length === 3, 10_000);
    const parts = client.of('account_snapshot');
    assert.deepEqual(parts.map((part) => [part['part'], part['parts'], part['open_orders_total'], (part['orders'] as Message[]).length]), [
      [1, 3, count, snapshotPartOrders],
      [2, 3, count, snapshotPartOrders],
      [3, 3, count, 5],
    ]);
    assert.ok((parts[0]!['balances'] as Message[]).length > 0 && parts.slice(1).every((part) => (part['balances'] as Message[]).length === 0), 'balances in the first part only');
    const listed = snapshotOrders(client).map((order) => Number(order['order_id']));
    assert.deepEqual(listed, [...listed].sort((a, b) => b - a), 'newest first across the parts');
    const engine = server.context.durable.engine;
    const open = engine.openOrderSlots(alice.userId, 0).map((slot) => engine.orders.orderId(slot)).sort((a, b) => b - a);
    assert.deepEqual(listed, open, 'every open order once');
    assert.equal(deltas(client).length, 0);
    checkDeclared(parts);
  } finally {
    client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a slow reader of a large snapshot gets the messages published meanwhile after its last part, and fills of its oldest orders', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', WS_BACKPRESSURE_BYTES: String(16 * 1024) }), silentLog);
  const client = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    // About 6 MB of snapshot: more than the loopback socket's buffers hold while the reader is paused.
    const count = 20 * snapshotPartOrders;
    await restMany(server, alice, count);
    await client.open();
    client.socket.pause();
    client.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Published while the parts are still being sent: an order accepted, and a fill of alice's oldest order
    // (the first at the best price; the last part lists it).
    const fresh = await place(server, alice, { side: 'buy', price: '2000.00', quantity: '0.01' });
    const taken = await call(server, 'POST', '/api/v1/exchange/eth/orders', { order_type: 'limit', side: 'buy', price: '4000.00', quantity: '0.005' }, bob.headers);
    assert.equal(taken.status, 201, JSON.stringify(taken.json));
    const before = client.messages.length;
    client.socket.resume();
    await until('every part and the messages after them', () => client.of('account_snapshot').length === 20 && client.of('fill').length === 1, 20_000);
    assert.ok(before < 20, `the reader was behind when the messages were published (${before} frames read)`);
    const after = deltas(client);
    const oldest = snapshotOrders(client).at(-1)!['order_id'];
    assert.deepEqual(after.map((message) => [message['type'], message['event'] ?? null, message['order_id']]).filter(([type]) => type !== 'balance_update'), [
      ['order_update', 'accepted', fresh],
      ['fill', null, oldest],
      ['order_update', 'filled', oldest],
    ]);
    checkDeclared(after);
  } finally {
    client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a reader that falls too far behind while its snapshot is sent is closed', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const backpressureBytes = 16 * 1024;
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', WS_BACKPRESSURE_BYTES: String(backpressureBytes) }), silentLog);
  const client = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice');
    await restMany(server, alice, 20 * snapshotPartOrders);
    await client.open();
    const closed = new Promise<number>((resolve) => client.socket.once('close', (code: number) => resolve(code)));
    client.socket.pause();
    client.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Each accepted order queues an order_update of about 400 bytes, and its balance update at a clean point.
    await restMany(server, alice, Math.ceil((backpressureBytes * snapshotQueueBackpressures) / 300));
    client.socket.resume();
    // 1013 when the close frame fits behind the unsent bytes; behind a full backlog uWS drops it and cuts the
    // connection, which the client sees as 1006.
    assert.ok([1006, 1013].includes(await closed));
    assert.ok(client.of('account_snapshot').length < 20, 'closed before its snapshot was complete');
    // The server goes on: a new connection gets the whole snapshot.
    const again = new StreamClient(server);
    await again.open();
    again.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the whole snapshot again', () => again.of('account_snapshot').length === again.of('account_snapshot')[0]?.['parts'], 20_000);
    again.socket.close();
  } finally {
    client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('large snapshots of one user are copied within its budget: a second copy waits, other users do not', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'private-stream-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', WS_SNAPSHOT_ORDERS_PER_S: '1000' }), silentLog);
  const first = new StreamClient(server);
  const second = new StreamClient(server);
  const small = new StreamClient(server);
  try {
    const alice = await trader(server, 'alice');
    const bob = await trader(server, 'bob');
    // 2 005 orders against a budget of 1 000 a second: the first copy runs the budget 1 005 orders into debt.
    await restMany(server, alice, 2 * snapshotPartOrders + 5);
    await Promise.all([first.open(), second.open(), small.open()]);
    first.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    await until('the first snapshot', () => first.of('account_snapshot').length === 3);
    const asked = Date.now();
    second.send({ action: 'subscribe', channel: 'account', api_key: alice.key });
    small.send({ action: 'subscribe', channel: 'account', api_key: bob.key });
    await until('the small account at once', () => small.of('account_snapshot').length === 1, 500);
    assert.equal(second.of('account_snapshot').length, 0, 'the second copy waits for the budget');
    await until('the second snapshot, whole', () => second.of('account_snapshot').length === 3, 5000);
    const waitedMs = Date.now() - asked;
    assert.ok(waitedMs >= 900, `the second copy came after ${waitedMs} ms, within the budget's 1 005 ms`);
    assert.deepEqual(snapshotOrders(second).map((order) => order['order_id']), snapshotOrders(first).map((order) => order['order_id']));
    // Messages of the topic reach both after their snapshots.
    const fresh = await place(server, alice, { side: 'buy', price: '2000.00', quantity: '0.01' });
    await until('the new order on both', () => [first, second].every((client) => client.of('order_update').some((message) => message['order_id'] === fresh)));
    for (const client of [first, second]) assert.equal(deltas(client).filter((message) => message['type'] === 'order_update').length, 1);
  } finally {
    for (const client of [first, second, small]) client.socket.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
