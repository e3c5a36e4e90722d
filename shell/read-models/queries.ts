/**
 * Queries of the exchange read models (DATA_DIR/read-models.sqlite): one order, a user's order history,
 * public trades, a user's fills and candles. They run on the main thread on a connection of their own,
 * while the writer (writer.ts) fills the tables on a worker thread; SQLite's WAL lets the two run side by
 * side, and a query sees whole committed transactions only (ReadModels.whenApplied says when a given seq
 * is among them).
 */
import type { Db } from '../store/database.ts';
import type { Mode, OrderType, SelfTradePrevention, Side, TimeInForce } from '../../engine/core/commands.ts';
import type { OrderStatus } from '../../engine/core/events.ts';

export interface OrderRow {
  readonly orderId: number;
  readonly userId: number;
  readonly pairId: number;
  readonly mode: Mode;
  readonly side: Side;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  readonly postOnly: boolean;
  readonly selfTradePrevention: SelfTradePrevention;
  readonly priceTicks: number;
  readonly stopPriceTicks: number;
  readonly quantityLots: number;
  readonly filledLots: number;
  readonly filledNotionalAtoms: number;
  readonly feeAtoms: number;
  readonly status: OrderStatus;
  /** Empty when the client gave none. */
  readonly clientOrderId: string;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** The settlement hash of the order's first fill through a (simulated) chain, or ''. */
  readonly simTxHash: string;
  /** The order's parent: GroupKind (none, TWAP, scale) and its id (0 for none). */
  readonly groupKind: number;
  readonly groupId: number;
}

export interface TradeRow {
  readonly tradeId: number;
  readonly pairId: number;
  readonly mode: Mode;
  readonly priceTicks: number;
  readonly quantityLots: number;
  readonly notionalAtoms: number;
  readonly takerSide: Side;
  readonly takerOrderId: number;
  readonly makerOrderId: number;
  readonly takerUserId: number;
  readonly makerUserId: number;
  readonly takerFeeAtoms: number;
  readonly makerFeeAtoms: number;
  readonly tsMs: number;
  /** The outside venue the trade was against (0: two of our orders), its chain and the settlement's hash. */
  readonly venueId: number;
  readonly chainId: number;
  readonly txHash: string;
}

/** One side of a trade as its user sees it. */
export interface FillRow {
  readonly tradeId: number;
  readonly orderId: number;
  readonly pairId: number;
  /** The order's client order id; empty when the client gave none. */
  readonly clientOrderId: string;
  readonly role: 'maker' | 'taker';
  /** The user's side: the taker's side for the taker, the other one for the maker. */
  readonly side: Side;
  readonly priceTicks: number;
  readonly quantityLots: number;
  readonly notionalAtoms: number;
  readonly feeAtoms: number;
  readonly tsMs: number;
  readonly venueId: number;
  readonly chainId: number;
  readonly txHash: string;
}

export interface CandleRow {
  readonly openTimeMs: number;
  readonly openTicks: number;
  readonly highTicks: number;
  readonly lowTicks: number;
  readonly closeTicks: number;
  readonly volumeLots: number;
  readonly quoteVolumeAtoms: number;
  readonly trades: number;
}

export interface WithdrawalRow {
  readonly seq: number;
  readonly userId: number;
  readonly assetId: number;
  readonly amountAtoms: number;
  readonly chainId: number;
  readonly address: string;
  /** Empty when the client gave none. */
  readonly reference: string;
  readonly tsMs: number;
}

export interface OrderHistoryQuery {
  readonly userId: number;
  readonly pairId: number;
  readonly mode: Mode;
  /** Only orders in this status, when given. */
  readonly status?: OrderStatus;
  /** Only orders with a smaller id (the previous page's last), when given. */
  readonly beforeOrderId?: number;
  readonly limit: number;
}

export interface CandleQuery {
  readonly pairId: number;
  readonly intervalMs: number;
  readonly startMs?: number;
  readonly endMs?: number;
  readonly limit: number;
}

const orderColumns = `order_id AS orderId, user_id AS userId, pair_id AS pairId, mode, side, order_type AS orderType,
  time_in_force AS timeInForce, post_only AS postOnly, stp AS selfTradePrevention, price_ticks AS priceTicks,
  stop_price_ticks AS stopPriceTicks, quantity_lots AS quantityLots, filled_lots AS filledLots,
  filled_notional_atoms AS filledNotionalAtoms, fee_atoms AS feeAtoms, status, client_order_id AS clientOrderId,
  created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs, sim_tx_hash AS simTxHash, group_kind AS groupKind, group_id AS groupId`;

