/**
 * The engine's state: everything the command handlers of engine/core read and write, in one object. The
 * handlers (orders/, matching/, venues/, stops.ts, paper.ts, funding.ts) are plain functions that take
 * this state as their first argument; the Engine (engine.ts) extends it with dispatch and the domain
 * port. Keeping the state in one class of one shape, and the handlers as plain functions, keeps every
 * property access and every call on the order path monomorphic, as fast as methods of one class.
 *
 * Its fields are public only so that those files can share them: nothing outside engine/core writes them
 * but the event `sink` (the runtime points it at each batch) and the rule flags `paperSeesLiveBook` and
 * `postOnlyHoldsMakerFeeOnly` (journal/rules.ts,
 * for replays), and readers outside the core keep to the Engine's queries and to markets, limits,
 * settings, ledger, orders, contexts, venues and the id counters.
 */
import { assert } from './assert.ts';
import { OrderIdIndex } from './order-id-index.ts';
import { GroupKind, PlacementRequest, type Mode } from './commands.ts';
import {
  AmmFill,
  BalanceChanged,
  FundsWithdrawn,
  OrderAccepted,
  OrderAmended,
  OrderCancelled,
  OrderExpired,
  OrderRejected,
  OrderRested,
  ScalePlaced,
  StopTriggered,
  TradeExecuted,
  VenueExpired,
  VenueQuoted,
  nullSink,
  type EventSink,
} from './events.ts';
import { Ledger } from './ledger.ts';
import { bpsDenominator, defaultLimits, defaultSettings, type EngineLimits, type EngineSettings } from './limits.ts';
import { OrderStore, noSlot, recordBytes } from './order-store.ts';
import type { ResultCode } from './results.ts';
import type { Markets, Pair } from './units.ts';
import { noPrice, type Book, type BookFactory, type MatchHandler } from './book/book.ts';
import { FastBookFactory } from './book/fast-book.ts';
import { VenueBook } from './venue-book.ts';
import { LiveVenueLevels, VirtualLevels } from './virtual-levels.ts';
import { OrderReport } from './domain-module.ts';
import type { DomainFactory } from './domain.ts';
import { ClientOrderIds } from './client-order-ids.ts';

export interface EngineOptions {
  readonly markets: Markets;
  readonly limits?: Partial<EngineLimits>;
  readonly settings?: Partial<EngineSettings>;
  /** The book implementation; the fast book unless a test asks for the reference. */
  readonly books?: BookFactory;
  readonly sink?: EventSink;
  /** Makes the domain modules that handle the command kinds the core does not (engine/domains). */
  readonly domains?: DomainFactory;
  /**
   * Where the order records start in their buffer, so that each lies on 64-byte lines as the processor's
   * caches do (order-store.ts; the runtime's value: engine/runtime/memory.ts). Memory layout only: 0 or any
   * other value gives the same results, events and state hash.
   */
  readonly recordsByteOffset?: number;
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

export class EngineState {
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
  /** How the order placed by the last watching `placeGroupOrder` ended. */
  readonly orderReport = new OrderReport();

  readonly books: BookFactory;
  readonly slotByOrderId: OrderIdIndex;
  readonly slotByClientOrderId = new ClientOrderIds();
  accountHead = new Int32Array(64).fill(noSlot);
  accountTail = new Int32Array(64).fill(noSlot);
  accountOpenOrders = new Int32Array(64);

  /** Called by the order store when it grows, so the books' per-slot arrays grow with it. */
  readonly growSlots: (capacity: number) => void;
  /** Pairs by id, dense: a command's pair is found without hashing. */
  readonly pairsById: Array<Pair | undefined> = [];

  // The taker being matched, read by the fill handlers (matching/fills.ts, paper.ts).
  takerSlot = noSlot;
  takerContext!: BookContext;
  /** Fills of the current taker against resting orders come through this handler (the Engine sets it). */
  takerFills!: MatchHandler;
  /** Fills of resting paper orders by live prints come through this handler (no taker order of ours). */
  paperPrints!: MatchHandler;

  /** The request being placed, copied into one fixed layout (see PlacementRequest). */
  readonly placement = new PlacementRequest();

