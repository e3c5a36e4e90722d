/**
 * The MCP server at /mcp/v1 through the SDK's own Client and Streamable HTTP client transport, against a
 * started server: initialize, every tool listed across pages (the specification's names among them), a read tool, an
 * order tool with a funded user's key, refusals as tool errors carrying the error shape, a tool needing
 * credentials refused without them, an agent's mcp_ key, the discovery documents as resources, prompts,
 * a foreign Origin refused, DELETE ending the session; a signed key signing each HTTP request (the SDK's
 * client with a signing fetch; stale, replayed, wrong and missing signatures refused); and, on services of
 * their own with a test clock, the session bounds (in all and per address) and idle expiry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import uWS from 'uWebSockets.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { McpService } from './mcp-server.ts';
import { mcpSettings } from './settings.ts';
import { routeTool } from './tools.ts';
import { signatureOf } from '../auth/signatures.ts';

/** The specification's exchange tools (with the service prefix tp_ in place of svc_) and its arena tools. */
const specNames = [
  'tp_clob_list_pairs',
  'tp_clob_orderbook',
  'tp_clob_book',
  'tp_clob_bbo',
  'tp_clob_recent_trades',
  'tp_clob_stats',
  'tp_clob_chart',
  'tp_clob_venues',
  'tp_clob_place_order',
  'tp_clob_cancel_order',
  'tp_clob_cancel_all_orders',
  'tp_clob_open_orders',
  'tp_clob_my_trades',
  'tp_clob_balance',
  'tp_clob_withdraw',
  'tp_clob_place_twap',
  'tp_clob_cancel_twap',
  'tp_clob_active_twaps',
  'tp_clob_place_scale',
  'tp_clob_markets',
  'get_arena_state',
  'get_arena_teams',
  'get_arena_orderbook',
  'get_arena_epoch',
  'get_arena_history',
  'get_arena_positions',
  'place_arena_order',
];

async function funded(server: RunningServer, name: string): Promise<{ apiKey: string; accessToken: string }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'mcp' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '100000'], ['ETH', '10']]) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' })).status, 200);
  }
  return { apiKey: key.json['api_key'] as string, accessToken: registered.json['access_token'] as string };
}

async function connect(port: number, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost:${port}/mcp/v1`), { requestInit: { headers } });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function allTools(client: Client): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { tools, pages };
}

function errorOf(result: CallToolResult): { code: string; message: string } {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result)}`);
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  const shape = JSON.parse((first as { text: string }).text) as { error: { code: string; message: string } };
  assert.deepEqual(Object.keys(shape.error).sort(), ['code', 'message']);
  return shape.error;
}

