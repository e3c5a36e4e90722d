/**
 * A hash map from non-negative safe integers to non-negative int32 values, in two typed arrays with open
 * addressing, linear probing and backward-shift deletion (no tombstones). It replaces `Map<number,
 * number>` on the hot path (order id → slot, user → account): a JS Map keeps deleted entries until it
 * rehashes, so an order book that inserts and deletes millions of ids makes garbage; this makes none
 * once grown.
 */
import { assert } from './assert.ts';

export const missing = -1;
const emptyKey = -1;

export class IntMap {
  private keys: Float64Array;
  private values: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacityHint = 1024) {
    let capacity = 16;
    while (capacity < capacityHint * 2) capacity *= 2;
    this.keys = new Float64Array(capacity).fill(emptyKey);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Spreads sequential ids over the table (Fibonacci hashing of the low 32 bits, folded with the high bits). */
  private home(key: number): number {
    const low = key >>> 0;
    const high = (key / 4294967296) >>> 0;
    return Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) >>> 0 & this.mask;
  }

  get(key: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let index = this.home(key);
    for (;;) {
      const found = keys[index]!;
      if (found === key) return this.values[index]!;
      if (found === emptyKey) return missing;
      index = (index + 1) & mask;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== missing;
  }

  set(key: number, value: number): void {
    assert(key >= 0 && value >= 0, 'IntMap holds non-negative keys and values');
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const mask = this.mask;
    let index = this.home(key);
    for (;;) {
      const found = keys[index]!;
      if (found === key) {
        this.values[index] = value;
        return;
      }
      if (found === emptyKey) {
        keys[index] = key;
        this.values[index] = value;
        this.size++;
        return;
      }
      index = (index + 1) & mask;
    }
  }

  delete(key: number): boolean {
    const keys = this.keys;
    const values = this.values;
    const mask = this.mask;
    let index = this.home(key);
    for (;;) {
      const found = keys[index]!;
      if (found === emptyKey) return false;
      if (found === key) break;
      index = (index + 1) & mask;
    }
    // Backward-shift: pull later entries of the probe run into the hole when their home allows it.
    let hole = index;
    let next = (hole + 1) & mask;
    for (;;) {
      const moving = keys[next]!;
      if (moving === emptyKey) break;
      const home = this.home(moving);
      // The entry at `next` may move to `hole` only if its home is not in (hole, next] cyclically.
      const distanceToHole = (hole - home) & mask;
      const distanceToNext = (next - home) & mask;
      if (distanceToHole < distanceToNext) {
        keys[hole] = moving;
        values[hole] = values[next]!;
        hole = next;
      }
      next = (next + 1) & mask;
    }
    keys[hole] = emptyKey;
    this.size--;
    return true;
  }

  /** Calls `visit` for every entry, in table order (not insertion order). */
  forEach(visit: (key: number, value: number) => void): void {
    const keys = this.keys;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      if (key !== emptyKey) visit(key, this.values[index]!);
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldKeys.length * 2;
    this.keys = new Float64Array(capacity).fill(emptyKey);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.size = 0;
    for (let index = 0; index < oldKeys.length; index++) {
      const key = oldKeys[index]!;
      if (key !== emptyKey) this.set(key, oldValues[index]!);
    }
  }
}
