/**
 * The engine's rules, one behaviour per test: order types, time in force, post-only, the market
 * protection band, stops and their cascade, amend and priority, cancel-all, client order ids, STP modes,
 * fees and their rounding, holds and their release, batches, deposits and withdrawals (plain and to an
 * external address).
 *
 * ETH/USDC (pair 1): tick 0.01 USDC, lot 0.0001 ETH; one tick × one lot is one USDC atom (10^-6), one lot
 * is 10 000 ETH atoms (10^-8). So 3000.00 USDC is 300 000 ticks, 1 ETH is 10 000 lots, and a fill of
 * 1 ETH at 3000 has a notional of 3 000 000 000 atoms and a taker fee of 3 000 000 atoms (3 USDC).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, OrderType, SelfTradePrevention, TimeInForce, type Command, type OrderRequest, type WithdrawTo } from './commands.ts';
import { Engine } from './engine.ts';
import { feeCap, feeIncrement } from './matching/fees.ts';
import { BalanceReason, CollectingSink, EventKind, OrderStatus, copyEvent, type EngineEvent, type TradeExecuted } from './events.ts';
import { domainAccountsMax, domainUserId, venueUserId, withdrawAddressCharsMax, withdrawReferenceCharsMax } from './limits.ts';
import { noSlot } from './order-store.ts';
import { Result, resultCode } from './results.ts';
import { stateHash } from './state-hash.ts';
import { orderRequest } from './sim/order-request.ts';
import { loadMarkets } from '../runtime/markets.ts';
import type { DomainFactory } from './domain.ts';
import { noTimerMs, type DomainModule } from './domain-module.ts';
import type { DomainPort } from './port.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const oneEthLots = 10_000;
const oneEthAtoms = 100_000_000;
const usdcAtoms = 1_000_000;

class Harness {
  readonly sink = new CollectingSink();
  readonly engine: Engine;
  private seq = 0;
  private orderId = 0;

  constructor(settings: { marketBandBps?: number; makerFeeBps?: number } = {}, domains: DomainFactory = []) {
    this.engine = new Engine({ markets, sink: this.sink, settings, domains });
  }

  apply(command: Command): number {
    this.sink.clear();
    return this.engine.apply(command);
  }

  stamp(): { seq: number; ts: number } {
    this.seq++;
    return { seq: this.seq, ts: 1_000 + this.seq };
  }

  fund(userId: number, usdcUnits = 1_000_000, ethUnits = 1_000, mode: 0 | 1 = 0): void {
    assert.equal(this.apply({ kind: CommandKind.deposit, ...this.stamp(), userId, mode, assetId: usdc.id, amountAtoms: usdcUnits * usdcAtoms }), Result.ok);
    if (ethUnits === 0) return;
    assert.equal(this.apply({ kind: CommandKind.deposit, ...this.stamp(), userId, mode, assetId: ether.id, amountAtoms: ethUnits * oneEthAtoms }), Result.ok);
  }

  request(fields: Partial<OrderRequest> & { userId: number }): OrderRequest {
    return orderRequest({ orderId: ++this.orderId, pairId: eth.id, priceTicks: 300_000, quantityLots: oneEthLots, ...fields });
  }

  /** Places an order; returns its id and the result. */
  place(fields: Partial<OrderRequest> & { userId: number }): { orderId: number; result: number } {
    const request = this.request(fields);
    const result = this.apply({ kind: CommandKind.placeOrder, ...this.stamp(), ...request });
    return { orderId: request.orderId, result };
  }

  cancel(userId: number, orderId: number): number {
    return this.apply({ kind: CommandKind.cancelOrder, ...this.stamp(), userId, mode: 0, orderId, clientOrderId: '' });
  }

  amend(userId: number, orderId: number, priceTicks: number, quantityLots: number): number {
    return this.apply({ kind: CommandKind.amendOrder, ...this.stamp(), userId, mode: 0, orderId, priceTicks, quantityLots });
  }

  available(userId: number, assetIndex: number, mode: 0 | 1 = 0): number {
    return this.engine.ledger.availableAtoms(this.engine.ledger.find(userId, mode), assetIndex);
  }

  held(userId: number, assetIndex: number, mode: 0 | 1 = 0): number {
    return this.engine.ledger.heldAtoms(this.engine.ledger.find(userId, mode), assetIndex);
  }

  events(kind: number): EngineEvent[] {
    return this.sink.events.filter((event) => event.kind === kind);
  }

  trades(): TradeExecuted[] {
    return this.events(EventKind.tradeExecuted) as TradeExecuted[];
  }

  kinds(): number[] {
    return this.sink.events.map((event) => event.kind);
  }

  status(orderId: number): number | undefined {
    const slot = this.engine.slotOf(orderId);
    return slot === noSlot ? undefined : this.engine.orders.status(slot);
  }

  audit(): void {
    assert.equal(this.engine.ledger.audit(), null);
  }
}

