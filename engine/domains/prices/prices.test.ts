/**
 * The price oracle's module: its rules (closes one per day, carried over gaps; change_24h's reference;
 * history once per asset), refusals that change nothing, and a journal of ticks that replays, through the
 * real frame codec, to the same state hash; a snapshot restores to it too.
 */
import { test } from 'node:test';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import assert from 'node:assert/strict';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind } from '../../core/events.ts';
import type { Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Result, resultCode, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains, pricesOf } from '../index.ts';
import { PricesCommandType, PricesEventType, PricesResult, PriceSource, closesKeptMax, msPerDay, priceAssetsMax, type PostPriceTicks, type SeedPriceHistory } from './commands.ts';
import { Prng } from '../../core/sim/generator.ts';
import { PricesSimulation } from './simulation.ts';

const markets = loadMarkets();
const day0 = 20_000; // 2024-10-04
const hourMs = 3_600_000;

class Harness {
  readonly sink = new CollectingSink();
  readonly engine = new Engine({ markets, sink: this.sink, domains: platformDomains });
  readonly journal: Command[] = [];
  private seq = 0;

  apply(tsMs: number, command: Command): ResultCode {
    command.seq = ++this.seq;
    command.ts = tsMs;
    const result = this.engine.apply(command);
    if (result === Result.ok) this.journal.push(command);
    return result;
  }

  ticks(tsMs: number, prices: Record<string, number>, source: PriceSource = PriceSource.sim): ResultCode {
    const body: PostPriceTicks = { source, symbols: Object.keys(prices), pricesE8: Object.values(prices) };
    return this.apply(tsMs, domainCommand(PricesCommandType.postPriceTicks, body));
  }

  history(tsMs: number, symbol: string, firstDay: number, closesE8: number[]): ResultCode {
    const body: SeedPriceHistory = { source: PriceSource.sim, symbol, firstDay, closesE8 };
    return this.apply(tsMs, domainCommand(PricesCommandType.seedPriceHistory, body));
  }

  get prices() {
    return pricesOf(this.engine);
  }
}

test('a tick sets the price and the close of its day; days without ticks carry the close over', () => {
  const h = new Harness();
  assert.equal(h.ticks(day0 * msPerDay + 5 * hourMs, { BTC: 9_000_000_000_000, ETH: 300_000_000_000 }), Result.ok);
  assert.equal(h.ticks(day0 * msPerDay + 20 * hourMs, { BTC: 9_100_000_000_000 }), Result.ok);
  assert.equal(h.ticks((day0 + 3) * msPerDay + hourMs, { BTC: 9_300_000_000_000 }), Result.ok);
  const btc = h.prices.asset('BTC')!;
  assert.equal(btc.priceE8, 9_300_000_000_000);
  assert.equal(btc.firstDay, day0);
  assert.deepEqual(btc.closesE8, [9_100_000_000_000, 9_100_000_000_000, 9_100_000_000_000, 9_300_000_000_000]);
  assert.deepEqual(h.prices.closes('BTC', 2), { firstDay: day0 + 2, closesE8: [9_100_000_000_000, 9_300_000_000_000] });
  assert.deepEqual(h.prices.closes('BTC', 400)!.closesE8.length, 4);
  assert.equal(h.prices.priceE8('ETH'), 300_000_000_000);
  assert.equal(h.prices.priceE8('SOL'), 0);
  const event = h.sink.events.at(-1)!;
  assert.equal(event.kind, EventKind.domain);
  assert.ok(event.kind === EventKind.domain && event.type === PricesEventType.pricesTicked);
});

test('change_24h compares with the price of the hour a day before, else the previous close, else the oldest of the day', () => {
  const h = new Harness();
  const start = day0 * msPerDay;
  h.ticks(start + 2 * hourMs, { AAPL: 100_00000000 });
  h.ticks(start + 10 * hourMs, { AAPL: 110_00000000 });
  // No tick 24 hours before hour 12 and no close of the day before: the oldest price of the last 24 hours.
  h.ticks(start + 12 * hourMs, { AAPL: 120_00000000 });
  assert.equal(h.prices.referenceE8(h.prices.asset('AAPL')!), 100_00000000);
  // Hour 34 = a day after hour 10: that hour's last price.
  h.ticks(start + 34 * hourMs + 60_000, { AAPL: 130_00000000 });
  assert.equal(h.prices.referenceE8(h.prices.asset('AAPL')!), 110_00000000);
  // Hour 37: no tick at hour 13; the close of the day before (day0's last price, 120).
  h.ticks(start + 37 * hourMs, { AAPL: 140_00000000 });
  assert.equal(h.prices.referenceE8(h.prices.asset('AAPL')!), 120_00000000);
});

test('a gap longer than the kept window leaves only carried closes and the new one', () => {
  const h = new Harness();
  h.ticks(day0 * msPerDay, { SPY: 500_00000000 });
  h.ticks((day0 + closesKeptMax + 10) * msPerDay, { SPY: 600_00000000 });
  const spy = h.prices.asset('SPY')!;
  assert.equal(spy.closesE8.length, closesKeptMax);
  assert.equal(spy.lastDay, day0 + closesKeptMax + 10);
  assert.equal(spy.closesE8[0], 500_00000000);
  assert.equal(spy.closesE8.at(-1), 600_00000000);
});

