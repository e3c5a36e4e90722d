/**
 * The engine's whole state as plain columns of numbers (and one column of strings), and back. The
 * journal layer encodes a snapshot with msgpack; here it is only data. Orders are listed in a canonical
 * order (per book: bids then asks in priority order, then buy and sell stops in trigger order), so equal
 * states give equal snapshots, and a restored engine hashes exactly as the original.
 *
 * Restoring rebuilds the books by adding orders in priority order and the per-account order lists in
 * order-id order (which is acceptance order, the order those lists keep).
 */
import { assert } from './assert.ts';
import type { Engine, RestoredOrder } from './engine.ts';
import type { Mode, Side } from './commands.ts';

export const snapshotVersion = 1;

/** Per-order columns; index i of every column describes the same order. */
export interface OrderColumns {
  orderId: Float64Array;
  userId: Float64Array;
  context: Int32Array;
  side: Uint8Array;
  orderType: Uint8Array;
  timeInForce: Uint8Array;
  selfTradePrevention: Uint8Array;
  postOnly: Uint8Array;
  status: Uint8Array;
  priceTicks: Float64Array;
  stopPriceTicks: Float64Array;
  holdPriceTicks: Float64Array;
  quantityLots: Float64Array;
  filledLots: Float64Array;
  filledNotionalAtoms: Float64Array;
  takerNotionalAtoms: Float64Array;
  makerNotionalAtoms: Float64Array;
  heldAtoms: Float64Array;
  /** Lots resting in the book; 0 for pending stops. */
  restingLots: Float64Array;
  clientOrderId: string[];
}

export interface EngineSnapshot {
  version: number;
  /** Ids of the pairs, in the engine's order: a snapshot is refused by an engine with other pairs. */
  pairIds: number[];
  assetIds: number[];
  lastOrderId: number;
  lastTradeId: number;
  /** Per book context: last trade price. */
  lastPriceTicks: Float64Array;
  accountUsers: Float64Array;
  accountModes: Uint8Array;
  /** account × assetCount + asset. */
  available: Float64Array;
  held: Float64Array;
  supply: Float64Array;
  orders: OrderColumns;
}

function orderColumns(count: number): OrderColumns {
  return {
    orderId: new Float64Array(count),
    userId: new Float64Array(count),
    context: new Int32Array(count),
    side: new Uint8Array(count),
    orderType: new Uint8Array(count),
    timeInForce: new Uint8Array(count),
    selfTradePrevention: new Uint8Array(count),
    postOnly: new Uint8Array(count),
    status: new Uint8Array(count),
    priceTicks: new Float64Array(count),
    stopPriceTicks: new Float64Array(count),
    holdPriceTicks: new Float64Array(count),
    quantityLots: new Float64Array(count),
    filledLots: new Float64Array(count),
    filledNotionalAtoms: new Float64Array(count),
    takerNotionalAtoms: new Float64Array(count),
    makerNotionalAtoms: new Float64Array(count),
    heldAtoms: new Float64Array(count),
    restingLots: new Float64Array(count),
    clientOrderId: new Array<string>(count).fill(''),
  };
}

export function takeSnapshot(engine: Engine): EngineSnapshot {
  const store = engine.orders;
  const ledger = engine.ledger;
  const columns = orderColumns(store.liveCount);
  let row = 0;
  const put = (slot: number, restingLots: number): void => {
    columns.orderId[row] = store.orderId[slot]!;
    columns.userId[row] = ledger.userOf(store.account[slot]!);
    columns.context[row] = store.context[slot]!;
    columns.side[row] = store.side[slot]!;
    columns.orderType[row] = store.orderType[slot]!;
    columns.timeInForce[row] = store.timeInForce[slot]!;
    columns.selfTradePrevention[row] = store.selfTradePrevention[slot]!;
    columns.postOnly[row] = store.postOnly[slot]!;
    columns.status[row] = store.status[slot]!;
    columns.priceTicks[row] = store.priceTicks[slot]!;
    columns.stopPriceTicks[row] = store.stopPriceTicks[slot]!;
    columns.holdPriceTicks[row] = store.holdPriceTicks[slot]!;
    columns.quantityLots[row] = store.quantityLots[slot]!;
    columns.filledLots[row] = store.filledLots[slot]!;
    columns.filledNotionalAtoms[row] = store.filledNotionalAtoms[slot]!;
    columns.takerNotionalAtoms[row] = store.takerNotionalAtoms[slot]!;
    columns.makerNotionalAtoms[row] = store.makerNotionalAtoms[slot]!;
    columns.heldAtoms[row] = store.heldAtoms[slot]!;
    columns.restingLots[row] = restingLots;
    columns.clientOrderId[row] = store.clientOrderId[slot]!;
    row++;
  };
  const lastPriceTicks = new Float64Array(engine.contexts.length);
  for (const context of engine.contexts) {
    lastPriceTicks[context.index] = context.lastPriceTicks;
    context.book.visit(0, (slot, _account, _price, lots) => put(slot, lots));
    context.book.visit(1, (slot, _account, _price, lots) => put(slot, lots));
    for (const slot of context.buyStops) put(slot, 0);
    for (const slot of context.sellStops) put(slot, 0);
  }
  assert(row === store.liveCount, 'every live order is in a book or a stop list');

  const assetCount = ledger.assetCount;
  const accountCount = ledger.accountCount;
  const accountUsers = new Float64Array(accountCount);
  const accountModes = new Uint8Array(accountCount);
  const available = new Float64Array(accountCount * assetCount);
  const held = new Float64Array(accountCount * assetCount);
  for (let account = 0; account < accountCount; account++) {
    accountUsers[account] = ledger.userOf(account);
    accountModes[account] = ledger.modeOf(account);
    for (let asset = 0; asset < assetCount; asset++) {
      available[account * assetCount + asset] = ledger.availableAtoms(account, asset);
      held[account * assetCount + asset] = ledger.heldAtoms(account, asset);
    }
  }
  return {
    version: snapshotVersion,
    pairIds: engine.markets.pairs.map((pair) => pair.id),
    assetIds: engine.markets.assets.map((asset) => asset.id),
    lastOrderId: engine.lastOrderId,
    lastTradeId: engine.lastTradeId,
    lastPriceTicks,
    accountUsers,
    accountModes,
    available,
    held,
    supply: Float64Array.from(ledger.supply),
    orders: columns,
  };
}

