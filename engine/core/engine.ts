/**
 * The engine: a deterministic state machine over the ledger and the order books. `apply` takes one
 * command, validates everything it needs first, then mutates and emits events; it returns a result code.
 * Nothing here reads a clock, draws a random number, awaits or does I/O, so the same commands always give
 * the same events and the same state hash.
 *
 * Money rules (all integers):
 * - notional of a fill = price ticks × lots × pair.quoteAtomsPerTickLot (quote atoms);
 * - a buy holds holdPrice × remaining × k + the fee cap; a sell holds its base atoms;
 * - fees are charged on an order's cumulative notional, rounded up to the atom, so the total fee of an
 *   order is exactly ceil(notional × bps / 10 000) however many fills it takes; the taker and maker fee
 *   caps of a buy are held at placement and the unused part is released when the order ends;
 * - a buy that fills below its hold price gets the difference released at once.
 *
 * Hybrid liquidity: beside each live book, a VenueBook holds the levels outside venues (AMM pools) quote.
 * A taker takes price first; at one price the resting orders come before the venues' levels (and venues
 * among themselves by chain, then pool). A fill against a venue settles through the mode's venue account
 * and is reported as AmmFill. Paper orders match in their own book, whose virtual liquidity is the live
 * hybrid book read-only (VirtualLevels); a resting paper order fills when a live trade prints through its
 * price.
 *
 * Domains: command kinds the core does not handle go to the domain modules the options register (see
 * domain.ts); they place orders through `placeGroupOrder`, the same path a client's order takes. Timers of
 * the modules run on RunTimers commands, at journaled times. Scale orders (PlaceScale) are placed here,
 * in the core, because their all-or-nothing check needs the ledger, the books and the hybrid best price
 * that only the core sees.
 */
import { assert } from './assert.ts';
import { grownInt32 } from './typed-arrays.ts';
import { IntMap, missing } from './int-map.ts';
import {
  CommandKind,
  GroupKind,
  effectiveTimeInForce,
  Mode,
  OrderType,
  SelfTradePrevention,
  TimeInForce,
  type AmendOrder,
  type CancelAll,
  type CancelBatch,
  type CancelOrder,
  type Command,
  type Deposit,
  type DomainCommand,
  type ExpireVenues,
  type OpenPaperAccount,
  type OrderRequest,
  type PlaceBatch,
  type PlaceScale,
  type QuoteVenue,
  type Side,
  type Withdraw,
  type WithdrawTo,
} from './commands.ts';
import {
  AmmFill,
  BalanceChanged,
  BalanceReason,
  CancelReason,
  ExpireReason,
  FundsWithdrawn,
  OrderAccepted,
  OrderAmended,
  OrderCancelled,
  OrderExpired,
  OrderRejected,
  OrderRested,
  OrderStatus,
  ScalePlaced,
  StopTriggered,
  TradeExecuted,
  VenueExpired,
  VenueQuoted,
  Liquidity,
  liveBookVenueId,
  nullSink,
  type EngineEvent,
  type EventSink,
} from './events.ts';
import { Ledger, noAccount } from './ledger.ts';
import {
  bpsDenominator,
  defaultLimits,
  defaultSettings,
  paperFundingAssetsMax,
  safeIntegerMax,
  scaleOrdersMax,
  scaleOrdersMin,
  isDomainUserId,
  userIdMax,
  venueLevelsPerSideMax,
  venuePoolIdMax,
  venueUserId,
  venuesPerPairMax,
  withdrawAddressCharsMax,
  withdrawChainIdMax,
  withdrawReferenceCharsMax,
  type EngineLimits,
  type EngineSettings,
} from './limits.ts';
import { OrderStore, noSlot } from './order-store.ts';
import { Result, type ResultCode } from './results.ts';
import type { Markets, Pair } from './units.ts';
import { noPrice, type Book, type BookFactory, type MatchHandler } from './book/book.ts';
import { FastBookFactory } from './book/fast-book.ts';
import { SimHashDomain, simTxHash } from './sim-hash.ts';
import { VenueBook, type QuotedSide } from './venue-book.ts';
import { LiveVenueLevels, VirtualLevels } from './virtual-levels.ts';
import { OrderReport, noTimerMs, type DomainFactory, type DomainModule } from './domain.ts';
import type { DomainPort } from './port.ts';

/** What a taker takes outside liquidity from: a live venue view or a paper order's copy of the live book. */
type VirtualSource = LiveVenueLevels | VirtualLevels;

export interface EngineOptions {
  readonly markets: Markets;
  readonly limits?: Partial<EngineLimits>;
  readonly settings?: Partial<EngineSettings>;
  /** The book implementation; the fast book unless a test asks for the reference. */
  readonly books?: BookFactory;
  readonly sink?: EventSink;
  /** Makes the domain modules that handle the command kinds the core does not (engine/domains). */
  readonly domains?: DomainFactory;
}

/** One pair in one mode: its book, its last trade price and its untriggered stops. */
export class BookContext {
  /** Price of the last trade, or `noPrice` before the first. */
  lastPriceTicks = noPrice;
  /** Untriggered buy stops, sorted by stop price ascending then order id (trigger order). */
  readonly buyStops: number[] = [];
  /** Untriggered sell stops, sorted by stop price descending then order id (trigger order). */
  readonly sellStops: number[] = [];

  constructor(
    readonly index: number,
    readonly pair: Pair,
    readonly mode: Mode,
    readonly book: Book,
  ) {}
}

/** Fee owed when an order's cumulative notional grows from `before` to `before + notional`. */
export function feeIncrement(beforeAtoms: number, notionalAtoms: number, feeBps: number): number {
  return feeCap(beforeAtoms + notionalAtoms, feeBps) - feeCap(beforeAtoms, feeBps);
}

/** ceil(notional × bps / 10 000), computed without leaving the safe-integer range. */
export function feeCap(notionalAtoms: number, feeBps: number): number {
  const whole = Math.floor(notionalAtoms / bpsDenominator);
  const rest = notionalAtoms - whole * bpsDenominator;
  return whole * feeBps + Math.ceil((rest * feeBps) / bpsDenominator);
}

export class Engine implements MatchHandler, DomainPort {
  readonly markets: Markets;
  readonly limits: EngineLimits;
  readonly settings: EngineSettings;
  readonly ledger: Ledger;
  readonly orders: OrderStore;
  readonly contexts: BookContext[] = [];
  sink: EventSink;
  /** The last order id accepted or refused by id check; ids must increase. */
  lastOrderId = 0;
  lastTradeId = 0;
  /** The last scale id accepted; ids must increase. */
  lastScaleId = 0;
  /** Per-item results of the last batch command. */
  readonly batchResults: ResultCode[] = [];
  /** The domain modules, in registration order (the order their timers run and their state is hashed). */
  readonly domains: readonly DomainModule[];
  /** How the order placed by the last watching `placeGroupOrder` ended. */
  readonly orderReport = new OrderReport();

  private readonly books: BookFactory;
  private readonly slotByOrderId = new IntMap(1024);
  private readonly slotByClientOrderId = new Map<string, number>();
  private accountHead = new Int32Array(64).fill(noSlot);
  private accountTail = new Int32Array(64).fill(noSlot);
  private accountOpenOrders = new Int32Array(64);

  /** Called by the order store when it grows, so the books' per-slot arrays grow with it. */
  private readonly growSlots: (capacity: number) => void;
  /** Pairs by id, dense: a command's pair is found without hashing. */
  private readonly pairsById: Array<Pair | undefined> = [];

  // The taker being matched, read by onFill and onSelfTradeMakerRemoved.
  private takerSlot = noSlot;
  private takerContext!: BookContext;

  // One reusable object per event kind (see events.ts).
  private readonly accepted = new OrderAccepted();
  private readonly rested = new OrderRested();
  private readonly trade = new TradeExecuted();
  private readonly cancelled = new OrderCancelled();
  private readonly expired = new OrderExpired();
  private readonly triggered = new StopTriggered();
  private readonly amended = new OrderAmended();
  private readonly rejected = new OrderRejected();
  private readonly balanceChanged = new BalanceChanged();
  private readonly fundsWithdrawn = new FundsWithdrawn();
  private readonly ammFilled = new AmmFill();
  private readonly venueQuoted = new VenueQuoted();
  private readonly venueExpired = new VenueExpired();
  private readonly scalePlaced = new ScalePlaced();
  /** The parent of the order being placed, stamped on its OrderAccepted (see placeGroupOrder). */
  private placingGroupKind: GroupKind = GroupKind.none;
  private placingGroupId = 0;
  /** Domain modules by the core command kind they handle (the TWAP commands of format 4). */
  private readonly domainByKind: Array<DomainModule | undefined> = [];
  /** Domain modules by the domain command type they handle. */
  private readonly domainByType = new Map<number, DomainModule>();

  /**
   * Whether paper orders see the live hybrid book (its levels as their virtual liquidity, its trades
   * filling them). Always on for new commands; off only while replaying journals written before that rule
   * (journal/rules.ts).
   */
  paperSeesLiveBook = true;
  /** Outside venues' levels per pair index: the live hybrid book's virtual part. */
  readonly venues: VenueBook[] = [];
  /** The time of the command being applied (journaled): what venue freshness is judged against. */
  private nowMs = 0;
  private readonly liveVenueLevels = new LiveVenueLevels();
  private readonly paperVirtual = new VirtualLevels();
  /** Live trades of the command being applied, for resting paper orders: pair index, price, lots. */
  private readonly printPairs: number[] = [];
  private readonly printPrices: number[] = [];
  private readonly printLots: number[] = [];
  /** Fills of resting paper orders by live prints come through this handler (no taker order of ours). */
  private readonly paperPrints: MatchHandler = {
    onFill: (makerSlot, priceTicks, lots, makerRemainingLots) => this.onPaperPrintFill(makerSlot, priceTicks, lots, makerRemainingLots),
    onSelfTradeMakerRemoved: () => assert(false, 'a live print has no account of its own'),
  };

