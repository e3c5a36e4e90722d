/**
 * Result codes of every command, grouped in ranges per subsystem. The number is what the engine returns
 * and journals; the string code is what clients see in `{"error":{"code","message"}}`. Both are stable:
 * append new codes, never renumber.
 *
 *   0        ok
 *   100-199  command shape and units (decimal conversion, grids, ranges)
 *   200-299  ledger
 *   300-399  orders
 *   400-499  limits
 *   500-599  exchange algos (TWAP, scale orders)
 */
import {
  scaleOrdersMax,
  scaleOrdersMin,
  twapDurationMsMax,
  twapIntervalMsMax,
  twapIntervalMsMin,
  twapSlicesMax,
  venueLevelsPerSideMax, venuePoolIdMax, venuesPerPairMax, withdrawAddressCharsMax, withdrawChainIdMax, withdrawReferenceCharsMax } from './limits.ts';

export const Result = {
  ok: 0,

  invalidCommand: 100,
  unknownPair: 101,
  unknownAsset: 102,
  invalidUser: 103,
  invalidMode: 104,
  invalidSide: 105,
  invalidOrderType: 106,
  invalidTimeInForce: 107,
  invalidSelfTradePrevention: 108,
  invalidNumber: 110,
  negativeValue: 111,
  zeroValue: 112,
  offTick: 113,
  offLot: 114,
  tooManyDecimals: 115,
  valueTooLarge: 116,
  notionalTooLarge: 117,
  priceOutOfRange: 118,
  quantityOutOfRange: 119,
  priceRequired: 120,
  stopPriceRequired: 121,
  invalidOrderOptions: 122,
  invalidClientOrderId: 123,
  invalidDestination: 124,
  referenceTooLong: 125,
  invalidQuote: 126,
  staleQuote: 127,
  nothingToExpire: 128,
  unknownCommand: 129,

  insufficientBalance: 200,
  balanceLimit: 201,

  orderNotFound: 300,
  postOnlyWouldTake: 301,
  duplicateClientOrderId: 302,
  orderIdNotIncreasing: 303,
  orderNotAmendable: 304,

  tooManyOpenOrders: 400,
  bookFull: 401,
  batchTooLarge: 402,
  batchEmpty: 403,
  tooManyStopOrders: 404,
  tooManyPriceLevels: 405,
  tooManyAccounts: 406,
  commandTooLarge: 407,
  tooManyVenues: 408,
  paperAccountExists: 409,
  tooManyTwaps: 410,
  twapsFull: 411,

  invalidTwapSchedule: 500,
  twapIdNotIncreasing: 501,
  twapNotFound: 502,
  nothingDue: 503,
  invalidScale: 504,
  scaleIdNotIncreasing: 505,
  scaleWouldTake: 506,
} as const;

declare const domainResultBrand: unique symbol;
/**
 * A result code of a domain module, in the domain's own range (domain id × 1000 up to domain id × 1000 +
 * 999; see domain.ts). Made only by `domainResult`, which the domain's descriptor calls once per code when
 * it registers the code's client string and message.
 */
export type DomainResultCode = number & { readonly [domainResultBrand]: true };
export type CoreResultCode = (typeof Result)[keyof typeof Result];
export type ResultCode = CoreResultCode | DomainResultCode;

interface ResultInfo {
  readonly code: string;
  readonly message: string;
}

