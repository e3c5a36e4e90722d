/**
 * Sign-In with Ethereum against the real server, with real signatures (viem accounts): a first sign-in
 * makes the wallet's account and a later one finds it; the tokens work as a login's; a wrong, reused or
 * expired nonce, an expired message, another domain or chain, another signer and a malformed message are
 * refused, and a refused attempt leaves the nonce usable. Nonces are stored: a restart between nonce and
 * sign-in loses nothing, and a nonce serves once, across the restart too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from './test-client.ts';
import { SiweNonces, siweNoncesMax } from '../auth/siwe.ts';
import { openDatabase } from '../store/database.ts';

const wallet = privateKeyToAccount(`0x${'11'.repeat(32)}`);
const stranger = privateKeyToAccount(`0x${'22'.repeat(32)}`);

test('SIWE: real signatures sign in; wrong, reused and expired nonces, expired messages, other domains, chains and signers are refused', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'siwe-'));
  let now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog, () => now);
  try {
    const domain = `127.0.0.1:${server.port}`;
    const nonceOf = async (): Promise<string> => {
      const answer = await call(server, 'GET', '/wallet/siwe/nonce');
      assert.equal(answer.status, 200);
      assert.equal(answer.json['domain'], domain, 'the Host header when SIWE_DOMAIN is unset');
      assert.equal(answer.json['chain_id'], 1);
      return answer.json['nonce'];
    };
    const messageOf = (nonce: string, fields: Partial<Parameters<typeof createSiweMessage>[0]> = {}) =>
      createSiweMessage({ address: wallet.address, chainId: 1, domain, nonce, uri: `http://${domain}/`, version: '1', issuedAt: new Date(now), ...fields });
    const signIn = async (message: string, signer = wallet) => call(server, 'POST', '/wallet/siwe', { message, signature: await signer.signMessage({ message }) });
    const codeOf = async (message: string, signer = wallet) => {
      const answer = await signIn(message, signer);
      return answer.status === 200 ? 200 : answer.json['error'].code;
    };

    // A refused attempt does not use the nonce up.
    const nonce = await nonceOf();
    assert.equal(await codeOf(messageOf(nonce, { domain: 'evil.example' })), 'SIWE_DOMAIN_MISMATCH');
    assert.equal(await codeOf(messageOf(nonce, { chainId: 10 })), 'SIWE_CHAIN_MISMATCH');
    assert.equal(await codeOf(messageOf(nonce), stranger), 'SIWE_SIGNATURE_INVALID', 'signed by another wallet');
    assert.equal(await codeOf(messageOf(nonce, { expirationTime: new Date(now - 1000) })), 'SIWE_MESSAGE_EXPIRED');
    assert.equal(await codeOf(messageOf(nonce, { issuedAt: new Date(now - 10 * 60_000) })), 'SIWE_MESSAGE_EXPIRED', 'issued before the nonce could have been');
    assert.equal(await codeOf(messageOf(nonce, { notBefore: new Date(now + 60_000) })), 'SIWE_MESSAGE_NOT_YET_VALID');
    assert.equal(await codeOf(messageOf('0123456789abcdef0123456789abcdef')), 'SIWE_NONCE_UNKNOWN', 'a nonce this server never issued');
    const malformed = await call(server, 'POST', '/wallet/siwe', { message: 'hello', signature: await wallet.signMessage({ message: 'hello' }) });
    assert.equal(malformed.status, 422);
    assert.equal(malformed.json['error'].code, 'SIWE_MESSAGE_INVALID');
    assert.equal((await call(server, 'POST', '/wallet/siwe', { message: messageOf(nonce), signature: '0x1234' })).status, 422, 'a signature of the wrong length');

    const message = messageOf(nonce, { statement: 'Sign in to the trading platform.', expirationTime: new Date(now + 60_000) });
    const first = await signIn(message);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.equal(first.json['address'], wallet.address.toLowerCase());
    assert.equal(first.json['new_user'], true);
    assert.equal(first.json['requires_2fa'], false);
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, { authorization: `Bearer ${first.json['access_token']}` });
    assert.equal(balances.status, 200, 'the session works as a login’s');
    assert.equal((await call(server, 'POST', '/auth/refresh', { refresh_token: first.json['refresh_token'] })).status, 200);

    assert.equal(await codeOf(message), 'SIWE_NONCE_UNKNOWN', 'the same message again: the nonce is used');

    const again = await signIn(messageOf(await nonceOf()));
    assert.equal(again.json['user_id'], first.json['user_id'], 'the wallet finds its account');
    assert.equal(again.json['new_user'], false);

    // A nonce expires after SIWE_NONCE_TTL_MS (5 minutes by default).
    const late = await nonceOf();
    now += 5 * 60_000 + 1;
    assert.equal(await codeOf(messageOf(late)), 'SIWE_NONCE_UNKNOWN');
    const other = await signIn(createSiweMessage({ address: stranger.address, chainId: 1, domain, nonce: await nonceOf(), uri: `http://${domain}/`, version: '1', issuedAt: new Date(now) }), stranger);
    assert.notEqual(other.json['user_id'], first.json['user_id'], 'another wallet, another account');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIWE nonces are stored: a restart between nonce and sign-in loses nothing, and a nonce serves once, also after the restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'siwe-restart-'));
  let now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const start = () => startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog, () => now);
  let server = await start();
  try {
    // The domain is the Host header, which names the port: the message names the port the nonce was asked on.
    const nonceAt = async (): Promise<{ nonce: string; domain: string }> => {
      const answer = await call(server, 'GET', '/wallet/siwe/nonce');
      assert.equal(answer.status, 200);
      return { nonce: answer.json['nonce'], domain: answer.json['domain'] };
    };
    const first = await nonceAt();
    const late = await nonceAt();
    const used = await nonceAt();
    const signIn = async (nonce: string) => {
      const domain = `127.0.0.1:${server.port}`;
      const message = createSiweMessage({ address: wallet.address, chainId: 1, domain, nonce, uri: `http://${domain}/`, version: '1', issuedAt: new Date(now) });
      return call(server, 'POST', '/wallet/siwe', { message, signature: await wallet.signMessage({ message }) });
    };
    assert.equal((await signIn(used.nonce)).status, 200, 'used before the restart');

    await server.close();
    server = await start();
    now += 60_000;
    const signedIn = await signIn(first.nonce);
    assert.equal(signedIn.status, 200, `a nonce handed out before the restart: ${JSON.stringify(signedIn.json)}`);
    assert.equal(signedIn.json['new_user'], false);
    assert.equal((await signIn(first.nonce)).json['error']?.code, 'SIWE_NONCE_UNKNOWN', 'and only once');
    assert.equal((await signIn(used.nonce)).json['error']?.code, 'SIWE_NONCE_UNKNOWN', 'used before the restart stays used');

    // Expiry holds across the restart too: the stored expiry, not the process's memory, decides.
    await server.close();
    now += 4 * 60_000 + 1;
    server = await start();
    assert.equal((await signIn(late.nonce)).json['error']?.code, 'SIWE_NONCE_UNKNOWN', 'past SIWE_NONCE_TTL_MS');
    const stored = server.context.identity.db.prepare('SELECT COUNT(*) AS count FROM siwe_nonces').get() as { count: number };
    assert.equal(stored.count, 1, 'only the expired one is left until the next nonce is handed out');
    await nonceAt();
    assert.equal((server.context.identity.db.prepare('SELECT COUNT(*) AS count FROM siwe_nonces').get() as { count: number }).count, 1, 'handing one out forgets the expired');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the nonce store: single use, expiry, and a bound that drops the nonce nearest its expiry', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'siwe-store-'));
  const db = openDatabase(dataDir);
  let now = 1_000_000;
  const nonces = new SiweNonces(db, 1000, () => now);
  const a = nonces.issue();
  assert.equal(a.expiresAtMs, now + 1000);
  assert.match(a.nonce, /^[0-9a-f]{32}$/);
  assert.ok(nonces.has(a.nonce));
  assert.ok(!nonces.has('0'.repeat(32)));
  assert.equal(nonces.take(a.nonce), true);
  assert.equal(nonces.take(a.nonce), false, 'used up');
  assert.ok(!nonces.has(a.nonce));
  const b = nonces.issue();
  now += 1000;
  assert.ok(!nonces.has(b.nonce), 'expired at its expiry');
  assert.equal(nonces.take(b.nonce), false);
  assert.equal(nonces.size, 1);
  nonces.issue();
  assert.equal(nonces.size, 1, 'the expired one is forgotten when another is handed out');
  // The bound: filled to the maximum in one transaction, one more drops the oldest.
  const insert = db.prepare('INSERT INTO siwe_nonces (nonce, expires_at_ms) VALUES (?, ?)');
  db.transaction(() => {
    for (let index = 1; index < siweNoncesMax; index++) insert.run(`filler-${index}`, now + 500 + (index % 100));
  })();
  const counted = new SiweNonces(db, 1000, () => now);
  assert.equal(counted.size, siweNoncesMax, 'counted at start');
  const oldest = (db.prepare('SELECT nonce FROM siwe_nonces ORDER BY expires_at_ms LIMIT 1').get() as { nonce: string }).nonce;
  const c = counted.issue();
  assert.equal(counted.size, siweNoncesMax);
  assert.ok(!counted.has(oldest), 'the nonce nearest its expiry was dropped');
  assert.ok(counted.has(c.nonce));
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});
