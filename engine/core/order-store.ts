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
 * The first 24 bytes of a record are the order's book node while it rests: the engine's fast books
 * (book/fast-book.ts) keep their per-order fields (remaining lots, the links of the level's FIFO list, the
 * level, the account) in the order's own record rather than in an arena of their own, so an amend or a
 * cancel touches the order once instead of the record and a node elsewhere (`nodeBytes` below). The
 * account is one field for both. The first line then holds what every command on a live order reads
 * (identity, price, quantities, its book context and flags); the second what placement, fills and
 * endings add (holds, notionals, the account list's links, the options).
 *
 * Those two lines are the records' only if the records start on a 64-byte line boundary, and a buffer's
 * first byte is not on one: on Linux, glibc's malloc, which maps the memory of Node's large buffers, hands it
 * out 16 bytes past a page boundary (its block header), so a record at the buffer's start spanned three
 * lines, its first line's last 16 bytes (filled quantity, context, side, status) in a second line that
 * reading ahead (`touch`) did not read. The records therefore start `recordsByteOffset` bytes into their
 * buffer, which the runtime sets to where its allocator puts line boundaries (engine/runtime/memory.ts);
 * the views begin there, so no accessor knows of it.
 */
import { assert } from './assert.ts';

export const noSlot = -1;

/** Bytes per order record (see the file comment). */
export const recordBytes = 128;
/** Bytes at the start of each record that belong to the book node (book/fast-book.ts owns their layout). */
export const nodeBytes = 24;
const f64PerRecord = recordBytes / 8;
const i32PerRecord = recordBytes / 4;

/**
 * A copy of an order store's records that shares no memory with it (`OrderStore.copyRecords`): the records of
 * the first `slots` slots (every slot handed out so far) at the start of `records`, and the client order ids
 * that are set, by slot. Its buffers can be transferred to another thread, where `OrderStore.overCopy` reads
 * it with the store's own accessors.
 */
export interface OrderRecordsCopy {
  readonly slots: number;
  readonly records: ArrayBuffer;
  readonly clientSlots: Int32Array<ArrayBuffer>;
  readonly clientIds: string[];
}

/**
 * A buffer for a copy of `bytes` of records (`copyRecords`) and `headroom` more (by default an eighth) for
 * the book to grow into. With `touch`, every page is written once, so that a later copy into it does not
 * fault page by page: the snapshot writer's thread prepares buffers that way, off the engine's thread,
 * where the faults of a fresh buffer of a hundred megabytes cost tens of milliseconds.
 */
export function recordsBuffer(bytes: number, touch: boolean, headroom = bytes / 8): ArrayBuffer {
  const buffer = new ArrayBuffer(Math.ceil((bytes + headroom) / recordBytes) * recordBytes);
  if (touch) new Uint8Array(buffer).fill(0);
  return buffer;
}

export class OrderStore {
  capacity = 0;
  private freeHead = noSlot;
  private used = 0;
  /** Slots ever handed out; slots below this are either live or on the free list. */
  private highWater = 0;
  /** Views of the records' buffer; replaced when it grows (the fast books read their node fields here). */
  f64 = new Float64Array(0);
  i32 = new Int32Array(0);
  private u8 = new Uint8Array(0);
  /**
   * Client order ids by slot ('' for none): strings live outside the records. Read it; set it only through
   * `setClientOrderId`, which keeps it '' for every slot whose record says it has none (`hasClientOrderId`),
   * so that an order without one never touches this array, a line apart from its record on a large book.
   */
  clientOrderId: string[] = [];

  /**
   * `recordsByteOffset`: where the records start in their buffer (a multiple of 8 below 64; see the file
   * comment). It moves the records in memory only: their bytes, a copy's layout and every result are the same.
   */
  constructor(
    private readonly capacityMax: number,
    private readonly recordsByteOffset = 0,
  ) {
    assert(Number.isInteger(recordsByteOffset) && recordsByteOffset >= 0 && recordsByteOffset < 64 && recordsByteOffset % 8 === 0, 'records offset a multiple of 8 below 64');
  }

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

  /**
   * Room for `count` orders at once (a snapshot's restore), `grow` told the new capacity as `allocate` tells
   * it: the capacity the doublings from 1024 would reach, in one copy instead of one per doubling.
   */
  reserve(count: number, grow: (capacity: number) => void): void {
    let capacity = Math.max(1024, this.capacity);
    while (capacity < count) capacity *= 2;
    capacity = Math.min(this.capacityMax, capacity);
    if (capacity <= this.capacity) return;
    this.resize(capacity);
    grow(capacity);
  }

  release(slot: number): void {
    this.setClientOrderId(slot, '');
    this.setAccountNext(slot, this.freeHead);
    this.freeHead = slot;
    this.used--;
  }

  orderId(slot: number): number {
    return this.f64[slot * f64PerRecord + 3]!;
  }
  setOrderId(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 3] = value;
  }
  /** Limit price (limit, stop_limit); 0 for market kinds. */
  priceTicks(slot: number): number {
    return this.f64[slot * f64PerRecord + 4]!;
  }
  setPriceTicks(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 4] = value;
  }
  stopPriceTicks(slot: number): number {
    return this.f64[slot * f64PerRecord + 10]!;
  }
  setStopPriceTicks(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 10] = value;
  }
  /** Price the buy hold was sized at: the limit, or the protection band of a market kind. */
  holdPriceTicks(slot: number): number {
    return this.f64[slot * f64PerRecord + 9]!;
  }
  setHoldPriceTicks(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 9] = value;
  }
  quantityLots(slot: number): number {
    return this.f64[slot * f64PerRecord + 5]!;
  }
  setQuantityLots(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 5] = value;
  }
  filledLots(slot: number): number {
    return this.f64[slot * f64PerRecord + 6]!;
  }
  setFilledLots(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 6] = value;
  }
  filledNotionalAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 11]!;
  }
  setFilledNotionalAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 11] = value;
  }
  /** Quote notional filled as taker since the last price change: fees round up on this. */
  takerNotionalAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 12]!;
  }
  setTakerNotionalAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 12] = value;
  }
  /** Quote notional filled as maker since the last price change: fees round up on this. */
  makerNotionalAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 13]!;
  }
  setMakerNotionalAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 13] = value;
  }
  /** Atoms the order holds: quote for buys, base for sells. */
  heldAtoms(slot: number): number {
    return this.f64[slot * f64PerRecord + 8]!;
  }
  setHeldAtoms(slot: number, value: number): void {
    this.f64[slot * f64PerRecord + 8] = value;
  }
  account(slot: number): number {
    return this.i32[slot * i32PerRecord + 5]!;
  }
  setAccount(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 5] = value;
  }
  /** Book context: pair index × 2 + mode. */
  context(slot: number): number {
    return this.i32[slot * i32PerRecord + 14]!;
  }
  setContext(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 14] = value;
  }
  /** Links in the owning account's list of live orders (oldest first); the free list reuses `accountNext`. */
  accountPrev(slot: number): number {
    return this.i32[slot * i32PerRecord + 28]!;
  }
  setAccountPrev(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 28] = value;
  }
  accountNext(slot: number): number {
    return this.i32[slot * i32PerRecord + 29]!;
  }
  setAccountNext(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 29] = value;
  }
  /** The taker fee rate the order was placed with (its account's rate then): its fills charge this rate, so
   * a later change of the account's rate never makes a fill exceed the fee cap the order holds. */
  takerFeeBps(slot: number): number {
    return this.i32[slot * i32PerRecord + 30]!;
  }
  setTakerFeeBps(slot: number, value: number): void {
    this.i32[slot * i32PerRecord + 30] = value;
  }
  /** Whether the order has a client order id (a flag in its record, so that checking costs no other line). */
  hasClientOrderId(slot: number): boolean {
    return this.u8[slot * recordBytes + 126] === 1;
  }
  /** Sets (or, with '', clears) the order's client order id and its flag. */
  setClientOrderId(slot: number, clientOrderId: string): void {
    const had = this.u8[slot * recordBytes + 126] === 1;
    if (clientOrderId === '') {
      if (had) this.clientOrderId[slot] = '';
      this.u8[slot * recordBytes + 126] = 0;
    } else {
      this.clientOrderId[slot] = clientOrderId;
      this.u8[slot * recordBytes + 126] = 1;
    }
  }
  side(slot: number): number {
    return this.u8[slot * recordBytes + 60]!;
  }
  setSide(slot: number, value: number): void {
    this.u8[slot * recordBytes + 60] = value;
  }
  orderType(slot: number): number {
    return this.u8[slot * recordBytes + 124]!;
  }
  setOrderType(slot: number, value: number): void {
    this.u8[slot * recordBytes + 124] = value;
  }
  timeInForce(slot: number): number {
    return this.u8[slot * recordBytes + 62]!;
  }
  setTimeInForce(slot: number, value: number): void {
    this.u8[slot * recordBytes + 62] = value;
  }
  selfTradePrevention(slot: number): number {
    return this.u8[slot * recordBytes + 125]!;
  }
  setSelfTradePrevention(slot: number, value: number): void {
    this.u8[slot * recordBytes + 125] = value;
  }
  postOnly(slot: number): number {
    return this.u8[slot * recordBytes + 63]!;
  }
  setPostOnly(slot: number, value: number): void {
    this.u8[slot * recordBytes + 63] = value;
  }
  status(slot: number): number {
    return this.u8[slot * recordBytes + 61]!;
  }
  setStatus(slot: number, value: number): void {
    this.u8[slot * recordBytes + 61] = value;
  }

  /**
   * The records as they are now (see `OrderRecordsCopy`): one copy of the records' bytes, where reading
   * each live order's fields through the accessors would be a cache miss per order on a large book. The
   * bytes go into `spare` when it is large enough (a buffer of an earlier copy, handed back): a fresh
   * buffer of a hundred megabytes would make V8 collect the whole heap to account for it, and its pages
   * would each fault on first write. A fresh one is an eighth larger than needed, for the book to grow into.
   */
  copyRecords(spare: ArrayBuffer | null = null): OrderRecordsCopy {
    const bytes = this.copyBytes;
    const records = spare !== null && spare.byteLength >= bytes ? spare : recordsBuffer(bytes, false);
    new Uint8Array(records, 0, bytes).set(this.u8.subarray(0, bytes));
    const slots: number[] = [];
    const ids: string[] = [];
    const clientOrderId = this.clientOrderId;
    for (let slot = 0; slot < this.highWater; slot++) {
      const id = clientOrderId[slot]!;
      if (id !== '') {
        slots.push(slot);
        ids.push(id);
      }
    }
    return { slots: this.highWater, records, clientSlots: Int32Array.from(slots), clientIds: ids };
  }

  /** The bytes a copy of the records takes now (`copyRecords`): every slot ever handed out. */
  get copyBytes(): number {
    return this.highWater * recordBytes;
  }

  /** A store over a copy (`copyRecords`), to be read only: the accessors give the copied records' fields. */
  static overCopy(copy: OrderRecordsCopy): OrderStore {
    const slots = copy.slots;
    const bytes = slots * recordBytes;
    assert(Number.isInteger(slots) && slots >= 0 && bytes <= copy.records.byteLength && copy.clientSlots.length === copy.clientIds.length, 'order records copy shape');
    const store = new OrderStore(slots);
    store.f64 = new Float64Array(copy.records, 0, bytes / 8);
    store.i32 = new Int32Array(copy.records, 0, bytes / 4);
    store.u8 = new Uint8Array(copy.records, 0, bytes);
    store.capacity = slots;
    store.highWater = slots;
    store.clientOrderId = new Array<string>(slots).fill('');
    for (let index = 0; index < copy.clientSlots.length; index++) store.clientOrderId[copy.clientSlots[index]!] = copy.clientIds[index]!;
    return store;
  }

  /** Reads a word of each of the record's two cache lines (a read ahead of use; see `Engine.applyRun`). */
  touch(slot: number): number {
    return this.i32[slot * i32PerRecord + 5]! ^ this.i32[slot * i32PerRecord + 30]!;
  }

  private resize(capacity: number): void {
    const offset = this.recordsByteOffset;
    const buffer = new ArrayBuffer(offset + capacity * recordBytes);
    const bytes = new Uint8Array(buffer, offset, capacity * recordBytes);
    bytes.set(this.u8);
    this.f64 = new Float64Array(buffer, offset, capacity * f64PerRecord);
    this.i32 = new Int32Array(buffer, offset, capacity * i32PerRecord);
    this.u8 = bytes;
    // A dense array of strings (no holes): one hidden class, fast indexed access.
    for (let slot = this.capacity; slot < capacity; slot++) this.clientOrderId.push('');
    this.capacity = capacity;
  }
}
