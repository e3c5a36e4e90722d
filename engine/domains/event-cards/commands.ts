/**
 * The event cards' commands, events, result codes and limits (domain id 5: numbers 5000..5999).
 *
 * A card is a themed basket over oracle assets with an index value. Bull positions buy index units;
 * perpetual positions (long or short) take a leveraged notional exposure to the index with the house as
 * counterparty. Money is USDC atoms; indexes are integers at 10^-8 (indexE8); bull units are integers at
 * 10^-6 of a unit (unitsE6); fractions are parts per million; funding rates and indexes are at 10^-8 of
 * the notional (E8).
 */
import type { DomainCommandCodec, FieldReader, FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const eventCardsDomainId = 5;

// Limits (a named maximum for everything).
/** Cards that may be listed at all. */
export const cardsMax = 64;
/** Constituents of one card. */
export const constituentsMax = 10;
/** Basis points the weights of a card sum to. */
export const weightsTotalBps = 10_000;
/** Card ids: 1 to 32 of a-z, 0-9 and '-'. */
export const cardSlugCharsMax = 32;
export const cardNameCharsMax = 64;
export const cardDescriptionCharsMax = 240;
export const symbolCharsMax = 12;
/** A card's base index (its index at listing): 1 to 100 000 at 10^-8. */
export const baseIndexE8Min = 100_000_000;
export const baseIndexE8Max = 10_000_000_000_000;
/** Bull amounts and perpetual margins: 1 to 1 000 000 USDC (6 decimals). */
export const amountAtomsMin = 1_000_000;
export const amountAtomsMax = 1_000_000_000_000;
/** Leverage of a perpetual position: whole numbers 1 to 20. */
export const leverageMax = 20;
/** Fractions of a bull sale, in parts per million: (0, 1]. */
export const fractionScale = 1_000_000;
/** Open positions (bull and perpetual) of one user, mode and card. */
export const positionsPerUserCardMax = 50;
/** Open positions of the whole domain. */
export const positionsMax = 100_000;
/** Open interest per card and mode, for each of long, short and bull: 10 000 000 USDC. */
export const openInterestAtomsMax = 10_000_000_000_000;
/** Taker fee of a bull buy or sale and of a perpetual open or close: 10 basis points, rounded up to the atom. */
export const takerFeeBps = 10;
/** Maintenance margin: 5 % of the notional at the mark index. */
export const maintenanceBps = 500;
/** Funding: rate per interval = clamp(k × (OI_long − OI_short) / (OI_long + OI_short), ±max), at 10^-8. */
export const fundingKE8 = 100_000;
export const fundingRateMaxE8 = 50_000;
/** The funding interval (journaled by ConfigureEventCards): 1 second to 7 days, 1 hour by default. */
export const fundingIntervalMsMin = 1_000;
export const fundingIntervalMsMax = 7 * 86_400_000;
export const fundingIntervalMsDefault = 3_600_000;
/** Scales. */
export const indexScale = 100_000_000;
export const unitsScale = 1_000_000;
export const rateScale = 100_000_000;

/** The domain's own ledger accounts (domainUserId(5, index)), one per mode each. */
export const EventCardsAccount = { house: 0, margin: 1, insurance: 2 } as const;

export const PositionKind = { bull: 0, perp: 1 } as const;
export type PositionKind = (typeof PositionKind)[keyof typeof PositionKind];
export const PerpSide = { long: 0, short: 1 } as const;
export type PerpSide = (typeof PerpSide)[keyof typeof PerpSide];

export const EventCardsCommandType = {
  configure: 5001,
  listCard: 5002,
  buyBull: 5003,
  sellBull: 5004,
  openPerp: 5005,
  closePerp: 5006,
} as const;

export const EventCardsEventType = {
  configured: 5001,
  cardListed: 5002,
  cardIndexed: 5003,
  bullBought: 5004,
  bullSold: 5005,
  perpOpened: 5006,
  perpClosed: 5007,
  perpLiquidated: 5008,
  fundingApplied: 5009,
} as const;

export const eventCardsEventNames = {
  [EventCardsEventType.configured]: 'EventCardsConfigured',
  [EventCardsEventType.cardListed]: 'CardListed',
  [EventCardsEventType.cardIndexed]: 'CardIndexed',
  [EventCardsEventType.bullBought]: 'BullBought',
  [EventCardsEventType.bullSold]: 'BullSold',
  [EventCardsEventType.perpOpened]: 'PerpOpened',
  [EventCardsEventType.perpClosed]: 'PerpClosed',
  [EventCardsEventType.perpLiquidated]: 'PerpLiquidated',
  [EventCardsEventType.fundingApplied]: 'FundingApplied',
};

// Commands.

export interface ConfigureEventCards {
  fundingIntervalMs: number;
}

/** A card's definition; reference prices come from the prices domain at this command. */
export interface ListCard {
  slug: string;
  name: string;
  description: string;
  symbols: string[];
  weightsBps: number[];
  baseIndexE8: number;
}

export interface BuyBull {
  userId: number;
  mode: number;
  cardNo: number;
  amountAtoms: number;
}

export interface SellBull {
  userId: number;
  mode: number;
  cardNo: number;
  positionNo: number;
  fractionPpm: number;
}

export interface OpenPerp {
  userId: number;
  mode: number;
  cardNo: number;
  side: number;
  marginAtoms: number;
  leverage: number;
}

export interface ClosePerp {
  userId: number;
  mode: number;
  cardNo: number;
  positionNo: number;
}

// Events (each carries what a read view needs to follow the state from events alone).

export interface EventCardsConfigured {
  fundingIntervalMs: number;
  nextFundingMs: number;
}

export interface CardListed {
  cardNo: number;
  slug: string;
  name: string;
  description: string;
  symbols: string[];
  weightsBps: number[];
  baseIndexE8: number;
  referencePricesE8: number[];
  indexE8: number;
}

/** New index values of the cards a price tick moved (parallel arrays). */
export interface CardIndexed {
  cardNos: number[];
  indexesE8: number[];
}

export interface BullBought {
  positionNo: number;
  userId: number;
  mode: number;
  cardNo: number;
  amountAtoms: number;
  feeAtoms: number;
  unitsE6: number;
  entryIndexE8: number;
}

export interface BullSold {
  positionNo: number;
  userId: number;
  mode: number;
  cardNo: number;
  fractionPpm: number;
  indexE8: number;
  unitsSoldE6: number;
  proceedsAtoms: number;
  feeAtoms: number;
  remainingUnitsE6: number;
  remainingCostAtoms: number;
}

export interface PerpOpened {
  positionNo: number;
  userId: number;
  mode: number;
  cardNo: number;
  side: PerpSide;
  marginAtoms: number;
  leverage: number;
  notionalAtoms: number;
  entryIndexE8: number;
  feeAtoms: number;
  fundingEntryE8: number;
}

/** A perpetual closed by its owner: `returnedAtoms` went back to the user. */
export interface PerpClosed {
  positionNo: number;
  userId: number;
  mode: number;
  cardNo: number;
  exitIndexE8: number;
  pnlAtoms: number;
  fundingAtoms: number;
  feeAtoms: number;
  returnedAtoms: number;
  badDebtAtoms: number;
}

/** A perpetual liquidated at a price tick: the remaining equity went to the insurance account. */
export interface PerpLiquidated {
  positionNo: number;
  userId: number;
  mode: number;
  cardNo: number;
  exitIndexE8: number;
  pnlAtoms: number;
  fundingAtoms: number;
  insuranceAtoms: number;
  badDebtAtoms: number;
}

export interface FundingApplied {
  cardNo: number;
  mode: number;
  rateE8: number;
  longIndexE8: number;
  shortIndexE8: number;
  openInterestLongAtoms: number;
  openInterestShortAtoms: number;
}

// Result codes.

export const EventCardsResult = {
  invalidCard: domainResult(
    eventCardsDomainId,
    5001,
    'INVALID_CARD',
    `a card has an id of 1 to ${cardSlugCharsMax} of a-z, 0-9 and -, a name of 1 to ${cardNameCharsMax} and a description of at most ${cardDescriptionCharsMax} characters, 1 to ${constituentsMax} distinct oracle symbols with weights in basis points summing to ${weightsTotalBps}, and a base index of ${baseIndexE8Min} to ${baseIndexE8Max} at 10^-8`,
  ),
  cardExists: domainResult(eventCardsDomainId, 5002, 'CARD_EXISTS', 'a card with this id is listed already'),
  tooManyCards: domainResult(eventCardsDomainId, 5003, 'TOO_MANY_CARDS', `at most ${cardsMax} cards are listed`),
  cardUnpriced: domainResult(eventCardsDomainId, 5004, 'CARD_UNPRICED', 'a constituent of the card has no oracle price yet'),
  cardNotFound: domainResult(eventCardsDomainId, 5005, 'CARD_NOT_FOUND', 'no such event card'),
  invalidAmount: domainResult(eventCardsDomainId, 5006, 'INVALID_AMOUNT', `amounts and margins are ${amountAtomsMin} to ${amountAtomsMax} USDC atoms`),
  invalidLeverage: domainResult(eventCardsDomainId, 5007, 'INVALID_LEVERAGE', `leverage is a whole number from 1 to ${leverageMax}`),
  invalidFraction: domainResult(eventCardsDomainId, 5008, 'INVALID_FRACTION', `a fraction is 1 to ${fractionScale} parts per million`),
  fractionTooSmall: domainResult(eventCardsDomainId, 5009, 'FRACTION_TOO_SMALL', 'the fraction sells less than one unit step (10^-6) or pays nothing'),
  positionNotFound: domainResult(eventCardsDomainId, 5010, 'POSITION_NOT_FOUND', 'no open position with this id of yours on this card'),
  tooManyPositions: domainResult(
    eventCardsDomainId,
    5011,
    'TOO_MANY_POSITIONS',
    `at most ${positionsPerUserCardMax} open positions per user, mode and card, and ${positionsMax} in all`,
  ),
  openInterestCap: domainResult(eventCardsDomainId, 5012, 'OPEN_INTEREST_CAP', `open interest per card, mode and side is capped at ${openInterestAtomsMax} USDC atoms`),
  houseLiquidity: domainResult(eventCardsDomainId, 5013, 'HOUSE_LIQUIDITY', 'the house treasury cannot pay this now'),
  invalidConfiguration: domainResult(
    eventCardsDomainId,
    5014,
    'INVALID_EVENT_CARDS_CONFIGURATION',
    `the funding interval is ${fundingIntervalMsMin} to ${fundingIntervalMsMax} ms`,
  ),
  invalidPosition: domainResult(eventCardsDomainId, 5015, 'INVALID_POSITION_REQUEST', 'a position request names a user, a mode (0 live, 1 paper), a card and a side (0 long, 1 short)'),
  cardNotTradable: domainResult(eventCardsDomainId, 5016, 'CARD_NOT_TRADABLE', 'the card has no usable index or the ledger has no USDC'),
} as const;

// Codecs.

const fits = (value: unknown, charsMax: number): value is string => typeof value === 'string' && value.length <= charsMax;
const integer = (value: unknown): value is number => Number.isSafeInteger(value);

export const configureCodec: DomainCommandCodec<ConfigureEventCards> = {
  type: EventCardsCommandType.configure,
  name: 'ConfigureEventCards',
  fieldCount: 1,
  isEncodable: (body) => integer(body.fundingIntervalMs),
  write(writer: FieldWriter, body) {
    writer.integer(body.fundingIntervalMs);
  },
  read: (reader: FieldReader) => ({ fundingIntervalMs: reader.integer('fundingIntervalMs') }),
};

export const listCardCodec: DomainCommandCodec<ListCard> = {
  type: EventCardsCommandType.listCard,
  name: 'ListCard',
  fieldCount: 6,
  isEncodable: (body) =>
    fits(body.slug, cardSlugCharsMax) &&
    fits(body.name, cardNameCharsMax) &&
    fits(body.description, cardDescriptionCharsMax) &&
    Array.isArray(body.symbols) &&
    body.symbols.length <= constituentsMax &&
    body.symbols.every((symbol) => fits(symbol, symbolCharsMax)) &&
    Array.isArray(body.weightsBps) &&
    body.weightsBps.length <= constituentsMax &&
    body.weightsBps.every(integer) &&
    integer(body.baseIndexE8),
  write(writer: FieldWriter, body) {
    writer.string(body.slug);
    writer.string(body.name);
    writer.string(body.description);
    writer.strings(body.symbols);
    writer.integers(body.weightsBps);
    writer.integer(body.baseIndexE8);
  },
  read: (reader: FieldReader) => ({
    slug: reader.string('slug', cardSlugCharsMax),
    name: reader.string('name', cardNameCharsMax),
    description: reader.string('description', cardDescriptionCharsMax),
    symbols: reader.strings('symbols', constituentsMax, symbolCharsMax),
    weightsBps: reader.integers('weightsBps', constituentsMax),
    baseIndexE8: reader.integer('baseIndexE8'),
  }),
};

/** A codec of a command made of named integer fields only, written in the order given. */
function integersCodec<Body extends object>(type: number, name: string, fields: ReadonlyArray<keyof Body & string>): DomainCommandCodec<Body> {
  return {
    type,
    name,
    fieldCount: fields.length,
    isEncodable: (body) => fields.every((field) => integer(body[field])),
    write(writer: FieldWriter, body) {
      for (const field of fields) writer.integer(body[field] as number);
    },
    read(reader: FieldReader) {
      const body: Record<string, number> = {};
      for (const field of fields) body[field] = reader.integer(field);
      return body as Body;
    },
  };
}

export const buyBullCodec = integersCodec<BuyBull>(EventCardsCommandType.buyBull, 'BuyBull', ['userId', 'mode', 'cardNo', 'amountAtoms']);
export const sellBullCodec = integersCodec<SellBull>(EventCardsCommandType.sellBull, 'SellBull', ['userId', 'mode', 'cardNo', 'positionNo', 'fractionPpm']);
export const openPerpCodec = integersCodec<OpenPerp>(EventCardsCommandType.openPerp, 'OpenPerp', ['userId', 'mode', 'cardNo', 'side', 'marginAtoms', 'leverage']);
export const closePerpCodec = integersCodec<ClosePerp>(EventCardsCommandType.closePerp, 'ClosePerp', ['userId', 'mode', 'cardNo', 'positionNo']);

export const eventCardsCodecs = [configureCodec, listCardCodec, buyBullCodec, sellBullCodec, openPerpCodec, closePerpCodec] as const;

const slugPattern = /^[a-z0-9-]{1,32}$/;
const symbolPattern = /^[A-Z0-9]{1,12}$/;

/** Whether a ListCard body is well formed (prices are checked by the module). */
export function validCard(body: ListCard): boolean {
  if (typeof body.slug !== 'string' || !slugPattern.test(body.slug)) return false;
  if (typeof body.name !== 'string' || body.name.length === 0 || body.name.length > cardNameCharsMax) return false;
  if (typeof body.description !== 'string' || body.description.length > cardDescriptionCharsMax) return false;
  if (!Array.isArray(body.symbols) || !Array.isArray(body.weightsBps)) return false;
  const count = body.symbols.length;
  if (count === 0 || count > constituentsMax || body.weightsBps.length !== count) return false;
  if (new Set(body.symbols).size !== count || !body.symbols.every((symbol) => typeof symbol === 'string' && symbolPattern.test(symbol))) return false;
  let total = 0;
  for (const weight of body.weightsBps) {
    if (!Number.isSafeInteger(weight) || weight < 1 || weight > weightsTotalBps) return false;
    total += weight;
  }
  if (total !== weightsTotalBps) return false;
  return Number.isSafeInteger(body.baseIndexE8) && body.baseIndexE8 >= baseIndexE8Min && body.baseIndexE8 <= baseIndexE8Max;
}