test('fee rounding: ceil of cumulative notional × bps, split exactly across fills', () => {
  assert.equal(feeCap(3_000_000_000, 10), 3_000_000);
  assert.equal(feeCap(1, 10), 1);
  assert.equal(feeCap(0, 10), 0);
  assert.equal(feeCap(9999, 10), 10);
  assert.equal(feeCap(10_001, 10), 11);
  assert.equal(feeCap(Number.MAX_SAFE_INTEGER, 10), Math.ceil(Number(BigInt(Number.MAX_SAFE_INTEGER) * 10n) / 10_000));
  assert.equal(feeCap(Number.MAX_SAFE_INTEGER, 10_000), Number.MAX_SAFE_INTEGER);
  // Two fills of one atom each: the order pays ceil(2 × 0.001) = 1 atom in total, not 2.
  assert.equal(feeIncrement(0, 1, 10) + feeIncrement(1, 1, 10), 1);
  let paid = 0;
  let cumulative = 0;
  for (const notional of [7, 1234, 99_999, 1, 500]) {
    paid += feeIncrement(cumulative, notional, 10);
    cumulative += notional;
  }
  assert.equal(paid, feeCap(cumulative, 10));
});

test('a resting buy holds price × quantity plus the taker fee cap; cancel releases all of it', () => {
  const h = new Harness();
  h.fund(1);
  const { orderId, result } = h.place({ userId: 1, priceTicks: 300_000, quantityLots: oneEthLots });
  assert.equal(result, Result.ok);
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.orderRested]);
  assert.equal(h.held(1, usdc.index), 3_000_000_000 + 3_000_000);
  assert.equal(h.available(1, usdc.index), 1_000_000 * usdcAtoms - 3_003_000_000);
  assert.equal(h.status(orderId), OrderStatus.open);
  assert.equal(h.cancel(1, orderId), Result.ok);
  assert.equal(h.held(1, usdc.index), 0);
  assert.equal(h.available(1, usdc.index), 1_000_000 * usdcAtoms);
  const cancelled = h.events(EventKind.orderCancelled)[0]!;
  assert.equal(cancelled.kind === EventKind.orderCancelled && cancelled.releasedAtoms, 3_003_000_000);
  assert.equal(h.cancel(1, orderId), Result.orderNotFound);
  h.audit();
});

test('a sell holds its base quantity', () => {
  const h = new Harness();
  h.fund(1);
  h.place({ userId: 1, side: 1, quantityLots: 2 * oneEthLots });
  assert.equal(h.held(1, ether.index), 2 * oneEthAtoms);
  h.audit();
});

test('a crossing limit trades at the maker price: taker pays 10 bps, maker 0, price improvement released', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  const maker = h.place({ userId: 1, side: 1, priceTicks: 299_000, quantityLots: oneEthLots });
  const taker = h.place({ userId: 2, side: 0, priceTicks: 300_000, quantityLots: oneEthLots });
  assert.equal(taker.result, Result.ok);
  const [trade] = h.trades();
  assert.ok(trade);
  assert.equal(trade.priceTicks, 299_000);
  assert.equal(trade.quantityLots, oneEthLots);
  assert.equal(trade.notionalAtoms, 2_990_000_000);
  assert.equal(trade.takerFeeAtoms, 2_990_000);
  assert.equal(trade.makerFeeAtoms, 0);
  assert.equal(trade.makerOrderId, maker.orderId);
  assert.equal(trade.takerOrderId, taker.orderId);
  assert.equal(trade.takerRemainingLots, 0);
  assert.equal(trade.makerRemainingLots, 0);
  // Buyer: paid notional + fee, got 1 ETH, nothing left held.
  assert.equal(h.available(2, usdc.index), 1_000_000 * usdcAtoms - 2_990_000_000 - 2_990_000);
  assert.equal(h.held(2, usdc.index), 0);
  assert.equal(h.available(2, ether.index), 1_001 * oneEthAtoms);
  // Seller: got the notional (maker fee 0), gave 1 ETH.
  assert.equal(h.available(1, usdc.index), 1_000_000 * usdcAtoms + 2_990_000_000);
  assert.equal(h.available(1, ether.index), 999 * oneEthAtoms);
  // Fee account (live).
  assert.equal(h.engine.ledger.availableAtoms(h.engine.ledger.feeAccount(0), usdc.index), 2_990_000);
  assert.equal(h.status(maker.orderId), undefined);
  assert.equal(h.status(taker.orderId), undefined);
  h.audit();
});

