/**
 * The taker walk: an order that can trade takes price first from its own book and the outside liquidity of
 * its side (at one price the book's resting orders first), then rests, expires or is cancelled by
 * what is left. Fill-or-kill orders are counted before they take anything.
 */
import { noPrice, type Book } from '../book/book.ts';
import { OrderType, SelfTradePrevention, TimeInForce, type Side } from '../commands.ts';
import type { BookContext, EngineState } from '../engine-state.ts';
import { CancelReason, ExpireReason } from '../events.ts';
import { buyBand, sellBand } from './fees.ts';
import { hybridBest } from './hybrid.ts';
import { noSlot } from '../order-store.ts';
import { finishCancelled, finishExpired, finishFilled } from '../orders/lifecycle.ts';
import { Result } from '../results.ts';
import { onOutsideFill, outsideSource, type VirtualSource } from '../venues/outside.ts';

/**
 * Runs a live (non-pending) order as a taker, then rests, expires or cancels what is left. It takes price
 * first from its own book and the outside liquidity of its side (the live venues for a live order; the
 * live hybrid book, read-only, for a paper order); at one price the book's resting orders come first.
 */
export function execute(engine: EngineState, context: BookContext, slot: number): void {
  const store = engine.orders;
  const book = context.book;
  const side = store.side(slot) as Side;
  const orderType = store.orderType(slot);
  const timeInForce = store.timeInForce(slot);
  const account = store.account(slot);
  const stp = store.selfTradePrevention(slot) as SelfTradePrevention;
  const wantedLots = store.quantityLots(slot) - store.filledLots(slot);
  const opposite: Side = side === 0 ? 1 : 0;

  let limitPriceTicks: number;
  if (orderType === OrderType.market || orderType === OrderType.stopMarket) {
    const best = hybridBest(engine, context, opposite);
    if (best === noPrice) {
      finishExpired(engine, slot, ExpireReason.market);
      return;
    }
    limitPriceTicks = side === 0 ? Math.min(buyBand(engine, best), store.holdPriceTicks(slot)) : sellBand(engine, best);
  } else {
    limitPriceTicks = store.priceTicks(slot);
  }
  const source = outsideSource(engine, context, opposite, limitPriceTicks, wantedLots);
  if (timeInForce === TimeInForce.fok && fillableLots(book, source, side, limitPriceTicks, wantedLots, account, stp) < wantedLots) {
    finishExpired(engine, slot, ExpireReason.fillOrKill);
    return;
  }

  engine.takerSlot = slot;
  engine.takerContext = context;
  let filledLots = 0;
  for (;;) {
    const outsidePrice = source === null ? noPrice : source.bestPrice();
    const outsideUsable = outsidePrice !== noPrice && (side === 0 ? outsidePrice <= limitPriceTicks : outsidePrice >= limitPriceTicks);
    // The book first, up to the outside's best price inclusive: at one price resting orders come first.
    filledLots += book.match(side, outsideUsable ? outsidePrice : limitPriceTicks, wantedLots - filledLots, account, stp, engine.takerFills);
    if (filledLots === wantedLots || book.stoppedBySelfTrade || !outsideUsable) break;
    filledLots += takeOutside(engine, source!, outsidePrice, wantedLots - filledLots);
    if (filledLots === wantedLots) break;
  }
  engine.takerSlot = noSlot;

  if (filledLots === wantedLots) {
    finishFilled(engine, slot);
  } else if (book.stoppedBySelfTrade) {
    finishCancelled(engine, slot, CancelReason.selfTrade);
  } else if (orderType === OrderType.market || orderType === OrderType.stopMarket) {
    finishExpired(engine, slot, ExpireReason.market);
  } else if (timeInForce !== TimeInForce.gtc) {
    finishExpired(engine, slot, timeInForce === TimeInForce.fok ? ExpireReason.fillOrKill : ExpireReason.immediateOrCancel);
  } else if (orderType === OrderType.stopLimit && (book.orderCount >= engine.limits.bookOrdersMax || book.canRest(side, limitPriceTicks) !== Result.ok)) {
    // Limits and amends were checked for room before they changed anything; a stop-limit was accepted
    // while pending, and the book may have filled up since.
    finishExpired(engine, slot, ExpireReason.immediateOrCancel);
  } else {
    rest(engine, context, slot, side, account, limitPriceTicks, wantedLots - filledLots);
  }
}

/** Puts what is left of a live limit order on its book and says so (the end of a taker walk that rests). */
export function rest(engine: EngineState, context: BookContext, slot: number, side: Side, account: number, priceTicks: number, remainingLots: number): void {
  context.book.add(slot, account, side, priceTicks, remainingLots);
  const event = engine.rested;
  event.orderId = engine.orders.orderId(slot);
  event.pairId = context.pair.id;
  event.mode = context.mode;
  event.side = side;
  event.priceTicks = priceTicks;
  event.remainingLots = remainingLots;
  engine.sink.onEvent(event);
}

/**
 * What a taker would fill from its book and the outside source together (capped at `lots`), as the
 * match loop in `execute` would take it: at each outside price the book first, up to that price; a stop
 * by self-trade prevention in the book ends the count where it stands.
 */
function fillableLots(book: Book, source: VirtualSource | null, side: Side, limitPriceTicks: number, lots: number, account: number, stp: SelfTradePrevention): number {
  let outsideLots = 0;
  let counted = -1;
  source?.forEachLevel((priceTicks, levelLots) => {
    if (side === 0 ? priceTicks > limitPriceTicks : priceTicks < limitPriceTicks) return false;
    const fromBook = book.fillableLots(side, priceTicks, lots, account, stp);
    if (book.fillStoppedBySelfTrade) {
      counted = fromBook + outsideLots;
      return false;
    }
    outsideLots += levelLots;
    if (fromBook + outsideLots >= lots) {
      counted = lots;
      return false;
    }
    return true;
  });
  if (counted >= 0) return Math.min(lots, counted);
  return Math.min(lots, book.fillableLots(side, limitPriceTicks, lots, account, stp) + outsideLots);
}

/** Takes the outside levels at exactly `priceTicks`, best first, up to `lots`; returns the lots taken. */
function takeOutside(engine: EngineState, source: VirtualSource, priceTicks: number, lots: number): number {
  let taken = 0;
  while (taken < lots && source.bestPrice() === priceTicks) {
    const fill = Math.min(lots - taken, source.headLots());
    const venueId = source.headVenue();
    const chainId = source.headChain();
    source.consumeHead(fill);
    taken += fill;
    onOutsideFill(engine, venueId, chainId, priceTicks, fill);
  }
  return taken;
}
