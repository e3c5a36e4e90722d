/**
 * Hybrid liquidity in the engine: venue quotes and their checks, price-first matching with resting
 * orders before venue levels at one price and venues by chain then pool, settlement through the venue
 * account, market, FOK and post-only orders against the hybrid book, stops triggered by venue fills,
 * expiry by journaled time, and paper orders that take from the live hybrid book without consuming it
 * and fill when live trades print through their price. A snapshot carries the venues.
 *
 * ETH/USDC: tick 0.01 USDC, lot 0.0001 ETH; one tick × one lot is one USDC atom. 3000.00 is 300 000 ticks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, OrderType, TimeInForce, type Command, type OrderRequest } from './commands.ts';
import { Engine } from './engine.ts';
import { CollectingSink, EventKind, Liquidity, liveBookVenueId, type AmmFill, type EngineEvent } from './events.ts';
import { venueUserId, venuesPerPairMax } from './limits.ts';
import { noSlot } from './order-store.ts';
import { Result } from './results.ts';
import { restoreSnapshot, takeSnapshot } from './snapshot.ts';
import { stateHash } from './state-hash.ts';
import { ammFillTxHash } from './sim-hash.ts';
import { orderRequest } from './sim/order-request.ts';
import { loadMarkets } from '../runtime/markets.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const oneEthLots = 10_000;
const lotAtoms = 10_000;
const lifetimeMs = 30_000;

class Harness {
  readonly sink = new CollectingSink();
  readonly engine = new Engine({ markets, sink: this.sink });
  private seq = 0;
  private orderId = 0;
  nowMs = 1_000_000;

  apply(command: Command): number {
    this.sink.clear();
    return this.engine.apply(command);
  }

  stamp(): { seq: number; ts: number } {
    return { seq: ++this.seq, ts: this.nowMs };
  }

  fund(userId: number, mode: 0 | 1 = 0): void {
    assert.equal(this.apply({ kind: CommandKind.deposit, ...this.stamp(), userId, mode, assetId: usdc.id, amountAtoms: 10_000_000 * 1_000_000 }), Result.ok);
    assert.equal(this.apply({ kind: CommandKind.deposit, ...this.stamp(), userId, mode, assetId: ether.id, amountAtoms: 1_000 * 100_000_000 }), Result.ok);
  }

  quote(poolId: number, chainId: number, version: number, bids: Array<[number, number]>, asks: Array<[number, number]>): number {
    return this.apply({
      kind: CommandKind.quoteVenue,
      ...this.stamp(),
      pairId: eth.id,
      poolId,
      chainId,
      version,
      bidPriceTicks: bids.map((level) => level[0]),
      bidLots: bids.map((level) => level[1]),
      askPriceTicks: asks.map((level) => level[0]),
      askLots: asks.map((level) => level[1]),
    });
  }

  place(fields: Partial<OrderRequest> & { userId: number }): { orderId: number; result: number } {
    const request = orderRequest({ orderId: ++this.orderId, pairId: eth.id, priceTicks: 300_000, quantityLots: oneEthLots, ...fields });
    return { orderId: request.orderId, result: this.apply({ kind: CommandKind.placeOrder, ...this.stamp(), ...request }) };
  }

  fills(): AmmFill[] {
    return this.sink.events.filter((event): event is AmmFill => event.kind === EventKind.ammFill);
  }

  events(kind: number): EngineEvent[] {
    return this.sink.events.filter((event) => event.kind === kind);
  }

  available(userId: number, assetIndex: number, mode: 0 | 1 = 0): number {
    return this.engine.ledger.availableAtoms(this.engine.ledger.find(userId, mode), assetIndex);
  }

  /** Venue levels of a side as [price, lots, pool] rows. */
  venueLevels(side: 0 | 1): Array<[number, number, number]> {
    const venues = this.engine.venues[eth.index]!;
    const rows: Array<[number, number, number]> = [];
    for (let index = 0; index < venues.levelCount(side); index++) rows.push([venues.priceAt(side, index), venues.lotsAt(side, index), venues.poolAt(side, index)]);
    return rows;
  }

  audit(): void {
    assert.equal(this.engine.ledger.audit(), null);
    for (const mode of [0, 1] as const) {
      const venue = this.engine.ledger.find(venueUserId, mode);
      if (venue === -1) continue;
      for (let asset = 0; asset < this.engine.ledger.assetCount; asset++) {
        assert.equal(this.engine.ledger.availableAtoms(venue, asset) + this.engine.ledger.heldAtoms(venue, asset), 0, 'the venue account ends every fill at zero');
      }
    }
  }
}

