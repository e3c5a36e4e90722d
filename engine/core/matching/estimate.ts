/**
 * A read-only estimate of an immediate-or-cancel sell: what it would fill and raise against the hybrid book
 * as it is now, without placing anything. A domain that must know before it trades whether selling can
 * raise an amount (a vault paying a withdrawal) asks this first, so that a refusal changes nothing.
 */
import type { BookLevel } from '../book/book.ts';
import { Mode, type Side } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { OrderStatus } from '../events.ts';
import { noAccount } from '../ledger.ts';
import { noSlot } from '../order-store.ts';
import type { SellEstimate, SellLadder as SellLadderPort } from '../port.ts';
import { venueCutoffMs } from '../venues/quotes.ts';
import { firstAccountSlot } from '../orders/accounts.ts';
import { accountTakerFeeBps, feeCap } from './fees.ts';


/**
 * The liquidity an immediate-or-cancel limit sell at `limitPriceTicks` by (user, mode) on a pair would reach
 * now, best bid first, as if the account's own live orders were cancelled first (the caller cancels them
 * before it sells, so that self-trade prevention does not stop the sell): the bids of its own book, and the
 * outside liquidity the taker walk would take (the live venues' fresh bids for a live order; the live
 * hybrid book for a paper order). Read once, `estimate(lots)` tells what a sell of any size would fill and
 * raise, so a caller searching for the size that raises an amount reads the book once, not once per try.
 * An unknown pair or account, or an order the pair's bounds refuse, fills nothing.
 */
export class SellLadder implements SellLadderPort {
  /** Prices and sizes of the levels the sell reaches, best (highest) first. */
  private readonly prices: number[] = [];
  private readonly sizes: number[] = [];
  private quantityLotsMax = 0;
  private quoteAtomsPerTickLot = 0;
  private takerFeeBps = 0;

  constructor(engine: EngineState, userId: number, mode: Mode, pairId: number, limitPriceTicks: number) {
    const pair = Number.isInteger(pairId) ? engine.pairsById[pairId] : undefined;
    const account = engine.ledger.find(userId, mode);
    if (pair === undefined || account === noAccount || (mode !== Mode.live && mode !== Mode.paper)) return;
    if (!Number.isSafeInteger(limitPriceTicks) || limitPriceTicks < 1) return;
    const context = engine.contexts[pair.index * 2 + mode]!;
    const levelsMax = engine.limits.priceLevelsPerSideMax;
    const bid: Side = 0;
    const levels: Array<[number, number]> = [];
    const scratch: BookLevel[] = [];
    const add = (priceTicks: number, levelLots: number): void => {
      if (levelLots > 0 && priceTicks >= limitPriceTicks) levels.push([priceTicks, levelLots]);
    };

    // The own book's bids, less the account's own resting bids there (the caller cancels those first).
    const ownLots = new Map<number, number>();
    const store = engine.orders;
    let ownOrders = 0;
    let ownRestingHere = 0;
    for (let slot = firstAccountSlot(engine, account); slot !== noSlot; slot = store.accountNext(slot)) {
      ownOrders++;
      if (store.context(slot) !== context.index || store.status(slot) === OrderStatus.pending) continue;
      ownRestingHere++;
      if (store.side(slot) !== bid) continue;
      const price = store.priceTicks(slot);
      ownLots.set(price, (ownLots.get(price) ?? 0) + context.book.remainingLots(slot));
    }
    // The placement's room checks (orders/place.ts), with the account's own orders gone: a sell refused
    // for room fills nothing.
    if (!(store.hasRoom() || ownOrders > 0) || context.book.orderCount - ownRestingHere >= engine.limits.bookOrdersMax) return;
    const bookLevels = context.book.depth(bid, levelsMax, scratch);
    for (let index = 0; index < bookLevels; index++) {
      const level = scratch[index]!;
      add(level.priceTicks, level.lots - (ownLots.get(level.priceTicks) ?? 0));
    }

    // The outside liquidity of the taker walk (venues/outside.ts).
    const cutoffMs = venueCutoffMs(engine);
    const venues = engine.venues[pair.index]!;
    const seesOutside = mode === Mode.live || engine.paperSeesLiveBook;
    if (seesOutside) {
      for (let index = venues.firstFresh(bid, cutoffMs); index >= 0; index = venues.nextFresh(bid, index, cutoffMs)) add(venues.priceAt(bid, index), venues.lotsAt(bid, index));
    }
    if (mode === Mode.paper && engine.paperSeesLiveBook) {
      const liveLevels = engine.contexts[pair.index * 2]!.book.depth(bid, levelsMax, scratch);
      for (let index = 0; index < liveLevels; index++) add(scratch[index]!.priceTicks, scratch[index]!.lots);
    }

    // Best (highest) bid first: the order the taker walk takes them in (ties in any order: same price).
    levels.sort((a, b) => b[0] - a[0]);
    for (const [price, size] of levels) {
      this.prices.push(price);
      this.sizes.push(size);
    }
    this.quantityLotsMax = pair.quantityLotsMax;
    this.quoteAtomsPerTickLot = pair.quoteAtomsPerTickLot;
    this.takerFeeBps = accountTakerFeeBps(engine, account);
  }

  /**
   * What the sell of `lots` would fill and credit: the taker walk takes the levels best price first and
   * charges the fee on the order's cumulative notional, so the total does not depend on the order it takes
   * them in. Lots the placement refuses fill nothing.
   */
  estimate(lots: number): SellEstimate {
    const estimate: SellEstimate = { filledLots: 0, filledNotionalAtoms: 0, proceedsAtoms: 0 };
    if (!Number.isSafeInteger(lots) || lots < 1 || lots > this.quantityLotsMax) return estimate;
    let left = lots;
    for (let index = 0; index < this.prices.length && left > 0; index++) {
      const take = Math.min(left, this.sizes[index]!);
      left -= take;
      estimate.filledLots += take;
      estimate.filledNotionalAtoms += this.prices[index]! * take * this.quoteAtomsPerTickLot;
    }
    estimate.proceedsAtoms = estimate.filledNotionalAtoms - feeCap(estimate.filledNotionalAtoms, this.takerFeeBps);
    return estimate;
  }
}

/** What an immediate-or-cancel limit sell of `lots` at `limitPriceTicks` would fill now (`SellLadder`). */
export function estimateSell(engine: EngineState, userId: number, mode: Mode, pairId: number, lots: number, limitPriceTicks: number): SellEstimate {
  return new SellLadder(engine, userId, mode, pairId, limitPriceTicks).estimate(lots);
}
