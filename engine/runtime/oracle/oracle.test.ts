/**
 * The oracle with an asynchronous source: a poll still running makes the next beat skip (never two polls
 * at once, never a wait on the sequencer's path), a failed poll is counted and logged, and the prices of
 * the poll that ends are journaled with the source's name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platformDomains, pricesOf } from '../../domains/index.ts';
import { PriceSource as JournaledSource } from '../../domains/prices/commands.ts';
import { DurableEngine } from '../durable-engine.ts';
import { loadMarkets } from '../markets.ts';
import { loadOracleAssets } from './assets.ts';
import { Oracle } from './oracle.ts';
import type { DailyCloses, PriceSource, SourcePrice } from './source.ts';

/** A source whose polls end when the test says so. */
class ControlledSource implements PriceSource {
  readonly name = 'http';
  pollsStarted = 0;
  private pending: { resolve: (prices: SourcePrice[]) => void; reject: (error: Error) => void } | null = null;
  history(): DailyCloses | null {
    return null;
  }
  resume(): void {}
  poll(): Promise<SourcePrice[]> {
    this.pollsStarted++;
    return new Promise((resolve, reject) => (this.pending = { resolve, reject }));
  }
  answer(prices: SourcePrice[]): void {
    this.pending!.resolve(prices);
  }
  fail(message: string): void {
    this.pending!.reject(new Error(message));
  }
  close(): void {}
}

test('a running poll makes the next beats skip; failures are logged; answers are journaled', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oracle-'));
  const nowMs = 1_790_000_000_000;
  const durable = DurableEngine.open({ dataDir, engine: { markets: loadMarkets(), domains: platformDomains }, clock: () => nowMs });
  const source = new ControlledSource();
  const logged: string[] = [];
  const oracle = new Oracle({
    durable,
    source,
    assets: loadOracleAssets(),
    clock: () => nowMs,
    log: (event) => logged.push(event),
    tickMs: 1000,
    historyDays: 0,
  });
  try {
    const first = oracle.pollOnce();
    await oracle.pollOnce();
    await oracle.pollOnce();
    assert.equal(source.pollsStarted, 1, 'no second poll while one runs');
    assert.equal(oracle.beatsSkipped, 2);
    source.answer([
      { symbol: 'BTC', priceE8: 9_700_012_000_000 },
      { symbol: 'NOPE', priceE8: 1 },
    ]);
    await first;
    assert.equal(oracle.ticksJournaled, 1);
    const btc = pricesOf(durable.engine).asset('BTC');
    assert.equal(btc?.priceE8, 9_700_012_000_000);
    assert.equal(btc?.source, JournaledSource.http);

    const failing = oracle.pollOnce();
    source.fail('HTTP 503');
    await failing;
    assert.equal(oracle.pollsFailed, 1);
    assert.deepEqual(logged, ['oracle_poll_failed']);
    assert.equal(pricesOf(durable.engine).priceE8('BTC'), 9_700_012_000_000, 'a failed poll leaves the last price');
    const next = oracle.pollOnce();
    assert.equal(source.pollsStarted, 3, 'the next beat polls again');
    source.answer([]);
    await next;
  } finally {
    oracle.stop();
    await durable.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