const tradeColumns = `trade_id AS tradeId, pair_id AS pairId, mode, price_ticks AS priceTicks, quantity_lots AS quantityLots,
  notional_atoms AS notionalAtoms, taker_side AS takerSide, taker_order_id AS takerOrderId, maker_order_id AS makerOrderId,
  taker_user_id AS takerUserId, maker_user_id AS makerUserId, taker_fee_atoms AS takerFeeAtoms,
  maker_fee_atoms AS makerFeeAtoms, ts_ms AS tsMs, venue_id AS venueId, chain_id AS chainId, tx_hash AS txHash`;

const candleColumns = `open_time_ms AS openTimeMs, open_ticks AS openTicks, high_ticks AS highTicks, low_ticks AS lowTicks,
  close_ticks AS closeTicks, volume_lots AS volumeLots, quote_volume_atoms AS quoteVolumeAtoms, trades`;

/**
 * The user's fills newest first, on one pair (`onePair`) or on all of them. Each side's newest fills come
 * first, then are merged: both branches read their index in order and stop at the limit. The order's
 * client order id is joined on by primary key, for the page's rows only.
 */
function fillsSql(onePair: boolean): string {
  const pairClause = onePair ? 'AND pair_id = ?' : '';
  return `
  SELECT fills.*, coalesce(orders.client_order_id, '') AS clientOrderId FROM (
    SELECT * FROM (SELECT trade_id AS tradeId, taker_order_id AS orderId, pair_id AS pairId, 'taker' AS role, taker_side AS side,
        price_ticks AS priceTicks, quantity_lots AS quantityLots, notional_atoms AS notionalAtoms,
        taker_fee_atoms AS feeAtoms, ts_ms AS tsMs, venue_id AS venueId, chain_id AS chainId, tx_hash AS txHash
      FROM exchange_trades WHERE taker_user_id = ? ${pairClause} AND mode = ? AND trade_id < ?
      ORDER BY trade_id DESC LIMIT ?)
    UNION ALL
    SELECT * FROM (SELECT trade_id, maker_order_id, pair_id, 'maker', 1 - taker_side, price_ticks, quantity_lots, notional_atoms,
        maker_fee_atoms, ts_ms, venue_id, chain_id, tx_hash
      FROM exchange_trades WHERE maker_user_id = ? ${pairClause} AND mode = ? AND trade_id < ?
      ORDER BY trade_id DESC LIMIT ?)
    ORDER BY tradeId DESC, role LIMIT ?) AS fills
  LEFT JOIN exchange_orders AS orders ON orders.order_id = fills.orderId
  ORDER BY fills.tradeId DESC, fills.role`;
}

/** Statuses of a live order: an untriggered stop, resting, resting after part of it filled. */
const liveStatuses = 'status IN (0, 1, 2)';

type Row = Record<string, number | string>;

const noneBefore = Number.MAX_SAFE_INTEGER;

export class ReadModelQueries {
  private readonly selectOrder;
  private readonly selectOrders;
  private readonly selectOrdersInStatus;
  private readonly selectTrades;
  private readonly selectFills;
  private readonly selectFillsAllPairs;
  private readonly selectOpenOrders;
  private readonly selectOpenOrdersOfPair;
  private readonly selectEveryOpenOrder;
  private readonly scanEveryOpenOrder;
  private readonly selectLastOrderId;
  private readonly selectOrderByClientId;
  private readonly selectLatestCandles;
  private readonly selectCandlesFrom;
  private readonly selectMinutesSince;
  private readonly selectLastPrice;
  private readonly selectAppliedSeq;
  private readonly selectWithdrawalByReference;
  private readonly selectWithdrawals;

