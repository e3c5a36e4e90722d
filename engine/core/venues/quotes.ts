/**
 * Venue quotes: QuoteVenue replaces one pool's levels in the pair's VenueBook (passive: clipped so that
 * none crosses the resting orders), ExpireVenues drops the pools whose quote is too old.
 */
import { noPrice } from '../book/book.ts';
import { Mode, type ExpireVenues, type QuoteVenue, type Side } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { venueLevelsPerSideMax, venuePoolIdMax, venuesPerPairMax } from '../limits.ts';
import { Result, type ResultCode } from '../results.ts';
import type { Pair } from '../units.ts';
import { validChainId, validTicks } from '../validate.ts';
import type { QuotedSide } from '../venue-book.ts';

/** A venue quote's side: parallel arrays of at most `venueLevelsPerSideMax` levels, prices strictly improving toward the best. */
function validQuotedSide(pair: Pair, side: Side, priceTicks: unknown, lots: unknown): boolean {
  if (!Array.isArray(priceTicks) || !Array.isArray(lots) || priceTicks.length !== lots.length) return false;
  if (priceTicks.length > venueLevelsPerSideMax) return false;
  for (let index = 0; index < priceTicks.length; index++) {
    const price = priceTicks[index] as number;
    const size = lots[index] as number;
    if (!validTicks(price, pair)) return false;
    if (!Number.isSafeInteger(size) || size < 1 || size > pair.quantityLotsMax) return false;
    if (index > 0) {
      const previous = priceTicks[index - 1] as number;
      if (side === 0 ? price >= previous : price <= previous) return false;
    }
  }
  return true;
}

/** Quote times at or before this are too old to stand behind a level (see EngineSettings.venueQuoteLifetimeMs). */
export function venueCutoffMs(engine: EngineState): number {
  return engine.nowMs - engine.settings.venueQuoteLifetimeMs;
}

export function quoteVenue(engine: EngineState, command: QuoteVenue): ResultCode {
  const pair = Number.isInteger(command.pairId) ? engine.pairsById[command.pairId] : undefined;
  if (pair === undefined) return Result.unknownPair;
  if (!Number.isInteger(command.poolId) || command.poolId < 1 || command.poolId > venuePoolIdMax) return Result.invalidQuote;
  if (!validChainId(command.chainId)) return Result.invalidQuote;
  if (!Number.isSafeInteger(command.version) || command.version < 1) return Result.invalidQuote;
  if (!validQuotedSide(pair, 0, command.bidPriceTicks, command.bidLots)) return Result.invalidQuote;
  if (!validQuotedSide(pair, 1, command.askPriceTicks, command.askLots)) return Result.invalidQuote;
  if (command.bidPriceTicks.length > 0 && command.askPriceTicks.length > 0 && command.bidPriceTicks[0]! >= command.askPriceTicks[0]!) {
    return Result.invalidQuote;
  }
  const venues = engine.venues[pair.index]!;
  const cutoffMs = venueCutoffMs(engine);
  const existing = venues.quote(command.poolId);
  if (existing !== undefined && command.version <= existing.version) return Result.staleQuote;
  const freshExisting = existing !== undefined && existing.quotedAtMs > cutoffMs;
  if (!freshExisting && venues.freshPoolCount(cutoffMs) >= venuesPerPairMax) return Result.tooManyVenues;

  // Accepted: quiet venues go first, then this pool's levels replace its old ones.
  expireStaleVenues(engine, cutoffMs);
  const bids: QuotedSide = { priceTicks: command.bidPriceTicks, lots: command.bidLots };
  const asks: QuotedSide = { priceTicks: command.askPriceTicks, lots: command.askLots };
  venues.replace(command.poolId, command.chainId, command.version, command.ts, bids, asks);
  // Venue levels are passive: none may cross the resting orders (takers would have met those first).
  const book = engine.contexts[pair.index * 2]!.book;
  const bestAsk = book.bestPrice(1);
  const bestBid = book.bestPrice(0);
  if (bestAsk !== noPrice) venues.clipCrossing(0, command.poolId, bestAsk);
  if (bestBid !== noPrice) venues.clipCrossing(1, command.poolId, bestBid);
  const event = engine.venueQuoted;
  event.pairId = pair.id;
  event.mode = Mode.live;
  event.poolId = command.poolId;
  event.chainId = command.chainId;
  event.version = command.version;
  venues.poolLevels(0, command.poolId, event.bidPriceTicks, event.bidLots);
  venues.poolLevels(1, command.poolId, event.askPriceTicks, event.askLots);
  engine.sink.onEvent(event);
  return Result.ok;
}

export function expireVenues(engine: EngineState, command: ExpireVenues): ResultCode {
  const cutoffMs = venueCutoffMs(engine);
  if (!engine.venues.some((venues) => venues.hasStale(cutoffMs))) return Result.nothingToExpire;
  expireStaleVenues(engine, cutoffMs);
  return Result.ok;
}

/** Removes every venue quoted at or before `cutoffMs`, pair by pair, with a VenueExpired event each. */
function expireStaleVenues(engine: EngineState, cutoffMs: number): void {
  for (const pair of engine.markets.pairs) {
    const venues = engine.venues[pair.index]!;
    if (!venues.hasStale(cutoffMs)) continue;
    venues.expire(cutoffMs, (poolId, chainId) => {
      const event = engine.venueExpired;
      event.pairId = pair.id;
      event.mode = Mode.live;
      event.poolId = poolId;
      event.chainId = chainId;
      engine.sink.onEvent(event);
    });
  }
}
