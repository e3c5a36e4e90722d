/**
 * The writer of the exchange read models: every order of both modes with its current state, every trade,
 * OHLC candles of live trades, every withdrawal and the fee accounts' totals (fees collected from fills,
 * revenue-share payouts taken out: RewardsPaid), in DATA_DIR/read-models.sqlite. The engine forgets an order once it
 * ends, so order status and history of ended orders live only here.
 *
 * It is fed durable batches only (derived data: the journal can always make it again). A batch's trade and
 * withdrawal rows are written into the open transaction at once; its orders, candles and fee totals are
 * gathered in memory across batches and written once each when the transaction commits or
 * `gatheredOrdersMax` orders are gathered (order-changes.ts, candles.ts), so that an order placed and
 * ended, or filled many times, within that span is one statement however many batches it crosses.
 * `commit` writes them and ends the transaction with `applied_seq`, the seq of the last command taken, so
 * the committed tables always hold a whole prefix of the journal. In the server the writer runs on a worker thread (worker.ts), which commits when a query
 * waits for rows or its commit interval is up; a transaction never holds more than
 * `replayCommandsPerTransaction` commands. At start, before that thread exists, `replayFeed` takes the
 * events of every command after the committed `applied_seq` from the durable engine's recovery, in
 * transactions of at most `replayCommandsPerTransaction` commands, and `finishReplay` commits the rest.
 *
 * Per event it touches pooled objects and, for a trade, runs one prepared INSERT. A failure here is a bug:
 * it stops the process, the open transaction is discarded, and recovery replays what it lost.
 */
import type { Db } from '../store/database.ts';
import type { Markets } from '../../engine/core/units.ts';
import { assert } from '../../engine/core/assert.ts';
import { ammFillTxHash } from '../../engine/core/sim-hash.ts';
import { EventKind, Liquidity, type AmmFill, type EngineEvent, type TradeExecuted } from '../../engine/core/events.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { RewardsEventType, type RewardsPaid } from '../../engine/domains/rewards/commands.ts';
import { CandleBuckets, type Candle } from './candles.ts';
import { OrderChanges, gatherOrderChange, unchanged, type OrderChange } from './order-changes.ts';

/** Replayed commands per transaction at start, and live commands per transaction at most. */
export const replayCommandsPerTransaction = 16_384;
/**
 * Orders gathered from live batches at most before they are written into the open transaction (and the
 * candles and fee totals with them). It bounds what `commit` has to write first, so that a query waiting
 * for a commit waits about as long as for the commit alone: in bench/read-models.ts, 64-command batches
 * committed every 4 096 commands commit in about 18 ms with this bound and in about 34 ms with none (the
 * writer 9 % and 17 % faster than with a write per batch).
 */
export const gatheredOrdersMax = 1024;

export class ReadModelWriter {
  /** Seq of the last command whose events were taken (committed, or in the open transaction and gathered). */
  appliedSeq: number;
  /** Seq of the last command whose events are committed. */
  committedSeq: number;
  private readonly changes = new OrderChanges();
  private readonly candleBuckets: CandleBuckets;
  /** Dense index of each pair by id (the engine keeps pair ids small). */
  private readonly pairIndexById: number[] = [];
  /** The quote asset's index of each pair by id: fees are paid in it. */
  private readonly quoteIndexByPairId: number[] = [];
  /** Asset ids by index, for the fee totals' rows. */
  private readonly assetIds: number[];
  /** Fees collected and paid out since the last write, by mode × asset count + asset index. */
  private readonly feesCollected: number[];
  private readonly feesPaidOut: number[];
  private replaySeq = 0;
  private replayCommands = 0;
  /** Live batches written since the open transaction began (it is open when this is > 0). */
  private uncommittedCommands = 0;
  private readonly visit = (event: EngineEvent, seq: number, ts: number): void => this.apply(event, seq, ts);

  private readonly begin;
  private readonly commitTransaction;
  private readonly saveProgress;
  private readonly insertOrder;
  private readonly updateOrder;
  private readonly insertTrade;
  private readonly upsertCandle;
  private readonly insertWithdrawal;
  private readonly addFeeTotals;

