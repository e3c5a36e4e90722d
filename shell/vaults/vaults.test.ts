/**
 * The vaults over HTTP and /ws/vault/nav on a real server with one-second strategy runs: the fixture's
 * vaults listed and found by address or slug; a bearer deposit, repeated under its Idempotency-Key
 * (answered once, charged once); the holder's position; the market-making vault's bid resting on the
 * ETH/USDC book and filled by a taker, seen on the stream as position_opened and nav_update; refusals (401, 404,
 * 409, 422) that change nothing; a full withdrawal that unwinds and pays in one command; the AI fund's routes;
 * a paper vault that only its owner sees; performance and backtest; the journal replaying to the live
 * state hash; and the performance figures answering the same after a restart on the same data.
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
const admin = { 'x-api-key': 'vault-admin' };

async function user(server: RunningServer, name: string): Promise<{ userId: number; key: Record<string, string>; bearer: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, bearer);
  return { userId: registered.json['user_id'], key: { 'x-api-key': key.json['api_key'] }, bearer };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('vaults over HTTP and /ws/vault/nav: deposit, trade, stream, withdraw, AI fund, paper vaults, replay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vaults-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AMM_CHAINS: '',
    PRICE_TICK_MS: '200',
    PRICE_HISTORY_DAYS: '3',
    ADMIN_API_KEY: admin['x-api-key'],
    VAULT_STRATEGY_MS: '1000',
    VAULT_NAV_HEARTBEAT_MS: '1000',
  });
  const server = await startServer(config, silentLog);
  const messages: Message[] = [];
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws/vault/nav`);
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as Message));
  let closed = false;
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await until('the snapshot', () => messages.some((message) => message['type'] === 'snapshot'));
    const snapshot = messages.find((message) => message['type'] === 'snapshot')!;
    assert.deepEqual(snapshot['vaults'].map((vault: Message) => vault.vault), ['eth-market-maker', 'btc-trend', 'crypto-basket', 'ai-fund']);

    const list = await call(server, 'GET', '/api/v1/vaults/list');
    assert.equal(list.status, 200);
    assert.equal(list.json['vaults'].length, 4);
    assert.equal(list.json['vaults'][0].share_price, '1.000000');
    assert.deepEqual((await call(server, 'GET', '/api/v1/vaults/featured')).json['vaults'].map((vault: Message) => vault.slug), ['eth-market-maker', 'btc-trend', 'crypto-basket']);
    const address = list.json['vaults'][0].address as string;
    assert.match(address, /^0x[0-9a-f]{40}$/);
    const one = await call(server, 'GET', `/api/v1/vaults/${address}`);
    assert.equal(one.status, 200);
    assert.equal(one.json['strategy'], 'market_making');
    assert.equal((await call(server, 'GET', '/api/v1/vaults/0x0000000000000000000000000000000000000000')).json['error'].code, 'VAULT_NOT_FOUND');

    // One vault's topic, by address; an unknown vault is answered with an error and the connection stays.
    const single: Message[] = [];
    const oneSocket = new WebSocket(`ws://127.0.0.1:${server.port}/ws/vault/nav`);
    oneSocket.on('message', (data: Buffer) => single.push(JSON.parse(data.toString('utf8')) as Message));
    await new Promise<void>((resolve) => oneSocket.once('open', () => resolve()));
    oneSocket.send(JSON.stringify({ action: 'subscribe', channel: 'nav', vault: address }));
    oneSocket.send(JSON.stringify({ action: 'subscribe', channel: 'nav', vault: 'nope' }));
    await until('the single-vault snapshot', () => single.filter((message) => message['type'] === 'snapshot').length === 2);
    assert.deepEqual(single.filter((message) => message['type'] === 'snapshot')[1]!['vaults'].map((vault: Message) => vault.vault), ['eth-market-maker']);
    await until('the refusal', () => single.some((message) => message['type'] === 'error'));
    assert.equal(single.find((message) => message['type'] === 'error')!['error'].code, 'VAULT_NOT_FOUND');
    oneSocket.close();

    const alice = await user(server, 'alice');
    const bob = await user(server, 'bob');
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: alice.userId, asset: 'USDC', amount: '10000' }, admin)).status, 200);
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: bob.userId, asset: 'USDC', amount: '1000000' }, admin)).status, 200);
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: bob.userId, asset: 'ETH', amount: '100' }, admin)).status, 200);
    // Bob quotes around the oracle price, so the vault's IOC orders find liquidity within their 1 % band.
    await until('an ETH price', async () => (await call(server, 'GET', '/api/v1/prices/ETH', undefined, bob.key)).status === 200);
    const oracle = Number((await call(server, 'GET', '/api/v1/prices/ETH', undefined, bob.key)).json['price']);
    const ask = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '20', price: (oracle * 1.003).toFixed(2) }, bob.key);
    assert.equal(ask.status, 201, JSON.stringify(ask.json) + oracle);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '20', price: (oracle * 0.997).toFixed(2) }, bob.key)).status, 201);

    // Refusals first: they change nothing.
    assert.equal((await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '100' })).status, 401);
    assert.equal((await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '100' }, alice.key)).status, 401, 'bearer only');
    assert.equal((await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '0' }, alice.bearer)).status, 422);
    assert.equal((await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '-5' }, alice.bearer)).status, 422);
    assert.equal((await call(server, 'POST', '/api/v1/vaults/nope/deposit', { amount_usdc: '100' }, alice.bearer)).status, 404);
    assert.equal((await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '20000' }, alice.bearer)).status, 422);

    const headers = { ...alice.bearer, 'idempotency-key': 'first-deposit' };
    const deposit = await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '1000' }, headers);
    assert.equal(deposit.status, 201);
    assert.equal(deposit.json['shares'], '1000.000000000');
    assert.equal(deposit.json['replayed'], false);
    const again = await call(server, 'POST', `/api/v1/vaults/${address}/deposit`, { amount_usdc: '1000' }, headers);
    assert.equal(again.status, 200);
    assert.equal(again.json['replayed'], true);
    assert.equal(again.json['shares'], deposit.json['shares']);
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, alice.key);
    const usdc = (balances.json['balances'] as Message[]).find((row) => row.asset === 'USDC')!;
    assert.equal(usdc.available, '9000.000000', 'charged once');

    const position = await call(server, 'GET', `/api/v1/vaults/${address}/position`, undefined, alice.key);
    assert.equal(position.status, 200);
    assert.equal(position.json['shares'], '1000.000000000');
    assert.equal(position.json['cost_basis'], '1000.000000');
    assert.equal((await call(server, 'GET', '/api/v1/vaults/my-positions', undefined, alice.key)).json['positions'].length, 1);

    // The market maker runs each second: it rests a post-only bid just under the oracle price, on the book
    // for anyone to see. Bob sells into it (his own bid is further down), and the stream tells of the fill.
    await until('the vault\u2019s bid on the book', async () => {
      const book = await call(server, 'GET', '/api/v1/exchange/eth/book', undefined, bob.key);
      return book.status === 200 && (book.json['bids'] as Message[]).some((level) => Number(level.price) > oracle * 0.9975);
    });
    await until('a quote fill', async () => {
      const price = Number((await call(server, 'GET', '/api/v1/prices/ETH', undefined, bob.key)).json['price']);
      await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', time_in_force: 'IOC', quantity: '0.01', price: (price * 0.9985).toFixed(2) }, bob.key);
      return messages.some((message) => message['type'] === 'position_opened' && message['vault'] === 'eth-market-maker');
    });
    await until('a nav update', () => messages.some((message) => message['type'] === 'nav_update' && message['vault'] === 'eth-market-maker'));
    await until('a heartbeat', () => messages.some((message) => message['type'] === 'heartbeat'));
    // Only the vaults' messages arrive here (the arena's stream has a topic of the same name), in seq order.
    assert.ok(messages.every((message) => ['subscribed', 'snapshot', 'nav_update', 'position_opened', 'trade_closed', 'heartbeat'].includes(message['type'])));
    const seqs = messages.filter((message) => message['type'] !== 'subscribed').map((message) => message['seq'] as number);
    assert.deepEqual(seqs, seqs.map((_, index) => seqs[0]! + index), 'consecutive seqs');
    const detail = await call(server, 'GET', '/api/v1/vaults/eth-market-maker');
    assert.ok(detail.json['recent_trades'].length >= 1);
    assert.equal(detail.json['positions'][1].asset, 'ETH');
    assert.notEqual(detail.json['positions'][1].quantity, '0.00000000');

    const tooMany = await call(server, 'POST', `/api/v1/vaults/${address}/withdraw`, { shares: '5000' }, alice.bearer);
    assert.equal(tooMany.status, 409);
    assert.equal(tooMany.json['error'].code, 'INSUFFICIENT_VAULT_SHARES');
    assert.equal((await call(server, 'POST', `/api/v1/vaults/${address}/withdraw`, { shares: '1', amount_usdc: '1' }, alice.bearer)).status, 422);
    const out = await call(server, 'POST', `/api/v1/vaults/${address}/withdraw`, { shares: '1000' }, { ...alice.bearer, 'idempotency-key': 'all-out' });
    assert.equal(out.status, 200, JSON.stringify(out.json));
    assert.equal(out.json['position'].shares, '0.000000000');
    assert.ok(Number(out.json['amount_usdc']) > 990, `paid ${out.json['amount_usdc']}`);

    // The AI fund.
    const info = await call(server, 'GET', '/api/v1/vaults/ai-fund/share-info');
    assert.equal(info.status, 200);
    assert.equal(info.json['fund'], 'ai-fund');
    assert.equal((await call(server, 'GET', '/api/v1/vaults/no-fund/share-info')).status, 404);
    const bought = await call(server, 'POST', '/api/v1/vaults/ai-fund/buy-shares', { amount_usdc: '500' }, alice.bearer);
    assert.equal(bought.status, 201);
    assert.equal((await call(server, 'GET', '/api/v1/vaults/ai-fund/my-shares', undefined, alice.key)).json['shares'], bought.json['shares']);
    assert.equal((await call(server, 'GET', '/api/v1/vaults/ai-fund/pnl', undefined, alice.key)).status, 200);
    // The AI fund allocates over four assets: cash and each asset at its oracle price.
    assert.deepEqual((await call(server, 'GET', '/api/v1/vaults/ai-fund/positions')).json['positions'].map((row: Message) => row.asset), ['USDC', 'ETH', 'BTC', 'SOL', 'DOGE']);
    const sold = await call(server, 'POST', '/api/v1/vaults/ai-fund/sell-shares', { shares: '100' }, alice.bearer);
    assert.equal(sold.status, 200, JSON.stringify(sold.json));

    // Paper vaults: the owner's own.
    const created = await call(server, 'POST', '/api/v1/paper-vaults', { strategy: 'trend', pair: 'ETH/USDC' }, alice.key);
    assert.equal(created.status, 201);
    assert.equal(created.json['mode'], 'paper');
    const id = created.json['id'] as string;
    assert.equal((await call(server, 'GET', `/api/v1/paper-vaults/${id}`, undefined, bob.key)).status, 404, 'only its owner sees it');
    assert.equal((await call(server, 'POST', `/api/v1/paper-vaults/${id}/deposit`, { amount_usdc: '100' }, bob.key)).status, 404);
    const paperDeposit = await call(server, 'POST', `/api/v1/paper-vaults/${id}/deposit`, { amount_usdc: '100' }, alice.key);
    assert.equal(paperDeposit.status, 201, JSON.stringify(paperDeposit.json));
    assert.equal((await call(server, 'GET', '/api/v1/paper-vaults', undefined, alice.key)).json['vaults'].length, 1);
    assert.equal((await call(server, 'GET', '/api/v1/paper-vaults', undefined, bob.key)).json['vaults'].length, 0);
    assert.equal((await call(server, 'GET', `/api/v1/paper-vaults/${id}/trades`, undefined, alice.key)).status, 200);
    assert.equal((await call(server, 'GET', '/api/v1/vaults/list')).json['vaults'].length, 4, 'paper vaults are not listed');
    const basket = await call(server, 'POST', '/api/v1/paper-vaults', { strategy: 'basket', pair: 'ETH/USDC', pairs: ['BTC/USDC'] }, alice.key);
    assert.equal(basket.status, 201);
    assert.deepEqual(basket.json['pairs'], ['ETH/USDC', 'BTC/USDC']);
    assert.equal((await call(server, 'POST', '/api/v1/paper-vaults', { strategy: 'trend', pair: 'ETH/USDC', pairs: ['BTC/USDC'] }, alice.key)).json['error'].code, 'INVALID_VAULT');
    assert.equal((await call(server, 'POST', `/api/v1/paper-vaults/${id}/withdraw`, { amount_usdc: '50' }, alice.key)).status, 200);

    const performance = await call(server, 'GET', '/api/v1/vaults/performance/eth-market-maker');
    assert.equal(performance.status, 200);
    // The strategy ran several times while Alice held shares, a few seconds in all: the point of the hour
    // (two, should the seconds straddle an hour's end).
    assert.ok([1, 2].includes(performance.json['points']), `points ${performance.json['points']}`);
    const backtest = await call(server, 'GET', '/api/v1/vaults/backtest-performance/btc-trend');
    assert.equal(backtest.status, 200, JSON.stringify(backtest.json));
    assert.ok(backtest.json['days'] >= 2);
    assert.equal((await call(server, 'GET', '/api/v1/vaults/backtest-performance/crypto-basket')).json['assets'].length, 3);
    assert.deepEqual(backtest.json, (await call(server, 'GET', '/api/v1/vaults/backtest-performance/btc-trend')).json, 'deterministic');

    socket.close();
    await server.close();
    closed = true;
    const liveHash = stateHash(server.context.durable.engine);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      replayed.apply(command);
    });
    assert.equal(stateHash(replayed), liveHash);
  } finally {
    socket.close();
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('vault performance answers the same after a restart: the NAV history is engine state', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vaults-restart-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AMM_CHAINS: '',
    PRICE_TICK_MS: '200',
    PRICE_HISTORY_DAYS: '3',
    ADMIN_API_KEY: admin['x-api-key'],
    VAULT_STRATEGY_MS: '60000',
  });
  const hourMs = 3_600_000;
  // The runtime's clock, moved by the test: every hour a strategy run, and one NAV point.
  let now = Date.UTC(2026, 0, 5, 10, 0, 0);
  let server = await startServer(config, silentLog, () => now);
  let running = true;
  try {
    const carol = await user(server, 'carol');
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: carol.userId, asset: 'USDC', amount: '5000' }, admin)).status, 200);
    await until('a BTC price', async () => (await call(server, 'GET', '/api/v1/prices/BTC', undefined, carol.key)).status === 200);
    assert.equal((await call(server, 'POST', '/api/v1/vaults/btc-trend/deposit', { amount_usdc: '1000' }, carol.bearer)).status, 201);
    const performance = () => call(server, 'GET', '/api/v1/vaults/performance/btc-trend');
    for (let hour = 1; hour <= 3; hour++) {
      now += hourMs;
      await until(`NAV point ${hour}`, async () => (await performance()).json['points'] === hour);
    }
    const before = await performance();
    assert.equal(before.json['since'], new Date(Date.UTC(2026, 0, 5, 11, 0, 0)).toISOString());

    await server.close();
    running = false;
    server = await startServer(config, silentLog, () => now);
    running = true;
    const after = await performance();
    assert.equal(after.status, 200);
    assert.deepEqual(after.json, before.json);
  } finally {
    if (running) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