  constructor(db: Db) {
    this.selectOrder = db.prepare(`SELECT ${orderColumns} FROM exchange_orders WHERE order_id = ?`);
    const ordersOf = `SELECT ${orderColumns} FROM exchange_orders WHERE user_id = ? AND pair_id = ? AND mode = ? AND order_id < ?`;
    this.selectOrders = db.prepare(`${ordersOf} ORDER BY order_id DESC LIMIT ?`);
    this.selectOrdersInStatus = db.prepare(`${ordersOf} AND status = ? ORDER BY order_id DESC LIMIT ?`);
    this.selectTrades = db.prepare(`SELECT ${tradeColumns} FROM exchange_trades WHERE pair_id = ? AND mode = ? AND trade_id < ?
      ORDER BY trade_id DESC LIMIT ?`);
    this.selectFills = db.prepare(fillsSql(true));
    this.selectFillsAllPairs = db.prepare(fillsSql(false));
    // Named indexes: without statistics the planner would pick the pair's whole history over the small
    // partial indexes (of live orders; of orders with a client id).
    const openOf = `SELECT ${orderColumns} FROM exchange_orders INDEXED BY exchange_orders_open
      WHERE user_id = ? AND mode = ? AND ${liveStatuses} AND order_id < ?`;
    this.selectOpenOrders = db.prepare(`${openOf} ORDER BY order_id DESC LIMIT ?`);
    this.selectOpenOrdersOfPair = db.prepare(`${openOf} AND pair_id = ? ORDER BY order_id DESC LIMIT ?`);
    // Every open order at start (`forEachOpenOrder`), as positional rows (`raw`): through the partial index
    // of live orders in its own order (each account's oldest first, no sort), or one pass over the table.
    this.selectEveryOpenOrder = db
      .prepare(`SELECT ${orderColumns} FROM exchange_orders INDEXED BY exchange_orders_open WHERE ${liveStatuses} ORDER BY user_id, mode, order_id`)
      .raw();
    this.scanEveryOpenOrder = db.prepare(`SELECT ${orderColumns} FROM exchange_orders NOT INDEXED WHERE ${liveStatuses} ORDER BY order_id`).raw();
    this.selectLastOrderId = db.prepare('SELECT max(order_id) AS last FROM exchange_orders');
    this.selectOrderByClientId = db.prepare(`SELECT ${orderColumns} FROM exchange_orders INDEXED BY exchange_orders_client
      WHERE user_id = ? AND mode = ? AND client_order_id = ? AND client_order_id <> '' AND pair_id = ? ORDER BY order_id DESC LIMIT 1`);
    const candlesOf = `SELECT ${candleColumns} FROM exchange_candles WHERE pair_id = ? AND interval_ms = ? AND open_time_ms >= ? AND open_time_ms <= ?`;
    this.selectLatestCandles = db.prepare(`${candlesOf} ORDER BY open_time_ms DESC LIMIT ?`);
    this.selectCandlesFrom = db.prepare(`${candlesOf} ORDER BY open_time_ms ASC LIMIT ?`);
    this.selectMinutesSince = db.prepare(`SELECT ${candleColumns} FROM exchange_candles WHERE pair_id = ? AND interval_ms = 60000 AND open_time_ms >= ?
      ORDER BY open_time_ms`);
    this.selectLastPrice = db.prepare('SELECT price_ticks FROM exchange_trades WHERE pair_id = ? AND mode = 0 ORDER BY trade_id DESC LIMIT 1').pluck();
    this.selectAppliedSeq = db.prepare('SELECT applied_seq FROM read_model_progress WHERE id = 1').pluck();
    const withdrawalColumns = `seq, user_id AS userId, asset_id AS assetId, amount_atoms AS amountAtoms, chain_id AS chainId, address,
      reference, ts_ms AS tsMs`;
    this.selectWithdrawalByReference = db.prepare(`SELECT ${withdrawalColumns} FROM withdrawals WHERE user_id = ? AND reference = ? ORDER BY seq LIMIT 1`);
    this.selectWithdrawals = db.prepare(`SELECT ${withdrawalColumns} FROM withdrawals WHERE user_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`);
  }

  /** Seq of the last command whose events are committed to the tables. */
  appliedSeq(): number {
    return (this.selectAppliedSeq.get() as number | undefined) ?? 0;
  }

  /** One-minute candles of a pair's live trades from `sinceMs` on, oldest first (what a ticker is restored from). */
  minutesSince(pairId: number, sinceMs: number): CandleRow[] {
    return this.selectMinutesSince.all(pairId, sinceMs) as CandleRow[];
  }

  /** Price of the pair's newest live trade, or undefined before the first. */
  lastPrice(pairId: number): number | undefined {
    return this.selectLastPrice.get(pairId) as number | undefined;
  }

  /** The user's first withdrawal with this (non-empty) reference. */
  withdrawalByReference(userId: number, reference: string): WithdrawalRow | undefined {
    return this.selectWithdrawalByReference.get(userId, reference) as WithdrawalRow | undefined;
  }

  /** The user's withdrawals, newest first. */
  withdrawals(userId: number, limit: number, beforeSeq = noneBefore): WithdrawalRow[] {
    return this.selectWithdrawals.all(userId, beforeSeq, limit) as WithdrawalRow[];
  }

  order(orderId: number): OrderRow | undefined {
    const row = this.selectOrder.get(orderId) as Row | undefined;
    return row === undefined ? undefined : orderOf(row);
  }

  /** The user's orders on a pair in one mode, newest first. */
  orderHistory(query: OrderHistoryQuery): OrderRow[] {
    const before = query.beforeOrderId ?? noneBefore;
    const rows =
      query.status === undefined
        ? this.selectOrders.all(query.userId, query.pairId, query.mode, before, query.limit)
        : this.selectOrdersInStatus.all(query.userId, query.pairId, query.mode, before, query.status, query.limit);
    return (rows as Row[]).map(orderOf);
  }

  /** Trades of a pair in one mode, newest first. */
  trades(pairId: number, mode: Mode, limit: number, beforeTradeId = noneBefore): TradeRow[] {
    return this.selectTrades.all(pairId, mode, beforeTradeId, limit) as TradeRow[];
  }

