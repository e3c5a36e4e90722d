/**
 * 2FA end to end, with codes computed here from RFC 6238 (HMAC-SHA-1 over the 30 s step), independently
 * of the server's TOTP library.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let at = 0; at + 8 <= bits.length; at += 8) bytes.push(Number.parseInt(bits.slice(at, at + 8), 2));
  return Buffer.from(bytes);
}

function totp(secret: string, epochMs: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(epochMs / 1000 / 30)));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, '0');
}

test('2FA: setup, enable with a first code, limited login token, verify, no code reuse, disable', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twofactor-'));
  let now = Date.UTC(2026, 10, 22, 12, 0, 1);
  const server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir }), silentLog, () => now);
  try {
    const registered = await call(server, 'POST', '/auth/register', { email: 'sec@example.com', password: 'correct horse', username: 'sec_one' });
    const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
    assert.deepEqual((await call(server, 'GET', '/auth/2fa/status', undefined, bearer)).json, { enabled: false });

    const setup = await call(server, 'POST', '/auth/2fa/setup', undefined, bearer);
    const secret: string = setup.json['secret'];
    assert.match(setup.json['provisioning_uri'], /^otpauth:\/\/totp\/.*secret=/);
    assert.equal((await call(server, 'POST', '/auth/2fa/enable', { code: '000000' }, bearer)).json['error'].code, 'INVALID_2FA_CODE');
    assert.equal((await call(server, 'POST', '/auth/2fa/enable', { code: totp(secret, now) }, bearer)).status, 200);
    assert.deepEqual((await call(server, 'GET', '/auth/2fa/status', undefined, bearer)).json, { enabled: true });
    assert.equal((await call(server, 'POST', '/auth/2fa/setup', undefined, bearer)).status, 409);

    const login = await call(server, 'POST', '/auth/login', { email: 'sec@example.com', password: 'correct horse' });
    assert.equal(login.json['requires_2fa'], true);
    assert.equal(login.json['refresh_token'], undefined);
    const limited = { authorization: `Bearer ${login.json['access_token']}` };
    assert.equal((await call(server, 'GET', '/api/v1/account/me/balances', undefined, limited)).status, 401, 'the limited token works nowhere else');
    // The code used to enable is spent: the same step is refused, the next one is accepted.
    assert.equal((await call(server, 'POST', '/auth/2fa/verify', { code: totp(secret, now) }, limited)).status, 401);
    now += 30_000;
    const verified = await call(server, 'POST', '/auth/2fa/verify', { code: totp(secret, now) }, limited);
    assert.equal(verified.status, 200);
    assert.match(verified.json['refresh_token'], /^rt_/);
    assert.equal((await call(server, 'POST', '/auth/2fa/verify', { code: totp(secret, now) }, limited)).status, 401, 'no reuse within the window');
    assert.equal((await call(server, 'POST', '/auth/2fa/verify', { code: totp(secret, now) }, bearer)).status, 401, 'a full token is not a limited one');
    assert.equal((await call(server, 'POST', '/auth/api-key', { email: 'sec@example.com', password: 'correct horse', key_name: 'k' })).json['error'].code, 'TWO_FACTOR_REQUIRED');

    now += 30_000;
    const full = { authorization: `Bearer ${verified.json['access_token']}` };
    assert.equal((await call(server, 'POST', '/auth/2fa/disable', { code: '123' }, full)).status, 422);
    assert.equal((await call(server, 'POST', '/auth/2fa/disable', { code: totp(secret, now) }, full)).status, 200);
    assert.equal((await call(server, 'POST', '/auth/login', { email: 'sec@example.com', password: 'correct horse' })).json['requires_2fa'], false);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
