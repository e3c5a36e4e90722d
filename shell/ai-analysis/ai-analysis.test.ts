/**
 * The AI analysis routes on a real server against local fixture pages (a node:http server on 127.0.0.1,
 * OUTBOUND_ALLOW_PRIVATE=1): prompt ranking and determinism, 403 for another user's id, 422s; a page about
 * one asset, a competitor, negative news; unknown symbols, unsupported media, HTTP errors, unreachable
 * hosts and oversized pages in the error shape. A second server without OUTBOUND_ALLOW_PRIVATE refuses
 * 127.0.0.1, 10.0.0.1, [::1], other schemes and credentials with clear 4xx. The route's mapping of a
 * redirect to a private address and of a name resolving to one, the in-flight bound, and the optional
 * model provider (answer used within the bands, bad answers ignored) are shown on the service and route
 * handler with the fetch's test hooks.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { ApiError } from '../http/errors.ts';
import type { RequestContext } from '../http/route-table.ts';
import { ChatProvider } from '../llm/provider.ts';
import { loadAssetProfiles } from './profiles.ts';
import { AiAnalysis, type AiAnalysisOptions } from './analyzer.ts';
import { aiAnalysisRoutes } from './routes.ts';
import { fixturePages } from './fixture-pages.ts';
import { relevanceBands } from './url-analyzer.ts';

const promptPath = '/api/v1/ai_trading_agent/prompt-assets';
const urlPath = '/api/v1/ai_trading_agent/analyze-url-assets';

// --- the fixture site -----------------------------------------------------------------------------------

/** What the fixture's model endpoint answers next (the content of its one choice). */
let modelAnswer = '';
/** Requests to /slow wait here until the test releases them. */
let releaseSlow: () => void = () => {};
let slowArrived: () => void = () => {};

