/**
 * The operations module: the readiness checks and the CORS policy on their own, then a real server's
 * /health, /ready (and a module instance not yet started), /metrics read by a strict parser of
 * Prometheus' text format (every family named in metrics.ts present with samples, the order counters and
 * ack histogram moving after orders, the bearer token), CORS preflights and answers for an allowed and a
 * refused origin, orders placed through MCP tools counted as REST's, and a server with an AMM chain that
 * is ready once it quotes and not once its worker stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import type { RequestContext, Reply } from '../http/route-table.ts';
import { readinessChecks, type ReadinessFigures } from './readiness.ts';
import { corsPolicy } from './cors.ts';
import { parseCorsOrigins } from './settings.ts';
import { opsModule } from './index.ts';
import { callRouteTool, operationalRouteNames, routeTools } from '../mcp/tools.ts';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Family {
  readonly name: string;
  readonly type: string;
  readonly samples: Sample[];
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const suffixes: Readonly<Record<string, readonly string[]>> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/**
 * Prometheus' text exposition format (0.0.4), strictly: HELP and TYPE lines name valid metrics, a family's
 * TYPE comes before its samples and only once, every sample belongs to a declared family (histograms by
 * their _bucket, _sum and _count), label values are quoted with the format's escapes, and values are
 * numbers (or NaN and ±Inf). Any other line throws naming it.
 */
function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  assert.ok(text.endsWith('\n'), 'the text ends with a newline');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (comment === null) continue;
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      assert.match(name, metricName, `metric name in: ${line}`);
      if (kind === 'TYPE') {
        assert.ok(['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest), `type in: ${line}`);
        assert.ok(!families.has(name), `TYPE given twice for ${name}`);
        families.set(name, { name, type: rest, samples: [] });
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?[0-9]+)?$/.exec(line);
    assert.ok(sample !== null, `not a sample line: ${line}`);
    const [, name, , labelText, valueText] = sample as unknown as [string, string, string | undefined, string | undefined, string];
    const labels: Record<string, string> = {};
    if (labelText !== undefined && labelText !== '') {
      const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
      let at = 0;
      while (at < labelText.length) {
        labelPattern.lastIndex = at;
        const label = labelPattern.exec(labelText);
        assert.ok(label !== null, `labels in: ${line}`);
        labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
        at = labelPattern.lastIndex;
      }
    }
    assert.match(valueText, /^(NaN|[+-]Inf|[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)$/, `value in: ${line}`);
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    const family = [...families.values()].find((candidate) => (suffixes[candidate.type] ?? ['']).some((suffix) => candidate.name + suffix === name));
    assert.ok(family !== undefined, `a sample before its family's TYPE: ${line}`);
    family.samples.push({ name, labels, value });
  }
  return families;
}

function samplesOf(families: Map<string, Family>, name: string, type: string): Sample[] {
  const family = families.get(name);
  assert.ok(family !== undefined, `metric family ${name}`);
  assert.equal(family.type, type, `${name} is a ${type}`);
  assert.ok(family.samples.length > 0, `${name} has samples`);
  return family.samples;
}

async function trader(server: RunningServer, name: string): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'bot' }, { authorization: `Bearer ${registered.json['access_token']}` });
  const userId = registered.json['user_id'] as number;
  assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset: 'ETH', amount: '10' }, { 'x-api-key': 'admin' })).status, 200);
  return { 'x-api-key': key.json['api_key'] as string };
}

