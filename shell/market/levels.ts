/**
 * Price levels of one side of a book as the market sees it: lots and order count per price, kept from
 * durable events only (the engine itself may already be a batch ahead). Prices are held in ascending
 * order; the best price is the last for bids and the first for asks.
 */
import type { Side } from '../../engine/core/commands.ts';

export interface LevelView {
  priceTicks: number;
  lots: number;
  orders: number;
}

export class SideLevels {
  private readonly prices: number[] = [];
  private readonly lots = new Map<number, number>();
  private readonly orders = new Map<number, number>();

  constructor(readonly side: Side) {}

  get size(): number {
    return this.prices.length;
  }

  lotsAt(priceTicks: number): number {
    return this.lots.get(priceTicks) ?? 0;
  }

  ordersAt(priceTicks: number): number {
    return this.orders.get(priceTicks) ?? 0;
  }

  /** Adds `lots` and `orders` (either may be negative) at a price; a level left with no orders is removed. */
  change(priceTicks: number, lots: number, orders: number): void {
    const previousOrders = this.orders.get(priceTicks);
    if (previousOrders === undefined) {
      if (orders <= 0) throw new Error(`levels: ${lots} lots and ${orders} orders at missing price ${priceTicks}`);
      this.prices.splice(this.insertionIndex(priceTicks), 0, priceTicks);
      this.lots.set(priceTicks, lots);
      this.orders.set(priceTicks, orders);
      return;
    }
    const nextOrders = previousOrders + orders;
    const nextLots = this.lots.get(priceTicks)! + lots;
    if (nextOrders < 0 || nextLots < 0 || (nextOrders === 0) !== (nextLots === 0)) {
      throw new Error(`levels: price ${priceTicks} would hold ${nextLots} lots in ${nextOrders} orders`);
    }
    if (nextOrders === 0) {
      this.prices.splice(this.insertionIndex(priceTicks), 1);
      this.lots.delete(priceTicks);
      this.orders.delete(priceTicks);
      return;
    }
    this.lots.set(priceTicks, nextLots);
    this.orders.set(priceTicks, nextOrders);
  }

  /** The best price, or -1 when the side is empty. */
  best(): number {
    const count = this.prices.length;
    if (count === 0) return -1;
    return this.side === 0 ? this.prices[count - 1]! : this.prices[0]!;
  }

  /** Visits up to `levelsMax` levels, best first. */
  visit(levelsMax: number, visitor: (priceTicks: number, lots: number, orders: number) => void): void {
    const prices = this.prices;
    const count = Math.min(levelsMax, prices.length);
    for (let index = 0; index < count; index++) {
      const price = this.side === 0 ? prices[prices.length - 1 - index]! : prices[index]!;
      visitor(price, this.lots.get(price)!, this.orders.get(price)!);
    }
  }

  /** The index of the first price not below `priceTicks` (binary search). */
  private insertionIndex(priceTicks: number): number {
    const prices = this.prices;
    let low = 0;
    let high = prices.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (prices[middle]! < priceTicks) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
