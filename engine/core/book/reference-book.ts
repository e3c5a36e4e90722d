/**
 * The reference order book: obviously correct, deliberately naive. Each side is one array of order
 * objects kept sorted by (price, arrival) with linear scans; every operation is written the simplest way.
 * The differential test drives it and the fast book with the same command streams and requires equal
 * events and state hashes, so the fast book's cleverness is checked against this plain statement of the
 * rules.
 */
import type { SelfTradePrevention, Side } from '../commands.ts';
import { SelfTradePrevention as Stp } from '../commands.ts';
import { Result, type ResultCode } from '../results.ts';
import { assert } from '../assert.ts';
import { noPrice, type Book, type BookFactory, type BookLevel, type MatchHandler, type OrderVisitor } from './book.ts';

interface RestingOrder {
  slot: number;
  account: number;
  side: Side;
  priceTicks: number;
  lots: number;
  arrival: number;
}

export class ReferenceBook implements Book {
  stoppedBySelfTrade = false;
  fillStoppedBySelfTrade = false;
  private readonly bids: RestingOrder[] = [];
  private readonly asks: RestingOrder[] = [];
  private arrivals = 0;

  constructor(private readonly levelsPerSideMax: number) {}

  get orderCount(): number {
    return this.bids.length + this.asks.length;
  }

  private orders(side: Side): RestingOrder[] {
    return side === 0 ? this.bids : this.asks;
  }

  /** True when `a` comes before `b` in priority on the given side. */
  private before(side: Side, a: RestingOrder, b: RestingOrder): boolean {
    if (a.priceTicks !== b.priceTicks) return side === 0 ? a.priceTicks > b.priceTicks : a.priceTicks < b.priceTicks;
    return a.arrival < b.arrival;
  }

  private find(slot: number): RestingOrder | undefined {
    return this.bids.find((order) => order.slot === slot) ?? this.asks.find((order) => order.slot === slot);
  }

  bestPrice(side: Side): number {
    const first = this.orders(side)[0];
    return first === undefined ? noPrice : first.priceTicks;
  }

  levelCount(side: Side): number {
    return new Set(this.orders(side).map((order) => order.priceTicks)).size;
  }

  canRest(side: Side, priceTicks: number): ResultCode {
    const prices = new Set(this.orders(side).map((order) => order.priceTicks));
    if (prices.has(priceTicks)) return Result.ok;
    return prices.size >= this.levelsPerSideMax ? Result.tooManyPriceLevels : Result.ok;
  }

  add(slot: number, account: number, side: Side, priceTicks: number, lots: number): void {
    const order: RestingOrder = { slot, account, side, priceTicks, lots, arrival: this.arrivals++ };
    const list = this.orders(side);
    let index = 0;
    while (index < list.length && this.before(side, list[index]!, order)) index++;
    list.splice(index, 0, order);
  }

  remove(slot: number): number {
    const order = this.find(slot);
    assert(order !== undefined, 'remove of an order not in the book');
    const list = this.orders(order.side);
    list.splice(list.indexOf(order), 1);
    return order.lots;
  }

  reduce(slot: number, remainingLots: number): void {
    const order = this.find(slot);
    assert(order !== undefined && remainingLots > 0 && remainingLots < order.lots, 'reduce out of range');
    order.lots = remainingLots;
  }

  remainingLots(slot: number): number {
    return this.find(slot)?.lots ?? 0;
  }

  private crosses(takerSide: Side, limitPriceTicks: number, maker: RestingOrder): boolean {
    return takerSide === 0 ? maker.priceTicks <= limitPriceTicks : maker.priceTicks >= limitPriceTicks;
  }

  match(
    takerSide: Side,
    limitPriceTicks: number,
    lots: number,
    takerAccount: number,
    selfTradePrevention: SelfTradePrevention,
    handler: MatchHandler,
  ): number {
    this.stoppedBySelfTrade = false;
    const makers = this.orders(takerSide === 0 ? 1 : 0);
    let remaining = lots;
    while (remaining > 0 && makers.length > 0) {
      const maker = makers[0]!;
      if (!this.crosses(takerSide, limitPriceTicks, maker)) break;
      if (maker.account === takerAccount && selfTradePrevention !== Stp.none) {
        if (selfTradePrevention === Stp.cancelTaker) {
          this.stoppedBySelfTrade = true;
          break;
        }
        makers.shift();
        handler.onSelfTradeMakerRemoved(maker.slot, maker.lots);
        if (selfTradePrevention === Stp.cancelBoth) {
          this.stoppedBySelfTrade = true;
          break;
        }
        continue;
      }
      const fill = Math.min(maker.lots, remaining);
      maker.lots -= fill;
      remaining -= fill;
      if (maker.lots === 0) makers.shift();
      handler.onFill(maker.slot, maker.priceTicks, fill, maker.lots);
    }
    return lots - remaining;
  }

  fillableLots(
    takerSide: Side,
    limitPriceTicks: number,
    lots: number,
    takerAccount: number,
    selfTradePrevention: SelfTradePrevention,
  ): number {
    let fillable = 0;
    this.fillStoppedBySelfTrade = false;
    for (const maker of this.orders(takerSide === 0 ? 1 : 0)) {
      if (fillable >= lots || !this.crosses(takerSide, limitPriceTicks, maker)) break;
      if (maker.account === takerAccount && selfTradePrevention !== Stp.none) {
        if (selfTradePrevention === Stp.cancelMaker) continue;
        this.fillStoppedBySelfTrade = true;
        break;
      }
      fillable += maker.lots;
    }
    return Math.min(fillable, lots);
  }

  depth(side: Side, levelsMax: number, out: BookLevel[]): number {
    let written = 0;
    for (const order of this.orders(side)) {
      const last = written > 0 ? out[written - 1] : undefined;
      if (last !== undefined && last.priceTicks === order.priceTicks) {
        last.lots += order.lots;
        last.orders += 1;
        continue;
      }
      if (written === levelsMax) break;
      out[written] = { priceTicks: order.priceTicks, lots: order.lots, orders: 1 };
      written++;
    }
    return written;
  }

  visit(side: Side, visitor: OrderVisitor): void {
    for (const order of this.orders(side)) visitor(order.slot, order.account, order.priceTicks, order.lots);
  }
}

export class ReferenceBookFactory implements BookFactory {
  create(levelsPerSideMax: number): ReferenceBook {
    return new ReferenceBook(levelsPerSideMax);
  }

  ensureSlots(): void {}

  /** Its nodes are objects: nothing to read ahead. */
  touchNeighbours(): number {
    return 0;
  }
}
