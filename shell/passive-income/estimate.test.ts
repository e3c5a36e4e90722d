/**
 * The passive-income formulas over the three holdings parameters: the estimate (staked PLAT counts as PLAT,
 * as the revenue share counts it), both solve modes inverting it per parameter, and unreachable cases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimate, holdingsFor, tokenHoldings, volumeFor, type EstimateInput } from './estimate.ts';

const supply = 1_000_000_000;
const input = (volume: number, plat: number, pred: number, stakedPlat = 0): EstimateInput => ({
  dailyVolumeUsd: volume,
  takerFeeBps: 10,
  shareBps: 2_000,
  parameters: [
    { name: 'plat_holdings', symbol: 'PLAT', totalSupply: supply, holdings: plat },
    { name: 'staked_plat_holdings', symbol: 'PLAT', totalSupply: supply, holdings: stakedPlat },
    { name: 'pred_holdings', symbol: 'PRED', totalSupply: supply, holdings: pred },
  ],
});
const close = (actual: number | null, expected: number): void => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-6, `${actual} is not ${expected}`);

test('the estimate: volume × fee × share × mean over the two tokens of holding / supply', () => {
  // 10 M volume × 0.001 × 0.2 = 2 000 USD a day to holders; 1 % of PLAT and none of PRED is half of 1 %.
  const result = estimate(input(10_000_000, 10_000_000, 0));
  close(result.daily, 10);
  close(result.monthly, 300);
  close(result.yearly, 3650);
  // Staked PLAT earns as held PLAT does: 0.6 % held and 0.4 % staked is the same 1 %.
  close(estimate(input(10_000_000, 6_000_000, 0, 4_000_000)).daily, 10);
  close(estimate(input(10_000_000, 0, 0, 10_000_000)).daily, 10);
  // PRED counts on its own supply: 1 % of both tokens is 1 % of the whole share.
  close(estimate(input(10_000_000, 5_000_000, 10_000_000, 5_000_000)).daily, 20);
  // The whole of both supplies takes the whole share.
  close(estimate(input(10_000_000, supply / 2, supply, supply / 2)).daily, 2_000);
  assert.deepEqual(tokenHoldings(input(1, 3, 5, 4).parameters), [
    { symbol: 'PLAT', totalSupply: supply, holdings: 7 },
    { symbol: 'PRED', totalSupply: supply, holdings: 5 },
  ]);
});

test('solving for holdings gives each parameter alone; solving for volume inverts the estimate', () => {
  const [plat, staked, pred] = holdingsFor(input(10_000_000, 0, 0), 300);
  assert.deepEqual([plat!.parameter, staked!.parameter, pred!.parameter], ['plat_holdings', 'staked_plat_holdings', 'pred_holdings']);
  close(plat!.holdings, 10_000_000);
  close(staked!.holdings, 10_000_000);
  close(pred!.holdings, 10_000_000);
  assert.ok(plat!.reachable && staked!.reachable && pred!.reachable);
  // Each alone reproduces the target through the estimate.
  close(estimate(input(10_000_000, 0, 0, staked!.holdings!)).monthly, 300);
  close(estimate(input(10_000_000, 0, pred!.holdings!)).monthly, 300);
  assert.equal(holdingsFor(input(10, 0, 0), 1_000_000)[1]!.reachable, false, 'more than the supply');
  assert.deepEqual(holdingsFor(input(0, 0, 0), 300)[2], { parameter: 'pred_holdings', symbol: 'PRED', holdings: null, reachable: false });

  const volume = volumeFor(input(0, 4_000_000, 0, 6_000_000), 300);
  close(volume.dailyVolumeUsd, 10_000_000);
  assert.equal(volume.reachable, true);
  close(estimate(input(volume.dailyVolumeUsd!, 4_000_000, 0, 6_000_000)).monthly, 300);
  // 2 % of PRED is a mean of 1 %: twice what 1 % of PLAT needs, so half the volume.
  close(volumeFor(input(0, 0, 20_000_000), 300).dailyVolumeUsd, 5_000_000);
  assert.deepEqual(volumeFor(input(0, 0, 0), 300), { dailyVolumeUsd: null, reachable: false });
  assert.equal(volumeFor(input(0, 1, 0), 1_000_000).reachable, false);
});
