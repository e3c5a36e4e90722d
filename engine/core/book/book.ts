/**
 * The order book contract shared by the fast book and the naive reference book. A book holds the resting
 * orders of one pair in one mode and walks them in price-time priority when a taker arrives. It knows
 * nothing of balances, fees or order types: the engine decides the taker's limit price (a market order's
 * is its protection band) and receives each fill through `MatchHandler`.
 *
 * Orders are named by the engine's slot number, so the fast book can index typed arrays directly.
 */
import type { SelfTradePrevention, Side } from '../commands.ts';
import type { ResultCode } from '../results.ts';

/** No price: an empty side. */
export const noPrice = -1;

export interface MatchHandler {
  /**
   * One fill against the maker in `makerSlot`, already applied to the book: when `makerRemainingLots`
   * is 0 the maker has left the book. Called in price-time order; must not modify the book.
   */
  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void;
  /** Self-trade prevention removed a maker of the taker's own account (cancel_maker, cancel_both). */
  onSelfTradeMakerRemoved(makerSlot: number, remainingLots: number): void;
}

export interface BookLevel {
  priceTicks: number;
  lots: number;
  orders: number;
}

/** Visits resting orders in priority order. */
export type OrderVisitor = (slot: number, account: number, priceTicks: number, lots: number) => void;

export interface Book {
  /** Resting orders in the book. */
  readonly orderCount: number;
  /** Set by `match`: the taker met its own order under cancel_taker or cancel_both and must stop. */
  readonly stoppedBySelfTrade: boolean;
  /** Best price of the resting `side`, or `noPrice`. */
  bestPrice(side: Side): number;
  /** Price levels holding resting orders on `side`. */
  levelCount(side: Side): number;
  /** Result.ok, or why an order at this price cannot rest (too many price levels). */
  canRest(side: Side, priceTicks: number): ResultCode;
  /** Rests an order at the back of its price level. */
  add(slot: number, account: number, side: Side, priceTicks: number, lots: number): void;
  /** Removes a resting order; returns the lots it still had. */
  remove(slot: number): number;
  /** Lowers a resting order's remaining lots in place, keeping its priority. */
  reduce(slot: number, remainingLots: number): void;
  remainingLots(slot: number): number;
  /**
   * Fills a taker of `takerSide` against the opposite side at prices no worse than `limitPriceTicks`,
   * up to `lots`; returns the lots filled.
   */
  match(
    takerSide: Side,
    limitPriceTicks: number,
    lots: number,
    takerAccount: number,
    selfTradePrevention: SelfTradePrevention,
    handler: MatchHandler,
  ): number;
  /** Set by `fillableLots`: the count stopped at an order of the taker's own account (cancel_taker, cancel_both). */
  readonly fillStoppedBySelfTrade: boolean;
  /** What `match` would fill with the same arguments, capped at `lots`, without changing anything. */
  fillableLots(
    takerSide: Side,
    limitPriceTicks: number,
    lots: number,
    takerAccount: number,
    selfTradePrevention: SelfTradePrevention,
  ): number;
  /** Up to `levelsMax` aggregated levels of `side`, best first, into `out`; returns the count written. */
  depth(side: Side, levelsMax: number, out: BookLevel[]): number;
  /** Every resting order of `side`, best first, oldest first within a level. */
  visit(side: Side, visitor: OrderVisitor): void;
}

/** Makes books; the fast kind shares one node arena among all its books, sized to the engine's slots. */
export interface BookFactory {
  create(levelsPerSideMax: number): Book;
  /** Called when the engine's order store grows, before any slot at or past the old capacity is used. */
  ensureSlots(capacity: number): void;
  /**
   * A read ahead of use (`Engine.applyRun`): reads a word of the node records of `slot`'s neighbours in its
   * level's list, which cancelling or moving the order will write, and returns them combined (a value to
   * keep, so that the reads are not dropped; it means nothing). `slot` need not be resting: any slot below
   * the store's capacity may be passed, and nothing changes. Books whose nodes are not packed records
   * return 0.
   */
  touchNeighbours(slot: number): number;
}
