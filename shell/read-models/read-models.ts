/**
 * The exchange read models: every order of both modes with its current state, every trade, OHLC candles
 * of live trades (in the shell's SQLite database) and a 24-hour ticker per pair (in memory). The engine
 * forgets an order once it ends, so order status and history of ended orders live only here.
 *
 * They are fed durable batches only, into their own database file (derived data: the journal can always
 * make it again). Each batch's rows are written at once, so reads on this connection see them before the
 * batch's submitters are answered; the transaction they are written in stays open across batches and
 * commits every `commitEveryMs` or `replayCommandsPerTransaction` commands, with `applied_seq`, so the
 * committed tables always hold a whole prefix of the journal. (A commit per batch made SQLite's commit and
 * WAL checkpoint most of the cost of an order at small batches.) A crash loses what was not committed; at
 * start `replayFeed` asks the durable engine for the events of every command after the committed
 * `applied_seq`, applied in transactions of at most `replayCommandsPerTransaction` commands, and
 * `finishReplay` commits the rest.
 *
 * This runs on the order path, once per batch before any submitter is answered. Per event it touches
 * pooled objects and, for a trade, runs one prepared INSERT; orders and candles are gathered per batch and
 * written once each (order-changes.ts, candles.ts). A failure here is a bug: it throws out of the durable
 * callback and stops the process, the open transaction is discarded, and recovery replays the batch.
 */
import type { Db } from '../store/database.ts';
import type { Markets } from '../../engine/core/units.ts';
import type { Mode, OrderType, SelfTradePrevention, Side, TimeInForce } from '../../engine/core/commands.ts';
import { assert } from '../../engine/core/assert.ts';
import { EventKind, OrderStatus, type EngineEvent, type OrderAccepted, type TradeExecuted } from '../../engine/core/events.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { CandleBuckets, type Candle } from './candles.ts';
import { OrderChanges, unchanged, type OrderChange } from './order-changes.ts';
import { TickerWindow, minuteMs, windowMinutes, type TickerView } from './ticker.ts';

/** Replayed commands per transaction at start, and live commands per transaction at most. */
export const replayCommandsPerTransaction = 16_384;
/** How long live batches share one transaction before it commits. */
export const commitEveryMs = 50;

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
}

