/**
 * Prediction markets: commands, events, result codes and limits (domain id 2: numbers 2000..2999).
 *
 * A market names 2 to 20 assets priced by the prices domain and runs from its start time to its end time.
 * Each asset has a binary contract paying one settlement token if that asset wins (largest percentage
 * change from start to end price), else nothing, traded on its own book; beside the books runs a
 * winner-takes-all (WTA) pool of bets.
 *
 * Units: a price is an integer count of ticks of 0.001 token per share (1..999); a quantity an integer
 * count of lots of 0.001 share. For a settlement token with d decimals, one tick times one lot is
 * 10^(d-6) atoms (`atomsPerTickLot`), so a fully collateralised lot is 1000 × 10^(d-6) atoms. Bets and
 * bet bounds are in the token's atoms. Times are journaled milliseconds.
 */
import type { DomainCommandCodec, FieldReader, FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const marketsDomainId = 2;

// Limits: a named maximum for everything a command can make grow.
/** Markets the engine keeps (completed ones included: their results stay readable). */
export const marketsMax = 100_000;
/** Assets in one market, and the fewest. */
export const marketAssetsMin = 2;
export const marketAssetsMax = 20;
/** Characters in a market's name and description. */
export const marketNameCharsMax = 120;
export const marketDescriptionCharsMax = 2_000;
/** Characters in an asset symbol (the prices domain's symbols). */
export const marketSymbolCharsMax = 12;
/** The longest a market may run, and how far ahead of the command its start may lie. */
export const marketDurationMsMax = 90 * 86_400_000;
export const marketStartLeadMsMax = 365 * 86_400_000;
/** Decimals a settlement token may have: at least 6 (a tick times a lot is a whole atom), at most 9. */
export const tokenDecimalsMin = 6;
export const tokenDecimalsMax = 9;
/** The largest bet bound, in whole tokens (times 10^decimals in atoms). */
export const betTokensMax = 1_000_000;
/** Ticks in one whole token per share: a share pays 1000 ticks when its asset wins. */
export const ticksPerShare = 1000;
/** Prices lie in 1..999 ticks: strictly between 0 and 1. */
export const priceTicksMin = 1;
export const priceTicksMax = 999;
/** Lots in one order (100 000 shares): keeps every notional times the fee rate a safe integer. */
export const orderLotsMax = 100_000_000;
/** Open orders one user may have in one market. */
export const openOrdersPerUserPerMarketMax = 200;
/** Resting orders in one book (one asset of one market). */
export const restingOrdersPerBookMax = 100_000;
/** Price levels per side of one book: every tick may hold one. */
export const priceLevelsPerSideMax = priceTicksMax;
/** Distinct (user, asset) stakes of one market's WTA pool. */
export const stakesPerMarketMax = 100_000;
/** Maker fee in basis points of the traded notional; the taker pays the engine's taker fee (port.settings). */
export const marketMakerFeeBps = 0;

/** The asset types the shell's catalogue knows (fixtures/oracle-assets.json). */
export const AssetType = { crypto: 0, stock: 1 } as const;
export type AssetType = (typeof AssetType)[keyof typeof AssetType];
export const assetTypeNames = ['crypto', 'stock'] as const;

export const MarketStatus = { pending: 0, active: 1, completed: 2 } as const;
export type MarketStatus = (typeof MarketStatus)[keyof typeof MarketStatus];
export const marketStatusNames = ['pending', 'active', 'completed'] as const;

/** Why an order left the book without filling: its owner, self-trade prevention, or the market's end. */
export const CancelReason = { user: 0, selfTrade: 1, settlement: 2 } as const;
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];
export const cancelReasonNames = ['user', 'self_trade', 'settlement'] as const;

export const MarketsCommandType = { createMarket: 2001, placeMarketOrder: 2002, cancelMarketOrder: 2003, placeBet: 2004 } as const;
export const MarketsEventType = {
  marketCreated: 2001,
  marketActivated: 2002,
  marketOrderAccepted: 2003,
  marketOrderRested: 2004,
  marketTradeExecuted: 2005,
  marketOrderCancelled: 2006,
  betPlaced: 2007,
  marketCompleted: 2008,
} as const;

