/**
 * The `http` source against a local server on 127.0.0.1 (allowed with allowPrivate): prices as strings and
 * numbers, unknown symbols ignored, bad values skipped and counted, and every failure a rejected poll.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttpError, OutboundRefusedError, OutboundTimeoutError, OutboundTooLargeError } from '../outbound/fetch.ts';
import { loadOracleAssets } from './assets.ts';
import { HttpSource, httpPricesBytesMax, httpPricesEntriesMax } from './http-source.ts';

const assets = loadOracleAssets();
let answer: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{}' };
const server = http.createServer((request, response) => {
  if (request.url === '/never') return;
  response.writeHead(answer.status, { 'content-type': answer.type });
  response.end(answer.body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
after(() => {
  server.closeAllConnections();
  server.close();
});
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prices`;

function serve(body: unknown, status = 200, type = 'application/json'): void {
  answer = { status, type, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

test('prices as strings or numbers, exactly; unknown symbols ignored; bad values skipped and counted', async () => {
  const source = new HttpSource(assets, { url, timeoutMs: 2000, allowPrivate: true });
  assert.equal(source.history(), null);
  serve({ prices: { BTC: '97000.12', eth: 3012.5, SOL: 0.1, DOGE: '0.123456789', AAPL: -1, MSFT: 'n/a', NOPE: '1', TSLA: '250' }, extra: true });
  assert.deepEqual(await source.poll(), [
    { symbol: 'BTC', priceE8: 9_700_012_000_000 },
    { symbol: 'ETH', priceE8: 301_250_000_000 },
    { symbol: 'SOL', priceE8: 10_000_000 },
    { symbol: 'TSLA', priceE8: 25_000_000_000 },
  ]);
  assert.equal(source.symbolsIgnored, 1);
  assert.equal(source.valuesSkipped, 3);
  source.close();
});

test('every failure rejects the poll', async () => {
  const source = new HttpSource(assets, { url, timeoutMs: 2000, allowPrivate: true });
  serve({ price: { BTC: '1' } });
  await assert.rejects(source.poll(), /no "prices" object/);
  serve({ prices: ['1'] });
  await assert.rejects(source.poll(), /no "prices" object/);
  serve({ prices: Object.fromEntries(Array.from({ length: httpPricesEntriesMax + 1 }, (_, index) => [`X${index}`, '1'])) });
  await assert.rejects(source.poll(), /more than 1000 prices/);
  serve('{"prices": {"BTC": "1"}}', 200, 'text/html');
  await assert.rejects(source.poll(), OutboundRefusedError);
  serve('{"prices": ', 200);
  await assert.rejects(source.poll(), OutboundRefusedError);
  serve({ error: 'down' }, 503);
  await assert.rejects(source.poll(), (error: unknown) => error instanceof OutboundHttpError && error.status === 503);
  serve(`{"prices": {"BTC": "1"}, "pad": "${'x'.repeat(httpPricesBytesMax)}"}`);
  await assert.rejects(source.poll(), OutboundTooLargeError);
  serve({ prices: { BTC: '1' } });
  assert.deepEqual(await source.poll(), [{ symbol: 'BTC', priceE8: 100_000_000 }], 'recovers once the server does');
  source.close();

  const slow = new HttpSource(assets, { url: url.replace('/prices', '/never'), timeoutMs: 100, allowPrivate: true });
  await assert.rejects(slow.poll(), OutboundTimeoutError);
  slow.close();
});

test('without allowPrivate a loopback URL is refused', async () => {
  const source = new HttpSource(assets, { url, timeoutMs: 2000, allowPrivate: false });
  await assert.rejects(source.poll(), (error: unknown) => error instanceof OutboundRefusedError && error.reason === 'address_not_public');
});

test('closing the source aborts the poll in flight', async () => {
  const source = new HttpSource(assets, { url: url.replace('/prices', '/never'), timeoutMs: 10_000, allowPrivate: true });
  const pending = source.poll();
  source.close();
  await assert.rejects(pending, /closed/);
});