  constructor(options: EngineOptions) {
    this.markets = options.markets;
    this.limits = { ...defaultLimits, ...options.limits };
    this.settings = { ...defaultSettings, ...options.settings };
    assert(this.settings.takerFeeBps >= 0 && this.settings.takerFeeBps <= bpsDenominator, 'taker fee out of range');
    assert(this.settings.makerFeeBps >= 0 && this.settings.makerFeeBps <= bpsDenominator, 'maker fee out of range');
    assert(this.settings.marketBandBps >= 0 && this.settings.marketBandBps < bpsDenominator, 'band out of range');
    this.sink = options.sink ?? nullSink;
    this.books = options.books ?? new FastBookFactory();
    const books = this.books;
    this.growSlots = (capacity) => books.ensureSlots(capacity);
    for (const pair of this.markets.pairs) {
      assert(pair.id < 65_536, 'pair ids are small integers');
      while (this.pairsById.length <= pair.id) this.pairsById.push(undefined);
      this.pairsById[pair.id] = pair;
    }
    this.ledger = new Ledger(this.markets.assets.length, this.limits.accountsMax);
    this.orders = new OrderStore(this.limits.ordersMax);
    for (const pair of this.markets.pairs) {
      for (const mode of [0, 1] as const) {
        const index = pair.index * 2 + mode;
        this.contexts[index] = new BookContext(index, pair, mode, this.books.create(this.limits.priceLevelsPerSideMax));
      }
      this.venues[pair.index] = new VenueBook();
    }
    this.domains = options.domains?.(this) ?? [];
    for (const domain of this.domains) {
      for (const kind of domain.commandKinds) {
        assert(this.domainByKind[kind] === undefined, `two domains handle command kind ${kind}`);
        while (this.domainByKind.length <= kind) this.domainByKind.push(undefined);
        this.domainByKind[kind] = domain;
      }
      for (const type of domain.commandTypes) {
        assert(!this.domainByType.has(type), `two domains handle command type ${type}`);
        this.domainByType.set(type, domain);
      }
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Commands

  apply(command: Command): ResultCode {
    this.nowMs = command.ts;
    const result = this.dispatch(command);
    // Trades only happen in accepted commands; resting paper orders see this command's live prints now.
    if (this.printPairs.length > 0) this.fillPaperOnPrints();
    return result;
  }

  private dispatch(command: Command): ResultCode {
    switch (command.kind) {
      case CommandKind.placeOrder:
        return this.placeOrder(command);
      case CommandKind.cancelOrder:
        return this.cancelOrder(command);
      case CommandKind.cancelAll:
        return this.cancelAll(command);
      case CommandKind.amendOrder:
        return this.amendOrder(command);
      case CommandKind.deposit:
        return this.deposit(command);
      case CommandKind.withdraw:
        return this.withdraw(command);
      case CommandKind.placeBatch:
        return this.placeBatch(command);
      case CommandKind.cancelBatch:
        return this.cancelBatch(command);
      case CommandKind.withdrawTo:
        return this.withdrawTo(command);
      case CommandKind.quoteVenue:
        return this.quoteVenue(command);
      case CommandKind.openPaperAccount:
        return this.openPaperAccount(command);
      case CommandKind.expireVenues:
        return this.expireVenues(command);
      case CommandKind.runTimers:
        return this.runTimers();
      case CommandKind.placeScale:
        return this.placeScale(command);
      case CommandKind.startTwap:
      case CommandKind.cancelTwap:
        return this.applyDomain(command);
      case CommandKind.domain:
        return this.applyDomainCommand(command);
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Domains

  /** Hands a command to the module registered for its kind; an engine without one refuses it. */
  private applyDomain(command: Command): ResultCode {
    const domain = this.domainByKind[command.kind];
    return domain === undefined ? Result.unknownCommand : domain.apply(command);
  }

  /** Hands a domain command to the module registered for its type; an engine without one refuses it. */
  private applyDomainCommand(command: DomainCommand): ResultCode {
    const domain = this.domainByType.get(command.type);
    return domain === undefined ? Result.unknownCommand : domain.apply(command);
  }

  // The port (port.ts): what domain modules may ask of the core.

  commandTimeMs(): number {
    return this.nowMs;
  }

  nextOrderId(): number {
    return this.lastOrderId + 1;
  }

  emit(event: EngineEvent): void {
    this.sink.onEvent(event);
  }

  domain(name: string): DomainModule | undefined {
    return this.domains.find((domain) => domain.name === name);
  }

  /** Runs the timers of every module that has one due now; refused when none is due (nothing to journal). */
  private runTimers(): ResultCode {
    let ran = false;
    for (const domain of this.domains) {
      if (domain.nextTimerMs() > this.nowMs) continue;
      domain.runTimers(this.nowMs);
      ran = true;
    }
    return ran ? Result.ok : Result.nothingDue;
  }

  /** The journaled time at which the earliest timer of any module is due, or `noTimerMs` (a query). */
  nextTimerMs(): number {
    let earliest = noTimerMs;
    for (const domain of this.domains) earliest = Math.min(earliest, domain.nextTimerMs());
    return earliest;
  }

  /**
   * Places an order on behalf of a parent (a TWAP slice, a scale rung) through the same path as a client's
   * order; its OrderAccepted carries the parent. With `watch`, `orderReport` tells afterwards how the order
   * ended, for orders that end within the call (immediate-or-cancel and market orders always do).
   */
  placeGroupOrder(request: OrderRequest, groupKind: GroupKind, groupId: number, watch: boolean): ResultCode {
    this.placingGroupKind = groupKind;
    this.placingGroupId = groupId;
    if (watch) this.orderReport.watch(request.orderId);
    const result = this.placeOrder(request);
    this.placingGroupKind = GroupKind.none;
    this.placingGroupId = 0;
    if (watch) {
      assert(result !== Result.ok || this.orderReport.ended, 'a watched order ended within its placement');
      this.orderReport.orderId = 0;
    }
    return result;
  }

  // -------------------------------------------------------------------------------------------------
  // Scale orders

  /**
   * A ladder of resting limit orders, all or nothing: every check a placement makes is made first for all
   * of them together (their holds added up against the available balance; room for all of them in the
   * account, the store, the book and its levels), and none may take liquidity from the hybrid book, so
   * that placing them one by one afterwards cannot trade or fail halfway.
   */
  private placeScale(command: PlaceScale): ResultCode {
    const orders = command.orders;
    if (!Number.isSafeInteger(command.scaleId) || command.scaleId <= this.lastScaleId) return Result.scaleIdNotIncreasing;
    if (!Array.isArray(orders) || orders.length < scaleOrdersMin || orders.length > scaleOrdersMax) return Result.invalidScale;
    const first = orders[0]!;
    if (!validUser(first.userId)) return Result.invalidUser;
    if (first.mode !== 0 && first.mode !== 1) return Result.invalidMode;
    const pair = Number.isInteger(first.pairId) ? this.pairsById[first.pairId] : undefined;
    if (pair === undefined) return Result.unknownPair;
    const side = first.side;
    if (side !== 0 && side !== 1) return Result.invalidSide;
    const stp = first.selfTradePrevention;
    if (!(stp >= 0 && stp <= 3 && Number.isInteger(stp))) return Result.invalidSelfTradePrevention;
    let previousOrderId = this.lastOrderId;
    for (let index = 0; index < orders.length; index++) {
      const order = orders[index]!;
      if (order.userId !== first.userId || order.mode !== first.mode || order.pairId !== first.pairId || order.side !== side) return Result.invalidScale;
      if (order.selfTradePrevention !== stp || order.orderType !== OrderType.limit || order.timeInForce !== TimeInForce.gtc) return Result.invalidScale;
      if (order.postOnly !== false || order.clientOrderId !== '' || order.stopPriceTicks !== 0) return Result.invalidScale;
      if (!Number.isSafeInteger(order.orderId) || order.orderId <= previousOrderId) return Result.orderIdNotIncreasing;
      previousOrderId = order.orderId;
      if (!Number.isSafeInteger(order.quantityLots) || order.quantityLots < 1 || order.quantityLots > pair.quantityLotsMax) return Result.quantityOutOfRange;
      if (!validTicks(order.priceTicks, pair)) return Result.priceOutOfRange;
      for (let other = 0; other < index; other++) if (orders[other]!.priceTicks === order.priceTicks) return Result.invalidScale;
    }

    const account = this.ledger.find(first.userId, first.mode);
    if (account === noAccount) return Result.insufficientBalance;
    const count = orders.length;
    if (this.accountOpenOrders[account]! + count > this.limits.openOrdersPerAccountMax) return Result.tooManyOpenOrders;
    if (this.orders.liveCount + count > this.limits.ordersMax) return Result.bookFull;
    const context = this.contexts[pair.index * 2 + first.mode]!;
    if (context.book.orderCount + count > this.limits.bookOrdersMax) return Result.bookFull;
    // Counted as if every rung opened a new level: exact enough for a bound that is far from a ladder's size.
    if (context.book.levelCount(side) + count > this.limits.priceLevelsPerSideMax) return Result.tooManyPriceLevels;
    // All rungs are on one side, so resting some cannot make another cross: each is checked against now.
    for (const order of orders) if (this.crosses(context, side, order.priceTicks)) return Result.scaleWouldTake;
    const heldAsset = side === 0 ? pair.quote.index : pair.base.index;
    const availableAtoms = this.ledger.availableAtoms(account, heldAsset);
    let heldAtoms = 0;
    for (const order of orders) {
      heldAtoms += side === 0 ? this.buyHold(pair, order.priceTicks, order.quantityLots) : order.quantityLots * pair.baseAtomsPerLot;
      if (heldAtoms > availableAtoms) return Result.insufficientBalance;
    }

    // Accept: every placement below passes the checks just made.
    this.lastScaleId = command.scaleId;
    const event = this.scalePlaced;
    event.scaleId = command.scaleId;
    event.pairId = pair.id;
    event.mode = first.mode;
    event.userId = first.userId;
    event.side = side;
    event.count = count;
    event.quantityLots = 0;
    for (const order of orders) event.quantityLots += order.quantityLots;
    this.sink.onEvent(event);
    for (const order of orders) {
      const result = this.placeGroupOrder(order, GroupKind.scale, command.scaleId, false);
      assert(result === Result.ok, 'a checked scale order was refused');
    }
    return Result.ok;
  }

  private deposit(command: Deposit): ResultCode {
    const asset = this.markets.assetById(command.assetId);
    if (!validUser(command.userId) && !isDomainUserId(command.userId)) return Result.invalidUser;
    if (command.mode !== 0 && command.mode !== 1) return Result.invalidMode;
    if (asset === undefined) return Result.unknownAsset;
    if (!Number.isSafeInteger(command.amountAtoms) || command.amountAtoms <= 0) return Result.invalidCommand;
    if (!this.ledger.canMint(asset.index, command.amountAtoms)) return Result.balanceLimit;
    const account = this.ledger.findOrOpen(command.userId, command.mode);
    if (account === noAccount) return Result.tooManyAccounts;
    this.ensureAccountLists(account);
    this.ledger.deposit(account, asset.index, command.amountAtoms);
    this.emitBalance(account, asset.index, asset.id, BalanceReason.deposit, command.amountAtoms);
    return Result.ok;
  }

  private withdraw(command: Withdraw): ResultCode {
    const refusal = this.withdrawalRefusal(command.userId, command.mode, command.assetId, command.amountAtoms);
    if (refusal !== Result.ok) return refusal;
    this.debit(command.userId, command.mode, command.assetId, command.amountAtoms);
    return Result.ok;
  }

  /**
   * A withdrawal to an external address: the ledger moves as for a live Withdraw, then FundsWithdrawn
   * reports the destination and the reference. The destination is checked before the funds, as every
   * shape check comes before the balance check, so that a refusal names the first thing to fix.
   */
  private withdrawTo(command: WithdrawTo): ResultCode {
    if (!validChainId(command.chainId) || !validAddress(command.address)) return Result.invalidDestination;
    if (typeof command.reference !== 'string') return Result.invalidCommand;
    if (command.reference.length > withdrawReferenceCharsMax) return Result.referenceTooLong;
    const refusal = this.withdrawalRefusal(command.userId, Mode.live, command.assetId, command.amountAtoms);
    if (refusal !== Result.ok) return refusal;
    this.debit(command.userId, Mode.live, command.assetId, command.amountAtoms);
    const event = this.fundsWithdrawn;
    event.userId = command.userId;
    event.mode = Mode.live;
    event.assetId = command.assetId;
    event.amountAtoms = command.amountAtoms;
    event.chainId = command.chainId;
    event.address = command.address;
    event.reference = command.reference;
    this.sink.onEvent(event);
    return Result.ok;
  }

  /** Why a withdrawal of `amountAtoms` from (user, mode) cannot be made, or ok; changes nothing. */
  private withdrawalRefusal(userId: number, mode: Mode, assetId: number, amountAtoms: number): ResultCode {
    const asset = this.markets.assetById(assetId);
    if (!validUser(userId)) return Result.invalidUser;
    if (mode !== 0 && mode !== 1) return Result.invalidMode;
    if (asset === undefined) return Result.unknownAsset;
    if (!Number.isSafeInteger(amountAtoms) || amountAtoms <= 0) return Result.invalidCommand;
    const account = this.ledger.find(userId, mode);
    if (account === noAccount || this.ledger.availableAtoms(account, asset.index) < amountAtoms) {
      return Result.insufficientBalance;
    }
    return Result.ok;
  }

  /** Takes a withdrawal that `withdrawalRefusal` allowed out of the ledger and reports the new balance. */
  private debit(userId: number, mode: Mode, assetId: number, amountAtoms: number): void {
    const asset = this.markets.assetById(assetId);
    const account = this.ledger.find(userId, mode);
    assert(asset !== undefined, 'debit of an unknown asset');
    assert(account !== noAccount, 'debit of an unknown account');
    this.ledger.withdraw(account, asset.index, amountAtoms);
    this.emitBalance(account, asset.index, asset.id, BalanceReason.withdraw, -amountAtoms);
  }

  /**
   * Opens a paper account with its simulated starting balances. Refused when it is open already, so that
   * two first paper orders racing each other fund it once.
   */
  private openPaperAccount(command: OpenPaperAccount): ResultCode {
    if (!validUser(command.userId)) return Result.invalidUser;
    const { assetIds, amountsAtoms } = command;
    if (!Array.isArray(assetIds) || !Array.isArray(amountsAtoms) || assetIds.length !== amountsAtoms.length) return Result.invalidCommand;
    if (assetIds.length > paperFundingAssetsMax) return Result.invalidCommand;
    for (let index = 0; index < assetIds.length; index++) {
      const asset = this.markets.assetById(assetIds[index]!);
      if (asset === undefined) return Result.unknownAsset;
      const amount = amountsAtoms[index]!;
      if (!Number.isSafeInteger(amount) || amount <= 0) return Result.invalidCommand;
      if (assetIds.indexOf(assetIds[index]!) !== index) return Result.invalidCommand;
      if (!this.ledger.canMint(asset.index, amount)) return Result.balanceLimit;
    }
    if (this.ledger.find(command.userId, Mode.paper) !== noAccount) return Result.paperAccountExists;
    if (this.ledger.accountCount >= this.limits.accountsMax) return Result.tooManyAccounts;
    const account = this.ledger.findOrOpen(command.userId, Mode.paper);
    this.ensureAccountLists(account);
    for (let index = 0; index < assetIds.length; index++) {
      const asset = this.markets.assetById(assetIds[index]!)!;
      this.ledger.deposit(account, asset.index, amountsAtoms[index]!);
      this.emitBalance(account, asset.index, asset.id, BalanceReason.deposit, amountsAtoms[index]!);
    }
    return Result.ok;
  }

  // -------------------------------------------------------------------------------------------------
  // Venues (outside liquidity)

  /** Quote times at or before this are too old to stand behind a level (see EngineSettings.venueQuoteLifetimeMs). */
  private venueCutoffMs(): number {
    return this.nowMs - this.settings.venueQuoteLifetimeMs;
  }

  private quoteVenue(command: QuoteVenue): ResultCode {
    const pair = Number.isInteger(command.pairId) ? this.pairsById[command.pairId] : undefined;
    if (pair === undefined) return Result.unknownPair;
    if (!Number.isInteger(command.poolId) || command.poolId < 1 || command.poolId > venuePoolIdMax) return Result.invalidQuote;
    if (!validChainId(command.chainId)) return Result.invalidQuote;
    if (!Number.isSafeInteger(command.version) || command.version < 1) return Result.invalidQuote;
    if (!validQuotedSide(pair, 0, command.bidPriceTicks, command.bidLots)) return Result.invalidQuote;
    if (!validQuotedSide(pair, 1, command.askPriceTicks, command.askLots)) return Result.invalidQuote;
    if (command.bidPriceTicks.length > 0 && command.askPriceTicks.length > 0 && command.bidPriceTicks[0]! >= command.askPriceTicks[0]!) {
      return Result.invalidQuote;
    }
    const venues = this.venues[pair.index]!;
    const cutoffMs = this.venueCutoffMs();
    const existing = venues.quote(command.poolId);
    if (existing !== undefined && command.version <= existing.version) return Result.staleQuote;
    const freshExisting = existing !== undefined && existing.quotedAtMs > cutoffMs;
    if (!freshExisting && venues.freshPoolCount(cutoffMs) >= venuesPerPairMax) return Result.tooManyVenues;

    // Accepted: quiet venues go first, then this pool's levels replace its old ones.
    this.expireStaleVenues(cutoffMs);
    const bids: QuotedSide = { priceTicks: command.bidPriceTicks, lots: command.bidLots };
    const asks: QuotedSide = { priceTicks: command.askPriceTicks, lots: command.askLots };
    venues.replace(command.poolId, command.chainId, command.version, command.ts, bids, asks);
    // Venue levels are passive: none may cross the resting orders (takers would have met those first).
    const book = this.contexts[pair.index * 2]!.book;
    const bestAsk = book.bestPrice(1);
    const bestBid = book.bestPrice(0);
    if (bestAsk !== noPrice) venues.clipCrossing(0, command.poolId, bestAsk);
    if (bestBid !== noPrice) venues.clipCrossing(1, command.poolId, bestBid);
    const event = this.venueQuoted;
    event.pairId = pair.id;
    event.mode = Mode.live;
    event.poolId = command.poolId;
    event.chainId = command.chainId;
    event.version = command.version;
    venues.poolLevels(0, command.poolId, event.bidPriceTicks, event.bidLots);
    venues.poolLevels(1, command.poolId, event.askPriceTicks, event.askLots);
    this.sink.onEvent(event);
    return Result.ok;
  }

  private expireVenues(command: ExpireVenues): ResultCode {
    const cutoffMs = this.venueCutoffMs();
    if (!this.venues.some((venues) => venues.hasStale(cutoffMs))) return Result.nothingToExpire;
    this.expireStaleVenues(cutoffMs);
    return Result.ok;
  }

  /** Removes every venue quoted at or before `cutoffMs`, pair by pair, with a VenueExpired event each. */
  private expireStaleVenues(cutoffMs: number): void {
    for (const pair of this.markets.pairs) {
      const venues = this.venues[pair.index]!;
      if (!venues.hasStale(cutoffMs)) continue;
      venues.expire(cutoffMs, (poolId, chainId) => {
        const event = this.venueExpired;
        event.pairId = pair.id;
        event.mode = Mode.live;
        event.poolId = poolId;
        event.chainId = chainId;
        this.sink.onEvent(event);
      });
    }
  }

  private emitBalance(account: number, assetIndex: number, assetId: number, reason: BalanceReason, delta: number): void {
    const event = this.balanceChanged;
    event.userId = this.ledger.userOf(account);
    event.mode = this.ledger.modeOf(account);
    event.assetId = assetId;
    event.reason = reason;
    event.deltaAtoms = delta;
    event.availableAtoms = this.ledger.availableAtoms(account, assetIndex);
    event.heldAtoms = this.ledger.heldAtoms(account, assetIndex);
    this.sink.onEvent(event);
  }

  private placeBatch(command: PlaceBatch): ResultCode {
    this.batchResults.length = 0;
    if (command.orders.length === 0) return Result.batchEmpty;
    if (command.orders.length > this.limits.batchOrdersMax) return Result.batchTooLarge;
    for (const order of command.orders) this.batchResults.push(this.placeOrder(order));
    return Result.ok;
  }

  private cancelBatch(command: CancelBatch): ResultCode {
    this.batchResults.length = 0;
    if (command.orderIds.length === 0) return Result.batchEmpty;
    if (command.orderIds.length > this.limits.batchCancelMax) return Result.batchTooLarge;
    for (const orderId of command.orderIds) {
      this.batchResults.push(this.cancelById(command.userId, command.mode, orderId, '', CancelReason.user));
    }
    return Result.ok;
  }

  /** Places one order (alone or as a batch item). Refusals emit OrderRejected and change nothing else. */
  placeOrder(request: OrderRequest): ResultCode {
    const result = this.tryPlaceOrder(request);
    if (result !== Result.ok) {
      const event = this.rejected;
      event.orderId = request.orderId;
      event.userId = request.userId;
      event.pairId = request.pairId;
      event.mode = request.mode;
      event.result = result;
      this.sink.onEvent(event);
    }
    return result;
  }

  private tryPlaceOrder(request: OrderRequest): ResultCode {
    // Shape.
    if (!validUser(request.userId)) return Result.invalidUser;
    if (request.mode !== 0 && request.mode !== 1) return Result.invalidMode;
    const pair = Number.isInteger(request.pairId) ? this.pairsById[request.pairId] : undefined;
    if (pair === undefined) return Result.unknownPair;
    const side = request.side;
    if (side !== 0 && side !== 1) return Result.invalidSide;
    const orderType = request.orderType;
    if (!(orderType >= 0 && orderType <= 3 && Number.isInteger(orderType))) return Result.invalidOrderType;
    const isMarketKind = orderType === OrderType.market || orderType === OrderType.stopMarket;
    const isStop = orderType === OrderType.stopLimit || orderType === OrderType.stopMarket;
    if (!(request.timeInForce >= 0 && request.timeInForce <= 2 && Number.isInteger(request.timeInForce))) {
      return Result.invalidTimeInForce;
    }
    const stp = request.selfTradePrevention;
    if (!(stp >= 0 && stp <= 3 && Number.isInteger(stp))) return Result.invalidSelfTradePrevention;
    if (!Number.isSafeInteger(request.orderId) || request.orderId <= this.lastOrderId) return Result.orderIdNotIncreasing;

    // Numbers, on the pair's grid and within its maxima.
    const quantityLots = request.quantityLots;
    if (!Number.isSafeInteger(quantityLots) || quantityLots < 1 || quantityLots > pair.quantityLotsMax) {
      return Result.quantityOutOfRange;
    }
    let priceTicks = 0;
    if (!isMarketKind) {
      priceTicks = request.priceTicks;
      if (priceTicks === 0) return Result.priceRequired;
      if (!validTicks(priceTicks, pair)) return Result.priceOutOfRange;
    }
    let stopPriceTicks = 0;
    if (isStop) {
      stopPriceTicks = request.stopPriceTicks;
      if (stopPriceTicks === 0) return Result.stopPriceRequired;
      if (!validTicks(stopPriceTicks, pair)) return Result.priceOutOfRange;
    }
    // Post-only is only meaningful for a resting limit.
    const timeInForce = effectiveTimeInForce(orderType, request.timeInForce);
    if (request.postOnly && (orderType !== OrderType.limit || timeInForce !== TimeInForce.gtc)) {
      return Result.invalidOrderOptions;
    }

    // Account, identity and capacity.
    const account = this.ledger.find(request.userId, request.mode);
    const clientOrderId = request.clientOrderId;
    if (typeof clientOrderId !== 'string' || clientOrderId.length > this.limits.clientOrderIdLengthMax) {
      return Result.invalidClientOrderId;
    }
    if (account === noAccount) return Result.insufficientBalance;
    if (clientOrderId !== '' && this.slotByClientOrderId.has(clientKey(account, clientOrderId))) {
      return Result.duplicateClientOrderId;
    }
    if (this.accountOpenOrders[account]! >= this.limits.openOrdersPerAccountMax) return Result.tooManyOpenOrders;
    if (!this.orders.hasRoom()) return Result.bookFull;
    const context = this.contexts[pair.index * 2 + request.mode]!;
    const book = context.book;
    if (book.orderCount >= this.limits.bookOrdersMax) return Result.bookFull;
    if (isStop && context.buyStops.length + context.sellStops.length >= this.limits.stopOrdersPerBookMax) {
      return Result.tooManyStopOrders;
    }
    if (orderType === OrderType.limit && timeInForce === TimeInForce.gtc) {
      const restable = book.canRest(side, priceTicks);
      if (restable !== Result.ok) return restable;
    }
    if (request.postOnly && this.crosses(context, side, priceTicks)) return Result.postOnlyWouldTake;

    // Funds.
    let holdPriceTicks = priceTicks;
    if (side === 0 && isMarketKind) {
      const reference = orderType === OrderType.market ? this.hybridBest(context, 1) : stopPriceTicks;
      holdPriceTicks = reference === noPrice ? 0 : Math.min(this.buyBand(reference), pair.priceTicksMax);
    }
    const heldAtoms = side === 0 ? this.buyHold(pair, holdPriceTicks, quantityLots) : quantityLots * pair.baseAtomsPerLot;
    const heldAsset = side === 0 ? pair.quote.index : pair.base.index;
    if (this.ledger.availableAtoms(account, heldAsset) < heldAtoms) return Result.insufficientBalance;

    // Accept: from here on nothing is refused.
    this.lastOrderId = request.orderId;
    const slot = this.orders.allocate(this.growSlots);
    const store = this.orders;
    store.orderId[slot] = request.orderId;
    store.account[slot] = account;
    store.context[slot] = context.index;
    store.side[slot] = side;
    store.orderType[slot] = orderType;
    store.timeInForce[slot] = timeInForce;
    store.selfTradePrevention[slot] = stp;
    store.postOnly[slot] = request.postOnly ? 1 : 0;
    store.status[slot] = isStop ? OrderStatus.pending : OrderStatus.open;
    store.priceTicks[slot] = priceTicks;
    store.stopPriceTicks[slot] = stopPriceTicks;
    store.holdPriceTicks[slot] = holdPriceTicks;
    store.quantityLots[slot] = quantityLots;
    store.filledLots[slot] = 0;
    store.filledNotionalAtoms[slot] = 0;
    store.takerNotionalAtoms[slot] = 0;
    store.makerNotionalAtoms[slot] = 0;
    store.heldAtoms[slot] = heldAtoms;
    store.clientOrderId[slot] = clientOrderId;
    if (heldAtoms > 0) this.ledger.hold(account, heldAsset, heldAtoms);
    this.slotByOrderId.set(request.orderId, slot);
    if (clientOrderId !== '') this.slotByClientOrderId.set(clientKey(account, clientOrderId), slot);
    this.linkToAccount(account, slot);

    const event = this.accepted;
    event.orderId = request.orderId;
    event.userId = request.userId;
    event.mode = request.mode;
    event.pairId = pair.id;
    event.side = side;
    event.orderType = orderType;
    event.timeInForce = timeInForce;
    event.priceTicks = priceTicks;
    event.stopPriceTicks = stopPriceTicks;
    event.quantityLots = quantityLots;
    event.postOnly = request.postOnly;
    event.selfTradePrevention = stp;
    event.clientOrderId = clientOrderId;
    event.status = store.status[slot] as OrderStatus;
    event.heldAtoms = heldAtoms;
    event.groupKind = this.placingGroupKind;
    event.groupId = this.placingGroupId;
    this.sink.onEvent(event);

    if (isStop) {
      this.insertStop(context, slot);
    } else {
      this.execute(context, slot);
    }
    this.triggerStops(context);
    return Result.ok;
  }

  private cancelOrder(command: CancelOrder): ResultCode {
    return this.cancelById(command.userId, command.mode, command.orderId, command.clientOrderId, CancelReason.user);
  }

  private cancelById(userId: number, mode: Mode, orderId: number, clientOrderId: string, reason: CancelReason): ResultCode {
    const slot = this.ownedSlot(userId, mode, orderId, clientOrderId);
    if (slot === noSlot) return Result.orderNotFound;
    this.cancelSlot(slot, reason);
    return Result.ok;
  }

  private cancelAll(command: CancelAll): ResultCode {
    if (!validUser(command.userId)) return Result.invalidUser;
    if (command.mode !== 0 && command.mode !== 1) return Result.invalidMode;
    let contextIndex = -1;
    if (command.pairId !== 0) {
      const pair = this.markets.pairById(command.pairId);
      if (pair === undefined) return Result.unknownPair;
      contextIndex = pair.index * 2 + command.mode;
    }
    const account = this.ledger.find(command.userId, command.mode);
    if (account === noAccount) return Result.ok;
    let slot = this.accountHead[account]!;
    while (slot !== noSlot) {
      const next = this.orders.accountNext[slot]!;
      if (contextIndex === -1 || this.orders.context[slot] === contextIndex) this.cancelSlot(slot, CancelReason.cancelAll);
      slot = next;
    }
    return Result.ok;
  }

  private amendOrder(command: AmendOrder): ResultCode {
    const slot = this.ownedSlot(command.userId, command.mode, command.orderId, '');
    if (slot === noSlot) return Result.orderNotFound;
    const store = this.orders;
    const context = this.contexts[store.context[slot]!]!;
    const pair = context.pair;
    const book = context.book;
    const status = store.status[slot];
    if (status === OrderStatus.pending || store.priceTicks[slot] === 0 || store.timeInForce[slot] !== TimeInForce.gtc) {
      return Result.orderNotAmendable;
    }
    const priceTicks = store.priceTicks[slot]!;
    const quantityLots = store.quantityLots[slot]!;
    const filledLots = store.filledLots[slot]!;
    const newPriceTicks = command.priceTicks === 0 ? priceTicks : command.priceTicks;
    const newQuantityLots = command.quantityLots === 0 ? quantityLots : command.quantityLots;
    if (!validTicks(newPriceTicks, pair)) return Result.priceOutOfRange;
    if (!Number.isSafeInteger(newQuantityLots) || newQuantityLots <= filledLots || newQuantityLots > pair.quantityLotsMax) {
      return Result.quantityOutOfRange;
    }
    if (newPriceTicks === priceTicks && newQuantityLots === quantityLots) return Result.ok;
    const side = store.side[slot] as Side;
    const account = store.account[slot]!;
    const remainingLots = quantityLots - filledLots;
    const newRemainingLots = newQuantityLots - filledLots;
    const heldAsset = side === 0 ? pair.quote.index : pair.base.index;
    const event = this.amended;
    event.orderId = store.orderId[slot]!;
    event.pairId = pair.id;
    event.mode = context.mode;
    event.side = side;
    event.previousPriceTicks = priceTicks;
    event.previousRemainingLots = remainingLots;
    event.priceTicks = newPriceTicks;
    event.quantityLots = newQuantityLots;
    event.remainingLots = newRemainingLots;

    if (newPriceTicks === priceTicks && newQuantityLots < quantityLots) {
      // A reduction keeps priority; the hold shrinks by the reduced part at the order's price (fee cap kept).
      const releasedLots = remainingLots - newRemainingLots;
      const releasedAtoms = side === 0 ? priceTicks * releasedLots * pair.quoteAtomsPerTickLot : releasedLots * pair.baseAtomsPerLot;
      book.reduce(slot, newRemainingLots);
      store.quantityLots[slot] = newQuantityLots;
      store.heldAtoms[slot] = store.heldAtoms[slot]! - releasedAtoms;
      this.ledger.release(account, heldAsset, releasedAtoms);
      event.priorityKept = true;
      event.heldDeltaAtoms = -releasedAtoms;
      this.sink.onEvent(event);
      return Result.ok;
    }

    // A price change or an increase loses priority: the order leaves the book and re-enters as a taker.
    const newHeldAtoms = side === 0 ? this.buyHold(pair, newPriceTicks, newRemainingLots) : newRemainingLots * pair.baseAtomsPerLot;
    const deltaAtoms = newHeldAtoms - store.heldAtoms[slot]!;
    if (deltaAtoms > 0 && this.ledger.availableAtoms(account, heldAsset) < deltaAtoms) return Result.insufficientBalance;
    if (store.postOnly[slot] === 1 && this.crosses(context, side, newPriceTicks)) return Result.postOnlyWouldTake;
    if (newPriceTicks !== priceTicks) {
      const restable = book.canRest(side, newPriceTicks);
      if (restable !== Result.ok) return restable;
    }
    book.remove(slot);
    if (deltaAtoms > 0) this.ledger.hold(account, heldAsset, deltaAtoms);
    else if (deltaAtoms < 0) this.ledger.release(account, heldAsset, -deltaAtoms);
    store.priceTicks[slot] = newPriceTicks;
    store.holdPriceTicks[slot] = newPriceTicks;
    store.quantityLots[slot] = newQuantityLots;
    store.heldAtoms[slot] = newHeldAtoms;
    // Fees round up per price leg: the new hold carries a fresh fee cap for the new leg.
    store.takerNotionalAtoms[slot] = 0;
    store.makerNotionalAtoms[slot] = 0;
    event.priorityKept = false;
    event.heldDeltaAtoms = deltaAtoms;
    this.sink.onEvent(event);
    this.execute(context, slot);
    this.triggerStops(context);
    return Result.ok;
  }

  // -------------------------------------------------------------------------------------------------
  // Matching

  /**
   * Runs a live (non-pending) order as a taker, then rests, expires or cancels what is left. It takes price
   * first from its own book and the outside liquidity of its side (the live venues for a live order; the
   * live hybrid book, read-only, for a paper order); at one price the book's resting orders come first.
   */
  private execute(context: BookContext, slot: number): void {
    const store = this.orders;
    const book = context.book;
    const side = store.side[slot] as Side;
    const orderType = store.orderType[slot]!;
    const timeInForce = store.timeInForce[slot]!;
    const account = store.account[slot]!;
    const stp = store.selfTradePrevention[slot] as SelfTradePrevention;
    const wantedLots = store.quantityLots[slot]! - store.filledLots[slot]!;
    const opposite: Side = side === 0 ? 1 : 0;

    let limitPriceTicks: number;
    if (orderType === OrderType.market || orderType === OrderType.stopMarket) {
      const best = this.hybridBest(context, opposite);
      if (best === noPrice) {
        this.finishExpired(slot, ExpireReason.market);
        return;
      }
      limitPriceTicks = side === 0 ? Math.min(this.buyBand(best), store.holdPriceTicks[slot]!) : this.sellBand(best);
    } else {
      limitPriceTicks = store.priceTicks[slot]!;
    }
    const source = this.outsideSource(context, opposite, limitPriceTicks, wantedLots);
    if (timeInForce === TimeInForce.fok && this.fillableLots(book, source, side, limitPriceTicks, wantedLots, account, stp) < wantedLots) {
      this.finishExpired(slot, ExpireReason.fillOrKill);
      return;
    }

    this.takerSlot = slot;
    this.takerContext = context;
    let filledLots = 0;
    for (;;) {
      const outsidePrice = source === null ? noPrice : source.bestPrice();
      const outsideUsable = outsidePrice !== noPrice && (side === 0 ? outsidePrice <= limitPriceTicks : outsidePrice >= limitPriceTicks);
      // The book first, up to the outside's best price inclusive: at one price resting orders come first.
      filledLots += book.match(side, outsideUsable ? outsidePrice : limitPriceTicks, wantedLots - filledLots, account, stp, this);
      if (filledLots === wantedLots || book.stoppedBySelfTrade || !outsideUsable) break;
      filledLots += this.takeOutside(source!, outsidePrice, wantedLots - filledLots);
      if (filledLots === wantedLots) break;
    }
    this.takerSlot = noSlot;

    if (filledLots === wantedLots) {
      this.finishFilled(slot);
    } else if (book.stoppedBySelfTrade) {
      this.finishCancelled(slot, CancelReason.selfTrade);
    } else if (orderType === OrderType.market || orderType === OrderType.stopMarket) {
      this.finishExpired(slot, ExpireReason.market);
    } else if (timeInForce !== TimeInForce.gtc) {
      this.finishExpired(slot, timeInForce === TimeInForce.fok ? ExpireReason.fillOrKill : ExpireReason.immediateOrCancel);
    } else if (orderType === OrderType.stopLimit && (book.orderCount >= this.limits.bookOrdersMax || book.canRest(side, limitPriceTicks) !== Result.ok)) {
      // Limits and amends were checked for room before they changed anything; a stop-limit was accepted
      // while pending, and the book may have filled up since.
      this.finishExpired(slot, ExpireReason.immediateOrCancel);
    } else {
      const remainingLots = wantedLots - filledLots;
      book.add(slot, account, side, limitPriceTicks, remainingLots);
      const event = this.rested;
      event.orderId = store.orderId[slot]!;
      event.pairId = context.pair.id;
      event.mode = context.mode;
      event.side = side;
      event.priceTicks = limitPriceTicks;
      event.remainingLots = remainingLots;
      this.sink.onEvent(event);
    }
  }

  /**
   * The outside liquidity a taker of `context` takes from on `side` (the side it takes from): the live
   * venues' fresh levels for a live order; a copy of the live hybrid book up to the taker's limit and
   * size for a paper order; null when there is none.
   */
  private outsideSource(context: BookContext, side: Side, limitPriceTicks: number, wantedLots: number): VirtualSource | null {
    const cutoffMs = this.venueCutoffMs();
    const venues = this.venues[context.pair.index]!;
    if (context.mode === Mode.live) {
      if (venues.levelCount(side) === 0) return null;
      this.liveVenueLevels.reset(venues, side, cutoffMs);
      return this.liveVenueLevels;
    }
    if (!this.paperSeesLiveBook) return null;
    const liveBook = this.contexts[context.pair.index * 2]!.book;
    this.paperVirtual.load(side, limitPriceTicks, wantedLots, liveBook, venues, cutoffMs, this.limits.priceLevelsPerSideMax);
    return this.paperVirtual.bestPrice() === noPrice ? null : this.paperVirtual;
  }

  /** Best price on `side` of the context's book and its outside liquidity together, or `noPrice`. */
  private hybridBest(context: BookContext, side: Side): number {
    if (context.mode === Mode.paper && !this.paperSeesLiveBook) return context.book.bestPrice(side);
    const venuesBest = this.venues[context.pair.index]!.bestPrice(side, this.venueCutoffMs());
    let best = betterPrice(side, context.book.bestPrice(side), venuesBest);
    if (context.mode === Mode.paper) best = betterPrice(side, best, this.contexts[context.pair.index * 2]!.book.bestPrice(side));
    return best;
  }

  /**
   * What a taker would fill from its book and the outside source together (capped at `lots`), as the
   * match loop in `execute` would take it: at each outside price the book first, up to that price; a stop
   * by self-trade prevention in the book ends the count where it stands.
   */
  private fillableLots(book: Book, source: VirtualSource | null, side: Side, limitPriceTicks: number, lots: number, account: number, stp: SelfTradePrevention): number {
    let outsideLots = 0;
    let counted = -1;
    source?.forEachLevel((priceTicks, levelLots) => {
      if (side === 0 ? priceTicks > limitPriceTicks : priceTicks < limitPriceTicks) return false;
      const fromBook = book.fillableLots(side, priceTicks, lots, account, stp);
      if (book.fillStoppedBySelfTrade) {
        counted = fromBook + outsideLots;
        return false;
      }
      outsideLots += levelLots;
      if (fromBook + outsideLots >= lots) {
        counted = lots;
        return false;
      }
      return true;
    });
    if (counted >= 0) return Math.min(lots, counted);
    return Math.min(lots, book.fillableLots(side, limitPriceTicks, lots, account, stp) + outsideLots);
  }

  /** Takes the outside levels at exactly `priceTicks`, best first, up to `lots`; returns the lots taken. */
  private takeOutside(source: VirtualSource, priceTicks: number, lots: number): number {
    let taken = 0;
    while (taken < lots && source.bestPrice() === priceTicks) {
      const fill = Math.min(lots - taken, source.headLots());
      const venueId = source.headVenue();
      const chainId = source.headChain();
      source.consumeHead(fill);
      taken += fill;
      this.onOutsideFill(venueId, chainId, priceTicks, fill);
    }
    return taken;
  }

  /**
   * The current taker filled against outside liquidity at `priceTicks`: it pays (buys) or receives (sells)
   * the notional and the taker fee as against a maker, through the mode's venue account, which passes the
   * notional out to the venue and the base in from it (or the reverse) and ends every fill at zero.
   */
  private onOutsideFill(venueId: number, chainId: number, priceTicks: number, lots: number): void {
    const store = this.orders;
    const context = this.takerContext;
    const pair = context.pair;
    const slot = this.takerSlot;
    const side = store.side[slot] as Side;
    const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
    const feeAtoms = feeIncrement(store.takerNotionalAtoms[slot]!, notionalAtoms, this.settings.takerFeeBps);
    store.takerNotionalAtoms[slot] = store.takerNotionalAtoms[slot]! + notionalAtoms;
    this.settleOutside(pair, context.mode, slot, side, priceTicks, lots, notionalAtoms, feeAtoms);
    store.filledLots[slot] = store.filledLots[slot]! + lots;
    store.filledNotionalAtoms[slot] = store.filledNotionalAtoms[slot]! + notionalAtoms;
    store.status[slot] = OrderStatus.partiallyFilled;
    context.lastPriceTicks = priceTicks;
    if (context.mode === Mode.live) this.recordPrint(pair.index, priceTicks, lots);
    this.emitAmmFill(context, slot, Liquidity.taker, priceTicks, lots, notionalAtoms, feeAtoms, venueId, chainId);
  }

  /** The venue account of a mode, opened on first use (a transit account: every fill leaves it at zero). */
  private venueAccount(mode: Mode): number {
    const account = this.ledger.findOrOpen(venueUserId, mode);
    assert(account !== noAccount, 'no room for the venue account');
    this.ensureAccountLists(account);
    return account;
  }

  /**
   * Moves the money of an outside fill of our order in `slot`. A buy pays the notional and its fee from
   * its hold (price improvement released as against a maker) and gets the base; a sell pays the base from
   * its hold and gets the notional less its fee. The venue account passes the outgoing asset out of the
   * platform and the incoming one in (supply moves as by a withdrawal and a deposit).
   */
  private settleOutside(pair: Pair, mode: Mode, slot: number, side: Side, priceTicks: number, lots: number, notionalAtoms: number, feeAtoms: number): void {
    const store = this.orders;
    const ledger = this.ledger;
    const account = store.account[slot]!;
    const venue = this.venueAccount(mode);
    const quote = pair.quote.index;
    const base = pair.base.index;
    const baseAtoms = lots * pair.baseAtomsPerLot;
    if (side === 0) {
      const improvementAtoms = (store.holdPriceTicks[slot]! - priceTicks) * lots * pair.quoteAtomsPerTickLot;
      assert(improvementAtoms >= 0, 'buyer filled above its hold price');
      ledger.payFromHeld(account, venue, quote, notionalAtoms);
      ledger.payFromHeld(account, ledger.feeAccount(mode), quote, feeAtoms);
      if (improvementAtoms > 0) ledger.release(account, quote, improvementAtoms);
      ledger.withdraw(venue, quote, notionalAtoms);
      ledger.deposit(venue, base, baseAtoms);
      ledger.payFromAvailable(venue, account, base, baseAtoms);
      store.heldAtoms[slot] = store.heldAtoms[slot]! - notionalAtoms - feeAtoms - improvementAtoms;
    } else {
      ledger.payFromHeld(account, venue, base, baseAtoms);
      ledger.withdraw(venue, base, baseAtoms);
      ledger.deposit(venue, quote, notionalAtoms);
      ledger.payFromAvailable(venue, account, quote, notionalAtoms - feeAtoms);
      ledger.payFromAvailable(venue, ledger.feeAccount(mode), quote, feeAtoms);
      store.heldAtoms[slot] = store.heldAtoms[slot]! - baseAtoms;
    }
    assert(store.heldAtoms[slot]! >= 0, 'order hold went negative in an outside fill');
  }

  private emitAmmFill(context: BookContext, slot: number, liquidity: Liquidity, priceTicks: number, lots: number, notionalAtoms: number, feeAtoms: number, venueId: number, chainId: number): void {
    const store = this.orders;
    const event = this.ammFilled;
    event.tradeId = ++this.lastTradeId;
    event.pairId = context.pair.id;
    event.mode = context.mode;
    event.orderId = store.orderId[slot]!;
    event.userId = this.ledger.userOf(store.account[slot]!);
    event.side = store.side[slot] as Side;
    event.liquidity = liquidity;
    event.priceTicks = priceTicks;
    event.quantityLots = lots;
    event.notionalAtoms = notionalAtoms;
    event.feeAtoms = feeAtoms;
    event.remainingLots = store.quantityLots[slot]! - store.filledLots[slot]!;
    event.venueId = venueId;
    event.chainId = chainId;
    event.txHash = simTxHash(context.mode === Mode.live ? SimHashDomain.ammFill : SimHashDomain.paperFill, event.tradeId);
    this.sink.onEvent(event);
  }

  /** Notes a live trade of the command being applied, for the resting paper orders of its pair. */
  private recordPrint(pairIndex: number, priceTicks: number, lots: number): void {
    if (!this.paperSeesLiveBook) return;
    this.printPairs.push(pairIndex);
    this.printPrices.push(priceTicks);
    this.printLots.push(lots);
  }

  /**
   * Resting paper orders fill when a live trade prints through their price: for each live trade of the
   * command, in order, paper bids at or above its price and paper asks at or below it fill at their own
   * price (as makers), in price-time priority, up to the trade's quantity on each side. The paper book's
   * last price follows the live one, so paper stops trigger on live prints too.
   */
  private fillPaperOnPrints(): void {
    for (let index = 0; index < this.printPairs.length; index++) {
      const context = this.contexts[this.printPairs[index]! * 2 + 1]!;
      const priceTicks = this.printPrices[index]!;
      const lots = this.printLots[index]!;
      context.lastPriceTicks = priceTicks;
      this.takerContext = context;
      context.book.match(1, priceTicks, lots, noAccount, SelfTradePrevention.none, this.paperPrints);
      context.book.match(0, priceTicks, lots, noAccount, SelfTradePrevention.none, this.paperPrints);
      this.triggerStops(context);
    }
    this.printPairs.length = 0;
    this.printPrices.length = 0;
    this.printLots.length = 0;
  }

  /** A resting paper order filled by a live print, as a maker at its own price (see fillPaperOnPrints). */
  private onPaperPrintFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    const store = this.orders;
    const context = this.takerContext;
    const pair = context.pair;
    const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
    const feeAtoms = feeIncrement(store.makerNotionalAtoms[makerSlot]!, notionalAtoms, this.settings.makerFeeBps);
    store.makerNotionalAtoms[makerSlot] = store.makerNotionalAtoms[makerSlot]! + notionalAtoms;
    this.settleOutside(pair, context.mode, makerSlot, store.side[makerSlot] as Side, priceTicks, lots, notionalAtoms, feeAtoms);
    store.filledLots[makerSlot] = store.filledLots[makerSlot]! + lots;
    store.filledNotionalAtoms[makerSlot] = store.filledNotionalAtoms[makerSlot]! + notionalAtoms;
    store.status[makerSlot] = makerRemainingLots === 0 ? OrderStatus.filled : OrderStatus.partiallyFilled;
    this.emitAmmFill(context, makerSlot, Liquidity.maker, priceTicks, lots, notionalAtoms, feeAtoms, liveBookVenueId, 0);
    if (makerRemainingLots === 0) this.finishFilled(makerSlot);
  }

  /** MatchHandler: one fill between the current taker and a maker, settled at the maker's price. */
  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    const store = this.orders;
    const context = this.takerContext;
    const pair = context.pair;
    const takerSlot = this.takerSlot;
    const takerSide = store.side[takerSlot] as Side;
    const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
    const baseAtoms = lots * pair.baseAtomsPerLot;
    const takerFeeAtoms = feeIncrement(store.takerNotionalAtoms[takerSlot]!, notionalAtoms, this.settings.takerFeeBps);
    const makerFeeAtoms = feeIncrement(store.makerNotionalAtoms[makerSlot]!, notionalAtoms, this.settings.makerFeeBps);
    store.takerNotionalAtoms[takerSlot] = store.takerNotionalAtoms[takerSlot]! + notionalAtoms;
    store.makerNotionalAtoms[makerSlot] = store.makerNotionalAtoms[makerSlot]! + notionalAtoms;

    const buyer = takerSide === 0 ? takerSlot : makerSlot;
    const seller = takerSide === 0 ? makerSlot : takerSlot;
    const buyerFeeAtoms = takerSide === 0 ? takerFeeAtoms : makerFeeAtoms;
    const sellerFeeAtoms = takerSide === 0 ? makerFeeAtoms : takerFeeAtoms;
    this.settle(pair, context.mode, buyer, seller, priceTicks, lots, notionalAtoms, baseAtoms, buyerFeeAtoms, sellerFeeAtoms);

    store.filledLots[takerSlot] = store.filledLots[takerSlot]! + lots;
    store.filledNotionalAtoms[takerSlot] = store.filledNotionalAtoms[takerSlot]! + notionalAtoms;
    store.filledLots[makerSlot] = store.filledLots[makerSlot]! + lots;
    store.filledNotionalAtoms[makerSlot] = store.filledNotionalAtoms[makerSlot]! + notionalAtoms;
    store.status[makerSlot] = makerRemainingLots === 0 ? OrderStatus.filled : OrderStatus.partiallyFilled;
    store.status[takerSlot] = OrderStatus.partiallyFilled;
    context.lastPriceTicks = priceTicks;
    if (context.mode === Mode.live) this.recordPrint(pair.index, priceTicks, lots);

    const event = this.trade;
    event.tradeId = ++this.lastTradeId;
    event.pairId = pair.id;
    event.mode = context.mode;
    event.priceTicks = priceTicks;
    event.quantityLots = lots;
    event.notionalAtoms = notionalAtoms;
    event.takerSide = takerSide;
    event.takerOrderId = store.orderId[takerSlot]!;
    event.makerOrderId = store.orderId[makerSlot]!;
    event.takerUserId = this.ledger.userOf(store.account[takerSlot]!);
    event.makerUserId = this.ledger.userOf(store.account[makerSlot]!);
    event.takerFeeAtoms = takerFeeAtoms;
    event.makerFeeAtoms = makerFeeAtoms;
    event.takerRemainingLots = store.quantityLots[takerSlot]! - store.filledLots[takerSlot]!;
    event.makerRemainingLots = makerRemainingLots;
    this.sink.onEvent(event);

    if (makerRemainingLots === 0) this.finishFilled(makerSlot);
  }

  /**
   * Moves the money of one fill. Buyer: pays notional + fee from its hold, gets base, and has the price
   * improvement (hold price above the fill price) released. Seller: pays base from its hold, gets the
   * notional less its fee. The fee account of the mode gets both fees.
   */
  private settle(
    pair: Pair,
    mode: Mode,
    buyer: number,
    seller: number,
    priceTicks: number,
    lots: number,
    notionalAtoms: number,
    baseAtoms: number,
    buyerFeeAtoms: number,
    sellerFeeAtoms: number,
  ): void {
    const store = this.orders;
    const ledger = this.ledger;
    const buyerAccount = store.account[buyer]!;
    const sellerAccount = store.account[seller]!;
    const quote = pair.quote.index;
    const improvementAtoms = (store.holdPriceTicks[buyer]! - priceTicks) * lots * pair.quoteAtomsPerTickLot;
    assert(improvementAtoms >= 0, 'buyer filled above its hold price');
    ledger.payFromHeld(buyerAccount, sellerAccount, quote, notionalAtoms - sellerFeeAtoms);
    ledger.payFromHeld(buyerAccount, ledger.feeAccount(mode), quote, buyerFeeAtoms + sellerFeeAtoms);
    if (improvementAtoms > 0) ledger.release(buyerAccount, quote, improvementAtoms);
    ledger.payFromHeld(sellerAccount, buyerAccount, pair.base.index, baseAtoms);
    store.heldAtoms[buyer] = store.heldAtoms[buyer]! - notionalAtoms - buyerFeeAtoms - improvementAtoms;
    store.heldAtoms[seller] = store.heldAtoms[seller]! - baseAtoms;
    assert(store.heldAtoms[buyer]! >= 0, 'buyer order hold went negative');
    assert(store.heldAtoms[seller]! >= 0, 'seller order hold went negative');
  }

  /** MatchHandler: self-trade prevention took a maker of the taker's own account off the book. */
  onSelfTradeMakerRemoved(makerSlot: number): void {
    this.finishCancelled(makerSlot, CancelReason.selfTrade, true);
  }

  /** Whether an order at `priceTicks` would take liquidity now: the book's or the outside's (post-only). */
  private crosses(context: BookContext, side: Side, priceTicks: number): boolean {
    const best = this.hybridBest(context, side === 0 ? 1 : 0);
    if (best === noPrice) return false;
    return side === 0 ? best <= priceTicks : best >= priceTicks;
  }

  private buyBand(bestAskTicks: number): number {
    return Math.floor((bestAskTicks * (bpsDenominator + this.settings.marketBandBps)) / bpsDenominator);
  }

  private sellBand(bestBidTicks: number): number {
    return Math.max(1, Math.ceil((bestBidTicks * (bpsDenominator - this.settings.marketBandBps)) / bpsDenominator));
  }

  /** Quote atoms a buy of `lots` at `priceTicks` holds: the notional plus the taker and maker fee caps. */
  private buyHold(pair: Pair, priceTicks: number, lots: number): number {
    const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
    const hold = notionalAtoms + feeCap(notionalAtoms, this.settings.takerFeeBps) + feeCap(notionalAtoms, this.settings.makerFeeBps);
    assert(hold <= safeIntegerMax, 'buy hold beyond the safe range');
    return hold;
  }

  // -------------------------------------------------------------------------------------------------
  // Stops

  private insertStop(context: BookContext, slot: number): void {
    const store = this.orders;
    const buying = store.side[slot] === 0;
    const stops = buying ? context.buyStops : context.sellStops;
    const stopTicks = store.stopPriceTicks[slot]!;
    const orderId = store.orderId[slot]!;
    // Binary search for the first stop that triggers after this one.
    let low = 0;
    let high = stops.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const other = stops[middle]!;
      const otherTicks = store.stopPriceTicks[other]!;
      const after = otherTicks === stopTicks ? store.orderId[other]! > orderId : buying ? otherTicks > stopTicks : otherTicks < stopTicks;
      if (after) high = middle;
      else low = middle + 1;
    }
    stops.splice(low, 0, slot);
  }

  private removeStop(context: BookContext, slot: number): void {
    const stops = this.orders.side[slot] === 0 ? context.buyStops : context.sellStops;
    const index = stops.indexOf(slot);
    assert(index >= 0, 'pending stop not in its list');
    stops.splice(index, 1);
  }

  /**
   * Triggers every stop the last trade price has crossed (buy: last ≥ stop; sell: last ≤ stop), one at a
   * time: buys first in stop-price-then-id order, then sells; each triggered order may trade and move the
   * last price, so the lists are looked at again after each one. Each stop triggers at most once, so the
   * cascade ends.
   */
  private triggerStops(context: BookContext): void {
    const store = this.orders;
    for (;;) {
      const last = context.lastPriceTicks;
      if (last === noPrice) return;
      let slot = noSlot;
      const buy = context.buyStops[0];
      if (buy !== undefined && store.stopPriceTicks[buy]! <= last) {
        slot = buy;
        context.buyStops.shift();
      } else {
        const sell = context.sellStops[0];
        if (sell !== undefined && store.stopPriceTicks[sell]! >= last) {
          slot = sell;
          context.sellStops.shift();
        }
      }
      if (slot === noSlot) return;
      store.status[slot] = OrderStatus.open;
      const event = this.triggered;
      event.orderId = store.orderId[slot]!;
      event.pairId = context.pair.id;
      event.mode = context.mode;
      event.lastPriceTicks = last;
      this.sink.onEvent(event);
      this.execute(context, slot);
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Order endings

  private cancelSlot(slot: number, reason: CancelReason): void {
    const store = this.orders;
    const context = this.contexts[store.context[slot]!]!;
    const resting = store.status[slot] !== OrderStatus.pending;
    if (resting) context.book.remove(slot);
    else this.removeStop(context, slot);
    this.finishCancelled(slot, reason, resting);
  }

  private finishFilled(slot: number): void {
    this.orders.status[slot] = OrderStatus.filled;
    this.releaseHold(slot);
    this.forget(slot);
  }

  /** `resting`: the order was on the book until now (a resting order cancelled, not a taker's remainder). */
  private finishCancelled(slot: number, reason: CancelReason, resting = false): void {
    this.finishEnded(slot, this.cancelled, reason, resting);
  }

  private finishExpired(slot: number, reason: ExpireReason): void {
    this.finishEnded(slot, this.expired, reason, false);
  }

  /** Ends an order before it filled: releases its hold, reports how far it got, and forgets it. */
  private finishEnded(slot: number, event: OrderCancelled | OrderExpired, reason: CancelReason | ExpireReason, resting: boolean): void {
    const store = this.orders;
    const context = this.contexts[store.context[slot]!]!;
    const releasedAtoms = this.releaseHold(slot);
    event.orderId = store.orderId[slot]!;
    event.userId = this.ledger.userOf(store.account[slot]!);
    event.pairId = context.pair.id;
    event.mode = context.mode;
    event.side = store.side[slot] as Side;
    event.priceTicks = store.priceTicks[slot]!;
    event.resting = resting;
    event.reason = reason;
    event.filledLots = store.filledLots[slot]!;
    event.remainingLots = store.quantityLots[slot]! - event.filledLots;
    event.filledNotionalAtoms = store.filledNotionalAtoms[slot]!;
    event.releasedAtoms = releasedAtoms;
    this.sink.onEvent(event);
    this.forget(slot);
  }

  /** Releases whatever the order still holds (unused fee cap, unfilled part); returns the atoms released. */
  private releaseHold(slot: number): number {
    const store = this.orders;
    const heldAtoms = store.heldAtoms[slot]!;
    if (heldAtoms > 0) {
      const pair = this.contexts[store.context[slot]!]!.pair;
      const asset = store.side[slot] === 0 ? pair.quote.index : pair.base.index;
      this.ledger.release(store.account[slot]!, asset, heldAtoms);
      store.heldAtoms[slot] = 0;
    }
    return heldAtoms;
  }

  private forget(slot: number): void {
    const store = this.orders;
    const account = store.account[slot]!;
    const report = this.orderReport;
    if (store.orderId[slot] === report.orderId) {
      report.ended = true;
      report.filledLots = store.filledLots[slot]!;
      report.filledNotionalAtoms = store.filledNotionalAtoms[slot]!;
    }
    this.slotByOrderId.delete(store.orderId[slot]!);
    const clientOrderId = store.clientOrderId[slot]!;
    if (clientOrderId !== '') this.slotByClientOrderId.delete(clientKey(account, clientOrderId));
    this.unlinkFromAccount(account, slot);
    store.release(slot);
  }

  // -------------------------------------------------------------------------------------------------
  // Per-account order lists

  private ensureAccountLists(account: number): void {
    if (account < this.accountHead.length) return;
    const capacity = Math.max(this.accountHead.length * 2, account + 1);
    this.accountHead = grownInt32(this.accountHead, capacity, noSlot);
    this.accountTail = grownInt32(this.accountTail, capacity, noSlot);
    this.accountOpenOrders = grownInt32(this.accountOpenOrders, capacity);
  }

  private linkToAccount(account: number, slot: number): void {
    const store = this.orders;
    const tail = this.accountTail[account]!;
    store.accountPrev[slot] = tail;
    store.accountNext[slot] = noSlot;
    if (tail === noSlot) this.accountHead[account] = slot;
    else store.accountNext[tail] = slot;
    this.accountTail[account] = slot;
    this.accountOpenOrders[account] = this.accountOpenOrders[account]! + 1;
  }

  private unlinkFromAccount(account: number, slot: number): void {
    const store = this.orders;
    const prev = store.accountPrev[slot]!;
    const next = store.accountNext[slot]!;
    if (prev === noSlot) this.accountHead[account] = next;
    else store.accountNext[prev] = next;
    if (next === noSlot) this.accountTail[account] = prev;
    else store.accountPrev[next] = prev;
    this.accountOpenOrders[account] = this.accountOpenOrders[account]! - 1;
  }

  /** The slot of a live order owned by (user, mode), by id or client order id; `noSlot` otherwise. */
  private ownedSlot(userId: number, mode: Mode, orderId: number, clientOrderId: string): number {
    if (orderId !== 0) {
      // By id: one lookup, then the owner is read off the order rather than looked up.
      const slot = this.slotOf(orderId);
      if (slot === noSlot) return noSlot;
      const account = this.orders.account[slot]!;
      return this.ledger.userOf(account) === userId && this.ledger.modeOf(account) === mode ? slot : noSlot;
    }
    if (clientOrderId === '') return noSlot;
    const account = this.ledger.find(userId, mode);
    if (account === noAccount) return noSlot;
    return this.slotByClientOrderId.get(clientKey(account, clientOrderId)) ?? noSlot;
  }

  // -------------------------------------------------------------------------------------------------
  // Snapshot restore (snapshot.ts): orders come back in priority order, account links afterwards.

  /** Re-creates one live order from a snapshot row; returns its slot. */
  restoreOrder(row: RestoredOrder): number {
    const account = this.ledger.find(row.userId, (this.contexts[row.context]!.mode));
    assert(account !== noAccount, 'restored order of an unknown account');
    this.ensureAccountLists(account);
    const context = this.contexts[row.context]!;
    const slot = this.orders.allocate(this.growSlots);
    const store = this.orders;
    store.orderId[slot] = row.orderId;
    store.account[slot] = account;
    store.context[slot] = row.context;
    store.side[slot] = row.side;
    store.orderType[slot] = row.orderType;
    store.timeInForce[slot] = row.timeInForce;
    store.selfTradePrevention[slot] = row.selfTradePrevention;
    store.postOnly[slot] = row.postOnly;
    store.status[slot] = row.status;
    store.priceTicks[slot] = row.priceTicks;
    store.stopPriceTicks[slot] = row.stopPriceTicks;
    store.holdPriceTicks[slot] = row.holdPriceTicks;
    store.quantityLots[slot] = row.quantityLots;
    store.filledLots[slot] = row.filledLots;
    store.filledNotionalAtoms[slot] = row.filledNotionalAtoms;
    store.takerNotionalAtoms[slot] = row.takerNotionalAtoms;
    store.makerNotionalAtoms[slot] = row.makerNotionalAtoms;
    store.heldAtoms[slot] = row.heldAtoms;
    store.clientOrderId[slot] = row.clientOrderId;
    this.slotByOrderId.set(row.orderId, slot);
    if (row.clientOrderId !== '') this.slotByClientOrderId.set(clientKey(account, row.clientOrderId), slot);
    if (row.status === OrderStatus.pending) {
      (row.side === 0 ? context.buyStops : context.sellStops).push(slot);
    } else {
      context.book.add(slot, account, row.side, row.priceTicks, row.restingLots);
    }
    return slot;
  }

  /** Appends a restored order to its account's list (called in order-id order). */
  restoreAccountLink(slot: number): void {
    this.linkToAccount(this.orders.account[slot]!, slot);
  }

  // -------------------------------------------------------------------------------------------------
  // Queries (never journaled)

  /** Slot of a live order, or `noSlot`. */
  slotOf(orderId: number): number {
    if (!Number.isSafeInteger(orderId) || orderId < 0) return noSlot;
    const slot = this.slotByOrderId.get(orderId);
    return slot === missing ? noSlot : slot;
  }

  context(pairId: number, mode: Mode): BookContext | undefined {
    const pair = this.markets.pairById(pairId);
    return pair === undefined ? undefined : this.contexts[pair.index * 2 + mode];
  }

  /** Live order slots of (user, mode), oldest first. */
  openOrderSlots(userId: number, mode: Mode): number[] {
    const account = this.ledger.find(userId, mode);
    const slots: number[] = [];
    if (account === noAccount) return slots;
    for (let slot = this.accountHead[account]!; slot !== noSlot; slot = this.orders.accountNext[slot]!) slots.push(slot);
    return slots;
  }

  openOrderCount(userId: number, mode: Mode): number {
    const account = this.ledger.find(userId, mode);
    return account === noAccount ? 0 : this.accountOpenOrders[account]!;
  }
}

/** One live order as a snapshot stores it. */
export interface RestoredOrder {
  orderId: number;
  userId: number;
  context: number;
  side: Side;
  orderType: number;
  timeInForce: number;
  selfTradePrevention: number;
  postOnly: number;
  status: number;
  priceTicks: number;
  stopPriceTicks: number;
  holdPriceTicks: number;
  quantityLots: number;
  filledLots: number;
  filledNotionalAtoms: number;
  takerNotionalAtoms: number;
  makerNotionalAtoms: number;
  heldAtoms: number;
  restingLots: number;
  clientOrderId: string;
}

function validUser(userId: number): boolean {
  return Number.isSafeInteger(userId) && userId > 0 && userId <= userIdMax;
}

function validChainId(chainId: number): boolean {
  return Number.isInteger(chainId) && chainId >= 1 && chainId <= withdrawChainIdMax;
}

function validAddress(address: string): boolean {
  return typeof address === 'string' && address.length >= 1 && address.length <= withdrawAddressCharsMax;
}

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

/** The better of two prices of `side` (the higher bid, the lower ask); `noPrice` is worse than any. */
function betterPrice(side: Side, a: number, b: number): number {
  if (a === noPrice) return b;
  if (b === noPrice) return a;
  return side === 0 ? Math.max(a, b) : Math.min(a, b);
}

function validTicks(ticks: number, pair: Pair): boolean {
  return Number.isSafeInteger(ticks) && ticks >= 1 && ticks <= pair.priceTicksMax;
}

function clientKey(account: number, clientOrderId: string): string {
  return account + ':' + clientOrderId;
}
