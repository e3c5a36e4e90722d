/**
 * Live order id → slot in the order store.
 *
 * The engine hands out order ids in sequence, so the ids that are live at any moment mostly sit in a
 * window of recent ids. The index is a direct-mapped table indexed by an id's low bits (`table`), whose
 * entry is confirmed against the id kept in the order's own record, which every caller reads next anyway.
 * A hash map (`overflow`) holds the few ids whose entry was taken, when they were placed, by an older order
 * that is still live.
 *
 * Against one hash map of all ids (the index before): a placement writes the entry after the previous
 * placement's, a cache line that is already at hand, where hashing had scattered consecutive ids over the
 * whole table (a cache miss on every placement); and an entry is a 4-byte slot, so the table is a quarter
 * of the size for the same number of orders and more of it stays in the core's caches.
 *
 * The table has at least four entries per live order. An id overflows only if an order placed a whole
 * number of table lengths of ids before it is still live; with lifetimes spread like an exponential whose
 * mean is the live count (in ids, by Little's law) that is about e^-4, 2 % of ids.
 *
 * Invariant: `table[p]` is `noSlot` or the slot of a live order whose id's low bits are `p`; every other
 * live id is in `overflow`.
 */
import { IntMap, missing } from './int-map.ts';
import { noSlot, type OrderStore } from './order-store.ts';

const entriesPerOrderMin = 4;

export class OrderIdIndex {
  private table: Int32Array;
  private mask: number;
  private overflow = new IntMap(64);
  /** Live ids in the index. */
  size = 0;

  constructor(private readonly store: OrderStore, capacityHint = 1024) {
    let capacity = 64;
    while (capacity < capacityHint * entriesPerOrderMin) capacity *= 2;
    this.table = new Int32Array(capacity).fill(noSlot);
    this.mask = capacity - 1;
  }

  /** The slot of the live order `orderId` (a non-negative safe integer), or `noSlot`. */
  get(orderId: number): number {
    // `>>> 0` keeps the low 32 bits of any safe integer; the table's length is a power of two below 2^32.
    const slot = this.table[(orderId >>> 0) & this.mask]!;
    if (slot !== noSlot && this.store.orderId(slot) === orderId) return slot;
    if (this.overflow.size === 0) return noSlot;
    const found = this.overflow.get(orderId);
    return found === missing ? noSlot : found;
  }

  /**
   * The slot that `orderId`'s table entry names, without confirming it against the record: the live order
   * `orderId` or another live order, or `noSlot`. For reads ahead only (`Engine.applyRun`).
   */
  peek(orderId: number): number {
    return this.table[(orderId >>> 0) & this.mask]!;
  }

  /** Adds a live order that is not in the index; its record already holds `orderId`. */
  add(orderId: number, slot: number): void {
    if ((this.size + 1) * entriesPerOrderMin > this.mask + 1) this.grow();
    this.place(orderId, slot);
    this.size++;
  }

  /** Removes a live order (before its slot is released). */
  delete(orderId: number, slot: number): void {
    const position = (orderId >>> 0) & this.mask;
    if (this.table[position] === slot) this.table[position] = noSlot;
    else this.overflow.delete(orderId);
    this.size--;
  }

  /** How many live ids are in the overflow map (for tests and the bench's notes). */
  get overflowCount(): number {
    return this.overflow.size;
  }

  private place(orderId: number, slot: number): void {
    const position = (orderId >>> 0) & this.mask;
    if (this.table[position] === noSlot) this.table[position] = slot;
    else this.overflow.set(orderId, slot);
  }

  /** Room for `count` live orders at once (a snapshot's restore): the table doubled as often as adding them would. */
  reserve(count: number): void {
    let length = this.table.length;
    while (count * entriesPerOrderMin > length) length *= 2;
    if (length > this.table.length) this.growTo(length);
  }

  /** Doubles the table and places every live order again, table entries first, then the overflow. */
  private grow(): void {
    this.growTo(this.table.length * 2);
  }

  private growTo(length: number): void {
    const old = this.table;
    const overflowed = this.overflow;
    this.overflow = new IntMap(64);
    this.table = new Int32Array(length).fill(noSlot);
    this.mask = length - 1;
    for (let position = 0; position < old.length; position++) {
      const slot = old[position]!;
      if (slot !== noSlot) this.place(this.store.orderId(slot), slot);
    }
    overflowed.forEach((orderId, slot) => this.place(orderId, slot));
  }
}
