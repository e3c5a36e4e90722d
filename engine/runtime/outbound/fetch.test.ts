/**
 * The guarded outbound fetch: the address classifier on a table, URL refusals, and real requests to a local
 * server on 127.0.0.1 (the only address these tests contact): success, JSON, the size cap, the deadline,
 * the redirect limit, a redirect to a refused address, and the connection pinned to the checked address.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OutboundHttpError,
  OutboundRefusedError,
  OutboundTimeoutError,
  OutboundTooLargeError,
  nonPublicRange,
  outboundFetch,
  outboundFetchJson,
  outboundRedirectsMax,
  outboundUrlCharsMax,
} from './fetch.ts';

test('the classifier allows public addresses and refuses every non-public range', () => {
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '::8.8.8.8',
    '2001:db9::1',
  ];
  for (const address of allowed) assert.equal(nonPublicRange(address), null, address);
  const refused = [
    '0.0.0.0',
    '0.255.255.255',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.255',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    '2001:db8::1',
    '64:ff9b::7f00:1',
    '64:ff9b::8.8.8.8',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:192.168.0.1',
    'not-an-address',
    '',
  ];
  for (const address of refused) assert.notEqual(nonPublicRange(address), null, address);
  assert.match(nonPublicRange('::ffff:127.0.0.1')!, /IPv4-mapped 127\.0\.0\.0\/8/);
});

async function refusal(promise: Promise<unknown>): Promise<OutboundRefusedError> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OutboundRefusedError, String(error));
  return error;
}

test('URLs are refused by form, and literal private addresses in any notation, before any connection', async () => {
  const options = { timeoutMs: 1000 };
  assert.equal((await refusal(outboundFetch('ftp://example.com/', options))).reason, 'scheme_not_allowed');
  assert.equal((await refusal(outboundFetch('file:///etc/passwd', options))).reason, 'scheme_not_allowed');
  assert.equal((await refusal(outboundFetch('http://user:secret@example.com/', options))).reason, 'credentials_in_url');
  assert.equal((await refusal(outboundFetch('not a url', options))).reason, 'invalid_url');
  assert.equal((await refusal(outboundFetch(`http://example.com/${'a'.repeat(outboundUrlCharsMax)}`, options))).reason, 'url_too_long');
  for (const url of [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://0/',
  ]) {
    assert.equal((await refusal(outboundFetch(url, options))).reason, 'address_not_public', url);
  }
});

test('a host name is refused when any of its addresses is not public', async () => {
  const resolve = async (): Promise<Array<{ address: string; family: number }>> => [
    { address: '8.8.8.8', family: 4 },
    { address: '10.1.2.3', family: 4 },
  ];
  const refused = await refusal(outboundFetch('http://mixed.test/', { timeoutMs: 1000, resolve }));
  assert.equal(refused.reason, 'address_not_public');
  assert.match(refused.message, /10\.1\.2\.3/);
});

// --- a local server ------------------------------------------------------------------------------

const hostsSeen: string[] = [];
const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://local');
  hostsSeen.push(request.headers.host ?? '');
  const port = (server.address() as AddressInfo).port;
  switch (url.pathname) {
    case '/json':
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"prices":{"BTC":"97000.12"}}');
      return;
    case '/text':
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('hello');
      return;
    case '/bad-json':
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"prices":');
      return;
    case '/big':
      // No content-length: the cap must hold while streaming.
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let index = 0; index < 64; index++) response.write(Buffer.alloc(1024, 0x61));
      response.end();
      return;
    case '/big-declared':
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(1 << 20) });
      response.end(Buffer.alloc(1 << 20));
      return;
    case '/never':
      // Never answers: only the caller's deadline ends the request.
      return;
    case '/echo': {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ method: request.method, body: Buffer.concat(chunks).toString(), type: request.headers['content-type'], agent: request.headers['user-agent'] }));
      });
      return;
    }
    case '/missing':
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('no');
      return;
    case '/loop': {
      const hop = Number(url.searchParams.get('hop') ?? '0');
      response.writeHead(302, { location: `/loop?hop=${hop + 1}` });
      response.end();
      return;
    }
    case '/chain': {
      const left = Number(url.searchParams.get('left') ?? '0');
      response.writeHead(left > 0 ? 307 : 200, left > 0 ? { location: `/chain?left=${left - 1}` } : { 'content-type': 'application/json' });
      response.end(left > 0 ? '' : JSON.stringify({ done: true }));
      return;
    }
    case '/to-other-loopback':
      response.writeHead(302, { location: `http://127.0.0.2:${port}/json` });
      response.end();
      return;
    case '/to-hex-loopback':
      response.writeHead(301, { location: `http://0x7f000002:${port}/json` });
      response.end();
      return;
    case '/to-file':
      response.writeHead(302, { location: 'file:///etc/passwd' });
      response.end();
      return;
    default:
      response.writeHead(500);
      response.end();
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
after(() => {
  server.closeAllConnections();
  server.close();
});
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

test('a loopback URL is refused without allowPrivate, and answered with it', async () => {
  assert.equal((await refusal(outboundFetch(`${base}/json`, { timeoutMs: 2000 }))).reason, 'address_not_public');
  const response = await outboundFetch(`${base}/json`, { timeoutMs: 2000, allowPrivate: true });
  assert.equal(response.status, 200);
  assert.equal(response.body.toString(), '{"prices":{"BTC":"97000.12"}}');
  assert.deepEqual(await outboundFetchJson(`${base}/json`, { timeoutMs: 2000, allowPrivate: true }), { prices: { BTC: '97000.12' } });
});

test('JSON requires a JSON content type and a valid body', async () => {
  assert.equal((await refusal(outboundFetchJson(`${base}/text`, { timeoutMs: 2000, allowPrivate: true }))).reason, 'not_json');
  assert.equal((await refusal(outboundFetchJson(`${base}/bad-json`, { timeoutMs: 2000, allowPrivate: true }))).reason, 'invalid_json');
  const text = await outboundFetch(`${base}/text`, { timeoutMs: 2000, allowPrivate: true });
  assert.equal(text.body.toString(), 'hello');
});

test('the size cap aborts a streamed body and refuses a declared one', async () => {
  await assert.rejects(outboundFetch(`${base}/big`, { timeoutMs: 5000, allowPrivate: true, bytesMax: 10_000 }), OutboundTooLargeError);
  await assert.rejects(outboundFetch(`${base}/big-declared`, { timeoutMs: 5000, allowPrivate: true, bytesMax: 10_000 }), OutboundTooLargeError);
  const whole = await outboundFetch(`${base}/big`, { timeoutMs: 5000, allowPrivate: true, bytesMax: 64 * 1024 });
  assert.equal(whole.body.length, 64 * 1024);
});

test('a server that never answers ends at the deadline', async () => {
  await assert.rejects(outboundFetch(`${base}/never`, { timeoutMs: 150, allowPrivate: true }), (error: unknown) => {
    assert.ok(error instanceof OutboundTimeoutError);
    assert.equal(error.timeoutMs, 150);
    return true;
  });
});

test('a non-2xx answer is an OutboundHttpError with its status', async () => {
  await assert.rejects(outboundFetch(`${base}/missing`, { timeoutMs: 2000, allowPrivate: true }), (error: unknown) => {
    assert.ok(error instanceof OutboundHttpError);
    assert.equal(error.status, 404);
    return true;
  });
});

test('redirects are followed up to the limit, and one more is refused', async () => {
  const followed = await outboundFetch(`${base}/chain?left=${outboundRedirectsMax}`, { timeoutMs: 2000, allowPrivate: true });
  assert.equal(followed.status, 200);
  assert.equal(followed.url, `${base}/chain?left=0`);
  assert.equal((await refusal(outboundFetch(`${base}/chain?left=${outboundRedirectsMax + 1}`, { timeoutMs: 2000, allowPrivate: true }))).reason, 'too_many_redirects');
  assert.equal((await refusal(outboundFetch(`${base}/loop`, { timeoutMs: 2000, allowPrivate: true }))).reason, 'too_many_redirects');
  assert.equal((await refusal(outboundFetch(`${base}/chain?left=2`, { timeoutMs: 2000, allowPrivate: true, redirectsMax: 1 }))).reason, 'too_many_redirects');
});

test('a POST sends its body and headers, and follows no redirect', async () => {
  const echoed = await outboundFetchJson(`${base}/echo`, {
    timeoutMs: 2000,
    allowPrivate: true,
    method: 'POST',
    body: '{"q":"é"}',
    headers: { 'content-type': 'application/json', 'user-agent': 'other' },
  });
  assert.deepEqual(echoed, { method: 'POST', body: '{"q":"é"}', type: 'application/json', agent: 'trading-platform-outbound/1' });
  assert.equal((await refusal(outboundFetch(`${base}/chain?left=1`, { timeoutMs: 2000, allowPrivate: true, method: 'POST', body: '{}' }))).reason, 'too_many_redirects');
});

test('every hop is checked again: a redirect from an allowed address to a refused one is refused', async () => {
  // Only 127.0.0.1 is let through. Nothing listens on 127.0.0.2, so a hop that escaped the check would fail
  // as a network error rather than a refusal; the refusal comes before any connection to it.
  const checked: string[] = [];
  const onlyFirst = {
    timeoutMs: 2000,
    allowAddress: (address: string) => {
      checked.push(address);
      return address === '127.0.0.1';
    },
  };
  assert.equal((await outboundFetch(`${base}/json`, onlyFirst)).status, 200);
  for (const path of ['/to-other-loopback', '/to-hex-loopback']) {
    checked.length = 0;
    hostsSeen.length = 0;
    const refused = await refusal(outboundFetch(`${base}${path}`, onlyFirst));
    assert.equal(refused.reason, 'address_not_public', path);
    assert.match(refused.message, /127\.0\.0\.2/);
    assert.deepEqual(checked, ['127.0.0.1', '127.0.0.2'], path);
    assert.equal(hostsSeen.length, 1, 'only the first hop reached a server');
  }
  assert.equal((await refusal(outboundFetch(`${base}/to-file`, onlyFirst))).reason, 'scheme_not_allowed');
});

test('the connection goes to the address that was checked, whatever the host name', async () => {
  const port = (server.address() as AddressInfo).port;
  const resolved: string[] = [];
  // `.test` names never resolve through DNS: reaching the server proves the checked answer was used.
  const resolve = async (hostname: string): Promise<Array<{ address: string; family: number }>> => {
    resolved.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  hostsSeen.length = 0;
  const answer = await outboundFetchJson(`http://prices.test:${port}/json`, { timeoutMs: 2000, allowPrivate: true, resolve });
  assert.deepEqual(answer, { prices: { BTC: '97000.12' } });
  assert.deepEqual(resolved, ['prices.test']);
  assert.deepEqual(hostsSeen, [`prices.test:${port}`]);
  // The same name refused when the resolver's answer is private and private addresses are not allowed.
  assert.equal((await refusal(outboundFetch(`http://prices.test:${port}/json`, { timeoutMs: 2000, resolve }))).reason, 'address_not_public');
});

test('a caller abort ends the request with its reason', async () => {
  const controller = new AbortController();
  const pending = outboundFetch(`${base}/never`, { timeoutMs: 5000, allowPrivate: true, signal: controller.signal });
  controller.abort(new Error('closed'));
  await assert.rejects(pending, /closed/);
});
