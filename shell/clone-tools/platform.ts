/**
 * What our own platform knows that the clone tools use instead of samples, from durable batches only: the
 * live exchange's collected fees per UTC day (TradeExecuted taker and maker fees, AmmFill fees of our
 * orders), all in quote atoms (every pair is quoted in USDC), and our orders' fills against each AMM pool
 * (AmmFill) over the last 24 hours, for the fomo radar's pool-level fallback. Kept in memory from this
 * server's start: the fee series of a restarted server begins at its start, and the answers say so.
 */
import { EventKind, Liquidity, type EngineEvent } from '../../engine/core/events.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';

const msPerDay = 86_400_000;
/** Days of fees kept, and pool fills kept (the oldest are dropped first). */
export const feeDaysMax = 400;
export const poolFillsMax = 100_000;
export const flowWindowMs = 86_400_000;

export interface PoolFill {
  readonly venueId: number;
  readonly chainId: number;
  /** Our order's side: 0 buy (it took the pool's base: buy pressure), 1 sell. */
  readonly side: number;
  readonly notionalAtoms: number;
  readonly tsMs: number;
}

export class PlatformFlow {
  /** Collected fees by UTC day, in quote atoms. */
  readonly feesByDay = new Map<number, { takerAtoms: number; makerAtoms: number }>();
  readonly poolFills: PoolFill[] = [];
  readonly sinceMs: number;

  constructor(nowMs: number) {
    this.sinceMs = nowMs;
  }

  onBatch(batch: DurableBatch): void {
    batch.forEachEvent((event, _seq, ts) => this.apply(event, ts));
  }

  private fees(day: number): { takerAtoms: number; makerAtoms: number } {
    let row = this.feesByDay.get(day);
    if (row === undefined) {
      row = { takerAtoms: 0, makerAtoms: 0 };
      this.feesByDay.set(day, row);
      if (this.feesByDay.size > feeDaysMax) this.feesByDay.delete(Math.min(...this.feesByDay.keys()));
    }
    return row;
  }

  private apply(event: EngineEvent, ts: number): void {
    if (event.kind === EventKind.tradeExecuted) {
      if (event.mode !== 0) return;
      const row = this.fees(Math.floor(ts / msPerDay));
      row.takerAtoms += event.takerFeeAtoms;
      row.makerAtoms += event.makerFeeAtoms;
    } else if (event.kind === EventKind.ammFill) {
      if (event.mode !== 0) return;
      const row = this.fees(Math.floor(ts / msPerDay));
      if (event.liquidity === Liquidity.taker) row.takerAtoms += event.feeAtoms;
      else row.makerAtoms += event.feeAtoms;
      this.poolFills.push({ venueId: event.venueId, chainId: event.chainId, side: event.side, notionalAtoms: event.notionalAtoms, tsMs: ts });
      if (this.poolFills.length > poolFillsMax) this.poolFills.shift();
    }
  }

  /** Fills of the last 24 hours before `nowMs`. */
  recentFills(nowMs: number): PoolFill[] {
    return this.poolFills.filter((fill) => nowMs - fill.tsMs <= flowWindowMs);
  }
}
