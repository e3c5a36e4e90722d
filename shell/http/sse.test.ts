/**
 * Server-sent events through the route table: the head and an opening comment go out at once, each event as
 * the producer yields it, the stream ends with the producer; a producer that fails ends the stream with an
 * `error` event in the error shape; a client that leaves stops the producer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import uWS from 'uWebSockets.js';
import { RouteTable, sseFrame, type SseEvent } from './route-table.ts';
import { ApiError } from './errors.ts';
import { Authenticator } from '../auth/authenticator.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import { silentLog } from '../log.ts';
import type { Tokens } from '../auth/tokens.ts';
import type { ApiKeys } from '../auth/api-keys.ts';

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Frames of a text/event-stream body: [{event, data, id?}]. */
function parse(text: string): Array<{ event: string; data: unknown; id?: string }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const fields = new Map(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      const id = fields.get('id');
      return { event: fields.get('event')!, data: JSON.parse(fields.get('data')!), ...(id === undefined ? {} : { id }) };
    });
}

test('sseFrame writes one event in the text/event-stream format, with no line breaks smuggled into its fields', () => {
  assert.equal(sseFrame({ event: 'probe', data: { a: 'x\ny' }, id: '7' }), 'id: 7\nevent: probe\ndata: {"a":"x\\ny"}\n\n');
  assert.equal(sseFrame({ event: 'bad\nevent: forged', data: 1 }), 'event: badevent: forged\ndata: 1\n\n');
});

test('an events reply streams each event as it comes, ends with its producer, and reports a failure as an error event', async () => {
  let stopped = false;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  async function* steps(): AsyncGenerator<SseEvent> {
    yield { event: 'probe', data: { step: 1 }, id: '1' };
    await gate;
    yield { event: 'result', data: { done: true } };
  }
  async function* failing(): AsyncGenerator<SseEvent> {
    yield { event: 'probe', data: { step: 1 } };
    throw new ApiError(422, 'NOT_IDENTIFIED', 'no person on the page');
  }
  async function* endless(): AsyncGenerator<SseEvent> {
    try {
      for (let n = 0; ; n++) {
        yield { event: 'n', data: n };
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      stopped = true;
    }
  }
  const table = new RouteTable();
  const route = (path: string, events: () => AsyncIterable<SseEvent>) =>
    ({ method: 'GET', name: path.slice(1), path, auth: 'none', rateLimit: 'none', summary: path, handler: () => ({ events: events() }) }) as const;
  table.add([route('/steps', steps), route('/failing', failing), route('/endless', endless)]);
  const app = uWS.App();
  const authenticator = new Authenticator(null as unknown as Tokens, null as unknown as ApiKeys, new RateLimiter(() => Date.now()), '');
  table.mount(app, { bodyBytesMax: 1024, authenticator, log: silentLog });
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s === false ? reject(new Error('listen')) : resolve(s))));
  const base = `http://127.0.0.1:${uWS.us_socket_local_port(socket as unknown as uWS.us_socket)}`;
  try {
    const response = await fetch(`${base}/steps`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The first event arrives while the producer is still waiting for the gate.
    while (!text.includes('event: probe')) text += decoder.decode((await reader.read()).value);
    assert.deepEqual(parse(text), [{ event: 'probe', data: { step: 1 }, id: '1' }]);
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    assert.deepEqual(parse(text), [
      { event: 'probe', data: { step: 1 }, id: '1' },
      { event: 'result', data: { done: true } },
    ]);

    const failed = await fetch(`${base}/failing`);
    assert.deepEqual(parse(await failed.text()), [
      { event: 'probe', data: { step: 1 } },
      { event: 'error', data: { error: { code: 'NOT_IDENTIFIED', message: 'no person on the page' } } },
    ]);

    const controller = new AbortController();
    const endlessResponse = await fetch(`${base}/endless`, { signal: controller.signal });
    const endlessReader = endlessResponse.body!.getReader();
    await endlessReader.read();
    controller.abort();
    for (let waited = 0; !stopped && waited < 400; waited++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(stopped, 'the producer was stopped when the client left');
    await tick();
  } finally {
    uWS.us_listen_socket_close(socket);
  }
});
