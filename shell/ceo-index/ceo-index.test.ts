/**
 * The CEO index's routes over HTTP (the module's routes on a uWS route table, a test clock), scoring
 * fictional profile pages served by a local node:http server (OUTBOUND_ALLOW_PRIVATE=1): the board and its
 * filters, the export's ETag and 304, the methodology, profiles and 404; scoring answered 200 within
 * `wait`, 202 while pending (status and stream agree), 422 NOT_IDENTIFIED, 503 BUSY when the queue is
 * full; the SSE event order; the hourly quota per address with cache hits free; the cache's expiry; and
 * the verifier passing on the served export (with its evidence fetched) and failing on tampered ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import uWS from 'uWebSockets.js';
import type { ShellContext } from '../context.ts';
import type { RunningServer } from '../server.ts';
import { RouteTable } from '../http/route-table.ts';
import { Authenticator } from '../auth/authenticator.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import { silentLog } from '../log.ts';
import type { Tokens } from '../auth/tokens.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { call } from '../http/test-client.ts';
import { ceoIndexModule } from './index.ts';
import { sampleDataset } from './dataset.ts';
import { verifyExport } from '../../scripts/verify-ceo-export.ts';

const startMs = Date.UTC(2026, 0, 20, 12, 0, 0);
const base = '/api/v1/ceo-ai-leaderboard';

// --- fixture pages ---------------------------------------------------------------------------------

const richPage = `<!doctype html><html><head>
<title>Ada Q. Byron</title>
<meta property="og:title" content="Ada Q. Byron - CEO at Fictional Engines">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Person","name":"Ada Q. Byron","jobTitle":"Chief Executive Officer","worksFor":{"@type":"Organization","name":"Fictional Engines"}}</script>
</head><body><nav>Home About</nav><article>
<h1>Ada Q. Byron</h1>
<p>Ada Q. Byron is the chief executive officer of Fictional Engines, a fictional company used in tests.</p>
<p>She holds a PhD in machine learning research and spent three years as a postdoc working on neural networks and backpropagation.</p>
<p>Her early work on word embeddings and vector search became the retrieval layer of the company.</p>
<p>She co-founded an AI lab that trains transformer language models, and led pretraining and fine-tuning work herself.</p>
<p>The lab published scaling laws for its training runs and a benchmark suite for alignment.</p>
<p>Her team also works on multimodal systems, computer vision and robotics.</p>
<p>She still wrote code for the first prototype in Python and PyTorch, and the project is open source.</p>
<p>The system is deployed in production for millions of users and is adopted by large customers.</p>
<p>Her papers at NeurIPS and ICML have thousands of citations.</p>
<p>Outside work she enjoys long walks, reading history, and teaching a weekly class to students at a local school, which she describes as the most rewarding part of her week and a reminder of why clear explanations matter.</p>
<p>The company was started in a small office and grew over many years with a steady team of people who cared about their work and their customers, and who kept a habit of writing things down.</p>
</article></body></html>`;

const ogPage = `<!doctype html><html><head><title>Profile</title><meta property="og:title" content="Rowan Vale - CEO at Fictional Orbit"></head>
<body><article><p>Rowan Vale leads Fictional Orbit, a fictional crypto exchange built on blockchain rails with bitcoin and ethereum markets.</p>
<p>The exchange uses embeddings to detect fraud and is deployed in production.</p>
<p>The company was started in a small office and grew over many years with a steady team of people who cared about their work.</p></article></body></html>`;

const nobodyPage = `<!doctype html><html><head><title>Weather today</title></head><body><article><p>It will be sunny with a light breeze in the afternoon, and clouds later in the evening over the hills and the coast.</p></article></body></html>`;

class Gate {
  private release: () => void = () => {};
  readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  open(): void {
    this.release();
  }
}

interface Fixtures {
  readonly origin: string;
  readonly gates: Map<string, Gate>;
  readonly requests: string[];
  close(): Promise<void>;
}

/** The fixture site: pages by path; a gated path answers once its gate opens. */
async function fixtureSite(): Promise<Fixtures> {
  const gates = new Map<string, Gate>();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    requests.push(path);
    const send = (status: number, type: string, body: string): void => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    const gate = gates.get(path);
    const answer = (): void => {
      if (path.startsWith('/rich') || path.startsWith('/slow')) return send(200, 'text/html; charset=utf-8', richPage);
      if (path.startsWith('/og')) return send(200, 'text/html', ogPage);
      if (path.startsWith('/nobody')) return send(200, 'text/html', nobodyPage);
      if (path === '/data.json') return send(200, 'application/json', '{}');
      if (path.startsWith('/evidence/')) return send(200, 'text/html', '<p>evidence</p>');
      send(404, 'text/plain', 'not found');
    };
    if (gate === undefined) answer();
    else void gate.opened.then(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { origin: `http://127.0.0.1:${port}`, gates, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

// --- the module on a route table ---------------------------------------------------------------------

interface Served {
  readonly server: RunningServer;
  readonly url: string;
  close(): void;
}

async function serve(env: Record<string, string>, clock: () => number): Promise<Served> {
  const context = { config: { env: { OUTBOUND_ALLOW_PRIVATE: '1', ...env } }, clock, log: silentLog } as unknown as ShellContext;
  const instance = ceoIndexModule.create(context);
  const table = new RouteTable();
  table.add(instance.routes);
  const app = uWS.App();
  const authenticator = new Authenticator(null as unknown as Tokens, null as unknown as ApiKeys, new RateLimiter(clock), '');
  table.mount(app, { bodyBytesMax: 65_536, authenticator, log: silentLog });
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s === false ? reject(new Error('listen')) : resolve(s))));
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  return { server: { port, table } as unknown as RunningServer, url: `http://127.0.0.1:${port}`, close: () => uWS.us_listen_socket_close(socket) };
}