test('a sell taker pays its fee out of the proceeds; a maker fee setting applies to makers', () => {
  const h = new Harness({ makerFeeBps: 2 });
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 0, priceTicks: 300_000, quantityLots: oneEthLots });
  // The buy maker held notional + both fee caps.
  assert.equal(h.held(1, usdc.index), 3_000_000_000 + 3_000_000 + 600_000);
  h.place({ userId: 2, side: 1, priceTicks: 300_000, quantityLots: oneEthLots });
  const [trade] = h.trades();
  assert.ok(trade);
  assert.equal(trade.takerFeeAtoms, 3_000_000);
  assert.equal(trade.makerFeeAtoms, 600_000);
  assert.equal(h.available(2, usdc.index), 1_000_000 * usdcAtoms + 3_000_000_000 - 3_000_000);
  assert.equal(h.available(1, usdc.index), 1_000_000 * usdcAtoms - 3_000_000_000 - 600_000);
  assert.equal(h.held(1, usdc.index), 0);
  h.audit();
});

test('a post-only bid holds price × quantity and the maker fee cap only: it can never owe a taker fee', () => {
  const h = new Harness({ makerFeeBps: 2 });
  h.fund(1);
  h.fund(2);
  const bid = h.place({ userId: 1, side: 0, priceTicks: 300_000, quantityLots: oneEthLots, postOnly: true });
  assert.equal(bid.result, Result.ok);
  assert.equal(h.held(1, usdc.index), 3_000_000_000 + 600_000);
  // A new price re-holds by the same rule; a crossing one is refused and changes nothing.
  assert.equal(h.amend(1, bid.orderId, 290_000, 0), Result.ok);
  assert.equal(h.held(1, usdc.index), 2_900_000_000 + 580_000);
  h.place({ userId: 2, side: 1, priceTicks: 295_000, quantityLots: oneEthLots });
  assert.equal(h.amend(1, bid.orderId, 295_000, 0), Result.postOnlyWouldTake);
  assert.equal(h.held(1, usdc.index), 2_900_000_000 + 580_000);
  // Filled as a maker: the notional and the maker fee leave the hold, nothing is left held.
  h.place({ userId: 2, side: 1, priceTicks: 290_000, quantityLots: oneEthLots });
  const trade = h.trades().find((fill) => fill.makerOrderId === bid.orderId);
  assert.ok(trade);
  assert.equal(trade.makerFeeAtoms, 580_000);
  assert.equal(h.held(1, usdc.index), 0);
  assert.equal(h.available(1, usdc.index), 1_000_000 * usdcAtoms - 2_900_000_000 - 580_000);
  h.audit();
});

test('partial fills keep the order open with its progress; the rest rests', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 4_000 });
  h.place({ userId: 1, side: 1, priceTicks: 300_100, quantityLots: 2_000 });
  const taker = h.place({ userId: 2, side: 0, priceTicks: 300_050, quantityLots: oneEthLots });
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.tradeExecuted, EventKind.orderRested]);
  const slot = h.engine.slotOf(taker.orderId);
  assert.equal(h.engine.orders.status(slot), OrderStatus.partiallyFilled);
  assert.equal(h.engine.orders.filledLots(slot), 4_000);
  assert.equal(h.engine.orders.filledNotionalAtoms(slot), 300_000 * 4_000);
  const book = h.engine.context(eth.id, 0)!.book;
  assert.equal(book.bestPrice(0), 300_050);
  assert.equal(book.remainingLots(slot), 6_000);
  // Held: the rest at its limit plus the unused fee cap.
  const feePaid = feeCap(300_000 * 4_000, 10);
  assert.equal(h.held(2, usdc.index), 300_050 * 6_000 + feeCap(300_050 * oneEthLots, 10) - feePaid);
  h.audit();
});

test('IOC fills what it can and expires the rest; FOK fills all or nothing', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 3_000 });
  const ioc = h.place({ userId: 2, side: 0, timeInForce: TimeInForce.ioc, quantityLots: 5_000 });
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.tradeExecuted, EventKind.orderExpired]);
  assert.equal(h.status(ioc.orderId), undefined);
  assert.equal(h.held(2, usdc.index), 0);

  h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 3_000 });
  const fok = h.place({ userId: 2, side: 0, timeInForce: TimeInForce.fok, quantityLots: 5_000 });
  assert.equal(fok.result, Result.ok);
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.orderExpired]);
  assert.equal(h.engine.context(eth.id, 0)!.book.orderCount, 1);
  h.place({ userId: 2, side: 0, timeInForce: TimeInForce.fok, quantityLots: 3_000 });
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.tradeExecuted]);
  assert.equal(h.engine.context(eth.id, 0)!.book.orderCount, 0);
  h.audit();
});

test('post-only is refused when it would take, and rests otherwise', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 1, priceTicks: 300_000 });
  const taking = h.place({ userId: 2, side: 0, priceTicks: 300_000, postOnly: true });
  assert.equal(taking.result, Result.postOnlyWouldTake);
  assert.deepEqual(h.kinds(), [EventKind.orderRejected]);
  assert.equal(h.held(2, usdc.index), 0);
  const resting = h.place({ userId: 2, side: 0, priceTicks: 299_999, postOnly: true });
  assert.equal(resting.result, Result.ok);
  assert.equal(h.place({ userId: 2, side: 0, postOnly: true, timeInForce: TimeInForce.ioc }).result, Result.invalidOrderOptions);
  h.audit();
});