test('a venue quote is checked whole, replaces its pool s levels, and merges with other pools by price, chain, pool', () => {
  const h = new Harness();
  assert.equal(h.quote(12, 3, 1, [[299_990, 50]], [[300_010, 50], [300_020, 60]]), Result.ok);
  assert.equal(h.quote(11, 1, 1, [[299_990, 40]], [[300_010, 40]]), Result.ok);
  const quoted = h.events(EventKind.venueQuoted)[0]!;
  assert.deepEqual(quoted, { kind: EventKind.venueQuoted, pairId: eth.id, mode: 0, poolId: 11, chainId: 1, version: 1, bidPriceTicks: [299_990], bidLots: [40], askPriceTicks: [300_010], askLots: [40] });
  assert.deepEqual(h.venueLevels(1), [
    [300_010, 40, 11],
    [300_010, 50, 12],
    [300_020, 60, 12],
  ]);
  // A new quote of pool 12 replaces all of its levels.
  assert.equal(h.quote(12, 3, 2, [], [[300_030, 5]]), Result.ok);
  assert.deepEqual(h.venueLevels(1), [
    [300_010, 40, 11],
    [300_030, 5, 12],
  ]);
  assert.deepEqual(h.venueLevels(0), [[299_990, 40, 11]]);
  const before = stateHash(h.engine);
  for (const [bids, asks, expected] of [
    [[], [[300_030, 5], [300_020, 5]], Result.invalidQuote],
    [[[300_040, 5]], [[300_030, 5]], Result.invalidQuote],
    [[], [[300_030, 0]], Result.invalidQuote],
    [[], [[eth.priceTicksMax + 1, 1]], Result.invalidQuote],
  ] as Array<[Array<[number, number]>, Array<[number, number]>, number]>) {
    assert.equal(h.quote(13, 2, 1, bids, asks), expected);
  }
  assert.equal(h.quote(12, 3, 2, [], [[300_030, 5]]), Result.staleQuote, 'a version not newer than the last');
  assert.equal(h.quote(0, 3, 9, [], []), Result.invalidQuote);
  assert.equal(h.apply({ kind: CommandKind.quoteVenue, ...h.stamp(), pairId: 999, poolId: 1, chainId: 1, version: 1, bidPriceTicks: [], bidLots: [], askPriceTicks: [], askLots: [] }), Result.unknownPair);
  for (let pool = 100; pool < 100 + venuesPerPairMax - 2; pool++) assert.equal(h.quote(pool, 2, 1, [], [[400_000, 1]]), Result.ok);
  assert.equal(h.quote(999, 2, 1, [], [[400_000, 1]]), Result.tooManyVenues);
  assert.notEqual(stateHash(h.engine), before);
});

test('a taker takes price first; at one price resting orders, then venues by chain and pool; venue fills settle through the venue account', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 1, priceTicks: 300_010, quantityLots: 30 });
  h.quote(12, 3, 1, [], [[300_010, 50], [300_020, 60]]);
  h.quote(11, 1, 1, [], [[300_010, 40]]);
  const usdcBefore = h.available(2, usdc.index);
  const ethBefore = h.available(2, ether.index);
  const supplyBefore = [h.engine.ledger.supply[usdc.index]!, h.engine.ledger.supply[ether.index]!];
  const buy = h.place({ userId: 2, side: 0, priceTicks: 300_020, quantityLots: 150, timeInForce: TimeInForce.ioc });
  assert.equal(buy.result, Result.ok);
  const trades = h.events(EventKind.tradeExecuted);
  assert.equal(trades.length, 1, 'the resting order first');
  const fills = h.fills();
  assert.deepEqual(
    fills.map((fill) => [fill.venueId, fill.chainId, fill.priceTicks, fill.quantityLots, fill.liquidity]),
    [
      [11, 1, 300_010, 40, Liquidity.taker],
      [12, 3, 300_010, 50, Liquidity.taker],
      [12, 3, 300_020, 30, Liquidity.taker],
    ],
  );
  for (const fill of fills) {
    assert.match(ammFillTxHash(fill), /^sim-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(fill.orderId, buy.orderId);
    assert.equal(fill.userId, 2);
  }
  assert.deepEqual(fills.map((fill) => fill.tradeId), [2, 3, 4], 'trade ids shared with the book s trades');
  assert.equal(fills[2]!.remainingLots, 0);
  assert.deepEqual(h.venueLevels(1), [[300_020, 30, 12]]);
  // The taker paid every fill's notional plus 10 bps of its cumulative notional, rounded up once.
  const notional = 300_010 * 30 + 300_010 * 40 + 300_010 * 50 + 300_020 * 30;
  assert.equal(usdcBefore - h.available(2, usdc.index), notional + Math.ceil(notional / 1000));
  assert.equal(h.available(2, ether.index) - ethBefore, 150 * lotAtoms);
  // What went to the venues left the platform; what came from them entered it.
  const venueNotional = notional - 300_010 * 30;
  assert.equal(h.engine.ledger.supply[usdc.index], supplyBefore[0]! - venueNotional);
  assert.equal(h.engine.ledger.supply[ether.index], supplyBefore[1]! + 120 * lotAtoms);
  h.audit();
});

