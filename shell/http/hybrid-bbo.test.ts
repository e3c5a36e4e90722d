/**
 * Hybrid reads that match what fills, against the real server with venue quotes journaled by the test
 * (no AMM worker, so nothing else moves them): two pools whose quotes cross (one's bid above the other's
 * ask) are netted out of the hybrid book, GET /bbo and the hybrid_bbo stream, so the best bid stays below
 * the best ask; the netted book is the one the engine holds once a taker arbitrages the crossing (placed
 * here: the reads do not move); then a small IOC buy and sell fill exactly at /bbo's prices and sources,
 * and the stream's hybrid_bbo messages follow without a gap, matching their AsyncAPI payload.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import AjvModule from 'ajv';
import { CommandKind } from '../../engine/core/commands.ts';
import { Result } from '../../engine/core/results.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { streamCatalogue } from '../discovery/asyncapi.ts';
import { call, schemaFormats } from './test-client.ts';

const Ajv = AjvModule as unknown as typeof AjvModule.default;

// Responses and messages are checked field by field.
type Json = Record<string, any>;

async function waitFor<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const startedMs = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - startedMs > timeoutMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function trader(server: RunningServer, name: string): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '1000000'], ['ETH', '100']]) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' })).status, 200);
  }
  return { 'x-api-key': key.json['api_key'] };
}

/** Journals a venue quote as an AMM worker would (levels as [ticks, lots], best first) and waits for it. */
function quote(server: RunningServer, poolId: number, chainId: number, bids: Array<[number, number]>, asks: Array<[number, number]>): Promise<void> {
  const pair = server.context.markets.pairBySymbol('eth')!;
  return new Promise((resolve, reject) => {
    server.context.durable.enqueue(
      {
        kind: CommandKind.quoteVenue,
        seq: 0,
        ts: 0,
        pairId: pair.id,
        poolId,
        chainId,
        version: 1,
        bidPriceTicks: bids.map((level) => level[0]),
        bidLots: bids.map((level) => level[1]),
        askPriceTicks: asks.map((level) => level[0]),
        askLots: asks.map((level) => level[1]),
      },
      (outcome) => (outcome.error === null && outcome.result === Result.ok ? resolve() : reject(new Error(`quote refused: ${outcome.result}`))),
    );
  });
}