test('a market order sweeps within the protection band and expires the rest', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 1_000 });
  h.place({ userId: 1, side: 1, priceTicks: 314_999, quantityLots: 1_000 });
  h.place({ userId: 1, side: 1, priceTicks: 315_001, quantityLots: 1_000 }); // beyond 5%
  const market = h.place({ userId: 2, side: 0, orderType: OrderType.market, priceTicks: 0, quantityLots: 5_000 });
  assert.equal(market.result, Result.ok);
  const accepted = h.events(EventKind.orderAccepted)[0]!;
  // Hold at the band's worst price: floor(300 000 × 1.05) = 315 000.
  assert.equal(accepted.kind === EventKind.orderAccepted && accepted.heldAtoms, 315_000 * 5_000 + feeCap(315_000 * 5_000, 10));
  assert.deepEqual(
    h.trades().map((trade) => trade.priceTicks),
    [300_000, 314_999],
  );
  assert.deepEqual(h.kinds().at(-1), EventKind.orderExpired);
  assert.equal(h.held(2, usdc.index), 0);
  assert.equal(h.engine.context(eth.id, 0)!.book.bestPrice(1), 315_001);

  // A market sell with no bids expires at once, filling nothing.
  const lonely = h.place({ userId: 2, side: 1, orderType: OrderType.market, priceTicks: 0, quantityLots: 5 });
  assert.equal(lonely.result, Result.ok);
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.orderExpired]);
  h.audit();
});

test('stop orders wait, trigger when the last price crosses, and cascade in price then id order', () => {
  const h = new Harness();
  for (const user of [1, 2, 3, 4]) h.fund(user);
  // Asks at 300 000, 301 000 and 302 000.
  h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 1_000 });
  h.place({ userId: 1, side: 1, priceTicks: 301_000, quantityLots: 1_000 });
  h.place({ userId: 1, side: 1, priceTicks: 302_000, quantityLots: 1_000 });
  // Buy stops: at 301 000 (market) and at 300 000 (limit at 301 000); placed in the reverse of trigger order.
  const stopHigh = h.place({ userId: 3, orderType: OrderType.stopMarket, priceTicks: 0, stopPriceTicks: 301_000, quantityLots: 1_000 });
  assert.equal(stopHigh.result, Result.ok);
  assert.equal(h.status(stopHigh.orderId), OrderStatus.pending);
  const acceptedStop = h.events(EventKind.orderAccepted)[0]!;
  assert.ok(acceptedStop.kind === EventKind.orderAccepted && acceptedStop.status === OrderStatus.pending);
  const stopLow = h.place({ userId: 4, orderType: OrderType.stopLimit, priceTicks: 301_000, stopPriceTicks: 300_000, quantityLots: 1_000 });
  assert.equal(h.status(stopLow.orderId), OrderStatus.pending);
  // A sell stop far below must not trigger on a rising price.
  const sellStop = h.place({ userId: 3, side: 1, orderType: OrderType.stopMarket, priceTicks: 0, stopPriceTicks: 200_000, quantityLots: 10 });

  // A trade at 300 000 triggers the 300 000 stop, whose fill at 301 000 triggers the 301 000 stop.
  const spark = h.place({ userId: 2, side: 0, priceTicks: 300_000, quantityLots: 1_000 });
  const triggered = h.events(EventKind.stopTriggered).map((event) => event.kind === EventKind.stopTriggered && event.orderId);
  assert.deepEqual(triggered, [stopLow.orderId, stopHigh.orderId]);
  assert.deepEqual(
    h.trades().map((trade) => [trade.takerOrderId, trade.priceTicks]),
    [
      [spark.orderId, 300_000],
      [stopLow.orderId, 301_000],
      [stopHigh.orderId, 302_000],
    ],
  );
  assert.equal(h.status(sellStop.orderId), OrderStatus.pending);
  assert.equal(h.held(3, usdc.index), 0);
  h.audit();
});

test('a stop whose condition already holds triggers at once; untriggered stops cancel cleanly', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 1_000 });
  h.place({ userId: 2, side: 0, priceTicks: 300_000, quantityLots: 500 });
  const sellStop = h.place({ userId: 1, side: 1, orderType: OrderType.stopLimit, priceTicks: 290_000, stopPriceTicks: 305_000, quantityLots: 100 });
  assert.deepEqual(h.kinds(), [EventKind.orderAccepted, EventKind.stopTriggered, EventKind.orderRested]);
  assert.equal(h.status(sellStop.orderId), OrderStatus.open);
  const pending = h.place({ userId: 2, orderType: OrderType.stopLimit, priceTicks: 310_000, stopPriceTicks: 310_000, quantityLots: 100 });
  assert.equal(h.status(pending.orderId), OrderStatus.pending);
  assert.ok(h.held(2, usdc.index) > 0);
  assert.equal(h.cancel(2, pending.orderId), Result.ok);
  assert.equal(h.held(2, usdc.index), 0);
  assert.equal(h.engine.context(eth.id, 0)!.buyStops.length, 0);
  h.audit();
});

