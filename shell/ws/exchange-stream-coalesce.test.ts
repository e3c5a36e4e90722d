/**
 * The exchange stream's coalescing of fan-outs (`ExchangeStream.onDurable`), with a sequencer whose journal
 * writes the test completes by hand and real `ws` clients: a durable batch whose successor is already
 * syncing, or whose successor's command arrives in the same turn of the event loop, holds its messages
 * until that batch is durable, then both batches' messages arrive in seq order; a batch with nothing
 * behind it goes out at once; a subscriber joining while messages are held gets a snapshot that counts
 * them and only the deltas after it; below the connection threshold nothing is held.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import uWS from 'uWebSockets.js';
import WebSocket from 'ws';
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { Engine } from '../../engine/core/engine.ts';
import { orderRequest } from '../../engine/core/sim/order-request.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import type { SegmentWriter } from '../../engine/journal/segments.ts';
import { loadPools } from '../../engine/runtime/amm-manager.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { Sequencer } from '../../engine/runtime/sequencer.ts';
import { loadChains } from '../funding/chains.ts';
import { silentLog } from '../log.ts';
import { MarketData } from '../market/market-data.ts';
import { VenueDirectory, venueInfoOf } from '../market/venue-directory.ts';
import { ExchangeStream } from './exchange-stream.ts';

const markets = loadMarkets();
const pair = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;

type Message = Record<string, any>;

/** A journal writer whose appends complete only when the test says so. */
class ManualWriter {
  readonly writes: Array<(error: Error | null) => void> = [];

  append(_bytes: Uint8Array, _firstSeq: number, done: (error: Error | null) => void): void {
    this.writes.push(done);
  }

  complete(): void {
    const done = this.writes.shift();
    assert.ok(done !== undefined, 'no write is open');
    done(null);
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(5);
  }
}

class Client {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;

