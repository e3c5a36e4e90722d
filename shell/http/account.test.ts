/**
 * The caller's own account over HTTP: balances and the portfolio in each mode, valued at the last trade,
 * and the per-pair trading balance; bad input and missing credentials.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';

test('balances, portfolio and pair balance of the caller, live and paper', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'account-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const users: Array<{ key: Record<string, string>; userId: number }> = [];
    for (const name of ['carol_account', 'dave_account']) {
      const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
      const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
      users.push({ key: { 'x-api-key': key.json['api_key'] }, userId: registered.json['user_id'] });
    }
    const [carol, dave] = users as [(typeof users)[0], (typeof users)[0]];
    const credit = (userId: number, asset: string, amount: string) => call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset, amount }, { 'x-api-key': 'admin' });
    assert.equal((await credit(carol.userId, 'USDC', '50000')).status, 200);
    assert.equal((await credit(carol.userId, 'BTC', '0.5')).status, 200);
    assert.equal((await credit(dave.userId, 'ETH', '3')).status, 200);

    // Before any trade only USDC has a price: the BTC is listed, unpriced, and left out of the total.
    const before = await call(server, 'GET', '/api/v1/account/me/portfolio', undefined, carol.key);
    assert.equal(before.status, 200);
    assert.deepEqual(
      before.json['assets'].map((row: Record<string, unknown>) => [row['asset'], row['total'], row['price'], row['value']]),
      [
        ['USDC', '50000.000000', '1', '50000.000000'],
        ['BTC', '0.50000000', null, null],
      ],
    );
    assert.deepEqual([before.json['total_value'], before.json['unpriced_assets'], before.json['valuation_asset']], ['50000.000000', 1, 'USDC']);

    // Carol rests a bid; Dave sells 1 ETH into it at 3000.50 (taker fee 0.1 % on Dave's proceeds).
    const bid = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '2', price: '3000.50' }, carol.key);
    assert.equal(bid.status, 201);
    const sell = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'market', quantity: '1' }, dave.key);
    assert.equal(sell.status, 201);
    assert.equal(sell.json['status'], 'filled');

    const carolPortfolio = await call(server, 'GET', '/api/v1/account/me/portfolio', undefined, carol.key);
    // USDC: 50 000 - 3 000.50 paid; held: the rest of the bid, 3 000.50, and the whole order's fee cap,
    // 6.001 (fees are charged on the order's cumulative notional, so the cap stays until the order ends).
    assert.deepEqual(
      carolPortfolio.json['assets'].map((row: Record<string, unknown>) => [row['asset'], row['available'], row['held'], row['value']]),
      [
        ['USDC', '43992.999000', '3006.501000', '46999.500000'],
        ['ETH', '1.00000000', '0.00000000', '3000.500000'],
        ['BTC', '0.50000000', '0.00000000', null],
      ],
    );
    assert.equal(carolPortfolio.json['total_value'], '50000.000000');
    assert.deepEqual(carolPortfolio.json['open_orders'], [{ pair: 'ETH/USDC', count: 1 }]);
    assert.deepEqual(carolPortfolio.json['positions'], []);

    const davePortfolio = await call(server, 'GET', '/api/v1/account/me/portfolio', undefined, dave.key);
    assert.deepEqual(
      davePortfolio.json['assets'].map((row: Record<string, unknown>) => [row['asset'], row['total'], row['price'], row['value']]),
      [
        ['USDC', '2997.499500', '1', '2997.499500'],
        ['ETH', '2.00000000', '3000.50', '6001.000000'],
      ],
    );
    assert.equal(davePortfolio.json['total_value'], '8998.499500');

    // Paper mode is a separate account, which shows PAPER_BALANCES until the first paper order opens it,
    // valued at live prices (ETH last traded at 3000.50; nothing else has a price yet).
    const paper = await call(server, 'GET', '/api/v1/account/me/portfolio?mode=paper', undefined, dave.key);
    assert.equal(paper.json['mode'], 'paper');
    assert.deepEqual(
      paper.json['assets'].map((row: Record<string, unknown>) => [row['asset'], row['total'], row['value']]),
      [
        ['USDC', '100000.000000', '100000.000000'],
        ['ETH', '10.00000000', '30005.000000'],
        ['BTC', '1.00000000', null],
        ['SOL', '500.00000000', null],
        ['DOGE', '500000.000000', null],
        ['PLAT', '100000.000000', null],
        ['PRED', '100000.000000', null],
      ],
    );
    assert.equal(paper.json['total_value'], '130005.000000');
    const paperBalances = await call(server, 'GET', '/api/v1/account/me/balances?mode=paper', undefined, dave.key);
    assert.equal(paperBalances.json['mode'], 'paper');
    assert.equal(paperBalances.json['balances'].find((row: Record<string, string>) => row['asset'] === 'USDC')['available'], '100000.000000');

    const pairBalance = await call(server, 'GET', '/api/v1/exchange/eth/balance', undefined, carol.key);
    assert.deepEqual(pairBalance.json['base'], { asset: 'ETH', available: '1.00000000', held: '0.00000000', total: '1.00000000' });
    assert.deepEqual(pairBalance.json['quote'], { asset: 'USDC', available: '43992.999000', held: '3006.501000', total: '46999.500000' });

    assert.equal((await call(server, 'GET', '/api/v1/account/me/portfolio?mode=demo', undefined, carol.key)).status, 422);
    assert.equal((await call(server, 'GET', '/api/v1/account/me/portfolio')).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/exchange/nope/balance', undefined, carol.key)).status, 404);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