test('market orders sweep the hybrid book; FOK counts venue liquidity; post-only may not take from a venue', () => {
  const h = new Harness();
  h.fund(2);
  h.quote(11, 1, 1, [[299_990, 100]], [[300_010, 100], [300_100, 100]]);
  const market = h.place({ userId: 2, side: 0, orderType: OrderType.market, priceTicks: 0, quantityLots: 150 });
  assert.equal(market.result, Result.ok);
  assert.deepEqual(h.fills().map((fill) => [fill.priceTicks, fill.quantityLots]), [[300_010, 100], [300_100, 50]]);
  const fokTooBig = h.place({ userId: 2, side: 1, priceTicks: 299_990, quantityLots: 101, timeInForce: TimeInForce.fok });
  assert.equal(fokTooBig.result, Result.ok);
  assert.equal(h.fills().length, 0);
  assert.equal(h.events(EventKind.orderExpired).length, 1);
  const fok = h.place({ userId: 2, side: 1, priceTicks: 299_990, quantityLots: 100, timeInForce: TimeInForce.fok });
  assert.equal(fok.result, Result.ok);
  assert.equal(h.fills().length, 1);
  h.quote(11, 1, 2, [[299_990, 100]], [[300_010, 100]]);
  assert.equal(h.place({ userId: 2, side: 0, priceTicks: 300_010, postOnly: true }).result, Result.postOnlyWouldTake);
  assert.equal(h.place({ userId: 2, side: 0, priceTicks: 300_000, postOnly: true }).result, Result.ok);
  h.audit();
});

test('venue levels that would cross resting orders are dropped; a venue fill moves the last price and triggers stops', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 0, priceTicks: 300_050, quantityLots: 10 });
  h.quote(11, 1, 1, [], [[300_040, 10], [300_060, 10], [300_070, 10]]);
  assert.deepEqual(h.venueLevels(1), [
    [300_060, 10, 11],
    [300_070, 10, 11],
  ]);
  assert.deepEqual((h.events(EventKind.venueQuoted)[0] as { askPriceTicks: number[] }).askPriceTicks, [300_060, 300_070], 'the event shows what is kept');
  const stop = h.place({ userId: 1, side: 0, orderType: OrderType.stopMarket, priceTicks: 0, stopPriceTicks: 300_060, quantityLots: 5 });
  assert.equal(h.engine.orders.status(h.engine.slotOf(stop.orderId)), 0, 'pending');
  h.place({ userId: 2, side: 0, priceTicks: 300_060, quantityLots: 5, timeInForce: TimeInForce.ioc });
  assert.ok(h.events(EventKind.stopTriggered).length === 1, 'the venue fill at 3000.60 triggered the stop');
  assert.equal(h.engine.slotOf(stop.orderId), noSlot, 'and the stop filled from the venue');
  h.audit();
});

test('quiet venues are skipped once their quote is older than the lifetime, and removed by ExpireVenues', () => {
  const h = new Harness();
  h.fund(2);
  h.quote(11, 1, 1, [], [[300_010, 100]]);
  h.quote(12, 2, 1, [], [[300_020, 100]]);
  assert.equal(h.apply({ kind: CommandKind.expireVenues, ...h.stamp() }), Result.nothingToExpire);
  h.nowMs += lifetimeMs / 2;
  h.quote(12, 2, 2, [], [[300_020, 100]]);
  h.nowMs += lifetimeMs / 2;
  // Pool 11 was quoted a lifetime ago: a taker skips it and takes pool 12 only.
  h.place({ userId: 2, side: 0, priceTicks: 300_020, quantityLots: 150, timeInForce: TimeInForce.ioc });
  assert.deepEqual(h.fills().map((fill) => [fill.venueId, fill.quantityLots]), [[12, 100]]);
  assert.equal(h.venueLevels(1).length, 1, 'skipped, not yet removed');
  assert.equal(h.apply({ kind: CommandKind.expireVenues, ...h.stamp() }), Result.ok);
  assert.deepEqual(h.events(EventKind.venueExpired), [{ kind: EventKind.venueExpired, pairId: eth.id, mode: 0, poolId: 11, chainId: 1 }]);
  assert.deepEqual(h.venueLevels(1), []);
  h.audit();
});

