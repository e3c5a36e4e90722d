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
import { FastBookFactory, visitCopiedLevels, type FastBook } from './book/fast-book.ts';
import type { Engine } from './engine.ts';
import type { Mode, Side } from './commands.ts';
import { OrderStore, recordBytes, type OrderRecordsCopy } from './order-store.ts';

/**
 * Version 2 adds the venues; version 3 the last scale id and the domain modules' states; version 4 the
 * orders' taker fee rates and the accounts' own taker fee rates. Older snapshots load with none of what
 * they lack (they were taken before it existed: every order and account at the engine's taker fee).
 */
export const snapshotVersion = 4;

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
  /** The taker fee rate each order was placed with (absent before version 4). */
  takerFeeBps?: Uint16Array;
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
  /** Each quoting pool: its pair's index, pool id, chain id, version and quote time (absent in version 1). */
  venueQuotes?: { pairIndex: Int32Array; poolId: Int32Array; chainId: Int32Array; version: Float64Array; quotedAtMs: Float64Array };
  /** Every venue level in its merged order: pair index, side, price, lots and pool id (absent in version 1). */
  venueLevels?: { pairIndex: Int32Array; side: Uint8Array; priceTicks: Float64Array; lots: Float64Array; poolId: Int32Array };
  /** The last scale id (absent before version 3). */
  lastScaleId?: number;
  /** Accounts with their own taker fee rate: user, mode and rate (absent before version 4 and when none has). */
  accountTakerFees?: { userId: Float64Array; mode: Uint8Array; bps: Uint16Array };
  /** Each domain module's state by its name, for the modules whose state is not empty (absent before version 3). */
  domains?: Record<string, unknown>;
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
    takerFeeBps: new Uint16Array(count),
    heldAtoms: new Float64Array(count),
    restingLots: new Float64Array(count),
    clientOrderId: new Array<string>(count).fill(''),
  };
}

/**
 * The live orders as a copy of the order store's records and, per book context, what orders those are in
 * the snapshot's order (`FastBook.levelHeads` of the bids and of the asks, then the buy and the sell stops):
 * what `takeSnapshotCopy` takes in place of the columns when the books keep their nodes in the order
 * records. Taking it is a copy of the records' bytes (tens of ms at a million resting orders) where
 * filling the columns walks every order, a cache miss each (hundreds of ms); `completeSnapshot` walks the
 * copy later, on any thread.
 */
export interface OrdersCopy {
  readonly count: number;
  readonly store: OrderRecordsCopy;
  readonly contexts: ReadonlyArray<{
    readonly bids: Int32Array<ArrayBuffer>;
    readonly asks: Int32Array<ArrayBuffer>;
    readonly buyStops: Int32Array<ArrayBuffer>;
    readonly sellStops: Int32Array<ArrayBuffer>;
  }>;
}

/**
 * A snapshot taken at one moment, sharing no memory with the engine, whose orders may still be a copy of
 * the records (`OrdersCopy`) rather than columns: `completeSnapshot` makes it the `EngineSnapshot`.
 */
export interface SnapshotCopy {
  readonly state: Omit<EngineSnapshot, 'orders'>;
  readonly orders: OrderColumns | OrdersCopy;
}

export function takeSnapshot(engine: Engine): EngineSnapshot {
  return completeSnapshot(takeSnapshotCopy(engine, false));
}

/**
 * The engine's state now. With `copyRecords` and books that keep their nodes in the order records (the
 * engine's own fast books), the orders are an `OrdersCopy`, the records copied into `spare` when it is large
 * enough (`OrderStore.copyRecords`); otherwise columns, filled here.
 */
export function takeSnapshotCopy(engine: Engine, copyRecords: boolean, spare: ArrayBuffer | null = null): SnapshotCopy {
  const books = engine.books;
  const orders = copyRecords && books instanceof FastBookFactory && books.nodesInRecords ? copyOrders(engine, spare) : orderColumnsOf(engine);
  return { state: takeStateWithoutOrders(engine), orders };
}

/** The snapshot of a copy; the same as `takeSnapshot` would have given when the copy was taken. */
export function completeSnapshot(copy: SnapshotCopy): EngineSnapshot {
  const orders = copy.orders;
  if (!('store' in orders)) return { ...copy.state, orders };
  const store = OrderStore.overCopy(orders.store);
  const users = copy.state.accountUsers;
  const filler = new ColumnFiller(orders.count, store, (account) => users[account]!);
  const put = (slot: number, restingLots: number): void => filler.put(slot, restingLots);
  const putStop = (slot: number): void => filler.put(slot, 0);
  for (const context of orders.contexts) {
    visitCopiedLevels(store, recordBytes, context.bids, put);
    visitCopiedLevels(store, recordBytes, context.asks, put);
    context.buyStops.forEach(putStop);
    context.sellStops.forEach(putStop);
  }
  assert(filler.row === orders.count, 'the copied books hold every live order');
  return { ...copy.state, orders: filler.columns };
}