const info: Record<CoreResultCode, ResultInfo> = {
  [Result.ok]: { code: 'OK', message: 'ok' },

  [Result.invalidCommand]: { code: 'INVALID_COMMAND', message: 'the command is malformed' },
  [Result.unknownPair]: { code: 'UNKNOWN_PAIR', message: 'no such trading pair' },
  [Result.unknownAsset]: { code: 'UNKNOWN_ASSET', message: 'no such asset' },
  [Result.invalidUser]: { code: 'INVALID_USER', message: 'user id must be a positive integer' },
  [Result.invalidMode]: { code: 'INVALID_MODE', message: 'mode must be live or paper' },
  [Result.invalidSide]: { code: 'INVALID_SIDE', message: 'side must be buy or sell' },
  [Result.invalidOrderType]: {
    code: 'INVALID_ORDER_TYPE',
    message: 'order_type must be limit, market, stop_limit, stop_market or ioc',
  },
  [Result.invalidTimeInForce]: { code: 'INVALID_TIME_IN_FORCE', message: 'time_in_force must be GTC, IOC or FOK' },
  [Result.invalidSelfTradePrevention]: {
    code: 'INVALID_STP',
    message: 'stp must be cancel_taker, cancel_maker, cancel_both or none',
  },
  [Result.invalidNumber]: { code: 'INVALID_NUMBER', message: 'not a plain decimal number' },
  [Result.negativeValue]: { code: 'NEGATIVE_VALUE', message: 'value must not be negative' },
  [Result.zeroValue]: { code: 'ZERO_VALUE', message: 'value must be greater than zero' },
  [Result.offTick]: { code: 'PRICE_OFF_TICK', message: 'price is not a multiple of the tick size' },
  [Result.offLot]: { code: 'QUANTITY_OFF_LOT', message: 'quantity is not a multiple of the lot size' },
  [Result.tooManyDecimals]: { code: 'TOO_MANY_DECIMALS', message: 'amount is finer than the asset allows' },
  [Result.valueTooLarge]: { code: 'VALUE_TOO_LARGE', message: 'value is beyond the exact integer range' },
  [Result.notionalTooLarge]: { code: 'NOTIONAL_TOO_LARGE', message: 'price times quantity is too large' },
  [Result.priceOutOfRange]: { code: 'PRICE_OUT_OF_RANGE', message: 'price is outside the pair limits' },
  [Result.quantityOutOfRange]: { code: 'QUANTITY_OUT_OF_RANGE', message: 'quantity is outside the pair limits' },
  [Result.priceRequired]: { code: 'PRICE_REQUIRED', message: 'price is required for this order type' },
  [Result.stopPriceRequired]: { code: 'STOP_PRICE_REQUIRED', message: 'stop_price is required for stop orders' },
  [Result.invalidOrderOptions]: {
    code: 'INVALID_ORDER_OPTIONS',
    message: 'post_only applies only to limit orders with time in force GTC',
  },
  [Result.invalidClientOrderId]: { code: 'INVALID_CLIENT_ORDER_ID', message: 'client_order_id is empty or too long' },
  [Result.invalidDestination]: {
    code: 'INVALID_DESTINATION',
    message: `the chain id must be 1 to ${withdrawChainIdMax} and the address 1 to ${withdrawAddressCharsMax} characters`,
  },
  [Result.referenceTooLong]: { code: 'REFERENCE_TOO_LONG', message: `the reference is longer than ${withdrawReferenceCharsMax} characters` },
  [Result.invalidQuote]: {
    code: 'INVALID_QUOTE',
    message: `a venue quote needs a known pair, a pool id 1..${venuePoolIdMax}, a chain id 1..${withdrawChainIdMax}, at most ${venueLevelsPerSideMax} levels a side, prices strictly improving toward the best and inside the pair's range, lots of at least one, and bids below asks`,
  },
  [Result.staleQuote]: { code: 'STALE_QUOTE', message: 'the venue quote is not newer than the last one of its pool' },
  [Result.nothingToExpire]: { code: 'NOTHING_TO_EXPIRE', message: 'no venue quote is older than the quote lifetime' },
  [Result.unknownCommand]: { code: 'UNKNOWN_COMMAND', message: 'no part of the engine handles this command kind' },

  [Result.insufficientBalance]: { code: 'INSUFFICIENT_BALANCE', message: 'available balance is too low' },
  [Result.balanceLimit]: { code: 'BALANCE_LIMIT', message: 'the balance would leave the exact integer range' },

  [Result.orderNotFound]: { code: 'ORDER_NOT_FOUND', message: 'no such open order' },
  [Result.postOnlyWouldTake]: { code: 'POST_ONLY_WOULD_TAKE', message: 'a post-only order would take liquidity' },
  [Result.duplicateClientOrderId]: {
    code: 'DUPLICATE_CLIENT_ORDER_ID',
    message: 'client_order_id is already used by an open order',
  },
  [Result.orderIdNotIncreasing]: { code: 'ORDER_ID_NOT_INCREASING', message: 'order ids must increase' },
  [Result.orderNotAmendable]: { code: 'ORDER_NOT_AMENDABLE', message: 'only resting limit orders can be amended' },

  [Result.tooManyOpenOrders]: { code: 'TOO_MANY_OPEN_ORDERS', message: 'the account holds too many open orders' },
  [Result.bookFull]: { code: 'BOOK_FULL', message: 'the order book is at capacity' },
  [Result.batchTooLarge]: { code: 'BATCH_TOO_LARGE', message: 'too many items in one batch' },
  [Result.batchEmpty]: { code: 'BATCH_EMPTY', message: 'a batch needs at least one item' },
  [Result.tooManyStopOrders]: { code: 'TOO_MANY_STOP_ORDERS', message: 'the book holds too many stop orders' },
  [Result.tooManyPriceLevels]: { code: 'TOO_MANY_PRICE_LEVELS', message: 'the book holds too many price levels' },
  [Result.tooManyAccounts]: { code: 'TOO_MANY_ACCOUNTS', message: 'the ledger is at capacity' },
  [Result.commandTooLarge]: { code: 'COMMAND_TOO_LARGE', message: 'the command is larger than a journal frame allows' },
  [Result.tooManyVenues]: { code: 'TOO_MANY_VENUES', message: `a pair takes quotes from at most ${venuesPerPairMax} venues` },
  [Result.paperAccountExists]: { code: 'PAPER_ACCOUNT_EXISTS', message: 'the paper account is already open' },
  [Result.tooManyTwaps]: { code: 'TOO_MANY_TWAPS', message: 'the account runs as many TWAPs as it may' },
  [Result.twapsFull]: { code: 'TWAPS_FULL', message: 'the engine runs as many TWAPs as it may' },

  [Result.invalidTwapSchedule]: {
    code: 'INVALID_TWAP_SCHEDULE',
    message: `a TWAP slices every ${twapIntervalMsMin / 1000} to ${twapIntervalMsMax / 1000} seconds over at most ${twapDurationMsMax / 1000} seconds, in at most ${twapSlicesMax} slices of at least one lot each`,
  },
  [Result.twapIdNotIncreasing]: { code: 'TWAP_ID_NOT_INCREASING', message: 'TWAP ids must increase' },
  [Result.twapNotFound]: { code: 'TWAP_NOT_FOUND', message: 'no such active TWAP' },
  [Result.nothingDue]: { code: 'NOTHING_DUE', message: 'no timer is due' },
  [Result.invalidScale]: {
    code: 'INVALID_SCALE',
    message: `a scale order is ${scaleOrdersMin} to ${scaleOrdersMax} GTC limit orders of one user, mode, pair and side, without client order ids or post-only, at distinct prices`,
  },
  [Result.scaleIdNotIncreasing]: { code: 'SCALE_ID_NOT_INCREASING', message: 'scale ids must increase' },
  [Result.scaleWouldTake]: { code: 'SCALE_WOULD_TAKE', message: 'an order of the scale would take liquidity; scale orders only rest' },
};

