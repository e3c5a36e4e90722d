/** The passive-income formulas: the estimate, and both solve modes inverting it, with unreachable cases. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimate, holdingsFor, volumeFor, type EstimateInput } from './estimate.ts';

const input = (volume: number, plat: number, pred: number): EstimateInput => ({
  dailyVolumeUsd: volume,
  takerFeeBps: 10,
  shareBps: 2_000,
  tokens: [
    { symbol: 'PLAT', totalSupply: 1_000_000_000, holdings: plat },
    { symbol: 'PRED', totalSupply: 1_000_000_000, holdings: pred },
  ],
});

test('the estimate: volume × fee × share × mean holding share', () => {
  // 10 M volume × 0.001 × 0.2 = 2 000 USD a day to holders; 1 % of PLAT and none of PRED is half of 1 %.
  const result = estimate(input(10_000_000, 10_000_000, 0));
  assert.ok(Math.abs(result.daily - 10) < 1e-9);
  assert.ok(Math.abs(result.monthly - 300) < 1e-9);
  assert.ok(Math.abs(result.yearly - 3650) < 1e-9);
});

test('solving for holdings and for volume inverts the estimate', () => {
  const [plat, pred] = holdingsFor(input(10_000_000, 0, 0), 300);
  assert.ok(Math.abs(plat!.holdings! - 10_000_000) < 1e-6);
  assert.equal(plat!.reachable, true);
  assert.equal(pred!.symbol, 'PRED');
  assert.equal(holdingsFor(input(10, 0, 0), 1_000_000)[0]!.reachable, false, 'more than the supply');
  assert.deepEqual(holdingsFor(input(0, 0, 0), 300)[0], { symbol: 'PLAT', holdings: null, reachable: false });
  const volume = volumeFor(input(0, 10_000_000, 0), 300);
  assert.ok(Math.abs(volume.dailyVolumeUsd! - 10_000_000) < 1e-6);
  assert.equal(volume.reachable, true);
  assert.deepEqual(volumeFor(input(0, 0, 0), 300), { dailyVolumeUsd: null, reachable: false });
  assert.equal(volumeFor(input(0, 1, 0), 1_000_000).reachable, false);
});
