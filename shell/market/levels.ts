/**
 * Price levels of one side of a book as the market sees it: lots and order count per price, kept from
 * durable events only (the engine itself may already be a batch ahead). Prices are held sorted with the
 * best price last on both sides (bids ascending; asks as negated prices, ascending), so that the levels
 * that come and go most, those at the top of the book, are added and removed at the end of the array,
 * not at its start with every other level shifted (as the asks were when held ascending).
 */
import type { Side } from '../../engine/core/commands.ts';

export interface LevelView {
  priceTicks: number;
  lots: number;
  orders: number;
}

/** One price's totals. */
interface LevelTotals {
  lots: number;
  orders: number;
}

export class SideLevels {
  /** Sort keys, ascending, best last: the price for bids, the negated price for asks. */
  private readonly keys: number[] = [];
  private readonly sign: number;
  /** Totals by price, one object per level, changed in place (one lookup per change of a level). */
  private readonly totals = new Map<number, LevelTotals>();

  constructor(readonly side: Side) {
    this.sign = side === 0 ? 1 : -1;
  }

  get size(): number {
    return this.keys.length;
  }

  lotsAt(priceTicks: number): number {
    return this.totals.get(priceTicks)?.lots ?? 0;
  }

  ordersAt(priceTicks: number): number {
    return this.totals.get(priceTicks)?.orders ?? 0;
  }

  /** Adds `lots` and `orders` (either may be negative) at a price; a level left with no orders is removed. */
  change(priceTicks: number, lots: number, orders: number): void {
    const totals = this.totals.get(priceTicks);
    if (totals === undefined) {
      if (orders <= 0) throw new Error(`levels: ${lots} lots and ${orders} orders at missing price ${priceTicks}`);
      const key = this.sign * priceTicks;
      const index = this.insertionIndex(key);
      if (index === this.keys.length) this.keys.push(key);
      else this.keys.splice(index, 0, key);
      this.totals.set(priceTicks, { lots, orders });
      return;
    }
    const nextOrders = totals.orders + orders;
    const nextLots = totals.lots + lots;
    if (nextOrders < 0 || nextLots < 0 || (nextOrders === 0) !== (nextLots === 0)) {
      throw new Error(`levels: price ${priceTicks} would hold ${nextLots} lots in ${nextOrders} orders`);
    }
    if (nextOrders === 0) {
      const index = this.insertionIndex(this.sign * priceTicks);
      if (index === this.keys.length - 1) this.keys.pop();
      else this.keys.splice(index, 1);
      this.totals.delete(priceTicks);
      return;
    }
    totals.lots = nextLots;
    totals.orders = nextOrders;
  }

  /** The best price, or -1 when the side is empty. */
  best(): number {
    const count = this.keys.length;
    return count === 0 ? -1 : this.sign * this.keys[count - 1]!;
  }

  /** Visits up to `levelsMax` levels, best first. */
  visit(levelsMax: number, visitor: (priceTicks: number, lots: number, orders: number) => void): void {
    const keys = this.keys;
    const last = keys.length - 1;
    const count = Math.min(levelsMax, keys.length);
    for (let index = 0; index < count; index++) {
      const price = this.sign * keys[last - index]!;
      const totals = this.totals.get(price)!;
      visitor(price, totals.lots, totals.orders);
    }
  }

  /** The index of the first key not below `key` (binary search; a level near the top is found near the end). */
  private insertionIndex(key: number): number {
    const keys = this.keys;
    let low = 0;
    let high = keys.length;
    if (high === 0 || keys[high - 1]! < key) return high;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (keys[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