  constructor(db: Db, markets: Markets) {
    this.begin = db.prepare('BEGIN');
    this.commitTransaction = db.prepare('COMMIT');
    this.saveProgress = db.prepare('UPDATE read_model_progress SET applied_seq = ? WHERE id = 1');
    this.insertOrder = db.prepare(`INSERT INTO exchange_orders (order_id, user_id, pair_id, mode, side, order_type, time_in_force,
      post_only, stp, price_ticks, stop_price_ticks, quantity_lots, filled_lots, filled_notional_atoms, fee_atoms, status,
      client_order_id, created_at_ms, updated_at_ms, sim_tx_hash, group_kind, group_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.updateOrder = db.prepare(`UPDATE exchange_orders SET status = coalesce(?, status), price_ticks = coalesce(?, price_ticks),
      quantity_lots = coalesce(?, quantity_lots), filled_lots = filled_lots + ?, filled_notional_atoms = filled_notional_atoms + ?,
      fee_atoms = fee_atoms + ?, updated_at_ms = ?, sim_tx_hash = CASE WHEN sim_tx_hash = '' THEN ? ELSE sim_tx_hash END WHERE order_id = ?`);
    this.insertTrade = db.prepare(`INSERT INTO exchange_trades (trade_id, pair_id, mode, price_ticks, quantity_lots, notional_atoms,
      taker_side, taker_order_id, maker_order_id, taker_user_id, maker_user_id, taker_fee_atoms, maker_fee_atoms, ts_ms,
      venue_id, chain_id, tx_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insertWithdrawal = db.prepare(`INSERT INTO withdrawals (seq, user_id, asset_id, amount_atoms, chain_id, address, reference, ts_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.addFeeTotals = db.prepare(`INSERT INTO fee_account_totals (mode, asset_id, collected_atoms, paid_out_atoms) VALUES (?, ?, ?, ?)
      ON CONFLICT (mode, asset_id) DO UPDATE SET collected_atoms = collected_atoms + excluded.collected_atoms,
      paid_out_atoms = paid_out_atoms + excluded.paid_out_atoms`);
    this.upsertCandle = db.prepare(`INSERT INTO exchange_candles (pair_id, interval_ms, open_time_ms, open_ticks, high_ticks,
      low_ticks, close_ticks, volume_lots, quote_volume_atoms, trades) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (pair_id, interval_ms, open_time_ms) DO UPDATE SET high_ticks = max(high_ticks, excluded.high_ticks),
      low_ticks = min(low_ticks, excluded.low_ticks), close_ticks = excluded.close_ticks,
      volume_lots = volume_lots + excluded.volume_lots, quote_volume_atoms = quote_volume_atoms + excluded.quote_volume_atoms,
      trades = trades + excluded.trades`);

    this.appliedSeq = (db.prepare('SELECT applied_seq FROM read_model_progress WHERE id = 1').pluck().get() as number | undefined) ?? 0;
    this.committedSeq = this.appliedSeq;
    for (const pair of markets.pairs) {
      while (this.pairIndexById.length <= pair.id) this.pairIndexById.push(-1);
      this.pairIndexById[pair.id] = pair.index;
      while (this.quoteIndexByPairId.length <= pair.id) this.quoteIndexByPairId.push(-1);
      this.quoteIndexByPairId[pair.id] = pair.quote.index;
    }
    this.assetIds = [];
    for (const asset of markets.assets) this.assetIds[asset.index] = asset.id;
    this.feesCollected = new Array<number>(2 * this.assetIds.length).fill(0);
    this.feesPaidOut = new Array<number>(2 * this.assetIds.length).fill(0);
    this.candleBuckets = new CandleBuckets(
      markets.pairs.map((pair) => pair.id),
      (candle) => this.writeCandle(candle),
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Feeding

  /**
   * Takes one durable batch into the open transaction (beginning one if none is open): its trades and
   * withdrawals are written, its orders, candles and fees gathered; a batch already applied (replayed at
   * start) is skipped. A transaction that has grown to `replayCommandsPerTransaction` commands is committed
   * here; otherwise `commit` ends it.
   */
  applyBatch(batch: DurableBatch): void {
    if (batch.lastSeq <= this.appliedSeq) return;
    assert(batch.firstSeq === this.appliedSeq + 1, `read models at seq ${this.appliedSeq} were handed batch ${batch.firstSeq}..${batch.lastSeq}`);
    if (this.uncommittedCommands === 0) this.begin.run();
    batch.forEachEvent(this.visit);
    this.appliedSeq = batch.lastSeq;
    if (this.changes.count >= gatheredOrdersMax) this.write(this.appliedSeq);
    this.uncommittedCommands += batch.lastSeq - batch.firstSeq + 1;
    if (this.uncommittedCommands >= replayCommandsPerTransaction) this.commit();
  }

  /**
   * Writes what the open transaction of live batches gathered and commits it, if one is open; returns the
   * seq the committed tables cover.
   */
  commit(): number {
    if (this.uncommittedCommands > 0) {
      this.write(this.appliedSeq);
      this.commitTransaction.run();
      this.uncommittedCommands = 0;
      this.committedSeq = this.appliedSeq;
    }
    return this.committedSeq;
  }

  /** Whether live batches are taken (written or gathered) and not yet committed. */
  get uncommitted(): boolean {
    return this.uncommittedCommands > 0;
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
    this.commitReplay(lastSeq);
    this.replayCommands = 0;
  }

  private applyReplayed(event: EngineEvent, seq: number, ts: number): void {
    if (seq !== this.replaySeq) {
      assert(seq > this.appliedSeq && seq > this.replaySeq, 'replayed commands come in seq order after applied_seq');
      if (this.replayCommands === replayCommandsPerTransaction) {
        this.commitReplay(this.replaySeq);
        this.replayCommands = 0;
      }
      if (this.replayCommands === 0) this.begin.run();
      this.replaySeq = seq;
      this.replayCommands++;
    }
    this.apply(event, seq, ts);
  }

  private apply(event: EngineEvent, seq: number, ts: number): void {
    gatherOrderChange(this.changes, event, ts);
    switch (event.kind) {
      case EventKind.tradeExecuted:
        return this.traded(event, ts);
      case EventKind.ammFill:
        return this.filledOutside(event, ts);
      case EventKind.fundsWithdrawn:
        this.insertWithdrawal.run(seq, event.userId, event.assetId, event.amountAtoms, event.chainId, event.address, event.reference, ts);
        return;
      case EventKind.domain:
        if (event.type === RewardsEventType.paid) {
          // Revenue-share payouts leave the live fee account (engine/domains/rewards).
          const paid = event.body as RewardsPaid;
          const asset = this.assetIds.indexOf(paid.assetId);
          assert(asset >= 0, `RewardsPaid in unknown asset ${paid.assetId}`);
          this.feesPaidOut[asset] = this.feesPaidOut[asset]! + paid.paidAtoms;
        }
        return;
      default:
        // Orders were gathered above; balances are not kept here; TWAPs and scale orders are shown
        // through their orders' group ids.
        return;
    }
  }

  /** A trade's row, its fees and its candles (its orders' fills were gathered by gatherOrderChange). */
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
      0,
      0,
      '',
    );
    this.collect(event.mode, event.pairId, event.takerFeeAtoms + event.makerFeeAtoms);
    if (event.mode !== 0) return;
    this.candleBuckets.add(this.pairIndexById[event.pairId]!, ts, event.priceTicks, event.quantityLots, event.notionalAtoms);
  }

  /**
   * One of our orders filled against outside liquidity: a trade row whose other side is the venue (order
   * and user 0), our order on the side its liquidity says; live ones make candles like any trade.
   */
  private filledOutside(event: AmmFill, ts: number): void {
    const taker = event.liquidity === Liquidity.taker;
    this.insertTrade.run(
      event.tradeId,
      event.pairId,
      event.mode,
      event.priceTicks,
      event.quantityLots,
      event.notionalAtoms,
      taker ? event.side : 1 - event.side,
      taker ? event.orderId : 0,
      taker ? 0 : event.orderId,
      taker ? event.userId : 0,
      taker ? 0 : event.userId,
      taker ? event.feeAtoms : 0,
      taker ? 0 : event.feeAtoms,
      ts,
      event.venueId,
      event.chainId,
      ammFillTxHash(event),
    );
    this.collect(event.mode, event.pairId, event.feeAtoms);
    if (event.mode !== 0) return;
    this.candleBuckets.add(this.pairIndexById[event.pairId]!, ts, event.priceTicks, event.quantityLots, event.notionalAtoms);
  }

  /** Fees of a fill, in the pair's quote asset, reached the mode's fee account. */
  private collect(mode: number, pairId: number, feeAtoms: number): void {
    const slot = mode * this.assetIds.length + this.quoteIndexByPairId[pairId]!;
    this.feesCollected[slot] = this.feesCollected[slot]! + feeAtoms;
  }

  /** Writes the gathered orders and candles and the progress, and commits. */
  private commitReplay(seq: number): void {
    this.write(seq);
    this.commitTransaction.run();
    this.committedSeq = seq;
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
    this.writeFeeTotals();
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
      change.simTxHash,
      change.groupKind,
      change.groupId,
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
      change.simTxHash,
      change.orderId,
    );
    assert(written.changes === 1, `order ${change.orderId} changed before it was placed`);
  }

  private writeFeeTotals(): void {
    const assets = this.assetIds.length;
    for (let slot = 0; slot < this.feesCollected.length; slot++) {
      const collected = this.feesCollected[slot]!;
      const paidOut = this.feesPaidOut[slot]!;
      if (collected === 0 && paidOut === 0) continue;
      this.addFeeTotals.run(Math.floor(slot / assets), this.assetIds[slot % assets]!, collected, paidOut);
      this.feesCollected[slot] = 0;
      this.feesPaidOut[slot] = 0;
    }
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
}