async function fetchText(server: RunningServer, path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { ...init, headers: { connection: 'close', ...(init.headers as Record<string, string> | undefined) } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const figures: ReadinessFigures = {
  started: true,
  journalAccepting: true,
  nowMs: 100_000,
  quoteLifetimeMs: 30_000,
  ammChains: [{ chainId: 1, workerUp: true, lastQuoteAtMs: 99_500 }],
  readModelLag: 3,
  readModelLagMax: 10,
};

const failing = (changed: Partial<ReadinessFigures>): string[] =>
  readinessChecks({ ...figures, ...changed })
    .filter((check) => !check.ok)
    .map((check) => check.name);

test('readiness: each check fails on its own figure', () => {
  assert.deepEqual(failing({}), []);
  assert.deepEqual(failing({ ammChains: [] }), [], 'no AMM chain is nothing to wait for');
  assert.deepEqual(failing({ started: false }), ['recovery']);
  assert.deepEqual(failing({ journalAccepting: false }), ['journal']);
  assert.deepEqual(failing({ readModelLag: 11 }), ['read_models']);
  assert.deepEqual(failing({ ammChains: [{ chainId: 1, workerUp: false, lastQuoteAtMs: 99_500 }] }), ['amm']);
  assert.deepEqual(failing({ ammChains: [{ chainId: 1, workerUp: true, lastQuoteAtMs: null }] }), ['amm'], 'a worker that has not quoted yet');
  assert.deepEqual(failing({ ammChains: [{ chainId: 1, workerUp: true, lastQuoteAtMs: 69_999 }] }), ['amm'], 'a quote older than the lifetime');
  assert.deepEqual(failing({ ammChains: [{ chainId: 1, workerUp: true, lastQuoteAtMs: 70_000 }] }), [], 'a quote exactly the lifetime old still counts');
  const amm = readinessChecks({ ...figures, ammChains: [figures.ammChains[0]!, { chainId: 2, workerUp: false, lastQuoteAtMs: null }] }).find((check) => check.name === 'amm');
  assert.equal(amm?.detail, 'chain 2: worker not running');
});

test('CORS settings and policy: exact origins only; refused origins get no Access-Control header', () => {
  assert.deepEqual(parseCorsOrigins(''), []);
  assert.deepEqual(parseCorsOrigins(' https://app.example.com, http://localhost:3000 '), ['https://app.example.com', 'http://localhost:3000']);
  for (const bad of ['app.example.com', 'https://app.example.com/', 'https://App.example.com', 'ftp://files.example.com', '*']) {
    assert.throws(() => parseCorsOrigins(bad), /CORS_ORIGINS/, bad);
  }
  assert.equal(corsPolicy([], 600), null, 'no origins, no policy');
  const policy = corsPolicy(['https://app.example.com'], 600)!;
  assert.equal(policy.answerHeaders('https://app.example.com')['Access-Control-Allow-Origin'], 'https://app.example.com');
  assert.deepEqual(policy.answerHeaders('https://evil.example.com'), { Vary: 'Origin' });
  assert.deepEqual(policy.answerHeaders(''), { Vary: 'Origin' });
  assert.equal(policy.preflightHeaders('https://evil.example.com', ['GET']), null);
  assert.equal(policy.preflightHeaders('https://app.example.com', ['GET', 'POST'])?.['Access-Control-Allow-Methods'], 'GET, POST, OPTIONS');
});

test('health, readiness, metrics and CORS on a running server', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-'));
  const origin = 'https://app.example.com';
  // A snapshot every two commands, so that the scrape below has snapshots to count.
  const config = loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin', METRICS_TOKEN: 'scrape-secret', CORS_ORIGINS: origin, SNAPSHOT_EVERY_COMMANDS: '2' });
  const server = await startServer(config, silentLog);
  try {
    const health = await call(server, 'GET', '/health');
    assert.deepEqual([health.status, health.json], [200, { status: 'ok' }]);
    const ready = await call(server, 'GET', '/ready');
    assert.equal(ready.status, 200);
    assert.equal(ready.json['status'], 'ready');
    assert.deepEqual(ready.json['failing'], []);
    assert.deepEqual(ready.json['checks'].map((check: { name: string }) => check.name), ['journal', 'recovery', 'amm', 'read_models']);

    // An instance the server has not started (as during recovery) is not ready, and says why.
    const unstarted = opsModule.create(server.context);
    const readiness = unstarted.routes.find((route) => route.name === 'get_readiness')!;
    const answer = readiness.handler({} as RequestContext) as Reply & { body: { status: string; failing: string[]; error: unknown } };
    assert.deepEqual([answer.status, answer.body.status, answer.body.failing], [503, 'not_ready', ['recovery']]);
    assert.deepEqual(answer.body.error, { code: 'NOT_READY', message: 'not ready: recovery' });

    // Metrics: refused without the token or with another, served with it.
    assert.equal((await fetchText(server, '/metrics')).status, 401);
    assert.equal((await fetchText(server, '/metrics', { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const scrape = async (): Promise<Map<string, Family>> => {
      const metrics = await fetchText(server, '/metrics', { headers: { authorization: 'Bearer scrape-secret' } });
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return parsePrometheus(metrics.text);
    };
    const before = await scrape();
    assert.equal(before.get('tp_order_requests_total')?.samples.length, 0, 'no order answered yet');

    const maker = await trader(server, 'ops_maker');
    const placed = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '1', price: '3000' }, maker);
    assert.equal(placed.status, 201);
    const refused = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '1000', price: '3000' }, maker);
    assert.equal(refused.status, 422);
    const cancelled = await call(server, 'DELETE', `/api/v1/exchange/eth/orders/${placed.json['order_id']}`, undefined, maker);
    assert.equal(cancelled.status, 200);

    // One stream client, open before the scrape (uWS runs the stream's open handler within the upgrade).
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws/exchange/eth`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const after = await scrape();
    socket.close();
    const requests = samplesOf(after, 'tp_order_requests_total', 'counter');
    const count = (route: string, status: string): number | undefined => requests.find((sample) => sample.labels['route'] === route && sample.labels['status'] === status)?.value;
    assert.equal(count('tp_clob_place_order', '201'), 1);
    assert.equal(count('tp_clob_place_order', '422'), 1);
    assert.equal(count('tp_clob_cancel_order', '200'), 1);
    const ack = samplesOf(after, 'tp_order_ack_seconds', 'histogram');
    const ackCount = ack.find((sample) => sample.name === 'tp_order_ack_seconds_count' && sample.labels['route'] === 'tp_clob_place_order');
    assert.equal(ackCount?.value, 2);
    assert.ok(ack.some((sample) => sample.name === 'tp_order_ack_seconds_bucket' && sample.labels['le'] === '+Inf' && sample.value === 2));
    // Buckets are cumulative: non-decreasing with their bound, none above the count; the sum is the answers' time.
    const placeBuckets = ack.filter((sample) => sample.name === 'tp_order_ack_seconds_bucket' && sample.labels['route'] === 'tp_clob_place_order');
    assert.equal(placeBuckets.length, 16, 'fifteen bounds and +Inf');
    const bounds = placeBuckets.map((sample) => (sample.labels['le'] === '+Inf' ? Infinity : Number(sample.labels['le'])));
    assert.deepEqual(bounds, [...bounds].sort((a, b) => a - b));
    for (let index = 1; index < placeBuckets.length; index++) assert.ok(placeBuckets[index]!.value >= placeBuckets[index - 1]!.value);
    const ackSum = ack.find((sample) => sample.name === 'tp_order_ack_seconds_sum' && sample.labels['route'] === 'tp_clob_place_order')?.value ?? 0;
    assert.ok(ackSum > 0 && ackSum < 10, `the place route's answers took ${ackSum} s in all`);
    // The first bucket holding both answers is bounded at or above the slower one, so at or above their mean.
    const holdingBoth = placeBuckets.find((sample) => sample.value === 2)!;
    assert.ok(holdingBoth.labels['le'] === '+Inf' || Number(holdingBoth.labels['le']) >= ackSum / 2, `le=${holdingBoth.labels['le']} holds both answers of ${ackSum} s in all`);
    const fsyncCount = samplesOf(after, 'tp_journal_fsync_seconds', 'histogram').find((sample) => sample.name === 'tp_journal_fsync_seconds_count');
    assert.ok(fsyncCount !== undefined && fsyncCount.value >= 2, 'every durable batch is timed (the credit, the order, the cancel)');
    assert.deepEqual(samplesOf(after, 'tp_sequencer_queue_depth', 'gauge').map((sample) => sample.value), [0], 'nothing waits once every answer was given');
    // Snapshots: the server's start journals commands of its own, so its first snapshot may be taken before
    // the metrics are hooked, and none is taken while one is in flight (the worker loads its modules first,
    // slowly from cold sources): journal a command at a time until one is timed, for 30 s at most.
    const holdFigures = (families: Map<string, Family>): { holds: number; heldS: number } => {
      const snapshotHold = samplesOf(families, 'tp_snapshot_hold_seconds', 'histogram');
      return {
        holds: snapshotHold.find((sample) => sample.name === 'tp_snapshot_hold_seconds_count')?.value ?? 0,
        heldS: snapshotHold.find((sample) => sample.name === 'tp_snapshot_hold_seconds_sum')?.value ?? -1,
      };
    };
    let hold = holdFigures(after);
    const funded = (await call(server, 'POST', '/auth/register', { email: 'ops_funded@example.com', password: 'correct horse', username: 'ops_funded' })).json['user_id'];
    for (const deadline = Date.now() + 30_000; hold.holds === 0 && Date.now() < deadline; ) {
      assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: funded, asset: 'ETH', amount: '1' }, { 'x-api-key': 'admin' })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      hold = holdFigures(await scrape());
    }
    assert.ok(hold.holds >= 1 && hold.heldS > 0 && hold.heldS < 10 * hold.holds, `${hold.holds} snapshots held the order thread ${hold.heldS} s in all`);
    const clients = samplesOf(after, 'tp_ws_clients', 'gauge');
    assert.deepEqual(clients.find((sample) => sample.labels['path'] === '/ws/exchange/:symbol')?.value, 1, 'the open exchange stream client');
    assert.ok(clients.some((sample) => sample.labels['path'] === '/ws/arena' && sample.value === 0), 'module streams are listed too');
    const backlog = samplesOf(after, 'tp_ws_send_backlog_bytes', 'gauge');
    assert.deepEqual(backlog.map((sample) => sample.labels['path']).sort(), clients.map((sample) => sample.labels['path']).sort(), 'a backlog per stream path');
    samplesOf(after, 'nodejs_eventloop_lag_seconds', 'gauge');
    samplesOf(after, 'process_cpu_user_seconds_total', 'counter');
    samplesOf(after, 'process_resident_memory_bytes', 'gauge');
    assert.ok(after.has('tp_amm_worker_up') && after.has('tp_amm_quote_age_seconds'), 'AMM families exist (no samples without chains)');

    // CORS: a preflight from the allowed origin, the answer it then gets, and an origin not listed.
    const preflight = await fetchText(server, '/api/v1/exchange/eth/orders', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST, DELETE, OPTIONS', 'the path places and cancels all');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-API-Key, Authorization, Content-Type, Idempotency-Key/);
    assert.equal(preflight.headers.get('access-control-max-age'), '600');
    assert.equal(preflight.headers.get('vary'), 'Origin');
    const allowed = await fetchText(server, '/health', { headers: { origin } });
    assert.equal(allowed.headers.get('access-control-allow-origin'), origin);
    assert.equal(allowed.headers.get('vary'), 'Origin');
    const refusedError = await fetchText(server, '/api/v1/exchange/eth/orders', { method: 'POST', body: '{}', headers: { origin, 'content-type': 'application/json' } });
    assert.equal(refusedError.status, 401);
    assert.equal(refusedError.headers.get('access-control-allow-origin'), origin, 'errors carry the header too, so the page can read them');

    const evil = 'https://evil.example.com';
    const evilPreflight = await fetchText(server, '/api/v1/exchange/eth/orders', { method: 'OPTIONS', headers: { origin: evil, 'access-control-request-method': 'POST' } });
    assert.equal(evilPreflight.status, 204);
    assert.equal(evilPreflight.headers.get('allow'), 'POST, DELETE, OPTIONS');
    const evilAnswer = await fetchText(server, '/health', { headers: { origin: evil } });
    for (const response of [evilPreflight, evilAnswer]) {
      assert.deepEqual([...response.headers.keys()].filter((name) => name.startsWith('access-control-')), [], 'no CORS header for an origin not listed');
    }
    assert.equal((await fetchText(server, '/no/such/path', { method: 'OPTIONS', headers: { origin } })).status, 404);
    assert.equal((await fetchText(server, '/health', { method: 'PATCH' })).status, 405, 'other methods are still refused');

    // Metrics are for scrapers: not an MCP tool; the probes are.
    const toolNames = routeTools(server.table).map((tool) => tool.tool.name);
    assert.deepEqual(operationalRouteNames.filter((name) => toolNames.includes(name)), []);
    assert.ok(toolNames.includes('get_health') && toolNames.includes('get_readiness'));
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('without CORS_ORIGINS no answer carries CORS headers; OPTIONS is still answered', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-nocors-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
  try {
    const origin = 'https://app.example.com';
    for (const method of ['GET', 'OPTIONS']) {
      const response = await fetchText(server, '/health', { method, headers: { origin } });
      assert.equal(response.status, method === 'GET' ? 200 : 204);
      assert.deepEqual([...response.headers.keys()].filter((name) => name.startsWith('access-control-') || name === 'vary'), []);
    }
    assert.equal((await fetchText(server, '/metrics')).status, 200, 'no METRICS_TOKEN: open (keep it off the public network)');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('orders placed and cancelled through MCP tools (in-process runs) are counted and timed as REST orders are', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-mcp-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' }), silentLog);
  try {
    const maker = await trader(server, 'ops_mcp_maker');
    const caller = { apiKey: maker['x-api-key']!, authorization: '', remoteAddress: '127.0.0.1', host: 'localhost', idempotencyKey: '' };
    const tools = new Map(routeTools(server.table).map((tool) => [tool.tool.name, tool]));
    // The order families only: prom-client's event-loop lag writes "Nan" until its first sample, which the strict parser refuses.
    const orderFamilies = async (): Promise<Map<string, Family>> => {
      const lines = (await fetchText(server, '/metrics')).text.split('\n').filter((line) => line.includes(' tp_order_') || line.startsWith('tp_order_'));
      return parsePrometheus(`${lines.join('\n')}\n`);
    };
    const requests = async (route: string, status: string): Promise<number> => {
      const samples = (await orderFamilies()).get('tp_order_requests_total')?.samples ?? [];
      return samples.find((sample) => sample.labels['route'] === route && sample.labels['status'] === status)?.value ?? 0;
    };
    const ackCount = async (route: string): Promise<number> => {
      const samples = (await orderFamilies()).get('tp_order_ack_seconds')?.samples ?? [];
      return samples.find((sample) => sample.name === 'tp_order_ack_seconds_count' && sample.labels['route'] === route)?.value ?? 0;
    };
    assert.equal(await requests('tp_clob_place_order', '201'), 0);

    // The tool an MCP client calls, run as the MCP server runs it.
    const placed = await callRouteTool(server.table, tools.get('tp_clob_place_order')!, { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1', price: '3000' }, caller);
    assert.equal(placed._meta?.['http_status'], 201, JSON.stringify(placed.content));
    const refused = await callRouteTool(server.table, tools.get('tp_clob_place_order')!, { symbol: 'eth', side: 'sell', order_type: 'limit', quantity: '1000', price: '3000' }, caller);
    assert.equal(refused._meta?.['http_status'], 422);
    assert.equal(await requests('tp_clob_place_order', '201'), 1);
    assert.equal(await requests('tp_clob_place_order', '422'), 1);
    assert.equal(await ackCount('tp_clob_place_order'), 2);

    // runByName directly (what every tool call comes down to), and a REST order beside it: one counter.
    const orderId = (placed.structuredContent as { order_id: string }).order_id;
    const cancelled = await server.table.runByName('tp_clob_cancel_order', { params: { symbol: 'eth', order_id: orderId }, query: {}, body: undefined }, caller);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(await requests('tp_clob_cancel_order', '200'), 1);
    const rest = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '1', price: '3000' }, maker);
    assert.equal(rest.status, 201);
    assert.equal(await requests('tp_clob_place_order', '201'), 2, 'REST and MCP placements add up in one series');
    assert.equal(await ackCount('tp_clob_place_order'), 3);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('with an AMM chain: ready once its worker quotes, not ready once the worker stopped', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-amm-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: 'ethereum', AMM_QUOTE_INTERVAL_MS: '100', DATA_DIR: dataDir }), silentLog);
  try {
    const deadline = Date.now() + 20_000;
    let ready = await call(server, 'GET', '/ready');
    while (ready.status !== 200) {
      if (Date.now() > deadline) throw new Error(`never ready: ${JSON.stringify(ready.json)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      ready = await call(server, 'GET', '/ready');
    }
    const metrics = parsePrometheus((await fetchText(server, '/metrics')).text);
    assert.deepEqual(samplesOf(metrics, 'tp_amm_worker_up', 'gauge').map((sample) => [sample.labels['chain'], sample.value]), [['ethereum', 1]]);
    const age = samplesOf(metrics, 'tp_amm_quote_age_seconds', 'gauge');
    assert.deepEqual(age.map((sample) => sample.labels['chain']), ['ethereum']);
    assert.ok(age[0]!.value >= 0);

    await server.context.amm.close();
    const stopped = await call(server, 'GET', '/ready');
    assert.equal(stopped.status, 503);
    assert.equal(stopped.json['status'], 'not_ready');
    assert.deepEqual(stopped.json['failing'], ['amm']);
    assert.equal(stopped.json['error'].code, 'NOT_READY');
    assert.match(stopped.json['checks'][2].detail, /worker not running/);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