test('amend: a reduction keeps priority, a price change or an increase loses it', () => {
  const h = new Harness();
  for (const user of [1, 2, 3]) h.fund(user);
  const first = h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 1_000 });
  const second = h.place({ userId: 2, side: 1, priceTicks: 300_000, quantityLots: 1_000 });
  assert.equal(h.amend(1, first.orderId, 0, 600), Result.ok);
  const amended = h.events(EventKind.orderAmended)[0]!;
  assert.ok(amended.kind === EventKind.orderAmended && amended.priorityKept && amended.heldDeltaAtoms === -400 * 10_000);
  assert.equal(h.held(1, ether.index), 600 * 10_000);
  h.place({ userId: 3, side: 0, priceTicks: 300_000, quantityLots: 100, timeInForce: TimeInForce.ioc });
  assert.equal(h.trades()[0]!.makerOrderId, first.orderId, 'the reduced order kept its place');

  assert.equal(h.amend(1, first.orderId, 0, 2_000), Result.ok); // increase: back of the queue
  h.place({ userId: 3, side: 0, priceTicks: 300_000, quantityLots: 100, timeInForce: TimeInForce.ioc });
  assert.equal(h.trades()[0]!.makerOrderId, second.orderId, 'the increased order lost its place');

  // A price change that crosses trades at once as a taker.
  const bid = h.place({ userId: 3, side: 0, priceTicks: 299_000, quantityLots: 300 });
  assert.equal(h.amend(3, bid.orderId, 300_000, 0), Result.ok);
  assert.deepEqual(h.kinds(), [EventKind.orderAmended, EventKind.tradeExecuted]);
  // Nobody amends somebody else's order, a filled order or a quantity at or below the filled part.
  assert.equal(h.amend(2, first.orderId, 299_000, 0), Result.orderNotFound);
  assert.equal(h.amend(3, bid.orderId, 299_000, 0), Result.orderNotFound);
  assert.equal(h.amend(1, first.orderId, 0, 0), Result.ok);
  h.audit();
});

test('an amend that needs more funds than are available is refused and changes nothing', () => {
  const h = new Harness();
  h.fund(1, 3_100, 0);
  const order = h.place({ userId: 1, priceTicks: 300_000, quantityLots: oneEthLots });
  assert.equal(order.result, Result.ok);
  const held = h.held(1, usdc.index);
  assert.equal(h.amend(1, order.orderId, 0, 2 * oneEthLots), Result.insufficientBalance);
  assert.equal(h.held(1, usdc.index), held);
  assert.equal(h.engine.orders.quantityLots(h.engine.slotOf(order.orderId)), oneEthLots);
  h.audit();
});

test('self-trade prevention modes', () => {
  const cases: Array<[SelfTradePrevention, number[], boolean]> = [
    // mode, events after acceptance, maker still resting
    [SelfTradePrevention.cancelTaker, [EventKind.orderAccepted, EventKind.orderCancelled], true],
    [SelfTradePrevention.cancelMaker, [EventKind.orderAccepted, EventKind.orderCancelled, EventKind.orderRested], false],
    [SelfTradePrevention.cancelBoth, [EventKind.orderAccepted, EventKind.orderCancelled, EventKind.orderCancelled], false],
    [SelfTradePrevention.none, [EventKind.orderAccepted, EventKind.tradeExecuted], false],
  ];
  for (const [stp, kinds, makerRests] of cases) {
    const h = new Harness();
    h.fund(1);
    const maker = h.place({ userId: 1, side: 1, priceTicks: 300_000, quantityLots: 1_000 });
    h.place({ userId: 1, side: 0, priceTicks: 300_000, quantityLots: 1_000, selfTradePrevention: stp });
    assert.deepEqual(h.kinds(), kinds, `stp ${stp}`);
    assert.equal(h.engine.slotOf(maker.orderId) !== noSlot, makerRests, `stp ${stp}`);
    for (const event of h.events(EventKind.orderCancelled)) assert.ok(event.kind === EventKind.orderCancelled && event.reason === 2);
    h.audit();
  }
});

test('client order ids are unique among an account s open orders', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  const first = h.place({ userId: 1, clientOrderId: 'mm-1' });
  assert.equal(first.result, Result.ok);
  assert.equal(h.place({ userId: 1, clientOrderId: 'mm-1' }).result, Result.duplicateClientOrderId);
  assert.equal(h.place({ userId: 2, clientOrderId: 'mm-1' }).result, Result.ok, 'another account may use it');
  assert.equal(h.place({ userId: 1, clientOrderId: 'x'.repeat(65) }).result, Result.invalidClientOrderId);
  // Cancel by client order id, after which the id is free again.
  assert.equal(h.apply({ kind: CommandKind.cancelOrder, ...h.stamp(), userId: 1, mode: 0, orderId: 0, clientOrderId: 'mm-1' }), Result.ok);
  assert.equal(h.place({ userId: 1, clientOrderId: 'mm-1' }).result, Result.ok);
});

