/** Fee caps and increments against exact BigInt arithmetic, for notionals up to 2^53 and around 2^53 / rate. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Prng } from '../sim/generator.ts';
import { feeCap, feeIncrement } from './fees.ts';

/** ceil(notional × bps / 10 000) in BigInt. */
function exactCap(notionalAtoms: number, feeBps: number): number {
  const product = BigInt(notionalAtoms) * BigInt(feeBps);
  return Number((product + 9_999n) / 10_000n);
}

test('feeCap is the exact ceiling for notionals of every size, and feeIncrement the exact difference', () => {
  const random = new Prng(41);
  const rates = [0, 1, 3, 7, 10, 25, 99, 1_000, 9_999, 10_000];
  const notionals: number[] = [0, 1, 9_999, 10_000, 10_001];
  // Where notional × rate leaves the safe integers, for each rate, and random magnitudes up to 2^53.
  for (const rate of rates.filter((rate) => rate > 0)) {
    const edge = Math.floor(Number.MAX_SAFE_INTEGER / rate);
    for (let delta = -3; delta <= 3; delta++) notionals.push(edge + delta);
  }
  for (let index = 0; index < 20_000; index++) {
    const bits = 1 + Math.floor(random.next() * 52);
    notionals.push(Math.floor(random.next() * 2 ** bits));
  }
  let checked = 0;
  for (const notional of notionals) {
    for (const rate of rates) {
      assert.equal(feeCap(notional, rate), exactCap(notional, rate), `feeCap(${notional}, ${rate})`);
      const before = Math.floor(random.next() * notional);
      const added = notional - before;
      assert.equal(feeIncrement(before, added, rate), exactCap(notional, rate) - exactCap(before, rate), `feeIncrement(${before}, ${added}, ${rate})`);
      assert.equal(feeIncrement(0, notional, rate), exactCap(notional, rate));
      checked++;
    }
  }
  assert.ok(checked > 200_000);
});
