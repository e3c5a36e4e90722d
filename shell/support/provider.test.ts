/**
 * The optional model provider against a local OpenAI-compatible fixture on 127.0.0.1 (OUTBOUND_ALLOW_PRIVATE
 * for the test): the request it receives (model, bearer key, bounded tokens, the question and the quoted
 * passages), the model's answer with the extractive citations kept, and the fallback to the extractive
 * answer when the provider fails (HTTP error, malformed answer, deadline). The settings' refusals too.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';

import { supportSettings } from './settings.ts';

/** What the fixture does next: answer, fail with 500, answer without content, or never answer. */
let behaviour: 'answer' | 'error' | 'empty' | 'hang' = 'answer';
const received: Array<{ path: string; authorization: string | undefined; body: any }> = [];
const fixture = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ path: request.url ?? '', authorization: request.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString()) });
    if (behaviour === 'hang') return;
    if (behaviour === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ choices: behaviour === 'empty' ? [] : [{ message: { role: 'assistant', content: '  Use POST /api/v1/exchange/{symbol}/scale [1].  ' } }] }));
  });
});
await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
after(() => {
  fixture.closeAllConnections();
  fixture.close();
});
const base = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}/v1`;

test('the model phrases the answer from the quoted passages; any failure falls back to the extractive answer', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-model-'));
  const env = {
    PORT: '0',
    AMM_CHAINS: '',
    DATA_DIR: dataDir,
    OUTBOUND_ALLOW_PRIVATE: '1',
    LLM_BASE_URL: `${base}/`,
    LLM_API_KEY: 'sk-test',
    LLM_MODEL: 'small-model',
    LLM_TIMEOUT_MS: '300',
  };
  const server = await startServer(loadConfig(env), silentLog);
  try {
    const question = { question: 'How do I place a scale order?' };
    const phrased = await call(server, 'POST', '/api/v1/support/ai-agent', question);
    assert.equal(phrased.status, 200);
    assert.equal(phrased.json['analyzer'], 'model');
    assert.equal(phrased.json['answer'], 'Use POST /api/v1/exchange/{symbol}/scale [1].');
    const sent = received.at(-1)!;
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.authorization, 'Bearer sk-test');
    assert.equal(sent.body.model, 'small-model');
    assert.equal(sent.body.max_tokens, 600, 'the provider\'s default LLM_MAX_TOKENS');
    const prompt = sent.body.messages[1].content as string;
    assert.match(prompt, /^Question: How do I place a scale order\?/);

    // The citations are the extractive answer's: the same passages, whatever the model wrote.
    behaviour = 'error';
    const failed = await call(server, 'POST', '/api/v1/support/ai-agent', question);
    assert.equal(failed.status, 200);
    assert.equal(failed.json['analyzer'], 'extractive');
    assert.deepEqual(failed.json['citations'], phrased.json['citations']);
    for (const cited of phrased.json['citations'] as Array<{ document: string }>) assert.ok(prompt.includes(cited.document), cited.document);
    assert.match(failed.json['answer'], /price_low/);

    behaviour = 'empty';
    assert.equal((await call(server, 'POST', '/api/v1/support/ai-agent', question)).json['analyzer'], 'extractive');
    behaviour = 'hang';
    const late = await call(server, 'POST', '/api/v1/support/ai-agent/investor', question);
    assert.equal(late.json['analyzer'], 'extractive', 'past LLM_TIMEOUT_MS');
    assert.deepEqual(late.json['citations'], phrased.json['citations']);

    // No call for a question nothing matches, nor for figures.
    behaviour = 'answer';
    const calls = received.length;
    const nothing = await call(server, 'POST', '/api/v1/support/ai-agent', { question: 'what is the weather in paris tomorrow' });
    assert.equal(nothing.json['answered'], false);
    assert.equal(nothing.json['analyzer'], 'extractive');
    const figures = await call(server, 'POST', '/api/v1/support/ai-agent/investor', { question: 'registered users' });
    assert.equal(figures.json['analyzer'], 'extractive');
    assert.equal(received.length, calls);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('provider settings: off by default, the platform provider when LLM_* are set', () => {
  assert.equal(supportSettings({}).provider, null);
  assert.equal(supportSettings({ LLM_BASE_URL: 'https://llm.example/v1//', LLM_API_KEY: 'k', LLM_MODEL: 'm' }).provider?.settings.baseUrl, 'https://llm.example/v1');
  assert.throws(() => supportSettings({ LLM_BASE_URL: 'https://llm.example/v1' }), /together or not at all/);
});
