import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from './router.ts';

test('literal segments win over parameters, with backtracking, and 405 lists the allowed methods', () => {
  const router = new Router<string>();
  router.add('GET', '/api/v1/exchange/{symbol}/orders/open', 'open');
  router.add('GET', '/api/v1/exchange/{symbol}/orders/{id}', 'one');
  router.add('DELETE', '/api/v1/exchange/{symbol}/orders/{id}', 'cancel');
  router.add('POST', '/api/v1/exchange/{symbol}/orders/batch', 'batch');
  router.add('GET', '/api/v1/exchange/pairs', 'pairs');
  assert.deepEqual(router.match('GET', '/api/v1/exchange/eth/orders/open'), { route: 'open', params: { symbol: 'eth' }, allowed: [] });
  assert.deepEqual(router.match('GET', '/api/v1/exchange/eth/orders/42'), { route: 'one', params: { symbol: 'eth', id: '42' }, allowed: [] });
  // "batch" is a path of its own: GET on it is a wrong method, not an order named "batch".
  assert.deepEqual(router.match('GET', '/api/v1/exchange/eth/orders/batch').allowed, ['POST']);
  assert.equal(router.match('POST', '/api/v1/exchange/eth/orders/batch').route, 'batch');
  assert.deepEqual([...router.match('PATCH', '/api/v1/exchange/eth/orders/42').allowed].sort(), ['DELETE', 'GET']);
  assert.equal(router.match('GET', '/api/v1/exchange/pairs/').route, 'pairs');
  assert.equal(router.match('GET', '/api/v1/exchange//orders/1').route, null);
  assert.equal(router.match('GET', '/api/v1/exchange/e%20th/orders/1').params['symbol'], 'e th');
  assert.equal(router.match('GET', '/x/'.repeat(40)).route, null);
  assert.throws(() => router.add('GET', '/api/v1/exchange/pairs', 'again'), /duplicate/);
  assert.throws(() => router.add('GET', '/api/v1/exchange/{pair}/x', 'x'), /conflicts/);
});

test('a remembered match answers the same as a fresh one, and routes added later are seen', () => {
  const router = new Router<string>();
  router.add('GET', '/api/v1/exchange/{symbol}/orders/{id}', 'one');
  const first = router.match('GET', '/api/v1/exchange/eth/orders/7');
  assert.deepEqual(first, { route: 'one', params: { symbol: 'eth', id: '7' }, allowed: [] });
  assert.equal(router.match('GET', '/api/v1/exchange/eth/orders/7'), first, 'the same path and method: the remembered match');
  assert.deepEqual(router.match('DELETE', '/api/v1/exchange/eth/orders/7'), { route: null, params: { symbol: 'eth', id: '7' }, allowed: ['GET'] });
  assert.deepEqual(router.match('DELETE', '/api/v1/exchange/eth/orders/7').allowed, ['GET'], 'a path without a route for its method is matched afresh');
  router.add('DELETE', '/api/v1/exchange/{symbol}/orders/{id}', 'cancel');
  assert.equal(router.match('DELETE', '/api/v1/exchange/eth/orders/7').route, 'cancel');
  // Many one-off paths (order ids) do not grow the memory without bound, and matching stays right past it.
  for (let id = 0; id < 10_000; id++) assert.equal(router.match('GET', `/api/v1/exchange/eth/orders/${id}`).params['id'], String(id));
  assert.equal(router.match('GET', '/api/v1/exchange/btc/orders/1').params['symbol'], 'btc');
});