/** One side of a trade as its user sees it. */
export interface FillRow {
  readonly tradeId: number;
  readonly orderId: number;
  readonly role: 'maker' | 'taker';
  /** The user's side: the taker's side for the taker, the other one for the maker. */
  readonly side: Side;
  readonly priceTicks: number;
  readonly quantityLots: number;
  readonly notionalAtoms: number;
  readonly feeAtoms: number;
  readonly tsMs: number;
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
  created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`;

const tradeColumns = `trade_id AS tradeId, pair_id AS pairId, mode, price_ticks AS priceTicks, quantity_lots AS quantityLots,
  notional_atoms AS notionalAtoms, taker_side AS takerSide, taker_order_id AS takerOrderId, maker_order_id AS makerOrderId,
  taker_user_id AS takerUserId, maker_user_id AS makerUserId, taker_fee_atoms AS takerFeeAtoms,
  maker_fee_atoms AS makerFeeAtoms, ts_ms AS tsMs`;

const candleColumns = `open_time_ms AS openTimeMs, open_ticks AS openTicks, high_ticks AS highTicks, low_ticks AS lowTicks,
  close_ticks AS closeTicks, volume_lots AS volumeLots, quote_volume_atoms AS quoteVolumeAtoms, trades`;

/** Each side's newest fills first, then merged: both branches read their index in order and stop at the limit. */
const fillsSql = `
  SELECT * FROM (SELECT trade_id AS tradeId, taker_order_id AS orderId, 'taker' AS role, taker_side AS side,
      price_ticks AS priceTicks, quantity_lots AS quantityLots, notional_atoms AS notionalAtoms,
      taker_fee_atoms AS feeAtoms, ts_ms AS tsMs
    FROM exchange_trades WHERE taker_user_id = ? AND pair_id = ? AND mode = ? AND trade_id < ?
    ORDER BY trade_id DESC LIMIT ?)
  UNION ALL
  SELECT * FROM (SELECT trade_id, maker_order_id, 'maker', 1 - taker_side, price_ticks, quantity_lots, notional_atoms,
      maker_fee_atoms, ts_ms
    FROM exchange_trades WHERE maker_user_id = ? AND pair_id = ? AND mode = ? AND trade_id < ?
    ORDER BY trade_id DESC LIMIT ?)
  ORDER BY tradeId DESC, role LIMIT ?`;

type Row = Record<string, number | string>;

const noneBefore = Number.MAX_SAFE_INTEGER;

export class ReadModels {
  /** Seq of the last command whose events are in the tables. */
  appliedSeq: number;
  private readonly changes = new OrderChanges();
  private readonly candleBuckets: CandleBuckets;
  private readonly tickers: TickerWindow[] = [];
  /** Dense index of each pair by id (the engine keeps pair ids small). */
  private readonly pairIndexById: number[] = [];
  private replaySeq = 0;
  private replayCommands = 0;
  /** Live batches written since the open transaction began (it is open when this is > 0). */
  private uncommittedCommands = 0;
  private commitTimer: NodeJS.Timeout | null = null;
  private readonly visit = (event: EngineEvent, _seq: number, ts: number): void => this.apply(event, ts);

  private readonly begin;
  private readonly commitTransaction;
  private readonly saveProgress;
  private readonly insertOrder;
  private readonly updateOrder;
  private readonly insertTrade;
  private readonly upsertCandle;
  private readonly selectOrder;
  private readonly selectOrders;
  private readonly selectOrdersInStatus;
  private readonly selectTrades;
  private readonly selectFills;
  private readonly selectLatestCandles;
  private readonly selectCandlesFrom;

  constructor(
    db: Db,
    markets: Markets,
    private readonly clock: () => number,
  ) {
    this.begin = db.prepare('BEGIN');
    this.commitTransaction = db.prepare('COMMIT');
    this.saveProgress = db.prepare('UPDATE read_model_progress SET applied_seq = ? WHERE id = 1');
    this.insertOrder = db.prepare(`INSERT INTO exchange_orders (order_id, user_id, pair_id, mode, side, order_type, time_in_force,
      post_only, stp, price_ticks, stop_price_ticks, quantity_lots, filled_lots, filled_notional_atoms, fee_atoms, status,
      client_order_id, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.updateOrder = db.prepare(`UPDATE exchange_orders SET status = coalesce(?, status), price_ticks = coalesce(?, price_ticks),
      quantity_lots = coalesce(?, quantity_lots), filled_lots = filled_lots + ?, filled_notional_atoms = filled_notional_atoms + ?,
      fee_atoms = fee_atoms + ?, updated_at_ms = ? WHERE order_id = ?`);
    this.insertTrade = db.prepare(`INSERT INTO exchange_trades (trade_id, pair_id, mode, price_ticks, quantity_lots, notional_atoms,
      taker_side, taker_order_id, maker_order_id, taker_user_id, maker_user_id, taker_fee_atoms, maker_fee_atoms, ts_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.upsertCandle = db.prepare(`INSERT INTO exchange_candles (pair_id, interval_ms, open_time_ms, open_ticks, high_ticks,
      low_ticks, close_ticks, volume_lots, quote_volume_atoms, trades) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (pair_id, interval_ms, open_time_ms) DO UPDATE SET high_ticks = max(high_ticks, excluded.high_ticks),
      low_ticks = min(low_ticks, excluded.low_ticks), close_ticks = excluded.close_ticks,
      volume_lots = volume_lots + excluded.volume_lots, quote_volume_atoms = quote_volume_atoms + excluded.quote_volume_atoms,
      trades = trades + excluded.trades`);
    this.selectOrder = db.prepare(`SELECT ${orderColumns} FROM exchange_orders WHERE order_id = ?`);
    const ordersOf = `SELECT ${orderColumns} FROM exchange_orders WHERE user_id = ? AND pair_id = ? AND mode = ? AND order_id < ?`;
    this.selectOrders = db.prepare(`${ordersOf} ORDER BY order_id DESC LIMIT ?`);
    this.selectOrdersInStatus = db.prepare(`${ordersOf} AND status = ? ORDER BY order_id DESC LIMIT ?`);
    this.selectTrades = db.prepare(`SELECT ${tradeColumns} FROM exchange_trades WHERE pair_id = ? AND mode = ? AND trade_id < ?
      ORDER BY trade_id DESC LIMIT ?`);
    this.selectFills = db.prepare(fillsSql);
    const candlesOf = `SELECT ${candleColumns} FROM exchange_candles WHERE pair_id = ? AND interval_ms = ? AND open_time_ms >= ? AND open_time_ms <= ?`;
    this.selectLatestCandles = db.prepare(`${candlesOf} ORDER BY open_time_ms DESC LIMIT ?`);
    this.selectCandlesFrom = db.prepare(`${candlesOf} ORDER BY open_time_ms ASC LIMIT ?`);

    this.appliedSeq = (db.prepare('SELECT applied_seq FROM read_model_progress WHERE id = 1').pluck().get() as number | undefined) ?? 0;
    for (const pair of markets.pairs) {
      while (this.pairIndexById.length <= pair.id) this.pairIndexById.push(-1);
      this.pairIndexById[pair.id] = pair.index;
      this.tickers[pair.index] = new TickerWindow();
    }
    this.candleBuckets = new CandleBuckets(
      markets.pairs.map((pair) => pair.id),
      (candle) => this.writeCandle(candle),
    );
    this.restoreTickers(db, markets);
  }

  // -------------------------------------------------------------------------------------------------
  // Feeding

  /** Applies one durable batch in one transaction; a batch already applied (replayed at start) is skipped. */
  applyBatch(batch: DurableBatch): void {
    if (batch.lastSeq <= this.appliedSeq) return;
    assert(batch.firstSeq === this.appliedSeq + 1, `read models at seq ${this.appliedSeq} were handed batch ${batch.firstSeq}..${batch.lastSeq}`);
    if (this.uncommittedCommands === 0) {
      this.begin.run();
      this.commitTimer = setTimeout(() => this.flush(), commitEveryMs);
      this.commitTimer.unref();
    }
    batch.forEachEvent(this.visit);
    this.write(batch.lastSeq);
    this.uncommittedCommands += batch.lastSeq - batch.firstSeq + 1;
    if (this.uncommittedCommands >= replayCommandsPerTransaction) this.flush();
  }

  /** Commits the open transaction of live batches, if any. Call before closing the database. */
  flush(): void {
    if (this.uncommittedCommands === 0) return;
    if (this.commitTimer !== null) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    this.commitTransaction.run();
    this.uncommittedCommands = 0;
  }

  /** The replay feed for DurableEngine.open: the events of every command after `applied_seq`. */
  replayFeed(): { afterSeq: number; onEvent(event: EngineEvent, seq: number, ts: number): void } {
    return { afterSeq: this.appliedSeq, onEvent: (event, seq, ts) => this.applyReplayed(event, seq, ts) };
  }

  /**
   * Ends the replay: commits what is left and records `lastSeq`, the recovered journal's last seq (its
   * last commands may have had no events). Read models ahead of the journal belong to another journal.
   */
  finishReplay(lastSeq: number): void {
    if (this.appliedSeq > lastSeq) {
      throw new Error(`the read models are at seq ${this.appliedSeq} but the journal ends at ${lastSeq}: the journal was lost or belongs to another database`);
    }
    if (this.appliedSeq === lastSeq) return;
    if (this.replayCommands === 0) this.begin.run();
    this.commit(lastSeq);
    this.replayCommands = 0;
  }

  private applyReplayed(event: EngineEvent, seq: number, ts: number): void {
    if (seq !== this.replaySeq) {
      assert(seq > this.appliedSeq && seq > this.replaySeq, 'replayed commands come in seq order after applied_seq');
      if (this.replayCommands === replayCommandsPerTransaction) {
        this.commit(this.replaySeq);
        this.replayCommands = 0;
      }
      if (this.replayCommands === 0) this.begin.run();
      this.replaySeq = seq;
      this.replayCommands++;
    }
    this.apply(event, ts);
  }

  private apply(event: EngineEvent, ts: number): void {
    switch (event.kind) {
      case EventKind.orderAccepted:
        return this.accepted(event, ts);
      case EventKind.tradeExecuted:
        return this.traded(event, ts);
      case EventKind.orderCancelled:
        return this.ended(event.orderId, OrderStatus.cancelled, event.filledLots, ts);
      case EventKind.orderExpired:
        return this.ended(event.orderId, OrderStatus.expired, event.filledLots, ts);
      case EventKind.stopTriggered: {
        const change = this.changes.touch(event.orderId);
        change.status = OrderStatus.open;
        change.updatedAtMs = ts;
        return;
      }
      case EventKind.orderAmended: {
        const change = this.changes.touch(event.orderId);
        change.priceTicks = event.priceTicks;
        change.quantityLots = event.quantityLots;
        change.updatedAtMs = ts;
        return;
      }
      default:
        // Resting changes no status the fills have not set; a rejected order never existed; balances are
        // not kept here.
        return;
    }
  }

  private accepted(event: OrderAccepted, ts: number): void {
    const change = this.changes.touch(event.orderId);
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
  }

  private traded(event: TradeExecuted, ts: number): void {
    this.insertTrade.run(
      event.tradeId,
      event.pairId,
      event.mode,
      event.priceTicks,
      event.quantityLots,
      event.notionalAtoms,
      event.takerSide,
      event.takerOrderId,
      event.makerOrderId,
      event.takerUserId,
      event.makerUserId,
      event.takerFeeAtoms,
      event.makerFeeAtoms,
      ts,
    );
    this.filled(this.changes.touch(event.takerOrderId), event, event.takerFeeAtoms, event.takerRemainingLots, ts);
    this.filled(this.changes.touch(event.makerOrderId), event, event.makerFeeAtoms, event.makerRemainingLots, ts);
    if (event.mode !== 0) return;
    const pairIndex = this.pairIndexById[event.pairId]!;
    this.candleBuckets.add(pairIndex, ts, event.priceTicks, event.quantityLots, event.notionalAtoms);
    this.tickers[pairIndex]!.addTrade(ts, event.priceTicks, event.quantityLots, event.notionalAtoms);
  }

  private filled(change: OrderChange, event: TradeExecuted, feeAtoms: number, remainingLots: number, ts: number): void {
    change.filledLots += event.quantityLots;
    change.filledNotionalAtoms += event.notionalAtoms;
    change.feeAtoms += feeAtoms;
    change.status = remainingLots === 0 ? OrderStatus.filled : OrderStatus.partiallyFilled;
    change.updatedAtMs = ts;
  }

  private ended(orderId: number, status: OrderStatus, filledLots: number, ts: number): void {
    const change = this.changes.touch(orderId);
    assert(!change.placed || change.filledLots === filledLots, 'fills of an order ended in its batch add up to what it reports');
    change.status = status;
    change.updatedAtMs = ts;
  }

  /** Writes the gathered orders and candles and the progress, and commits. */
  private commit(seq: number): void {
    this.write(seq);
    this.commitTransaction.run();
  }

  /** Writes the gathered orders and candles and the progress into the open transaction. */
  private write(seq: number): void {
    const changes = this.changes;
    for (let index = 0; index < changes.count; index++) {
      const change = changes.at(index);
      if (change.placed) this.writePlaced(change);
      else this.writeChanged(change);
    }
    changes.clear();
    this.candleBuckets.flush();
    this.saveProgress.run(seq);
    this.appliedSeq = seq;
  }

  private writePlaced(change: OrderChange): void {
    this.insertOrder.run(
      change.orderId,
      change.userId,
      change.pairId,
      change.mode,
      change.side,
      change.orderType,
      change.timeInForce,
      change.postOnly,
      change.selfTradePrevention,
      change.priceTicks,
      change.stopPriceTicks,
      change.quantityLots,
      change.filledLots,
      change.filledNotionalAtoms,
      change.feeAtoms,
      change.status,
      change.clientOrderId,
      change.createdAtMs,
      change.updatedAtMs,
    );
  }

  private writeChanged(change: OrderChange): void {
    const written = this.updateOrder.run(
      change.status === unchanged ? null : change.status,
      change.priceTicks === unchanged ? null : change.priceTicks,
      change.quantityLots === unchanged ? null : change.quantityLots,
      change.filledLots,
      change.filledNotionalAtoms,
      change.feeAtoms,
      change.updatedAtMs,
      change.orderId,
    );
    assert(written.changes === 1, `order ${change.orderId} changed before it was placed`);
  }

  private writeCandle(candle: Candle): void {
    this.upsertCandle.run(
      candle.pairId,
      candle.intervalMs,
      candle.openTimeMs,
      candle.openTicks,
      candle.highTicks,
      candle.lowTicks,
      candle.closeTicks,
      candle.volumeLots,
      candle.quoteVolumeAtoms,
      candle.trades,
    );
  }

  /** Refills each pair's 24-hour window from its one-minute candles and its last price from its newest trade. */
  private restoreTickers(db: Db, markets: Markets): void {
    const sinceMs = (Math.floor(this.clock() / minuteMs) - windowMinutes + 1) * minuteMs;
    const minutes = db.prepare(`SELECT ${candleColumns} FROM exchange_candles WHERE pair_id = ? AND interval_ms = ? AND open_time_ms >= ?
      ORDER BY open_time_ms`);
    const lastPrice = db.prepare('SELECT price_ticks FROM exchange_trades WHERE pair_id = ? AND mode = 0 ORDER BY trade_id DESC LIMIT 1').pluck();
    for (const pair of markets.pairs) {
      const ticker = this.tickers[pair.index]!;
      for (const row of minutes.all(pair.id, minuteMs, sinceMs) as CandleRow[]) {
        ticker.addBucket(row.openTimeMs / minuteMs, row.openTicks, row.highTicks, row.lowTicks, row.closeTicks, row.volumeLots, row.quoteVolumeAtoms, row.trades);
      }
      const priceTicks = lastPrice.get(pair.id) as number | undefined;
      if (priceTicks !== undefined) ticker.setLastPrice(priceTicks);
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Queries

  /** The pair's 24-hour ticker as of now (cheap: recomputed only after a trade or when the minute turns). */
  ticker(pairId: number): TickerView {
    const index = this.pairIndexById[pairId];
    assert(index !== undefined && index >= 0, `ticker of unknown pair ${pairId}`);
    return this.tickers[index]!.view(this.clock());
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
