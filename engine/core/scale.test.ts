/**
 * Scale orders (PlaceScale): a ladder of resting limits placed all at once under one scale id, or refused
 * whole, with nothing changed, when any rung would fail, when the holds together do not fit the available
 * balance, or when any rung would take liquidity from the hybrid book (resting orders or venue levels; for
 * paper, the live book too).
 *
 * ETH/USDC (pair 1): tick 0.01 USDC, lot 0.0001 ETH; one tick × one lot is one USDC atom.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, GroupKind, OrderType, TimeInForce, type Command, type OrderRequest } from './commands.ts';
import { Engine } from './engine.ts';
import { CollectingSink, EventKind } from './events.ts';
import type { EngineLimits } from './limits.ts';
import { Result } from './results.ts';
import { restoreSnapshot, takeSnapshot } from './snapshot.ts';
import { stateHash } from './state-hash.ts';
import { orderRequest } from './sim/order-request.ts';
import { loadMarkets } from '../runtime/markets.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;

/** A command without its stamps (distributes over the union, so each kind keeps its own fields). */
type Unstamped = Command extends infer C ? (C extends Command ? Omit<C, 'seq' | 'ts'> : never) : never;

class Harness {
  readonly sink = new CollectingSink();
  readonly engine: Engine;
  private seq = 0;

  constructor(limits: Partial<EngineLimits> = {}) {
    this.engine = new Engine({ markets, sink: this.sink, limits });
  }

  apply(command: Unstamped): number {
    this.sink.clear();
    this.seq++;
    return this.engine.apply({ ...command, seq: this.seq, ts: 1_000 + this.seq } as Command);
  }

  fund(userId: number, usdcAtoms: number, etherAtoms = 0, mode: 0 | 1 = 0): void {
    assert.equal(this.apply({ kind: CommandKind.deposit, userId, mode, assetId: usdc.id, amountAtoms: usdcAtoms }), Result.ok);
    if (etherAtoms > 0) assert.equal(this.apply({ kind: CommandKind.deposit, userId, mode, assetId: ether.id, amountAtoms: etherAtoms }), Result.ok);
  }

  /** Rungs from the engine's next order id, one per price. */
  rungs(userId: number, side: 0 | 1, prices: number[], lots: number[], mode: 0 | 1 = 0): OrderRequest[] {
    return prices.map((priceTicks, index) => orderRequest({ orderId: this.engine.lastOrderId + 1 + index, userId, mode, pairId: eth.id, side, priceTicks, quantityLots: lots[index]! }));
  }

  scale(orders: OrderRequest[], scaleId = this.engine.lastScaleId + 1): number {
    return this.apply({ kind: CommandKind.placeScale, scaleId, orders });
  }

  /** Asserts that a command is refused with `result` and that nothing changed. */
  refuses(result: number, orders: OrderRequest[], scaleId?: number): void {
    const hash = stateHash(this.engine);
    assert.equal(this.scale(orders, scaleId), result);
    assert.deepEqual(this.sink.events, [], 'a refused scale emits nothing');
    assert.equal(stateHash(this.engine), hash, 'a refused scale changes nothing');
  }
}

test('a scale places every rung as a resting limit under its scale id, holding what each costs', () => {
  const h = new Harness();
  h.fund(1, 10_000_000_000, 1_000_000_000);
  h.apply({ kind: CommandKind.placeOrder, ...h.rungs(1, 1, [301_000], [10])[0]! });
  const prices = [290_000, 292_500, 295_000, 297_500, 300_000];
  const lots = [100, 200, 300, 400, 500];
  const availableBefore = h.engine.ledger.availableAtoms(h.engine.ledger.find(1, 0), usdc.index);
  const firstId = h.engine.lastOrderId + 1;
  assert.equal(h.scale(h.rungs(1, 0, prices, lots)), Result.ok);
  const events = h.sink.events;
  assert.equal(events[0]!.kind, EventKind.scalePlaced);
  assert.deepEqual(events[0], { kind: EventKind.scalePlaced, scaleId: 1, pairId: eth.id, mode: 0, userId: 1, side: 0, count: 5, quantityLots: 1_500 });
  const accepted = h.sink.events.filter((event) => event.kind === EventKind.orderAccepted);
  assert.deepEqual(
    accepted.map((event) => event.kind === EventKind.orderAccepted && [event.orderId, event.priceTicks, event.quantityLots, event.groupKind, event.groupId]),
    prices.map((price, index) => [firstId + index, price, lots[index], GroupKind.scale, 1]),
  );
  assert.equal(h.sink.events.filter((event) => event.kind === EventKind.orderRested).length, 5);
  assert.equal(h.sink.events.filter((event) => event.kind === EventKind.tradeExecuted).length, 0);
  const held = accepted.reduce((sum, event) => sum + (event.kind === EventKind.orderAccepted ? event.heldAtoms : 0), 0);
  assert.equal(h.engine.ledger.availableAtoms(h.engine.ledger.find(1, 0), usdc.index), availableBefore - held);
  assert.equal(h.engine.lastScaleId, 1);
  assert.equal(h.engine.openOrderCount(1, 0), 6);

  // A sell ladder holds base; scale ids must increase.
  h.refuses(Result.scaleIdNotIncreasing, h.rungs(1, 1, [310_000, 320_000], [10, 10]), 1);
  assert.equal(h.scale(h.rungs(1, 1, [310_000, 320_000], [10, 10]), 5), Result.ok);
  assert.equal(h.engine.ledger.heldAtoms(h.engine.ledger.find(1, 0), ether.index), (10 + 10 + 10) * eth.baseAtomsPerLot);

  // The last scale id is part of the state: in the hash and in snapshots.
  const restored = new Engine({ markets });
  restoreSnapshot(restored, takeSnapshot(h.engine));
  assert.equal(restored.lastScaleId, 5);
  assert.equal(stateHash(restored), stateHash(h.engine));
  assert.equal(h.engine.ledger.audit(), null);
});

