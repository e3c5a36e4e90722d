/**
 * The hybrid book over HTTP with the AMM workers running (flow off, so only our fills move the pools):
 * ETH's book merges resting orders with pool depth from all four chains, /venues sums it by venue and
 * chain, a market order that sweeps past the resting orders fills against the pools with venue-tagged
 * fills and settlement hashes, the pools move by our fills, a paper order takes the same depth without
 * consuming it, and the journal (quotes included) replays to the live state without any worker.
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
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from './test-client.ts';
import { platformDomains } from '../../engine/domains/index.ts';

const simHash = /^sim-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const startedMs = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - startedMs > timeoutMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function trader(server: RunningServer, name: string): Promise<{ key: Record<string, string>; userId: number }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '1000000'], ['ETH', '100']]) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' })).status, 200);
  }
  return { key: { 'x-api-key': key.json['api_key'] }, userId: registered.json['user_id'] };
}

test('the hybrid book merges four chains of AMM depth with resting orders; sweeps fill against the pools', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hybrid-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', AMM_FLOW: 'off', AMM_QUOTE_INTERVAL_MS: '100' });
  const server = await startServer(config, silentLog);
  let closed = false;
  try {
    type Row = { price: string; quantity: string; source: string; chain: string | null; venue_id?: number; orders?: number };
    const hybrid = () => call(server, 'GET', '/api/v1/exchange/eth/book/hybrid?depth=400');
    const chainsOf = (rows: Row[]) => new Set(rows.map((row) => row.chain).filter((chain) => chain !== null));
    const quoted = await waitFor('quotes from four chains', hybrid, (answer) => chainsOf(answer.json['asks']).size === 4 && chainsOf(answer.json['bids']).size === 4);
    const asks = quoted.json['asks'] as Row[];
    assert.deepEqual([...chainsOf(asks)].sort(), ['arbitrum', 'base', 'ethereum', 'solana']);
    for (let index = 1; index < asks.length; index++) assert.ok(Number(asks[index]!.price) >= Number(asks[index - 1]!.price), 'asks best first');
    const bestAsk = Number(asks[0]!.price);
    assert.ok(bestAsk > 2990 && bestAsk < 3060, `the pools quote ETH near 3030 (${bestAsk})`);

    // A resting ask a little below the pools: the book shows it first, tagged clob.
    const maker = await trader(server, 'maker_hybrid');
    const taker = await trader(server, 'taker_hybrid');
    const restingPrice = (Math.floor(bestAsk * 100) - 50) / 100;
    const resting = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '0.5', price: restingPrice.toFixed(2) }, maker.key);
    assert.equal(resting.status, 201);
    const withClob = await waitFor('the resting ask in the hybrid book', hybrid, (answer) => (answer.json['asks'] as Row[])[0]?.source === 'clob');
    assert.deepEqual((withClob.json['asks'] as Row[])[0], { price: restingPrice.toFixed(2), quantity: '0.5000', source: 'clob', chain: null, orders: 1 });
    assert.ok((withClob.json['asks'] as Row[]).some((row) => row.source.startsWith('Orca Whirlpool ETH/USDC') && row.chain === 'solana'));

    // Liquidity by venue and chain in bands around the mid.
    const venues = await call(server, 'GET', '/api/v1/exchange/eth/venues');
    assert.equal(venues.status, 200);
    const venueRows = venues.json['venues'] as Array<Record<string, any>>;
    assert.deepEqual(venueRows.map((row) => row['chain']).sort(), ['arbitrum', 'base', 'ethereum', 'platform', 'solana']);
    const clob = venueRows.find((row) => row['venue'] === 'clob')!;
    assert.equal(clob['bands'][0]['ask_quantity'], '0.5000', 'the resting ask is within 1 %');
    for (const row of venueRows.filter((venue) => venue['venue'] !== 'clob')) {
      assert.equal(row['quoting'], true);
      const [one, two, five] = row['bands'] as Array<Record<string, string>>;
      assert.ok(Number(one!['ask_quantity']) > 0 && Number(one!['bid_quantity']) > 0, `${row['venue']} has depth within 1 %`);
      assert.ok(Number(one!['ask_quantity']) <= Number(two!['ask_quantity']) && Number(two!['ask_quantity']) <= Number(five!['ask_quantity']), 'bands nest');
    }
    const total = venues.json['total'] as Array<Record<string, string>>;
    const sum = venueRows.reduce((acc, row) => acc + Number(row['bands'][2]['ask_quantity']), 0);
    assert.ok(Math.abs(Number(total[2]!['ask_quantity']) - sum) < 1e-6, 'the total is the sum of the venues');
    assert.match(venues.json['mid_price'], /^\d+\.\d{3}$/);

    // A market buy larger than the resting ask sweeps into the pools: every fill names its venue.
    const stats = () => call(server, 'GET', '/admin/v1/stats', undefined, { 'x-api-key': 'admin' });
    const quotesBefore = (await stats()).json['amm_quotes_journaled'] as number;
    const sweep = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'market', quantity: '150' }, taker.key);
    assert.equal(sweep.status, 201, JSON.stringify(sweep.json));
    assert.equal(sweep.json['status'], 'filled');
    const fills = sweep.json['fills'] as Array<Record<string, any>>;
    assert.deepEqual([fills[0]!['venue'], fills[0]!['price'], fills[0]!['quantity'], fills[0]!['sim_tx_hash']], ['clob', restingPrice.toFixed(2), '0.5000', null]);
    const venueFills = fills.slice(1);
    assert.ok(venueFills.length >= 2, `several pool levels: ${JSON.stringify(fills)}`);
    for (const fill of venueFills) {
      assert.notEqual(fill['venue'], 'clob');
      assert.ok(['ethereum', 'base', 'arbitrum', 'solana'].includes(fill['chain']));
      assert.match(fill['sim_tx_hash'], simHash);
      assert.equal(fill['liquidity'], 'taker');
    }
    for (let index = 1; index < fills.length; index++) assert.ok(Number(fills[index]!['price']) >= Number(fills[index - 1]!['price']), 'price first');
    assert.match(sweep.json['sim_tx_hash'], simHash);
    // The pools moved by our fills: their workers quote again (flow is off, so nothing else moves them).
    await waitFor('the fills to reach the workers and move the pools', stats, (answer) => answer.json['amm_fills_sent'] >= venueFills.length && answer.json['amm_quotes_journaled'] > quotesBefore);
    const trades = await call(server, 'GET', '/api/v1/exchange/eth/trades');
    assert.ok((trades.json['trades'] as Array<Record<string, unknown>>).length >= fills.length, 'venue fills are trades of the pair');

    // A paper sweep takes the live hybrid book at live prices and consumes nothing live.
    const before = (await hybrid()).json;
    const paper = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'market', quantity: '5', mode: 'paper' }, taker.key);
    assert.deepEqual([paper.status, paper.json['mode'], paper.json['status']], [201, 'paper', 'filled']);
    assert.match(paper.json['sim_tx_hash'], simHash);
    for (const fill of paper.json['fills'] as Array<Record<string, any>>) assert.match(fill['sim_tx_hash'], simHash);
    const after = (await hybrid()).json;
    assert.deepEqual(
      (after['asks'] as Row[]).slice(0, 5).map((row) => [row.price, row.source]),
      (before['asks'] as Row[]).slice(0, 5).map((row) => [row.price, row.source]),
      'the live book is untouched (quotes may refresh, levels stay put)',
    );

    // The journal, quotes included, replays to the live state with no worker.
    const liveHash = stateHash(server.context.durable.engine);
    await server.close();
    closed = true;
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
  } finally {
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
