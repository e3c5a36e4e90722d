import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatProvider, ProviderError, chatProvider, promptCharsMax, providerSettings } from './provider.ts';

const seen: Array<{ path: string; auth: string; body: Record<string, unknown> }> = [];
const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    seen.push({ path: request.url ?? '', auth: request.headers.authorization ?? '', body });
    response.writeHead(200, { 'content-type': 'application/json' });
    const model = body['model'];
    if (model === 'empty') response.end(JSON.stringify({ choices: [] }));
    else response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: ` answer to ${(body['messages'] as Array<{ content: string }>).at(-1)!.content} ` } }] }));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
after(() => server.close());
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;

test('settings: none set is no provider; all three set is one; half-set and bad values are errors', () => {
  assert.equal(chatProvider({}), null);
  const settings = providerSettings({ LLM_BASE_URL: base, LLM_API_KEY: 'k', LLM_MODEL: 'm' })!;
  assert.equal(settings.baseUrl, base.replace(/\/$/, ''));
  assert.equal(settings.timeoutMs, 20_000);
  assert.equal(settings.maxTokens, 600);
  assert.equal(settings.allowPrivate, false);
  assert.throws(() => providerSettings({ LLM_BASE_URL: base, LLM_MODEL: 'm' }), /together or not at all/);
  assert.throws(() => providerSettings({ LLM_BASE_URL: 'ftp://x', LLM_API_KEY: 'k', LLM_MODEL: 'm' }), /http\(s\) URL/);
  assert.throws(() => providerSettings({ LLM_BASE_URL: base, LLM_API_KEY: 'k', LLM_MODEL: 'm', LLM_MAX_TOKENS: '0' }), /LLM_MAX_TOKENS/);
});

test('a call posts the chat to {base}/chat/completions with the key and answers the text; failures are ProviderErrors', async () => {
  const env = { LLM_BASE_URL: base, LLM_API_KEY: 'secret', LLM_MODEL: 'm', OUTBOUND_ALLOW_PRIVATE: '1' };
  const provider = chatProvider(env)!;
  assert.equal(await provider.complete([{ role: 'user', content: 'hi' }]), 'answer to hi');
  assert.deepEqual(seen.at(-1), { path: '/v1/chat/completions', auth: 'Bearer secret', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 600, temperature: 0 } });
  await assert.rejects(new ChatProvider({ ...provider.settings, model: 'empty' }).complete([{ role: 'user', content: 'x' }]), ProviderError);
  await assert.rejects(provider.complete([{ role: 'user', content: 'x'.repeat(promptCharsMax + 1) }]), /over/);
  // Without OUTBOUND_ALLOW_PRIVATE the loopback provider is refused by the outbound rules, as a ProviderError.
  await assert.rejects(chatProvider({ ...env, OUTBOUND_ALLOW_PRIVATE: '' })!.complete([{ role: 'user', content: 'x' }]), (error: unknown) => error instanceof ProviderError && /address_not_public/.test(error.message));
});