/** The events of a text/event-stream body. */
function parseEvents(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const fields = new Map(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      return { event: fields.get('event')!, data: JSON.parse(fields.get('data')!) };
    });
}

/** Reads a stream until `done` says its events are complete (or the stream ends). */
async function readEvents(response: Response, done: (events: Array<{ event: string }>) => boolean): Promise<{ events: Array<{ event: string; data: any }>; more: () => Promise<Array<{ event: string; data: any }>> }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const pump = async (until: (events: Array<{ event: string }>) => boolean): Promise<Array<{ event: string; data: any }>> => {
    while (!until(parseEvents(text))) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value);
    }
    return parseEvents(text);
  };
  const events = await pump(done);
  return { events, more: () => pump((list) => list.some((event) => event.event === 'result' || event.event === 'error')) };
}

const score = (served: Served, url: string, wait: number) => call(served.server, 'POST', `${base}/score?wait=${wait}`, { url });
const status = (served: Served, url: string) => call(served.server, 'GET', `${base}/score/status?url=${encodeURIComponent(url)}`);

test('the CEO index over HTTP: board, export and ETag, methodology, profiles, scoring 200/202/422, SSE order, the quota, the cache, and the verifier', async () => {
  const site = await fixtureSite();
  let nowMs = startMs;
  const served = await serve({}, () => nowMs);
  try {
    // The board: the sample, ranked, filtered by sector, bounded.
    const board = await call(served.server, 'GET', base);
    assert.equal(board.status, 200);
    assert.equal(board.json['source'], 'sample');
    assert.equal(board.json['rubric_version'], 4);
    const published = sampleDataset().people.filter((person) => person.confidence >= 0.45).length;
    assert.equal(board.json['total'], published);
    assert.deepEqual(board.json['people'].map((row: any) => row.rank), Array.from({ length: published }, (_, index) => index + 1));
    const crypto = await call(served.server, 'GET', `${base}?sector=crypto&limit=10`);
    assert.ok(crypto.json['people'].length > 0 && crypto.json['people'].every((row: any) => row.sector === 'crypto'));
    assert.equal((await call(served.server, 'GET', `${base}?limit=5`)).status, 422);
    assert.match((await call(served.server, 'GET', `${base}?limit=101`)).json['error']['message'], /query\.limit: must be 10 to 100/);
    assert.equal((await call(served.server, 'GET', `${base}?sector=energy`)).status, 422);

    // The export: a strong ETag; If-None-Match with it (or W/ it, or in a list) answers 304 with no body.
    const exported = await call(served.server, 'GET', `${base}/export.json`);
    assert.equal(exported.status, 200);
    const etag = exported.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(exported.json['people'].length, published);
    for (const validator of [etag, `W/${etag}`, `"stale", ${etag}`]) {
      const notModified = await fetch(`${served.url}${base}/export.json`, { headers: { 'if-none-match': validator } });
      assert.equal(notModified.status, 304, validator);
      assert.equal(notModified.headers.get('etag'), etag);
      assert.equal(await notModified.text(), '');
    }
    const changed = await fetch(`${served.url}${base}/export.json`, { headers: { 'if-none-match': '"stale"' } });
    assert.equal(changed.status, 200);
    assert.equal((await changed.json() as { count: number }).count, published);

    // The methodology as data, profiles and 404.
    const methodology = await call(served.server, 'GET', `${base}/methodology`);
    assert.equal(methodology.json['source'], 'sample');
    assert.match(methodology.json['data'], /fictional/);
    assert.deepEqual(Object.keys(methodology.json['rubrics']), ['2', '3', '4']);
    assert.match(methodology.json['rubrics']['4']['formula'], /70 \* \(foundations \+ .* \+ lm_domain_breadth\) \/ 120 \+ 30 \* \(hands_on_engineering \+ industry_impact \+ scientific_founder\) \/ 60/);
    assert.ok(methodology.json['scoring']['anchors']['transformers_lm'].length > 0);
    assert.equal(methodology.json['publish_confidence_min'], 0.45);
    const profile = await call(served.server, 'GET', `${base}/profile/sample-mara-ellison`);
    assert.equal(profile.status, 200);
    assert.equal(profile.json['rank'], 1);
    assert.equal((await call(served.server, 'GET', `${base}/profile/sample-yusuf-demir`)).status, 404, 'unpublished');
    assert.equal((await call(served.server, 'GET', `${base}/profile/nobody`)).json['error']['code'], 'CEO_NOT_FOUND');

    // The verifier passes on the served export, and fails on a tampered score, order and confidence.
    const good = await verifyExport(exported.json);
    assert.deepEqual(good.problems, []);
    assert.equal(good.rows, published);
    const tampered = structuredClone(exported.json);
    tampered.people[0].score += 1;
    assert.match((await verifyExport(tampered)).problems.join('\n'), /people\[0\] \(sample-mara-ellison\): score 89, recomputed 88/);
    const swapped = structuredClone(exported.json);
    [swapped.people[0], swapped.people[1]] = [swapped.people[1], swapped.people[0]];
    assert.match((await verifyExport(swapped)).problems.join('\n'), /out of order/);
    const lowered = structuredClone(exported.json);
    lowered.people[2].confidence = 0.2;
    lowered.people[3].weighted_score = 1;
    lowered.people[4].tier = 'frontier_builder';
    const loweredProblems = (await verifyExport(lowered)).problems.join('\n');
    assert.match(loweredProblems, /confidence 0\.2 is under the publish threshold/);
    assert.match(loweredProblems, /weighted_score 1, recomputed/);
    assert.match(loweredProblems, /tier frontier_builder, thresholds give/);

    // The npm script on the served URL exits 0.
    const script = fileURLToPath(new URL('../../scripts/verify-ceo-export.ts', import.meta.url));
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', script, `${served.url}${base}/export.json`, '--allow-private'], (error, stdout) => (error === null ? resolve(stdout) : reject(error))),
    );
    assert.match(output, new RegExp(`OK: ${published} rows checked`));

    // Scoring: 200 within wait, with evidence cited from the page.
    const rich = `${site.origin}/rich`;
    const done = await score(served, rich, 30);
    assert.equal(done.status, 200);
    assert.equal(done.headers.get('x-ratelimit-limit'), '3');
    assert.equal(done.headers.get('x-ratelimit-remaining'), '2');
    const row = done.json['result'];
    assert.equal(done.json['cached'], false);
    assert.equal(row.name, 'Ada Q. Byron');
    assert.equal(row.company, 'Fictional Engines');
    assert.equal(row.source, 'scored');
    assert.equal(row.rank, null);
    assert.equal(row.rubric_version, 4);
    assert.equal(row.metadata.scorer, 'embedded');
    assert.equal(row.metadata.identified_by, 'json_ld');
    assert.equal(row.scored_at, new Date(startMs).toISOString());
    for (const key of Object.keys(row.dimensions)) assert.ok(row.dimensions[key] > 0, `${key} has evidence on the page`);
    assert.ok(row.evidence.length > 0 && row.evidence.every((entry: any) => entry.source_url === rich && entry.verified === true));
    assert.ok(row.confidence >= 0.45);
    assert.deepEqual((await verifyExport({ people: [{ ...row, rank: 1 }] })).problems, [], 'a scored row obeys the formulas too');
    // A second POST (any URL spelling that normalises the same) is a cache hit and does not count.
    const again = await score(served, `${rich}/?utm_source=x#top`, 0);
    assert.equal(again.status, 200);
    assert.equal(again.json['cached'], true);
    assert.notEqual(again.headers.get('x-ratelimit-limit'), '3', 'the general limit\'s figures, not the scoring quota\'s');
    assert.equal((await status(served, rich)).json['status'], 'done');
    assert.equal(site.requests.filter((path) => path === '/rich').length, 1, 'fetched once');

    // 422 NOT_IDENTIFIED, remembered by the status.
    const nobody = await score(served, `${site.origin}/nobody`, 30);
    assert.equal(nobody.status, 422);
    assert.equal(nobody.json['error']['code'], 'NOT_IDENTIFIED');
    assert.equal((await status(served, `${site.origin}/nobody`)).status, 422);

    // 202 while the page has not answered; the status says pending; the stream shows the steps in order.
    const slowGate = new Gate();
    site.gates.set('/slow', slowGate);
    const slow = `${site.origin}/slow`;
    const accepted = await score(served, slow, 0);
    assert.equal(accepted.status, 202);
    assert.equal(accepted.json['status'], 'pending');
    assert.equal(accepted.headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await status(served, slow)).status, 202);
    const streamed = await fetch(`${served.url}${base}/score/stream?url=${encodeURIComponent(slow)}`);
    assert.equal(streamed.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const reading = await readEvents(streamed, (events) => events.some((event) => event.event === 'fetching'));
    assert.deepEqual(reading.events.map((event) => event.event), ['queued', 'fetching']);
    slowGate.open();
    const events = await reading.more();
    assert.deepEqual(events.map((event) => event.event), ['queued', 'fetching', 'extracting', 'identified', 'scoring', 'result']);
    assert.equal(events[3]!.data.name, 'Ada Q. Byron');
    assert.equal(events[5]!.data.name, 'Ada Q. Byron');
    assert.equal((await status(served, slow)).status, 200);

    // The quota: three new scorings per address per hour; cache hits still answer; the next hour allows more.
    const limited = await score(served, `${site.origin}/og`, 0);
    assert.equal(limited.status, 429);
    assert.equal(limited.json['error']['code'], 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await score(served, rich, 0)).status, 200, 'a cache hit is not limited');
    assert.equal((await call(served.server, 'GET', `${base}/score/stream?url=${encodeURIComponent(`${site.origin}/og`)}`)).status, 429, 'a stream that would start a scoring counts too');
    nowMs += 3_600_000;
    const og = await score(served, `${site.origin}/og`, 30);
    assert.equal(og.status, 200);
    assert.equal(og.json['result'].name, 'Rowan Vale');
    assert.equal(og.json['result'].sector, 'crypto');
    assert.equal(og.json['result'].metadata.identified_by, 'og_title');

    // Results are cached 7 days: after that the URL is unknown again.
    nowMs += 7 * 86_400_000;
    assert.equal((await status(served, rich)).status, 404);

    // Bad input: not an http(s) URL, a wait out of range, a refused content type.
    assert.equal((await score(served, 'ftp://example.com/x', 0)).status, 422);
    assert.match((await call(served.server, 'POST', `${base}/score?wait=61`, { url: rich })).json['error']['message'], /query\.wait: must be 0 to 60/);
    const json = await score(served, `${site.origin}/data.json`, 30);
    assert.equal(json.status, 422);
    assert.equal(json.json['error']['code'], 'NOT_HTML');
  } finally {
    served.close();
    await site.close();
  }
});