// Commands.

export interface CreateMarket {
  userId: number;
  name: string;
  description: string;
  assets: string[];
  assetType: AssetType;
  tokenAssetId: number;
  startMs: number;
  endMs: number;
  minBetAtoms: number;
  maxBetAtoms: number;
}

/** A limit order on one asset's book; side 0 buys YES shares, 1 sells them. */
export interface PlaceMarketOrder {
  userId: number;
  marketId: number;
  asset: string;
  side: number;
  priceTicks: number;
  lots: number;
}

export interface CancelMarketOrder {
  userId: number;
  marketId: number;
  orderId: number;
}

export interface PlaceBet {
  userId: number;
  marketId: number;
  asset: string;
  amountAtoms: number;
}

// Events (plain objects, never reused: read models and streams keep them).

export interface MarketCreated {
  marketId: number;
  address: string;
  creatorUserId: number;
  name: string;
  description: string;
  assets: string[];
  assetType: AssetType;
  tokenAssetId: number;
  startMs: number;
  endMs: number;
  minBetAtoms: number;
  maxBetAtoms: number;
  createdMs: number;
}

export interface MarketActivated {
  marketId: number;
  startPricesE8: number[];
}

export interface MarketOrderAccepted {
  marketId: number;
  orderId: number;
  userId: number;
  assetIndex: number;
  side: number;
  priceTicks: number;
  lots: number;
  /** Lots of a sell covered by YES shares the seller holds (reserved until they fill or the order ends). */
  coveredLots: number;
}

/** The taker's remainder rested at its limit (it is a maker from now on). */
export interface MarketOrderRested {
  marketId: number;
  orderId: number;
  userId: number;
  assetIndex: number;
  side: number;
  priceTicks: number;
  remainingLots: number;
}

export interface MarketTradeExecuted {
  marketId: number;
  assetIndex: number;
  priceTicks: number;
  lots: number;
  takerSide: number;
  makerOrderId: number;
  takerOrderId: number;
  makerUserId: number;
  takerUserId: number;
  /** What the maker has left in the book after this fill (0: it left the book). */
  makerRemainingLots: number;
  takerFeeAtoms: number;
}

/** An order left (or never reached) the book with `remainingLots` unfilled. */
export interface MarketOrderCancelled {
  marketId: number;
  orderId: number;
  userId: number;
  assetIndex: number;
  side: number;
  priceTicks: number;
  remainingLots: number;
  /** Whether the order was resting in the book (its lots leave the book's levels). */
  wasResting: boolean;
  reason: CancelReason;
}

export interface BetPlaced {
  marketId: number;
  userId: number;
  assetIndex: number;
  amountAtoms: number;
}

/** One user's payout for the positions it held at completion. */
export interface PositionPayout {
  userId: number;
  /** Winning YES lots plus losing NO lots it held; each pays one full share's collateral. */
  lots: number;
  atoms: number;
}

export interface BetPayout {
  userId: number;
  assetIndex: number;
  stakeAtoms: number;
  /** What the pool paid (a winner's share, a refund, or 0 for a losing stake). */
  payoutAtoms: number;
}

export interface MarketCompleted {
  marketId: number;
  endPricesE8: number[];
  /** Each asset's change in millionths (10^-6) of its start price, rounded toward zero. */
  changesE6: number[];
  /** Competition ranks by exact change (1 = largest; tied assets share a rank). */
  ranks: number[];
  /** Indices of the winning assets (all assets tied at the largest change). */
  winners: number[];
  positionPayouts: PositionPayout[];
  /** The WTA pool (sum of all stakes), what went to the fee account, and whether stakes were refunded. */
  poolAtoms: number;
  remainderAtoms: number;
  refunded: boolean;
  betPayouts: BetPayout[];
}

// Result codes.

