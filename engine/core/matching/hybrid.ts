/**
 * The hybrid book's best prices: a book's own best and its outside liquidity's together, and whether an
 * order at a price would take liquidity now (post-only, scale orders).
 */
import { noPrice } from '../book/book.ts';
import { Mode, type Side } from '../commands.ts';
import type { BookContext, EngineState } from '../engine-state.ts';
import { venueCutoffMs } from '../venues/quotes.ts';

/** The better of two prices of `side` (the higher bid, the lower ask); `noPrice` is worse than any. */
function betterPrice(side: Side, a: number, b: number): number {
  if (a === noPrice) return b;
  if (b === noPrice) return a;
  return side === 0 ? Math.max(a, b) : Math.min(a, b);
}

/** Best price on `side` of the context's book and its outside liquidity together, or `noPrice`. */
export function hybridBest(engine: EngineState, context: BookContext, side: Side): number {
  if (context.mode === Mode.paper && !engine.paperSeesLiveBook) return context.book.bestPrice(side);
  const venuesBest = engine.venues[context.pair.index]!.bestPrice(side, venueCutoffMs(engine));
  let best = betterPrice(side, context.book.bestPrice(side), venuesBest);
  if (context.mode === Mode.paper) best = betterPrice(side, best, engine.contexts[context.pair.index * 2]!.book.bestPrice(side));
  return best;
}

/** Whether an order at `priceTicks` would take liquidity now: the book's or the outside's (post-only). */
export function crosses(engine: EngineState, context: BookContext, side: Side, priceTicks: number): boolean {
  const best = hybridBest(engine, context, side === 0 ? 1 : 0);
  if (best === noPrice) return false;
  return side === 0 ? best <= priceTicks : best >= priceTicks;
}
