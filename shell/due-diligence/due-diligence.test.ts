/**
 * The due-diligence routes over HTTP (the module's routes on a uWS route table, a test clock), assessing
 * local fixture sites (OUTBOUND_ALLOW_PRIVATE=1): an assessment answered and saved, the cached answer
 * (cached: true) not counting against the anonymous quota, fresh re-assessing, POST, the saved result
 * and its 404, the bounded history, the SSE event order (live and replayed), joining an assessment under
 * way without counting, the anonymous 429 with its headers and the next hour, the cache's expiry, and the
 * refusals: invalid websites, private addresses when they are not allowed, an unreachable site (502).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import uWS from 'uWebSockets.js';
import type { ShellContext } from '../context.ts';
import type { RunningServer } from '../server.ts';
import type { ModuleInstance } from '../shell-module.ts';
import { RouteTable } from '../http/route-table.ts';
import { Authenticator } from '../auth/authenticator.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import { silentLog } from '../log.ts';
import type { Tokens } from '../auth/tokens.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { call, checkResponse } from '../http/test-client.ts';
import { dueDiligenceModule } from './index.ts';
import { probeNames } from './probes.ts';
import { base } from './routes.ts';
import { siteKit, type Answer } from './test-site.ts';

const { agenticSite, legacySite, mixedSite, startSite } = siteKit(http.createServer);

const startMs = Date.UTC(2026, 0, 20, 12, 0, 0);

interface Served {
  readonly server: RunningServer;
  readonly url: string;
  close(): void;
}

async function serve(env: Record<string, string>, clock: () => number): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dd-'));
  const context = { config: { env: { OUTBOUND_ALLOW_PRIVATE: '1', ...env }, dataDir }, clock, log: silentLog } as unknown as ShellContext;
  const instance: ModuleInstance = dueDiligenceModule.create(context);
  const table = new RouteTable();
  table.add(instance.routes);
  const app = uWS.App();
  const authenticator = new Authenticator(null as unknown as Tokens, null as unknown as ApiKeys, new RateLimiter(clock), '');
  table.mount(app, { bodyBytesMax: 65_536, authenticator, log: silentLog });
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s === false ? reject(new Error('listen')) : resolve(s))));
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  return {
    server: { port, table } as unknown as RunningServer,
    url: `http://127.0.0.1:${port}`,
    close: () => {
      uWS.us_listen_socket_close(socket);
      void instance.close?.();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The events of a text/event-stream body. */
export function parseEvents(text: string): Array<{ event: string; id: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const fields = new Map(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      return { event: fields.get('event')!, id: fields.get('id') ?? '', data: JSON.parse(fields.get('data')!) };
    });
}

const assess = (served: Served, website: string, fresh = false) => call(served.server, 'GET', `${base}?website=${encodeURIComponent(website)}${fresh ? '&fresh=1' : ''}`);
const remaining = (response: { headers: Headers }) => response.headers.get('x-ratelimit-remaining');

