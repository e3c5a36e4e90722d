/**
 * The declarations of the shell's own routes (exchange, account, funding, API keys, auth, agents, admin):
 * each has tags, an error list and a closed response schema that compiles in strict mode. That the answers
 * match these schemas is checked by every test that calls a route through the test client; the test here
 * makes sure no route of these files is left without one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import type { Route } from './route-table.ts';
import { closed, decimalString, errorSchema, placedOrderSchema, storedOrderSchema, timestamp } from './schemas.ts';

const Ajv = AjvModule as unknown as typeof AjvModule.default;

/** Every route declared in shell/http's route files, by name. */
const shellRoutes = [
  // exchange-public.ts
  'tp_clob_list_pairs',
  'tp_clob_time',
  'tp_clob_orderbook',
  'tp_clob_hybrid_book',
  'tp_clob_book',
  'tp_clob_venues',
  'tp_clob_bbo',
  // exchange-orders.ts
  'tp_clob_place_order',
  'tp_clob_submit_order',
  'tp_clob_cancel_order',
  'tp_clob_place_batch',
  'tp_clob_cancel_batch',
  'tp_clob_cancel_all_orders',
  'tp_clob_amend_order',
  'tp_clob_open_orders',
  // exchange-history.ts
  'tp_clob_markets',
  'tp_clob_order_history',
  'tp_clob_get_order',
  'tp_clob_recent_trades',
  'tp_clob_my_trades',
  'tp_clob_ticker',
  'tp_clob_stats',
  'tp_clob_chart',
  // exchange-algos.ts
  'tp_clob_place_twap',
  'tp_clob_active_twaps',
  'tp_clob_cancel_twap',
  'tp_clob_place_scale',
  'tp_clob_place_scale_orders',
  // account.ts
  'get_portfolio',
  'get_balances',
  'tp_clob_balance',
  // funding.ts
  'add_withdrawal_address',
  'list_withdrawal_addresses',
  'remove_withdrawal_address',
  'get_deposit_addresses',
  'withdraw',
  'tp_clob_withdraw',
  'list_withdrawals',
  // api-keys.ts
  'create_api_key',
  'list_api_keys',
  'revoke_api_key',
  'update_api_key',
  'get_api_key_with_password',
  // auth-routes.ts
  'register',
  'login',
  'refresh_session',
  // two-factor-routes.ts
  'setup_two_factor',
  'enable_two_factor',
  'verify_two_factor',
  'disable_two_factor',
  'get_two_factor_status',
  // agents.ts
  'register_agent',
  // admin.ts
  'admin_credit',
  'admin_stats',
  'admin_update_api_key',
];

/** Whether every object schema inside `schema` (through unions and arrays) is closed. */
function openObjects(schema: unknown, where: string, found: string[]): string[] {
  if (schema === null || typeof schema !== 'object') return found;
  const node = schema as Record<string, unknown>;
  if (node['type'] === 'object' && node['properties'] !== undefined && node['additionalProperties'] !== false) found.push(where);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const [name, property] of Object.entries(value)) openObjects(property, `${where}.${name}`, found);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => openObjects(item, `${where}.${key}[${index}]`, found));
    } else if (typeof value === 'object') {
      openObjects(value, `${where}.${key}`, found);
    }
  }
  return found;
}

test('every route of the shell s own files declares tags, errors and a closed response schema that compiles', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'schemas-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'k' }), silentLog);
  try {
    const byName = new Map<string, Route>(server.table.routes.map((route) => [route.name ?? '', route]));
    // Strict mode refuses unknown keywords; the two formats the schemas name are documentation here.
    const ajv = new Ajv({ strict: true, formats: { 'date-time': true, uuid: true } });
    for (const name of shellRoutes) {
      const route = byName.get(name);
      assert.ok(route !== undefined, `${name} is served`);
      assert.ok((route.tags?.length ?? 0) > 0, `${name}: tags`);
      assert.ok(route.errors !== undefined, `${name}: errors`);
      assert.ok(route.response !== undefined, `${name}: response`);
      // MCP takes a tool's output schema only when its root is an object schema.
      assert.equal(route.response['type'], 'object', `${name}: the answer is an object`);
      assert.doesNotThrow(() => ajv.compile(route.response!), `${name}: the response schema compiles`);
      assert.deepEqual(openObjects(route.response, 'response', []), [], `${name}: every object of the answer is closed`);
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the shared records refuse what the API never answers', () => {
  const ajv = new Ajv({ strict: true, formats: { 'date-time': true, uuid: true } });
  const amount = ajv.compile(closed({ amount: decimalString() }));
  assert.ok(amount({ amount: '2990.50' }) && amount({ amount: '0' }));
  for (const wrong of [{ amount: 2990.5 }, { amount: '-1' }, { amount: '1e3' }, { amount: '.5' }, { amount: '1', extra: true }, {}]) assert.ok(!amount(wrong), JSON.stringify(wrong));
  const time = ajv.compile(timestamp());
  assert.ok(time('2026-01-01T10:00:05.000Z'));
  assert.ok(!time('2026-01-01 10:00:05') && !time(1_767_261_605_000));
  const error = ajv.compile(errorSchema);
  assert.ok(error({ error: { code: 'ORDER_NOT_FOUND', message: 'no such order' } }));
  assert.ok(!error({ error: { code: 'ORDER_NOT_FOUND' } }) && !error({ code: 'X', message: 'y' }));
  // The closedness check itself sees an open object, also inside a union.
  assert.deepEqual(openObjects(Type.Union([Type.Null(), Type.Object({ a: Type.Object({ b: Type.String() }) }, { additionalProperties: false })]), 'x', []), ['x.anyOf[1].a']);
  // A placement record has fills and no fee; a stored one has fees and no fills.
  assert.ok(placedOrderSchema.required?.includes('fills') && !('fee' in placedOrderSchema.properties));
  assert.ok(storedOrderSchema.required?.includes('updated_at') && !('fills' in storedOrderSchema.properties));
});