test('503 BUSY when every worker is busy and the queue is full; the status of the refused URL says busy too', async () => {
  const site = await fixtureSite();
  const served = await serve({ CEO_INDEX_SCORE_WORKERS: '1', CEO_INDEX_SCORE_QUEUE_MAX: '0', CEO_INDEX_SCORES_PER_HOUR: '10' }, () => startMs);
  try {
    const gate = new Gate();
    site.gates.set('/slow', gate);
    assert.equal((await score(served, `${site.origin}/slow`, 0)).status, 202);
    const busy = await score(served, `${site.origin}/rich`, 0);
    assert.equal(busy.status, 503);
    assert.equal(busy.json['error']['code'], 'BUSY');
    assert.ok(Number(busy.headers.get('retry-after')) >= 1);
    assert.notEqual(busy.headers.get('x-ratelimit-limit'), '10', 'a refused scoring is not counted against the quota');
    assert.equal((await status(served, `${site.origin}/rich`)).status, 503);
    gate.open();
    assert.equal((await score(served, `${site.origin}/slow`, 30)).status, 200, 'joins the running job');
    const retried = await score(served, `${site.origin}/rich`, 30);
    assert.equal(retried.status, 200, 'a busy refusal is retried once a worker is free');
    assert.equal(retried.headers.get('x-ratelimit-remaining'), '8');
  } finally {
    served.close();
    await site.close();
  }
});

