/**
 * Every live order (an untriggered stop, resting, resting after part of it filled) as the read models show
 * it, kept in memory on the server's thread and fed by the same durable batches as the SQLite tables, so
 * that `GET /exchange/orders/open` (the read a market maker polls), and one live order by id or client id,
 * are answered at once: they neither wait for the read models' worker to commit nor make it commit. The
 * rows are those of `exchange_orders` (writer.ts): both are gathered by `gatherOrderChange`
 * (order-changes.ts), and open-orders.test.ts checks every list against the SQLite query after every
 * batch of a generated stream.
 *
 * Why it is current: the durable feeds run when a batch becomes durable and before any of its submitters
 * is answered, on this thread, so a query sees every batch durable at its arrival (every command its
 * client was answered for), and nothing a crash could take back. At start it is loaded from the committed
 * tables once recovery has replayed the journal into them (`load`).
 *
 * Layout: per order a record of twelve numbers in a Float64Array and eight one-byte enumerations in a
 * Uint8Array (104 bytes; slots reused through a free list; the two strings beside them), an IntMap from
 * order id to slot, and per user and mode the ids of the orders it has had open, in id order (ids grow,
 * so a new order is appended). An order that ends leaves its id in that list until more than half of the
 * list is ended ids, when the list is compacted: an end costs O(1) amortised, and a page of newest-first
 * orders walks back from a binary search for `before`, skipping ended ids. Client order ids are unique
 * among an account's live orders (the engine refuses a second one), so a map from (user, mode, client id)
 * finds the live order that has one.
 */
import { assert } from '../../engine/core/assert.ts';
import { IntMap, missing } from '../../engine/core/int-map.ts';
import { OrderStatus, type EngineEvent } from '../../engine/core/events.ts';
import type { Mode, OrderType, SelfTradePrevention, Side, TimeInForce } from '../../engine/core/commands.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { OrderChanges, gatherOrderChange, unchanged, type OrderChange } from './order-changes.ts';
import type { OrderRow } from './queries.ts';

/** Positions of an order's numbers in its record of `numbers` (safe integers: ids, prices, amounts, times). */
const Field = {
  orderId: 0,
  userId: 1,
  pairId: 2,
  priceTicks: 3,
  stopPriceTicks: 4,
  quantityLots: 5,
  filledLots: 6,
  filledNotionalAtoms: 7,
  feeAtoms: 8,
  createdAtMs: 9,
  updatedAtMs: 10,
  groupId: 11,
} as const;
const fieldsPerOrder = 12;
/** Positions of an order's small enumerations in its record of `small` (one byte each). */
const Small = {
  mode: 0,
  side: 1,
  orderType: 2,
  timeInForce: 3,
  postOnly: 4,
  selfTradePrevention: 5,
  status: 6,
  groupKind: 7,
} as const;
const smallPerOrder = 8;
/** Ended ids a user's list may hold before it is compacted (and at least half of it). */
const compactAfterEnded = 32;

function isLive(status: number): boolean {
  return status === OrderStatus.pending || status === OrderStatus.open || status === OrderStatus.partiallyFilled;
}

/** An account (user × mode) as one number. */
function accountKey(userId: number, mode: number): number {
  return userId * 2 + mode;
}

/** What a row of the tables and an order placed in a batch have in common (post_only aside). */
type OrderFields = { readonly [K in Exclude<keyof OrderRow, 'postOnly' | 'clientOrderId' | 'simTxHash'>]: number } & {
  readonly clientOrderId: string;
  readonly simTxHash: string;
};

/** The ids of one user's orders in one mode that were open here, ascending; `ended` of them are no more. */
interface OwnOrders {
  ids: number[];
  ended: number;
}

export class OpenOrders {
  private numbers = new Float64Array(0);
  private small = new Uint8Array(0);
  private readonly clientOrderIds: string[] = [];
  private readonly simTxHashes: string[] = [];
  private readonly slotById = new IntMap(4096);
  private readonly freeSlots: number[] = [];
  private slotsUsed = 0;
  private readonly own = new Map<number, OwnOrders>();
  /**
   * Order id by client order id of the live orders that have one, per `accountKey` (a map per account,
   * kept once made: no key string joined and hashed per order, no map made and dropped as orders come and go).
   */
  private readonly byClientOrderId = new Map<number, Map<string, number>>();
  private readonly changes = new OrderChanges();
  private readonly visit = (event: EngineEvent, _seq: number, ts: number): void => gatherOrderChange(this.changes, event, ts);

  /** Live orders held. */
  get size(): number {
    return this.slotById.size;
  }

