/**
 * The matching rules a journal was written under, by its segments' format version. A journal must replay
 * to the state it produced, so a rule that changed comes with a format version, and replay applies each
 * command under the rules of its segment:
 *
 *   1, 2  paper orders match only each other;
 *   3, 4  paper orders also take from the live hybrid book (read-only), and live trades fill resting
 *         paper orders that they print through. Version 4 only adds command kinds (TWAPs, timers, scale
 *         orders); no rule of an older kind changed.
 *   5     adds the envelope of domain commands; no rule changed.
 *   6     a post-only buy holds price × quantity and the maker fee cap only (it can never pay a taker fee);
 *         before, it also held the taker fee cap.
 */
import type { Engine } from '../core/engine.ts';

/** Sets `engine` to the rules of a segment of `formatVersion` (commands written now use the newest). */
export function useRulesOf(engine: Engine, formatVersion: number): void {
  engine.paperSeesLiveBook = formatVersion >= 3;
  engine.postOnlyHoldsMakerFeeOnly = formatVersion >= 6;
}