test('a history is accepted once, before the first price, and ends before the command day', () => {
  const h = new Harness();
  const now = (day0 + 400) * msPerDay + hourMs;
  const closes = Array.from({ length: 400 }, (_, index) => 1_000_000 + index);
  assert.equal(h.history(now, 'DOGE', day0, closes), Result.ok);
  const doge = h.prices.asset('DOGE')!;
  assert.equal(doge.priceE8, 1_000_399);
  assert.equal(doge.lastDay, day0 + 399);
  assert.equal(h.history(now, 'DOGE', day0, closes), PricesResult.historyExists);
  assert.equal(h.history(now, 'SOL', day0 + 1, closes), PricesResult.invalidHistory, 'reaches the command day');
  assert.equal(h.history(now, 'SOL', day0, []), PricesResult.invalidHistory);
  assert.equal(h.history(now, 'SOL', day0, [5, 0]), PricesResult.invalidHistory);
  // The first tick after the history starts the next day's close; the day before compares for change_24h.
  h.ticks(now, { DOGE: 1_100_000 });
  assert.equal(doge.closesE8.length, 401);
  assert.equal(h.prices.referenceE8(doge), 1_000_399);
  assert.equal(resultCode(PricesResult.historyExists), 'PRICE_HISTORY_EXISTS');
});

test('refusals change nothing: not the state hash, not a single event', () => {
  const h = new Harness();
  h.ticks(day0 * msPerDay, { BTC: 9_000_000_000_000 });
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  const refused: Array<[Record<string, number>, string]> = [
    [{ BTC: 0 }, 'zero price'],
    [{ BTC: 10 ** 18 }, 'above the maximum'],
    [{ btc: 5 }, 'lower-case symbol'],
    [{ TOOLONGSYMBOL1: 5 }, 'symbol too long'],
    [{ BTC: 1.5 }, 'not an integer'],
    [{}, 'empty'],
  ];
  for (const [prices, why] of refused) assert.equal(h.ticks(day0 * msPerDay + 1, prices), PricesResult.invalidTicks, why);
  const duplicate: PostPriceTicks = { source: PriceSource.sim, symbols: ['ETH', 'ETH'], pricesE8: [1, 2] };
  assert.equal(h.apply(day0 * msPerDay + 1, domainCommand(PricesCommandType.postPriceTicks, duplicate)), PricesResult.invalidTicks);
  const unequal: PostPriceTicks = { source: PriceSource.sim, symbols: ['ETH'], pricesE8: [1, 2] };
  assert.equal(h.apply(day0 * msPerDay + 1, domainCommand(PricesCommandType.postPriceTicks, unequal)), PricesResult.invalidTicks);
  const badSource = { source: 9, symbols: ['ETH'], pricesE8: [1] } as unknown as PostPriceTicks;
  assert.equal(h.apply(day0 * msPerDay + 1, domainCommand(PricesCommandType.postPriceTicks, badSource)), PricesResult.invalidTicks);
  assert.equal(h.apply(day0 * msPerDay + 1, domainCommand(1999, {})), Result.unknownCommand);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
});

test('at most priceAssetsMax assets are priced', () => {
  const h = new Harness();
  const ts = day0 * msPerDay;
  for (let batch = 0; batch < priceAssetsMax / 16; batch++) {
    const prices: Record<string, number> = {};
    for (let index = 0; index < 16; index++) prices[`A${batch * 16 + index}`] = 100;
    assert.equal(h.ticks(ts, prices), Result.ok);
  }
  const before = stateHash(h.engine);
  assert.equal(h.ticks(ts, { NEWONE: 5 }), PricesResult.tooManyAssets);
  assert.equal(h.history(ts, 'NEWTWO', day0 - 2, [5]), PricesResult.tooManyAssets);
  assert.equal(h.ticks(ts, { A0: 7 }), Result.ok, 'a known asset still ticks');
  assert.notEqual(stateHash(h.engine), before);
});

test('a journal of ticks replays through the frame codec to the same state hash, and a snapshot restores it', () => {
  const h = new Harness();
  const simulation = new PricesSimulation();
  const random = new Prng(77);
  let ts = day0 * msPerDay;
  for (let index = 0; index < 3000; index++) {
    ts += random.int(1, 4 * 3_600_000);
    h.apply(ts, simulation.next(random, ts));
  }
  assert.ok(h.journal.length > 2000, 'most commands were accepted');
  assert.ok(h.prices.symbols().length >= 8);
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  assert.deepEqual(pricesOf(restored).closes('BTC', 400), h.prices.closes('BTC', 400));

  // A different price anywhere gives a different hash.
  const other = new Engine({ markets, domains: platformDomains });
  for (const command of h.journal.slice(0, -1)) other.apply(command);
  assert.notEqual(stateHash(other), stateHash(h.engine));
});

test('tick listeners run after an accepted tick, with its symbols and time, and never for a refused one', () => {
  const h = new Harness();
  const heard: Array<[string[], number, number]> = [];
  h.prices.onTicked((symbols, nowMs) => heard.push([[...symbols], nowMs, h.prices.priceE8('BTC')]));
  const at = day0 * msPerDay;
  assert.equal(h.ticks(at, { BTC: 9_000_000_000_000, ETH: 300_000_000_000 }), Result.ok);
  assert.equal(h.ticks(at + 1000, { BTC: 0 }), PricesResult.invalidTicks);
  assert.equal(h.ticks(at + 2000, { BTC: 9_100_000_000_000 }), Result.ok);
  // The listener sees the new price already set.
  assert.deepEqual(heard, [
    [['BTC', 'ETH'], at, 9_000_000_000_000],
    [['BTC'], at + 2000, 9_100_000_000_000],
  ]);
});
