/**
 * Revenue-share payouts on a real server with a clock the test moves: a taker fee collected, accrued at
 * the accrual timer to the only PLAT holder as pending, then paid at the payout timer (pending goes to
 * paid, the holder's USDC balance grows by it), and the promo's revenue share turning active at that
 * payout's journaled time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call, type JsonResponse } from '../http/test-client.ts';

const at = (time: string): number => Date.parse(`2026-01-01T${time}Z`);

async function user(server: RunningServer, name: string, credits: Array<[string, string]>): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of credits) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' })).status, 200);
  }
  return { 'x-api-key': key.json['api_key'] as string };
}

/** Asks until `ready` holds (the timer runner and the views work in the background). */
async function waitFor(what: string, ask: () => Promise<JsonResponse>, ready: (answer: JsonResponse) => boolean): Promise<JsonResponse> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await ask();
    if (ready(answer)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('revenue-share rewards accrue as pending and a payout moves them to paid, making the promo mechanism active', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'payouts-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', ADMIN_API_KEY: 'admin', REWARDS_ACCRUAL_MS: '60000', REWARDS_PAYOUT_MS: '120000' });
  let now = at('10:00:05');
  const server = await startServer(config, silentLog, () => now);
  try {
    const holder = await user(server, 'holder', [['PLAT', '100']]);
    const maker = await user(server, 'maker', [['ETH', '10']]);
    const taker = await user(server, 'taker', [['USDC', '10000']]);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '1', price: '3000' }, maker)).status, 201);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '1', price: '3000' }, taker)).status, 201);

    const rewards = (): Promise<JsonResponse> => call(server, 'GET', '/api/v1/rst/PLATtoken1111111111111111111111111111111111/rewards', undefined, holder);
    const first = await rewards();
    assert.deepEqual(
      [first.json['holdings'], first.json['pending_rewards'], first.json['paid_rewards'], first.json['payout_interval_seconds'], first.json['next_accrual_at'], first.json['next_payout_at'], first.json['last_payout_at']],
      ['100.000000', '0.000000', '0.000000', 120, '2026-01-01T10:01:00.000Z', '2026-01-01T10:02:00.000Z', null],
    );
    const revenueShare = async (): Promise<[boolean, string | null]> => {
      const row = (await call(server, 'GET', '/api/v1/promo/status')).json['mechanisms'].find((mechanism: { name: string }) => mechanism.name === 'revenue_share');
      return [row.active, row.first_paid_at];
    };

    // The accrual: 20 % of the 3 USDC taker fee, half of it for PLAT, all to its only holder.
    now = at('10:01:00');
    const accrued = await waitFor('the accrual', rewards, (answer) => answer.json['pending_rewards'] !== '0.000000');
    assert.deepEqual([accrued.json['pending_rewards'], accrued.json['paid_rewards'], accrued.json['last_accrual_at']], ['0.300000', '0.000000', '2026-01-01T10:01:00.000Z']);
    assert.deepEqual(await revenueShare(), [false, null], 'accrued is not paid');

    // The payout: pending goes to paid, and the USDC reaches the holder's account. The accrual due at the
    // same time runs first: no one holds PRED, so its half (0.3) was carried, and half of it now goes to
    // PLAT (0.15), the rest carried again.
    now = at('10:02:00');
    const paid = await waitFor('the payout', rewards, (answer) => answer.json['paid_rewards'] !== '0.000000');
    assert.deepEqual([paid.json['pending_rewards'], paid.json['paid_rewards'], paid.json['last_payout_at'], paid.json['next_payout_at']], ['0.000000', '0.450000', '2026-01-01T10:02:00.000Z', '2026-01-01T10:04:00.000Z']);
    const balances = await call(server, 'GET', '/api/v1/account/me/balances', undefined, holder);
    assert.match(JSON.stringify(balances.json), /"USDC"[^}]*"0\.45(0*)"/);
    const active = await waitFor('the promo', () => call(server, 'GET', '/api/v1/promo/status'), (answer) => answer.json['mechanisms'][0]['active'] === true);
    assert.deepEqual([active.json['mechanisms'][0]['name'], active.json['mechanisms'][0]['first_paid_at']], ['revenue_share', '2026-01-01T10:02:00.000Z']);
    assert.deepEqual(await revenueShare(), [true, '2026-01-01T10:02:00.000Z']);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