/** Domain result codes by number, as their domains registered them. */
const domainInfo = new Map<number, ResultInfo>();

/**
 * Registers one result code of a domain: its number must lie in the domain's range and be new, its string
 * code new across the engine. Called at module load by the domain's descriptor, never at run time.
 */
export function domainResult(domainId: number, number: number, code: string, message: string): DomainResultCode {
  if (!Number.isInteger(domainId) || domainId < 1 || domainId > 999) throw new Error(`domain id ${domainId} outside 1..999`);
  if (!Number.isInteger(number) || number < domainId * 1000 || number > domainId * 1000 + 999) {
    throw new Error(`result ${number} is outside domain ${domainId}'s range`);
  }
  if (domainInfo.has(number)) throw new Error(`result ${number} is registered twice`);
  for (const known of [...Object.values(info), ...domainInfo.values()]) {
    if (known.code === code) throw new Error(`result code string ${code} is registered twice`);
  }
  domainInfo.set(number, { code, message });
  return number as DomainResultCode;
}

function infoOf(result: ResultCode): ResultInfo {
  const found = (info as Record<number, ResultInfo | undefined>)[result] ?? domainInfo.get(result);
  if (found === undefined) throw new Error(`unknown result code ${result}`);
  return found;
}

export function resultCode(result: ResultCode): string {
  return infoOf(result).code;
}

export function resultMessage(result: ResultCode): string {
  return infoOf(result).message;
}
