/**
 * The perpetual view and its history store, fed with an engine's durable events: open stakes from the
 * recovered engine, outcomes and payouts at resolution (won, lost, refunded), pages merged from open and
 * settled trades, and a restart (a new view on the same store and a restored engine) that shows the same
 * trades and last resolutions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { Engine } from '../../engine/core/engine.ts';
import type { EngineEvent } from '../../engine/core/events.ts';
import { Result } from '../../engine/core/results.ts';
import { restoreSnapshot, takeSnapshot } from '../../engine/core/snapshot.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { batchOfEvents, type DurableBatch } from '../../engine/runtime/sequencer.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { PricesCommandType, PriceSource } from '../../engine/domains/prices/commands.ts';
import { Outcome, PerpetualCommandType, type Predict } from '../../engine/domains/perpetual/commands.ts';
import { houseUserId } from '../../engine/domains/perpetual/perpetual.ts';
import { PerpetualHistory } from './history.ts';
import { PerpetualView, tradeOutcome } from './view.ts';

const markets = loadMarkets();
const pred = markets.assetBySymbol('PRED')!;
const t0 = 1_767_225_600_000;
const minuteMs = 60_000;

/** An engine whose every command goes to the view as its own durable batch. */
class Feed {
  readonly engine = new Engine({ markets, domains: platformDomains });
  private seq = 0;
  private readonly events: EngineEvent[] = [];

  constructor(public view: PerpetualView | null) {
    this.engine.sink = { onEvent: (event) => void this.events.push(event) };
  }

  apply(ts: number, command: Command): void {
    command.seq = ++this.seq;
    command.ts = ts;
    this.events.length = 0;
    assert.equal(this.engine.apply(command), Result.ok);
    const seq = this.seq;
    const events = [...this.events];
    const batch: DurableBatch = batchOfEvents(seq, seq, (visit) => events.forEach((event) => visit(event, seq, ts)));
    this.view?.onBatch(batch);
  }

  predict(ts: number, userId: number, side: 0 | 1, units: number, symbol = 'BTC', mode: 0 | 1 = 0): void {
    const body: Predict = { userId, mode, symbol, side, amountAtoms: units * 1_000_000 };
    this.apply(ts, domainCommand(PerpetualCommandType.predict, body));
  }

  price(ts: number, prices: Record<string, number>): void {
    this.apply(ts, domainCommand(PricesCommandType.postPriceTicks, { source: PriceSource.sim, symbols: Object.keys(prices), pricesE8: Object.values(prices) }));
  }
}

test('a stake is refunded on equal prices or when nobody stood on the winning side, won when its side won, else lost', () => {
  assert.equal(tradeOutcome(Outcome.refund, 0, 5), 'refunded');
  assert.equal(tradeOutcome(Outcome.yes, 0, 7), 'won');
  assert.equal(tradeOutcome(Outcome.yes, 1, 0), 'lost');
  assert.equal(tradeOutcome(Outcome.no, 0, 5), 'refunded');
});

test('the view settles trades at resolution, pages them newest first, and a restart shows the same', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perpetual-view-'));
  let history = new PerpetualHistory(dataDir);
  try {
    const feed = new Feed(null);
    feed.view = new PerpetualView(feed.engine, history);
    for (const userId of [1, 2, houseUserId]) feed.apply(t0, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId: pred.id, amountAtoms: 1_000_000_000 });
    feed.price(t0, { BTC: 9_000_000_000_000, ETH: 300_000_000_000 });
    feed.apply(t0, domainCommand(PerpetualCommandType.configure, { epochMs: minuteMs, seedAtoms: 10_000_000, symbols: ['BTC', 'ETH'] }));
    feed.predict(t0 + 1, 1, 0, 5);
    feed.predict(t0 + 2, 2, 1, 5);
    feed.predict(t0 + 3, 1, 1, 2, 'ETH');
    const view = feed.view!;
    assert.deepEqual(view.openOf(1, 0).map((trade) => trade.predictionId), [3, 1]);
    assert.equal(view.markets.get('BTC')!.epoch!.pools[0].yesAtoms, 15_000_000);

    feed.price(t0 + 10, { BTC: 9_100_000_000_000 });
    feed.apply(t0 + minuteMs, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
    feed.predict(t0 + minuteMs + 1, 1, 0, 1);
    const trades = view.tradesOf(1, 0, Number.MAX_SAFE_INTEGER, 10);
    assert.deepEqual(trades.map((trade) => [trade.predictionId, trade.symbol, trade.outcome]), [[4, 'BTC', 'pending'], [3, 'ETH', 'refunded'], [1, 'BTC', 'won']]);
    // The BTC pool was 30 PRED; YES staked 15 (5 of user 1, the house's 10): user 1 gets 10.
    assert.equal(trades[2]!.payoutAtoms, 10_000_000);
    assert.equal(trades[2]!.resolvedMs, t0 + minuteMs);
    assert.equal(view.tradesOf(2, 0, Number.MAX_SAFE_INTEGER, 10)[0]!.outcome, 'lost');
    assert.deepEqual(view.tradesOf(1, 0, 4, 1).map((trade) => trade.predictionId), [3]);
    assert.deepEqual(view.tradesOf(1, 0, 3, 5).map((trade) => trade.predictionId), [1]);
    assert.equal(view.markets.get('BTC')!.lastResolution!.outcome, Outcome.yes);
    assert.equal(view.markets.get('ETH')!.lastResolution!.outcome, Outcome.refund);
    assert.deepEqual(view.openOf(2, 0), []);

    // A restart: the engine restored from a snapshot, a new store on the same file.
    history.close();
    history = new PerpetualHistory(dataDir);
    const restored = new Engine({ markets, domains: platformDomains });
    restoreSnapshot(restored, takeSnapshot(feed.engine));
    const again = new PerpetualView(restored, history);
    assert.deepEqual(again.tradesOf(1, 0, Number.MAX_SAFE_INTEGER, 10), trades);
    assert.deepEqual(again.markets.get('BTC')!.lastResolution, view.markets.get('BTC')!.lastResolution);
    assert.deepEqual(again.markets.get('BTC')!.epoch, view.markets.get('BTC')!.epoch);
  } finally {
    history.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
