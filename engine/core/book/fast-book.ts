/**
 * The fast order book. No allocation per order: resting orders are nodes in packed records indexed by the
 * engine's order slot (for the engine's own books, the first bytes of the order's record in the order
 * store), linked into intrusive doubly-linked FIFO lists, one per price level.
 *
 * Levels live in a per-book struct-of-arrays pool. Each side keeps its levels in a price-sorted typed
 * array with the best price at the end, so the best level is read, emptied and popped in O(1), and new
 * levels near the top of the book (where almost all of them appear) are inserted with a short shift.
 * A level that empties is left in place, marked empty, until it reaches the end of the array (popped) or
 * empties outnumber live levels (one compaction pass, amortised O(1) per removal); meanwhile an order at
 * that price reuses it without any search of the sorted array. Cancel is therefore O(1): unlink the node,
 * update two counters.
 *
 * `operations` counts node and level touches so that tests can assert complexity by counting.
 */
import type { SelfTradePrevention, Side } from '../commands.ts';
import { SelfTradePrevention as Stp } from '../commands.ts';
import { Result, type ResultCode } from '../results.ts';
import { assert } from '../assert.ts';
import { grownFloat64, grownInt32, grownUint8 } from '../typed-arrays.ts';
import { IntMap, missing } from '../int-map.ts';
import { nodeBytes } from '../order-store.ts';
import { noPrice, type Book, type BookFactory, type BookLevel, type MatchHandler, type OrderVisitor } from './book.ts';

const nil = -1;

/**
 * Where the records' node fields live: a buffer and its two views, of which the first `nodeBytes` of
 * every `recordBytes`-byte record are the node (order-store.ts lays its records out so).
 */
export interface NodeRecords {
  readonly f64: Float64Array<ArrayBuffer>;
  readonly i32: Int32Array<ArrayBuffer>;
}

/**
 * Per-order node fields, shared by every fast book of one factory (one slot is in at most one book):
 * `lots` (float64) first, then `next`, `prev`, `level` and `account` (int32), at the start of a record of
 * `recordBytes` bytes. A factory over an engine's order store keeps them in the orders' own 128-byte
 * records, so that touching an order touches one record (order-store.ts); a factory of its own (a domain's
 * books over its own slots) keeps them in packed 32-byte records. Either way walking a level or unlinking
 * a node touches one cache line per order rather than one per field.
 */
class NodeArena {
  capacity = 0;
  private f64 = new Float64Array(0);
  private i32 = new Int32Array(0);
  private readonly f64Stride: number;
  private readonly i32Stride: number;

  constructor(
    private readonly recordBytes: number,
    private readonly records: NodeRecords | null,
  ) {
    assert(recordBytes % 8 === 0 && recordBytes >= nodeBytes, 'node records hold a node');
    this.f64Stride = recordBytes / 8;
    this.i32Stride = recordBytes / 4;
  }

  ensure(capacity: number): void {
    if (this.records !== null) {
      // The order store has grown its buffer already: read the new views.
      assert(this.records.i32.length >= capacity * this.i32Stride, 'order records smaller than the slots');
      this.f64 = this.records.f64;
      this.i32 = this.records.i32;
      this.capacity = capacity;
      return;
    }
    if (capacity <= this.capacity) return;
    const buffer = new ArrayBuffer(capacity * this.recordBytes);
    new Uint8Array(buffer).set(new Uint8Array(this.f64.buffer));
    this.f64 = new Float64Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.capacity = capacity;
  }