  constructor(port: number) {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}/ws/exchange/eth`);
    this.socket.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString('utf8')) as Message));
  }

  async subscribe(channel: string): Promise<void> {
    if (this.socket.readyState !== WebSocket.OPEN) await new Promise((resolve) => this.socket.once('open', resolve));
    const before = this.of('subscribed').length;
    this.socket.send(JSON.stringify({ action: 'subscribe', channel }));
    await until(`subscribed to ${channel}`, () => this.of('subscribed').length > before);
  }

  of(type: string): Message[] {
    return this.messages.filter((message) => message['type'] === type);
  }

  /** The orderbook deltas received (not the snapshot): seq and the bid prices they name. */
  deltas(): Array<{ seq: number; bids: string[] }> {
    return this.of('orderbook_update')
      .filter((message) => message['snapshot'] !== true)
      .map((message) => ({ seq: message['seq'] as number, bids: (message['bids'] as Array<[string, string]>).map(([price]) => price) }));
  }
}

interface Rig {
  stream: ExchangeStream;
  sequencer: Sequencer;
  writer: ManualWriter;
  /** Places a resting bid of user 1 at `price` ticks (applied now, durable when its write completes). */
  bid(orderId: number, priceTicks: number): void;
  /** Bids 1 (2990.00) and, once its write is open, 2 (2980.00): batch 1 syncs, batch 2 fills behind it. */
  twoBids(): Promise<void>;
  /** A new client subscribed to the orderbook (closed by `close`). */
  subscriber(): Promise<Client>;
  close(): void;
}

async function rig(coalesceConnectionsMin: number): Promise<Rig> {
  const writer = new ManualWriter();
  const app = uWS.App();
  const stream = new ExchangeStream(app, { markets, log: silentLog, backpressureBytes: 1 << 20, connectionsMax: 100, coalesceConnectionsMin });
  const engine = new Engine({ markets, domains: platformDomains });
  const sequencer: Sequencer = new Sequencer({
    engine,
    writer: writer as unknown as SegmentWriter,
    clock: () => 1_700_000_000_000,
    lastSeq: 0,
    onDurable: (batch) => stream.onDurable(batch),
  });
  const chains = loadChains(markets);
  const venues = new VenueDirectory(chains, loadPools(markets).map(venueInfoOf));
  stream.attach(new MarketData({ markets, venues, engine, sink: stream }), () => sequencer.queueDepth > 0);
  const listen = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('listen')) : resolve(socket))));
  const port = uWS.us_socket_local_port(listen as unknown as uWS.us_socket);
  const noAnswer = (): void => {};
  const deposit: Command = { kind: CommandKind.deposit, seq: 0, ts: 0, userId: 1, mode: 0, assetId: usdc.id, amountAtoms: 10_000_000_000_000 };
  sequencer.enqueue(deposit, noAnswer);
  await turn();
  writer.complete();
  const clients: Client[] = [];
  const bid = (orderId: number, priceTicks: number): void =>
    sequencer.enqueue({ kind: CommandKind.placeOrder, seq: 0, ts: 0, ...orderRequest({ orderId, userId: 1, pairId: pair.id, priceTicks, quantityLots: 10 }) }, noAnswer);
  return {
    stream,
    sequencer,
    writer,
    bid,
    twoBids: async () => {
      bid(1, 299_000);
      await turn();
      bid(2, 298_000);
    },
    subscriber: async () => {
      const client = new Client(port);
      clients.push(client);
      await client.subscribe('orderbook');
      return client;
    },
    close: () => {
      for (const client of clients) client.socket.terminate();
      uWS.us_listen_socket_close(listen);
    },
  };
}

test('a batch whose successor is syncing sends its messages with that batch, in seq order; a lone batch at once', async () => {
  const { stream, sequencer, writer, bid, twoBids, subscriber, close } = await rig(1);
  try {
    const client = await subscriber();
    const snapshotSeq = client.of('orderbook_update')[0]!['seq'] as number;

    await twoBids();
    // The first batch becomes durable while the second (order 2) is already being written.
    writer.complete();
    assert.ok(sequencer.queueDepth > 0);
    await pause(100);
    assert.deepEqual(client.deltas(), [], 'the first batch waits for the one syncing behind it');
    writer.complete();
    await until('both deltas', () => client.deltas().length === 2);
    assert.deepEqual(client.deltas(), [
      { seq: snapshotSeq + 1, bids: ['2990.00'] },
      { seq: snapshotSeq + 2, bids: ['2980.00'] },
    ]);
    assert.equal(stream.coalescedBatches, 1);

    // Nothing syncing behind it: a batch's delta goes out at once.
    bid(3, 297_000);
    await turn();
    writer.complete();
    assert.equal(sequencer.queueDepth, 0);
    await until('the lone delta', () => client.deltas().length === 3);
    assert.deepEqual(client.deltas()[2], { seq: snapshotSeq + 3, bids: ['2970.00'] });
    assert.equal(stream.coalescedBatches, 1);
  } finally {
    close();
  }
});

test('a command read in the same turn as a batch became durable makes the batch wait for it', async () => {
  const { stream, sequencer, writer, bid, subscriber, close } = await rig(1);
  try {
    const client = await subscriber();
    bid(1, 299_000);
    await turn();
    // Batch 1 becomes durable with nothing behind it; then, in the same turn, order 2 is read.
    writer.complete();
    assert.equal(sequencer.queueDepth, 0);
    bid(2, 298_000);
    await pause(100);
    assert.deepEqual(client.deltas(), [], 'batch 1 waits for the batch of order 2');
    assert.equal(writer.writes.length, 1, 'order 2 is being written');
    writer.complete();
    await until('both deltas', () => client.deltas().length === 2);
    assert.deepEqual(client.deltas().map((delta) => delta.bids), [['2990.00'], ['2980.00']]);
    assert.equal(stream.coalescedBatches, 1);
  } finally {
    close();
  }
});

test('a batch holds at most one other: the next durable batch releases it though a third is syncing', async () => {
  const { writer, bid, twoBids, subscriber, close } = await rig(1);
  try {
    const client = await subscriber();
    await twoBids();
    writer.complete(); // batch 1 durable, batch 2 syncing: batch 1 held
    await pause(50);
    assert.deepEqual(client.deltas(), []);
    bid(3, 297_000);
    writer.complete(); // batch 2 durable, batch 3 syncing: 1 and 2 go out
    await until('two deltas', () => client.deltas().length === 2);
    await pause(50);
    assert.deepEqual(client.deltas().map((delta) => delta.bids), [['2990.00'], ['2980.00']]);
    writer.complete();
    await until('the third delta', () => client.deltas().length === 3);
  } finally {
    close();
  }
});

test('a subscriber joining while messages are held gets a snapshot counting them, then only later deltas', async () => {
  const { writer, twoBids, subscriber, close } = await rig(1);
  try {
    const early = await subscriber();
    const earlySeq = early.of('orderbook_update')[0]!['seq'] as number;
    await twoBids();
    writer.complete(); // batch 1 held
    const late = await subscriber();
    const snapshot = late.of('orderbook_update')[0]!;
    assert.equal(snapshot['snapshot'], true);
    assert.equal(snapshot['seq'], earlySeq + 1, 'the snapshot counts the held delta');
    assert.deepEqual(snapshot['bids'], [['2990.00', '0.0010']]);
    // The subscribe sent the held delta to those already subscribed.
    await until('the early subscriber gets the held delta', () => early.deltas().length === 1);
    writer.complete();
    await until('the second delta', () => late.deltas().length === 1 && early.deltas().length === 2);
    await pause(50);
    assert.deepEqual(late.deltas(), [{ seq: earlySeq + 2, bids: ['2980.00'] }]);
    assert.deepEqual(early.deltas().map((delta) => delta.seq), [earlySeq + 1, earlySeq + 2]);
  } finally {
    close();
  }
});

test('below the connection threshold nothing is held', async () => {
  const { stream, sequencer, writer, twoBids, subscriber, close } = await rig(2);
  try {
    const client = await subscriber();
    await twoBids();
    writer.complete();
    assert.ok(sequencer.queueDepth > 0);
    await until('the first delta while the second batch syncs', () => client.deltas().length === 1);
    writer.complete();
    await until('the second delta', () => client.deltas().length === 2);
    assert.equal(stream.coalescedBatches, 0);
  } finally {
    close();
  }
});
