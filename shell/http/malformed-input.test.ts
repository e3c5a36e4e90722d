/**
 * Every route of the real server against malformed input: path parameters that name nothing (words,
 * negative and 23-digit numbers, 300 characters, a NUL), broken and hostile bodies (truncated JSON, a
 * number beyond float64, 2 000 levels of nesting, the wrong type in every declared field, 400-digit
 * strings), a bad query, each with the credential the route asks for. No answer may be a 5xx, every
 * 4xx carries the error shape ({"error":{"code","message"}}), and the server is alive and ready after.
 * A regression guard for the rule that bad input gets a clear 4xx and never a 500.
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
import type { Route } from './route-table.ts';

const pathValues = ['x', '-1', '99999999999999999999999', 'a'.repeat(300), '%00'];
const deepJson = '{"a":'.repeat(2000) + '1' + '}'.repeat(2000);

/** Bodies for a route: the shared hostile ones, then its declared fields each with the wrong type. */
function bodiesFor(route: Route): Array<string | undefined> {
  if (route.method === 'GET') return [undefined];
  const declared = (route.body as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  const wrongType: Record<string, unknown> = {};
  const oversized: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(declared)) {
    wrongType[name] = schema.type === 'string' ? 123 : 'text';
    oversized[name] = schema.type === 'string' ? '9'.repeat(400) : -1e308;
  }
  return [undefined, '{', '1e400', '[]', 'null', deepJson, '{}', '{"amount":1e400,"quantity":"NaN","price":"Infinity"}', JSON.stringify(wrongType), JSON.stringify(oversized)];
}

test('every route answers malformed input with a 4xx in the error shape, never a 5xx, and the server stays up', { timeout: 240_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'malformed-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin-key' }), silentLog);
  try {
    const admin = { 'x-api-key': 'admin-key' };
    const registered = await call(server, 'POST', '/auth/register', { email: 'fuzz@example.com', password: 'correct horse', username: 'fuzz_one' });
    assert.equal(registered.status, 201);
    const bearer = { authorization: `Bearer ${String(registered.json['access_token'])}` };
    const created = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'fuzz' }, bearer);
    const key = { 'x-api-key': String(created.json['api_key']) };
    // The highest tier, so that validation is reached rather than the rate limit.
    assert.equal((await call(server, 'PATCH', `/admin/v1/api-keys/${String(created.json['api_key_id'])}`, { tier: 'ADMIN' }, admin)).status, 200);
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset: 'USDC', amount: '10000' }, admin)).status, 200);

    const credentialOf = (route: Route): Record<string, string> => {
      if (route.auth === 'admin') return admin;
      if (route.auth === 'bearer') return bearer;
      return key;
    };
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let requests = 0;
    for (const route of server.table.routes) {
      const paths = route.path.includes('{') ? pathValues.map((value) => route.path.replace(/\{[^}]+\}/g, value)) : [route.path];
      for (const path of paths) {
        for (const body of bodiesFor(route)) {
          const url = `http://127.0.0.1:${server.port}${path}${route.method === 'GET' ? '?limit=-5&cursor=%25%25&asset=1e400' : ''}`;
          const response = await fetch(url, {
            method: route.method,
            body,
            headers: { connection: 'close', 'content-type': 'application/json', ...credentialOf(route) },
            signal: AbortSignal.timeout(20_000),
          });
          requests++;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const type = response.headers.get('content-type') ?? '';
          // A stream (server-sent events) that opened is left: its head said what was needed.
          const text = type.startsWith('text/event-stream') ? (await response.body?.cancel(), '') : await response.text();
          const what = `${route.method} ${path.slice(0, 60)} ${String(body).slice(0, 40)}`;
          if (response.status >= 500) problems.push(`${what} -> ${response.status} ${text.slice(0, 120)}`);
          else if (response.status >= 400 && !/^\{"error":\{"code":"[A-Z_]+","message":"/.test(text)) problems.push(`${what} -> ${response.status} not in the error shape: ${text.slice(0, 120)}`);
        }
      }
    }
    assert.deepEqual(problems, [], `${problems.length} of ${requests} answers broke the rule`);
    // Most answers are refusals of the input itself, not of the credential or the rate limit.
    const refused = (statuses.get(400) ?? 0) + (statuses.get(404) ?? 0) + (statuses.get(413) ?? 0) + (statuses.get(422) ?? 0);
    assert.ok(refused > requests / 2, `input refusals ${refused} of ${requests}: ${JSON.stringify([...statuses])}`);
    assert.equal((await call(server, 'GET', '/health')).status, 200);
    assert.equal((await call(server, 'GET', '/ready')).status, 200);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