  lots(slot: number): number {
    return this.f64[slot * this.f64Stride]!;
  }
  setLots(slot: number, value: number): void {
    this.f64[slot * this.f64Stride] = value;
  }
  next(slot: number): number {
    return this.i32[slot * this.i32Stride + 2]!;
  }
  setNext(slot: number, value: number): void {
    this.i32[slot * this.i32Stride + 2] = value;
  }
  prev(slot: number): number {
    return this.i32[slot * this.i32Stride + 3]!;
  }
  setPrev(slot: number, value: number): void {
    this.i32[slot * this.i32Stride + 3] = value;
  }
  level(slot: number): number {
    return this.i32[slot * this.i32Stride + 4]!;
  }
  setLevel(slot: number, value: number): void {
    this.i32[slot * this.i32Stride + 4] = value;
  }
  account(slot: number): number {
    return this.i32[slot * this.i32Stride + 5]!;
  }

  /**
   * A word of each of `slot`'s list neighbours' nodes, combined (`BookFactory.touchNeighbours`). The links of
   * a slot that does not rest are whatever it last held, or 0 in a slot never used: still slots below the
   * capacity, but checked, so that a read never leaves the array.
   */
  touchNeighbours(slot: number): number {
    const next = this.next(slot);
    const prev = this.prev(slot);
    const capacity = this.capacity;
    let touched = 0;
    if (next >= 0 && next < capacity) touched ^= this.account(next);
    if (prev >= 0 && prev < capacity) touched ^= this.account(prev);
    return touched;
  }
  setAccount(slot: number, value: number): void {
    this.i32[slot * this.i32Stride + 5] = value;
  }
}

/** Price levels of both sides of one book. */
class LevelPool {
  capacity = 0;
  count = 0;
  freeHead = nil;
  price = new Float64Array(0);
  lots = new Float64Array(0);
  orders = new Int32Array(0);
  head = new Int32Array(0);
  tail = new Int32Array(0);
  side = new Uint8Array(0);

  allocate(side: Side, priceTicks: number): number {
    let level: number;
    if (this.freeHead !== nil) {
      level = this.freeHead;
      this.freeHead = this.head[level]!;
    } else {
      if (this.count === this.capacity) this.grow();
      level = this.count++;
    }
    this.price[level] = priceTicks;
    this.lots[level] = 0;
    this.orders[level] = 0;
    this.head[level] = nil;
    this.tail[level] = nil;
    this.side[level] = side;
    return level;
  }

  free(level: number): void {
    this.head[level] = this.freeHead;
    this.freeHead = level;
  }

  private grow(): void {
    const capacity = Math.max(64, this.capacity * 2);
    this.price = grownFloat64(this.price, capacity);
    this.lots = grownFloat64(this.lots, capacity);
    this.orders = grownInt32(this.orders, capacity);
    this.head = grownInt32(this.head, capacity);
    this.tail = grownInt32(this.tail, capacity);
    this.side = grownUint8(this.side, capacity);
    this.capacity = capacity;
  }
}

/**
 * One side's levels sorted by price with the best at the end: bids ascending, asks descending.
 * Levels found empty are kept (see the file comment) and counted in `empty`.
 */
class SortedLevels {
  length = 0;
  empty = 0;
  prices = new Float64Array(64);
  levels = new Int32Array(64);
  /** Price → level, for every level in the sorted array (empty ones included). */
  readonly byPrice = new IntMap(64);

  constructor(readonly isBid: boolean) {}

  /** Index at which `priceTicks` would be inserted so that the order stays sorted. */
  insertionIndex(priceTicks: number): number {
    // Orders arrive near the top of the book: look at the end first.
    let high = this.length;
    if (high === 0 || this.better(priceTicks, this.prices[high - 1]!)) return high;
    let low = 0;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.better(priceTicks, this.prices[middle]!)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Whether price `a` is better than price `b` on this side. */
  better(a: number, b: number): boolean {
    return this.isBid ? a > b : a < b;
  }

  insert(index: number, priceTicks: number, level: number): void {
    if (this.length === this.prices.length) {
      this.prices = grownFloat64(this.prices, this.length * 2);
      this.levels = grownInt32(this.levels, this.length * 2);
    }
    if (index < this.length) {
      this.prices.copyWithin(index + 1, index, this.length);
      this.levels.copyWithin(index + 1, index, this.length);
    }
    this.prices[index] = priceTicks;
    this.levels[index] = level;
    this.length++;
    this.byPrice.set(priceTicks, level);
  }
}

export class FastBook implements Book {
  orderCount = 0;
  stoppedBySelfTrade = false;
  fillStoppedBySelfTrade = false;
  /** Node and level touches, for complexity tests. */
  operations = 0;
  private readonly pool = new LevelPool();
  private readonly bids = new SortedLevels(true);
  private readonly asks = new SortedLevels(false);

