/** Orders over HTTP: placement with decimal strings, fills and fees in the record, refusals, cancel, open orders. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from './test-client.ts';


async function trader(server: RunningServer, name: string): Promise<{ userId: number; key: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'bot' }, { authorization: `Bearer ${registered.json['access_token']}` });
  const userId = registered.json['user_id'] as number;
  for (const [asset, amount] of [['USDC', '100000'], ['ETH', '10']]) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset, amount }, { 'x-api-key': 'admin' })).status, 200);
  }
  return { userId, key: { 'x-api-key': key.json['api_key'] as string } };
}

test('place, fill, refuse, cancel and list orders over HTTP', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orders-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const maker = await trader(server, 'maker_1');
    const taker = await trader(server, 'taker_1');
    const ask = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '1.5', price: '3000.10', client_order_id: 'm-1' }, maker.key);
    assert.equal(ask.status, 201);
    assert.equal(ask.json['status'], 'open');
    assert.equal(ask.json['price'], '3000.10');
    assert.equal(ask.json['quantity'], '1.5000');
    assert.equal(ask.json['client_order_id'], 'm-1');
    assert.match(ask.json['created_at'], /Z$/);

    const book = await call(server, 'GET', '/api/v1/exchange/eth/book?depth=5', undefined, taker.key);
    assert.deepEqual(book.json['asks'], [{ price: '3000.10', quantity: '1.5000', orders: 1 }]);
    assert.deepEqual(book.json['bids'], []);
    assert.equal((await call(server, 'GET', '/api/v1/exchange/eth/book')).status, 401, 'the CLOB book needs a key');
    assert.equal((await call(server, 'GET', '/api/v1/exchange/eth/book?depth=0', undefined, taker.key)).status, 422);
    const hybrid = await call(server, 'GET', '/api/v1/exchange/eth/book/hybrid');
    assert.deepEqual(hybrid.json['asks'], [{ price: '3000.10', quantity: '1.5000', source: 'clob', chain: null, orders: 1 }]);
    const byPair = await call(server, 'GET', '/api/v1/clob/book/hybrid?pair=ETH/USDC&depth=1');
    assert.deepEqual(byPair.json, hybrid.json);
    assert.equal((await call(server, 'GET', '/api/v1/clob/book/hybrid')).status, 422, 'pair is required');
    assert.equal((await call(server, 'GET', '/api/v1/clob/book/hybrid?pair=ETH/BTC')).status, 404);
    const bbo = await call(server, 'GET', '/api/v1/exchange/eth/bbo');
    assert.deepEqual(bbo.json['best_ask'], { price: '3000.10', quantity: '1.5000', source: 'clob', chain: null, sources: [{ source: 'clob', chain: null, quantity: '1.5000' }] });
    assert.deepEqual(bbo.json['clob_best_ask'], { price: '3000.10', quantity: '1.5000' });

    const buy = await call(server, 'POST', '/api/v1/exchange/ETH/orders', { side: 'buy', order_type: 'ioc', quantity: 2, price: 3001 }, taker.key);
    assert.equal(buy.status, 201);
    assert.equal(buy.json['status'], 'expired', 'IOC remainder expires');
    assert.equal(buy.json['time_in_force'], 'IOC');
    assert.equal(buy.json['filled_quantity'], '1.5000');
    assert.equal(buy.json['average_price'], '3000.100000');
    assert.deepEqual(buy.json['fills'], [{ trade_id: '1', price: '3000.10', quantity: '1.5000', fee: '4.500150', fee_asset: 'USDC', liquidity: 'taker', venue: 'clob', chain: null, sim_tx_hash: null }]);
    assert.equal(buy.json['sim_tx_hash'], null);

    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, taker.key);
    const usdc = (balances.json['balances'] as Array<Record<string, string>>).find((row) => row['asset'] === 'USDC');
    assert.equal(usdc!['available'], '95495.349850'); // 100 000 - 4 500.15 - 4.50015 fee

    const refusals: Array<[unknown, number, string]> = [
      [{ side: 'buy', order_type: 'limit', quantity: '1', price: '3000.001' }, 422, 'PRICE_OFF_TICK'],
      [{ side: 'buy', order_type: 'limit', quantity: '0.00001', price: '3000' }, 422, 'QUANTITY_OFF_LOT'],
      [{ side: 'buy', order_type: 'limit', quantity: '1' }, 422, 'PRICE_REQUIRED'],
      [{ side: 'buy', order_type: 'limit', quantity: '-1', price: '1' }, 422, 'NEGATIVE_VALUE'],
      [{ side: 'buy', order_type: 'limit', quantity: '1000', price: '3000' }, 422, 'INSUFFICIENT_BALANCE'],
      [{ side: 'up', order_type: 'limit', quantity: '1', price: '1' }, 422, 'VALIDATION_FAILED'],
      [{ side: 'buy', order_type: 'limit', quantity: '1', price: '1', colour: 'red' }, 422, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of refusals) {
      const refused = await call(server, 'POST', '/api/v1/exchange/eth/orders', body, taker.key);
      assert.deepEqual([refused.status, refused.json['error']?.code], [status, code], JSON.stringify(body));
    }
    assert.equal((await call(server, 'POST', '/api/v1/exchange/nope/orders', { side: 'buy', order_type: 'market', quantity: '1' }, taker.key)).status, 404);

    const bid = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.5', price: '2990', post_only: true }, taker.key);
    assert.equal(bid.status, 201);
    const crossing = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '0.5', price: '2980', post_only: true }, maker.key);
    assert.deepEqual([crossing.status, crossing.json['error'].code], [409, 'POST_ONLY_WOULD_TAKE']);
    const heldUsdc = (await call(server, 'GET', '/api/v1/account/me/balances', undefined, taker.key)).json['balances'].find((row: Record<string, string>) => row['asset'] === 'USDC');
    assert.equal(heldUsdc['held'], '1495.000000', 'a post-only bid holds price × quantity: no taker fee cap (and the maker fee is 0)');
    // A first paper order opens the paper account with PAPER_BALANCES: its hold comes from paper funds.
    const liveBefore = (await call(server, 'GET', '/api/v1/account/me/balances', undefined, taker.key)).json['balances'];
    const paper = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.5', price: '2900', paper: true }, taker.key);
    assert.deepEqual([paper.status, paper.json['mode'], paper.json['status']], [201, 'paper', 'open']);
    assert.deepEqual((await call(server, 'GET', '/api/v1/account/me/balances', undefined, taker.key)).json['balances'], liveBefore, 'paper funds are separate');
    const paperUsdc = (await call(server, 'GET', '/api/v1/account/me/balances?mode=paper', undefined, taker.key)).json['balances'].find((row: Record<string, string>) => row['asset'] === 'USDC');
    assert.deepEqual([paperUsdc['held'], paperUsdc['total']], ['1451.450000', '100000.000000']);
    assert.equal((await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${paper.json['order_id']}?mode=paper`, undefined, taker.key)).status, 200);

    const open = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, taker.key);
    assert.deepEqual(open.json['orders'].map((order: Record<string, string>) => [order['order_id'], order['status'], order['price']]), [[bid.json['order_id'], 'open', '2990.00']]);

    // Only the owner can cancel; others see 404.
    assert.equal((await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${bid.json['order_id']}`, undefined, maker.key)).status, 404);
    const cancelled = await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${bid.json['order_id']}`, undefined, taker.key);
    assert.deepEqual(cancelled.json, { order_id: bid.json['order_id'], client_order_id: null, status: 'cancelled', remaining_quantity: '0.5000' });
    assert.equal((await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${bid.json['order_id']}`, undefined, taker.key)).status, 404);
    assert.equal((await call(server, 'DELETE', '/api/v1/exchange/eth/orders/abc', undefined, taker.key)).status, 404);

    // A marketable paper order fills at live prices, each fill with its sim- hash, and takes nothing live.
    const liveAsk = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '0.4', price: '3001' }, maker.key);
    assert.equal(liveAsk.status, 201);
    const bookBefore = await call(server, 'GET', '/api/v1/exchange/eth/book', undefined, maker.key);
    const paperBuy = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'market', quantity: '0.25', mode: 'paper' }, taker.key);
    assert.deepEqual([paperBuy.status, paperBuy.json['status'], paperBuy.json['filled_quantity']], [201, 'filled', '0.2500']);
    assert.match(paperBuy.json['sim_tx_hash'], /^sim-[0-9a-f-]{36}$/);
    assert.deepEqual(
      paperBuy.json['fills'].map((fill: Record<string, unknown>) => [fill['price'], fill['quantity'], fill['venue'], fill['liquidity']]),
      [['3001.00', '0.2500', 'clob', 'taker']],
    );
    assert.equal(paperBuy.json['fills'][0]['sim_tx_hash'], paperBuy.json['sim_tx_hash']);
    assert.deepEqual((await call(server, 'GET', '/api/v1/exchange/eth/book', undefined, maker.key)).json, bookBefore.json, 'the live book is untouched');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('batch place and cancel, amend with priority rules, and cancel-all over HTTP', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orders-batch-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const mm = await trader(server, 'mm_batch');
    const batch = await call(server, 'POST', '/api/v1/exchange/eth/orders/batch', {
      orders: [
        { side: 'sell', order_type: 'limit', quantity: '0.1', price: '3010' },
        { side: 'sell', order_type: 'limit', quantity: '0.1', price: '3010.001' },
        { side: 'sell', order_type: 'limit', quantity: '5000', price: '3020' },
        { side: 'buy', order_type: 'limit', quantity: '0.2', price: '2990', client_order_id: 'b-1' },
      ],
    }, mm.key);
    assert.equal(batch.status, 200);
    const results = batch.json['results'] as Array<Record<string, any>>;
    assert.deepEqual(results.map((result) => result['status'] ?? result['error'].code), ['open', 'PRICE_OFF_TICK', 'QUANTITY_OUT_OF_RANGE', 'open']);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders/batch', { orders: Array.from({ length: 11 }, () => ({ side: 'buy', order_type: 'market', quantity: '1' })) }, mm.key)).status, 422);

    const askId = results[0]!['order_id'];
    const reduced = await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${askId}`, { quantity: '0.05' }, mm.key);
    assert.deepEqual([reduced.json['quantity'], reduced.json['priority_kept']], ['0.0500', true]);
    const moved = await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${askId}`, { price: '3005.5' }, mm.key);
    assert.deepEqual([moved.json['price'], moved.json['priority_kept']], ['3005.50', false]);
    const same = await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${askId}`, { price: '3005.50', quantity: '0.05' }, mm.key);
    assert.deepEqual(same.json, { order_id: askId, client_order_id: null, unchanged: true, filled_now: '0.0000' }, 'asking for what the order already is changes nothing');
    assert.equal((await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${askId}`, { price: '3005.555' }, mm.key)).json['error'].code, 'PRICE_OFF_TICK');
    assert.equal((await call(server, 'PATCH', '/api/v1/exchange/eth/orders/999999', { price: '3005' }, mm.key)).status, 404);

    const cancelBatch = await call(server, 'DELETE', '/api/v1/exchange/eth/orders/batch', { order_ids: [String(askId), '424242'] }, mm.key);
    assert.deepEqual(cancelBatch.json['results'].map((result: Record<string, any>) => result['status'] ?? result['error'].code), ['cancelled', 'ORDER_NOT_FOUND']);

    await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'stop_limit', quantity: '0.1', price: '3100', stop_price: '3050' }, mm.key);
    const viaClob = await call(server, 'POST', '/api/v1/clob/orders', { pair: 'ETH/USDC', side: 'buy', order_type: 'limit', quantity: '0.1', price: '2980' }, mm.key);
    assert.deepEqual([viaClob.status, viaClob.json['pair']], [201, 'ETH/USDC']);
    assert.equal((await call(server, 'POST', '/api/v1/clob/orders', { side: 'buy', order_type: 'market', quantity: '0.1' }, mm.key)).status, 422);
    const balance = await call(server, 'GET', '/api/v1/exchange/eth/balance', undefined, mm.key);
    assert.deepEqual(balance.json['base'], { asset: 'ETH', available: '10.00000000', held: '0.00000000', total: '10.00000000' });
    // 0.2 @ 2990 + 0.1 @ 2980 + the stop's 0.1 @ 3100, each plus its 10 bps fee cap: 598.598 + 298.298 + 310.31.
    assert.equal(balance.json['quote']['held'], '1207.206000');
    const all = await call(server, 'DELETE', '/api/v1/exchange/eth/orders', undefined, mm.key);
    assert.equal(all.json['count'], 3, 'the two resting bids and the pending stop');
    assert.deepEqual((await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, mm.key)).json['orders'], []);

    // An amend whose new price crosses fills at once: filled_now says what it took, remaining_quantity what is left open.
    const other = await trader(server, 'taker_batch');
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '0.05', price: '3001' }, mm.key)).status, 201);
    const otherBid = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.2', price: '2995' }, other.key);
    const crossed = await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${otherBid.json['order_id']}`, { price: '3002' }, other.key);
    assert.deepEqual([crossed.json['price'], crossed.json['quantity'], crossed.json['filled_now'], crossed.json['remaining_quantity']], ['3002.00', '0.2000', '0.0500', '0.1500']);
    const after = await call(server, 'GET', `/api/v1/exchange/eth/orders/${otherBid.json['order_id']}`, undefined, other.key);
    assert.deepEqual([after.json['status'], after.json['filled_quantity']], ['partially_filled', '0.0500']);
    // Moved through its own user's ask with the default stp (cancel_taker): cancelled, nothing left open.
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '0.05', price: '3003' }, other.key)).status, 201);
    const selfCross = await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${otherBid.json['order_id']}`, { price: '3004' }, other.key);
    assert.deepEqual([selfCross.json['filled_now'], selfCross.json['remaining_quantity']], ['0.0000', '0.0000']);
    assert.equal((await call(server, 'GET', `/api/v1/exchange/eth/orders/${otherBid.json['order_id']}`, undefined, other.key)).json['status'], 'cancelled');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('client order ids: charset, uniqueness among open orders, echo, GET and DELETE by client id', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orders-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const mm = await trader(server, 'mm_cid');
    const other = await trader(server, 'other_cid');
    const bid = (clientOrderId: unknown, price = '2900'): Promise<{ status: number; json: Record<string, any> }> =>
      call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price, client_order_id: clientOrderId }, mm.key);

    for (const bad of ['has space', 'slash/in', 'x'.repeat(65), '', 'é']) {
      const refused = await bid(bad);
      assert.deepEqual([refused.status, refused.json['error']?.code], [422, 'VALIDATION_FAILED'], bad);
      assert.match(refused.json['error'].message, /^body\.client_order_id: /);
    }
    // Numbers where strings are required are named as such; 1e400 arrives as Infinity and is explained.
    const raw = (fields: string): Promise<{ status: number; json: Record<string, any> }> =>
      call(server, 'POST', '/api/v1/exchange/eth/orders', `{"side":"buy","order_type":"limit",${fields}}`, mm.key);
    const huge = await raw('"quantity":"0.1","price":"2900","client_order_id":1e400');
    assert.deepEqual([huge.status, huge.json['error'].message], [422, 'body.client_order_id: must be a decimal string, e.g. "1.5": the number sent is beyond what a JSON number holds']);
    const number = await raw('"quantity":"0.1","price":"2900","client_order_id":7');
    assert.equal(number.json['error'].message, 'body.client_order_id: must be a string, not a number; write decimals as strings, e.g. "1.5"');
    const hugeQuantity = await raw('"quantity":1e400,"price":"2900"');
    assert.deepEqual([hugeQuantity.status, hugeQuantity.json['error'].code], [422, 'VALIDATION_FAILED']);
    assert.equal(hugeQuantity.json['error'].message, 'body.quantity: must be a decimal string, e.g. "1.5": the number sent is beyond what a JSON number holds');
    assert.match((await raw('"quantity":"0.1","price":-1e999')).json['error'].message, /^body\.price: must be a decimal string/);
    assert.equal((await raw('"quantity":0.1,"price":2900.5')).status, 201, 'finite numbers are still read exactly');

    const first = await bid('grid:eth.b-1_A');
    assert.deepEqual([first.status, first.json['client_order_id']], [201, 'grid:eth.b-1_A']);
    assert.equal((await bid('x'.repeat(64))).status, 201, '64 characters are allowed');
    const duplicate = await bid('grid:eth.b-1_A', '2800');
    assert.deepEqual([duplicate.status, duplicate.json['error']?.code], [409, 'DUPLICATE_CLIENT_ORDER_ID']);
    const batch = await call(server, 'POST', '/api/v1/exchange/eth/orders/batch', { orders: [{ side: 'buy', order_type: 'limit', quantity: '0.1', price: '2700', client_order_id: 'grid:eth.b-1_A' }] }, mm.key);
    assert.equal(batch.json['results'][0].error.code, 'DUPLICATE_CLIENT_ORDER_ID', 'a batch item is held to the same rule');
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2900', client_order_id: 'grid:eth.b-1_A' }, other.key)).status, 201, 'ids are per user');

    const amended = await call(server, 'PATCH', `/api/v1/exchange/eth/orders/${first.json['order_id']}`, { quantity: '0.1' }, mm.key);
    assert.deepEqual([amended.json['client_order_id'], amended.json['unchanged']], ['grid:eth.b-1_A', true], 'the amendment answer names it too');
    const byClientId = '/api/v1/exchange/eth/orders/by-client-id/grid:eth.b-1_A';
    const found = await call(server, 'GET', byClientId, undefined, mm.key);
    assert.equal(found.status, 200);
    assert.deepEqual([found.json['order_id'], found.json['client_order_id'], found.json['status'], found.json['pair']], [first.json['order_id'], 'grid:eth.b-1_A', 'open', 'ETH/USDC']);
    assert.equal((await call(server, 'GET', '/api/v1/exchange/btc/orders/by-client-id/grid:eth.b-1_A', undefined, mm.key)).status, 404, 'another pair');
    assert.equal((await call(server, 'GET', `${byClientId}?mode=paper`, undefined, mm.key)).status, 404, 'another mode');
    assert.equal((await call(server, 'GET', '/api/v1/exchange/eth/orders/by-client-id/nope', undefined, mm.key)).status, 404);
    assert.equal((await call(server, 'DELETE', '/api/v1/exchange/btc/orders/by-client-id/grid:eth.b-1_A', undefined, mm.key)).status, 404, 'not cancelled on another pair');

    const cancelled = await call(server, 'DELETE', byClientId, undefined, mm.key);
    assert.deepEqual(cancelled.json, { order_id: first.json['order_id'], client_order_id: 'grid:eth.b-1_A', status: 'cancelled', remaining_quantity: '0.1000' });
    assert.equal((await call(server, 'DELETE', byClientId, undefined, mm.key)).status, 404, 'no open order has the id any more');
    assert.equal((await call(server, 'GET', byClientId, undefined, mm.key)).json['status'], 'cancelled', 'the ended order is still found');
    const reused = await bid('grid:eth.b-1_A', '2950');
    assert.equal(reused.status, 201, 'an ended order frees its id');
    assert.equal((await call(server, 'GET', byClientId, undefined, mm.key)).json['order_id'], reused.json['order_id'], 'the newest order with the id');

    // The id comes back on fills and in the order history.
    const sell = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'ioc', quantity: '0.1', price: '2950', client_order_id: 'hit-1' }, other.key);
    assert.equal(sell.json['status'], 'filled');
    const makerFills = await call(server, 'GET', '/api/v1/exchange/eth/trades/mine', undefined, mm.key);
    assert.deepEqual(
      makerFills.json['trades'].map((fill: Record<string, string>) => [fill['order_id'], fill['client_order_id'], fill['role'], fill['symbol'], fill['pair']]),
      [[reused.json['order_id'], 'grid:eth.b-1_A', 'maker', 'ETH', 'ETH/USDC']],
    );
    const takerFills = await call(server, 'GET', '/api/v1/exchange/trades/mine', undefined, other.key);
    assert.equal(takerFills.json['trades'][0].client_order_id, 'hit-1');
    const history = await call(server, 'GET', '/api/v1/exchange/eth/orders/history?status=filled', undefined, mm.key);
    assert.deepEqual(history.json['orders'].map((order: Record<string, string>) => order['client_order_id']), ['grid:eth.b-1_A']);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('cross-pair reads and cancel: open orders, own fills and cancel-all over every pair', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orders-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const mm = await trader(server, 'mm_cross');
    const taker = await trader(server, 'taker_cross');
    const place = async (who: { key: Record<string, string> }, symbol: string, body: Record<string, unknown>): Promise<Record<string, any>> => {
      const placed = await call(server, 'POST', `/api/v1/exchange/${symbol}/orders`, body, who.key);
      assert.equal(placed.status, 201, JSON.stringify(placed.json));
      return placed.json;
    };
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: mm.userId, asset: 'BTC', amount: '1' }, { 'x-api-key': 'admin' })).status, 200);
    const ethBid = await place(mm, 'eth', { side: 'buy', order_type: 'limit', quantity: '0.5', price: '2900', post_only: true, stp: 'cancel_both', client_order_id: 'e1' });
    const btcAsk = await place(mm, 'btc', { side: 'sell', order_type: 'limit', quantity: '0.0100', price: '60000' });
    const ethStop = await place(mm, 'eth', { side: 'sell', order_type: 'stop_limit', quantity: '0.1', price: '2500', stop_price: '2600' });
    const paperBid = await place(mm, 'eth', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2000', mode: 'paper' });

    const all = await call(server, 'GET', '/api/v1/exchange/orders/open', undefined, mm.key);
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.json['orders'].map((order: Record<string, string>) => [order['order_id'], order['pair'], order['status']]),
      [[ethStop['order_id'], 'ETH/USDC', 'pending'], [btcAsk['order_id'], 'BTC/USDC', 'open'], [ethBid['order_id'], 'ETH/USDC', 'open']],
      'newest first, live mode only',
    );
    const record = all.json['orders'][2];
    assert.deepEqual([record['post_only'], record['stp'], record['client_order_id'], record['fee'], record['fee_asset']], [true, 'cancel_both', 'e1', '0.000000', 'USDC']);
    assert.match(record['created_at'], /Z$/);
    assert.equal(all.json['next_before'], null);
    const paged = await call(server, 'GET', '/api/v1/exchange/orders/open?limit=2', undefined, mm.key);
    assert.deepEqual([paged.json['orders'].length, paged.json['next_before']], [2, btcAsk['order_id']]);
    const rest = await call(server, 'GET', `/api/v1/exchange/orders/open?limit=2&before=${paged.json['next_before']}`, undefined, mm.key);
    assert.deepEqual(rest.json['orders'].map((order: Record<string, string>) => order['order_id']), [ethBid['order_id']]);
    const paper = await call(server, 'GET', '/api/v1/exchange/orders/open?mode=paper', undefined, mm.key);
    assert.deepEqual(paper.json['orders'].map((order: Record<string, string>) => [order['order_id'], order['mode']]), [[paperBid['order_id'], 'paper']]);
    const ethOnly = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, mm.key);
    assert.deepEqual(ethOnly.json['orders'].map((order: Record<string, string>) => order['order_id']), [ethStop['order_id'], ethBid['order_id']]);
    assert.equal((await call(server, 'GET', '/api/v1/exchange/orders/open?limit=0', undefined, mm.key)).status, 422);
    assert.equal((await call(server, 'GET', '/api/v1/exchange/orders/open')).status, 401);

    // Fills on two pairs, read in one list; the partly filled bid stays open with its new status.
    await place(taker, 'eth', { side: 'sell', order_type: 'ioc', quantity: '0.2', price: '2900' });
    await place(taker, 'btc', { side: 'buy', order_type: 'ioc', quantity: '0.0100', price: '60000' });
    const fills = await call(server, 'GET', '/api/v1/exchange/trades/mine', undefined, mm.key);
    assert.deepEqual(
      fills.json['trades'].map((fill: Record<string, string>) => [fill['pair'], fill['side'], fill['role'], fill['quantity'], fill['client_order_id']]),
      [['BTC/USDC', 'sell', 'maker', '0.0100', null], ['ETH/USDC', 'buy', 'maker', '0.2000', 'e1']],
    );
    const firstPage = await call(server, 'GET', '/api/v1/exchange/trades/mine?limit=1', undefined, mm.key);
    assert.equal(firstPage.json['trades'].length, 1);
    const secondPage = await call(server, 'GET', `/api/v1/exchange/trades/mine?limit=1&before=${firstPage.json['next_before']}`, undefined, mm.key);
    assert.deepEqual(secondPage.json['trades'].map((fill: Record<string, string>) => fill['pair']), ['ETH/USDC']);
    assert.deepEqual((await call(server, 'GET', '/api/v1/exchange/trades/mine?mode=paper', undefined, mm.key)).json['trades'], []);
    const afterFills = await call(server, 'GET', '/api/v1/exchange/orders/open', undefined, mm.key);
    assert.deepEqual(
      afterFills.json['orders'].map((order: Record<string, string>) => [order['order_id'], order['status'], order['filled_quantity']]),
      [[ethStop['order_id'], 'pending', '0.0000'], [ethBid['order_id'], 'partially_filled', '0.2000']],
    );

    // Cancel everything live on every pair; the paper order stays.
    await place(mm, 'sol', { side: 'buy', order_type: 'limit', quantity: '1', price: '10' });
    const cancelled = await call(server, 'DELETE', '/api/v1/exchange/orders', undefined, mm.key);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.json['count'], 3);
    assert.deepEqual((await call(server, 'GET', '/api/v1/exchange/orders/open', undefined, mm.key)).json['orders'], []);
    assert.equal((await call(server, 'GET', '/api/v1/exchange/orders/open?mode=paper', undefined, mm.key)).json['orders'].length, 1);
    const paperCancelled = await call(server, 'DELETE', '/api/v1/exchange/orders?mode=paper', undefined, mm.key);
    assert.deepEqual(paperCancelled.json, { cancelled_order_ids: [paperBid['order_id']], count: 1 });
    assert.deepEqual((await call(server, 'DELETE', '/api/v1/exchange/orders', undefined, mm.key)).json, { cancelled_order_ids: [], count: 0 });
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