  /** The user's fills on a pair in one mode, newest first (a self-trade is two fills, maker first). */
  fills(userId: number, pairId: number, mode: Mode, limit: number, beforeTradeId = noneBefore): FillRow[] {
    return this.selectFills.all(userId, pairId, mode, beforeTradeId, limit, userId, pairId, mode, beforeTradeId, limit, limit) as FillRow[];
  }

  /** The user's fills on every pair in one mode, newest first (a self-trade is two fills, maker first). */
  fillsAllPairs(userId: number, mode: Mode, limit: number, beforeTradeId = noneBefore): FillRow[] {
    return this.selectFillsAllPairs.all(userId, mode, beforeTradeId, limit, userId, mode, beforeTradeId, limit, limit) as FillRow[];
  }

  /**
   * The user's live orders in one mode (resting, partly filled, untriggered stops), newest first: on one
   * pair, or on all of them when `pairId` is 0. The server answers this from memory (open-orders.ts);
   * this query is what the memory is checked against (open-orders.test.ts) and what an operator can run.
   */
  openOrders(userId: number, mode: Mode, pairId: number, limit: number, beforeOrderId = noneBefore): OrderRow[] {
    const rows =
      pairId === 0
        ? this.selectOpenOrders.all(userId, mode, beforeOrderId, limit)
        : this.selectOpenOrdersOfPair.all(userId, mode, beforeOrderId, pairId, limit);
    return (rows as Row[]).map(orderOf);
  }

  /**
   * Every live order of every user and mode, each account's oldest first (the open orders in memory load
   * them at start). `openOrdersHint`, about how many there are (the engine's live orders), picks the plan:
   * when they are a quarter or more of every order ever placed, one pass over the table in id order (about
   * 1.7 µs a row at a million, all live) beats the partial index's walk, which looks each row up in the
   * table (about 2.8 µs a row); with a long history of ended orders the index reads only the live ones.
   */
  forEachOpenOrder(visit: (order: OrderRow) => void, openOrdersHint = 0): void {
    const ordersEver = (this.selectLastOrderId.get() as { last: number | null }).last ?? 0;
    const statement = openOrdersHint * 4 >= ordersEver ? this.scanEveryOpenOrder : this.selectEveryOpenOrder;
    // Each row as an array and one object literal: named rows and `orderOf`'s spread took most of a start
    // with hundreds of thousands of open orders (about 3.6 µs a row, 1.1 s for 300 000).
    for (const row of statement.iterate() as IterableIterator<Array<number | string>>) visit(orderOfColumns(row));
  }

  /**
   * The user's newest order on a pair in one mode with this client order id, in any status: client ids
   * are unique among the account's live orders only, and ids increase, so a live order with the id is
   * always the newest one that had it.
   */
  orderByClientId(userId: number, mode: Mode, pairId: number, clientOrderId: string): OrderRow | undefined {
    const row = this.selectOrderByClientId.get(userId, mode, clientOrderId, pairId) as Row | undefined;
    return row === undefined ? undefined : orderOf(row);
  }

  /**
   * Candles in time order: from `startMs` on when it is given, otherwise the latest ones up to `endMs`.
   * Buckets without trades are absent.
   */
  candles(query: CandleQuery): CandleRow[] {
    const startMs = query.startMs ?? 0;
    const endMs = query.endMs ?? noneBefore;
    if (query.startMs !== undefined) return this.selectCandlesFrom.all(query.pairId, query.intervalMs, startMs, endMs, query.limit) as CandleRow[];
    return (this.selectLatestCandles.all(query.pairId, query.intervalMs, startMs, endMs, query.limit) as CandleRow[]).reverse();
  }
}

function orderOf(row: Row): OrderRow {
  return { ...(row as unknown as OrderRow), postOnly: row['postOnly'] === 1 };
}

/** An order from a positional row of `orderColumns`, in their order. */
function orderOfColumns(row: ReadonlyArray<number | string>): OrderRow {
  return {
    orderId: row[0] as number,
    userId: row[1] as number,
    pairId: row[2] as number,
    mode: row[3] as Mode,
    side: row[4] as Side,
    orderType: row[5] as OrderType,
    timeInForce: row[6] as TimeInForce,
    postOnly: row[7] === 1,
    selfTradePrevention: row[8] as SelfTradePrevention,
    priceTicks: row[9] as number,
    stopPriceTicks: row[10] as number,
    quantityLots: row[11] as number,
    filledLots: row[12] as number,
    filledNotionalAtoms: row[13] as number,
    feeAtoms: row[14] as number,
    status: row[15] as OrderStatus,
    clientOrderId: row[16] as string,
    createdAtMs: row[17] as number,
    updatedAtMs: row[18] as number,
    simTxHash: row[19] as string,
    groupKind: row[20] as number,
    groupId: row[21] as number,
  };
}
