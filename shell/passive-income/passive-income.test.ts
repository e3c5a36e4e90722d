/**
 * The passive-income estimate on a real server: its three holdings parameters (plat_holdings,
 * staked_plat_holdings, pred_holdings) in the answer and in the formula, each bounded by its token's total
 * supply and PLAT's two together by PLAT's, 422s naming the limit, and every solve mode.
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

test('the estimate over HTTP: three holdings parameters, their bounds and the solve modes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'passive-income-'));
  const server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '' }), silentLog);
  const ask = (query: string) => call(server, 'GET', `/api/v1/passive-income/estimate?${query}`);
  try {
    const plain = await ask('daily_volume_usd=10000000&staked_plat_holdings=10000000');
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.json['holdings'], { plat_holdings: '0', staked_plat_holdings: '10000000', pred_holdings: '0' });
    assert.deepEqual(
      plain.json['assumptions']['parameters'].map((row: { name: string; token: string; max: string }) => [row.name, row.token, row.max]),
      [['plat_holdings', 'PLAT', '1000000000'], ['staked_plat_holdings', 'PLAT', '1000000000'], ['pred_holdings', 'PRED', '1000000000']],
    );
    assert.match(plain.json['assumptions']['formula'], /\(plat_holdings \+ staked_plat_holdings\) \/ total_supply_PLAT \+ pred_holdings \/ total_supply_PRED\) \/ 2/);
    // 10 M a day × 10 bps × 20 % = 2 000 USD to holders; 1 % of PLAT (staked) and none of PRED: 10 USD.
    assert.deepEqual(plain.json['estimate'], { daily_usd: '10.00', monthly_usd: '300.00', yearly_usd: '3650.00' });
    assert.deepEqual((await ask('daily_volume_usd=10000000&plat_holdings=6000000&staked_plat_holdings=4000000')).json['estimate']['daily_usd'], '10.00');
    assert.deepEqual((await ask('daily_volume_usd=10000000&plat_holdings=5000000&staked_plat_holdings=5000000&pred_holdings=10000000')).json['estimate']['daily_usd'], '20.00');
    // Each parameter up to its token's supply; PLAT held and staked up to PLAT's together.
    assert.deepEqual((await ask('daily_volume_usd=10000000&plat_holdings=500000000&staked_plat_holdings=500000000&pred_holdings=1000000000')).json['estimate']['daily_usd'], '2000.00');

    const limits: Array<[string, RegExp]> = [
      ['daily_volume_usd=1&plat_holdings=1000000001', /query\.plat_holdings: must be 0 to 1000000000 \(the limit\)/],
      ['daily_volume_usd=1&staked_plat_holdings=1000000000.00000001', /query\.staked_plat_holdings: must be 0 to 1000000000 \(the limit\)/],
      ['daily_volume_usd=1&pred_holdings=2000000000', /query\.pred_holdings: must be 0 to 1000000000 \(the limit\)/],
      ['daily_volume_usd=1&plat_holdings=600000000&staked_plat_holdings=400000001', /query\.staked_plat_holdings: plat_holdings \+ staked_plat_holdings must be at most PLAT's total supply 1000000000 \(the limit\)/],
      ['daily_volume_usd=1&plat_holdings=500000000.00000001&staked_plat_holdings=500000000', /query\.staked_plat_holdings: plat_holdings \+ staked_plat_holdings must be at most/],
      ['daily_volume_usd=1&staked_plat_holdings=-1', /query\.staked_plat_holdings: must be a decimal/],
      ['daily_volume_usd=1&solve=volume', /query\.target_monthly_usd: required/],
    ];
    for (const [query, message] of limits) {
      const refused = await ask(query);
      assert.equal(refused.status, 422, query);
      assert.match(refused.json['error']['message'], message, query);
    }

    const holdings = await ask('daily_volume_usd=10000000&solve=holdings&target_monthly_usd=300');
    assert.equal(holdings.json['solve'], 'holdings');
    assert.deepEqual(holdings.json['solution'], {
      target_monthly_usd: '300.00',
      holdings_alone: [
        { parameter: 'plat_holdings', symbol: 'PLAT', holdings: '10000000.00000000', reachable: true },
        { parameter: 'staked_plat_holdings', symbol: 'PLAT', holdings: '10000000.00000000', reachable: true },
        { parameter: 'pred_holdings', symbol: 'PRED', holdings: '10000000.00000000', reachable: true },
      ],
    });
    const beyond = await ask('daily_volume_usd=1000&solve=holdings&target_monthly_usd=1000');
    assert.deepEqual(beyond.json['solution']['holdings_alone'].map((row: { reachable: boolean }) => row.reachable), [false, false, false], 'more than each supply');
    const noVolume = await ask('daily_volume_usd=0&solve=holdings&target_monthly_usd=1');
    assert.deepEqual(noVolume.json['solution']['holdings_alone'][1], { parameter: 'staked_plat_holdings', symbol: 'PLAT', holdings: null, reachable: false });

    const volume = await ask('staked_plat_holdings=4000000&plat_holdings=6000000&solve=volume&target_monthly_usd=300');
    assert.deepEqual([volume.json['daily_volume_usd'], volume.json['estimate'], volume.json['solution']], [null, null, { target_monthly_usd: '300.00', daily_volume_usd: '10000000.00', reachable: true }]);
    assert.deepEqual((await ask('pred_holdings=1&solve=volume&target_monthly_usd=1000000')).json['solution']['reachable'], false);
    assert.deepEqual((await ask('solve=volume&target_monthly_usd=5')).json['solution'], { target_monthly_usd: '5.00', daily_volume_usd: null, reachable: false });
    const estimated = await ask('solve=estimate&daily_volume_usd=1000000000&pred_holdings=1000000000');
    assert.deepEqual([estimated.json['solution'], estimated.json['estimate']['daily_usd']], [null, '100000.00']);
    assert.equal(estimated.headers.get('x-ratelimit-limit'), '60');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
