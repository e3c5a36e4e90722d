/**
 * The 24-hour ticker of one pair, kept in memory from live trades so that a price stream can ask for it
 * once per durable batch without touching SQLite: a ring of one-minute buckets (open, high, low, close,
 * base and quote volume, trade count) and the last price. The window is the `windowMinutes` minutes that
 * end with the current one, so it holds between 23 h 59 min and 24 h of trades. At start the ring is
 * refilled from the one-minute candles, then from replayed trades.
 *
 * A view is computed only when a trade arrived or the minute turned since the last one; otherwise the
 * same (immutable) view is returned, so callers may keep it.
 */
import { assert } from '../../engine/core/assert.ts';
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import type { Markets } from '../../engine/core/units.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import type { ReadModelQueries } from './queries.ts';

export const minuteMs = 60_000;
/** Minutes in the rolling window: one day. */
export const windowMinutes = 1440;

export interface TickerView {
  /** Price of the last live trade ever, or null before the first one. */
  readonly lastPriceTicks: number | null;
  /** Open, high and low of the window; the last price when nothing traded in it; null before any trade. */
  readonly openPriceTicks: number | null;
  readonly highPriceTicks: number | null;
  readonly lowPriceTicks: number | null;
  readonly volumeLots: number;
  readonly quoteVolumeAtoms: number;
  readonly trades: number;
  /** Start of the window's oldest minute (ms). */
  readonly windowStartMs: number;
}

const emptyMinute = -1;

export class TickerWindow {
  private readonly minute = new Float64Array(windowMinutes).fill(emptyMinute);
  private readonly open = new Float64Array(windowMinutes);
  private readonly high = new Float64Array(windowMinutes);
  private readonly low = new Float64Array(windowMinutes);
  private readonly close = new Float64Array(windowMinutes);
  private readonly volumeLots = new Float64Array(windowMinutes);
  private readonly quoteAtoms = new Float64Array(windowMinutes);
  private readonly trades = new Float64Array(windowMinutes);
  /** 0 until the first trade (a price is at least one tick). */
  private lastPriceTicks = 0;
  private cached: TickerView | null = null;
  private cachedMinute = emptyMinute;

  addTrade(tsMs: number, priceTicks: number, lots: number, notionalAtoms: number): void {
    this.addBucket(Math.floor(tsMs / minuteMs), priceTicks, priceTicks, priceTicks, priceTicks, lots, notionalAtoms, 1);
    this.lastPriceTicks = priceTicks;
  }

  /** Restores the last price (from the newest stored trade) at start. */
  setLastPrice(priceTicks: number): void {
    this.lastPriceTicks = priceTicks;
    this.cached = null;
  }

  /**
   * Merges a minute's worth of trades (a one-minute candle, or one trade) that came after what the bucket
   * holds. A minute older than the one its slot holds is already out of the window and is dropped.
   */
  addBucket(minute: number, open: number, high: number, low: number, close: number, lots: number, quoteAtoms: number, trades: number): void {
    const slot = minute % windowMinutes;
    const held = this.minute[slot]!;
    if (held > minute) return;
    if (held < minute) {
      this.minute[slot] = minute;
      this.open[slot] = open;
      this.high[slot] = high;
      this.low[slot] = low;
      this.volumeLots[slot] = 0;
      this.quoteAtoms[slot] = 0;
      this.trades[slot] = 0;
    } else {
      this.high[slot] = Math.max(this.high[slot]!, high);
      this.low[slot] = Math.min(this.low[slot]!, low);
    }
    this.close[slot] = close;
    this.volumeLots[slot] = this.volumeLots[slot]! + lots;
    this.quoteAtoms[slot] = this.quoteAtoms[slot]! + quoteAtoms;
    this.trades[slot] = this.trades[slot]! + trades;
    this.cached = null;
  }

  view(nowMs: number): TickerView {
    const nowMinute = Math.floor(nowMs / minuteMs);
    if (this.cached === null || this.cachedMinute !== nowMinute) {
      this.cached = this.compute(nowMinute);
      this.cachedMinute = nowMinute;
    }
    return this.cached;
  }

