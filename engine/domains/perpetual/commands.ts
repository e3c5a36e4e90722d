/**
 * The perpetual prediction markets' commands, events, result codes and limits (domain id 3: numbers
 * 3000..3999).
 *
 * A market is an oracle symbol (BTC, ETH, ...). Time is cut into aligned epochs: with the epoch length E in
 * force when an epoch opens at journaled time T, the epoch's number is floor(T / E) and it ends at
 * (number + 1) × E. Stakes are atoms of the collateral asset (PRED); sides are 0 YES (the end price is above
 * the start price) and 1 NO (below). Prices are the prices domain's integers at 10^-8 USD.
 */
import { field, fieldCodec } from '../../core/domain.ts';
import type { Mode } from '../../core/commands.ts';
import { domainResult } from '../../core/results.ts';
import { isPriceSymbol, symbolCharsMax } from '../prices/commands.ts';

export const perpetualDomainId = 3;

/** The collateral every stake is in: a platform token, by its symbol in the markets fixture. */
export const collateralSymbol = 'PRED';

// Limits (a named maximum for everything).
/** The shortest and the longest epoch: one minute to one day of journaled time. */
export const epochMsMin = 60_000;
export const epochMsMax = 86_400_000;
/** Markets at most (the platform lists six). */
export const marketsMax = 16;
/** Distinct predictions one market epoch holds per mode (house seeds not counted). */
export const predictionsPerEpochMax = 10_000;
/** One prediction's stake: 1 to 1 000 000 PRED, in atoms of PRED's 6 ledger decimals. */
export const stakeAtomsMin = 1_000_000;
export const stakeAtomsMax = 1_000_000_000_000;
/** The house's seed on each side of each epoch: 0 (no seed) to 1 000 000 PRED. */
export const seedAtomsMax = 1_000_000_000_000;
/** How often a market that waits for its first oracle price looks again (aligned to this period). */
export const priceRecheckMs = 60_000;
/** The house treasury's and the pool's ledger accounts: domainUserId(3, index). */
export const houseAccountIndex = 0;
export const poolAccountIndex = 1;

export const Side = { yes: 0, no: 1 } as const;
export type Side = (typeof Side)[keyof typeof Side];
export const sideNames = ['YES', 'NO'] as const;

/** How an epoch ended: a side won, or the end price equalled the start price (or nobody stood to win) and every stake went back. */
export const Outcome = { yes: 0, no: 1, refund: 2 } as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];
export const outcomeNames = ['YES', 'NO', 'REFUND'] as const;

export const PerpetualCommandType = { configure: 3001, predict: 3002 } as const;
export const PerpetualEventType = { configured: 3001, epochOpened: 3002, predictionPlaced: 3003, epochResolved: 3004 } as const;

/**
 * The markets' settings, journaled so that replay needs no environment: the epoch length and the house
 * seed apply from the next epoch a market opens; `symbols` lists every market, the existing ones first in
 * their order (a market is never removed), new ones after them.
 */
export interface ConfigurePerpetual {
  epochMs: number;
  seedAtoms: number;
  symbols: string[];
}

/** A user's stake of `amountAtoms` PRED on `side` of the current epoch of market `symbol`. */
export interface Predict {
  userId: number;
  mode: Mode;
  symbol: string;
  side: Side;
  amountAtoms: number;
}

export interface PerpetualConfigured {
  epochMs: number;
  seedAtoms: number;
  symbols: string[];
}

/** An epoch opened: its window, start price, and the house seed each mode put on each side (0: none). */
export interface EpochOpened {
  symbol: string;
  epoch: number;
  startMs: number;
  endMs: number;
  startPriceE8: number;
  /** By mode (0 live, 1 paper). */
  seedAtoms: [number, number];
}

export interface PredictionPlaced {
  predictionId: number;
  symbol: string;
  epoch: number;
  userId: number;
  mode: Mode;
  side: Side;
  stakeAtoms: number;
  /** The mode's pools after the stake (house seeds included). */
  yesPoolAtoms: number;
  noPoolAtoms: number;
}

