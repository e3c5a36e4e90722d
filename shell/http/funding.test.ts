/**
 * Funding over HTTP against the real server: deposit addresses; withdrawals with a session only, their
 * validation, their idempotency (also across a restart) and their settlement hash; the whitelist with its
 * 24-hour cooling; and an agent key that may not withdraw to an unverified destination.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from './test-client.ts';

const evmAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
const otherEvmAddress = '0x8617e340b3d01fa5f11f306f4090fd50e238070d';
const solanaAddress = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const simHash = /^sim-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface User {
  bearer: Record<string, string>;
  key: Record<string, string>;
  userId: number;
}

async function user(server: RunningServer, name: string): Promise<User> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, bearer);
  return { bearer, key: { 'x-api-key': key.json['api_key'] }, userId: registered.json['user_id'] };
}

test('deposit addresses, withdrawals with a session, idempotent retries, the cooling whitelist and agent keys', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'funding-'));
  const config: Config = loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'admin' });
  let now = Date.UTC(2026, 10, 22, 9, 0, 0);
  let server = await startServer(config, silentLog, () => now);
  try {
    const erin = await user(server, 'erin_funding');
    const frank = await user(server, 'frank_funding');
    const credit = (userId: number, asset: string, amount: string) => call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset, amount }, { 'x-api-key': 'admin' });
    assert.equal((await credit(erin.userId, 'USDC', '1000')).status, 200);
    assert.equal((await credit(erin.userId, 'ETH', '2')).status, 200);
    const usdcOf = async (who: User): Promise<string> => {
      const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, who.key);
      return balances.json['balances'].find((row: Record<string, string>) => row['asset'] === 'USDC')['available'];
    };

    // Deposit addresses: one per chain, in each chain's form, the same on every call, different per user.
    const deposits = await call(server, 'GET', '/api/v1/funding/deposit-addresses', undefined, erin.key);
    assert.equal(deposits.status, 200);
    const byChain = Object.fromEntries(deposits.json['addresses'].map((row: Record<string, string>) => [row['chain'], row['address']]));
    assert.deepEqual(Object.keys(byChain), ['ethereum', 'base', 'arbitrum', 'solana']);
    for (const chain of ['ethereum', 'base', 'arbitrum']) assert.match(byChain[chain], /^0x[0-9a-f]{40}$/);
    assert.match(byChain['solana'], /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.deepEqual((await call(server, 'GET', '/api/v1/funding/deposit-addresses', undefined, erin.bearer)).json, deposits.json);
    assert.notEqual((await call(server, 'GET', '/api/v1/funding/deposit-addresses', undefined, frank.key)).json['addresses'][0]['address'], byChain['ethereum']);

    const withdraw = (who: Record<string, string>, body: Record<string, unknown>) => call(server, 'POST', '/api/v1/funding/withdraw', body, who);
    const hundred = { asset: 'USDC', amount: '100', chain: 'base', address: evmAddress };

    // A user's API key can never withdraw; a session can, to any address while there is no whitelist.
    const byKey = await withdraw(erin.key, hundred);
    assert.deepEqual([byKey.status, byKey.json['error'].code], [403, 'SESSION_REQUIRED']);
    const first = await withdraw(erin.bearer, hundred);
    assert.equal(first.status, 201, JSON.stringify(first.json));
    assert.deepEqual(
      [first.json['asset'], first.json['amount'], first.json['chain'], first.json['address'], first.json['status'], first.json['client_withdrawal_id']],
      ['USDC', '100.000000', 'base', evmAddress.toLowerCase(), 'completed', null],
    );
    assert.match(first.json['tx_hash'], simHash);
    assert.equal(await usdcOf(erin), '900.000000');

    // Refusals change nothing.
    for (const [body, status, code] of [
      [{ ...hundred, chain: 'bitcoin' }, 422, 'UNKNOWN_CHAIN'],
      [{ ...hundred, address: '0x1234' }, 422, 'INVALID_ADDRESS'],
      [{ ...hundred, chain: 'solana', address: evmAddress }, 422, 'INVALID_ADDRESS'],
      [{ ...hundred, asset: 'SOL', chain: 'ethereum' }, 422, 'ASSET_NOT_ON_CHAIN'],
      [{ ...hundred, amount: '5000' }, 422, 'INSUFFICIENT_BALANCE'],
      [{ ...hundred, amount: '0.0000001' }, 422, 'TOO_MANY_DECIMALS'],
      [{ ...hundred, amount: '-1' }, 422, 'NEGATIVE_VALUE'],
      [{ ...hundred, mode: 'paper' }, 422, 'VALIDATION_FAILED'],
      [{ ...hundred, client_withdrawal_id: 'has space' }, 422, 'VALIDATION_FAILED'],
      [{ ...hundred, asset: 'XYZ' }, 422, 'UNKNOWN_ASSET'],
    ] as const) {
      const refused = await withdraw(erin.bearer, body);
      assert.deepEqual([refused.status, refused.json['error'].code], [status, code], JSON.stringify(body));
    }
    assert.equal(await usdcOf(erin), '900.000000');

    // Retries with the same client_withdrawal_id get the first withdrawal back, even when they race it.
    const once = { ...hundred, amount: '50', chain: 'solana', address: solanaAddress, client_withdrawal_id: 'w-0001' };
    const raced = await Promise.all([withdraw(erin.bearer, once), withdraw(erin.bearer, once)]);
    const statuses = raced.map((answer) => answer.status).sort();
    assert.ok(JSON.stringify(statuses) === '[201,409]' || JSON.stringify(statuses) === '[200,201]', `racing retries: ${statuses}`);
    const created = raced.find((answer) => answer.status === 201)!;
    const retried = await withdraw(erin.bearer, once);
    assert.equal(retried.status, 200);
    assert.equal(retried.json['duplicate'], true);
    assert.deepEqual([retried.json['withdrawal_id'], retried.json['tx_hash']], [created.json['withdrawal_id'], created.json['tx_hash']]);
    assert.equal(await usdcOf(erin), '850.000000', 'one withdrawal for three requests');
    const reused = await withdraw(erin.bearer, { ...once, amount: '51' });
    assert.deepEqual([reused.status, reused.json['error'].code], [409, 'REFERENCE_REUSED']);

    // The pair route withdraws the base token unless asset names the quote.
    const eth = await call(server, 'POST', '/api/v1/exchange/eth/withdraw', { amount: '0.5', chain: 'arbitrum', address: otherEvmAddress }, erin.bearer);
    assert.deepEqual([eth.status, eth.json['asset'], eth.json['amount']], [201, 'ETH', '0.50000000']);
    const notOfPair = await call(server, 'POST', '/api/v1/exchange/eth/withdraw', { asset: 'BTC', amount: '1', chain: 'arbitrum', address: otherEvmAddress }, erin.bearer);
    assert.equal(notOfPair.status, 422);

    // The whitelist: an address cools for 24 hours; meanwhile nothing may go anywhere else, nor to it.
    const whitelist = (method: string, body?: unknown) => call(server, method, '/api/v1/account/withdrawal-addresses', body, erin.bearer);
    assert.equal((await call(server, 'GET', '/api/v1/account/withdrawal-addresses', undefined, erin.key)).status, 401, 'a session only');
    const added = await whitelist('POST', { address: evmAddress, chain: 'ethereum', label: 'cold wallet' });
    assert.equal(added.status, 201);
    assert.deepEqual(added.json, {
      address: evmAddress.toLowerCase(),
      chain: 'ethereum',
      label: 'cold wallet',
      status: 'cooling',
      created_at: '2026-11-22T09:00:00.000Z',
      usable_at: '2026-11-23T09:00:00.000Z',
    });
    assert.equal((await whitelist('POST', { address: evmAddress.toLowerCase(), chain: 'ethereum' })).status, 409);
    assert.equal((await whitelist('POST', { address: 'nope', chain: 'ethereum' })).status, 422);
    const elsewhere = await withdraw(erin.bearer, { ...hundred, chain: 'ethereum', address: otherEvmAddress });
    assert.deepEqual([elsewhere.status, elsewhere.json['error'].code], [403, 'ADDRESS_NOT_WHITELISTED']);
    const cooling = await withdraw(erin.bearer, { ...hundred, chain: 'ethereum' });
    assert.deepEqual([cooling.status, cooling.json['error'].code], [403, 'ADDRESS_COOLING']);
    now += 24 * 3_600_000;
    // A day later the session token has expired: log in again.
    const login = await call(server, 'POST', '/auth/login', { email: 'erin_funding@example.com', password: 'correct horse' });
    erin.bearer = { authorization: `Bearer ${login.json['access_token']}` };
    const listedWhitelist = await whitelist('GET');
    assert.equal(listedWhitelist.json['addresses']?.[0]?.['status'], 'usable', JSON.stringify(listedWhitelist.json));
    const cooled = await withdraw(erin.bearer, { ...hundred, chain: 'ethereum' });
    assert.equal(cooled.status, 201);
    assert.equal(await usdcOf(erin), '750.000000');
    assert.deepEqual((await whitelist('DELETE', { address: evmAddress, chain: 'ethereum' })).json, { address: evmAddress.toLowerCase(), chain: 'ethereum', removed: true });
    assert.equal((await whitelist('DELETE', { address: evmAddress, chain: 'ethereum' })).status, 404);
    assert.deepEqual((await whitelist('GET')).json['addresses'], []);

    // An agent's key may withdraw only to its own account's cooled whitelist, which it has none of.
    const agent = await call(server, 'POST', '/mcp/v1/register', { name: 'Payout agent', contact_email: 'ops@agent.example', intended_use: 'payouts' });
    const agentKey = { 'x-api-key': agent.json['api_key'] };
    const agentUser = (await call(server, 'GET', '/api/v1/account/me/balances', undefined, agentKey)).json['user_id'];
    assert.equal((await credit(agentUser, 'USDC', '10')).status, 200);
    const byAgent = await withdraw(agentKey, { ...hundred, amount: '1' });
    assert.deepEqual([byAgent.status, byAgent.json['error'].code], [403, 'DESTINATION_NOT_VERIFIED']);

    // After a restart the withdrawals are listed from the journal and a retry still finds its original.
    await server.close();
    server = await startServer(config, silentLog, () => now);
    const listed = await call(server, 'GET', '/api/v1/funding/withdrawals', undefined, erin.key);
    assert.deepEqual(
      listed.json['withdrawals'].map((row: Record<string, string>) => [row['asset'], row['amount'], row['chain']]),
      [
        ['USDC', '100.000000', 'ethereum'],
        ['ETH', '0.50000000', 'arbitrum'],
        ['USDC', '50.000000', 'solana'],
        ['USDC', '100.000000', 'base'],
      ],
    );
    const page = await call(server, 'GET', '/api/v1/funding/withdrawals?limit=3', undefined, erin.key);
    assert.equal(page.json['withdrawals'].length, 3);
    const rest = await call(server, 'GET', `/api/v1/funding/withdrawals?limit=3&before=${page.json['next_before']}`, undefined, erin.key);
    assert.deepEqual([rest.json['withdrawals'].length, rest.json['next_before']], [1, null]);
    const afterRestart = await withdraw(erin.bearer, once);
    assert.deepEqual([afterRestart.status, afterRestart.json['withdrawal_id']], [200, created.json['withdrawal_id']]);
    assert.equal(await usdcOf(erin), '750.000000');
    assert.deepEqual((await call(server, 'GET', '/api/v1/funding/withdrawals', undefined, frank.key)).json['withdrawals'], []);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