test('a dataset file is served as source file; the verifier fetches its evidence; a failed scoring streams its error', async () => {
  const site = await fixtureSite();
  const dir = mkdtempSync(join(tmpdir(), 'ceo-index-'));
  const sample = JSON.parse(JSON.stringify(sampleDataset().people)) as Array<Record<string, any>>;
  // The sample's rows, their evidence re-pointed at the fixture site (which answers every /evidence/ path).
  for (const person of sample) {
    for (const entry of [...person['evidence'], ...person['penalty_evidence']]) if (entry.source_url !== null) entry.source_url = entry.source_url.replace('https://sample.invalid/', `${site.origin}/evidence/`);
  }
  const file = join(dir, 'people.json');
  writeFileSync(file, JSON.stringify({ people: sample }));
  const served = await serve({ CEO_INDEX_DATA_FILE: file }, () => startMs);
  try {
    const exported = await call(served.server, 'GET', `${base}/export.json`);
    assert.equal(exported.json['source'], 'file');
    assert.ok(exported.json['people'].every((row: any) => row.source === 'file'));
    const report = await verifyExport(exported.json, { fetchEvidence: true, allowPrivate: true });
    assert.deepEqual(report.problems, []);
    assert.ok(report.evidenceFetched >= exported.json['people'].length * 2);
    const broken = structuredClone(exported.json);
    broken.people[0].evidence[0].source_url = `${site.origin}/missing`;
    assert.match((await verifyExport(broken, { fetchEvidence: true, allowPrivate: true })).problems.join('\n'), /evidence http:\/\/127\.0\.0\.1:\d+\/missing: .*HTTP 404/);

    const streamed = await fetch(`${served.url}${base}/score/stream?url=${encodeURIComponent(`${site.origin}/nobody`)}`);
    const { events } = await readEvents(streamed, (list) => list.some((event) => event.event === 'error'));
    assert.deepEqual(events.map((event) => event.event), ['queued', 'fetching', 'extracting', 'error']);
    assert.equal(events[3]!.data.error.code, 'NOT_IDENTIFIED');
  } finally {
    served.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a model provider the dimensions are refined within 5 points of the rubric and the row says so; a failing provider leaves the rubric', async () => {
  const site = await fixtureSite();
  let answer = '';
  const prompts: string[] = [];
  const provider = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      prompts.push(body);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { content: answer } }] }));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}/v1`;
  const served = await serve({ LLM_BASE_URL: providerUrl, LLM_API_KEY: 'test-key', LLM_MODEL: 'test-model', CEO_INDEX_SCORES_PER_HOUR: '10' }, () => startMs);
  try {
    // The model asks for 20 everywhere and 0 for foundations: each moves at most 5 from the rubric's points.
    answer = JSON.stringify({ dimensions: { foundations: 0, vector_embeddings: 20, transformers_lm: 20, frontier_founder: 20, lm_domain_depth: 20, lm_domain_breadth: 20, hands_on_engineering: 20, industry_impact: 20, scientific_founder: 20 } });
    const refined = (await score(served, `${site.origin}/rich`, 30)).json['result'];
    assert.equal(refined.metadata.scorer, 'model');
    assert.ok(refined.passes.includes('model'));
    const rubric = refined.metadata.rubric_dimensions as Record<string, number>;
    for (const [key, points] of Object.entries(refined.dimensions as Record<string, number>)) {
      const expected = key === 'foundations' ? Math.max(0, rubric[key]! - 5) : Math.min(20, rubric[key]! + 5);
      assert.equal(points, expected, key);
    }
    assert.deepEqual((await verifyExport({ people: [{ ...refined, rank: 1 }] })).problems, []);
    assert.match(prompts[0]!, /Ada Q\. Byron/);
    answer = 'not json';
    const fallback = (await score(served, `${site.origin}/slow`, 30)).json['result'];
    assert.equal(fallback.metadata.scorer, 'embedded');
    assert.match(fallback.metadata.model_error, /not JSON/);
    assert.deepEqual(fallback.dimensions, fallback.metadata.rubric_dimensions);
  } finally {
    served.close();
    await new Promise<void>((resolve) => provider.close(() => resolve()));
    await site.close();
  }
});

test('a page on a private address is refused by the outbound rules unless OUTBOUND_ALLOW_PRIVATE is set', async () => {
  const site = await fixtureSite();
  const served = await serve({ OUTBOUND_ALLOW_PRIVATE: '0' }, () => startMs);
  try {
    const refused = await score(served, `${site.origin}/rich`, 30);
    assert.equal(refused.status, 422);
    assert.equal(refused.json['error']['code'], 'URL_REFUSED');
    assert.match(refused.json['error']['message'], /127\.0\.0\.1/);
    assert.deepEqual(site.requests, [], 'nothing was sent');
  } finally {
    served.close();
    await site.close();
  }
});