test('cancel-all cancels one account s orders on one pair, or on all pairs', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  const sol = markets.pairBySymbol('sol')!;
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: 1, mode: 0, assetId: sol.base.id, amountAtoms: 100 * 100_000_000 }), Result.ok);
  h.place({ userId: 1, priceTicks: 290_000 });
  h.place({ userId: 1, priceTicks: 290_001 });
  h.place({ userId: 1, side: 1, pairId: sol.id, priceTicks: 150_000, quantityLots: 1_000 });
  const other = h.place({ userId: 2, priceTicks: 290_000 });
  assert.equal(h.apply({ kind: CommandKind.cancelAll, ...h.stamp(), userId: 1, mode: 0, pairId: eth.id }), Result.ok);
  assert.equal(h.events(EventKind.orderCancelled).length, 2);
  assert.equal(h.engine.openOrderCount(1, 0), 1);
  assert.notEqual(h.engine.slotOf(other.orderId), noSlot);
  assert.equal(h.apply({ kind: CommandKind.cancelAll, ...h.stamp(), userId: 1, mode: 0, pairId: 0 }), Result.ok);
  assert.equal(h.engine.openOrderCount(1, 0), 0);
  assert.equal(h.held(1, usdc.index), 0);
  h.audit();
});

test('a batch places up to 10 orders, each with its own result', () => {
  const h = new Harness();
  h.fund(1);
  const orders = [
    h.request({ userId: 1, priceTicks: 290_000 }),
    h.request({ userId: 1, priceTicks: 0 }),
    h.request({ userId: 1, priceTicks: 290_001 }),
  ];
  assert.equal(h.apply({ kind: CommandKind.placeBatch, ...h.stamp(), orders }), Result.ok);
  assert.deepEqual(h.engine.batchResults, [Result.ok, Result.priceRequired, Result.ok]);
  assert.equal(h.engine.openOrderCount(1, 0), 2);
  const eleven = Array.from({ length: 11 }, () => h.request({ userId: 1, priceTicks: 280_000 }));
  assert.equal(h.apply({ kind: CommandKind.placeBatch, ...h.stamp(), orders: eleven }), Result.batchTooLarge);
  assert.equal(h.apply({ kind: CommandKind.placeBatch, ...h.stamp(), orders: [] }), Result.batchEmpty);
  assert.equal(h.engine.openOrderCount(1, 0), 2);
  const [a, , c] = orders;
  assert.equal(h.apply({ kind: CommandKind.cancelBatch, ...h.stamp(), userId: 1, mode: 0, orderIds: [a!.orderId, 999_999, c!.orderId] }), Result.ok);
  assert.deepEqual(h.engine.batchResults, [Result.ok, Result.orderNotFound, Result.ok]);
  assert.equal(h.engine.openOrderCount(1, 0), 0);
  h.audit();
});

test('refusals change nothing and say why', () => {
  const h = new Harness();
  h.fund(1, 100, 0);
  const before = [h.available(1, usdc.index), h.held(1, usdc.index)];
  const placedFirst = h.place({ userId: 1, priceTicks: 100, quantityLots: 1 });
  assert.equal(placedFirst.result, Result.ok);
  h.cancel(1, placedFirst.orderId);
  const cases: Array<[Partial<OrderRequest>, number]> = [
    [{ quantityLots: 0 }, Result.quantityOutOfRange],
    [{ quantityLots: eth.quantityLotsMax + 1 }, Result.quantityOutOfRange],
    [{ priceTicks: eth.priceTicksMax + 1 }, Result.priceOutOfRange],
    [{ priceTicks: 1.5 }, Result.priceOutOfRange],
    [{ pairId: 999 }, Result.unknownPair],
    [{ side: 2 as 0 }, Result.invalidSide],
    [{ orderType: 9 as 0 }, Result.invalidOrderType],
    [{ orderType: OrderType.stopLimit }, Result.stopPriceRequired],
    [{ userId: 0 }, Result.invalidUser],
    [{ priceTicks: 300_000, quantityLots: oneEthLots }, Result.insufficientBalance],
    [{ orderId: placedFirst.orderId }, Result.orderIdNotIncreasing],
  ];
  for (const [fields, expected] of cases) {
    const { result } = h.place({ userId: 1, priceTicks: 100, quantityLots: 1, ...fields });
    assert.equal(result, expected, JSON.stringify(fields));
    if (expected !== Result.ok) {
      assert.deepEqual(h.kinds(), [EventKind.orderRejected]);
      const rejected = h.sink.events[0]!;
      assert.ok(rejected.kind === EventKind.orderRejected && rejected.result === expected);
    }
  }
  assert.deepEqual([h.available(1, usdc.index), h.held(1, usdc.index)], before);
  h.audit();
});

