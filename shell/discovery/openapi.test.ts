/**
 * The OpenAPI document and llms.txt against the real server: every public route of the final table exactly
 * once and no admin route, operationIds that are the routes' names, every path parameter declared, security
 * exactly as enforced (the limited bearer of 2FA verify included), tags described at the top, the declared
 * response schemas and content types, the error responses and rate-limit headers by the documented rules,
 * servers, licence and the link to the AsyncAPI document; llms.txt lists the same routes, links the other
 * documents and keeps its apostrophes. Hand-built tables check PUBLIC_BASE_URL and the tag rule.
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
import { discoveryPaths, openApiDocument, securityOf, simplified, tagsOf } from './openapi.ts';
import { routeLine } from './llms.ts';
import { baseUrlOf, discoverySettings } from './settings.ts';

const Ajv = AjvModule as unknown as typeof AjvModule.default;

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
  security: Array<Record<string, string[]>>;
  'x-rate-limit-class': string;
  'x-permission'?: string;
  responses: Record<string, Response>;
}

interface Document {
  openapi: string;
  info: { version: string; license: { name: string; identifier?: string; url?: string } };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description?: string }>;
  externalDocs: { url: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
    headers: Record<string, unknown>;
    responses: Record<string, Response>;
  };
}

function operations(document: Document): Array<{ key: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, path, operation })),
  );
}

function pathNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

/** A response with its `$ref` to components/responses followed. */
function resolved(document: Document, response: Response): Response {
  if (response.$ref === undefined) return response;
  return document.components.responses[response.$ref.replace('#/components/responses/', '')]!;
}

/** The signature of an apostrophe lost to quoting: `the caller s orders`. */
const lostApostrophe = /\b[a-z]+ s [a-z]/;

