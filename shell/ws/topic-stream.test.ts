/**
 * The topic stream on a real uWS app with `ws` clients: subscribe answers, snapshots stamped with the
 * topic's seq and deltas after it without a gap, msgpack frames, unsubscribe, bad frames answered with an
 * error while the connection stays open, and upgrades refused in the error shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import uWS from 'uWebSockets.js';
import WebSocket from 'ws';
import { decode, encode } from '@msgpack/msgpack';
import { ApiError } from '../http/errors.ts';
import { TopicStream, subscriptionsPerConnectionMax, type StreamMessage } from './topic-stream.ts';

type Message = Record<string, any>;

interface Room {
  readonly name: string;
  readonly assets: readonly string[];
}

const rooms = new Map<string, Room>([['alpha', { name: 'alpha', assets: ['BTC', 'ETH'] }]]);

function makeStream(): TopicStream<Room> {
  return new TopicStream<Room>({
    path: '/ws/rooms/:room',
    channels: ['orderbook', 'trades'],
    backpressureBytes: 64 * 1024,
    connectionsMax: 4,
    route: ([name]) => {
      const room = rooms.get(name ?? '');
      if (room === undefined) throw new ApiError(404, 'ROOM_NOT_FOUND', `no room ${JSON.stringify(name)}`);
      return room;
    },
    topicOf: (room, channel, message) => {
      const asset = message['asset'];
      if (typeof asset !== 'string' || !room.assets.includes(asset)) throw new ApiError(422, 'VALIDATION_FAILED', 'asset: must be an asset of the room');
      return { key: `${room.name}:${asset}:${channel}`, fields: { asset } };
    },
    snapshot: (_room, channel, key) => (channel === 'orderbook' ? { type: 'orderbook_snapshot', key } : null),
  });
}

class Client {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;
  closed = false;

  constructor(port: number, path: string, private readonly binary = false) {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    this.socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.messages.push((isBinary ? decode(data) : JSON.parse(data.toString('utf8'))) as Message);
    });
    this.socket.on('close', () => (this.closed = true));
  }

  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(this.binary ? encode(message) : JSON.stringify(message));
  }

  async next(count: number): Promise<Message[]> {
    const deadline = Date.now() + 5000;
    while (this.messages.length < count) {
      if (Date.now() > deadline) throw new Error(`waited for ${count} messages, have ${JSON.stringify(this.messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.messages.slice(0, count);
  }
}

async function withServer(run: (port: number, stream: TopicStream<Room>) => Promise<void>): Promise<void> {
  const app = uWS.App();
  const stream = makeStream();
  stream.mount(app);
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (listen) => (listen === false ? reject(new Error('cannot listen')) : resolve(listen)));
  });
  try {
    await run(uWS.us_socket_local_port(socket as unknown as uWS.us_socket), stream);
  } finally {
    stream.closeAll();
    uWS.us_listen_socket_close(socket);
  }
}

test('a subscriber gets the snapshot at the topic seq, then every later message in order', async () => {
  await withServer(async (port, stream) => {
    const key = 'alpha:BTC:orderbook';
    stream.publish(key, { type: 'orderbook_update', n: 1 });
    stream.publish(key, { type: 'orderbook_update', n: 2 });
    const client = new Client(port, '/ws/rooms/alpha');
    await client.open();
    client.send({ action: 'subscribe', channel: 'orderbook', asset: 'BTC' });
    await client.next(2);
    assert.deepEqual(client.messages[0], { type: 'subscribed', channel: 'orderbook', asset: 'BTC' });
    assert.deepEqual(client.messages[1], { type: 'orderbook_snapshot', key, seq: 2 });
    stream.publish(key, { type: 'orderbook_update', n: 3 });
    stream.publish('alpha:ETH:orderbook', { type: 'orderbook_update', n: 99 });
    stream.publish(key, { type: 'orderbook_update', n: 4 });
    const messages = await client.next(4);
    assert.deepEqual(messages.slice(2), [
      { type: 'orderbook_update', n: 3, seq: 3 },
      { type: 'orderbook_update', n: 4, seq: 4 },
    ]);
    client.send({ action: 'unsubscribe', channel: 'orderbook', asset: 'BTC' });
    await client.next(5);
    assert.deepEqual(client.messages[4], { type: 'unsubscribed', channel: 'orderbook', asset: 'BTC' });
    stream.publish(key, { type: 'orderbook_update', n: 5 });
    client.send({ action: 'ping' });
    await client.next(6);
    assert.deepEqual(client.messages[5], { type: 'pong' });
    assert.equal(stream.seqOf(key), 5);
    client.socket.close();
  });
});

test('msgpack subscribers get binary frames; a channel without a snapshot sends none', async () => {
  await withServer(async (port, stream) => {
    const client = new Client(port, '/ws/rooms/alpha?encoding=msgpack', true);
    await client.open();
    client.send({ action: 'subscribe', channel: 'trades', asset: 'ETH' });
    await client.next(1);
    stream.publish('alpha:ETH:trades', { type: 'trade', price: '1.5' });
    const messages = await client.next(2);
    assert.deepEqual(messages, [
      { type: 'subscribed', channel: 'trades', asset: 'ETH' },
      { type: 'trade', price: '1.5', seq: 1 },
    ]);
    client.socket.close();
  });
});

test('bad frames are answered with an error and the connection stays open', async () => {
  await withServer(async (port) => {
    const client = new Client(port, '/ws/rooms/alpha');
    await client.open();
    const bad: Array<[unknown, string]> = [
      ['{not json', 'MALFORMED_JSON'],
      ['[1,2]', 'VALIDATION_FAILED'],
      [JSON.stringify({ action: 'dance' }), 'VALIDATION_FAILED'],
      [JSON.stringify({ action: 'subscribe', channel: 'weather' }), 'VALIDATION_FAILED'],
      [JSON.stringify({ action: 'subscribe', channel: 'trades', asset: 'DOGE' }), 'VALIDATION_FAILED'],
    ];
    for (const [frame] of bad) client.socket.send(frame as string);
    client.socket.send(Buffer.from([0xc1]), { binary: true });
    const messages = await client.next(bad.length + 1);
    assert.deepEqual(
      messages.map((message) => message['error']?.code),
      [...bad.map(([, code]) => code), 'MALFORMED_MSGPACK'],
    );
    assert.ok(messages.every((message: StreamMessage) => message['type'] === 'error'));
    client.send({ action: 'ping' });
    await client.next(bad.length + 2);
    assert.equal(client.closed, false);
    client.socket.close();
  });
});

test('a connection may hold a bounded number of topics', async () => {
  const app = uWS.App();
  const many = new TopicStream<null>({
    path: '/ws/many',
    channels: ['trades'],
    backpressureBytes: 1024 * 1024,
    connectionsMax: 2,
    route: () => null,
    topicOf: (_route, _channel, message) => ({ key: `t${String(message['n'])}`, fields: { n: message['n'] } }),
    snapshot: () => null,
  });
  many.mount(app);
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (listen) => (listen === false ? reject(new Error('cannot listen')) : resolve(listen)));
  });
  try {
    const client = new Client(uWS.us_socket_local_port(socket as unknown as uWS.us_socket), '/ws/many');
    await client.open();
    for (let n = 0; n <= subscriptionsPerConnectionMax; n++) client.send({ action: 'subscribe', channel: 'trades', n });
    const messages = await client.next(subscriptionsPerConnectionMax + 1);
    assert.equal(messages.filter((message) => message['type'] === 'subscribed').length, subscriptionsPerConnectionMax);
    assert.equal(messages.at(-1)!['error']?.code, 'TOO_MANY_SUBSCRIPTIONS');
    // Freeing one topic makes room for another.
    client.send({ action: 'unsubscribe', channel: 'trades', n: 0 });
    client.send({ action: 'subscribe', channel: 'trades', n: 'again' });
    const more = await client.next(subscriptionsPerConnectionMax + 3);
    assert.deepEqual(more.slice(-2), [
      { type: 'unsubscribed', channel: 'trades', n: 0 },
      { type: 'subscribed', channel: 'trades', n: 'again' },
    ]);
    client.socket.close();
  } finally {
    many.closeAll();
    uWS.us_listen_socket_close(socket);
  }
});

test('an upgrade to an unknown route or encoding is refused in the error shape', async () => {
  await withServer(async (port) => {
    for (const [path, status, code] of [
      ['/ws/rooms/nowhere', 404, 'ROOM_NOT_FOUND'],
      ['/ws/rooms/alpha?encoding=xml', 422, 'VALIDATION_FAILED'],
    ] as const) {
      const refusal = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        socket.on('open', () => reject(new Error(`${path} was accepted`)));
        socket.on('error', () => {});
      });
      assert.equal(refusal.status, status, path);
      assert.equal(JSON.parse(refusal.body).error.code, code, path);
    }
  });
});

test('initial topics are subscribed as the connection opens, each with its snapshot', async () => {
  const app = uWS.App();
  const all = new TopicStream<Room>({
    path: '/ws/all/:room',
    channels: ['orderbook'],
    backpressureBytes: 64 * 1024,
    connectionsMax: 2,
    route: ([name]) => rooms.get(name ?? '')!,
    topicOf: (room, channel, message) => ({ key: `${room.name}:${String(message['asset'])}:${channel}`, fields: { asset: message['asset'] } }),
    snapshot: (_room, _channel, key) => ({ type: 'orderbook_snapshot', key }),
    initialTopics: (room) => room.assets.map((asset) => ({ channel: 'orderbook', choice: { key: `${room.name}:${asset}:orderbook`, fields: { asset } } })),
  });
  all.mount(app);
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (listen) => (listen === false ? reject(new Error('cannot listen')) : resolve(listen)));
  });
  try {
    all.publish('alpha:ETH:orderbook', { type: 'orderbook_update' });
    const client = new Client(uWS.us_socket_local_port(socket as unknown as uWS.us_socket), '/ws/all/alpha');
    await client.open();
    const opening = await client.next(4);
    assert.deepEqual(opening, [
      { type: 'subscribed', channel: 'orderbook', asset: 'BTC' },
      { type: 'orderbook_snapshot', key: 'alpha:BTC:orderbook', seq: 0 },
      { type: 'subscribed', channel: 'orderbook', asset: 'ETH' },
      { type: 'orderbook_snapshot', key: 'alpha:ETH:orderbook', seq: 1 },
    ]);
    all.publish('alpha:ETH:orderbook', { type: 'orderbook_update' });
    assert.deepEqual((await client.next(5))[4], { type: 'orderbook_update', seq: 2 });
    client.socket.close();
  } finally {
    all.closeAll();
    uWS.us_listen_socket_close(socket);
  }
});

test('two streams on one app may use the same keys: each subscriber hears only its own stream', async () => {
  const app = uWS.App();
  const make = (path: string) =>
    new TopicStream<null>({
      path,
      channels: ['trades'],
      backpressureBytes: 64 * 1024,
      connectionsMax: 2,
      route: () => null,
      topicOf: () => ({ key: 'same', fields: {} }),
      snapshot: () => null,
    });
  const first = make('/ws/first');
  const second = make('/ws/second');
  first.mount(app);
  second.mount(app);
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (listen) => (listen === false ? reject(new Error('cannot listen')) : resolve(listen)));
  });
  try {
    const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
    const client = new Client(port, '/ws/first');
    await client.open();
    client.send({ action: 'subscribe', channel: 'trades' });
    await client.next(1);
    second.publish('same', { type: 'trade', from: 'second' });
    first.publish('same', { type: 'trade', from: 'first' });
    client.send({ action: 'ping' });
    const messages = await client.next(3);
    assert.deepEqual(messages.slice(1), [{ type: 'trade', from: 'first', seq: 1 }, { type: 'pong' }]);
    client.socket.close();
  } finally {
    first.closeAll();
    second.closeAll();
    uWS.us_listen_socket_close(socket);
  }
});
