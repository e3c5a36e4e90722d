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
import type { SellEstimate } from '../port.ts';
import { venueCutoffMs } from '../venues/quotes.ts';
import { firstAccountSlot } from '../orders/accounts.ts';
import { accountTakerFeeBps, feeCap } from './fees.ts';


/**
 * What an immediate-or-cancel limit sell of `lots` at `limitPriceTicks` by (user, mode) on a pair would fill
 * now, as if the account's own live orders were cancelled first (the caller cancels them before it
 * sells, so that self-trade prevention does not stop the sell): the bids of its own book, and the outside liquidity the
 * taker walk would take (the live venues' fresh bids for a live order; the live hybrid book for a paper
 * order). The taker walk takes these best price first and charges the fee on the order's cumulative
 * notional, so the total does not depend on the order it takes them in. An unknown pair or account, or
 * an order the pair's bounds refuse, fills nothing.
 */
export function estimateSell(engine: EngineState, userId: number, mode: Mode, pairId: number, lots: number, limitPriceTicks: number): SellEstimate {
  const estimate: SellEstimate = { filledLots: 0, filledNotionalAtoms: 0, proceedsAtoms: 0 };
  const pair = Number.isInteger(pairId) ? engine.pairsById[pairId] : undefined;
  const account = engine.ledger.find(userId, mode);
  if (pair === undefined || account === noAccount || (mode !== Mode.live && mode !== Mode.paper)) return estimate;
  if (!Number.isSafeInteger(lots) || lots < 1 || lots > pair.quantityLotsMax || !Number.isSafeInteger(limitPriceTicks) || limitPriceTicks < 1) return estimate;
  const context = engine.contexts[pair.index * 2 + mode]!;
  const levelsMax = engine.limits.priceLevelsPerSideMax;
  const bid: Side = 0;
  const prices: number[] = [];
  const sizes: number[] = [];
  const scratch: BookLevel[] = [];
  const add = (priceTicks: number, levelLots: number): void => {
    if (levelLots <= 0 || priceTicks < limitPriceTicks) return;
    prices.push(priceTicks);
    sizes.push(levelLots);
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
  if (!(store.hasRoom() || ownOrders > 0) || context.book.orderCount - ownRestingHere >= engine.limits.bookOrdersMax) return estimate;
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

  // Best (highest) bid first, until the sell is filled.
  const order = prices.map((_, index) => index).sort((a, b) => prices[b]! - prices[a]!);
  let left = lots;
  for (const index of order) {
    if (left === 0) break;
    const price = prices[index]!;
    const take = Math.min(left, sizes[index]!);
    left -= take;
    estimate.filledLots += take;
    estimate.filledNotionalAtoms += price * take * pair.quoteAtomsPerTickLot;
  }
  estimate.proceedsAtoms = estimate.filledNotionalAtoms - feeCap(estimate.filledNotionalAtoms, accountTakerFeeBps(engine, account));
  return estimate;
}