  private compute(nowMinute: number): TickerView {
    const firstMinute = nowMinute - windowMinutes + 1;
    let oldest = Infinity;
    let openPriceTicks = 0;
    let highPriceTicks = 0;
    let lowPriceTicks = Infinity;
    let volumeLots = 0;
    let quoteVolumeAtoms = 0;
    let trades = 0;
    for (let slot = 0; slot < windowMinutes; slot++) {
      const minute = this.minute[slot]!;
      if (minute < firstMinute || minute > nowMinute) continue;
      if (minute < oldest) {
        oldest = minute;
        openPriceTicks = this.open[slot]!;
      }
      highPriceTicks = Math.max(highPriceTicks, this.high[slot]!);
      lowPriceTicks = Math.min(lowPriceTicks, this.low[slot]!);
      volumeLots += this.volumeLots[slot]!;
      quoteVolumeAtoms += this.quoteAtoms[slot]!;
      trades += this.trades[slot]!;
    }
    const last = this.lastPriceTicks === 0 ? null : this.lastPriceTicks;
    const traded = trades > 0;
    return {
      lastPriceTicks: last,
      openPriceTicks: traded ? openPriceTicks : last,
      highPriceTicks: traded ? highPriceTicks : last,
      lowPriceTicks: traded ? lowPriceTicks : last,
      volumeLots,
      quoteVolumeAtoms,
      trades,
      windowStartMs: firstMinute * minuteMs,
    };
  }
}

/**
 * The tickers of every pair, on the main thread: fed the live trades of each durable batch (so that the
 * ticker and stats routes and the price streams read them without SQLite or another thread), and refilled
 * at start from the one-minute candles the read models committed.
 */
export class Tickers {
  private readonly windows: TickerWindow[] = [];
  /** Dense index of each pair by id (the engine keeps pair ids small). */
  private readonly indexById: number[] = [];
  /** Live trades: between two of our orders, or of one of ours against a venue (the hybrid book's trades). */
  private readonly visit = (event: EngineEvent, _seq: number, ts: number): void => {
    if ((event.kind !== EventKind.tradeExecuted && event.kind !== EventKind.ammFill) || event.mode !== 0) return;
    this.windows[this.indexById[event.pairId]!]!.addTrade(ts, event.priceTicks, event.quantityLots, event.notionalAtoms);
  };

  constructor(
    markets: Markets,
    private readonly clock: () => number,
  ) {
    for (const pair of markets.pairs) {
      while (this.indexById.length <= pair.id) this.indexById.push(-1);
      this.indexById[pair.id] = pair.index;
      this.windows[pair.index] = new TickerWindow();
    }
  }

  /** Refills each pair's window from its one-minute candles and its last price from its newest trade. */
  restore(markets: Markets, queries: ReadModelQueries): void {
    const sinceMs = (Math.floor(this.clock() / minuteMs) - windowMinutes + 1) * minuteMs;
    for (const pair of markets.pairs) {
      const window = this.windows[pair.index]!;
      for (const row of queries.minutesSince(pair.id, sinceMs)) {
        window.addBucket(row.openTimeMs / minuteMs, row.openTicks, row.highTicks, row.lowTicks, row.closeTicks, row.volumeLots, row.quoteVolumeAtoms, row.trades);
      }
      const priceTicks = queries.lastPrice(pair.id);
      if (priceTicks !== undefined) window.setLastPrice(priceTicks);
    }
  }

  applyBatch(batch: DurableBatch): void {
    batch.forEachEvent(this.visit);
  }

  /** The pair's 24-hour ticker as of now (cheap: recomputed only after a trade or when the minute turns). */
  view(pairId: number): TickerView {
    const index = this.indexById[pairId];
    assert(index !== undefined && index >= 0, `ticker of unknown pair ${pairId}`);
    return this.windows[index]!.view(this.clock());
  }
}
