/**
 * Outside liquidity on the taker's path: what a taker takes from (the live venues' fresh levels, or a copy
 * of the live hybrid book for a paper order), and the settlement of a fill against it through the mode's
 * venue account, reported as AmmFill.
 */
import { assert } from '../assert.ts';
import { noPrice } from '../book/book.ts';
import { Mode, type Side } from '../commands.ts';
import type { BookContext, EngineState } from '../engine-state.ts';
import { Liquidity, OrderStatus } from '../events.ts';
import { noAccount } from '../ledger.ts';
import { venueUserId } from '../limits.ts';
import { feeIncrement } from '../matching/fees.ts';
import { recordPrint } from '../matching/prints.ts';
import { ensureAccountLists } from '../orders/accounts.ts';
import type { Pair } from '../units.ts';
import type { LiveVenueLevels, VirtualLevels } from '../virtual-levels.ts';
import { venueCutoffMs } from './quotes.ts';

/** What a taker takes outside liquidity from: a live venue view or a paper order's copy of the live book. */
export type VirtualSource = LiveVenueLevels | VirtualLevels;

/**
 * The outside liquidity a taker of `context` takes from on `side` (the side it takes from): the live
 * venues' fresh levels for a live order; a copy of the live hybrid book up to the taker's limit and
 * size for a paper order; null when there is none.
 */
export function outsideSource(engine: EngineState, context: BookContext, side: Side, limitPriceTicks: number, wantedLots: number): VirtualSource | null {
  const cutoffMs = venueCutoffMs(engine);
  const venues = engine.venues[context.pair.index]!;
  if (context.mode === Mode.live) {
    if (venues.levelCount(side) === 0) return null;
    engine.liveVenueLevels.reset(venues, side, cutoffMs);
    return engine.liveVenueLevels;
  }
  if (!engine.paperSeesLiveBook) return null;
  const liveBook = engine.contexts[context.pair.index * 2]!.book;
  engine.paperVirtual.load(side, limitPriceTicks, wantedLots, liveBook, venues, cutoffMs, engine.limits.priceLevelsPerSideMax);
  return engine.paperVirtual.bestPrice() === noPrice ? null : engine.paperVirtual;
}

/**
 * The current taker filled against outside liquidity at `priceTicks`: it pays (buys) or receives (sells)
 * the notional and the taker fee as against a maker, through the mode's venue account, which passes the
 * notional out to the venue and the base in from it (or the reverse) and ends every fill at zero.
 */
export function onOutsideFill(engine: EngineState, venueId: number, chainId: number, priceTicks: number, lots: number): void {
  const store = engine.orders;
  const context = engine.takerContext;
  const pair = context.pair;
  const slot = engine.takerSlot;
  const side = store.side(slot) as Side;
  const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
  const feeAtoms = feeIncrement(store.takerNotionalAtoms(slot), notionalAtoms, store.takerFeeBps(slot));
  store.setTakerNotionalAtoms(slot, store.takerNotionalAtoms(slot) + notionalAtoms);
  settleOutside(engine, pair, context.mode, slot, side, priceTicks, lots, notionalAtoms, feeAtoms);
  store.setFilledLots(slot, store.filledLots(slot) + lots);
  store.setFilledNotionalAtoms(slot, store.filledNotionalAtoms(slot) + notionalAtoms);
  store.setStatus(slot, OrderStatus.partiallyFilled);
  context.lastPriceTicks = priceTicks;
  if (context.mode === Mode.live) recordPrint(engine, pair.index, priceTicks, lots);
  emitAmmFill(engine, context, slot, Liquidity.taker, priceTicks, lots, notionalAtoms, feeAtoms, venueId, chainId);
}

/** The venue account of a mode, opened on first use (a transit account: every fill leaves it at zero). */
function venueAccount(engine: EngineState, mode: Mode): number {
  const account = engine.ledger.findOrOpen(venueUserId, mode);
  assert(account !== noAccount, 'no room for the venue account');
  ensureAccountLists(engine, account);
  return account;
}

/**
 * Moves the money of an outside fill of our order in `slot`. A buy pays the notional and its fee from
 * its hold (price improvement released as against a maker) and gets the base; a sell pays the base from
 * its hold and gets the notional less its fee. The venue account passes the outgoing asset out of the
 * platform and the incoming one in (supply moves as by a withdrawal and a deposit).
 */
export function settleOutside(engine: EngineState, pair: Pair, mode: Mode, slot: number, side: Side, priceTicks: number, lots: number, notionalAtoms: number, feeAtoms: number): void {
  const store = engine.orders;
  const ledger = engine.ledger;
  const account = store.account(slot);
  const venue = venueAccount(engine, mode);
  const quote = pair.quote.index;
  const base = pair.base.index;
  const baseAtoms = lots * pair.baseAtomsPerLot;
  if (side === 0) {
    const improvementAtoms = (store.holdPriceTicks(slot) - priceTicks) * lots * pair.quoteAtomsPerTickLot;
    assert(improvementAtoms >= 0, 'buyer filled above its hold price');
    ledger.payFromHeld(account, venue, quote, notionalAtoms);
    ledger.payFromHeld(account, ledger.feeAccount(mode), quote, feeAtoms);
    if (improvementAtoms > 0) ledger.release(account, quote, improvementAtoms);
    ledger.withdraw(venue, quote, notionalAtoms);
    ledger.deposit(venue, base, baseAtoms);
    ledger.payFromAvailable(venue, account, base, baseAtoms);
    store.setHeldAtoms(slot, store.heldAtoms(slot) - notionalAtoms - feeAtoms - improvementAtoms);
  } else {
    ledger.payFromHeld(account, venue, base, baseAtoms);
    ledger.withdraw(venue, base, baseAtoms);
    ledger.deposit(venue, quote, notionalAtoms);
    ledger.payFromAvailable(venue, account, quote, notionalAtoms - feeAtoms);
    ledger.payFromAvailable(venue, ledger.feeAccount(mode), quote, feeAtoms);
    store.setHeldAtoms(slot, store.heldAtoms(slot) - baseAtoms);
  }
  assert(store.heldAtoms(slot) >= 0, 'order hold went negative in an outside fill');
}

export function emitAmmFill(engine: EngineState, context: BookContext, slot: number, liquidity: Liquidity, priceTicks: number, lots: number, notionalAtoms: number, feeAtoms: number, venueId: number, chainId: number): void {
  const store = engine.orders;
  const event = engine.ammFilled;
  event.tradeId = ++engine.lastTradeId;
  event.pairId = context.pair.id;
  event.mode = context.mode;
  event.orderId = store.orderId(slot);
  event.userId = engine.ledger.userOf(store.account(slot));
  event.side = store.side(slot) as Side;
  event.liquidity = liquidity;
  event.priceTicks = priceTicks;
  event.quantityLots = lots;
  event.notionalAtoms = notionalAtoms;
  event.feeAtoms = feeAtoms;
  event.remainingLots = store.quantityLots(slot) - store.filledLots(slot);
  event.venueId = venueId;
  event.chainId = chainId;
  engine.sink.onEvent(event);
  if (engine.tradeListeners.length !== 0) for (const listener of engine.tradeListeners) listener(event);
}