test('deposits and withdrawals move supply; a withdrawal beyond available is refused', () => {
  const h = new Harness();
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: 5, mode: 1, assetId: usdc.id, amountAtoms: 500 }), Result.ok);
  assert.deepEqual(h.kinds(), [EventKind.balanceChanged]);
  assert.equal(h.engine.ledger.supply[usdc.index], 500);
  assert.equal(h.apply({ kind: CommandKind.withdraw, ...h.stamp(), userId: 5, mode: 1, assetId: usdc.id, amountAtoms: 501 }), Result.insufficientBalance);
  assert.equal(h.apply({ kind: CommandKind.withdraw, ...h.stamp(), userId: 5, mode: 0, assetId: usdc.id, amountAtoms: 1 }), Result.insufficientBalance);
  assert.equal(h.apply({ kind: CommandKind.withdraw, ...h.stamp(), userId: 5, mode: 1, assetId: usdc.id, amountAtoms: 200 }), Result.ok);
  assert.equal(h.engine.ledger.supply[usdc.index], 300);
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: 5, mode: 1, assetId: 99, amountAtoms: 1 }), Result.unknownAsset);
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: 5, mode: 1, assetId: usdc.id, amountAtoms: 0.5 }), Result.invalidCommand);
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: 5, mode: 1, assetId: usdc.id, amountAtoms: Number.MAX_SAFE_INTEGER }), Result.balanceLimit);
  h.audit();
});

test('a domain account takes deposits (a house treasury) but not withdrawals, and no other reserved id does', () => {
  const h = new Harness();
  const house = domainUserId(3, 0);
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: house, mode: 0, assetId: usdc.id, amountAtoms: 700 }), Result.ok);
  assert.equal(h.engine.ledger.supply[usdc.index], 700);
  assert.equal(h.apply({ kind: CommandKind.withdraw, ...h.stamp(), userId: house, mode: 0, assetId: usdc.id, amountAtoms: 1 }), Result.invalidUser);
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: venueUserId, mode: 0, assetId: usdc.id, amountAtoms: 1 }), Result.invalidUser);
  assert.equal(h.apply({ kind: CommandKind.deposit, ...h.stamp(), userId: domainUserId(999, 0) + domainAccountsMax, mode: 0, assetId: usdc.id, amountAtoms: 1 }), Result.invalidUser);
  assert.equal(h.engine.ledger.supply[usdc.index], 700);
  h.audit();
});

const evmAddress = '0x' + 'ab'.repeat(20);

function withdrawTo(h: Harness, fields: Partial<WithdrawTo>): WithdrawTo {
  return { kind: CommandKind.withdrawTo, ...h.stamp(), userId: 1, assetId: usdc.id, amountAtoms: 250 * usdcAtoms, chainId: 2, address: evmAddress, reference: 'req-1', ...fields };
}

test('a withdrawal to an address debits the live account and reports the balance, then the destination', () => {
  const h = new Harness();
  h.fund(1, 1_000);
  h.fund(1, 1_000, 0, 1);
  const supplyBefore = h.engine.ledger.supply[usdc.index]!;
  assert.equal(h.apply(withdrawTo(h, {})), Result.ok);
  assert.deepEqual(h.sink.events, [
    {
      kind: EventKind.balanceChanged,
      userId: 1,
      mode: 0,
      assetId: usdc.id,
      reason: BalanceReason.withdraw,
      deltaAtoms: -250 * usdcAtoms,
      availableAtoms: 750 * usdcAtoms,
      heldAtoms: 0,
    },
    { kind: EventKind.fundsWithdrawn, userId: 1, mode: 0, assetId: usdc.id, amountAtoms: 250 * usdcAtoms, chainId: 2, address: evmAddress, reference: 'req-1' },
  ]);
  assert.equal(h.available(1, usdc.index), 750 * usdcAtoms);
  assert.equal(h.available(1, usdc.index, 1), 1_000 * usdcAtoms, 'paper funds are not touched');
  assert.equal(h.engine.ledger.supply[usdc.index], supplyBefore - 250 * usdcAtoms);

  // Strings at their limits, and the whole available balance; the kept copy outlives the reused event.
  const address = '9'.repeat(withdrawAddressCharsMax);
  const reference = 'é'.repeat(withdrawReferenceCharsMax);
  assert.equal(h.apply(withdrawTo(h, { chainId: 255, address, reference, amountAtoms: 750 * usdcAtoms })), Result.ok);
  const withdrawn = h.events(EventKind.fundsWithdrawn)[0]!;
  assert.ok(withdrawn.kind === EventKind.fundsWithdrawn && withdrawn.chainId === 255 && withdrawn.address === address && withdrawn.reference === reference);
  assert.deepEqual(copyEvent(withdrawn), withdrawn);
  assert.equal(h.available(1, usdc.index), 0);
  h.audit();
});