test('crossing pools are netted out of the hybrid book, /bbo and hybrid_bbo; small IOC orders fill at /bbo', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hybrid-bbo-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws/exchange/eth`);
  const messages: Json[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as Json));
  try {
    const venues = server.context.venues;
    const ethPools = venues.all.filter((venue) => venue.pair === 'ETH/USDC');
    const poolA = ethPools.find((venue) => venues.chainName(venue.chainId) === 'ethereum')!;
    const poolB = ethPools.find((venue) => venues.chainName(venue.chainId) === 'base')!;
    assert.ok(poolA !== undefined && poolB !== undefined, 'ETH/USDC pools on ethereum and base');

    const maker = await trader(server, 'maker_bbo');
    const arbitrageur = await trader(server, 'arb_bbo');
    const taker = await trader(server, 'taker_bbo');
    const place = async (key: Record<string, string>, body: Json): Promise<Json> => {
      const placed = await call(server, 'POST', '/api/v1/exchange/eth/orders', body, key);
      assert.equal(placed.status, 201, JSON.stringify(placed.json));
      return placed.json;
    };
    await place(maker, { side: 'buy', order_type: 'limit', quantity: '1', price: '2990.00' });
    await place(maker, { side: 'sell', order_type: 'limit', quantity: '0.3', price: '3015.00' });
    await place(maker, { side: 'sell', order_type: 'limit', quantity: '1', price: '3050.00' });

    if (socket.readyState !== WebSocket.OPEN) {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
    }
    socket.send(JSON.stringify({ action: 'subscribe', channel: 'hybrid_bbo' }));
    const hybridMessages = () => messages.filter((message) => message['type'] === 'hybrid_bbo');
    await waitFor('the hybrid_bbo snapshot', hybridMessages, (list) => list.length === 1);
    const snapshot = hybridMessages()[0]!;
    assert.equal(snapshot['snapshot'], true);
    assert.deepEqual([snapshot['best_bid']['price'], snapshot['best_bid']['source'], snapshot['best_ask']['price'], snapshot['spread']], ['2990.00', 'clob', '3015.00', '25.00']);

    // Pool A bids 3010.00 above pool B's 3008.00 ask: crossed by 1.5 ETH between the two pools.
    // (ETH: a tick is 0.01 USDC, a lot 0.0001 ETH.)
    await quote(server, poolA.id, poolA.chainId, [[301_000, 20_000], [300_000, 30_000]], [[302_000, 20_000]]);
    await quote(server, poolB.id, poolB.chainId, [[300_500, 10_000]], [[300_800, 15_000], [301_500, 20_000]]);
    const rawAsks = server.context.marketData.hybridDepth(server.context.markets.pairBySymbol('eth')!, 1, 10);
    assert.equal(rawAsks[0]!.priceTicks, 300_800, 'the engine holds the crossing ask');

    const clob = { source: 'clob', chain: null };
    const a = { source: poolA.name, chain: 'ethereum', venue_id: poolA.id };
    const b = { source: poolB.name, chain: 'base', venue_id: poolB.id };
    const expectedBook = {
      symbol: 'ETH',
      pair: 'ETH/USDC',
      bids: [
        { price: '3010.00', quantity: '0.5000', ...a },
        { price: '3005.00', quantity: '1.0000', ...b },
        { price: '3000.00', quantity: '3.0000', ...a },
        { price: '2990.00', quantity: '1.0000', ...clob, orders: 1 },
      ],
      asks: [
        { price: '3015.00', quantity: '0.3000', ...clob, orders: 1 },
        { price: '3015.00', quantity: '2.0000', ...b },
        { price: '3020.00', quantity: '2.0000', ...a },
        { price: '3050.00', quantity: '1.0000', ...clob, orders: 1 },
      ],
    };
    const hybridBook = async () => (await call(server, 'GET', '/api/v1/exchange/eth/book/hybrid?depth=10')).json;
    assert.deepEqual(await waitFor('both quotes in the hybrid book', hybridBook, (book) => book['bids'][0]?.['source'] === poolA.name && book['asks'].length === 4), expectedBook);
    const expectedTop = {
      best_bid: { price: '3010.00', quantity: '0.5000', source: poolA.name, chain: 'ethereum', sources: [{ source: poolA.name, chain: 'ethereum', quantity: '0.5000' }] },
      best_ask: { price: '3015.00', quantity: '2.3000', ...clob, sources: [{ ...clob, quantity: '0.3000' }, { source: poolB.name, chain: 'base', quantity: '2.0000' }] },
      spread: '5.00',
    };
    const bbo = async () => (await call(server, 'GET', '/api/v1/exchange/eth/bbo')).json;
    assert.deepEqual(await bbo(), {
      symbol: 'ETH',
      pair: 'ETH/USDC',
      ...expectedTop,
      clob_best_bid: { price: '2990.00', quantity: '1.0000' },
      clob_best_ask: { price: '3015.00', quantity: '0.3000' },
      clob_spread: '25.00',
    });
    const venuesView = await call(server, 'GET', '/api/v1/exchange/eth/venues');
    assert.equal(venuesView.json['mid_price'], '3012.500', 'the mid is that of the netted book');
    const settled = await waitFor('hybrid_bbo to show the netted top', hybridMessages, (list) => list.at(-1)!['best_bid']?.['source'] === poolA.name && list.at(-1)!['best_ask']?.['quantity'] === '2.3000');
    const afterQuotes = settled.at(-1)!;
    assert.deepEqual({ best_bid: afterQuotes['best_bid'], best_ask: afterQuotes['best_ask'], spread: afterQuotes['spread'] }, expectedTop);

    // The arbitrage the netting stands for: buy B's 1.5 at 3008.00 and sell it to A at 3010.00. The engine
    // then holds exactly the netted book, so neither the book, /bbo nor the stream moves.
    const bought = await place(arbitrageur, { side: 'buy', order_type: 'ioc', quantity: '1.5', price: '3008.00' });
    assert.deepEqual(bought['fills'].map((fill: Json) => [fill['venue'], fill['price'], fill['quantity']]), [[poolB.name, '3008.00', '1.5000']]);
    const sold = await place(arbitrageur, { side: 'sell', order_type: 'ioc', quantity: '1.5', price: '3010.00' });
    assert.deepEqual(sold['fills'].map((fill: Json) => [fill['venue'], fill['price'], fill['quantity']]), [[poolA.name, '3010.00', '1.5000']]);
    assert.deepEqual(await hybridBook(), expectedBook);
    const pair = server.context.markets.pairBySymbol('eth')!;
    const netted = server.context.marketData.hybridBook(pair, 10);
    assert.deepEqual([server.context.marketData.hybridDepth(pair, 0, 10), server.context.marketData.hybridDepth(pair, 1, 10)], [netted.bids, netted.asks], 'nothing is left to net');
    const top = await bbo();

    // A small taker fills exactly at /bbo's price and source on each side.
    const messagesBefore = hybridMessages().length;
    const buy = await place(taker, { side: 'buy', order_type: 'ioc', quantity: '0.01', price: '3100.00' });
    assert.deepEqual(buy['fills'].map((fill: Json) => [fill['venue'], fill['price']]), [[top['best_ask']['source'], top['best_ask']['price']]]);
    const sell = await place(taker, { side: 'sell', order_type: 'ioc', quantity: '0.01', price: '2900.00' });
    assert.deepEqual(sell['fills'].map((fill: Json) => [fill['venue'], fill['price']]), [[top['best_bid']['source'], top['best_bid']['price']]]);
    const after = await bbo();
    assert.deepEqual([after['best_ask']['quantity'], after['best_bid']['quantity'], after['spread']], ['2.2900', '0.4900', '5.00']);

    // The stream: nothing during the arbitrage (the top did not change), then one message per change.
    const final = await waitFor('hybrid_bbo after the small orders', hybridMessages, (list) => list.at(-1)!['best_bid']?.['quantity'] === '0.4900');
    assert.equal(final.length, messagesBefore + 2, 'one message for the buy, one for the sell');
    final.forEach((message, index) => {
      if (index > 0) assert.equal(message['seq'], final[index - 1]!['seq'] + 1, 'hybrid_bbo seq runs without gaps');
      assert.equal(message['snapshot'], index === 0);
    });
    const last = final.at(-1)!;
    assert.deepEqual({ best_bid: last['best_bid'], best_ask: last['best_ask'], spread: last['spread'] }, { best_bid: after['best_bid'], best_ask: after['best_ask'], spread: after['spread'] });
    const validate = new Ajv({ allErrors: true, strict: false, formats: schemaFormats }).compile(streamCatalogue['/ws/exchange/:symbol']!.messages['hybrid_bbo']!.payload);
    for (const message of final) assert.ok(validate(message), `hybrid_bbo matches its AsyncAPI payload: ${JSON.stringify(validate.errors)}`);
  } finally {
    socket.terminate();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
