/**
 * Virtual liquidity of one pair: the price levels that outside venues (AMM pools on the four chains)
 * quote, merged into one list per side, best first. A pool's levels are replaced as a whole by each of its
 * quotes (QuoteVenue commands, journaled, so replay needs no worker); a taker consumes them after the
 * resting orders at the same price. Between venues at one price the order is chain id, then pool id.
 *
 * Sizes are small (a few pools × at most `venueLevelsPerSideMax` levels), so the merged lists are plain
 * arrays rebuilt on each quote (into a spare list that then takes the side's place, so a quote allocates
 * nothing once the lists have grown); consumption removes from the front, where the best levels are.
 *
 * A pool whose last quote is older than the quote lifetime stands behind nothing: its levels are skipped
 * by every reader given the current (journaled) time, before they are removed by the next accepted command
 * that expires venues. Skipping changes nothing, so a refused command cannot have changed the state.
 */
import type { Side } from './commands.ts';
import { noPrice } from './book/book.ts';

/** One pool's quote as the engine keeps it. */
export class VenueQuote {
  constructor(
    readonly poolId: number,
    public chainId: number,
    public version: number,
    public quotedAtMs: number,
  ) {}
}

class SideLevels {
  readonly priceTicks: number[] = [];
  readonly lots: number[] = [];
  readonly poolIds: number[] = [];
  readonly chainIds: number[] = [];
  /** When each level's pool quoted it (all levels of a pool share its last quote's time). */
  readonly quotedAtMs: number[] = [];

  get length(): number {
    return this.priceTicks.length;
  }

  clear(): void {
    this.priceTicks.length = 0;
    this.lots.length = 0;
    this.poolIds.length = 0;
    this.chainIds.length = 0;
    this.quotedAtMs.length = 0;
  }

  push(priceTicks: number, lots: number, poolId: number, chainId: number, quotedAtMs: number): void {
    this.priceTicks.push(priceTicks);
    this.lots.push(lots);
    this.poolIds.push(poolId);
    this.chainIds.push(chainId);
    this.quotedAtMs.push(quotedAtMs);
  }

  removeAt(index: number): void {
    this.priceTicks.splice(index, 1);
    this.lots.splice(index, 1);
    this.poolIds.splice(index, 1);
    this.chainIds.splice(index, 1);
    this.quotedAtMs.splice(index, 1);
  }
}

/** The levels a quote gives one side: parallel arrays, best first. */
export interface QuotedSide {
  readonly priceTicks: readonly number[];
  readonly lots: readonly number[];
}

export class VenueBook {
  /** Bids (side 0) and asks (side 1), best first; ties by chain id then pool id. */
  private readonly sides: [SideLevels, SideLevels] = [new SideLevels(), new SideLevels()];
  /** What a quote's merge writes into before it replaces the side it merged (see `merge`). */
  private spare = new SideLevels();
  /** Quotes by pool id, in pool id order. */
  private readonly quotes: VenueQuote[] = [];

  get poolCount(): number {
    return this.quotes.length;
  }

  /** The pool's current quote, or undefined. */
  quote(poolId: number): VenueQuote | undefined {
    return this.quotes.find((quote) => quote.poolId === poolId);
  }

  /** Every quoting pool, in pool id order. */
  allQuotes(): readonly VenueQuote[] {
    return this.quotes;
  }

  /** Replaces a pool's levels (either side may be empty). The caller has validated the levels. */
  replace(poolId: number, chainId: number, version: number, quotedAtMs: number, bids: QuotedSide, asks: QuotedSide): void {
    let quote = this.quote(poolId);
    if (quote === undefined) {
      quote = new VenueQuote(poolId, chainId, version, quotedAtMs);
      let at = 0;
      while (at < this.quotes.length && this.quotes[at]!.poolId < poolId) at++;
      this.quotes.splice(at, 0, quote);
    } else {
      quote.chainId = chainId;
      quote.version = version;
      quote.quotedAtMs = quotedAtMs;
    }
    this.merge(0, poolId, chainId, quotedAtMs, bids);
    this.merge(1, poolId, chainId, quotedAtMs, asks);
  }

  /** Re-creates a pool's quote without levels (snapshot restore; levels follow through `restoreLevel`). */
  restoreQuote(poolId: number, chainId: number, version: number, quotedAtMs: number): void {
    this.quotes.push(new VenueQuote(poolId, chainId, version, quotedAtMs));
  }

  /** Appends a level at the end of a side (snapshot restore, in the merged order the snapshot kept). */
  restoreLevel(side: Side, priceTicks: number, lots: number, poolId: number): void {
    const quote = this.quote(poolId);
    if (quote === undefined) throw new Error(`venue level of unknown pool ${poolId}`);
    this.sides[side].push(priceTicks, lots, poolId, quote.chainId, quote.quotedAtMs);
  }

  /** Removes a pool and its levels. */
  removePool(poolId: number): void {
    const index = this.quotes.findIndex((quote) => quote.poolId === poolId);
    if (index < 0) return;
    this.quotes.splice(index, 1);
    for (const side of this.sides) {
      for (let at = side.length - 1; at >= 0; at--) if (side.poolIds[at] === poolId) side.removeAt(at);
    }
  }

