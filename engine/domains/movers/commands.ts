/**
 * The movers tournament's commands, events, result codes and limits (domain id 10: numbers 10000..10999).
 *
 * A round is a stretch of journaled time of `roundMs`; a user enters once per round with 1 to 5 distinct
 * oracle symbols, each priced at the entry command. At the round's end (its timer) every entry scores the
 * mean percentage change of its symbols from their entry prices to the oracle's prices at that RunTimers.
 * Scores are integers in units of 10^-6 percent (`scoreE6`): 1.5 % is 1 500 000.
 */
import { field, fieldCodec } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';
import { symbolCharsMax } from '../prices/commands.ts';

export const moversDomainId = 10;

// Limits (a named maximum for everything).
/** Symbols one entry may hold. */
export const entrySymbolsMax = 5;
/** Entries one round may hold. */
export const entriesPerRoundMax = 10_000;
/** Shortest and longest round. */
export const roundMsMin = 60_000;
export const roundMsMax = 30 * 86_400_000;

export const MoversCommandType = { configure: 10001, enter: 10002 } as const;
export const MoversEventType = { configured: 10001, roundOpened: 10002, entered: 10003, roundEnded: 10004 } as const;

/** Sets the round length; the round running keeps its end, the next rounds take the new length. */
export interface ConfigureMovers {
  roundMs: number;
}

/** One user's entry into the current round. */
export interface EnterMovers {
  userId: number;
  symbols: string[];
}

export interface MoversConfigured {
  roundMs: number;
}

export interface RoundOpened {
  round: number;
  startMs: number;
  endMs: number;
}

export interface MoversEntered {
  entryId: number;
  round: number;
  userId: number;
  symbols: string[];
  startPricesE8: number[];
  enteredMs: number;
}

/** One entry's result, in rank order (rank 1 first). */
export interface EntryResult {
  entryId: number;
  userId: number;
  rank: number;
  scoreE6: number;
  endPricesE8: number[];
}

export interface RoundEnded {
  round: number;
  startMs: number;
  endMs: number;
  /** The time of the RunTimers that ended it (the end prices are the oracle's at that command). */
  endedMs: number;
  results: EntryResult[];
}

export const MoversResult = {
  notConfigured: domainResult(moversDomainId, 10001, 'MOVERS_NOT_CONFIGURED', 'the movers tournament has no round yet'),
  invalidRoundLength: domainResult(moversDomainId, 10002, 'INVALID_MOVERS_ROUND', `a round lasts ${roundMsMin} to ${roundMsMax} ms`),
  symbolCount: domainResult(moversDomainId, 10003, 'MOVERS_SYMBOL_COUNT', `an entry holds 1 to ${entrySymbolsMax} symbols`),
  duplicateSymbol: domainResult(moversDomainId, 10004, 'MOVERS_DUPLICATE_SYMBOL', 'an entry holds each symbol once'),
  unpricedSymbol: domainResult(moversDomainId, 10005, 'MOVERS_SYMBOL_UNPRICED', 'every symbol of an entry must have an oracle price'),
  alreadyEntered: domainResult(moversDomainId, 10006, 'MOVERS_ALREADY_ENTERED', 'one entry per user and round'),
  roundFull: domainResult(moversDomainId, 10007, 'MOVERS_ROUND_FULL', `a round holds at most ${entriesPerRoundMax} entries`),
  roundClosed: domainResult(moversDomainId, 10008, 'MOVERS_ROUND_CLOSED', 'the round has reached its end; the next opens at its timer'),
} as const;

export const configureMoversCodec = fieldCodec<ConfigureMovers>(MoversCommandType.configure, 'ConfigureMovers', { roundMs: field.integer });

export const enterMoversCodec = fieldCodec<EnterMovers>(MoversCommandType.enter, 'EnterMovers', {
  userId: field.integer,
  symbols: field.strings(entrySymbolsMax, symbolCharsMax),
});

/**
 * The change from `startE8` to `endE8` in units of 10^-6 percent, truncated toward zero. Prices are at
 * most 10^18 and the factor 10^8, so the product needs BigInt; the quotient fits a safe integer.
 */
export function changeE6(startE8: number, endE8: number): number {
  return Number((BigInt(endE8 - startE8) * 100_000_000n) / BigInt(startE8));
}

/** The mean of the symbols' changes, truncated toward zero: an entry's score. */
export function scoreE6(startPricesE8: readonly number[], endPricesE8: readonly number[]): number {
  let sum = 0n;
  for (let index = 0; index < startPricesE8.length; index++) sum += BigInt(changeE6(startPricesE8[index]!, endPricesE8[index]!));
  return Number(sum / BigInt(startPricesE8.length));
}
