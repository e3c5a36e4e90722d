/**
 * The price oracle's commands, events, result codes and limits (domain id 1: numbers 1000..1999).
 *
 * Prices are integers at one scale for every asset: priceE8 = USD × 10^8. Days are UTC day numbers,
 * floor(ms / 86 400 000). Symbols are 1 to 12 of [A-Z0-9].
 */
import type { DomainCommandCodec, FieldReader, FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const pricesDomainId = 1;

/** Where a price came from; journaled with every tick. `book` is the mid of an exchange pair's hybrid book. */
export const PriceSource = { sim: 0, file: 1, http: 2, book: 3 } as const;
export type PriceSource = (typeof PriceSource)[keyof typeof PriceSource];
export const priceSourceNames = ['sim', 'file', 'http', 'book'] as const;

// Limits (TigerBeetle's habit: a named maximum for everything).
/** Assets the oracle may price at all. */
export const priceAssetsMax = 256;
/** Prices one PostPriceTicks command may carry (one per asset). */
export const ticksPerCommandMax = priceAssetsMax;
/** Daily closes one SeedPriceHistory may carry, and closes kept per asset (the oldest are dropped). */
export const historyDaysMax = 1000;
export const closesKeptMax = 2000;
/** The highest price: 10^7 USD at the 10^-8 scale (far inside the safe-integer range). */
export const priceE8Max = 1_000_000_000_000_000;
export const symbolCharsMax = 12;
/** The hours of the change_24h ring: the current hour and the 24 before it. */
export const hourRingSize = 25;
export const msPerHour = 3_600_000;
export const msPerDay = 86_400_000;

const symbolPattern = /^[A-Z0-9]{1,12}$/;

export function isPriceSymbol(value: unknown): value is string {
  return typeof value === 'string' && symbolPattern.test(value);
}

export function isPriceE8(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= priceE8Max;
}

export const PricesCommandType = { postPriceTicks: 1001, seedPriceHistory: 1002 } as const;
export const PricesEventType = { pricesTicked: 1001, priceHistorySeeded: 1002 } as const;

/** New prices of some assets at the command's time, from one source (parallel arrays). */
export interface PostPriceTicks {
  source: PriceSource;
  symbols: string[];
  pricesE8: number[];
}

/**
 * The daily closes of one asset before the oracle's first tick of it: `closesE8[i]` closed day
 * `firstDay + i`. Accepted once per asset, before it has any price.
 */
export interface SeedPriceHistory {
  source: PriceSource;
  symbol: string;
  firstDay: number;
  closesE8: number[];
}

export interface PricesTicked {
  source: PriceSource;
  symbols: string[];
  pricesE8: number[];
  timestampMs: number;
}

/** Carries the closes themselves, so that a read model can follow the oracle from events alone. */
export interface PriceHistorySeeded {
  source: PriceSource;
  symbol: string;
  firstDay: number;
  closesE8: number[];
}

export const PricesResult = {
  invalidTicks: domainResult(
    pricesDomainId,
    1001,
    'INVALID_PRICE_TICKS',
    `a tick carries 1 to ${ticksPerCommandMax} distinct symbols of 1 to ${symbolCharsMax} of A-Z and 0-9, each with a price of 1 to ${priceE8Max} units of 10^-8 USD, from a known source`,
  ),
  tooManyAssets: domainResult(pricesDomainId, 1002, 'TOO_MANY_PRICE_ASSETS', `the oracle prices at most ${priceAssetsMax} assets`),
  historyExists: domainResult(pricesDomainId, 1003, 'PRICE_HISTORY_EXISTS', 'the asset already has prices; history is seeded before its first tick'),
  invalidHistory: domainResult(
    pricesDomainId,
    1004,
    'INVALID_PRICE_HISTORY',
    `a history is 1 to ${historyDaysMax} daily closes of valid prices ending before the command's day`,
  ),
} as const;

/** What the journal format takes as a symbol: up to 12 printable ASCII characters (the rules are stricter). */
function symbolFits(value: unknown): value is string {
  return typeof value === 'string' && value.length <= symbolCharsMax && /^[\x20-\x7e]*$/.test(value);
}

function isSource(value: unknown): value is PriceSource {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < priceSourceNames.length;
}

function integersFit(values: unknown, countMax: number): values is number[] {
  return Array.isArray(values) && values.length <= countMax && values.every((value) => Number.isSafeInteger(value));
}

export const postPriceTicksCodec: DomainCommandCodec<PostPriceTicks> = {
  type: PricesCommandType.postPriceTicks,
  name: 'PostPriceTicks',
  fieldCount: 3,
  isEncodable: (body) =>
    Number.isSafeInteger(body.source) &&
    Array.isArray(body.symbols) &&
    body.symbols.length <= ticksPerCommandMax &&
    body.symbols.every(symbolFits) &&
    integersFit(body.pricesE8, ticksPerCommandMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.source);
    writer.strings(body.symbols);
    writer.integers(body.pricesE8);
  },
  read(reader: FieldReader) {
    return {
      source: reader.integer('source') as PriceSource,
      symbols: reader.strings('symbols', ticksPerCommandMax, symbolCharsMax),
      pricesE8: reader.integers('pricesE8', ticksPerCommandMax),
    };
  },
};

export const seedPriceHistoryCodec: DomainCommandCodec<SeedPriceHistory> = {
  type: PricesCommandType.seedPriceHistory,
  name: 'SeedPriceHistory',
  fieldCount: 4,
  isEncodable: (body) =>
    Number.isSafeInteger(body.source) &&
    symbolFits(body.symbol) &&
    Number.isSafeInteger(body.firstDay) &&
    integersFit(body.closesE8, historyDaysMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.source);
    writer.string(body.symbol);
    writer.integer(body.firstDay);
    writer.integers(body.closesE8);
  },
  read(reader: FieldReader) {
    return {
      source: reader.integer('source') as PriceSource,
      symbol: reader.string('symbol', symbolCharsMax),
      firstDay: reader.integer('firstDay'),
      closesE8: reader.integers('closesE8', historyDaysMax),
    };
  },
};

export function validTicks(body: PostPriceTicks): boolean {
  if (!isSource(body.source) || !Array.isArray(body.symbols) || !Array.isArray(body.pricesE8)) return false;
  const count = body.symbols.length;
  if (count === 0 || count > ticksPerCommandMax || body.pricesE8.length !== count) return false;
  const seen = new Set<string>();
  for (let index = 0; index < count; index++) {
    const symbol = body.symbols[index];
    if (!isPriceSymbol(symbol) || seen.has(symbol) || !isPriceE8(body.pricesE8[index])) return false;
    seen.add(symbol);
  }
  return true;
}

export function validHistory(body: SeedPriceHistory, nowDay: number): boolean {
  if (!isSource(body.source) || !isPriceSymbol(body.symbol) || !Number.isSafeInteger(body.firstDay) || body.firstDay < 0) return false;
  if (!Array.isArray(body.closesE8) || body.closesE8.length === 0 || body.closesE8.length > historyDaysMax) return false;
  if (body.firstDay + body.closesE8.length > nowDay) return false;
  return body.closesE8.every(isPriceE8);
}
