/**
 * A hash map from non-negative safe integers to non-negative int32 values, in one typed array of
 * (key, value) pairs with open addressing, linear probing and backward-shift deletion (no tombstones). A
 * key and its value share a cache line, so a lookup in a large map costs one miss, not two. It replaces `Map<number,
 * number>` on the hot path (order id → slot, user → account): a JS Map keeps deleted entries until it
 * rehashes, so an order book that inserts and deletes millions of ids makes garbage; this makes none
 * once grown.
 */
import { assert } from './assert.ts';

export const missing = -1;
const emptyKey = -1;

export class IntMap {
  /** Entry i is (entries[2i], entries[2i + 1]) = (key, value); an empty entry has key `emptyKey`. */
  private entries: Float64Array;
  private mask: number;
  size = 0;

  constructor(capacityHint = 1024) {
    let capacity = 16;
    while (capacity < capacityHint * 2) capacity *= 2;
    this.entries = IntMap.emptyEntries(capacity);
    this.mask = capacity - 1;
  }

  private static emptyEntries(capacity: number): Float64Array {
    const entries = new Float64Array(capacity * 2);
    for (let index = 0; index < capacity; index++) entries[index * 2] = emptyKey;
    return entries;
  }

  /** Spreads sequential ids over the table (Fibonacci hashing of the low 32 bits, folded with the high bits). */
  private home(key: number): number {
    const low = key >>> 0;
    const high = (key / 4294967296) >>> 0;
    return Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) >>> 0 & this.mask;
  }

  get(key: number): number {
    const entries = this.entries;
    const mask = this.mask;
    let index = this.home(key);
    for (;;) {
      const found = entries[index * 2]!;
      if (found === key) return entries[index * 2 + 1]!;
      if (found === emptyKey) return missing;
      index = (index + 1) & mask;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== missing;
  }

  set(key: number, value: number): void {
    assert(key >= 0 && value >= 0, 'IntMap holds non-negative keys and values');
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    const entries = this.entries;
    const mask = this.mask;
    let index = this.home(key);
    for (;;) {
      const found = entries[index * 2]!;
      if (found === key) {
        entries[index * 2 + 1] = value;
        return;
      }
      if (found === emptyKey) {
        entries[index * 2] = key;
        entries[index * 2 + 1] = value;
        this.size++;
        return;
      }
      index = (index + 1) & mask;
    }
  }

  delete(key: number): boolean {
    const entries = this.entries;
    const mask = this.mask;
    let index = this.home(key);
    for (;;) {
      const found = entries[index * 2]!;
      if (found === emptyKey) return false;
      if (found === key) break;
      index = (index + 1) & mask;
    }
    // Backward-shift: pull later entries of the probe run into the hole when their home allows it.
    let hole = index;
    let next = (hole + 1) & mask;
    for (;;) {
      const moving = entries[next * 2]!;
      if (moving === emptyKey) break;
      const home = this.home(moving);
      // The entry at `next` may move to `hole` only if its home is not in (hole, next] cyclically.
      const distanceToHole = (hole - home) & mask;
      const distanceToNext = (next - home) & mask;
      if (distanceToHole < distanceToNext) {
        entries[hole * 2] = moving;
        entries[hole * 2 + 1] = entries[next * 2 + 1]!;
        hole = next;
      }
      next = (next + 1) & mask;
    }
    entries[hole * 2] = emptyKey;
    this.size--;
    return true;
  }

  /** Calls `visit` for every entry, in table order (not insertion order). */
  forEach(visit: (key: number, value: number) => void): void {
    const entries = this.entries;
    for (let index = 0; index < entries.length; index += 2) {
      const key = entries[index]!;
      if (key !== emptyKey) visit(key, entries[index + 1]!);
    }
  }

  private grow(): void {
    const old = this.entries;
    const capacity = (this.mask + 1) * 2;
    this.entries = IntMap.emptyEntries(capacity);
    this.mask = capacity - 1;
    this.size = 0;
    for (let index = 0; index < old.length; index += 2) {
      const key = old[index]!;
      if (key !== emptyKey) this.set(key, old[index + 1]!);
    }
  }
}
