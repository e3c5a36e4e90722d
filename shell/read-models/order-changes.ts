/**
 * What a span of durable commands (one batch for the open orders in memory; for the SQLite writer, the
 * batches gathered between two of its writes) did to each order it touched, gathered in memory so that an
 * order placed, filled and ended within the span is one INSERT, and an older order touched many times is
 * one UPDATE. An order placed in the span carries its whole row; any other carries only what changed
 * (deltas for fills and fees, new values otherwise). The change objects are pooled and reused from span
 * to span.
 */
import { IntMap, missing } from '../../engine/core/int-map.ts';
import { assert } from '../../engine/core/assert.ts';
import { ammFillTxHash } from '../../engine/core/sim-hash.ts';
import { EventKind, OrderStatus, type EngineEvent, type OrderAccepted } from '../../engine/core/events.ts';

/** Marks a field the span did not change. */
export const unchanged = -1;

export class OrderChange {
  orderId = 0;
  /** Accepted in this span: the row is new and every field below is its full value. */
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
  /** Added in this span (the totals of a placed order). */
  filledLots = 0;
  filledNotionalAtoms = 0;
  feeAtoms = 0;
  updatedAtMs = 0;
  /** The settlement hash of the order's first fill through a (simulated) chain in this span, or ''. */
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

  /** The change of `orderId` in this span, started empty on first touch. */
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

/**
 * What `event` (of a command stamped `ts`) does to the orders it names, gathered into `changes`: the
 * order fields of both read models, the SQLite tables (writer.ts) and the open orders in memory
 * (open-orders.ts), come from here. Events that change no order field are ignored.
 */
export function gatherOrderChange(changes: OrderChanges, event: EngineEvent, ts: number): void {
  switch (event.kind) {
    case EventKind.orderAccepted:
      return accepted(changes.touch(event.orderId), event, ts);
    case EventKind.tradeExecuted:
      filled(changes.touch(event.takerOrderId), event.quantityLots, event.notionalAtoms, event.takerFeeAtoms, event.takerRemainingLots, ts);
      return filled(changes.touch(event.makerOrderId), event.quantityLots, event.notionalAtoms, event.makerFeeAtoms, event.makerRemainingLots, ts);
    case EventKind.ammFill: {
      const change = changes.touch(event.orderId);
      if (change.simTxHash === '') change.simTxHash = ammFillTxHash(event);
      return filled(change, event.quantityLots, event.notionalAtoms, event.feeAtoms, event.remainingLots, ts);
    }
    case EventKind.orderCancelled:
      return ended(changes.touch(event.orderId), OrderStatus.cancelled, event.filledLots, ts);
    case EventKind.orderExpired:
      return ended(changes.touch(event.orderId), OrderStatus.expired, event.filledLots, ts);
    case EventKind.stopTriggered: {
      const change = changes.touch(event.orderId);
      change.status = OrderStatus.open;
      change.updatedAtMs = ts;
      return;
    }
    case EventKind.orderAmended: {
      const change = changes.touch(event.orderId);
      change.priceTicks = event.priceTicks;
      change.quantityLots = event.quantityLots;
      change.updatedAtMs = ts;
      return;
    }
    default:
      // Resting changes no status the fills have not set; a rejected order never existed.
      return;
  }
}

function accepted(change: OrderChange, event: OrderAccepted, ts: number): void {
  change.placed = true;
  change.userId = event.userId;
  change.pairId = event.pairId;
  change.mode = event.mode;
  change.side = event.side;
  change.orderType = event.orderType;
  change.timeInForce = event.timeInForce;
  change.postOnly = event.postOnly ? 1 : 0;
  change.selfTradePrevention = event.selfTradePrevention;
  change.priceTicks = event.priceTicks;
  change.stopPriceTicks = event.stopPriceTicks;
  change.quantityLots = event.quantityLots;
  change.clientOrderId = event.clientOrderId;
  change.status = event.status;
  change.createdAtMs = ts;
  change.updatedAtMs = ts;
  change.groupKind = event.groupKind;
  change.groupId = event.groupId;
}

function filled(change: OrderChange, quantityLots: number, notionalAtoms: number, feeAtoms: number, remainingLots: number, ts: number): void {
  change.filledLots += quantityLots;
  change.filledNotionalAtoms += notionalAtoms;
  change.feeAtoms += feeAtoms;
  change.status = remainingLots === 0 ? OrderStatus.filled : OrderStatus.partiallyFilled;
  change.updatedAtMs = ts;
}

function ended(change: OrderChange, status: OrderStatus, filledLots: number, ts: number): void {
  assert(!change.placed || change.filledLots === filledLots, 'fills of an order ended in its span add up to what it reports');
  change.status = status;
  change.updatedAtMs = ts;
}
