/**
 * The discovery documents against the real server: the OpenAPI document has every public route of the final
 * table exactly once and no admin route, unique operationIds, every path parameter declared, declared
 * security schemes, the rate-limit class and permission extensions and request schemas that compile; llms.txt
 * lists the same routes. A hand-built table checks the cases the server's routes do not reach.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { RouteTable, type Route } from '../http/route-table.ts';
import { openApiDocument } from './openapi.ts';

const Ajv = AjvModule as unknown as typeof AjvModule.default;

interface Operation {
  operationId: string;
  summary: string;
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
  security: Array<Record<string, string[]>>;
  'x-rate-limit-class': string;
  'x-permission'?: string;
  responses: Record<string, { content: { 'application/json': { schema: Record<string, unknown> } } }>;
}

interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

function operations(document: Document): Array<{ key: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, path, operation })),
  );
}

function pathNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

test('GET /openapi-public.json and /llms.txt describe every public route of the final table', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'discovery-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'k' }), silentLog);
  try {
    const response = await call(server, 'GET', '/openapi-public.json');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const document = response.json as Document;
    assert.equal(document.openapi, '3.1.0');

    const routes = new Map(server.table.routes.map((route) => [`${route.method} ${route.path}`, route]));
    const publicKeys = [...routes].filter(([, route]) => route.auth !== 'admin').map(([key]) => key);
    assert.ok(server.table.routes.some((route) => route.auth === 'admin'), 'the table has admin routes to leave out');
    const listed = operations(document);
    assert.deepEqual(listed.map((entry) => entry.key).sort(), publicKeys.sort(), 'every public route exactly once');
    assert.ok(!Object.keys(document.paths).some((path) => path.startsWith('/admin')), 'no admin path');
    // The discovery routes are added last: seeing them shows the document was built from the final table.
    assert.ok(document.paths['/llms.txt'] !== undefined && document.paths['/openapi-public.json'] !== undefined);

    const ids = listed.map((entry) => entry.operation.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');

    const ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: true });
    for (const { key, path, operation } of listed) {
      const route = routes.get(key)!;
      const declared = operation.parameters ?? [];
      const inPath = declared.filter((parameter) => parameter.in === 'path');
      assert.deepEqual(inPath.map((parameter) => parameter.name), pathNames(path), `${key}: path parameters`);
      assert.ok(inPath.every((parameter) => parameter.required), `${key}: path parameters are required`);
      assert.equal(new Set(declared.map((parameter) => `${parameter.in}:${parameter.name}`)).size, declared.length, `${key}: no parameter twice`);

      for (const requirement of operation.security) {
        for (const scheme of Object.keys(requirement)) assert.ok(scheme in document.components.securitySchemes, `${key}: scheme ${scheme} is declared`);
      }
      assert.equal(operation.security.length === 0, route.auth === 'none', `${key}: security matches auth ${route.auth}`);
      assert.equal(operation['x-rate-limit-class'], route.rateLimit, `${key}: rate-limit class`);
      assert.equal(operation['x-permission'], route.permission, `${key}: permission`);
      assert.equal(operation.summary, route.summary);

      assert.equal(operation.requestBody !== undefined, route.body !== undefined, `${key}: request body`);
      if (operation.requestBody !== undefined) ajv.compile(operation.requestBody.content['application/json'].schema);
      assert.deepEqual(operation.responses['4XX']!.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    }
    assert.ok('Error' in document.components.schemas);
    const balances = document.paths['/api/v1/account/me/balances']!['get']!;
    assert.deepEqual(balances.security, [{ bearer: [] }, { apiKey: [] }]);
    assert.equal(balances['x-permission'], 'read');

    const again = await fetch(`http://127.0.0.1:${server.port}/openapi-public.json`);
    assert.deepEqual(await again.json(), document, 'built once, served the same');

    const llms = await fetch(`http://127.0.0.1:${server.port}/llms.txt`);
    assert.equal(llms.status, 200);
    assert.match(llms.headers.get('content-type') ?? '', /^text\/plain/);
    const lines = (await llms.text()).split('\n');
    assert.match(lines[0]!, /^# \S/);
    for (const key of publicKeys) {
      const route = routes.get(key)!;
      const line = `- ${key} (auth: ${route.auth}): ${route.summary}`;
      assert.equal(lines.filter((text) => text === line).length, 1, `llms.txt lists ${key}`);
    }
    assert.equal(lines.filter((text) => text.startsWith('- ')).length, publicKeys.length);
    assert.ok(!lines.some((text) => text.includes('/admin/')), 'llms.txt names no admin route');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('operationIds stay unique when two paths spell the same, and any parameter name is declared', () => {
  const route = (method: Route['method'], path: string): Route => ({ method, path, auth: 'none', rateLimit: 'none', summary: path, handler: () => ({ body: {} }) });
  const table = new RouteTable();
  table.add([route('GET', '/api-keys'), route('GET', '/api_keys'), route('GET', '/legs/{leg2}/{Side}')]);
  const document = openApiDocument(table) as unknown as Document;
  const ids = operations(document).map((entry) => entry.operation.operationId);
  assert.equal(new Set(ids).size, 3);
  const names = document.paths['/legs/{leg2}/{Side}']!['get']!.parameters!.map((parameter) => parameter.name);
  assert.deepEqual(names, ['leg2', 'Side']);
});
