/**
 * What one durable batch did to each order it touched, gathered in memory so that an order placed, filled
 * and ended within the batch is one INSERT, and an older order touched many times is one UPDATE. An order
 * placed in the batch carries its whole row; any other carries only what changed (deltas for fills and
 * fees, new values otherwise). The change objects are pooled and reused from batch to batch.
 */
import { IntMap, missing } from '../../engine/core/int-map.ts';

/** Marks a field the batch did not change. */
export const unchanged = -1;

export class OrderChange {
  orderId = 0;
  /** Accepted in this batch: the row is new and every field below is its full value. */
  placed = false;
  userId = 0;
  pairId = 0;
  mode = 0;
  side = 0;
  orderType = 0;
  timeInForce = 0;
  postOnly = 0;
  selfTradePrevention = 0;
  stopPriceTicks = 0;
  clientOrderId = '';
  createdAtMs = 0;
  /** New values, or `unchanged`. */
  status = unchanged;
  priceTicks = unchanged;
  quantityLots = unchanged;
  /** Added in this batch (the totals of a placed order). */
  filledLots = 0;
  filledNotionalAtoms = 0;
  feeAtoms = 0;
  updatedAtMs = 0;
  /** The settlement hash of the order's first fill through a (simulated) chain in this batch, or ''. */
  simTxHash = '';
  /** The parent of a placed order (GroupKind and id). */
  groupKind = 0;
  groupId = 0;

  reset(orderId: number): void {
    this.orderId = orderId;
    this.placed = false;
    this.clientOrderId = '';
    this.status = unchanged;
    this.priceTicks = unchanged;
    this.quantityLots = unchanged;
    this.filledLots = 0;
    this.filledNotionalAtoms = 0;
    this.feeAtoms = 0;
    this.simTxHash = '';
    this.groupKind = 0;
    this.groupId = 0;
  }
}

export class OrderChanges {
  private readonly pool: OrderChange[] = [];
  private readonly indexById = new IntMap(4096);
  count = 0;

  /** The change of `orderId` in this batch, started empty on first touch. */
  touch(orderId: number): OrderChange {
    const found = this.indexById.get(orderId);
    if (found !== missing) return this.pool[found]!;
    if (this.count === this.pool.length) this.pool.push(new OrderChange());
    const change = this.pool[this.count]!;
    change.reset(orderId);
    this.indexById.set(orderId, this.count);
    this.count++;
    return change;
  }

  at(index: number): OrderChange {
    return this.pool[index]!;
  }

  clear(): void {
    for (let index = 0; index < this.count; index++) this.indexById.delete(this.pool[index]!.orderId);
    this.count = 0;
  }
}
