/** The sim source's determinism: same seed, same history and the same prices at the same grid steps. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadOracleAssets } from './assets.ts';
import { SimSource } from './sim-source.ts';

const assets = loadOracleAssets();
const startMs = 1_790_000_000_000;

test('the same seed gives the same history and the same ticks whatever the poll schedule', () => {
  const a = new SimSource(assets, { seed: 3, tickMs: 1000 });
  const b = new SimSource(assets, { seed: 3, tickMs: 1000 });
  const c = new SimSource(assets, { seed: 4, tickMs: 1000 });
  const day = Math.floor(startMs / 86_400_000);
  const historyA = a.history('BTC', day, 420)!;
  assert.deepEqual(b.history('BTC', day, 420), historyA);
  assert.notDeepEqual(c.history('BTC', day, 420), historyA);
  assert.equal(historyA.closesE8.length, 420);
  assert.equal(historyA.firstDay + 419, day - 1);
  assert.equal(historyA.closesE8.at(-1), assets.find((asset) => asset.symbol === 'BTC')!.startPriceE8);
  assert.ok(historyA.closesE8.every((close) => Number.isSafeInteger(close) && close >= 1));
  for (const source of [a, b, c]) source.resume(new Map());
  // a polls every step, b every seventh: at the steps both see, the prices are the same.
  const seenByA = new Map<number, number>();
  for (let ms = startMs; ms <= startMs + 700_000; ms += 1000) {
    const btc = a.poll(ms).find((price) => price.symbol === 'BTC');
    if (btc !== undefined) seenByA.set(Math.floor(ms / 1000), btc.priceE8);
  }
  let compared = 0;
  for (let ms = startMs; ms <= startMs + 700_000; ms += 7000) {
    const btc = b.poll(ms).find((price) => price.symbol === 'BTC')!;
    assert.equal(btc.priceE8, seenByA.get(Math.floor(ms / 1000)));
    compared++;
  }
  assert.ok(compared > 90);
  c.poll(startMs);
  assert.notEqual(c.poll(startMs + 700_000).find((price) => price.symbol === 'BTC')!.priceE8, seenByA.get(Math.floor(startMs / 1000) + 700));
});

test('log returns have the volatility the fixture gives', () => {
  const source = new SimSource(assets, { seed: 9, tickMs: 60_000 });
  source.resume(new Map());
  const returns: number[] = [];
  let last = source.poll(startMs).find((price) => price.symbol === 'ETH')!.priceE8;
  for (let index = 1; index <= 20_000; index++) {
    const now = source.poll(startMs + index * 60_000).find((price) => price.symbol === 'ETH')!.priceE8;
    returns.push(Math.log(now / last));
    last = now;
  }
  const mean = returns.reduce((sum, value) => sum + value, 0) / returns.length;
  const std = Math.sqrt(returns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (returns.length - 1));
  const expected = 0.75 * Math.sqrt(60_000 / (365 * 86_400_000));
  assert.ok(Math.abs(std / expected - 1) < 0.05, `std ${std} vs ${expected}`);
});