  /** Adds a live order as the committed tables hold it (start-up); each account's orders come oldest first. */
  load(order: OrderRow): void {
    assert(isLive(order.status), `order ${order.orderId} loaded as open is ${order.status}`);
    this.insert(order, order.postOnly ? 1 : 0);
  }

  /** Applies one durable batch: what it did to each order, as the SQLite writer records it. */
  applyBatch(batch: DurableBatch): void {
    const changes = this.changes;
    batch.forEachEvent(this.visit);
    for (let index = 0; index < changes.count; index++) {
      const change = changes.at(index);
      if (change.placed) this.placed(change);
      else this.changed(change);
    }
    changes.clear();
  }

  /**
   * Up to `limit` of the user's live orders in `mode` with ids below `beforeOrderId`, newest first, on
   * `pairId` (0: every pair): the rows `ReadModelQueries.openOrders` gives for the same arguments.
   */
  list(userId: number, mode: Mode, pairId: number, limit: number, beforeOrderId = Number.MAX_SAFE_INTEGER): OrderRow[] {
    const rows: OrderRow[] = [];
    const own = this.own.get(accountKey(userId, mode));
    if (own === undefined) return rows;
    const ids = own.ids;
    // The first index whose id is at or above `beforeOrderId`.
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle]! < beforeOrderId) low = middle + 1;
      else high = middle;
    }
    for (let index = low - 1; index >= 0 && rows.length < limit; index--) {
      const slot = this.slotById.get(ids[index]!);
      if (slot === missing) continue;
      if (pairId !== 0 && this.numbers[slot * fieldsPerOrder + Field.pairId] !== pairId) continue;
      rows.push(this.rowAt(slot));
    }
    return rows;
  }

  /** The live order with this id, or undefined when it is not live (ended, not yet durable, or none). */
  get(orderId: number): OrderRow | undefined {
    const slot = this.slotById.get(orderId);
    return slot === missing ? undefined : this.rowAt(slot);
  }

  /** The user's live order in `mode` with this client order id, or undefined when none is live. */
  withClientOrderId(userId: number, mode: Mode, clientOrderId: string): OrderRow | undefined {
    const orderId = this.byClientOrderId.get(accountKey(userId, mode))?.get(clientOrderId);
    return orderId === undefined ? undefined : this.get(orderId);
  }

  private placed(change: OrderChange): void {
    // An order that ended in the batch it was placed in was never open between batches.
    if (isLive(change.status)) this.insert(change, change.postOnly);
  }

  /** A new live order with all its fields (a row of the tables, or an order placed in a batch). */
  private insert(order: OrderFields, postOnly: number): void {
    const slot = this.add(order.orderId, order.userId, order.mode);
    const numbers = this.numbers;
    const small = this.small;
    const base = slot * fieldsPerOrder;
    const tiny = slot * smallPerOrder;
    numbers[base + Field.pairId] = order.pairId;
    small[tiny + Small.side] = order.side;
    small[tiny + Small.orderType] = order.orderType;
    small[tiny + Small.timeInForce] = order.timeInForce;
    small[tiny + Small.postOnly] = postOnly;
    small[tiny + Small.selfTradePrevention] = order.selfTradePrevention;
    numbers[base + Field.priceTicks] = order.priceTicks;
    numbers[base + Field.stopPriceTicks] = order.stopPriceTicks;
    numbers[base + Field.quantityLots] = order.quantityLots;
    numbers[base + Field.filledLots] = order.filledLots;
    numbers[base + Field.filledNotionalAtoms] = order.filledNotionalAtoms;
    numbers[base + Field.feeAtoms] = order.feeAtoms;
    small[tiny + Small.status] = order.status;
    numbers[base + Field.createdAtMs] = order.createdAtMs;
    numbers[base + Field.updatedAtMs] = order.updatedAtMs;
    small[tiny + Small.groupKind] = order.groupKind;
    numbers[base + Field.groupId] = order.groupId;
    this.clientOrderIds[slot] = order.clientOrderId;
    this.simTxHashes[slot] = order.simTxHash;
    if (order.clientOrderId !== '') {
      const key = accountKey(order.userId, order.mode);
      let byClient = this.byClientOrderId.get(key);
      if (byClient === undefined) {
        byClient = new Map();
        this.byClientOrderId.set(key, byClient);
      }
      byClient.set(order.clientOrderId, order.orderId);
    }
  }

  /** The UPDATE of writer.ts on the order in memory; an order that is no longer live leaves. */
  private changed(change: OrderChange): void {
    const slot = this.slotById.get(change.orderId);
    assert(slot !== missing, `order ${change.orderId} changed but is not open`);
    const numbers = this.numbers;
    const small = this.small;
    const base = slot * fieldsPerOrder;
    const tiny = slot * smallPerOrder;
    if (change.status !== unchanged) small[tiny + Small.status] = change.status;
    if (change.priceTicks !== unchanged) numbers[base + Field.priceTicks] = change.priceTicks;
    if (change.quantityLots !== unchanged) numbers[base + Field.quantityLots] = change.quantityLots;
    numbers[base + Field.filledLots] = numbers[base + Field.filledLots]! + change.filledLots;
    numbers[base + Field.filledNotionalAtoms] = numbers[base + Field.filledNotionalAtoms]! + change.filledNotionalAtoms;
    numbers[base + Field.feeAtoms] = numbers[base + Field.feeAtoms]! + change.feeAtoms;
    numbers[base + Field.updatedAtMs] = change.updatedAtMs;
    if (this.simTxHashes[slot] === '') this.simTxHashes[slot] = change.simTxHash;
    if (!isLive(small[tiny + Small.status]!)) this.remove(change.orderId, slot);
  }

  /** A slot for a new live order, listed under its user and mode. */
  private add(orderId: number, userId: number, mode: number): number {
    assert(this.slotById.get(orderId) === missing, `order ${orderId} is open already`);
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.slotsUsed++;
      if (slot * fieldsPerOrder >= this.numbers.length) {
        const slots = Math.max(1024, slot * 2);
        const numbers = new Float64Array(slots * fieldsPerOrder);
        numbers.set(this.numbers);
        this.numbers = numbers;
        const small = new Uint8Array(slots * smallPerOrder);
        small.set(this.small);
        this.small = small;
      }
    }
    this.numbers[slot * fieldsPerOrder + Field.orderId] = orderId;
    this.numbers[slot * fieldsPerOrder + Field.userId] = userId;
    this.small[slot * smallPerOrder + Small.mode] = mode;
    this.slotById.set(orderId, slot);
    const key = accountKey(userId, mode);
    let own = this.own.get(key);
    if (own === undefined) {
      own = { ids: [], ended: 0 };
      this.own.set(key, own);
    }
    assert(own.ids.length === 0 || own.ids[own.ids.length - 1]! < orderId, 'order ids grow');
    own.ids.push(orderId);
    return slot;
  }

  private remove(orderId: number, slot: number): void {
    const userId = this.numbers[slot * fieldsPerOrder + Field.userId]!;
    const mode = this.small[slot * smallPerOrder + Small.mode]!;
    this.slotById.delete(orderId);
    const clientOrderId = this.clientOrderIds[slot]!;
    if (clientOrderId !== '') this.byClientOrderId.get(accountKey(userId, mode))?.delete(clientOrderId);
    this.clientOrderIds[slot] = '';
    this.simTxHashes[slot] = '';
    this.freeSlots.push(slot);
    const key = accountKey(userId, mode);
    const own = this.own.get(key)!;
    own.ended++;
    if (own.ended === own.ids.length) this.own.delete(key);
    else if (own.ended > compactAfterEnded && own.ended * 2 > own.ids.length) {
      own.ids = own.ids.filter((id) => this.slotById.get(id) !== missing);
      own.ended = 0;
    }
  }

  private rowAt(slot: number): OrderRow {
    const numbers = this.numbers;
    const small = this.small;
    const base = slot * fieldsPerOrder;
    const tiny = slot * smallPerOrder;
    return {
      orderId: numbers[base + Field.orderId]!,
      userId: numbers[base + Field.userId]!,
      pairId: numbers[base + Field.pairId]!,
      mode: small[tiny + Small.mode]! as Mode,
      side: small[tiny + Small.side]! as Side,
      orderType: small[tiny + Small.orderType]! as OrderType,
      timeInForce: small[tiny + Small.timeInForce]! as TimeInForce,
      postOnly: small[tiny + Small.postOnly] === 1,
      selfTradePrevention: small[tiny + Small.selfTradePrevention]! as SelfTradePrevention,
      priceTicks: numbers[base + Field.priceTicks]!,
      stopPriceTicks: numbers[base + Field.stopPriceTicks]!,
      quantityLots: numbers[base + Field.quantityLots]!,
      filledLots: numbers[base + Field.filledLots]!,
      filledNotionalAtoms: numbers[base + Field.filledNotionalAtoms]!,
      feeAtoms: numbers[base + Field.feeAtoms]!,
      status: small[tiny + Small.status]! as OrderStatus,
      clientOrderId: this.clientOrderIds[slot]!,
      createdAtMs: numbers[base + Field.createdAtMs]!,
      updatedAtMs: numbers[base + Field.updatedAtMs]!,
      simTxHash: this.simTxHashes[slot]!,
      groupKind: small[tiny + Small.groupKind]!,
      groupId: numbers[base + Field.groupId]!,
    };
  }
}
