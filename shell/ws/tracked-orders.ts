/**
 * The live orders of the accounts the private stream watches, by order id: what the stream needs to turn an
 * order's later events (which carry only what changed) into whole `order_update` and `fill` messages. An
 * account may hold the engine's cap of 200 000 orders, all tracked from its snapshot's copy at once, so an
 * order is a slot in typed arrays (six numbers, three one-byte enumerations, the pair and the client order
 * id beside them) found through an IntMap, with freed slots reused: tracking 200 000 orders allocates no
 * object per order.
 */
import { IntMap, missing } from '../../engine/core/int-map.ts';
import type { Mode, OrderType, Side } from '../../engine/core/commands.ts';
import type { Pair } from '../../engine/core/units.ts';

export { missing as untracked };

// Float64Array fields per slot; a free slot has order id 0.
const numbers = 6;
const fOrderId = 0;
const fUserId = 1;
const fQuantity = 2;
const fPrice = 3;
const fFilled = 4;
const fFilledNotional = 5;
// Uint8Array fields per slot.
const codes = 3;
const cMode = 0;
const cSide = 1;
const cOrderType = 2;

/** An order as the stream starts tracking it. */
export interface TrackedOrder {
  readonly orderId: number;
  readonly userId: number;
  readonly mode: Mode;
  readonly pair: Pair;
  readonly side: Side;
  readonly orderType: OrderType;
  readonly clientOrderId: string;
  readonly quantityLots: number;
  readonly priceTicks: number;
  readonly filledLots: number;
  readonly filledNotionalAtoms: number;
}

export class TrackedOrders {
  private readonly slots = new IntMap(1024);
  private numbers = new Float64Array(1024 * numbers);
  private codes = new Uint8Array(1024 * codes);
  private readonly pairs: Array<Pair | undefined> = [];
  private readonly clientOrderIds: string[] = [];
  private readonly free: number[] = [];
  /** Slots ever used: [0, used). */
  private used = 0;

  get size(): number {
    return this.slots.size;
  }

  /** The order's slot, or `untracked`. */
  slotOf(orderId: number): number {
    return this.slots.get(orderId);
  }

  /** Tracks an order, or sets a tracked one's fields anew (a second subscriber's copy). */
  track(order: TrackedOrder): number {
    const slot = this.slotFor(order.orderId, order.userId, order.mode, order.pair, order.side, order.orderType, order.clientOrderId);
    this.setAmounts(slot, order.quantityLots, order.priceTicks, order.filledLots, order.filledNotionalAtoms);
    return slot;
  }

  /**
   * The slot of a tracked order, or a new one holding what never changes (with `setAmounts`, `track` without
   * an object per order, for a snapshot's copy).
   */
  slotFor(orderId: number, userId: number, mode: Mode, pair: Pair, side: Side, orderType: OrderType, clientOrderId: string): number {
    let slot = this.slots.get(orderId);
    if (slot === missing) {
      slot = this.free.pop() ?? this.grow();
      this.slots.set(orderId, slot);
    }
    const n = slot * numbers;
    const c = slot * codes;
    this.numbers[n + fOrderId] = orderId;
    this.numbers[n + fUserId] = userId;
    this.codes[c + cMode] = mode;
    this.codes[c + cSide] = side;
    this.codes[c + cOrderType] = orderType;
    this.pairs[slot] = pair;
    this.clientOrderIds[slot] = clientOrderId;
    return slot;
  }

  setAmounts(slot: number, quantityLots: number, priceTicks: number, filledLots: number, filledNotionalAtoms: number): void {
    const n = slot * numbers;
    this.numbers[n + fQuantity] = quantityLots;
    this.numbers[n + fPrice] = priceTicks;
    this.numbers[n + fFilled] = filledLots;
    this.numbers[n + fFilledNotional] = filledNotionalAtoms;
  }

  private grow(): number {
    const slot = this.used++;
    if (slot * numbers >= this.numbers.length) {
      const numbersGrown = new Float64Array(this.numbers.length * 2);
      numbersGrown.set(this.numbers);
      this.numbers = numbersGrown;
      const codesGrown = new Uint8Array(this.codes.length * 2);
      codesGrown.set(this.codes);
      this.codes = codesGrown;
    }
    return slot;
  }

  /** Stops tracking the order in `slot` (it ended). */
  untrack(slot: number): void {
    const n = slot * numbers;
    this.slots.delete(this.numbers[n + fOrderId]!);
    this.numbers[n + fOrderId] = 0;
    this.pairs[slot] = undefined;
    this.clientOrderIds[slot] = '';
    this.free.push(slot);
  }

  /** Stops tracking every order of (user, mode) (its last watcher left). */
  untrackAccount(userId: number, mode: Mode): void {
    for (let slot = 0; slot < this.used; slot++) {
      const n = slot * numbers;
      if (this.numbers[n + fOrderId] !== 0 && this.numbers[n + fUserId] === userId && this.codes[slot * codes + cMode] === mode) this.untrack(slot);
    }
  }

  /** A fill of `lots` for `notionalAtoms`. */
  filled(slot: number, lots: number, notionalAtoms: number): void {
    const n = slot * numbers;
    this.numbers[n + fFilled] = this.numbers[n + fFilled]! + lots;
    this.numbers[n + fFilledNotional] = this.numbers[n + fFilledNotional]! + notionalAtoms;
  }

  /** An amendment's new price and quantity. */
  amended(slot: number, priceTicks: number, quantityLots: number): void {
    this.numbers[slot * numbers + fPrice] = priceTicks;
    this.numbers[slot * numbers + fQuantity] = quantityLots;
  }

  orderId(slot: number): number {
    return this.numbers[slot * numbers + fOrderId]!;
  }

  userId(slot: number): number {
    return this.numbers[slot * numbers + fUserId]!;
  }

  mode(slot: number): Mode {
    return this.codes[slot * codes + cMode]! as Mode;
  }

  pair(slot: number): Pair {
    return this.pairs[slot]!;
  }

  side(slot: number): Side {
    return this.codes[slot * codes + cSide]! as Side;
  }

  orderType(slot: number): OrderType {
    return this.codes[slot * codes + cOrderType]! as OrderType;
  }

  clientOrderId(slot: number): string {
    return this.clientOrderIds[slot]!;
  }

  quantityLots(slot: number): number {
    return this.numbers[slot * numbers + fQuantity]!;
  }

  priceTicks(slot: number): number {
    return this.numbers[slot * numbers + fPrice]!;
  }

  filledLots(slot: number): number {
    return this.numbers[slot * numbers + fFilled]!;
  }

  filledNotionalAtoms(slot: number): number {
    return this.numbers[slot * numbers + fFilledNotional]!;
  }
}