/** The buffers of a copy's orders that a postMessage can hand over rather than copy. */
export function snapshotCopyTransfers(copy: SnapshotCopy): ArrayBuffer[] {
  const orders = copy.orders;
  if (!('store' in orders)) return [];
  const buffers: ArrayBuffer[] = [orders.store.records, orders.store.clientSlots.buffer];
  for (const context of orders.contexts) buffers.push(context.bids.buffer, context.asks.buffer, context.buyStops.buffer, context.sellStops.buffer);
  return buffers;
}

function copyOrders(engine: Engine, spare: ArrayBuffer | null): OrdersCopy {
  const contexts = engine.contexts.map((context) => {
    const book = context.book as FastBook;
    return { bids: book.levelHeads(0), asks: book.levelHeads(1), buyStops: Int32Array.from(context.buyStops), sellStops: Int32Array.from(context.sellStops) };
  });
  return { count: engine.orders.liveCount, store: engine.orders.copyRecords(spare), contexts };
}

/** Fills order columns row by row from a store's records. */
class ColumnFiller {
  readonly columns: OrderColumns;
  row = 0;

  constructor(
    count: number,
    private readonly store: OrderStore,
    private readonly userOf: (account: number) => number,
  ) {
    this.columns = orderColumns(count);
  }

  put(slot: number, restingLots: number): void {
    const store = this.store;
    const columns = this.columns;
    const row = this.row++;
    columns.orderId[row] = store.orderId(slot);
    columns.userId[row] = this.userOf(store.account(slot));
    columns.context[row] = store.context(slot);
    columns.side[row] = store.side(slot);
    columns.orderType[row] = store.orderType(slot);
    columns.timeInForce[row] = store.timeInForce(slot);
    columns.selfTradePrevention[row] = store.selfTradePrevention(slot);
    columns.postOnly[row] = store.postOnly(slot);
    columns.status[row] = store.status(slot);
    columns.priceTicks[row] = store.priceTicks(slot);
    columns.stopPriceTicks[row] = store.stopPriceTicks(slot);
    columns.holdPriceTicks[row] = store.holdPriceTicks(slot);
    columns.quantityLots[row] = store.quantityLots(slot);
    columns.filledLots[row] = store.filledLots(slot);
    columns.filledNotionalAtoms[row] = store.filledNotionalAtoms(slot);
    columns.takerNotionalAtoms[row] = store.takerNotionalAtoms(slot);
    columns.makerNotionalAtoms[row] = store.makerNotionalAtoms(slot);
    columns.takerFeeBps![row] = store.takerFeeBps(slot);
    columns.heldAtoms[row] = store.heldAtoms(slot);
    columns.restingLots[row] = restingLots;
    columns.clientOrderId[row] = store.clientOrderId[slot]!;
  }
}

/** The columns of the live orders in the snapshot's order, read from the engine's store and books. */
function orderColumnsOf(engine: Engine): OrderColumns {
  const ledger = engine.ledger;
  const filler = new ColumnFiller(engine.orders.liveCount, engine.orders, (account) => ledger.userOf(account));
  for (const context of engine.contexts) {
    context.book.visit(0, (slot, _account, _price, lots) => filler.put(slot, lots));
    context.book.visit(1, (slot, _account, _price, lots) => filler.put(slot, lots));
    for (const slot of context.buyStops) filler.put(slot, 0);
    for (const slot of context.sellStops) filler.put(slot, 0);
  }
  assert(filler.row === engine.orders.liveCount, 'every live order is in a book or a stop list');
  return filler.columns;
}