test('a scale is refused whole when the holds of all its rungs together do not fit', () => {
  const h = new Harness();
  // A buy of 100 lots at p holds p × 100 atoms plus the 10 bps taker fee cap (the maker fee is 0).
  const hold = (priceTicks: number): number => priceTicks * 100 + Math.ceil((priceTicks * 100 * 10) / 10_000);
  const prices = [300_000, 299_999, 299_998, 299_997, 299_996];
  const four = prices.slice(0, 4).reduce((sum, price) => sum + hold(price), 0);
  h.fund(1, four + hold(prices[4]!) - 1);
  h.refuses(Result.insufficientBalance, h.rungs(1, 0, prices, [100, 100, 100, 100, 100]));
  assert.equal(h.scale(h.rungs(1, 0, prices.slice(0, 4), [100, 100, 100, 100])), Result.ok);
  assert.equal(h.engine.ledger.availableAtoms(h.engine.ledger.find(1, 0), usdc.index), hold(prices[4]!) - 1);
  h.refuses(Result.insufficientBalance, h.rungs(2, 0, [1, 2], [1, 1]));
});

test('a scale that would take liquidity is refused whole: the book, venue levels, and for paper the live book', () => {
  const h = new Harness();
  h.fund(1, 10_000_000_000_000, 100_000_000_000);
  h.fund(2, 10_000_000_000_000, 100_000_000_000);
  h.fund(2, 10_000_000_000_000, 100_000_000_000, 1);
  const ask = h.rungs(1, 1, [300_000], [10])[0]!;
  assert.equal(h.apply({ kind: CommandKind.placeOrder, ...ask }), Result.ok);
  h.refuses(Result.scaleWouldTake, h.rungs(2, 0, [299_000, 299_500, 300_000], [1, 1, 1]));
  h.refuses(Result.scaleWouldTake, h.rungs(2, 0, [299_000, 299_500, 300_000], [1, 1, 1], 1), undefined);
  assert.equal(h.scale(h.rungs(2, 0, [299_000, 299_500, 299_999], [1, 1, 1], 1)), Result.ok, 'below the live ask, a paper ladder rests');

  // An AMM level below the book's ask is liquidity too.
  assert.equal(
    h.apply({ kind: CommandKind.quoteVenue, pairId: eth.id, poolId: 7, chainId: 1, version: 1, bidPriceTicks: [], bidLots: [], askPriceTicks: [299_900], askLots: [50] }),
    Result.ok,
  );
  h.refuses(Result.scaleWouldTake, h.rungs(2, 0, [299_800, 299_900], [1, 1]));
  assert.equal(h.scale(h.rungs(2, 0, [299_800, 299_899], [1, 1])), Result.ok);
  // A sell ladder at or under the best bid would take it.
  h.refuses(Result.scaleWouldTake, h.rungs(1, 1, [299_899, 305_000], [1, 1]));
});

test('rungs must be alike, distinct, resting limits within the limits; ids must increase', () => {
  const h = new Harness({ openOrdersPerAccountMax: 3 });
  h.fund(1, 10_000_000_000_000, 100_000_000_000);
  h.fund(2, 10_000_000_000_000, 100_000_000_000);
  const base = (): OrderRequest[] => h.rungs(1, 0, [290_000, 291_000], [5, 5]);
  const changed = (index: number, fields: Partial<OrderRequest>): OrderRequest[] => base().map((order, at) => (at === index ? { ...order, ...fields } : order));
  h.refuses(Result.invalidScale, h.rungs(1, 0, [290_000], [5]));
  h.refuses(Result.invalidScale, h.rungs(1, 0, Array.from({ length: 51 }, (_, index) => 200_000 + index), new Array<number>(51).fill(1)));
  h.refuses(Result.invalidScale, changed(1, { side: 1 }));
  h.refuses(Result.invalidScale, changed(1, { userId: 2 }));
  h.refuses(Result.invalidScale, changed(1, { mode: 1 }));
  h.refuses(Result.invalidScale, changed(1, { priceTicks: 290_000 }));
  h.refuses(Result.invalidScale, changed(0, { clientOrderId: 'x' }));
  h.refuses(Result.invalidScale, changed(0, { postOnly: true }));
  h.refuses(Result.invalidScale, changed(1, { timeInForce: TimeInForce.ioc }));
  h.refuses(Result.invalidScale, changed(1, { orderType: OrderType.market }));
  h.refuses(Result.orderIdNotIncreasing, changed(1, { orderId: h.engine.lastOrderId + 1 }));
  h.refuses(Result.orderIdNotIncreasing, changed(0, { orderId: h.engine.lastOrderId }));
  h.refuses(Result.quantityOutOfRange, changed(1, { quantityLots: 0 }));
  h.refuses(Result.priceOutOfRange, changed(1, { priceTicks: eth.priceTicksMax + 1 }));
  h.refuses(Result.unknownPair, base().map((order) => ({ ...order, pairId: 999 })));
  h.refuses(Result.insufficientBalance, base().map((order) => ({ ...order, userId: 9 })));
  h.refuses(Result.tooManyOpenOrders, h.rungs(1, 0, [290_000, 291_000, 292_000, 293_000], [1, 1, 1, 1]));
  assert.equal(h.scale(h.rungs(1, 0, [290_000, 291_000, 292_000], [1, 1, 1])), Result.ok);
});
