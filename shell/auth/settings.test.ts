/** The authentication settings: defaults, and refusals of values that could never match. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authSettings } from './settings.ts';

test('auth settings: defaults, overrides and refusals', () => {
  assert.deepEqual(authSettings({}), {
    signatureWindowMs: 5000,
    jwtIssuer: 'trading-platform',
    jwtAudience: 'trading-platform-api',
    siweDomain: '',
    siweChainId: 1,
    siweNonceTtlMs: 300_000,
  });
  const set = authSettings({ API_SIGNATURE_WINDOW_MS: '2000', JWT_ISSUER: 'https://auth.example', SIWE_DOMAIN: 'app.example:443', SIWE_CHAIN_ID: '8453' });
  assert.equal(set.signatureWindowMs, 2000);
  assert.equal(set.jwtIssuer, 'https://auth.example');
  assert.equal(set.siweDomain, 'app.example:443');
  assert.equal(set.siweChainId, 8453);
  assert.throws(() => authSettings({ API_SIGNATURE_WINDOW_MS: '999' }), /API_SIGNATURE_WINDOW_MS/);
  assert.throws(() => authSettings({ JWT_AUDIENCE: 'two words' }), /JWT_AUDIENCE/);
  assert.throws(() => authSettings({ SIWE_CHAIN_ID: '0' }), /SIWE_CHAIN_ID/);
});