export const MarketsResult = {
  invalidMarket: domainResult(
    marketsDomainId,
    2001,
    'INVALID_MARKET',
    `a market has a name of 1 to ${marketNameCharsMax} characters, a description of at most ${marketDescriptionCharsMax}, ${marketAssetsMin} to ${marketAssetsMax} distinct assets and a known asset type`,
  ),
  assetNotPriced: domainResult(marketsDomainId, 2002, 'ASSET_NOT_PRICED', 'every asset of a market must have a price from the oracle'),
  invalidToken: domainResult(marketsDomainId, 2003, 'INVALID_TOKEN', `the settlement token must be a ledger asset with ${tokenDecimalsMin} to ${tokenDecimalsMax} decimals`),
  invalidSchedule: domainResult(
    marketsDomainId,
    2004,
    'INVALID_SCHEDULE',
    `start_time must be now or later (at most 365 days ahead) and end_time after it, at most ${marketDurationMsMax / 86_400_000} days later`,
  ),
  invalidBetBounds: domainResult(marketsDomainId, 2005, 'INVALID_BET_BOUNDS', `0 < min_bet <= max_bet <= ${betTokensMax} tokens`),
  tooManyMarkets: domainResult(marketsDomainId, 2006, 'TOO_MANY_MARKETS', `at most ${marketsMax} markets`),
  marketNotFound: domainResult(marketsDomainId, 2007, 'MARKET_NOT_FOUND', 'no such market'),
  marketCompleted: domainResult(marketsDomainId, 2008, 'MARKET_COMPLETED', 'the market has completed'),
  assetNotInMarket: domainResult(marketsDomainId, 2009, 'ASSET_NOT_IN_MARKET', 'the asset is not one of the market\'s assets'),
  invalidOrder: domainResult(
    marketsDomainId,
    2010,
    'INVALID_MARKET_ORDER',
    `an order has side buy or sell, a price of ${priceTicksMin} to ${priceTicksMax} ticks of 0.001 and 1 to ${orderLotsMax} lots of 0.001 share`,
  ),
  tooManyOpenOrders: domainResult(marketsDomainId, 2011, 'TOO_MANY_MARKET_ORDERS', `at most ${openOrdersPerUserPerMarketMax} open orders per user and market`),
  bookFull: domainResult(marketsDomainId, 2012, 'MARKET_BOOK_FULL', `at most ${restingOrdersPerBookMax} resting orders per book`),
  orderNotFound: domainResult(marketsDomainId, 2013, 'MARKET_ORDER_NOT_FOUND', 'no such open order of yours in this market'),
  betOutOfBounds: domainResult(marketsDomainId, 2014, 'BET_OUT_OF_BOUNDS', 'the bet must lie within the market\'s min_bet and max_bet'),
  tooManyStakes: domainResult(marketsDomainId, 2015, 'TOO_MANY_STAKES', `at most ${stakesPerMarketMax} distinct (user, asset) stakes per market`),
  invalidUser: domainResult(marketsDomainId, 2016, 'INVALID_MARKET_USER', 'the user must be a client account'),
} as const;

// Codecs.

function stringFits(value: unknown, charsMax: number): value is string {
  return typeof value === 'string' && value.length <= charsMax;
}

function integersFit(values: readonly unknown[]): boolean {
  return values.every((value) => Number.isSafeInteger(value));
}

export const createMarketCodec: DomainCommandCodec<CreateMarket> = {
  type: MarketsCommandType.createMarket,
  name: 'CreateMarket',
  fieldCount: 10,
  isEncodable: (body) =>
    integersFit([body.userId, body.assetType, body.tokenAssetId, body.startMs, body.endMs, body.minBetAtoms, body.maxBetAtoms]) &&
    stringFits(body.name, marketNameCharsMax) &&
    stringFits(body.description, marketDescriptionCharsMax) &&
    Array.isArray(body.assets) &&
    body.assets.length <= marketAssetsMax &&
    body.assets.every((asset) => stringFits(asset, marketSymbolCharsMax)),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.string(body.name);
    writer.string(body.description);
    writer.strings(body.assets);
    writer.integer(body.assetType);
    writer.integer(body.tokenAssetId);
    writer.integer(body.startMs);
    writer.integer(body.endMs);
    writer.integer(body.minBetAtoms);
    writer.integer(body.maxBetAtoms);
  },
  read(reader: FieldReader) {
    return {
      userId: reader.integer('userId'),
      name: reader.string('name', marketNameCharsMax),
      description: reader.string('description', marketDescriptionCharsMax),
      assets: reader.strings('assets', marketAssetsMax, marketSymbolCharsMax),
      assetType: reader.integer('assetType') as AssetType,
      tokenAssetId: reader.integer('tokenAssetId'),
      startMs: reader.integer('startMs'),
      endMs: reader.integer('endMs'),
      minBetAtoms: reader.integer('minBetAtoms'),
      maxBetAtoms: reader.integer('maxBetAtoms'),
    };
  },
};