  /** Whether any pool's last quote is at or before `cutoffMs` (older than the lifetime allows). */
  hasStale(cutoffMs: number): boolean {
    for (const quote of this.quotes) if (quote.quotedAtMs <= cutoffMs) return true;
    return false;
  }

  /** Pools quoted after `cutoffMs`. */
  freshPoolCount(cutoffMs: number): number {
    let count = 0;
    for (const quote of this.quotes) if (quote.quotedAtMs > cutoffMs) count++;
    return count;
  }

  /** Removes every pool quoted at or before `cutoffMs`, telling `removed` about each, in pool id order. */
  expire(cutoffMs: number, removed: (poolId: number, chainId: number) => void): void {
    for (const quote of [...this.quotes]) {
      if (quote.quotedAtMs > cutoffMs) continue;
      this.removePool(quote.poolId);
      removed(quote.poolId, quote.chainId);
    }
  }

  /** Index of the best level of `side` whose pool was quoted after `cutoffMs`, or -1. */
  firstFresh(side: Side, cutoffMs: number): number {
    const levels = this.sides[side];
    for (let index = 0; index < levels.length; index++) if (levels.quotedAtMs[index]! > cutoffMs) return index;
    return -1;
  }

  /** Index of the next fresh level after `index`, or -1. */
  nextFresh(side: Side, index: number, cutoffMs: number): number {
    const levels = this.sides[side];
    for (let next = index + 1; next < levels.length; next++) if (levels.quotedAtMs[next]! > cutoffMs) return next;
    return -1;
  }

  /** Best fresh price of a side, or `noPrice`. */
  bestPrice(side: Side, cutoffMs: number): number {
    const index = this.firstFresh(side, cutoffMs);
    return index < 0 ? noPrice : this.sides[side].priceTicks[index]!;
  }

  levelCount(side: Side): number {
    return this.sides[side].length;
  }

  priceAt(side: Side, index: number): number {
    return this.sides[side].priceTicks[index]!;
  }

  lotsAt(side: Side, index: number): number {
    return this.sides[side].lots[index]!;
  }

  poolAt(side: Side, index: number): number {
    return this.sides[side].poolIds[index]!;
  }

  chainAt(side: Side, index: number): number {
    return this.sides[side].chainIds[index]!;
  }

  quotedAtAt(side: Side, index: number): number {
    return this.sides[side].quotedAtMs[index]!;
  }

  /** Takes `lots` off the level at `index` (at most its size); the level goes when it is empty. */
  consumeAt(side: Side, index: number, lots: number): void {
    const levels = this.sides[side];
    const left = levels.lots[index]! - lots;
    if (left > 0) levels.lots[index] = left;
    else levels.removeAt(index);
  }

  /** Drops a pool's levels of one side that would cross `priceTicks` (bids at or above it, asks at or below). */
  clipCrossing(side: Side, poolId: number, priceTicks: number): void {
    const levels = this.sides[side];
    for (let at = levels.length - 1; at >= 0; at--) {
      if (levels.poolIds[at] !== poolId) continue;
      const price = levels.priceTicks[at]!;
      if (side === 0 ? price >= priceTicks : price <= priceTicks) levels.removeAt(at);
    }
  }

  /** A pool's levels of one side as they are now, best first. */
  poolLevels(side: Side, poolId: number, priceTicks: number[], lots: number[]): void {
    priceTicks.length = 0;
    lots.length = 0;
    const levels = this.sides[side];
    for (let at = 0; at < levels.length; at++) {
      if (levels.poolIds[at] !== poolId) continue;
      priceTicks.push(levels.priceTicks[at]!);
      lots.push(levels.lots[at]!);
    }
  }

  /**
   * Rebuilds a side with the pool's new levels in place of its old ones, keeping the merged order: the
   * side's other pools' levels and the quote's are both sorted best first, so one merge pass (skipping the
   * pool's old levels) writes the new side into the spare list, which then takes the side's place.
   */
  private merge(side: Side, poolId: number, chainId: number, quotedAtMs: number, quoted: QuotedSide): void {
    const old = this.sides[side];
    const merged = this.spare;
    merged.clear();
    let kept = 0;
    let fresh = 0;
    for (;;) {
      while (kept < old.length && old.poolIds[kept] === poolId) kept++;
      const keptLeft = kept < old.length;
      const freshLeft = fresh < quoted.priceTicks.length;
      if (!keptLeft && !freshLeft) break;
      let takeFresh = !keptLeft;
      if (keptLeft && freshLeft) {
        const keptPrice = old.priceTicks[kept]!;
        const freshPrice = quoted.priceTicks[fresh]!;
        // At one price, ties are broken by (chain id, pool id).
        if (keptPrice === freshPrice) takeFresh = chainId < old.chainIds[kept]! || (chainId === old.chainIds[kept]! && poolId < old.poolIds[kept]!);
        else takeFresh = side === 0 ? freshPrice > keptPrice : freshPrice < keptPrice;
      }
      if (takeFresh) {
        merged.push(quoted.priceTicks[fresh]!, quoted.lots[fresh]!, poolId, chainId, quotedAtMs);
        fresh++;
      } else {
        merged.push(old.priceTicks[kept]!, old.lots[kept]!, old.poolIds[kept]!, old.chainIds[kept]!, old.quotedAtMs[kept]!);
        kept++;
      }
    }
    this.sides[side] = merged;
    this.spare = old;
  }
}