test('paper orders take from the live hybrid book without consuming it, and fill when live trades print through them', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  assert.equal(h.apply({ kind: CommandKind.openPaperAccount, ...h.stamp(), userId: 3, assetIds: [usdc.id, ether.id], amountsAtoms: [1_000_000 * 1_000_000, 10 * 100_000_000] }), Result.ok);
  assert.equal(h.apply({ kind: CommandKind.openPaperAccount, ...h.stamp(), userId: 3, assetIds: [usdc.id], amountsAtoms: [1] }), Result.paperAccountExists);
  h.place({ userId: 1, side: 1, priceTicks: 300_010, quantityLots: 30 });
  h.quote(11, 1, 1, [[299_900, 100]], [[300_010, 40], [300_020, 100]]);
  const liveHashParts = [h.venueLevels(1), h.engine.contexts[eth.index * 2]!.book.orderCount];

  // A marketable paper buy fills at live prices: the live order's level, then the venue's.
  const paper = h.place({ userId: 3, mode: 1, side: 0, orderType: OrderType.market, priceTicks: 0, quantityLots: 100 });
  assert.equal(paper.result, Result.ok);
  assert.deepEqual(
    h.fills().map((fill) => [fill.venueId, fill.priceTicks, fill.quantityLots, fill.mode]),
    [
      [liveBookVenueId, 300_010, 30, 1],
      [11, 300_010, 40, 1],
      [11, 300_020, 30, 1],
    ],
  );
  assert.equal(h.events(EventKind.tradeExecuted).length, 0, 'no live trade');
  assert.deepEqual([h.venueLevels(1), h.engine.contexts[eth.index * 2]!.book.orderCount], liveHashParts, 'nothing live consumed');
  assert.equal(h.available(3, ether.index, 1), 10 * 100_000_000 + 100 * lotAtoms);

  // A resting paper bid at 2999.95 fills when a live trade prints at or below it (at its own price).
  const rest = h.place({ userId: 3, mode: 1, side: 0, priceTicks: 299_995, quantityLots: 20 });
  assert.equal(h.engine.orders.status(h.engine.slotOf(rest.orderId)), 1, 'resting');
  h.place({ userId: 2, side: 1, priceTicks: 299_900, quantityLots: 15, timeInForce: TimeInForce.ioc });
  const printFills = h.fills().filter((fill) => fill.mode === 1);
  assert.deepEqual(printFills.map((fill) => [fill.orderId, fill.priceTicks, fill.quantityLots, fill.liquidity]), [[rest.orderId, 299_995, 15, Liquidity.maker]]);
  assert.equal(h.engine.orders.filledLots(h.engine.slotOf(rest.orderId)), 15);
  h.audit();

  // Under the rules of journals written before paper saw the live book, it matches only paper orders.
  h.engine.paperSeesLiveBook = false;
  const old = h.place({ userId: 3, mode: 1, side: 0, orderType: OrderType.market, priceTicks: 0, quantityLots: 10 });
  assert.equal(old.result, Result.ok);
  assert.equal(h.fills().length, 0);
  assert.equal(h.events(EventKind.orderExpired).length, 1);
});

test('a snapshot carries the venues: restored, the engine hashes alike and matches alike', () => {
  const h = new Harness();
  h.fund(2);
  h.quote(12, 3, 4, [[299_990, 70]], [[300_010, 50], [300_020, 60]]);
  h.quote(11, 1, 2, [], [[300_010, 40]]);
  h.place({ userId: 2, side: 0, priceTicks: 300_010, quantityLots: 10, timeInForce: TimeInForce.ioc });
  const restored = new Engine({ markets });
  restoreSnapshot(restored, structuredClone(takeSnapshot(h.engine)));
  assert.equal(stateHash(restored), stateHash(h.engine));
  const command: Command = {
    kind: CommandKind.placeOrder,
    seq: 99,
    ts: h.nowMs,
    ...orderRequest({ orderId: 99, userId: 2, pairId: eth.id, orderType: OrderType.market, timeInForce: TimeInForce.ioc, quantityLots: 100 }),
  };
  assert.equal(h.engine.apply(command), restored.apply({ ...command }));
  assert.equal(stateHash(restored), stateHash(h.engine));
});
