/**
 * Rewards, bounty reports, the passive-income estimate and the promo status on a real server: a report
 * filed, verified (owed), paid through the engine (the reporter's USDC balance grows, owed falls to zero,
 * the record has amount, reference and time), a duplicate never owed nor paid; the promo's bug bounty
 * turns active at that payment's time while the revenue share stays inactive; the revenue-share route by
 * token address (404 for an unknown one); the estimate's answer, solve modes, 422s naming each limit and
 * its per-address rate headers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';

test('bounty reports, payments, promo activity, revenue-share rewards and the estimate over HTTP', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewards-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '1000', ADMIN_API_KEY: 'admin-key', REWARDS_ACCRUAL_MS: '60000' });
  const server = await startServer(config, silentLog);
  const admin = { 'x-api-key': 'admin-key' };
  try {
    const promo = await call(server, 'GET', '/api/v1/promo/status');
    assert.equal(promo.status, 200);
    assert.deepEqual([promo.json['taker_fee_bps'], promo.json['maker_fee_bps'], promo.json['maker_rebates']], [10, 0, 'paused']);
    assert.deepEqual(promo.json['mechanisms'].map((row: { name: string; active: boolean; first_paid_at: string | null }) => [row.name, row.active, row.first_paid_at]), [['revenue_share', false, null], ['bug_bounty', false, null], ['arena_bonus', false, null], ['streak_rewards', false, null], ['duels', false, null], ['tournaments', false, null], ['staking', false, null], ['airdrops', false, null]]);

    const registered = await call(server, 'POST', '/auth/register', { email: 'bugs@example.com', password: 'correct horse', username: 'bugs' });
    const key = { 'x-api-key': (await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` })).json['api_key'] };
    const report = { title: 'Order book overflow', description: 'A crafted amend makes the level list grow without bound.', severity: 'high', url: 'https://example.com/poc' };
    const filed = await call(server, 'POST', '/api/v1/bounty/reports', report, key);
    assert.equal(filed.status, 201);
    assert.deepEqual([filed.json['verified'], filed.json['duplicate'], filed.json['paid'], filed.json['amount']], [false, false, false, null]);
    assert.equal((await call(server, 'POST', '/api/v1/bounty/reports', { ...report, severity: 'huge' }, key)).status, 422);
    const second = await call(server, 'POST', '/api/v1/bounty/reports', { ...report, title: 'Same overflow again' }, key);

    const id = filed.json['report_id'];
    assert.equal((await call(server, 'POST', `/admin/v1/bounty/reports/${id}/payment`, { amount: '25', reference: 'early' }, admin)).status, 409, 'not verified yet');
    assert.equal((await call(server, 'POST', `/admin/v1/bounty/reports/${id}/verify`, { amount: '25' }, admin)).status, 200);
    await call(server, 'POST', `/admin/v1/bounty/reports/${second.json['report_id']}/verify`, { amount: '10' }, admin);
    await call(server, 'POST', `/admin/v1/bounty/reports/${second.json['report_id']}/duplicate`, {}, admin);
    let mine = await call(server, 'GET', '/api/v1/rewards/me/bugs', undefined, key);
    assert.deepEqual(mine.json['totals'], { asset: 'USDC', verified_count: 1, verified: '25.000000', paid_count: 0, paid: '0.000000', owed_count: 1, owed: '25.000000' });

    const paid = await call(server, 'POST', `/admin/v1/bounty/reports/${id}/payment`, { amount: '25', reference: 'tx-0001' }, admin);
    assert.equal(paid.status, 200);
    assert.deepEqual([paid.json['paid'], paid.json['paid_amount'], paid.json['payment_reference']], [true, '25.000000', 'tx-0001']);
    assert.match(paid.json['paid_at'], /^\d{4}-\d{2}-\d{2}T/);
    assert.equal((await call(server, 'POST', `/admin/v1/bounty/reports/${id}/payment`, { amount: '25', reference: 'again' }, admin)).status, 409);
    assert.equal((await call(server, 'POST', `/admin/v1/bounty/reports/${second.json['report_id']}/payment`, { amount: '10', reference: 'dup' }, admin)).status, 409);
    mine = await call(server, 'GET', '/api/v1/rewards/me/bugs', undefined, key);
    assert.deepEqual(mine.json['totals'], { asset: 'USDC', verified_count: 1, verified: '25.000000', paid_count: 1, paid: '25.000000', owed_count: 0, owed: '0.000000' });
    assert.equal(mine.json['reports'].length, 2);
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, key);
    assert.match(JSON.stringify(balances.json), /"USDC"/);
    assert.match(JSON.stringify(balances.json), /25(\.0+)?"/);

    const active = await call(server, 'GET', '/api/v1/promo/status');
    const bounty = active.json['mechanisms'].find((row: { name: string }) => row.name === 'bug_bounty');
    assert.deepEqual([bounty.active, bounty.first_paid_at], [true, paid.json['paid_at']]);
    assert.equal(active.json['mechanisms'].find((row: { name: string }) => row.name === 'revenue_share').active, false, 'no fees, nothing accrued');

    const rst = await call(server, 'GET', '/api/v1/rst/PLATtoken1111111111111111111111111111111111/rewards', undefined, key);
    assert.equal(rst.status, 200);
    assert.deepEqual([rst.json['token'], rst.json['pending_rewards'], rst.json['reward_asset'], rst.json['share_bps'], rst.json['accrual_interval_seconds']], ['PLAT', '0.000000', 'USDC', 2000, 60]);
    assert.equal((await call(server, 'GET', '/api/v1/rst/NOPEtoken/rewards', undefined, key)).status, 404);

    const estimate = await call(server, 'GET', '/api/v1/passive-income/estimate?daily_volume_usd=10000000&plat_holdings=10000000');
    assert.equal(estimate.status, 200);
    assert.deepEqual(estimate.json['estimate'], { daily_usd: '10.00', monthly_usd: '300.00', yearly_usd: '3650.00' });
    assert.equal(estimate.headers.get('x-ratelimit-limit'), '60');
    const holdings = await call(server, 'GET', '/api/v1/passive-income/estimate?daily_volume_usd=10000000&solve=holdings&target_monthly_usd=300');
    assert.deepEqual(holdings.json['solution']['holdings_alone'][0], { parameter: 'plat_holdings', symbol: 'PLAT', holdings: '10000000.00000000', reachable: true });
    const volume = await call(server, 'GET', '/api/v1/passive-income/estimate?plat_holdings=10000000&solve=volume&target_monthly_usd=300');
    assert.deepEqual(volume.json['solution'], { target_monthly_usd: '300.00', daily_volume_usd: '10000000.00', reachable: true });
    const limits: Array<[string, RegExp]> = [
      ['daily_volume_usd=1000000001', /query\.daily_volume_usd: must be 0 to 1000000000/],
      ['daily_volume_usd=1&plat_holdings=1000000001', /query\.plat_holdings: must be 0 to 1000000000/],
      ['daily_volume_usd=1&solve=holdings', /query\.target_monthly_usd: required/],
      ['daily_volume_usd=1&solve=volume&target_monthly_usd=0', /query\.target_monthly_usd: must be more than 0/],
      ['solve=volume&target_monthly_usd=1000000001', /query\.target_monthly_usd: must be 0 to 1000000000/],
      ['daily_volume_usd=-1', /query\.daily_volume_usd: must be a decimal/],
    ];
    for (const [query, message] of limits) {
      const refused = await call(server, 'GET', `/api/v1/passive-income/estimate?${query}`);
      assert.equal(refused.status, 422, query);
      assert.match(refused.json['error']['message'], message);
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