test('GET /openapi-public.json and /llms.txt describe every public route of the final table', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'discovery-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'k' }), silentLog);
  try {
    const response = await call(server, 'GET', '/openapi-public.json');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(Number(response.headers.get('x-ratelimit-limit')) > 0, 'the documents are rate-limited per address');
    const document = response.json as Document;
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, '0.1.0');
    assert.ok(document.info.license.name.length > 0 && (document.info.license.identifier ?? document.info.license.url) !== undefined);
    assert.deepEqual(document.servers, [{ url: '/', description: 'The origin this document was fetched from.' }]);
    assert.equal(document.externalDocs.url, discoveryPaths.asyncapi);

    const routes = new Map(server.table.routes.map((route) => [`${route.method} ${route.path}`, route]));
    const publicKeys = [...routes].filter(([, route]) => route.auth !== 'admin').map(([key]) => key);
    assert.ok(server.table.routes.some((route) => route.auth === 'admin'), 'the table has admin routes to leave out');
    const listed = operations(document);
    assert.deepEqual(listed.map((entry) => entry.key).sort(), publicKeys.sort(), 'every public route exactly once');
    assert.ok(!Object.keys(document.paths).some((path) => path.startsWith('/admin')), 'no admin path');
    // The discovery routes are added last: seeing them shows the document was built from the final table.
    for (const path of Object.values(discoveryPaths).filter((path) => path !== discoveryPaths.mcp)) assert.ok(document.paths[path] !== undefined, path);

    const described = new Map(document.tags.map((tag) => [tag.name, tag.description]));
    assert.equal(described.size, document.tags.length, 'each tag declared once');
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) assert.ok(header in document.components.headers, header);

    const ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: true });
    for (const { key, path, operation } of listed) {
      const route = routes.get(key)!;
      assert.equal(operation.operationId, route.name, `${key}: operationId is the route's name`);
      assert.doesNotMatch(route.summary, lostApostrophe, `${key}: summary has its apostrophes`);
      const declared = operation.parameters ?? [];
      const inPath = declared.filter((parameter) => parameter.in === 'path');
      assert.deepEqual(inPath.map((parameter) => parameter.name), pathNames(path), `${key}: path parameters`);
      assert.ok(inPath.every((parameter) => parameter.required), `${key}: path parameters are required`);
      assert.equal(new Set(declared.map((parameter) => `${parameter.in}:${parameter.name}`)).size, declared.length, `${key}: no parameter twice`);

      assert.deepEqual(operation.security, securityOf(route), `${key}: security`);
      for (const requirement of operation.security) {
        for (const scheme of Object.keys(requirement)) assert.ok(scheme in document.components.securitySchemes, `${key}: scheme ${scheme} is declared`);
      }
      assert.equal(operation.security.length === 0, route.auth === 'none' && route.credential === undefined, `${key}: security matches auth ${route.auth}`);
      assert.equal(operation['x-rate-limit-class'], route.rateLimit, `${key}: rate-limit class`);
      assert.equal(operation['x-permission'], route.permission, `${key}: permission`);
      assert.equal(operation.summary, route.summary);
      assert.deepEqual(operation.tags, [...tagsOf(route)]);
      for (const tag of operation.tags) assert.ok((described.get(tag) ?? '').length > 0, `${key}: tag ${JSON.stringify(tag)} has a top-level description`);

      assert.equal(operation.requestBody !== undefined, route.body !== undefined, `${key}: request body`);
      if (operation.requestBody !== undefined) ajv.compile(operation.requestBody.content['application/json'].schema);

      const success = operation.responses[String(route.status ?? 200)];
      assert.ok(success !== undefined, `${key}: its success status`);
      const contentType = route.contentType ?? 'application/json';
      assert.deepEqual(Object.keys(success.content!), [contentType], `${key}: success content type`);
      if (route.response !== undefined) assert.deepEqual(success.content![contentType]!.schema, simplified(route.response), `${key}: the declared response schema`);
      const limited = route.rateLimit !== 'none';
      assert.equal(success.headers !== undefined, limited, `${key}: rate-limit headers on success`);

      const statuses = Object.keys(operation.responses).filter((status) => status !== String(route.status ?? 200));
      assert.ok(statuses.length > 0, `${key}: at least one error response`);
      assert.equal(statuses.includes('401'), route.auth !== 'none' || route.credential !== undefined, `${key}: 401 iff it needs a credential`);
      assert.equal(statuses.includes('429'), limited, `${key}: 429 iff rate-limited`);
      if ((route.errors ?? []).some((code) => code.endsWith('NOT_FOUND'))) assert.ok(statuses.includes('404'), `${key}: 404 for its NOT_FOUND codes`);
      if (route.body !== undefined || route.query !== undefined) assert.ok(statuses.includes('422'), `${key}: 422 for validation`);
      for (const status of statuses) {
        const error = resolved(document, operation.responses[status]!);
        assert.deepEqual(error.content?.['application/json']?.schema, { $ref: '#/components/schemas/Error' }, `${key} ${status}: the error shape`);
      }
      if (limited) assert.deepEqual(Object.keys(resolved(document, operation.responses['429']!).headers ?? {}).sort(), ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
    }
    assert.ok('Error' in document.components.schemas);
    const balances = document.paths['/api/v1/account/me/balances']!['get']!;
    assert.deepEqual(balances.security, [{ bearer: [] }, { apiKey: [] }]);
    assert.equal(balances['x-permission'], 'read');
    const verify = document.paths['/auth/2fa/verify']!['post']!;
    assert.deepEqual(verify.security, [{ limitedBearer: [] }], '2FA verify declares the limited bearer it needs');
    assert.equal(document.components.securitySchemes['limitedBearer']!.scheme, 'bearer');
    assert.ok('text/plain; charset=utf-8' in document.paths['/llms.txt']!['get']!.responses['200']!.content!);
    assert.ok('text/markdown; charset=utf-8' in document.paths[discoveryPaths.skill]!['get']!.responses['200']!.content!);

    const again = await fetch(`http://127.0.0.1:${server.port}/openapi-public.json`);
    assert.deepEqual(await again.json(), document, 'built once, served the same');

    const llms = await fetch(`http://127.0.0.1:${server.port}/llms.txt`);
    assert.equal(llms.status, 200);
    assert.equal(llms.headers.get('content-type'), 'text/plain; charset=utf-8');
    const text = await llms.text();
    const lines = text.split('\n');
    assert.match(lines[0]!, /^# \S/);
    assert.ok(lines.some((line) => line.startsWith('> ')), 'a blockquote summary');
    const base = `http://127.0.0.1:${server.port}`;
    for (const path of Object.values(discoveryPaths).filter((path) => path !== discoveryPaths.llms)) assert.ok(text.includes(`](${base}${path})`), `llms.txt links ${path}`);
    for (const key of publicKeys) {
      const line = routeLine(routes.get(key)!);
      assert.equal(lines.filter((candidate) => candidate === line).length, 1, `llms.txt lists ${key}`);
    }
    assert.equal(lines.filter((line) => /^- (GET|POST|PUT|PATCH|DELETE) /.test(line)).length, publicKeys.length);
    assert.ok(!lines.some((line) => line.includes('/admin/')), 'llms.txt names no admin route');
    assert.ok(text.includes("The caller's"), 'apostrophes intact');
    assert.doesNotMatch(text, lostApostrophe);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const route = (method: Route['method'], path: string, extra: Partial<Route> = {}): Route => ({
  method,
  path,
  name: `${method.toLowerCase()}_${path.replace(/[^a-z0-9]+/gi, '_')}`,
  auth: 'none',
  rateLimit: 'none',
  summary: path,
  handler: () => ({ body: {} }),
  ...extra,
});

test('PUBLIC_BASE_URL is the server; untagged routes get their area\'s tag; two routes may not share a name', () => {
  const table = new RouteTable();
  table.add([route('GET', '/api/v1/exchange/pairs'), route('POST', '/auth/login'), route('GET', '/legs/{leg2}/{Side}'), route('GET', '/x', { tags: ['Arena'] })]);
  const document = openApiDocument(table, { serverUrl: 'https://api.example.com' }) as unknown as Document;
  assert.deepEqual(document.servers.map((server) => server.url), ['https://api.example.com']);
  assert.deepEqual(
    operations(document).map((entry) => [entry.key, entry.operation.tags]),
    [
      ['GET /api/v1/exchange/pairs', ['Exchange']],
      ['POST /auth/login', ['Auth']],
      ['GET /legs/{leg2}/{Side}', ['Discovery']],
      ['GET /x', ['Arena']],
    ],
  );
  assert.deepEqual(document.paths['/legs/{leg2}/{Side}']!['get']!.parameters!.map((parameter) => parameter.name), ['leg2', 'Side']);

  const twice = new RouteTable();
  twice.add([route('GET', '/a', { name: 'same' }), route('GET', '/b', { name: 'same' })]);
  assert.throws(() => openApiDocument(twice, { serverUrl: '/' }), /two routes are named same/);
});

test('PUBLIC_BASE_URL must be an http(s) origin; without it the base is the request\'s Host', () => {
  assert.deepEqual(discoverySettings({}), { publicBaseUrl: null });
  assert.deepEqual(discoverySettings({ PUBLIC_BASE_URL: 'https://api.example.com/' }), { publicBaseUrl: 'https://api.example.com' });
  assert.deepEqual(discoverySettings({ PUBLIC_BASE_URL: 'https://example.com/trading/' }), { publicBaseUrl: 'https://example.com/trading' });
  assert.throws(() => discoverySettings({ PUBLIC_BASE_URL: 'ftp://example.com' }), /PUBLIC_BASE_URL/);
  assert.throws(() => discoverySettings({ PUBLIC_BASE_URL: 'https://example.com/?a=1' }), /PUBLIC_BASE_URL/);
  assert.throws(() => discoverySettings({ PUBLIC_BASE_URL: 'not a url' }), /PUBLIC_BASE_URL/);
  assert.equal(baseUrlOf({ publicBaseUrl: null }, '127.0.0.1:8080'), 'http://127.0.0.1:8080');
  assert.equal(baseUrlOf({ publicBaseUrl: null }, '[::1]:8080'), 'http://[::1]:8080');
  assert.equal(baseUrlOf({ publicBaseUrl: null }, 'evil.example/<script>'), 'http://localhost');
  assert.equal(baseUrlOf({ publicBaseUrl: 'https://api.example.com' }, 'other:1'), 'https://api.example.com');
});

test('an anyOf with a match-anything member is simplified to match anything, keeping its description', () => {
  assert.deepEqual(simplified({ type: 'object', properties: { a: { description: 'd', anyOf: [{}, { type: 'null' }] }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }), {
    type: 'object',
    properties: { a: { description: 'd' }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
  });
});