  // One reusable object per event kind (see events.ts).
  readonly accepted = new OrderAccepted();
  readonly rested = new OrderRested();
  readonly trade = new TradeExecuted();
  readonly cancelled = new OrderCancelled();
  readonly expired = new OrderExpired();
  readonly triggered = new StopTriggered();
  readonly amended = new OrderAmended();
  readonly rejected = new OrderRejected();
  readonly balanceChanged = new BalanceChanged();
  readonly fundsWithdrawn = new FundsWithdrawn();
  readonly ammFilled = new AmmFill();
  readonly venueQuoted = new VenueQuoted();
  readonly venueExpired = new VenueExpired();
  readonly scalePlaced = new ScalePlaced();
  /**
   * Domains following the exchange's fills (port.onTrade): called after each TradeExecuted and AmmFill is
   * emitted, inside the same command. Empty unless a domain asked, so the fill path pays one length check.
   */
  readonly tradeListeners: Array<(fill: TradeExecuted | AmmFill) => void> = [];
  /**
   * Taker fee rates of accounts that pay less than `settings.takerFeeBps` (a tier's discount), by ledger
   * account. Empty unless a domain set one, so placement pays one size check and old states hash as before.
   */
  readonly takerFeeBpsByAccount = new Map<number, number>();
  /** The parent of the order being placed, stamped on its OrderAccepted (see placeGroupOrder). */
  placingGroupKind: GroupKind = GroupKind.none;
  placingGroupId = 0;
  /**
   * Whether the order being placed came through the domain port (`Engine.placeGroupOrder`): only such an
   * order may be on behalf of a domain's own account (a vault trading its pool), never a client's command.
   */
  placingForDomain = false;

  /**
   * Whether paper orders see the live hybrid book (its levels as their virtual liquidity, its trades
   * filling them). Always on for new commands; off only while replaying journals written before that rule
   * (journal/rules.ts).
   */
  paperSeesLiveBook = true;
  /**
   * Whether a post-only buy holds only price × quantity and the maker fee cap. Always on for new commands;
   * off only while replaying journals written before that rule (journal/rules.ts).
   */
  postOnlyHoldsMakerFeeOnly = true;
  /** Outside venues' levels per pair index: the live hybrid book's virtual part. */
  readonly venues: VenueBook[] = [];
  /** The time of the command being applied (journaled): what venue freshness is judged against. */
  nowMs = 0;
  readonly liveVenueLevels = new LiveVenueLevels();
  readonly paperVirtual = new VirtualLevels();
  /** Live trades of the command being applied, for resting paper orders: pair index, price, lots. */
  /** Prints noted so far in this command (the arrays below are reused: truncating an array costs a runtime call). */
  printCount = 0;
  readonly printPairs: number[] = [];
  readonly printPrices: number[] = [];
  readonly printLots: number[] = [];

  constructor(options: EngineOptions) {
    this.markets = options.markets;
    this.limits = { ...defaultLimits, ...options.limits };
    this.settings = { ...defaultSettings, ...options.settings };
    assert(this.settings.takerFeeBps >= 0 && this.settings.takerFeeBps <= bpsDenominator, 'taker fee out of range');
    assert(this.settings.makerFeeBps >= 0 && this.settings.makerFeeBps <= bpsDenominator, 'maker fee out of range');
    assert(this.settings.marketBandBps >= 0 && this.settings.marketBandBps < bpsDenominator, 'band out of range');
    this.sink = options.sink ?? nullSink;
    this.orders = new OrderStore(this.limits.ordersMax, options.recordsByteOffset ?? 0);
    this.slotByOrderId = new OrderIdIndex(this.orders);
    // The fast books keep their nodes in the orders' own records (order-store.ts).
    this.books = options.books ?? new FastBookFactory(this.orders, recordBytes);
    const books = this.books;
    this.growSlots = (capacity) => books.ensureSlots(capacity);
    for (const pair of this.markets.pairs) {
      assert(pair.id < 65_536, 'pair ids are small integers');
      while (this.pairsById.length <= pair.id) this.pairsById.push(undefined);
      this.pairsById[pair.id] = pair;
    }
    this.ledger = new Ledger(this.markets.assets.length, this.limits.accountsMax);
    for (const pair of this.markets.pairs) {
      for (const mode of [0, 1] as const) {
        const index = pair.index * 2 + mode;
        this.contexts[index] = new BookContext(index, pair, mode, this.books.create(this.limits.priceLevelsPerSideMax));
      }
      this.venues[pair.index] = new VenueBook();
    }
  }
}
