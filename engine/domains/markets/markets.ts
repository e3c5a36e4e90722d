/**
 * Prediction markets in the engine: markets over 2 to 20 priced assets, one binary book per asset, the
 * winner-takes-all pool, and the journaled timers that activate and settle them (README "Prediction
 * markets" has the rules and payloads).
 *
 * Money: the module moves funds only through the port's ledger. One escrow account (domainUserId(2, 0),
 * live mode) holds the collateral of every open share; one pool account (domainUserId(2, 1)) holds the
 * stakes of a market being resolved for the instant of its payout. Per (market, asset) the escrow holds
 * exactly 1000 ticks × atomsPerTickLot for each open pair of a YES lot (long) and a NO lot (short), which
 * is asserted after every fill and drained to zero at settlement.
 *
 * Books: the core's book (FastBook, or the ReferenceBook in tests) over this module's own order slots;
 * a book's account of an order is the owner's ledger account, so self-trade prevention compares owners.
 */
import { assert } from '../../core/assert.ts';
import type { Book, BookFactory, MatchHandler } from '../../core/book/book.ts';
import { FastBookFactory } from '../../core/book/fast-book.ts';
import { SelfTradePrevention, type Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { noAccount } from '../../core/ledger.ts';
import { bpsDenominator, domainUserId, isDomainUserId, userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';
import { Prices } from '../prices/prices.ts';
import { isPriceSymbol } from '../prices/commands.ts';
import {
  CancelReason,
  MarketStatus,
  MarketsCommandType,
  MarketsEventType,
  MarketsResult,
  betTokensMax,
  marketAddress,
  marketAssetsMax,
  marketAssetsMin,
  marketDescriptionCharsMax,
  marketDurationMsMax,
  marketNameCharsMax,
  marketStartLeadMsMax,
  marketsDomainId,
  marketsMax,
  openOrdersPerUserPerMarketMax,
  orderLotsMax,
  priceLevelsPerSideMax,
  priceTicksMax,
  priceTicksMin,
  restingOrdersPerBookMax,
  stakesPerMarketMax,
  ticksPerShare,
  tokenDecimalsMax,
  tokenDecimalsMin,
  type AssetType,
  type BetPayout,
  type BetPlaced,
  type CancelMarketOrder,
  type CreateMarket,
  type MarketActivated,
  type MarketCompleted,
  type MarketCreated,
  type MarketOrderAccepted,
  type MarketOrderCancelled,
  type MarketOrderRested,
  type MarketTradeExecuted,
  type PlaceBet,
  type PlaceMarketOrder,
  type PositionPayout,
} from './commands.ts';

/** Live mode: markets, their orders and bets are live only in this version. */
const live = 0;
/** The ledger's fee account of live mode (user 0). */
const feeUserId = 0;
export const escrowUserId = domainUserId(marketsDomainId, 0);
export const poolUserId = domainUserId(marketsDomainId, 1);

/**
 * The fee on a notional at the engine's taker rate (port.settings), rounded up to the atom. The product of
 * a notional and a rate of up to 10 000 bps can pass 2^53, so it is taken exactly in bigint.
 */
export function takerFee(notionalAtoms: number, takerFeeBps: number): number {
  const product = BigInt(notionalAtoms) * BigInt(takerFeeBps);
  const denominator = BigInt(bpsDenominator);
  return Number((product + denominator - 1n) / denominator);
}

/** One user's gross positions in one market, per asset index. */
export class Position {
  readonly long: number[];
  readonly short: number[];
  /** YES lots that resting sells have reserved as covered (never more than `long`). */
  readonly reservedLong: number[];

  constructor(assets: number) {
    this.long = new Array<number>(assets).fill(0);
    this.short = new Array<number>(assets).fill(0);
    this.reservedLong = new Array<number>(assets).fill(0);
  }
}

export class MarketOrder {
  slot = -1;
  /** Fee on the cumulative notional this order took as a taker, and that notional. */
  takerNotionalAtoms = 0;
  feePaidAtoms = 0;

  constructor(
    readonly orderId: number,
    readonly userId: number,
    readonly account: number,
    readonly marketId: number,
    readonly assetIndex: number,
    readonly side: number,
    readonly priceTicks: number,
    public remainingLots: number,
    /** Lots of a sell still covered by reserved YES shares. */
    public coveredLots: number,
    /** Atoms held for this order, fee cap excluded once it rests. */
    public heldAtoms: number,
  ) {}
}

export interface Stake {
  readonly userId: number;
  readonly assetIndex: number;
  amountAtoms: number;
}

export class Market {
  status: MarketStatus = MarketStatus.pending;
  startPricesE8: number[] = [];
  endPricesE8: number[] = [];
  winners: number[] = [];
  /** The settlement's results (kept so that results stay readable after a restart from a snapshot). */
  completion: MarketCompleted | null = null;
  readonly books: Book[];
  /** Escrowed atoms and open YES (long) and NO (short) lots per asset. */
  readonly escrowAtoms: number[];
  readonly longLots: number[];
  readonly shortLots: number[];
  readonly positions = new Map<number, Position>();
  /** Stakes by userId × 32 + asset index, in the order they were first placed. */
  readonly stakes = new Map<number, Stake>();
  poolAtoms = 0;
  readonly openOrders = new Map<number, number>();

  constructor(
    readonly id: number,
    readonly creatorUserId: number,
    readonly name: string,
    readonly description: string,
    readonly assets: readonly string[],
    readonly assetType: AssetType,
    readonly tokenAssetId: number,
    readonly tokenIndex: number,
    readonly atomsPerTickLot: number,
    readonly startMs: number,
    readonly endMs: number,
    readonly minBetAtoms: number,
    readonly maxBetAtoms: number,
    readonly createdMs: number,
    books: BookFactory,
  ) {
    this.books = assets.map(() => books.create(priceLevelsPerSideMax));
    this.escrowAtoms = assets.map(() => 0);
    this.longLots = assets.map(() => 0);
    this.shortLots = assets.map(() => 0);
  }

  get address(): string {
    return marketAddress(this.id);
  }

  position(userId: number): Position {
    let position = this.positions.get(userId);
    if (position === undefined) {
      position = new Position(this.assets.length);
      this.positions.set(userId, position);
    }
    return position;
  }
}

/** Snapshot rows (plain data). */
interface OrderRow {
  orderId: number;
  userId: number;
  side: number;
  priceTicks: number;
  remainingLots: number;
  coveredLots: number;
  heldAtoms: number;
}

interface MarketRow {
  id: number;
  creatorUserId: number;
  name: string;
  description: string;
  assets: string[];
  assetType: number;
  tokenAssetId: number;
  startMs: number;
  endMs: number;
  minBetAtoms: number;
  maxBetAtoms: number;
  createdMs: number;
  status: number;
  startPricesE8: number[];
  endPricesE8: number[];
  winners: number[];
  escrowAtoms: number[];
  longLots: number[];
  shortLots: number[];
  poolAtoms: number;
  positions: Array<[number, number[], number[], number[]]>;
  stakes: Array<[number, number, number]>;
  /** Per asset: bids then asks, each in priority order. */
  books: Array<{ bids: OrderRow[]; asks: OrderRow[] }>;
  completion: MarketCompleted | null;
}

export interface MarketsSnapshot {
  nextMarketId: number;
  nextOrderId: number;
  markets: MarketRow[];
}

export class MarketsModule implements DomainModule, MatchHandler {
  static readonly domainName = 'markets';
  readonly name = MarketsModule.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [MarketsCommandType.createMarket, MarketsCommandType.placeMarketOrder, MarketsCommandType.cancelMarketOrder, MarketsCommandType.placeBet];

  /** Every market by id, in id order (ids only grow). */
  private readonly markets = new Map<number, Market>();
  /** Markets not yet completed, in id order: the ones with timers. */
  private readonly open: Market[] = [];
  private nextMarketId = 1;
  private nextOrderId = 1;
  private readonly orders = new Map<number, MarketOrder>();
  private readonly slots: Array<MarketOrder | undefined> = [];
  private readonly freeSlots: number[] = [];
  private nextDueMs = noTimerMs;
  /** The taker being matched and its market (set for the duration of `match`). */
  private taker: MarketOrder | null = null;
  private takerMarket: Market | null = null;

  constructor(
    private readonly port: DomainPort,
    private readonly books: BookFactory = new FastBookFactory(),
  ) {}

  // Queries.

  market(id: number): Market | undefined {
    return this.markets.get(id);
  }

  marketCount(): number {
    return this.markets.size;
  }

  order(orderId: number): MarketOrder | undefined {
    return this.orders.get(orderId);
  }

  /** The escrow account's balance of a token (0 when the account was never opened). */
  escrowBalance(tokenIndex: number): number {
    const account = this.port.ledger.find(escrowUserId, live);
    return account === noAccount ? 0 : this.port.ledger.availableAtoms(account, tokenIndex) + this.port.ledger.heldAtoms(account, tokenIndex);
  }

  /** Checks the escrow identity of every open market; returns the first breach or null. */
  audit(): string | null {
    const byToken = new Map<number, number>();
    for (const market of this.open) {
      for (let asset = 0; asset < market.assets.length; asset++) {
        if (market.longLots[asset] !== market.shortLots[asset]) return `market ${market.id} asset ${asset}: long ${market.longLots[asset]} short ${market.shortLots[asset]}`;
        if (market.escrowAtoms[asset] !== market.longLots[asset]! * ticksPerShare * market.atomsPerTickLot) return `market ${market.id} asset ${asset}: escrow ${market.escrowAtoms[asset]}`;
        byToken.set(market.tokenIndex, (byToken.get(market.tokenIndex) ?? 0) + market.escrowAtoms[asset]!);
      }
    }
    for (const [token, atoms] of byToken) if (this.escrowBalance(token) !== atoms) return `escrow of token ${token}: ${this.escrowBalance(token)} but markets hold ${atoms}`;
    return null;
  }

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the markets module gets domain commands only');
    switch (command.type) {
      case MarketsCommandType.createMarket:
        return this.create(command.body as CreateMarket);
      case MarketsCommandType.placeMarketOrder:
        return this.place(command.body as PlaceMarketOrder);
      case MarketsCommandType.cancelMarketOrder:
        return this.cancel(command.body as CancelMarketOrder);
      case MarketsCommandType.placeBet:
        return this.bet(command.body as PlaceBet);
      default:
        return Result.unknownCommand;
    }
  }

  private prices(): Prices {
    const prices = this.port.domain(Prices.domainName);
    assert(prices instanceof Prices, 'the markets domain needs the prices domain listed before it');
    return prices;
  }

  private static validUser(userId: unknown): userId is number {
    return Number.isSafeInteger(userId) && (userId as number) >= 1 && (userId as number) <= userIdMax && !isDomainUserId(userId as number);
  }

  // CreateMarket.

  private create(body: CreateMarket): ResultCode {
    if (!MarketsModule.validUser(body.userId)) return MarketsResult.invalidUser;
    if (
      typeof body.name !== 'string' ||
      body.name.trim().length === 0 ||
      body.name.length > marketNameCharsMax ||
      typeof body.description !== 'string' ||
      body.description.length > marketDescriptionCharsMax ||
      !Array.isArray(body.assets) ||
      body.assets.length < marketAssetsMin ||
      body.assets.length > marketAssetsMax ||
      !body.assets.every((asset) => isPriceSymbol(asset)) ||
      new Set(body.assets).size !== body.assets.length ||
      (body.assetType !== 0 && body.assetType !== 1)
    ) {
      return MarketsResult.invalidMarket;
    }
    const prices = this.prices();
    if (!body.assets.every((asset) => prices.priceE8(asset) > 0)) return MarketsResult.assetNotPriced;
    const token = Number.isSafeInteger(body.tokenAssetId) ? this.port.markets.assetById(body.tokenAssetId) : undefined;
    if (token === undefined || token.decimals < tokenDecimalsMin || token.decimals > tokenDecimalsMax) return MarketsResult.invalidToken;
    const nowMs = this.port.commandTimeMs();
    if (
      !Number.isSafeInteger(body.startMs) ||
      !Number.isSafeInteger(body.endMs) ||
      body.startMs < nowMs ||
      body.startMs > nowMs + marketStartLeadMsMax ||
      body.endMs <= body.startMs ||
      body.endMs - body.startMs > marketDurationMsMax
    ) {
      return MarketsResult.invalidSchedule;
    }
    const betAtomsMax = betTokensMax * 10 ** token.decimals;
    if (
      !Number.isSafeInteger(body.minBetAtoms) ||
      !Number.isSafeInteger(body.maxBetAtoms) ||
      body.minBetAtoms < 1 ||
      body.minBetAtoms > body.maxBetAtoms ||
      body.maxBetAtoms > betAtomsMax
    ) {
      return MarketsResult.invalidBetBounds;
    }
    if (this.markets.size >= marketsMax) return MarketsResult.tooManyMarkets;

    const market = new Market(
      this.nextMarketId++,
      body.userId,
      body.name,
      body.description,
      [...body.assets],
      body.assetType,
      token.id,
      token.index,
      10 ** (token.decimals - tokenDecimalsMin),
      body.startMs,
      body.endMs,
      body.minBetAtoms,
      body.maxBetAtoms,
      nowMs,
      this.books,
    );
    this.markets.set(market.id, market);
    this.open.push(market);
    this.nextDueMs = Math.min(this.nextDueMs, market.startMs);
    const event: MarketCreated = {
      marketId: market.id,
      address: market.address,
      creatorUserId: market.creatorUserId,
      name: market.name,
      description: market.description,
      assets: [...market.assets],
      assetType: market.assetType,
      tokenAssetId: market.tokenAssetId,
      startMs: market.startMs,
      endMs: market.endMs,
      minBetAtoms: market.minBetAtoms,
      maxBetAtoms: market.maxBetAtoms,
      createdMs: nowMs,
    };
    this.port.emit(domainEvent(MarketsEventType.marketCreated, event));
    return Result.ok;
  }

  // PlaceMarketOrder.

  private place(body: PlaceMarketOrder): ResultCode {
    if (!MarketsModule.validUser(body.userId)) return MarketsResult.invalidUser;
    const market = Number.isSafeInteger(body.marketId) ? this.markets.get(body.marketId) : undefined;
    if (market === undefined) return MarketsResult.marketNotFound;
    if (market.status === MarketStatus.completed) return MarketsResult.marketCompleted;
    const assetIndex = market.assets.indexOf(body.asset);
    if (assetIndex < 0) return MarketsResult.assetNotInMarket;
    const { side, priceTicks, lots } = body;
    if (
      (side !== 0 && side !== 1) ||
      !Number.isSafeInteger(priceTicks) ||
      priceTicks < priceTicksMin ||
      priceTicks > priceTicksMax ||
      !Number.isSafeInteger(lots) ||
      lots < 1 ||
      lots > orderLotsMax
    ) {
      return MarketsResult.invalidOrder;
    }
    if ((market.openOrders.get(body.userId) ?? 0) >= openOrdersPerUserPerMarketMax) return MarketsResult.tooManyOpenOrders;
    const book = market.books[assetIndex]!;
    if (book.orderCount >= restingOrdersPerBookMax) return MarketsResult.bookFull;
    const levels = book.canRest(side, priceTicks);
    if (levels !== Result.ok) return levels;

    const ledger = this.port.ledger;
    const account = ledger.find(body.userId, live);
    const perLot = market.atomsPerTickLot;
    const position = market.positions.get(body.userId);
    const coveredLots = side === 1 && position !== undefined ? Math.min(lots, position.long[assetIndex]! - position.reservedLong[assetIndex]!) : 0;
    const collateralAtoms = side === 0 ? priceTicks * lots * perLot : (ticksPerShare - priceTicks) * (lots - coveredLots) * perLot;
    const feeCapAtoms = takerFee((side === 0 ? priceTicks : priceTicksMax) * lots * perLot, this.port.settings.takerFeeBps);
    const holdAtoms = collateralAtoms + feeCapAtoms;
    if (account === noAccount || ledger.availableAtoms(account, market.tokenIndex) < holdAtoms) return Result.insufficientBalance;
    const escrow = ledger.findOrOpen(escrowUserId, live);
    if (escrow === noAccount) return Result.tooManyAccounts;

    // Accepted: hold, reserve, match, then rest or end.
    ledger.hold(account, market.tokenIndex, holdAtoms);
    const order = new MarketOrder(this.nextOrderId++, body.userId, account, market.id, assetIndex, side, priceTicks, lots, coveredLots, holdAtoms);
    if (coveredLots > 0) market.position(body.userId).reservedLong[assetIndex]! += coveredLots;
    market.openOrders.set(body.userId, (market.openOrders.get(body.userId) ?? 0) + 1);
    const accepted: MarketOrderAccepted = { marketId: market.id, orderId: order.orderId, userId: order.userId, assetIndex, side, priceTicks, lots, coveredLots };
    this.port.emit(domainEvent(MarketsEventType.marketOrderAccepted, accepted));

    this.taker = order;
    this.takerMarket = market;
    book.match(side, priceTicks, lots, account, SelfTradePrevention.cancelTaker, this);
    this.taker = null;
    this.takerMarket = null;

    // The fee cap beyond what the fills charged is released: from here on the order can only be a maker.
    const unusedFee = feeCapAtoms - order.feePaidAtoms;
    if (unusedFee > 0) {
      ledger.release(account, market.tokenIndex, unusedFee);
      order.heldAtoms -= unusedFee;
    }
    if (order.remainingLots === 0) {
      this.endOrder(market, order);
    } else if (book.stoppedBySelfTrade) {
      this.cancelOrder(market, order, false, CancelReason.selfTrade);
    } else {
      this.rest(market, order);
    }
    return Result.ok;
  }

  private rest(market: Market, order: MarketOrder): void {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.slots.length;
      this.slots.push(undefined);
      this.books.ensureSlots(this.slots.length);
    }
    order.slot = slot;
    this.slots[slot] = order;
    this.orders.set(order.orderId, order);
    market.books[order.assetIndex]!.add(slot, order.account, order.side as 0 | 1, order.priceTicks, order.remainingLots);
    const rested: MarketOrderRested = {
      marketId: market.id,
      orderId: order.orderId,
      userId: order.userId,
      assetIndex: order.assetIndex,
      side: order.side,
      priceTicks: order.priceTicks,
      remainingLots: order.remainingLots,
    };
    this.port.emit(domainEvent(MarketsEventType.marketOrderRested, rested));
  }

  /** Forgets an order that holds nothing more (filled, or its remainder released). */
  private endOrder(market: Market, order: MarketOrder): void {
    assert(order.heldAtoms === 0 && order.coveredLots === 0, 'an ended order holds nothing');
    if (order.slot >= 0) {
      this.slots[order.slot] = undefined;
      this.freeSlots.push(order.slot);
      order.slot = -1;
      this.orders.delete(order.orderId);
    }
    const count = (market.openOrders.get(order.userId) ?? 0) - 1;
    assert(count >= 0, 'open order count below zero');
    if (count === 0) market.openOrders.delete(order.userId);
    else market.openOrders.set(order.userId, count);
  }

  /** Releases what an order still holds and reserves, takes it out of its book when resting, and ends it. */
  private cancelOrder(market: Market, order: MarketOrder, resting: boolean, reason: CancelReason): void {
    if (resting) market.books[order.assetIndex]!.remove(order.slot);
    if (order.heldAtoms > 0) this.port.ledger.release(order.account, market.tokenIndex, order.heldAtoms);
    order.heldAtoms = 0;
    if (order.coveredLots > 0) {
      const position = market.position(order.userId);
      position.reservedLong[order.assetIndex]! -= order.coveredLots;
      assert(position.reservedLong[order.assetIndex]! >= 0, 'reserved long below zero');
      order.coveredLots = 0;
    }
    const remainingLots = order.remainingLots;
    const cancelled: MarketOrderCancelled = {
      marketId: market.id,
      orderId: order.orderId,
      userId: order.userId,
      assetIndex: order.assetIndex,
      side: order.side,
      priceTicks: order.priceTicks,
      remainingLots,
      wasResting: resting,
      reason,
    };
    this.endOrder(market, order);
    this.port.emit(domainEvent(MarketsEventType.marketOrderCancelled, cancelled));
  }

  // Matching (MatchHandler): one fill between the taker and a maker at the maker's price.

  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    const taker = this.taker!;
    const market = this.takerMarket!;
    const maker = this.slots[makerSlot]!;
    const buyer = taker.side === 0 ? taker : maker;
    const seller = taker.side === 0 ? maker : taker;
    const ledger = this.port.ledger;
    const token = market.tokenIndex;
    const perLot = market.atomsPerTickLot;
    const asset = taker.assetIndex;
    const escrow = ledger.find(escrowUserId, live);
    const buyerPosition = market.position(buyer.userId);
    const sellerPosition = market.position(seller.userId);

    // The buyer first closes its NO lots, the seller first sells its covered YES lots; the rest opens.
    const buyerCloses = Math.min(lots, buyerPosition.short[asset]!);
    const buyerOpens = lots - buyerCloses;
    const sellerCovers = Math.min(lots, seller.coveredLots);
    const sellerOpens = lots - sellerCovers;

    // Pay-ins first (so the escrow never goes below zero mid-fill), each order's hold shrinking by its
    // per-lot hold at its own limit, the part beyond the maker-price cost released.
    const buyerHold = buyer.priceTicks * lots * perLot;
    const buyerPays = priceTicks * buyerOpens * perLot;
    ledger.payFromHeld(buyer.account, escrow, token, buyerPays);
    ledger.release(buyer.account, token, buyerHold - buyerPays);
    buyer.heldAtoms -= buyerHold;
    const sellerHold = (ticksPerShare - seller.priceTicks) * sellerOpens * perLot;
    const sellerPays = (ticksPerShare - priceTicks) * sellerOpens * perLot;
    ledger.payFromHeld(seller.account, escrow, token, sellerPays);
    ledger.release(seller.account, token, sellerHold - sellerPays);
    seller.heldAtoms -= sellerHold;

    // Pay-outs from the escrow: closed NO lots get 1000 − p, sold YES lots p.
    const buyerReceives = (ticksPerShare - priceTicks) * buyerCloses * perLot;
    const sellerReceives = priceTicks * sellerCovers * perLot;
    if (buyerReceives > 0) ledger.payFromAvailable(escrow, buyer.account, token, buyerReceives);
    if (sellerReceives > 0) ledger.payFromAvailable(escrow, seller.account, token, sellerReceives);

    buyerPosition.short[asset]! -= buyerCloses;
    buyerPosition.long[asset]! += buyerOpens;
    sellerPosition.long[asset]! -= sellerCovers;
    sellerPosition.reservedLong[asset]! -= sellerCovers;
    sellerPosition.short[asset]! += sellerOpens;
    seller.coveredLots -= sellerCovers;
    market.longLots[asset]! += buyerOpens - sellerCovers;
    market.shortLots[asset]! += sellerOpens - buyerCloses;
    market.escrowAtoms[asset]! += buyerPays + sellerPays - buyerReceives - sellerReceives;
    assert(market.longLots[asset] === market.shortLots[asset], 'open YES and NO lots differ');
    assert(market.escrowAtoms[asset] === market.longLots[asset]! * ticksPerShare * perLot, 'escrow is not 1000 × open shares');
    assert(sellerPosition.reservedLong[asset]! <= sellerPosition.long[asset]! && sellerPosition.reservedLong[asset]! >= 0, 'reservation beyond YES lots');

    // The taker's fee on its cumulative notional, out of the fee cap it holds.
    taker.takerNotionalAtoms += priceTicks * lots * perLot;
    const fee = takerFee(taker.takerNotionalAtoms, this.port.settings.takerFeeBps) - taker.feePaidAtoms;
    if (fee > 0) {
      ledger.payFromHeld(taker.account, ledger.find(feeUserId, live), token, fee);
      taker.feePaidAtoms += fee;
      taker.heldAtoms -= fee;
    }
    taker.remainingLots -= lots;
    maker.remainingLots = makerRemainingLots;

    const trade: MarketTradeExecuted = {
      marketId: market.id,
      assetIndex: asset,
      priceTicks,
      lots,
      takerSide: taker.side,
      makerOrderId: maker.orderId,
      takerOrderId: taker.orderId,
      makerUserId: maker.userId,
      takerUserId: taker.userId,
      makerRemainingLots,
      takerFeeAtoms: fee,
    };
    this.port.emit(domainEvent(MarketsEventType.marketTradeExecuted, trade));
    if (makerRemainingLots === 0) this.endOrder(market, maker);
  }

  onSelfTradeMakerRemoved(): void {
    // Markets use cancel_taker only: the book never removes a maker for self-trade.
    assert(false, 'markets never cancel makers for self-trade');
  }

  // CancelMarketOrder.

  private cancel(body: CancelMarketOrder): ResultCode {
    if (!MarketsModule.validUser(body.userId)) return MarketsResult.invalidUser;
    const market = Number.isSafeInteger(body.marketId) ? this.markets.get(body.marketId) : undefined;
    if (market === undefined) return MarketsResult.marketNotFound;
    const order = Number.isSafeInteger(body.orderId) ? this.orders.get(body.orderId) : undefined;
    if (order === undefined || order.userId !== body.userId || order.marketId !== market.id) return MarketsResult.orderNotFound;
    this.cancelOrder(market, order, true, CancelReason.user);
    return Result.ok;
  }

  // PlaceBet.

  private bet(body: PlaceBet): ResultCode {
    if (!MarketsModule.validUser(body.userId)) return MarketsResult.invalidUser;
    const market = Number.isSafeInteger(body.marketId) ? this.markets.get(body.marketId) : undefined;
    if (market === undefined) return MarketsResult.marketNotFound;
    if (market.status === MarketStatus.completed) return MarketsResult.marketCompleted;
    const assetIndex = market.assets.indexOf(body.asset);
    if (assetIndex < 0) return MarketsResult.assetNotInMarket;
    const amount = body.amountAtoms;
    if (!Number.isSafeInteger(amount) || amount < market.minBetAtoms || amount > market.maxBetAtoms) return MarketsResult.betOutOfBounds;
    const key = body.userId * 32 + assetIndex;
    const stake = market.stakes.get(key);
    if (stake === undefined && market.stakes.size >= stakesPerMarketMax) return MarketsResult.tooManyStakes;
    const ledger = this.port.ledger;
    const account = ledger.find(body.userId, live);
    if (account === noAccount || ledger.availableAtoms(account, market.tokenIndex) < amount) return Result.insufficientBalance;
    if (ledger.findOrOpen(poolUserId, live) === noAccount) return Result.tooManyAccounts;

    ledger.hold(account, market.tokenIndex, amount);
    if (stake === undefined) market.stakes.set(key, { userId: body.userId, assetIndex, amountAtoms: amount });
    else stake.amountAtoms += amount;
    market.poolAtoms += amount;
    const placed: BetPlaced = { marketId: market.id, userId: body.userId, assetIndex, amountAtoms: amount };
    this.port.emit(domainEvent(MarketsEventType.betPlaced, placed));
    return Result.ok;
  }

  // Timers: a pending market activates at its start, an active one completes at its end.

  nextTimerMs(): number {
    return this.nextDueMs;
  }

  runTimers(nowMs: number): void {
    let completed = false;
    for (const market of this.open) {
      if (market.status === MarketStatus.pending && market.startMs <= nowMs) this.activate(market);
      if (market.status === MarketStatus.active && market.endMs <= nowMs) {
        this.complete(market);
        completed = true;
      }
    }
    if (completed) {
      let kept = 0;
      for (const market of this.open) if (market.status !== MarketStatus.completed) this.open[kept++] = market;
      this.open.length = kept;
    }
    this.recomputeDue();
  }

  private recomputeDue(): void {
    let due = noTimerMs;
    for (const market of this.open) due = Math.min(due, market.status === MarketStatus.pending ? market.startMs : market.endMs);
    this.nextDueMs = due;
  }

  private activate(market: Market): void {
    const prices = this.prices();
    market.startPricesE8 = market.assets.map((asset) => prices.priceE8(asset));
    assert(market.startPricesE8.every((price) => price > 0), 'a market asset lost its price');
    market.status = MarketStatus.active;
    const event: MarketActivated = { marketId: market.id, startPricesE8: [...market.startPricesE8] };
    this.port.emit(domainEvent(MarketsEventType.marketActivated, event));
  }

  private complete(market: Market): void {
    const ledger = this.port.ledger;
    const token = market.tokenIndex;
    // 1. Every resting order leaves its book, its holds and reservations released.
    for (const book of market.books) {
      const resting: number[] = [];
      book.visit(0, (slot) => resting.push(slot));
      book.visit(1, (slot) => resting.push(slot));
      for (const slot of resting) this.cancelOrder(market, this.slots[slot]!, true, CancelReason.settlement);
    }
    assert(market.openOrders.size === 0, 'orders left after settlement');

    // 2. End prices, exact changes and winners.
    const prices = this.prices();
    market.endPricesE8 = market.assets.map((asset) => prices.priceE8(asset));
    const starts = market.startPricesE8.map(BigInt);
    const ends = market.endPricesE8.map(BigInt);
    const count = market.assets.length;
    // change(a) > change(b)  ⇔  (end_a − start_a) × start_b > (end_b − start_b) × start_a (starts > 0).
    const compare = (a: number, b: number): number => {
      const left = (ends[a]! - starts[a]!) * starts[b]!;
      const right = (ends[b]! - starts[b]!) * starts[a]!;
      return left > right ? 1 : left < right ? -1 : 0;
    };
    const ranks = market.assets.map((_, a) => {
      let better = 0;
      for (let b = 0; b < count; b++) if (compare(b, a) > 0) better++;
      return better + 1;
    });
    market.winners = ranks.flatMap((rank, index) => (rank === 1 ? [index] : []));
    const winning = new Array<boolean>(count).fill(false);
    for (const index of market.winners) winning[index] = true;
    const changesE6 = market.assets.map((_, a) => Number(((ends[a]! - starts[a]!) * 1_000_000n) / starts[a]!));

    // 3. Positions: winning YES lots and losing NO lots each take a full share's collateral.
    const escrow = ledger.find(escrowUserId, live);
    const share = ticksPerShare * market.atomsPerTickLot;
    const positionPayouts: PositionPayout[] = [];
    const paidPerAsset = new Array<number>(count).fill(0);
    for (const [userId, position] of market.positions) {
      let lots = 0;
      for (let a = 0; a < count; a++) {
        const paying = winning[a] ? position.long[a]! : position.short[a]!;
        lots += paying;
        paidPerAsset[a]! += paying * share;
      }
      if (lots === 0) continue;
      const atoms = lots * share;
      ledger.payFromAvailable(escrow, ledger.find(userId, live), token, atoms);
      positionPayouts.push({ userId, lots, atoms });
    }
    for (let a = 0; a < count; a++) {
      assert(paidPerAsset[a] === market.escrowAtoms[a], 'settlement must drain the escrow of every asset exactly');
      market.escrowAtoms[a] = 0;
      market.longLots[a] = 0;
      market.shortLots[a] = 0;
    }
    market.positions.clear();

    // 4. The WTA pool: pro-rata to winning stakes, floored, the remainder to the fee account; nobody on a
    // winner: every stake is released.
    let winningStake = 0;
    for (const stake of market.stakes.values()) if (winning[stake.assetIndex]) winningStake += stake.amountAtoms;
    const betPayouts: BetPayout[] = [];
    let remainderAtoms = 0;
    const refunded = market.poolAtoms > 0 && winningStake === 0;
    if (refunded) {
      for (const stake of market.stakes.values()) {
        ledger.release(ledger.find(stake.userId, live), token, stake.amountAtoms);
        betPayouts.push({ userId: stake.userId, assetIndex: stake.assetIndex, stakeAtoms: stake.amountAtoms, payoutAtoms: stake.amountAtoms });
      }
    } else if (market.poolAtoms > 0) {
      const pool = ledger.find(poolUserId, live);
      for (const stake of market.stakes.values()) ledger.payFromHeld(ledger.find(stake.userId, live), pool, token, stake.amountAtoms);
      const poolBig = BigInt(market.poolAtoms);
      const winningBig = BigInt(winningStake);
      let paid = 0;
      for (const stake of market.stakes.values()) {
        const payout = winning[stake.assetIndex] ? Number((poolBig * BigInt(stake.amountAtoms)) / winningBig) : 0;
        if (payout > 0) ledger.payFromAvailable(pool, ledger.find(stake.userId, live), token, payout);
        paid += payout;
        betPayouts.push({ userId: stake.userId, assetIndex: stake.assetIndex, stakeAtoms: stake.amountAtoms, payoutAtoms: payout });
      }
      remainderAtoms = market.poolAtoms - paid;
      assert(remainderAtoms >= 0, 'the pool paid more than it held');
      if (remainderAtoms > 0) ledger.payFromAvailable(pool, ledger.find(feeUserId, live), token, remainderAtoms);
      assert(ledger.availableAtoms(pool, token) === 0 && ledger.heldAtoms(pool, token) === 0, 'the pool must end empty');
    }
    market.stakes.clear();
    for (const book of market.books) assert(book.orderCount === 0, 'a book kept orders after settlement');

    market.status = MarketStatus.completed;
    market.completion = {
      marketId: market.id,
      endPricesE8: [...market.endPricesE8],
      changesE6,
      ranks,
      winners: [...market.winners],
      positionPayouts,
      poolAtoms: market.poolAtoms,
      remainderAtoms,
      refunded,
      betPayouts,
    };
    this.port.emit(domainEvent(MarketsEventType.marketCompleted, structuredCopy(market.completion)));
  }

  // Hash and snapshot: the hash walks exactly the snapshot's plain data.

  hash(hasher: StateHasher): void {
    const state = this.snapshot();
    if (state === null) return;
    hasher.number(-21);
    hashValue(hasher, state);
  }

  snapshot(): MarketsSnapshot | null {
    if (this.markets.size === 0) return null;
    const markets: MarketRow[] = [];
    for (const market of this.markets.values()) {
      const books = market.books.map((book) => {
        const rows = (side: 0 | 1): OrderRow[] => {
          const out: OrderRow[] = [];
          book.visit(side, (slot) => {
            const order = this.slots[slot]!;
            out.push({
              orderId: order.orderId,
              userId: order.userId,
              side: order.side,
              priceTicks: order.priceTicks,
              remainingLots: order.remainingLots,
              coveredLots: order.coveredLots,
              heldAtoms: order.heldAtoms,
            });
          });
          return out;
        };
        return { bids: rows(0), asks: rows(1) };
      });
      markets.push({
        id: market.id,
        creatorUserId: market.creatorUserId,
        name: market.name,
        description: market.description,
        assets: [...market.assets],
        assetType: market.assetType,
        tokenAssetId: market.tokenAssetId,
        startMs: market.startMs,
        endMs: market.endMs,
        minBetAtoms: market.minBetAtoms,
        maxBetAtoms: market.maxBetAtoms,
        createdMs: market.createdMs,
        status: market.status,
        startPricesE8: [...market.startPricesE8],
        endPricesE8: [...market.endPricesE8],
        winners: [...market.winners],
        escrowAtoms: [...market.escrowAtoms],
        longLots: [...market.longLots],
        shortLots: [...market.shortLots],
        poolAtoms: market.poolAtoms,
        positions: [...market.positions].map(([userId, position]) => [userId, [...position.long], [...position.short], [...position.reservedLong]]),
        stakes: [...market.stakes.values()].map((stake) => [stake.userId, stake.assetIndex, stake.amountAtoms]),
        books,
        completion: market.completion === null ? null : structuredCopy(market.completion),
      });
    }
    return { nextMarketId: this.nextMarketId, nextOrderId: this.nextOrderId, markets };
  }

  restore(state: unknown): void {
    assert(this.markets.size === 0, 'restore needs fresh markets');
    const data = state as Partial<MarketsSnapshot> | null;
    const fail = (what: string): never => {
      throw new Error(`markets snapshot: ${what}`);
    };
    if (data === null || typeof data !== 'object' || !Number.isSafeInteger(data.nextMarketId) || !Number.isSafeInteger(data.nextOrderId) || !Array.isArray(data.markets)) fail('malformed');
    if (data!.markets!.length > marketsMax) fail('too many markets');
    const ints = (value: unknown, length: number): number[] => {
      if (!Array.isArray(value) || value.length !== length || !value.every((item) => Number.isSafeInteger(item))) fail('malformed numbers');
      return value as number[];
    };
    this.nextMarketId = data!.nextMarketId!;
    this.nextOrderId = data!.nextOrderId!;
    for (const raw of data!.markets!) {
      const row = raw as Partial<MarketRow>;
      if (typeof row.name !== 'string' || typeof row.description !== 'string' || !Array.isArray(row.assets) || !row.assets.every(isPriceSymbol)) fail('malformed market');
      const count = row.assets!.length;
      const token = this.port.markets.assetById(row.tokenAssetId!);
      if (token === undefined) fail('unknown token');
      const scalars = [row.id, row.creatorUserId, row.assetType, row.startMs, row.endMs, row.minBetAtoms, row.maxBetAtoms, row.createdMs, row.status, row.poolAtoms];
      if (!scalars.every((value) => Number.isSafeInteger(value)) || this.markets.has(row.id!)) fail('malformed market fields');
      const market = new Market(
        row.id!,
        row.creatorUserId!,
        row.name!,
        row.description!,
        row.assets as string[],
        row.assetType as AssetType,
        token!.id,
        token!.index,
        10 ** (token!.decimals - tokenDecimalsMin),
        row.startMs!,
        row.endMs!,
        row.minBetAtoms!,
        row.maxBetAtoms!,
        row.createdMs!,
        this.books,
      );
      market.status = row.status as MarketStatus;
      market.startPricesE8 = [...ints(row.startPricesE8, market.status === MarketStatus.pending ? 0 : count)];
      market.endPricesE8 = [...ints(row.endPricesE8, market.status === MarketStatus.completed ? count : 0)];
      if (!Array.isArray(row.winners)) fail('malformed winners');
      market.winners = [...ints(row.winners, row.winners!.length)];
      const escrow = ints(row.escrowAtoms, count);
      const longs = ints(row.longLots, count);
      const shorts = ints(row.shortLots, count);
      for (let a = 0; a < count; a++) {
        market.escrowAtoms[a] = escrow[a]!;
        market.longLots[a] = longs[a]!;
        market.shortLots[a] = shorts[a]!;
      }
      market.poolAtoms = row.poolAtoms!;
      if (!Array.isArray(row.positions) || !Array.isArray(row.stakes) || !Array.isArray(row.books) || row.books.length !== count) fail('malformed market state');
      for (const [userId, long, short, reserved] of row.positions!) {
        const position = market.position(userId);
        const l = ints(long, count);
        const s = ints(short, count);
        const r = ints(reserved, count);
        for (let a = 0; a < count; a++) {
          position.long[a] = l[a]!;
          position.short[a] = s[a]!;
          position.reservedLong[a] = r[a]!;
        }
      }
      for (const stakeRow of row.stakes!) {
        const [userId, assetIndex, amountAtoms] = ints(stakeRow, 3);
        market.stakes.set(userId! * 32 + assetIndex!, { userId: userId!, assetIndex: assetIndex!, amountAtoms: amountAtoms! });
      }
      row.books!.forEach((bookRow, assetIndex) => {
        for (const side of [bookRow.bids, bookRow.asks]) {
          if (!Array.isArray(side)) fail('malformed book');
          for (const orderRow of side) {
            const [orderId, userId, orderSide, priceTicks, remainingLots, coveredLots, heldAtoms] = ints(
              [orderRow.orderId, orderRow.userId, orderRow.side, orderRow.priceTicks, orderRow.remainingLots, orderRow.coveredLots, orderRow.heldAtoms],
              7,
            );
            const account = this.port.ledger.find(userId!, live);
            if (account === noAccount) fail('an order of an unknown account');
            const order = new MarketOrder(orderId!, userId!, account, market.id, assetIndex, orderSide!, priceTicks!, remainingLots!, coveredLots!, heldAtoms!);
            market.openOrders.set(userId!, (market.openOrders.get(userId!) ?? 0) + 1);
            const slot = this.slots.length;
            this.slots.push(order);
            this.books.ensureSlots(this.slots.length);
            order.slot = slot;
            this.orders.set(order.orderId, order);
            market.books[assetIndex]!.add(slot, account, orderSide as 0 | 1, priceTicks!, remainingLots!);
          }
        }
      });
      if (market.status === MarketStatus.completed) {
        if (row.completion === null || typeof row.completion !== 'object') fail('a completed market without its results');
        market.completion = structuredCopy(row.completion!);
      }
      this.markets.set(market.id, market);
      if (market.status !== MarketStatus.completed) this.open.push(market);
    }
    this.recomputeDue();
  }
}

/** A deep copy of the results (plain data): events and snapshots never share objects with the state. */
function structuredCopy(completion: MarketCompleted): MarketCompleted {
  return {
    ...completion,
    endPricesE8: [...completion.endPricesE8],
    changesE6: [...completion.changesE6],
    ranks: [...completion.ranks],
    winners: [...completion.winners],
    positionPayouts: completion.positionPayouts.map((payout) => ({ ...payout })),
    betPayouts: completion.betPayouts.map((payout) => ({ ...payout })),
  };
}

/** Adds plain data (numbers, strings, booleans, arrays, objects in key order) to the hash. */
function hashValue(hasher: StateHasher, value: unknown): void {
  if (typeof value === 'number') {
    hasher.number(value);
  } else if (typeof value === 'string') {
    hasher.string(value);
  } else if (typeof value === 'boolean') {
    hasher.number(value ? 1 : 0);
  } else if (value === null) {
    hasher.number(-1);
  } else if (Array.isArray(value)) {
    hasher.number(value.length);
    for (const item of value) hashValue(hasher, item);
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    hasher.number(entries.length);
    for (const [key, item] of entries) {
      hasher.string(key);
      hashValue(hasher, item);
    }
  } else {
    assert(false, 'the markets state holds only plain data');
  }
}