test('assessments over HTTP: saved, cached hits free, fresh, POST, result and 404, bounded history, SSE order, joining a run, the anonymous 429, the next hour and the cache expiry', async () => {
  const agentic = await agenticSite();
  const legacy = await legacySite();
  const mixed = await mixedSite();
  let nowMs = startMs;
  const served = await serve({ DD_HISTORY_PER_DOMAIN: '2', DD_CACHE_MS: '600000' }, () => nowMs);
  try {
    const domain = new URL(agentic.origin).host;
    assert.equal((await call(served.server, 'GET', `${base}/result?website=${encodeURIComponent(agentic.origin)}`)).status, 404, 'never assessed');

    // A first assessment: probed, scored, saved, counted (5 per address per hour).
    const first = await assess(served, agentic.origin);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.equal(first.json['cached'], false);
    assert.equal(first.json['domain'], domain);
    assert.equal(first.json['website'], agentic.origin);
    assert.equal(first.json['score'], 31);
    assert.equal(first.json['classification'], 'fully_agentic');
    assert.deepEqual(first.json['probes'].map((probe: any) => probe.probe), [...probeNames]);
    assert.deepEqual(first.json['dimensions'].map((dimension: any) => dimension.label), ['Live AI Endpoints', 'AI Infrastructure Depth', 'Agent Interoperability', 'Self-Referential AI']);
    assert.ok(first.json['dimensions'][0].findings.some((finding: any) => finding.rule === 'mcp_live' && finding.points === 6));
    assert.equal(first.json['assessed_at'], new Date(startMs).toISOString());
    assert.deepEqual([first.headers.get('x-ratelimit-limit'), remaining(first)], ['5', '4']);

    // The cached answer: no probe sent, nothing counted; the website given as a bare host or with a path is the same domain.
    const requestsBefore = agentic.requests.length;
    nowMs += 60_000;
    const again = await assess(served, `${agentic.origin}/some/page?x=1`);
    assert.equal(again.json['cached'], true);
    assert.equal(again.json['assessed_at'], first.json['assessed_at']);
    assert.equal(remaining(again), '4');
    assert.equal(agentic.requests.length, requestsBefore, 'a cache hit sends no request');

    // fresh=1 re-assesses and counts; POST with fresh false is cached, with fresh true counts.
    const fresh = await assess(served, agentic.origin, true);
    assert.equal(fresh.json['cached'], false);
    assert.equal(fresh.json['assessed_at'], new Date(nowMs).toISOString());
    assert.equal(remaining(fresh), '3');
    const posted = await call(served.server, 'POST', base, { website: agentic.origin, fresh: false });
    assert.deepEqual([posted.status, posted.json['cached'], remaining(posted)], [200, true, '3']);
    nowMs += 60_000;
    const postedFresh = await call(served.server, 'POST', base, { website: agentic.origin, fresh: true });
    assert.deepEqual([postedFresh.json['cached'], remaining(postedFresh)], [false, '2']);

    // The saved result: the latest, marked cached.
    const result = await call(served.server, 'GET', `${base}/result?website=${encodeURIComponent(domain)}`);
    assert.deepEqual([result.status, result.json['cached'], result.json['assessed_at']], [200, true, postedFresh.json['assessed_at']]);

    // The stream: one probe event per probe (home first), then the result; counted like GET.
    const stream = await fetch(`${served.url}${base}/stream?website=${encodeURIComponent(legacy.origin)}`);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(remaining(stream), '1');
    const events = parseEvents(await stream.text());
    assert.deepEqual(events.map((event) => event.event), [...probeNames.map(() => 'probe'), 'result']);
    assert.equal(events[0]!.data.probe, 'home');
    assert.deepEqual(events.slice(0, -1).map((event) => event.data.probe).sort(), [...probeNames].sort());
    assert.deepEqual(events.map((event) => event.id), events.map((_, index) => String(index + 1)));
    const streamed = events.at(-1)!.data;
    assert.deepEqual([streamed.cached, streamed.score, streamed.classification], [false, 0, 'legacy']);
    checkResponse(served.server, 'GET', base, 200, streamed);
    // Streamed again: the saved assessment replayed in the same order, not counted.
    const replayed = await fetch(`${served.url}${base}/stream?website=${encodeURIComponent(legacy.origin)}`);
    assert.equal(remaining(replayed), '1');
    const replayedEvents = parseEvents(await replayed.text());
    assert.deepEqual(replayedEvents.map((event) => event.event), events.map((event) => event.event));
    assert.equal(replayedEvents.at(-1)!.data.cached, true);
    assert.equal(replayedEvents.at(-1)!.data.assessed_at, streamed.assessed_at);

    // History: bounded per domain (2 here), newest first; a domain never assessed is listed empty.
    const history = await call(served.server, 'GET', `${base}/history?domains=${encodeURIComponent(`${domain}, ${legacy.origin},never.example`)}`);
    assert.equal(history.status, 200, JSON.stringify(history.json));
    assert.deepEqual(history.json['domains'].map((entry: any) => [entry.domain, entry.count]), [[domain, 2], [new URL(legacy.origin).host, 1], ['never.example', 0]]);
    assert.deepEqual(history.json['domains'][0].assessments.map((entry: any) => entry.assessed_at), [postedFresh.json['assessed_at'], fresh.json['assessed_at']]);
    assert.equal(history.json['domains'][0].assessments[0].dimensions.live_ai_endpoints, 7);
    const tooMany = await call(served.server, 'GET', `${base}/history?domains=${Array.from({ length: 11 }, (_, index) => `d${index}.example`).join(',')}`);
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.json['error']['message'], /at most 10 domains/);
    const badDomain = await call(served.server, 'GET', `${base}/history?domains=${encodeURIComponent('a.example,ftp://b.example')}`);
    assert.equal(badDomain.status, 422);
    assert.match(badDomain.json['error']['message'], /^query\.domains: only http and https/);

    // The fifth assessment uses the quota up; the sixth is 429 with the headers; cache hits still answer.
    assert.equal(remaining(await assess(served, mixed.origin)), '0');
    const limited = await assess(served, agentic.origin, true);
    assert.equal(limited.status, 429);
    assert.equal(limited.json['error']['code'], 'RATE_LIMITED');
    assert.deepEqual([limited.headers.get('x-ratelimit-limit'), remaining(limited)], ['5', '0']);
    assert.equal(limited.headers.get('retry-after'), String((startMs + 3_600_000 - nowMs) / 1000));
    assert.equal(limited.headers.get('x-ratelimit-reset'), String((startMs + 3_600_000) / 1000));
    assert.equal((await call(served.server, 'POST', base, { website: agentic.origin, fresh: true })).status, 429);
    assert.equal((await fetch(`${served.url}${base}/stream?website=${encodeURIComponent(agentic.origin)}&fresh=1`)).status, 429);
    const stillCached = await assess(served, mixed.origin);
    assert.deepEqual([stillCached.status, stillCached.json['cached']], [200, true]);

    // The next hour: the quota is back, and the cache (10 minutes here) has expired, so a plain GET re-assesses.
    nowMs = startMs + 3_600_000;
    const expired = await assess(served, mixed.origin);
    assert.deepEqual([expired.status, expired.json['cached'], remaining(expired)], [200, false, '4']);
  } finally {
    served.close();
    await Promise.all([agentic.close(), legacy.close(), mixed.close()]);
  }
});

