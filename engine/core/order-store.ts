/**
 * Live orders (resting and pending stops) as packed records in one buffer, indexed by slot, with a free
 * list. An order occupies a slot from acceptance until it ends (filled, cancelled, expired); the slot is
 * then reused, so a million resting orders cost a million slots and no garbage.
 *
 * Layout: each record is 128 bytes (two cache lines) holding every field of the order, read through three
 * views of the same buffer (float64 for prices, quantities and money, int32 for links and small numbers,
 * uint8 for flags). A command touches one order's fields together; with one typed array per field (the
 * layout before) that was one cache miss per field at a million resting orders, now it is the record's
 * two adjacent lines.
 *
 * Books hold their own copy of what matching needs (price, remaining lots, account); this store holds the
 * rest: identity, options, fill progress and the funds the order holds.
 */
import { assert } from './assert.ts';

export const noSlot = -1;

/** Bytes per order record (see the file comment); float64 fields first, then int32, then uint8. */
const recordBytes = 128;
const f64PerRecord = recordBytes / 8;
const i32PerRecord = recordBytes / 4;

export class OrderStore {
  capacity = 0;
  private freeHead = noSlot;
  private used = 0;
  /** Slots ever handed out; slots below this are either live or on the free list. */
  private highWater = 0;
  private f64 = new Float64Array(0);
  private i32 = new Int32Array(0);
  private u8 = new Uint8Array(0);
  /** Client order ids by slot ('' for none): strings live outside the records. */
  clientOrderId: string[] = [];

  constructor(private readonly capacityMax: number) {}

  get liveCount(): number {
    return this.used;
  }

  /** Whether another order fits. */
  hasRoom(): boolean {
    return this.used < this.capacityMax;
  }

  /** A free slot; `grow` is called with the new capacity first when the arrays must grow. */
  allocate(grow: (capacity: number) => void): number {
    assert(this.used < this.capacityMax, 'order store over capacity');
    let slot = this.freeHead;
    if (slot !== noSlot) {
      this.freeHead = this.accountNext(slot);
    } else {
      if (this.highWater === this.capacity) {
        const capacity = Math.min(this.capacityMax, Math.max(1024, this.capacity * 2));
        this.resize(capacity);
        grow(capacity);
      }
      slot = this.highWater++;
    }
    this.used++;
    return slot;
  }

  release(slot: number): void {
    this.clientOrderId[slot] = '';
    this.setAccountNext(slot, this.freeHead);
    this.freeHead = slot;
    this.used--;
  }

  orderId(slot: number): number {
    return this.f64[slot * f64PerRecord + 0]!;
  }
  setOrderId(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 0] = value;
  }
  /** Limit price (limit, stop_limit); 0 for market kinds. */
  priceTicks(slot: number): number {
    return this.f64[slot * f64PerRecord + 1]!;
  }
  setPriceTicks(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 1] = value;
  }
  stopPriceTicks(slot: number): number {
    return this.f64[slot * f64PerRecord + 2]!;
  }
  setStopPriceTicks(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 2] = value;
  }
  /** Price the buy hold was sized at: the limit, or the protection band of a market kind. */
  holdPriceTicks(slot: number): number {
    return this.f64[slot * f64PerRecord + 3]!;
  }
  setHoldPriceTicks(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 3] = value;
  }
  quantityLots(slot: number): number {
    return this.f64[slot * f64PerRecord + 4]!;
  }
  setQuantityLots(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 4] = value;
  }
  filledLots(slot: number): number {
    return this.f64[slot * f64PerRecord + 5]!;
  }
  setFilledLots(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 5] = value;
  }
  filledNotionalAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 6]!;
  }
  setFilledNotionalAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 6] = value;
  }
  /** Quote notional filled as taker since the last price change: fees round up on this. */
  takerNotionalAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 7]!;
  }
  setTakerNotionalAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 7] = value;
  }
  /** Quote notional filled as maker since the last price change: fees round up on this. */
  makerNotionalAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 8]!;
  }
  setMakerNotionalAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 8] = value;
  }
  /** Atoms the order holds: quote for buys, base for sells. */
  heldAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 9]!;
  }
  setHeldAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 9] = value;
  }
  account(slot: number): number {
    return this.i32[slot * i32PerRecord + 20]!;
  }
  setAccount(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 20] = value;
  }
  /** Book context: pair index × 2 + mode. */
  context(slot: number): number {
    return this.i32[slot * i32PerRecord + 21]!;
  }
  setContext(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 21] = value;
  }
  /** Links in the owning account's list of live orders (oldest first); the free list reuses `accountNext`. */
  accountPrev(slot: number): number {
    return this.i32[slot * i32PerRecord + 22]!;
  }
  setAccountPrev(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 22] = value;
  }
  accountNext(slot: number): number {
    return this.i32[slot * i32PerRecord + 23]!;
  }
  setAccountNext(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 23] = value;
  }
  /** The taker fee rate the order was placed with (its account's rate then): its fills charge this rate, so
   * a later change of the account's rate never makes a fill exceed the fee cap the order holds. */
  takerFeeBps(slot: number): number {
    return this.i32[slot * i32PerRecord + 24]!;
  }
  setTakerFeeBps(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 24] = value;
  }
  side(slot: number): number {
    return this.u8[slot * recordBytes + 100]!;
  }
  setSide(slot: number, value: number): void {
    this.u8[slot * recordBytes + 100] = value;
  }
  orderType(slot: number): number {
    return this.u8[slot * recordBytes + 101]!;
  }
  setOrderType(slot: number, value: number): void {
    this.u8[slot * recordBytes + 101] = value;
  }
  timeInForce(slot: number): number {
    return this.u8[slot * recordBytes + 102]!;
  }
  setTimeInForce(slot: number, value: number): void {
    this.u8[slot * recordBytes + 102] = value;
  }
  selfTradePrevention(slot: number): number {
    return this.u8[slot * recordBytes + 103]!;
  }
  setSelfTradePrevention(slot: number, value: number): void {
    this.u8[slot * recordBytes + 103] = value;
  }
  postOnly(slot: number): number {
    return this.u8[slot * recordBytes + 104]!;
  }
  setPostOnly(slot: number, value: number): void {
    this.u8[slot * recordBytes + 104] = value;
  }
  status(slot: number): number {
    return this.u8[slot * recordBytes + 105]!;
  }
  setStatus(slot: number, value: number): void {
    this.u8[slot * recordBytes + 105] = value;
  }

  private resize(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * recordBytes);
    const bytes = new Uint8Array(buffer);
    bytes.set(this.u8);
    this.f64 = new Float64Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.u8 = bytes;
    // A dense array of strings (no holes): one hidden class, fast indexed access.
    for (let slot = this.capacity; slot < capacity; slot++) this.clientOrderId.push('');
    this.capacity = capacity;
  }
}