/**
 * Loads a snapshot into a fresh engine (no accounts but the fee accounts, no orders). Throws on a
 * snapshot that does not fit this engine: a caller treats that as an invalid snapshot.
 */
export function restoreSnapshot(engine: Engine, snapshot: EngineSnapshot): void {
  assert(snapshot.version === snapshotVersion, `snapshot version ${snapshot.version} is not ${snapshotVersion}`);
  assert(engine.orders.liveCount === 0 && engine.ledger.accountCount === 2, 'restore needs a fresh engine');
  const pairIds = engine.markets.pairs.map((pair) => pair.id);
  const assetIds = engine.markets.assets.map((asset) => asset.id);
  assert(sameNumbers(snapshot.pairIds, pairIds), 'snapshot pairs differ from this engine');
  assert(sameNumbers(snapshot.assetIds, assetIds), 'snapshot assets differ from this engine');
  const ledger = engine.ledger;
  const assetCount = ledger.assetCount;
  assert(snapshot.accountUsers.length * assetCount === snapshot.available.length, 'snapshot ledger shape');
  for (let account = 0; account < snapshot.accountUsers.length; account++) {
    const restored = ledger.restoreAccount(
      snapshot.accountUsers[account]!,
      snapshot.accountModes[account] as Mode,
      snapshot.available.subarray(account * assetCount, (account + 1) * assetCount),
      snapshot.held.subarray(account * assetCount, (account + 1) * assetCount),
    );
    assert(restored === account, 'accounts restore in order');
  }
  ledger.supply.set(snapshot.supply);
  engine.lastOrderId = snapshot.lastOrderId;
  engine.lastTradeId = snapshot.lastTradeId;
  assert(snapshot.lastPriceTicks.length === engine.contexts.length, 'snapshot book count');
  for (const context of engine.contexts) context.lastPriceTicks = snapshot.lastPriceTicks[context.index]!;

  const columns = snapshot.orders;
  const count = columns.orderId.length;
  const slots = new Int32Array(count);
  for (let row = 0; row < count; row++) {
    slots[row] = engine.restoreOrder({
      orderId: columns.orderId[row]!,
      userId: columns.userId[row]!,
      context: columns.context[row]!,
      side: columns.side[row] as Side,
      orderType: columns.orderType[row]!,
      timeInForce: columns.timeInForce[row]!,
      selfTradePrevention: columns.selfTradePrevention[row]!,
      postOnly: columns.postOnly[row]!,
      status: columns.status[row]!,
      priceTicks: columns.priceTicks[row]!,
      stopPriceTicks: columns.stopPriceTicks[row]!,
      holdPriceTicks: columns.holdPriceTicks[row]!,
      quantityLots: columns.quantityLots[row]!,
      filledLots: columns.filledLots[row]!,
      filledNotionalAtoms: columns.filledNotionalAtoms[row]!,
      takerNotionalAtoms: columns.takerNotionalAtoms[row]!,
      makerNotionalAtoms: columns.makerNotionalAtoms[row]!,
      heldAtoms: columns.heldAtoms[row]!,
      restingLots: columns.restingLots[row]!,
      clientOrderId: columns.clientOrderId[row]!,
    });
  }
  // Account lists hold orders oldest first, and ids increase with acceptance.
  const byId = Array.from(slots).sort((a, b) => engine.orders.orderId[a]! - engine.orders.orderId[b]!);
  for (const slot of byId) engine.restoreAccountLink(slot);
  assert(engine.orders.liveCount === count, 'every order restored');
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