test('MCP over Streamable HTTP: tools from the route table, calls as on REST, resources, prompts, origin check, sessions', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const anonymous = await connect(server.port);
    assert.equal(anonymous.client.getServerVersion()?.name, 'trading-platform');
    assert.ok(anonymous.client.getServerCapabilities()?.tools);
    assert.match(anonymous.transport.sessionId ?? '', /^[0-9a-f-]{36}$/);

    const { tools, pages } = await allTools(anonymous.client);
    assert.ok(tools.length >= 140, `${tools.length} tools`);
    assert.ok(pages >= 3, 'listed over several pages');
    const names = new Set(tools.map((tool) => tool.name));
    assert.equal(names.size, tools.length, 'tool names are unique');
    for (const name of specNames) assert.ok(names.has(name), `tool ${name} is listed`);
    assert.ok(!tools.some((tool) => tool.name.startsWith('admin') || (tool._meta?.['http'] as string).includes('/admin/')), 'no admin tool');
    assert.ok(!names.has('get_openapi_document') && !names.has('get_llms_txt'), 'the discovery documents are resources');
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object');
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const place = byName.get('tp_clob_place_order')!;
    assert.match(place.description ?? '', /Needs credentials/);
    assert.equal(place.annotations?.readOnlyHint, false);
    assert.deepEqual(place.inputSchema.required, ['symbol', 'side', 'order_type', 'quantity']);
    const pairs = byName.get('tp_clob_list_pairs')!;
    assert.equal(pairs.annotations?.readOnlyHint, true);
    assert.match(pairs.description ?? '', /No credentials needed/);
    assert.equal(byName.get('tp_clob_cancel_order')?.annotations?.destructiveHint, true);
    assert.equal(byName.get('tp_clob_place_twap')?.outputSchema?.type, 'object', 'the response schema is the output schema');

    // A read tool: the same body as REST, as structured content and as text.
    const listed = (await anonymous.client.callTool({ name: 'tp_clob_list_pairs', arguments: {} })) as CallToolResult;
    assert.notEqual(listed.isError, true);
    const rest = await call(server, 'GET', '/api/v1/exchange/pairs');
    assert.deepEqual(listed.structuredContent, rest.json);
    assert.deepEqual(JSON.parse((listed.content[0] as { text: string }).text), rest.json);
    const bbo = (await anonymous.client.callTool({ name: 'tp_clob_bbo', arguments: { symbol: 'eth' } })) as CallToolResult;
    assert.notEqual(bbo.isError, true);
    assert.deepEqual(bbo.structuredContent, (await call(server, 'GET', '/api/v1/exchange/eth/bbo')).json);

    // Tools needing credentials refuse without them, as a tool error with the error shape.
    const refused = (await anonymous.client.callTool({ name: 'tp_clob_place_order', arguments: { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1', price: '3000' } })) as CallToolResult;
    assert.equal(errorOf(refused).code, 'UNAUTHENTICATED');
    assert.equal(refused._meta?.['http_status'], 401);
    assert.equal(errorOf((await anonymous.client.callTool({ name: 'tp_clob_orderbook', arguments: { symbol: 'eth' } })) as CallToolResult).code, 'UNAUTHENTICATED');
    await assert.rejects(anonymous.client.callTool({ name: 'no_such_tool', arguments: {} }), /no tool is named no_such_tool/);

    // An order tool with a funded user's key: the order is placed, and REST sees it.
    const { apiKey, accessToken } = await funded(server, 'mcp_trader');
    const trader = await connect(server.port, { 'X-API-Key': apiKey });
    const placed = (await trader.client.callTool({ name: 'tp_clob_place_order', arguments: { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1.5', price: '3000.10', client_order_id: 'mcp-1' } })) as CallToolResult;
    assert.notEqual(placed.isError, true, JSON.stringify(placed));
    assert.equal(placed._meta?.['http_status'], 201);
    const order = placed.structuredContent as Record<string, unknown>;
    assert.equal(order['status'], 'open');
    assert.equal(order['price'], '3000.10');
    assert.equal(order['client_order_id'], 'mcp-1');
    const open = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, { 'x-api-key': apiKey });
    assert.ok(JSON.stringify(open.json).includes('mcp-1'), 'REST lists the order placed through MCP');
    const book = (await trader.client.callTool({ name: 'tp_clob_orderbook', arguments: { symbol: 'eth', depth: 5 } })) as CallToolResult;
    assert.deepEqual((book.structuredContent as { asks: unknown }).asks, [{ price: '3000.10', quantity: '1.5000', orders: 1 }], 'a number for a query value is read as its text');

    // Refusals: validation (422 naming the field), the engine's (insufficient balance), an unknown market.
    const invalid = errorOf((await trader.client.callTool({ name: 'tp_clob_place_order', arguments: { symbol: 'eth', side: 'sideways', order_type: 'limit', quantity: '1', price: '1' } })) as CallToolResult);
    assert.equal(invalid.code, 'VALIDATION_FAILED');
    assert.match(invalid.message, /^body\.side/);
    const tooMuch = (await trader.client.callTool({ name: 'tp_clob_place_order', arguments: { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1000', price: '3000' } })) as CallToolResult;
    assert.equal(tooMuch._meta?.['http_status'], 422);
    assert.equal(errorOf(tooMuch).code, 'INSUFFICIENT_BALANCE');
    assert.equal(errorOf((await trader.client.callTool({ name: 'tp_clob_bbo', arguments: { symbol: 'nope' } })) as CallToolResult).code, 'PAIR_NOT_FOUND');

    // A bearer session, and an Idempotency-Key given in the call's _meta: the same key again is the first deposit, replayed.
    const session = await connect(server.port, { Authorization: `Bearer ${accessToken}` });
    const deposit = async (key: string): Promise<Record<string, unknown>> => {
      const result = (await session.client.callTool({ name: 'deposit_to_vault', arguments: { vault: 'ai-fund', amount_usdc: '10' }, _meta: { idempotency_key: key } })) as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      return result.structuredContent as Record<string, unknown>;
    };
    const deposited = await deposit('mcp-deposit-1');
    assert.equal(deposited['idempotency_key'], 'mcp-deposit-1');
    assert.equal(deposited['replayed'], false);
    assert.equal((await deposit('mcp-deposit-1'))['replayed'], true);
    await session.client.close();

    // An agent registers through a tool and trades with its mcp_ key, limited to its registered rate.
    const registered = (await anonymous.client.callTool({ name: 'register_agent', arguments: { name: 'test agent', contact_email: 'agent@example.com', intended_use: 'testing' } })) as CallToolResult;
    const agent = registered.structuredContent as { api_key: string; rate_limits: { requests_per_minute: number } };
    assert.match(agent.api_key, /^mcp_/);
    const agentSession = await connect(server.port, { 'X-API-Key': agent.api_key });
    const balance = (await agentSession.client.callTool({ name: 'tp_clob_balance', arguments: { symbol: 'eth' } })) as CallToolResult;
    assert.notEqual(balance.isError, true, JSON.stringify(balance));
    const limited = await call(server, 'GET', '/api/v1/exchange/eth/balance', undefined, { 'x-api-key': agent.api_key });
    assert.equal(limited.headers.get('x-ratelimit-limit'), String(agent.rate_limits.requests_per_minute));
    assert.equal(Number(limited.headers.get('x-ratelimit-remaining')), agent.rate_limits.requests_per_minute - 2, 'the tool call counted against the key as a REST call does');
    await agentSession.client.close();

    // The discovery documents are resources, read through their routes.
    const { resources } = await anonymous.client.listResources();
    const uris = resources.map((resource) => resource.uri);
    assert.ok(uris.includes('tp://discovery/openapi-public.json') && uris.includes('tp://discovery/llms.txt'), uris.join(', '));
    const llms = await anonymous.client.readResource({ uri: 'tp://discovery/llms.txt' });
    assert.equal(llms.contents[0]?.mimeType, 'text/plain');
    // The same text as REST from the same Host (llms.txt's links are absolute, from the request's Host: the MCP client came as localhost).
    const restLlms = await fetch(`http://127.0.0.1:${server.port}/llms.txt`).then((response) => response.text());
    assert.equal((llms.contents[0] as { text: string }).text.replaceAll(`//localhost:${server.port}/`, `//127.0.0.1:${server.port}/`), restLlms);
    const openApi = await anonymous.client.readResource({ uri: 'tp://discovery/openapi-public.json' });
    assert.equal(JSON.parse((openApi.contents[0] as { text: string }).text).openapi, '3.1.0');
    await assert.rejects(anonymous.client.readResource({ uri: 'tp://discovery/nothing' }), /no resource/);

    // Prompts.
    const { prompts } = await anonymous.client.listPrompts();
    assert.deepEqual(prompts.map((prompt) => prompt.name).sort(), ['place_order', 'read_order_book']);
    const prompt = await anonymous.client.getPrompt({ name: 'read_order_book', arguments: { symbol: 'ETH-USDC' } });
    assert.match((prompt.messages[0]?.content as { text: string }).text, /tp_clob_bbo/);
    const symbols = await anonymous.client.complete({ ref: { type: 'ref/prompt', name: 'place_order' }, argument: { name: 'symbol', value: 'e' } });
    assert.ok(symbols.completion.values.includes('ETH'), symbols.completion.values.join(', '));
    assert.ok(symbols.completion.values.every((value) => value.toLowerCase().startsWith('e')));
    const sides = await anonymous.client.complete({ ref: { type: 'ref/prompt', name: 'place_order' }, argument: { name: 'side', value: 'b' } });
    assert.deepEqual(sides.completion.values, ['buy']);

    // A browser page of another origin is refused before the transport sees the request.
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const post = (headers: Record<string, string>, body: unknown = initialize): Promise<Response> =>
      fetch(`http://127.0.0.1:${server.port}/mcp/v1`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    const foreign = await post({ origin: 'http://evil.example.com' });
    assert.equal(foreign.status, 403);
    assert.match(((await foreign.json()) as { error: { message: string } }).error.message, /Origin http:\/\/evil\.example\.com is not allowed/);
    const local = await post({ origin: `http://localhost:${server.port}` });
    assert.equal(local.status, 200);
    await local.body?.cancel();
    // A body over BODY_BYTES_MAX is refused before it is parsed.
    const huge = await post({}, { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(70_000) } });
    assert.equal(huge.status, 413);
    await huge.body?.cancel();
    // The agent registration route stays a REST route beside the MCP endpoint.
    assert.equal((await fetch(`http://127.0.0.1:${server.port}/mcp/v1/register`)).status, 405);

    // DELETE ends the session: its id is unknown afterwards.
    const sessionId = trader.transport.sessionId!;
    await trader.transport.terminateSession();
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const ended = await post({ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, ping);
    assert.equal(ended.status, 404);
    await ended.body?.cancel();
    const alive = await post({ 'mcp-session-id': anonymous.transport.sessionId!, 'mcp-protocol-version': '2025-06-18' }, ping);
    assert.equal(alive.status, 200);
    await alive.body?.cancel();
    await trader.client.close();
    await anonymous.client.close();
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('MCP sessions: at most MCP_SESSIONS_MAX, and MCP_SESSIONS_PER_ADDRESS from one address; an idle one expires', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-sessions-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
  // Services of their own on other ports, with a clock the test moves.
  let nowMs = 1_000_000;
  const serve = async (env: Record<string, string>): Promise<{ service: McpService; port: number; stop: () => Promise<void> }> => {
    const service = new McpService(server.table, mcpSettings(env), () => nowMs, silentLog);
    const app = uWS.App();
    service.mount(app, 64 * 1024);
    const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (listen) => (listen === false ? reject(new Error('listen')) : resolve(listen))));
    const stop = async (): Promise<void> => {
      uWS.us_listen_socket_close(socket);
      await service.close();
    };
    return { service, port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket), stop };
  };
  try {
    const bounded = await serve({ MCP_SESSIONS_MAX: '1', MCP_SESSION_IDLE_MS: '60000' });
    const first = await connect(bounded.port);
    assert.equal(bounded.service.openSessions, 1);
    await assert.rejects(connect(bounded.port), /too many MCP sessions are open/);
    nowMs += 30_000;
    bounded.service.expireIdle();
    assert.equal(bounded.service.openSessions, 1, 'not idle long enough');
    await first.client.ping();
    nowMs += 60_001;
    bounded.service.expireIdle();
    assert.equal(bounded.service.openSessions, 0, 'expired after MCP_SESSION_IDLE_MS without a request');
    await assert.rejects(first.client.ping(), /Session not found/);
    const second = await connect(bounded.port);
    assert.equal(bounded.service.openSessions, 1, 'a new session once the old one expired');
    await second.client.close();
    await first.client.close();
    await bounded.stop();

    const perAddress = await serve({ MCP_SESSIONS_MAX: '10', MCP_SESSIONS_PER_ADDRESS: '1' });
    const only = await connect(perAddress.port);
    await assert.rejects(connect(perAddress.port), /too many MCP sessions from this address/);
    await only.transport.terminateSession();
    assert.equal(perAddress.service.openSessions, 0, 'DELETE ended it');
    const again = await connect(perAddress.port);
    await again.client.close();
    await only.client.close();
    await perAddress.stop();
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a name shared by a route\'s path, query and body stops the server unless listed', () => {
  const handler = () => ({ body: {} });
  const route = { method: 'POST', name: 'made_up', path: '/things/{id}', auth: 'none', rateLimit: 'none', summary: 'x', body: { type: 'object', properties: { id: { type: 'string' } } }, handler } as const;
  assert.throws(() => routeTool(route), /argument id is both a path and a body name/);
  const listed = routeTool({ ...route, name: 'tp_clob_place_order', path: '/things/{symbol}', body: { type: 'object', properties: { symbol: { type: 'string' } } } });
  assert.deepEqual(listed.tool.inputSchema.properties, { symbol: { type: 'string', description: 'Path parameter of /things/{symbol}' } });
  assert.equal(listed.parts.get('symbol'), 'path');
});

test('signed keys over MCP: each HTTP request to /mcp/v1 is signed as sent; good, stale, replayed, wrong and missing signatures', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-signed-'));
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog, () => now);
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'signed_mcp@example.com', password: 'correct horse', username: 'signed_mcp' });
    const created = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'signed', signed: true }, { authorization: `Bearer ${registered.json['access_token']}` });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset: 'ETH', amount: '5' }, { 'x-api-key': 'admin' });
    const apiKey = created.json['api_key'] as string;
    const secret = created.json['api_secret'] as string;
    const endpoint = `http://localhost:${server.port}/mcp/v1`;
    // Each request gets its own timestamp within the window (the test's clock stands still), so no two signatures repeat.
    let offset = -4000;
    const signedHeaders = (method: string, body: string, key = secret, timestamp = String(now + offset++)): Record<string, string> => ({
      'x-api-key': apiKey,
      'x-timestamp': timestamp,
      'x-signature': signatureOf(key, timestamp, { method, path: '/mcp/v1', rawQuery: '', rawBody: Buffer.from(body) }),
    });

    // The SDK's own client, with a fetch that signs every request it sends (initialize, notifications, calls, DELETE).
    const signingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const method = (init?.method ?? 'GET').toUpperCase();
      const body = typeof init?.body === 'string' ? init.body : '';
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(signedHeaders(method, body))) headers.set(name, value);
      return fetch(url, { ...init, headers });
    };
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), { fetch: signingFetch });
    const client = new Client({ name: 'mcp-signed', version: '1.0.0' });
    await client.connect(transport);
    const placed = (await client.callTool({ name: 'tp_clob_place_order', arguments: { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1', price: '3000' } })) as CallToolResult;
    assert.equal(placed.isError, undefined, JSON.stringify(placed.content));
    assert.equal(placed._meta?.['http_status'], 201);
    const balances = (await client.callTool({ name: 'get_balances', arguments: { mode: 'live' } })) as CallToolResult;
    assert.equal(balances._meta?.['http_status'], 200, JSON.stringify(balances.content));

    // Raw requests of the same session: what a refusal looks like.
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' });
    const session = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = async (headers: Record<string, string>, body = ping): Promise<{ status: number; code: string | null }> => {
      const response = await fetch(endpoint, { method: 'POST', headers: { ...session, ...headers }, body });
      const text = await response.text();
      if (response.status === 200) return { status: 200, code: null };
      const answer = JSON.parse(text) as { error: { message: string; data?: { error: { code: string; message: string } } } };
      assert.match(answer.error.message, new RegExp(`^${answer.error.data?.error.code}: `), 'the message names the code');
      return { status: response.status, code: answer.error.data?.error.code ?? null };
    };
    const good = signedHeaders('POST', ping);
    assert.deepEqual(await post(good), { status: 200, code: null });
    assert.deepEqual(await post(good), { status: 401, code: 'SIGNATURE_REPLAYED' }, 'the same request again');
    assert.deepEqual(await post({ 'x-api-key': apiKey }), { status: 401, code: 'SIGNATURE_REQUIRED' });
    assert.deepEqual(await post(signedHeaders('POST', ping, secret, String(now - 5001))), { status: 401, code: 'TIMESTAMP_OUTSIDE_WINDOW' }, 'stale');
    assert.deepEqual(await post(signedHeaders('POST', ping, 'tps_wrong')), { status: 401, code: 'SIGNATURE_INVALID' }, 'another secret');
    const other = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' });
    assert.deepEqual(await post(signedHeaders('POST', ping), other), { status: 401, code: 'SIGNATURE_INVALID' }, 'another body');
    assert.deepEqual(await post(signedHeaders('GET', ping)), { status: 401, code: 'SIGNATURE_INVALID' }, 'another method');

    // A tool call refused for its signature reaches no route: the order count is unchanged.
    const call9 = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'tp_clob_place_order', arguments: { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1', price: '3001' } } });
    assert.deepEqual(await post(signedHeaders('POST', call9, 'tps_wrong'), call9), { status: 401, code: 'SIGNATURE_INVALID' });
    const open = await call(server, 'GET', '/api/v1/exchange/eth/orders/open', undefined, { authorization: `Bearer ${registered.json['access_token']}` });
    assert.equal((open.json['orders'] as unknown[]).length, 1, 'only the signed placement');
    await client.close();
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