export const placeMarketOrderCodec: DomainCommandCodec<PlaceMarketOrder> = {
  type: MarketsCommandType.placeMarketOrder,
  name: 'PlaceMarketOrder',
  fieldCount: 6,
  isEncodable: (body) => integersFit([body.userId, body.marketId, body.side, body.priceTicks, body.lots]) && stringFits(body.asset, marketSymbolCharsMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.integer(body.marketId);
    writer.string(body.asset);
    writer.integer(body.side);
    writer.integer(body.priceTicks);
    writer.integer(body.lots);
  },
  read(reader: FieldReader) {
    return {
      userId: reader.integer('userId'),
      marketId: reader.integer('marketId'),
      asset: reader.string('asset', marketSymbolCharsMax),
      side: reader.integer('side'),
      priceTicks: reader.integer('priceTicks'),
      lots: reader.integer('lots'),
    };
  },
};

export const cancelMarketOrderCodec: DomainCommandCodec<CancelMarketOrder> = {
  type: MarketsCommandType.cancelMarketOrder,
  name: 'CancelMarketOrder',
  fieldCount: 3,
  isEncodable: (body) => integersFit([body.userId, body.marketId, body.orderId]),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.integer(body.marketId);
    writer.integer(body.orderId);
  },
  read(reader: FieldReader) {
    return { userId: reader.integer('userId'), marketId: reader.integer('marketId'), orderId: reader.integer('orderId') };
  },
};

export const placeBetCodec: DomainCommandCodec<PlaceBet> = {
  type: MarketsCommandType.placeBet,
  name: 'PlaceBet',
  fieldCount: 4,
  isEncodable: (body) => integersFit([body.userId, body.marketId, body.amountAtoms]) && stringFits(body.asset, marketSymbolCharsMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.integer(body.marketId);
    writer.string(body.asset);
    writer.integer(body.amountAtoms);
  },
  read(reader: FieldReader) {
    return { userId: reader.integer('userId'), marketId: reader.integer('marketId'), asset: reader.string('asset', marketSymbolCharsMax), amountAtoms: reader.integer('amountAtoms') };
  },
};

// The platform identifier of a market.

/** One 32-bit mixing round (the finaliser of a well-known 32-bit hash: xor-shift, multiply, xor-shift). */
function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}

/**
 * The `contract_address` of market `marketId`: "0x" and 40 lowercase hex digits, a pure function of the
 * id, so the journal fixes it and replay gives the same. Five 32-bit words: word i mixes the id's low and
 * high 32-bit halves with the word's index (a different odd constant per word) through `mix32` twice.
 * It is a platform identifier, not an on-chain address. Distinct ids give distinct addresses: word 0 is a
 * bijection of the low half when the high half is 0 (ids below 2^32), which the tests check on a range.
 */
export function marketAddress(marketId: number): string {
  const low = marketId >>> 0;
  const high = Math.floor(marketId / 4_294_967_296) >>> 0;
  let text = '0x';
  for (let word = 0; word < 5; word++) {
    const salted = mix32((low ^ Math.imul(word + 1, 0x9e3779b9)) >>> 0);
    const value = mix32((salted ^ mix32(high + word)) >>> 0);
    text += value.toString(16).padStart(8, '0');
  }
  return text;
}

/** Whether `value` has the shape of a market address. */
export function isMarketAddress(value: string): boolean {
  return /^0x[0-9a-f]{40}$/.test(value);
}