  constructor(
    private readonly nodes: NodeArena,
    private readonly levelsPerSideMax: number,
  ) {}

  private sideLevels(side: Side): SortedLevels {
    return side === 0 ? this.bids : this.asks;
  }

  /** The best live level of a side (popping empties off the end), or nil. */
  private bestLevel(sorted: SortedLevels): number {
    const pool = this.pool;
    while (sorted.length > 0) {
      const level = sorted.levels[sorted.length - 1]!;
      if (pool.orders[level]! > 0) return level;
      this.operations++;
      sorted.length--;
      sorted.empty--;
      sorted.byPrice.delete(pool.price[level]!);
      pool.free(level);
    }
    return nil;
  }

  bestPrice(side: Side): number {
    const level = this.bestLevel(this.sideLevels(side));
    return level === nil ? noPrice : this.pool.price[level]!;
  }

  levelCount(side: Side): number {
    const sorted = this.sideLevels(side);
    return sorted.length - sorted.empty;
  }

  canRest(side: Side, priceTicks: number): ResultCode {
    const sorted = this.sideLevels(side);
    const level = sorted.byPrice.get(priceTicks);
    if (level !== missing && this.pool.orders[level]! > 0) return Result.ok;
    return sorted.length - sorted.empty >= this.levelsPerSideMax ? Result.tooManyPriceLevels : Result.ok;
  }

  add(slot: number, account: number, side: Side, priceTicks: number, lots: number): void {
    const sorted = this.sideLevels(side);
    const pool = this.pool;
    let level = sorted.byPrice.get(priceTicks);
    if (level === missing) {
      level = pool.allocate(side, priceTicks);
      sorted.insert(sorted.insertionIndex(priceTicks), priceTicks, level);
    } else if (pool.orders[level] === 0) {
      sorted.empty--;
    }
    const nodes = this.nodes;
    const tail = pool.tail[level]!;
    nodes.setPrev(slot, tail);
    nodes.setNext(slot, nil);
    nodes.setLevel(slot, level);
    nodes.setAccount(slot, account);
    nodes.setLots(slot, lots);
    if (tail === nil) pool.head[level] = slot;
    else nodes.setNext(tail, slot);
    pool.tail[level] = slot;
    pool.orders[level] = pool.orders[level]! + 1;
    pool.lots[level] = pool.lots[level]! + lots;
    this.orderCount++;
    this.operations++;
  }

  /** Unlinks a node from its level; marks the level empty when it was the last order. */
  private unlink(slot: number): void {
    const nodes = this.nodes;
    const pool = this.pool;
    const level = nodes.level(slot);
    const prev = nodes.prev(slot);
    const next = nodes.next(slot);
    if (prev === nil) pool.head[level] = next;
    else nodes.setNext(prev, next);
    if (next === nil) pool.tail[level] = prev;
    else nodes.setPrev(next, prev);
    pool.lots[level] = pool.lots[level]! - nodes.lots(slot);
    nodes.setLots(slot, 0);
    nodes.setLevel(slot, nil);
    const orders = pool.orders[level]! - 1;
    pool.orders[level] = orders;
    this.orderCount--;
    this.operations++;
    if (orders === 0) {
      const sorted = this.sideLevels(pool.side[level] as Side);
      sorted.empty++;
      if (sorted.empty > sorted.length - sorted.empty + 1024) this.compact(sorted);
    }
  }