test('a request for a domain under assessment joins it: one set of probes, counted once; past DD_RUNNING_MAX a new one is 503 BUSY, not counted', async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const home: Answer = { status: 200, type: 'text/html', body: '<html><head><title>Slow</title></head><body>AI agents</body></html>' };
  const site = await startSite({ '/': () => gate.then(() => home) });
  const other = await legacySite();
  const served = await serve({ DD_RUNNING_MAX: '1' }, () => startMs);
  try {
    const one = assess(served, site.origin);
    while (!site.requests.includes('GET /')) await new Promise((resolve) => setImmediate(resolve));
    const two = assess(served, site.origin, true);
    const stream = fetch(`${served.url}${base}/stream?website=${encodeURIComponent(site.origin)}`);
    // The stream's head is sent at once: it has joined the run before the home page answers.
    const streamed = await stream;
    const busy = await assess(served, other.origin);
    assert.deepEqual([busy.status, busy.json['error']['code'], busy.headers.get('retry-after')], [503, 'BUSY', '5']);
    assert.deepEqual(other.requests, [], 'a refused assessment sends nothing');
    release();
    const [first, second] = await Promise.all([one, two]);
    assert.deepEqual([first.json['cached'], second.json['cached']], [false, false]);
    assert.equal(first.json['assessed_at'], second.json['assessed_at']);
    assert.deepEqual([remaining(first), remaining(second), remaining(streamed)], ['4', '4', '4']);
    assert.equal(site.requests.filter((line) => line === 'GET /').length, 1, 'one home page request');
    const events = parseEvents(await streamed.text());
    assert.deepEqual(events.map((event) => event.event), [...probeNames.map(() => 'probe'), 'result']);
    // The run over, a new one starts; the refused one was not counted (two of five used).
    assert.equal(remaining(await assess(served, other.origin)), '3');
  } finally {
    served.close();
    await Promise.all([site.close(), other.close()]);
  }
});

test('refusals: invalid websites (422), private addresses when not allowed (422 WEBSITE_NOT_PUBLIC), an unreachable site (502 and an error event)', async () => {
  const strict = await serve({ OUTBOUND_ALLOW_PRIVATE: '0' }, () => startMs);
  const open = await serve({}, () => startMs);
  try {
    for (const website of ['ftp://files.example', 'https://user:pw@site.example', 'exa mple.com', 'https://', `${'a'.repeat(250)}.example`]) {
      const refused = await assess(strict, website);
      assert.equal(refused.status, 422, website);
      assert.equal(refused.json['error']['code'], 'VALIDATION_FAILED', website);
      assert.match(refused.json['error']['message'], /website/);
    }
    assert.equal((await assess(strict, 'x'.repeat(2049))).status, 422, 'longer than the schema allows');
    assert.match((await call(strict.server, 'POST', base, { website: 'a.example', extra: 1 })).json['error']['message'], /body\.extra/);
    for (const website of ['http://127.0.0.1:8080', 'localhost', '10.0.0.1', 'http://[::1]/', '169.254.169.254', 'printer.local']) {
      const refused = await assess(strict, website);
      assert.equal(refused.status, 422, website);
      assert.equal(refused.json['error']['code'], 'WEBSITE_NOT_PUBLIC', website);
    }
    // A site that does not answer at all: 502, nothing saved, and the stream ends with an error event.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await assess(open, `http://127.0.0.1:${port}`);
    assert.equal(unreachable.status, 502);
    assert.equal(unreachable.json['error']['code'], 'SITE_UNREACHABLE');
    assert.equal((await call(open.server, 'GET', `${base}/result?website=${encodeURIComponent(`http://127.0.0.1:${port}`)}`)).status, 404, 'a failed assessment is not saved');
    const stream = await fetch(`${open.url}${base}/stream?website=${encodeURIComponent(`http://127.0.0.1:${port}`)}`);
    const events = parseEvents(await stream.text());
    assert.deepEqual(events.map((event) => event.event), ['error']);
    assert.equal(events[0]!.data.error.code, 'SITE_UNREACHABLE');
  } finally {
    strict.close();
    open.close();
  }
});