/** Everything of the state but the orders, in the key order of `EngineSnapshot` as encoded (orders last). */
function takeStateWithoutOrders(engine: Engine): Omit<EngineSnapshot, 'orders'> {
  const ledger = engine.ledger;
  const lastPriceTicks = new Float64Array(engine.contexts.length);
  for (const context of engine.contexts) {
    lastPriceTicks[context.index] = context.lastPriceTicks;
  }

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
  const quoteRows: Array<[number, number, number, number, number]> = [];
  const levelRows: Array<[number, number, number, number, number]> = [];
  for (const pair of engine.markets.pairs) {
    const venues = engine.venues[pair.index]!;
    for (const quote of venues.allQuotes()) quoteRows.push([pair.index, quote.poolId, quote.chainId, quote.version, quote.quotedAtMs]);
    for (const side of [0, 1] as const) {
      for (let index = 0; index < venues.levelCount(side); index++) {
        levelRows.push([pair.index, side, venues.priceAt(side, index), venues.lotsAt(side, index), venues.poolAt(side, index)]);
      }
    }
  }
  // Accounts in ledger order, so that equal states give equal snapshots.
  const feeAccounts = [...engine.takerFeeBpsByAccount.keys()].sort((a, b) => a - b);
  const domains: Record<string, unknown> = {};
  for (const domain of engine.domains) {
    const state = domain.snapshot();
    if (state !== null) domains[domain.name] = state;
  }
  return {
    version: snapshotVersion,
    lastScaleId: engine.lastScaleId,
    domains,
    ...(feeAccounts.length === 0
      ? {}
      : {
          accountTakerFees: {
            userId: Float64Array.from(feeAccounts, (account) => ledger.userOf(account)),
            mode: Uint8Array.from(feeAccounts, (account) => ledger.modeOf(account)),
            bps: Uint16Array.from(feeAccounts, (account) => engine.takerFeeBpsByAccount.get(account)!),
          },
        }),
    venueQuotes: {
      pairIndex: Int32Array.from(quoteRows, (row) => row[0]),
      poolId: Int32Array.from(quoteRows, (row) => row[1]),
      chainId: Int32Array.from(quoteRows, (row) => row[2]),
      version: Float64Array.from(quoteRows, (row) => row[3]),
      quotedAtMs: Float64Array.from(quoteRows, (row) => row[4]),
    },
    venueLevels: {
      pairIndex: Int32Array.from(levelRows, (row) => row[0]),
      side: Uint8Array.from(levelRows, (row) => row[1]),
      priceTicks: Float64Array.from(levelRows, (row) => row[2]),
      lots: Float64Array.from(levelRows, (row) => row[3]),
      poolId: Int32Array.from(levelRows, (row) => row[4]),
    },
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
  };
}

/**
 * Loads a snapshot into a fresh engine (no accounts but the fee accounts, no orders). Throws on a
 * snapshot that does not fit this engine: a caller treats that as an invalid snapshot.
 */
export function restoreSnapshot(engine: Engine, snapshot: EngineSnapshot): void {
  assert(Number.isInteger(snapshot.version) && snapshot.version >= 1 && snapshot.version <= snapshotVersion, `snapshot version ${snapshot.version} is not 1 to ${snapshotVersion}`);
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
  engine.restoreAccountLists();
  ledger.supply.set(snapshot.supply);
  engine.lastOrderId = snapshot.lastOrderId;
  engine.lastTradeId = snapshot.lastTradeId;
  engine.lastScaleId = snapshot.lastScaleId ?? 0;
  assert(snapshot.lastPriceTicks.length === engine.contexts.length, 'snapshot book count');
  for (const context of engine.contexts) context.lastPriceTicks = snapshot.lastPriceTicks[context.index]!;

  const columns = snapshot.orders;
  const count = columns.orderId.length;
  engine.reserveOrders(engine.orders.liveCount + count);
  for (let row = 0; row < count; row++) {
    engine.restoreOrder({
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
      takerFeeBps: columns.takerFeeBps === undefined ? engine.settings.takerFeeBps : columns.takerFeeBps[row]!,
      heldAtoms: columns.heldAtoms[row]!,
      restingLots: columns.restingLots[row]!,
      clientOrderId: columns.clientOrderId[row]!,
    });
  }
  // Account lists hold orders oldest first, and ids increase with acceptance: the ids sorted as numbers
  // (a typed array's own sort; a comparator reading each slot's id from its record was a third of the load
  // at a million orders), each order found again through the id index.
  const ids = Float64Array.from(columns.orderId).sort();
  for (let index = 0; index < count; index++) engine.restoreAccountLink(engine.slotOf(ids[index]!));
  assert(engine.orders.liveCount === count, 'every order restored');

  const fees = snapshot.accountTakerFees;
  if (fees !== undefined) {
    for (let row = 0; row < fees.userId.length; row++) engine.setTakerFeeBps(fees.userId[row]!, fees.mode[row] as Mode, fees.bps[row]!);
  }

  const quotes = snapshot.venueQuotes;
  if (quotes !== undefined) {
    for (let row = 0; row < quotes.poolId.length; row++) {
      engine.venues[quotes.pairIndex[row]!]!.restoreQuote(quotes.poolId[row]!, quotes.chainId[row]!, quotes.version[row]!, quotes.quotedAtMs[row]!);
    }
  }
  const levels = snapshot.venueLevels;
  if (levels !== undefined) {
    for (let row = 0; row < levels.poolId.length; row++) {
      engine.venues[levels.pairIndex[row]!]!.restoreLevel(levels.side[row] as Side, levels.priceTicks[row]!, levels.lots[row]!, levels.poolId[row]!);
    }
  }
  const domains = snapshot.domains ?? {};
  for (const name of Object.keys(domains)) {
    assert(engine.domains.some((domain) => domain.name === name), `the snapshot holds state of a domain this engine lacks: ${name}`);
  }
  for (const domain of engine.domains) {
    const state = domains[domain.name];
    if (state !== undefined) domain.restore(state);
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
