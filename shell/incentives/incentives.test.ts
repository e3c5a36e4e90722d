/**
 * The incentives over HTTP and /ws/incentives on a real server: the catalogue journaled at start with its
 * funded accounts, bot registration (wallet formats, a taken wallet), a bot's tier moved by real trading
 * and the discount in its next fill, the stream's snapshot, tier_change and earnings_update in sequence,
 * staking (wallet ownership, lockups), a claim, leaderboards with their bounds and order, airdrops claimed
 * once, boosts activated idempotently; the journal replays to the live state hash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { walletFormat } from './routes.ts';

type Message = Record<string, any>;
const admin = { 'x-api-key': 'incentives-admin' };

async function user(server: RunningServer, name: string): Promise<{ userId: number; key: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  const userId = registered.json['user_id'];
  for (const [asset, amount] of [['USDC', '10000000'], ['ETH', '1000'], ['PLAT', '100000']]) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset, amount }, admin)).status, 200);
  }
  return { userId, key: { 'x-api-key': key.json['api_key'] } };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('wallet formats: EVM hex and Solana base58 of 32 bytes', () => {
  assert.equal(walletFormat(`0x${'aB'.repeat(20)}`), 'evm');
  assert.equal(walletFormat(`0x${'a'.repeat(39)}`), null);
  assert.equal(walletFormat('11111111111111111111111111111111'), 'solana');
  assert.equal(walletFormat('0OIl1111111111111111111111111111'), null);
  assert.equal(walletFormat('1111'), null);
});

test('incentives routes and /ws/incentives on a running server', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'incentives-'));
  const server = await startServer(
    loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_HISTORY_DAYS: '3', ADMIN_API_KEY: admin['x-api-key'] }),
    silentLog,
  );
  let socket: WebSocket | null = null;
  try {
    const bob = await user(server, 'bob');
    const carol = await user(server, 'carol');

    // Pools are public and come from the fixture.
    const pools = await call(server, 'GET', '/api/v2/incentives/staking/pools');
    assert.equal(pools.status, 200);
    assert.deepEqual(pools.json['pools'].map((pool: Message) => pool.pool_id), [1, 2, 3]);
    assert.equal(pools.json['pools'][0].apy, '12.00');
    assert.equal(pools.json['pools'][0].total_staked, '0.000000');

    // Bots: formats checked, a taken wallet is 409, auth required.
    const wallet = `0x${'b0'.repeat(20)}`;
    assert.equal((await call(server, 'POST', '/api/v2/incentives/bots/register', { name: 'b', wallet_address: wallet, strategy_type: 'mm' })).status, 401);
    const badWallet = await call(server, 'POST', '/api/v2/incentives/bots/register', { name: 'b', wallet_address: '0x12', strategy_type: 'mm' }, bob.key);
    assert.equal(badWallet.status, 422);
    assert.equal(badWallet.json['error'].code, 'INVALID_WALLET');
    const registered = await call(server, 'POST', '/api/v2/incentives/bots/register', { name: 'Bob bot', wallet_address: wallet, strategy_type: 'market_making', description: 'quotes ETH' }, bob.key);
    assert.equal(registered.status, 201);
    const botId = registered.json['bot_id'];
    const taken = await call(server, 'POST', '/api/v2/incentives/bots/register', { name: 'c', wallet_address: wallet.toUpperCase().replace('0X', '0x'), strategy_type: 'mm' }, carol.key);
    assert.equal(taken.status, 409);
    assert.equal(taken.json['error'].code, 'BOT_WALLET_TAKEN');

    socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws/incentives/${wallet}`);
    const messages: Message[] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as Message));
    await until('the snapshot', () => messages.some((message) => message['type'] === 'snapshot'));
    const snapshot = messages.find((message) => message['type'] === 'snapshot')!;
    assert.equal(snapshot['bots'][0].tier, 'bronze');

    const tier = await call(server, 'GET', `/api/v2/incentives/bots/${botId}/tier`, undefined, bob.key);
    assert.equal(tier.status, 200);
    assert.equal(tier.json['current_tier'], 'bronze');
    assert.equal(tier.json['next_tier'], 'silver');
    assert.equal(tier.json['volume_required'], '10000.000000');
    assert.equal((await call(server, 'GET', '/api/v2/incentives/bots/999/tier', undefined, bob.key)).status, 404);

    // Real trading: bob buys 4 ETH at 3000 from carol (12 000 USDC): silver.
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '4', price: '3000' }, carol.key)).status, 201);
    const buy = await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '4', price: '3000' }, bob.key);
    assert.equal(buy.status, 201);
    await until('silver', async () => (await call(server, 'GET', `/api/v2/incentives/bots/${botId}/tier`, undefined, bob.key)).json['current_tier'] === 'silver');
    const silver = await call(server, 'GET', `/api/v2/incentives/bots/${botId}/tier`, undefined, bob.key);
    assert.equal(silver.json['current_volume'], '12000.000000');
    assert.deepEqual(silver.json['fee_discount'], { bps: 2, taker_fee_bps: 8 });
    await until('tier_change', () => messages.some((message) => message['type'] === 'tier_change'));
    const change = messages.find((message) => message['type'] === 'tier_change')!;
    assert.deepEqual({ bot_id: change['bot_id'], old_tier: change['old_tier'], new_tier: change['new_tier'], new_benefits: change['new_benefits'] }, {
      bot_id: botId,
      old_tier: 'bronze',
      new_tier: 'silver',
      new_benefits: { fee_discount: 2, reward_multiplier: 1.1 },
    });
    assert.equal(change['seq'], snapshot['seq'] + 1);

    // Staking: the wallet must be the caller's; a locked stake cannot be unstaked.
    const notOwned = await call(server, 'POST', '/api/v2/incentives/staking/stake', { pool_id: 1, wallet, amount: '100' }, carol.key);
    assert.equal(notOwned.status, 403);
    const staked = await call(server, 'POST', '/api/v2/incentives/staking/stake', { pool_id: 1, wallet, amount: '50000' }, bob.key);
    assert.equal(staked.status, 201);
    assert.equal(staked.json['staked'], '50000.000000');
    const locked = await call(server, 'POST', '/api/v2/incentives/staking/stake', { pool_id: 2, wallet, amount: '100', lockup_days: 30 }, bob.key);
    assert.equal(locked.status, 201);
    const early = await call(server, 'POST', '/api/v2/incentives/staking/unstake', { pool_id: 2, amount: '100' }, bob.key);
    assert.equal(early.status, 409);
    assert.equal(early.json['error'].code, 'STAKE_LOCKED');
    assert.equal((await call(server, 'POST', '/api/v2/incentives/staking/stake', { pool_id: 2, wallet, amount: '100', lockup_days: 5 }, bob.key)).status, 422);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const claim = await call(server, 'POST', '/api/v2/incentives/staking/rewards/claim', { pool_id: 1 }, bob.key);
    assert.equal(claim.status, 200);
    assert.equal(claim.json['claims'].length, 1);
    await until('earnings_update', () => messages.some((message) => message['type'] === 'earnings_update'));
    const earning = messages.find((message) => message['type'] === 'earnings_update')!;
    assert.equal(earning['bot_id'], botId);
    assert.equal(earning['new_earnings'], claim.json['claims'][0].amount);
    assert.equal(earning['seq'], change['seq'] + 1);
    const summary = await call(server, 'GET', `/api/v2/incentives/staking/user/${wallet}/summary`, undefined, bob.key);
    assert.equal(summary.status, 200);
    assert.deepEqual(summary.json['positions'].map((position: Message) => position.pool_id), [1, 2]);
    assert.equal(summary.json['positions'][0].claimed_rewards, claim.json['claims'][0].amount);
    assert.equal((await call(server, 'GET', `/api/v2/incentives/staking/user/${wallet}/summary`, undefined, carol.key)).status, 403);

    // Leaderboards: bounds and order.
    for (const limit of ['9', '101', 'x']) assert.equal((await call(server, 'GET', `/api/v2/incentives/leaderboards?limit=${limit}`)).status, 422, limit);
    const board = await call(server, 'GET', '/api/v2/incentives/leaderboards?period=daily&metric=volume&limit=10');
    assert.equal(board.status, 200);
    assert.deepEqual(board.json['entries'].map((entry: Message) => entry.user_id), [bob.userId, carol.userId].sort((a, b) => a - b));
    assert.equal(board.json['entries'][0].value, '12000.000000');
    const earnings = await call(server, 'GET', '/api/v2/incentives/leaderboards?period=all_time&metric=earnings&limit=10');
    assert.deepEqual(earnings.json['entries'].map((entry: Message) => entry.user_id), [bob.userId]);

    // Airdrops: 1 needs 1000 USDC of volume (both traded 12 000); claim once; the second needs 100 000.
    const airdrops = await call(server, 'GET', '/api/v2/incentives/airdrops', undefined, carol.key);
    assert.equal(airdrops.status, 200);
    assert.equal(airdrops.json['airdrops'][0].eligible, true);
    assert.equal(airdrops.json['airdrops'][1].eligible, false);
    assert.equal((await call(server, 'POST', '/api/v2/incentives/airdrops/1/claim', undefined, carol.key)).status, 200);
    assert.equal((await call(server, 'POST', '/api/v2/incentives/airdrops/1/claim', undefined, carol.key)).status, 409);
    assert.equal((await call(server, 'POST', '/api/v2/incentives/airdrops/2/claim', undefined, carol.key)).status, 403);
    assert.equal((await call(server, 'POST', '/api/v2/incentives/airdrops/9/claim', undefined, carol.key)).status, 404);

    // Boosts: public list; activation needs an Idempotency-Key, repeats answer the first.
    const boosts = await call(server, 'GET', '/api/v2/games/boosts/available');
    assert.equal(boosts.json['boosts'].length, 3);
    assert.equal((await call(server, 'POST', '/api/v2/games/boosts/1/activate', undefined, bob.key)).status, 422);
    const first = await call(server, 'POST', '/api/v2/games/boosts/1/activate', undefined, { ...bob.key, 'idempotency-key': 'boost-a' });
    assert.equal(first.status, 200);
    assert.equal(first.json['replayed'], false);
    const again = await call(server, 'POST', '/api/v2/games/boosts/1/activate', undefined, { ...bob.key, 'idempotency-key': 'boost-a' });
    assert.equal(again.status, 200);
    assert.equal(again.json['replayed'], true);
    assert.equal(again.json['expires_at'], first.json['expires_at']);
    assert.equal((await call(server, 'POST', '/api/v2/games/boosts/1/activate', undefined, { ...bob.key, 'idempotency-key': 'boost-b' })).status, 409);
    assert.equal((await call(server, 'POST', '/api/v2/games/boosts/3/activate', undefined, { ...carol.key, 'idempotency-key': 'boost-c' })).status, 403);
  } finally {
    socket?.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