  /** Drops every empty level of a side in one pass (amortised over the removals that emptied them). */
  private compact(sorted: SortedLevels): void {
    const pool = this.pool;
    let kept = 0;
    for (let index = 0; index < sorted.length; index++) {
      const level = sorted.levels[index]!;
      this.operations++;
      if (pool.orders[level]! > 0) {
        sorted.prices[kept] = sorted.prices[index]!;
        sorted.levels[kept] = level;
        kept++;
      } else {
        sorted.byPrice.delete(pool.price[level]!);
        pool.free(level);
      }
    }
    sorted.length = kept;
    sorted.empty = 0;
  }

  remove(slot: number): number {
    const lots = this.nodes.lots(slot);
    assert(this.nodes.level(slot) !== nil, 'remove of an order not in the book');
    this.unlink(slot);
    return lots;
  }

  reduce(slot: number, remainingLots: number): void {
    const nodes = this.nodes;
    const level = nodes.level(slot);
    const lots = nodes.lots(slot);
    assert(level !== nil && remainingLots > 0 && remainingLots < lots, 'reduce out of range');
    nodes.setLots(slot, remainingLots);
    this.pool.lots[level] = this.pool.lots[level]! - (lots - remainingLots);
    this.operations++;
  }

  remainingLots(slot: number): number {
    return this.nodes.lots(slot);
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
    const makers = takerSide === 0 ? this.asks : this.bids;
    const nodes = this.nodes;
    const pool = this.pool;
    const buying = takerSide === 0;
    const preventing = selfTradePrevention !== Stp.none;
    let remaining = lots;
    while (remaining > 0) {
      const level = this.bestLevel(makers);
      if (level === nil) break;
      const priceTicks = pool.price[level]!;
      if (buying ? priceTicks > limitPriceTicks : priceTicks < limitPriceTicks) break;
      let slot = pool.head[level]!;
      while (slot !== nil && remaining > 0) {
        const next = nodes.next(slot);
        const makerLots = nodes.lots(slot);
        if (preventing && nodes.account(slot) === takerAccount) {
          if (selfTradePrevention === Stp.cancelTaker) {
            this.stoppedBySelfTrade = true;
            return lots - remaining;
          }
          this.unlink(slot);
          handler.onSelfTradeMakerRemoved(slot, makerLots);
          if (selfTradePrevention === Stp.cancelBoth) {
            this.stoppedBySelfTrade = true;
            return lots - remaining;
          }
          slot = next;
          continue;
        }
        const fill = makerLots < remaining ? makerLots : remaining;
        remaining -= fill;
        const left = makerLots - fill;
        if (left === 0) {
          this.unlink(slot);
        } else {
          nodes.setLots(slot, left);
          pool.lots[level] = pool.lots[level]! - fill;
          this.operations++;
        }
        handler.onFill(slot, priceTicks, fill, left);
        slot = next;
      }
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
    const makers = takerSide === 0 ? this.asks : this.bids;
    const nodes = this.nodes;
    const pool = this.pool;
    const buying = takerSide === 0;
    const preventing = selfTradePrevention !== Stp.none;
    let fillable = 0;
    this.fillStoppedBySelfTrade = false;
    for (let index = makers.length - 1; index >= 0 && fillable < lots; index--) {
      const level = makers.levels[index]!;
      if (pool.orders[level] === 0) continue;
      const priceTicks = pool.price[level]!;
      if (buying ? priceTicks > limitPriceTicks : priceTicks < limitPriceTicks) break;
      if (!preventing) {
        fillable += pool.lots[level]!;
        continue;
      }
      for (let slot = pool.head[level]!; slot !== nil && fillable < lots; slot = nodes.next(slot)) {
        if (nodes.account(slot) === takerAccount) {
          if (selfTradePrevention === Stp.cancelMaker) continue;
          this.fillStoppedBySelfTrade = true;
          return fillable < lots ? fillable : lots;
        }
        fillable += nodes.lots(slot);
      }
    }
    return fillable < lots ? fillable : lots;
  }

  depth(side: Side, levelsMax: number, out: BookLevel[]): number {
    const sorted = this.sideLevels(side);
    const pool = this.pool;
    let written = 0;
    for (let index = sorted.length - 1; index >= 0 && written < levelsMax; index--) {
      const level = sorted.levels[index]!;
      if (pool.orders[level] === 0) continue;
      let entry = out[written];
      if (entry === undefined) {
        entry = { priceTicks: 0, lots: 0, orders: 0 };
        out[written] = entry;
      }
      entry.priceTicks = pool.price[level]!;
      entry.lots = pool.lots[level]!;
      entry.orders = pool.orders[level]!;
      written++;
    }
    return written;
  }

  /**
   * The first order of each level of `side` that holds orders, best level first: with the records the
   * nodes live in (copied at the same moment), all that `visitCopiedLevels` needs to walk the side in
   * priority order elsewhere. A few thousand levels at most, read in sequence.
   */
  levelHeads(side: Side): Int32Array<ArrayBuffer> {
    const sorted = this.sideLevels(side);
    const pool = this.pool;
    const heads = new Int32Array(sorted.length - sorted.empty);
    let count = 0;
    for (let index = sorted.length - 1; index >= 0; index--) {
      const level = sorted.levels[index]!;
      if (pool.orders[level]! > 0) heads[count++] = pool.head[level]!;
    }
    assert(count === heads.length, 'every level not marked empty holds orders');
    return heads;
  }

  visit(side: Side, visitor: OrderVisitor): void {
    const sorted = this.sideLevels(side);
    const pool = this.pool;
    const nodes = this.nodes;
    for (let index = sorted.length - 1; index >= 0; index--) {
      const level = sorted.levels[index]!;
      const priceTicks = pool.price[level]!;
      for (let slot = pool.head[level]!; slot !== nil; slot = nodes.next(slot)) {
        visitor(slot, nodes.account(slot), priceTicks, nodes.lots(slot));
      }
    }
  }
}

/**
 * Visits, in order, every order of the levels whose first orders are `heads` (`FastBook.levelHeads`), reading
 * the level lists from a copy of the records the book's nodes live in (`recordBytes` per record, as the
 * factory was made with): each order's slot and remaining lots. Walks a book elsewhere than on the
 * engine's thread (a snapshot's columns, built on the writer's thread).
 */
export function visitCopiedLevels(records: NodeRecords, recordBytes: number, heads: Int32Array, visit: (slot: number, lots: number) => void): void {
  const nodes = new NodeArena(recordBytes, records);
  nodes.ensure(records.i32.length / (recordBytes / 4));
  for (let index = 0; index < heads.length; index++) {
    for (let slot = heads[index]!; slot !== nil; slot = nodes.next(slot)) visit(slot, nodes.lots(slot));
  }
}

/** Bytes per node record of a factory that keeps its own nodes (no order store to share). */
const ownRecordBytes = 32;

export class FastBookFactory implements BookFactory {
  private readonly nodes: NodeArena;
  /** Whether the books keep their nodes in the given order records (else in an arena of their own). */
  readonly nodesInRecords: boolean;

  /**
   * With `records`, the books keep their nodes in those order records (an engine's order store, whose
   * records are `recordBytes` long); without, in an arena of their own of packed 32-byte records.
   */
  constructor(records: NodeRecords | null = null, recordBytes = ownRecordBytes) {
    this.nodes = new NodeArena(recordBytes, records);
    this.nodesInRecords = records !== null;
  }

  create(levelsPerSideMax: number): FastBook {
    return new FastBook(this.nodes, levelsPerSideMax);
  }

  ensureSlots(capacity: number): void {
    this.nodes.ensure(capacity);
  }

  touchNeighbours(slot: number): number {
    return this.nodes.touchNeighbours(slot);
  }
}

export { noPrice };
