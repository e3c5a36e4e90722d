/**
 * Fills between the taker being matched and resting orders: the MatchHandler the books call, which moves
 * the money (the trade's notional, both fees, a buyer's price improvement) and reports TradeExecuted.
 */
import { assert } from '../assert.ts';
import type { MatchHandler } from '../book/book.ts';
import { Mode, type Side } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { CancelReason, OrderStatus } from '../events.ts';
import { feeIncrement } from './fees.ts';
import { recordPrint } from './prints.ts';
import { finishCancelled, finishFilled } from '../orders/lifecycle.ts';
import type { Pair } from '../units.ts';

/**
 * Moves the money of one fill. Buyer: pays notional + fee from its hold, gets base, and has the price
 * improvement (hold price above the fill price) released. Seller: pays base from its hold, gets the
 * notional less its fee. The fee account of the mode gets both fees.
 */
function settle(
  engine: EngineState,
  pair: Pair,
  mode: Mode,
  buyer: number,
  seller: number,
  priceTicks: number,
  lots: number,
  notionalAtoms: number,
  baseAtoms: number,
  buyerFeeAtoms: number,
  sellerFeeAtoms: number,
): void {
  const store = engine.orders;
  const ledger = engine.ledger;
  const buyerAccount = store.account(buyer);
  const sellerAccount = store.account(seller);
  const quote = pair.quote.index;
  const improvementAtoms = (store.holdPriceTicks(buyer) - priceTicks) * lots * pair.quoteAtomsPerTickLot;
  assert(improvementAtoms >= 0, 'buyer filled above its hold price');
  ledger.payFromHeld(buyerAccount, sellerAccount, quote, notionalAtoms - sellerFeeAtoms);
  ledger.payFromHeld(buyerAccount, ledger.feeAccount(mode), quote, buyerFeeAtoms + sellerFeeAtoms);
  if (improvementAtoms > 0) ledger.release(buyerAccount, quote, improvementAtoms);
  ledger.payFromHeld(sellerAccount, buyerAccount, pair.base.index, baseAtoms);
  store.setHeldAtoms(buyer, store.heldAtoms(buyer) - notionalAtoms - buyerFeeAtoms - improvementAtoms);
  store.setHeldAtoms(seller, store.heldAtoms(seller) - baseAtoms);
  assert(store.heldAtoms(buyer) >= 0, 'buyer order hold went negative');
  assert(store.heldAtoms(seller) >= 0, 'seller order hold went negative');
}

/**
 * The fills of the taker being matched (the engine's takerSlot and takerContext) against resting orders:
 * the book calls it once per fill, and once per maker that self-trade prevention takes off the book.
 */
export class TakerFills implements MatchHandler {
  constructor(private readonly engine: EngineState) {}

  /** MatchHandler: one fill between the current taker and a maker, settled at the maker's price. */
  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    const engine = this.engine;
    const store = engine.orders;
    const context = engine.takerContext;
    const pair = context.pair;
    const takerSlot = engine.takerSlot;
    const takerSide = store.side(takerSlot) as Side;
    const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
    const baseAtoms = lots * pair.baseAtomsPerLot;
    const takerFeeAtoms = feeIncrement(store.takerNotionalAtoms(takerSlot), notionalAtoms, store.takerFeeBps(takerSlot));
    const makerFeeAtoms = feeIncrement(store.makerNotionalAtoms(makerSlot), notionalAtoms, engine.settings.makerFeeBps);
    store.setTakerNotionalAtoms(takerSlot, store.takerNotionalAtoms(takerSlot) + notionalAtoms);
    store.setMakerNotionalAtoms(makerSlot, store.makerNotionalAtoms(makerSlot) + notionalAtoms);

    const buyer = takerSide === 0 ? takerSlot : makerSlot;
    const seller = takerSide === 0 ? makerSlot : takerSlot;
    const buyerFeeAtoms = takerSide === 0 ? takerFeeAtoms : makerFeeAtoms;
    const sellerFeeAtoms = takerSide === 0 ? makerFeeAtoms : takerFeeAtoms;
    settle(engine, pair, context.mode, buyer, seller, priceTicks, lots, notionalAtoms, baseAtoms, buyerFeeAtoms, sellerFeeAtoms);

    store.setFilledLots(takerSlot, store.filledLots(takerSlot) + lots);
    store.setFilledNotionalAtoms(takerSlot, store.filledNotionalAtoms(takerSlot) + notionalAtoms);
    store.setFilledLots(makerSlot, store.filledLots(makerSlot) + lots);
    store.setFilledNotionalAtoms(makerSlot, store.filledNotionalAtoms(makerSlot) + notionalAtoms);
    store.setStatus(makerSlot, makerRemainingLots === 0 ? OrderStatus.filled : OrderStatus.partiallyFilled);
    store.setStatus(takerSlot, OrderStatus.partiallyFilled);
    context.lastPriceTicks = priceTicks;
    if (context.mode === Mode.live) recordPrint(engine, pair.index, priceTicks, lots);

    const event = engine.trade;
    event.tradeId = ++engine.lastTradeId;
    event.pairId = pair.id;
    event.mode = context.mode;
    event.priceTicks = priceTicks;
    event.quantityLots = lots;
    event.notionalAtoms = notionalAtoms;
    event.takerSide = takerSide;
    event.takerOrderId = store.orderId(takerSlot);
    event.makerOrderId = store.orderId(makerSlot);
    event.takerUserId = engine.ledger.userOf(store.account(takerSlot));
    event.makerUserId = engine.ledger.userOf(store.account(makerSlot));
    event.takerFeeAtoms = takerFeeAtoms;
    event.makerFeeAtoms = makerFeeAtoms;
    event.takerRemainingLots = store.quantityLots(takerSlot) - store.filledLots(takerSlot);
    event.makerRemainingLots = makerRemainingLots;
    engine.sink.onEvent(event);
    if (engine.tradeListeners.length !== 0) for (const listener of engine.tradeListeners) listener(event);

    if (makerRemainingLots === 0) finishFilled(engine, makerSlot);
  }

  /** MatchHandler: self-trade prevention took a maker of the taker's own account off the book. */
  onSelfTradeMakerRemoved(makerSlot: number): void {
    const engine = this.engine;
    finishCancelled(engine, makerSlot, CancelReason.selfTrade, true);
  }
}
