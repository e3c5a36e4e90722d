/**
 * Signed API keys against the real server: a key created `signed` must send X-Timestamp and X-Signature
 * over the documented canonical string; stale, replayed, wrongly keyed, tampered and missing signatures
 * are refused with their codes; unsigned keys work as before; PATCH turns signing on and off; the secret
 * is never shown again and is stored sealed, not in clear.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';
import { SignatureGuard, signatureOf } from '../auth/signatures.ts';
import { ApiError } from './errors.ts';

test('signed keys: good, stale, replayed, wrong secret, tampered and missing signatures; unsigned keys unchanged', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'signed-'));
  let now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'k' }), silentLog, () => now);
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'mm@example.com', password: 'correct horse', username: 'mm_signed' });
    assert.equal(registered.status, 201);
    const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
    const created = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'signed', signed: true }, bearer);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json['signed'], true);
    const secret: string = created.json['api_secret'];
    const apiKey: string = created.json['api_key'];
    const plain = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'plain' }, bearer);
    assert.equal(plain.json['signed'], false, 'unsigned unless asked');
    await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset: 'ETH', amount: '5' }, { 'x-api-key': 'k' });

    /** The headers of a request signed with `key` at `timestamp`. */
    const signed = (method: string, path: string, query: string, body: string, timestamp = String(now), key = secret) => ({
      'x-api-key': apiKey,
      'x-timestamp': timestamp,
      'x-signature': signatureOf(key, timestamp, { method, path, rawQuery: query, rawBody: Buffer.from(body) }),
    });
    const codeOf = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
      const answer = await call(server, method, path, body, headers);
      return answer.status === 401 ? answer.json['error'].code : answer.status;
    };

    // The canonical string, worked by hand (README's example): timestamp, method, path, raw query, raw body.
    assert.equal(
      signatureOf('tps_example', '1700000000000', { method: 'GET', path: '/api/v1/account/me/balances', rawQuery: 'mode=paper', rawBody: null }),
      (await import('node:crypto')).createHmac('sha256', 'tps_example').update('1700000000000\nGET\n/api/v1/account/me/balances\nmode=paper\n').digest('hex'),
    );

    // README's two examples.
    const example = (method: string, path: string, rawQuery: string, body: string | null) =>
      signatureOf('tps_example', '1764072000000', { method, path, rawQuery, rawBody: body === null ? null : Buffer.from(body) });
    assert.equal(
      example('POST', '/api/v1/exchange/eth/orders', '', '{"side":"buy","order_type":"limit","quantity":"1","price":"3000"}'),
      '950f52d2f41296b14b09075f5e47e194f797dbe6c6cf80138374a8785bb21f0d',
    );
    assert.equal(example('GET', '/api/v1/account/me/balances', 'mode=paper', null), 'd35618e9dac797c6dccecadaa8d1de3a6ef0e029642a218ba3e3484c5d1f02cb');

    const balances = '/api/v1/account/me/balances';
    assert.equal(await codeOf('GET', balances, { 'x-api-key': apiKey }), 'SIGNATURE_REQUIRED');
    assert.equal(await codeOf('GET', balances, { 'x-api-key': apiKey, 'x-timestamp': String(now) }), 'SIGNATURE_REQUIRED');
    assert.equal(await codeOf('GET', balances, { 'x-api-key': apiKey, 'x-signature': 'ab'.repeat(32) }), 'SIGNATURE_REQUIRED');
    const good = signed('GET', balances, 'mode=paper', '');
    assert.equal(await codeOf('GET', `${balances}?mode=paper`, good), 200);
    assert.equal(await codeOf('GET', `${balances}?mode=paper`, good), 'SIGNATURE_REPLAYED', 'the same request again');
    assert.equal(await codeOf('GET', `${balances}?mode=live`, signed('GET', balances, 'mode=paper', '')), 'SIGNATURE_INVALID', 'a changed query');
    assert.equal(await codeOf('GET', balances, signed('GET', balances, '', '', String(now), 'tps_wrong')), 'SIGNATURE_INVALID', 'another secret');
    assert.equal(await codeOf('GET', balances, { ...signed('GET', balances, '', ''), 'x-signature': 'zz' }), 'SIGNATURE_INVALID');
    assert.equal(await codeOf('GET', balances, signed('GET', balances, '', '', String(now - 5001))), 'TIMESTAMP_OUTSIDE_WINDOW', 'stale');
    assert.equal(await codeOf('GET', balances, signed('GET', balances, '', '', String(now + 5001))), 'TIMESTAMP_OUTSIDE_WINDOW', 'from the future');
    assert.equal(await codeOf('GET', balances, signed('GET', balances, '', '', 'yesterday')), 'TIMESTAMP_OUTSIDE_WINDOW');
    assert.equal(await codeOf('GET', balances, signed('GET', balances, '', '', String(now - 5000))), 200, 'the edge of the window');

    // A body is signed as the exact bytes sent (spacing and key order included).
    const orders = '/api/v1/exchange/eth/orders';
    const body = '{ "side": "sell",  "order_type": "limit", "quantity": "1", "price": "9000" }';
    const placed = await call(server, 'POST', orders, body, signed('POST', orders, '', body));
    assert.equal(placed.status, 201, JSON.stringify(placed.json));
    const respaced = body.replace('  ', ' ');
    assert.equal(await codeOf('POST', orders, signed('POST', orders, '', body), respaced), 'SIGNATURE_INVALID', 'the same JSON, other bytes');
    assert.equal(await codeOf('GET', balances, signed('POST', balances, '', '')), 'SIGNATURE_INVALID', 'another method');
    assert.equal(await codeOf('GET', balances, signed('GET', orders, '', '')), 'SIGNATURE_INVALID', 'another path');
    // Bytes, not characters: a body with multi-byte UTF-8 text (client order ids are ASCII, a bug report's title is not).
    const reports = '/api/v1/bounty/reports';
    const multiByte = '{"title":"Été: accents in a title","description":"The signature covers the body\'s bytes, not its characters.","severity":"low"}';
    const reported = await call(server, 'POST', reports, multiByte, signed('POST', reports, '', multiByte));
    assert.ok(reported.status >= 200 && reported.status < 300, `UTF-8 bytes: ${reported.status} ${JSON.stringify(reported.json)}`);

    // Unsigned keys need nothing and ignore signature headers.
    assert.equal(await codeOf('GET', balances, { 'x-api-key': plain.json['api_key'] }), 200);
    assert.equal(await codeOf('GET', balances, { 'x-api-key': plain.json['api_key'], 'x-timestamp': '1', 'x-signature': 'bad' }), 200);

    // PATCH turns signing off and on; no answer shows the secret again.
    const keyPath = `/api/v1/api-keys/${created.json['api_key_id']}`;
    const off = await call(server, 'PATCH', keyPath, { signed: false }, bearer);
    assert.equal(off.json['signed'], false);
    assert.equal(await codeOf('GET', balances, { 'x-api-key': apiKey }), 200);
    assert.equal((await call(server, 'PATCH', keyPath, { signed: true }, bearer)).json['signed'], true);
    assert.equal(await codeOf('GET', balances, { 'x-api-key': apiKey }), 'SIGNATURE_REQUIRED');
    now += 1000;
    assert.equal(await codeOf('GET', balances, signed('GET', balances, '', '')), 200, 'the same secret after the change');
    const listing = await call(server, 'GET', '/api/v1/api-keys', undefined, bearer);
    assert.ok(!JSON.stringify(listing.json).includes(secret));
    assert.deepEqual(listing.json['api_keys'].map((key: { signed: boolean }) => key.signed), [true, false]);

    // At rest: a digest and a sealed blob, never the secret itself.
    const row = server.context.identity.db.prepare('SELECT secret_hash, secret_sealed FROM api_keys WHERE id = ?').get(created.json['api_key_id']) as {
      secret_hash: string;
      secret_sealed: Buffer;
    };
    assert.ok(!row.secret_sealed.includes(Buffer.from(secret.slice(4))));
    assert.ok(!row.secret_hash.includes(secret.slice(4)));
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the replay guard forgets signatures once they could no longer pass the timestamp check', () => {
  let now = 1_000_000;
  const guard = new SignatureGuard(5000, () => now);
  const secret = Buffer.from('tps_guard');
  const parts = { method: 'GET', path: '/p', rawQuery: '', rawBody: null };
  const headersAt = (timestamp: number) => ({ timestamp: String(timestamp), signature: signatureOf(secret, String(timestamp), parts) });
  const first = headersAt(now);
  guard.check(secret, first, parts);
  guard.check(secret, headersAt(now + 1), parts);
  assert.equal(guard.remembered, 2);
  assert.throws(() => guard.check(secret, first, parts), (error: unknown) => error instanceof ApiError && error.code === 'SIGNATURE_REPLAYED');
  now += 10_001;
  guard.check(secret, headersAt(now), parts);
  assert.equal(guard.remembered, 1, 'the two older ones are forgotten');
  assert.throws(() => guard.check(secret, headersAt(now), parts), (error: unknown) => error instanceof ApiError && error.code === 'SIGNATURE_REPLAYED');
  assert.throws(() => guard.check(secret, { timestamp: '', signature: '' }, parts), (error: unknown) => error instanceof ApiError && error.code === 'SIGNATURE_REQUIRED');
  assert.throws(() => guard.check(secret, headersAt(now), null), (error: unknown) => error instanceof ApiError && error.code === 'SIGNATURE_REQUIRED', 'in-process callers cannot sign');
});
