/**
 * Live orders (resting and pending stops) as a struct of typed arrays indexed by slot, with a free list.
 * An order occupies a slot from acceptance until it ends (filled, cancelled, expired); the slot is then
 * reused, so a million resting orders cost a million slots and no garbage.
 *
 * Books hold their own copy of what matching needs (price, remaining lots, account); this store holds the
 * rest: identity, options, fill progress and the funds the order holds.
 */
import { assert } from './assert.ts';
import { grownFloat64, grownInt32, grownUint16, grownUint8 } from './typed-arrays.ts';

export const noSlot = -1;

export class OrderStore {
  capacity = 0;
  private freeHead = noSlot;
  private used = 0;
  /** Slots ever handed out; slots below this are either live or on the free list. */
  private highWater = 0;

  orderId = new Float64Array(0);
  account = new Int32Array(0);
  /** Book context: pair index × 2 + mode. */
  context = new Int32Array(0);
  side = new Uint8Array(0);
  orderType = new Uint8Array(0);
  timeInForce = new Uint8Array(0);
  selfTradePrevention = new Uint8Array(0);
  postOnly = new Uint8Array(0);
  status = new Uint8Array(0);
  /** Limit price (limit, stop_limit); 0 for market kinds. */
  priceTicks = new Float64Array(0);
  stopPriceTicks = new Float64Array(0);
  /** Price the buy hold was sized at: the limit, or the protection band of a market kind. */
  holdPriceTicks = new Float64Array(0);
  quantityLots = new Float64Array(0);
  filledLots = new Float64Array(0);
  filledNotionalAtoms = new Float64Array(0);
  /** Quote notional filled as taker / as maker since the last price change: fees round up on these. */
  takerNotionalAtoms = new Float64Array(0);
  makerNotionalAtoms = new Float64Array(0);
  /**
   * The taker fee rate the order was placed with (its account's rate then): its fills charge this rate, so
   * a later change of the account's rate never makes a fill exceed the fee cap the order holds.
   */
  takerFeeBps = new Uint16Array(0);
  /** Atoms the order holds: quote for buys, base for sells. */
  heldAtoms = new Float64Array(0);
  /** Links in the owning account's list of live orders (oldest first); the free list reuses `accountNext`. */
  accountPrev = new Int32Array(0);
  accountNext = new Int32Array(0);
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
      this.freeHead = this.accountNext[slot]!;
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
    this.accountNext[slot] = this.freeHead;
    this.freeHead = slot;
    this.used--;
  }

  private resize(capacity: number): void {
    this.orderId = grownFloat64(this.orderId, capacity);
    this.account = grownInt32(this.account, capacity);
    this.context = grownInt32(this.context, capacity);
    this.side = grownUint8(this.side, capacity);
    this.orderType = grownUint8(this.orderType, capacity);
    this.timeInForce = grownUint8(this.timeInForce, capacity);
    this.selfTradePrevention = grownUint8(this.selfTradePrevention, capacity);
    this.postOnly = grownUint8(this.postOnly, capacity);
    this.status = grownUint8(this.status, capacity);
    this.priceTicks = grownFloat64(this.priceTicks, capacity);
    this.stopPriceTicks = grownFloat64(this.stopPriceTicks, capacity);
    this.holdPriceTicks = grownFloat64(this.holdPriceTicks, capacity);
    this.quantityLots = grownFloat64(this.quantityLots, capacity);
    this.filledLots = grownFloat64(this.filledLots, capacity);
    this.filledNotionalAtoms = grownFloat64(this.filledNotionalAtoms, capacity);
    this.takerNotionalAtoms = grownFloat64(this.takerNotionalAtoms, capacity);
    this.makerNotionalAtoms = grownFloat64(this.makerNotionalAtoms, capacity);
    this.takerFeeBps = grownUint16(this.takerFeeBps, capacity);
    this.heldAtoms = grownFloat64(this.heldAtoms, capacity);
    this.accountPrev = grownInt32(this.accountPrev, capacity);
    this.accountNext = grownInt32(this.accountNext, capacity);
    // A dense array of strings (no holes): one hidden class, fast indexed access.
    for (let slot = this.capacity; slot < capacity; slot++) this.clientOrderId.push('');
    this.capacity = capacity;
  }
}