/** One stake's result at resolution; the house's seeds appear with userId = the house account's user and predictionId 0. */
export interface Payout {
  predictionId: number;
  userId: number;
  mode: Mode;
  side: Side;
  stakeAtoms: number;
  payoutAtoms: number;
}

export interface EpochResolved {
  symbol: string;
  epoch: number;
  startMs: number;
  endMs: number;
  startPriceE8: number;
  endPriceE8: number;
  outcome: Outcome;
  /** By mode: the pools at resolution and what flooring left for the fee account. */
  yesPoolAtoms: [number, number];
  noPoolAtoms: [number, number];
  remainderAtoms: [number, number];
  payouts: Payout[];
}

export const PerpetualResult = {
  invalidConfiguration: domainResult(
    perpetualDomainId,
    3001,
    'INVALID_PERPETUAL_CONFIGURATION',
    `an epoch of ${epochMsMin} to ${epochMsMax} ms, a seed of 0 to ${seedAtomsMax} atoms, and 1 to ${marketsMax} distinct symbols that keep every existing market in its place`,
  ),
  marketNotFound: domainResult(perpetualDomainId, 3002, 'PERPETUAL_MARKET_NOT_FOUND', 'no perpetual market has this symbol'),
  marketNotOpen: domainResult(perpetualDomainId, 3003, 'PERPETUAL_MARKET_NOT_OPEN', 'the market waits for its first oracle price; no epoch is open'),
  epochClosed: domainResult(perpetualDomainId, 3004, 'PERPETUAL_EPOCH_CLOSED', 'the epoch has ended and awaits resolution; predict again in a moment'),
  invalidSide: domainResult(perpetualDomainId, 3005, 'INVALID_PERPETUAL_SIDE', 'side must be YES or NO'),
  invalidAmount: domainResult(perpetualDomainId, 3006, 'INVALID_PERPETUAL_STAKE', `amount must be ${stakeAtomsMin} to ${stakeAtomsMax} atoms of the collateral`),
  epochFull: domainResult(perpetualDomainId, 3007, 'PERPETUAL_EPOCH_FULL', `an epoch takes at most ${predictionsPerEpochMax} predictions per mode`),
} as const;

export const configurePerpetualCodec = fieldCodec<ConfigurePerpetual>(PerpetualCommandType.configure, 'ConfigurePerpetual', {
  epochMs: field.integer,
  seedAtoms: field.integer,
  symbols: field.strings(marketsMax, symbolCharsMax),
});

export const predictCodec = fieldCodec<Predict>(PerpetualCommandType.predict, 'Predict', {
  userId: field.integer,
  mode: field.integer,
  symbol: field.string(symbolCharsMax),
  side: field.integer,
  amountAtoms: field.integer,
});

/** Whether a configuration is acceptable after `existing` markets (their symbols, in order). */
export function validConfiguration(body: ConfigurePerpetual, existing: readonly string[]): boolean {
  if (!Number.isSafeInteger(body.epochMs) || body.epochMs < epochMsMin || body.epochMs > epochMsMax) return false;
  if (!Number.isSafeInteger(body.seedAtoms) || body.seedAtoms < 0 || body.seedAtoms > seedAtomsMax) return false;
  if (!Array.isArray(body.symbols) || body.symbols.length === 0 || body.symbols.length > marketsMax) return false;
  if (!body.symbols.every(isPriceSymbol) || new Set(body.symbols).size !== body.symbols.length) return false;
  return existing.every((symbol, index) => body.symbols[index] === symbol);
}

export function isSide(value: unknown): value is Side {
  return value === Side.yes || value === Side.no;
}

export function validStake(amountAtoms: unknown): amountAtoms is number {
  return Number.isSafeInteger(amountAtoms) && (amountAtoms as number) >= stakeAtomsMin && (amountAtoms as number) <= stakeAtomsMax;
}