test('a refused withdrawal to an address changes nothing and emits nothing', () => {
  const h = new Harness();
  h.fund(1, 1_000);
  h.fund(2, 1_000, 0, 1);
  const before = stateHash(h.engine);
  const cases: Array<[string, Partial<WithdrawTo>, number]> = [
    ['more than available', { amountAtoms: 1_000 * usdcAtoms + 1 }, Result.insufficientBalance],
    ['only paper funds', { userId: 2 }, Result.insufficientBalance],
    ['no account', { userId: 9 }, Result.insufficientBalance],
    ['unknown asset', { assetId: 99 }, Result.unknownAsset],
    ['zero amount', { amountAtoms: 0 }, Result.invalidCommand],
    ['fractional amount', { amountAtoms: 0.5 }, Result.invalidCommand],
    ['bad user', { userId: 0 }, Result.invalidUser],
    ['chain 0', { chainId: 0 }, Result.invalidDestination],
    ['chain 256', { chainId: 256 }, Result.invalidDestination],
    ['fractional chain', { chainId: 1.5 }, Result.invalidDestination],
    ['empty address', { address: '' }, Result.invalidDestination],
    ['address too long', { address: 'a'.repeat(withdrawAddressCharsMax + 1) }, Result.invalidDestination],
    ['reference too long', { reference: 'r'.repeat(withdrawReferenceCharsMax + 1) }, Result.referenceTooLong],
    // The destination is shape and is checked before the funds.
    ['bad destination and no funds', { address: '', amountAtoms: 10_000 * usdcAtoms }, Result.invalidDestination],
  ];
  for (const [name, fields, expected] of cases) {
    assert.equal(h.apply(withdrawTo(h, fields)), expected, name);
    assert.deepEqual(h.kinds(), [], `${name}: no events`);
    assert.equal(stateHash(h.engine), before, `${name}: state unchanged`);
  }
  assert.equal(resultCode(Result.invalidDestination), 'INVALID_DESTINATION');
  assert.equal(resultCode(Result.referenceTooLong), 'REFERENCE_TOO_LONG');
  assert.equal(h.available(1, usdc.index), 1_000 * usdcAtoms);
  h.audit();
});

test('paper and live accounts and books are separate', () => {
  const h = new Harness();
  h.fund(1, 1_000_000, 1_000, 1);
  h.fund(2);
  h.place({ userId: 1, mode: 1, side: 1, priceTicks: 300_000 });
  h.place({ userId: 2, mode: 0, side: 0, priceTicks: 300_000 });
  assert.equal(h.trades().length, 0, 'a live buy does not meet a paper sell');
  assert.equal(h.place({ userId: 1, mode: 0, side: 1 }).result, Result.insufficientBalance, 'paper funds are not live funds');
  h.audit();
});

/** A module that does nothing but exist under `name` (for the port's lookups). */
function idleModule(name: string): DomainModule {
  return {
    name,
    commandKinds: [],
    commandTypes: [],
    apply: () => Result.unknownCommand,
    nextTimerMs: () => noTimerMs,
    runTimers: () => {},
    hash: () => {},
    snapshot: () => null,
    restore: () => {},
  };
}

test('a module being made finds the modules made before it, and follows every fill through onTrade', () => {
  const heard: Array<[number, number, number, number, number]> = [];
  let foundFirst: DomainModule | undefined;
  let foundLater: DomainModule | undefined = idleModule('placeholder');
  const follower = (port: DomainPort): DomainModule => {
    foundFirst = port.domain('first');
    foundLater = port.domain('third');
    port.onTrade((fill) => {
      // The event object is reused by the engine: the listener copies what it keeps.
      assert.equal(fill.kind, EventKind.tradeExecuted);
      const trade = fill as TradeExecuted;
      heard.push([trade.tradeId, trade.takerUserId, trade.makerUserId, trade.quantityLots, trade.takerFeeAtoms]);
    });
    return idleModule('second');
  };
  const h = new Harness({}, [() => idleModule('first'), follower, () => idleModule('third')]);
  assert.equal(foundFirst?.name, 'first');
  assert.equal(foundLater, undefined);
  assert.equal(h.engine.settings.takerFeeBps, 10);
  h.fund(1);
  h.fund(2);
  assert.equal(h.place({ userId: 2, side: 1, priceTicks: 300_000, quantityLots: oneEthLots }).result, Result.ok);
  assert.equal(h.place({ userId: 2, side: 1, priceTicks: 300_100, quantityLots: oneEthLots }).result, Result.ok);
  assert.deepEqual(heard, []);
  const taker = h.place({ userId: 1, side: 0, priceTicks: 300_100, quantityLots: 2 * oneEthLots });
  assert.equal(taker.result, Result.ok);
  const trades = h.sink.events.filter((event): event is TradeExecuted => event.kind === EventKind.tradeExecuted);
  assert.equal(trades.length, 2);
  assert.deepEqual(
    heard,
    trades.map((trade) => [trade.tradeId, 1, 2, oneEthLots, trade.takerFeeAtoms]),
  );
  h.audit();
});