const site = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://fixture');
  const page = fixturePages[url.pathname];
  if (page !== undefined) {
    response.writeHead(200, { 'content-type': page.contentType });
    response.end(page.body);
  } else if (url.pathname === '/to') {
    response.writeHead(302, { location: url.searchParams.get('location') ?? '/' });
    response.end();
  } else if (url.pathname === '/big') {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<html><body><p>${'Bitcoin rose. '.repeat(2_000)}</p></body></html>`);
  } else if (url.pathname === '/slow') {
    slowArrived();
    releaseSlow = () => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('Slow page\nBitcoin was flat.');
    };
  } else if (url.pathname === '/v1/chat/completions') {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: modelAnswer } }] }));
  } else {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not here');
  }
});
let base = '';
/** A port nothing listens on (a server was there and closed). */
let closedPort = 0;

before(async () => {
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
after(() => {
  site.closeAllConnections();
  site.close();
});

// --- helpers --------------------------------------------------------------------------------------------

interface Caller {
  readonly userId: number;
  readonly headers: Record<string, string>;
}

async function caller(server: RunningServer, name: string): Promise<Caller> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  return { userId: registered.json['user_id'] as number, headers: { 'x-api-key': key.json['api_key'] } };
}

async function withServer(env: Record<string, string>, run: (server: RunningServer) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ai-analysis-'));
  const server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', ...env }), silentLog);
  try {
    await run(server);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const inBand = (score: number, band: keyof typeof relevanceBands): boolean => score >= relevanceBands[band][0] && score <= relevanceBands[band][1];

function expectError(response: { status: number; json: Record<string, any> }, status: number, code: string, message?: RegExp): void {
  assert.equal(response.status, status, JSON.stringify(response.json));
  assert.equal(response.json['error']?.code, code);
  assert.equal(typeof response.json['error']?.message, 'string');
  if (message !== undefined) assert.match(response.json['error'].message, message);
}

// --- over HTTP ------------------------------------------------------------------------------------------

test('prompt and URL analysis over HTTP against local fixture pages', async () => {
  await withServer({ OUTBOUND_ALLOW_PRIVATE: '1', AI_ANALYSIS_PAGE_BYTES_MAX: '8192' }, async (server) => {
    const alice = await caller(server, 'alice');
    const bob = await caller(server, 'bob');

    const prompt = await call(server, 'POST', promptPath, { prompt: 'Should I buy bitcoin or Solana before the halving?', user_id: alice.userId }, alice.headers);
    assert.equal(prompt.status, 200);
    assert.equal(prompt.json['analyzer'], 'embedded');
    assert.deepEqual(prompt.json['assets'].slice(0, 2).map((asset: { symbol: string }) => asset.symbol), ['BTC', 'SOL']);
    for (const asset of prompt.json['assets']) assert.ok(asset.probability >= 0 && asset.probability <= 1 && asset.explanation.length > 0);
    const again = await call(server, 'POST', promptPath, { prompt: 'Should I buy bitcoin or Solana before the halving?', user_id: alice.userId }, alice.headers);
    assert.deepEqual(again.json, prompt.json, 'deterministic');

    expectError(await call(server, 'POST', promptPath, { prompt: 'bitcoin', user_id: bob.userId }, alice.headers), 403, 'USER_MISMATCH');
    expectError(await call(server, 'POST', promptPath, { prompt: '', user_id: alice.userId }, alice.headers), 422, 'VALIDATION_FAILED', /body\.prompt/);
    expectError(await call(server, 'POST', promptPath, { prompt: '   ', user_id: alice.userId }, alice.headers), 422, 'VALIDATION_FAILED', /body\.prompt/);
    expectError(await call(server, 'POST', promptPath, { prompt: 'x'.repeat(2001), user_id: alice.userId }, alice.headers), 422, 'VALIDATION_FAILED', /body\.prompt/);
    assert.equal((await call(server, 'POST', promptPath, { prompt: 'bitcoin', user_id: alice.userId })).status, 401);

    const solana = await call(server, 'POST', urlPath, { url: `${base}/solana-upgrade`, assets: ['sol', 'ETH'] }, alice.headers);
    assert.equal(solana.status, 200, JSON.stringify(solana.json));
    assert.equal(solana.json['analyzer'], 'embedded');
    assert.equal(solana.json['headline'], 'Solana network upgrade doubles throughput');
    assert.equal(solana.json['url'], `${base}/solana-upgrade`);
    assert.equal(solana.json['content_type'], 'article');
    const [sol, eth] = solana.json['asset_analyses'];
    assert.equal(sol.symbol, 'SOL');
    assert.ok(inBand(sol.relevance_score, 'direct'));
    assert.equal(sol.relationship, 'Direct Impact');
    assert.equal(sol.impact_direction, 'positive');
    assert.equal(eth.relationship, 'Competitive Pressure');
    assert.ok(inBand(eth.relevance_score, 'weak'));

    const hack = await call(server, 'POST', urlPath, { url: `${base}/exchange-hack`, assets: ['DOGE'] }, alice.headers);
    assert.equal(hack.json['asset_analyses'][0].impact_direction, 'negative');
    assert.equal(hack.json['overall_market_impact'], 'negative');

    const redirected = await call(server, 'POST', urlPath, { url: `${base}/to?location=/exchange-hack`, assets: ['DOGE'] }, alice.headers);
    assert.equal(redirected.json['url'], `${base}/exchange-hack`, 'the URL that answered');

    expectError(await call(server, 'POST', urlPath, { url: `${base}/solana-upgrade`, assets: ['SOL', 'NOPE'] }, alice.headers), 422, 'UNKNOWN_ASSET', /NOPE/);
    expectError(await call(server, 'POST', urlPath, { url: `${base}/solana-upgrade`, assets: [] }, alice.headers), 422, 'VALIDATION_FAILED', /body\.assets/);
    expectError(await call(server, 'POST', urlPath, { url: `${base}/solana-upgrade`, assets: Array.from({ length: 21 }, () => 'BTC') }, alice.headers), 422, 'VALIDATION_FAILED', /body\.assets/);
    expectError(await call(server, 'POST', urlPath, { url: `${base}/image.png`, assets: ['BTC'] }, alice.headers), 422, 'UNSUPPORTED_CONTENT_TYPE', /image\/png/);
    expectError(await call(server, 'POST', urlPath, { url: `${base}/missing`, assets: ['BTC'] }, alice.headers), 502, 'UPSTREAM_STATUS', /404/);
    expectError(await call(server, 'POST', urlPath, { url: `http://127.0.0.1:${closedPort}/`, assets: ['BTC'] }, alice.headers), 502, 'UPSTREAM_UNREACHABLE');
    expectError(await call(server, 'POST', urlPath, { url: `${base}/big`, assets: ['BTC'] }, alice.headers), 502, 'UPSTREAM_TOO_LARGE', /8192/);
  });
});

test('without OUTBOUND_ALLOW_PRIVATE the route refuses private addresses, other schemes and credentials with 4xx', async () => {
  await withServer({}, async (server) => {
    const carol = await caller(server, 'carol');
    const refused = async (url: string) => call(server, 'POST', urlPath, { url, assets: ['BTC'] }, carol.headers);
    expectError(await refused(`${base}/solana-upgrade`), 422, 'URL_REFUSED', /address_not_public.*127\.0\.0\.1/);
    expectError(await refused('http://10.0.0.1/news'), 422, 'URL_REFUSED', /address_not_public.*10\.0\.0\.1/);
    expectError(await refused('http://[::1]:8080/news'), 422, 'URL_REFUSED', /address_not_public.*::1/);
    expectError(await refused('http://[::ffff:192.168.1.1]/'), 422, 'URL_REFUSED', /address_not_public/);
    expectError(await refused('ftp://example.com/file'), 422, 'URL_REFUSED', /scheme_not_allowed/);
    expectError(await refused('file:///etc/passwd'), 422, 'URL_REFUSED', /scheme_not_allowed/);
    expectError(await refused('http://user:secret@example.com/'), 422, 'URL_REFUSED', /credentials_in_url/);
    expectError(await refused('not a url'), 400, 'INVALID_URL', /invalid_url/);
  });
});

// --- the service and the route handler with the fetch's test hooks -------------------------------------------

const profiles = loadAssetProfiles([]);

function service(options: Partial<AiAnalysisOptions> = {}): AiAnalysis {
  return new AiAnalysis({ profiles, provider: null, fetchTimeoutMs: 10_000, pageBytesMax: 64 * 1024, concurrentMax: 4, allowPrivate: false, ...options });
}

/** Calls the analyze-url-assets route's handler as the route table would, after validation. */
async function handle(analysis: AiAnalysis, url: string, assets: string[]): Promise<unknown> {
  const route = aiAnalysisRoutes(analysis).find((candidate) => candidate.name === 'analyze_url_assets')!;
  const request = { body: { url, assets }, principal: { userId: 1 } } as unknown as RequestContext;
  const reply = await route.handler(request);
  return (reply as { body: unknown }).body;
}

async function rejectsWith(promise: Promise<unknown>, status: number, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

test('the route maps a redirect to a private address, and a name resolving to one, to 422 URL_REFUSED', async () => {
  // Only 127.0.0.1 passes (the fixture site), as if it were a public host; every other private address is refused.
  const onlyFixture = service({ outbound: { allowAddress: (address) => address === '127.0.0.1' } });
  assert.equal(((await handle(onlyFixture, `${base}/plain.txt`, ['BTC'])) as { headline: string }).headline, 'Market notes');
  await rejectsWith(handle(onlyFixture, `${base}/to?location=${encodeURIComponent('http://10.0.0.1/')}`, ['BTC']), 422, 'URL_REFUSED', /address_not_public.*10\.0\.0\.1/);
  await rejectsWith(handle(onlyFixture, `${base}/to?location=${encodeURIComponent('http://[::1]/')}`, ['BTC']), 422, 'URL_REFUSED', /address_not_public.*::1/);
  const rebinding = service({ outbound: { resolve: async () => [{ address: '10.1.2.3', family: 4 }] } });
  await rejectsWith(handle(rebinding, 'http://news.example/today', ['BTC']), 422, 'URL_REFUSED', /news\.example resolves to 10\.1\.2\.3/);
});

test('URL analyses in flight are bounded: one more is answered 503 BUSY', async () => {
  const single = service({ allowPrivate: true, concurrentMax: 1 });
  const arrived = new Promise<void>((resolve) => {
    slowArrived = resolve;
  });
  const first = single.analyzeUrl(`${base}/slow`, ['BTC']);
  await rejectsWith(single.analyzeUrl(`${base}/plain.txt`, ['BTC']), 503, 'BUSY', /at most 1/);
  await arrived;
  releaseSlow();
  assert.equal((await first).headline, 'Slow page');
  assert.equal((await single.analyzeUrl(`${base}/plain.txt`, ['BTC'])).headline, 'Market notes', 'the slot is free again');
});

test('a model provider may rewrite the text and refine scores within the bands; a bad answer leaves the embedded one', async () => {
  const provider = new ChatProvider({ baseUrl: `${base}/v1`, apiKey: 'test-key', model: 'fixture', timeoutMs: 10_000, maxTokens: 100, allowPrivate: true });
  const embedded = service({ allowPrivate: true });
  const withModel = service({ allowPrivate: true, provider });
  const plain = await embedded.analyzeUrl(`${base}/solana-upgrade`, ['SOL', 'ETH']);

  modelAnswer = `Here it is: ${JSON.stringify({ assets: [{ symbol: 'SOL', relevance_score: 0.2, analysis: 'The page is about the Solana upgrade.' }, { symbol: 'ETH', relevance_score: 0.45 }] })}`;
  const refined = await withModel.analyzeUrl(`${base}/solana-upgrade`, ['SOL', 'ETH']);
  assert.equal(refined.analyzer, 'model');
  const [sol, eth] = refined.asset_analyses;
  assert.equal(sol!.relevance_score, relevanceBands.direct[0], 'a score outside the band is clamped into it');
  assert.equal(sol!.analysis, 'The page is about the Solana upgrade.');
  assert.equal(eth!.relevance_score, 0.45);
  assert.equal(eth!.analysis, plain.asset_analyses[1]!.analysis, 'no text from the model keeps the embedded text');

  modelAnswer = 'I cannot help with that.';
  assert.deepEqual(await withModel.analyzeUrl(`${base}/solana-upgrade`, ['SOL', 'ETH']), plain);

  const promptPlain = await embedded.analyzePrompt('bitcoin halving');
  modelAnswer = JSON.stringify({ assets: [{ symbol: 'BTC', probability: 0.01, explanation: 'Named directly.' }] });
  const promptModel = await withModel.analyzePrompt('bitcoin halving');
  assert.equal(promptModel.analyzer, 'model');
  assert.equal(promptModel.assets[0]!.explanation, 'Named directly.');
  assert.equal(promptModel.assets[0]!.probability, Math.round((promptPlain.assets[0]!.probability - 0.1) * 1000) / 1000, 'moved at most 0.1');

  const unreachable = service({ provider: new ChatProvider({ baseUrl: `http://127.0.0.1:${closedPort}/v1`, apiKey: 'k', model: 'm', timeoutMs: 5_000, maxTokens: 100, allowPrivate: true }) });
  assert.deepEqual(await unreachable.analyzePrompt('bitcoin halving'), promptPlain, 'a failing provider leaves the embedded answer');
});
