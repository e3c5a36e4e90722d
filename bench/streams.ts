/**
 * Deterministic command streams for bench/engine.ts, built before any timing starts.
 *
 * Every stream is generated against a scratch engine used as an oracle: each generated command is applied
 * to it at once, and a sink that follows its events keeps the set of live orders, so that cancels and
 * amends name orders that really are live when the command runs. The timed run then applies the very same
 * arrays to a fresh engine prepared the same way; because the engine is deterministic, it does exactly the
 * work the oracle did, which the benchmark checks (same result codes, same state hash).
 *
 * Everything trades on one pair (ETH/USDC, id 1) in live mode, with self-trade prevention off so that the
 * same stream means the same thing to the peer book, which has no accounts. The hybrid mix adds outside
 * venues (AMM pools) to that pair: their levels come from bench/venues.ts, and the stream re-quotes them.
 */
import { Engine } from '../engine/core/engine.ts';
import {
  CommandKind,
  OrderType,
  SelfTradePrevention,
  TimeInForce,
  type CancelOrder,
  type Command,
  type Deposit,
  type PlaceOrder,
  type AmendOrder,
  type QuoteVenue,
  type Side,
} from '../engine/core/commands.ts';
import { EventKind, type EngineEvent, type EventSink } from '../engine/core/events.ts';
import { noPrice } from '../engine/core/book/book.ts';
import { noAccount } from '../engine/core/ledger.ts';
import { Prng } from '../engine/core/sim/generator.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import type { ResultCode } from '../engine/core/results.ts';
import type { Markets } from '../engine/core/units.ts';
import type { DepthLevels } from '../engine/amm/depth.ts';
import { recordsByteOffset } from '../engine/runtime/memory.ts';

/** ETH/USDC: tick 0.01 USDC, lot 0.0001 ETH. */
export const benchPairId = 1;
/** 3 000.00 USDC, the price every stream is centred on. */
export const midTicks = 300_000;
/** Resting orders sit within this many ticks of the mid (2 000 ticks = 20 USDC either side). */
export const bandTicks = 2_000;
/**
 * How far past the mid an amended price may go. A bid may be moved up to a few ticks above the mid (and an
 * ask as far below it), so that amends near the top of the book sometimes cross and trade.
 */
const crossTicks = 3;
export const userCount = 100;
/** 10 million USDC (6 decimals) per user; 100 users stay far below the safe-integer total. */
const quoteDepositAtoms = 10_000_000_000_000;
/** 3 000 ETH (8 decimals) per user: enough base for thousands of resting sells each. */
const baseDepositAtoms = 300_000_000_000;
const quoteAssetId = 1;
const baseAssetId = 2;
const lotsMax = 100;
const startTs = 1_767_225_600_000;

/**
 * An engine as the benchmark uses it. A million resting orders over a hundred users is about ten thousand
 * open orders each; the capacity limits are set here, well above that, so that the bench does not depend
 * on the defaults staying large enough. Fees and the rest are the defaults.
 */
export function createBenchEngine(markets: Markets, sink?: EventSink): Engine {
  return new Engine({
    markets,
    ...(sink === undefined ? {} : { sink }),
    limits: { openOrdersPerAccountMax: 1_000_000, ordersMax: 8_000_000, bookOrdersMax: 4_000_000 },
    // As the server lays the order records out (engine/runtime/memory.ts).
    recordsByteOffset: recordsByteOffset(),
  });
}

/** Stamps commands with consecutive sequence numbers and mints increasing order ids. */
class Stamper {
  seq = 0;
  nextOrderId = 1;

  /** The time the next command will carry: the stream's clock advances one millisecond per command. */
  nextTs(): number {
    return startTs + this.seq + 1;
  }

  place(userId: number, side: Side, timeInForce: TimeInForce, priceTicks: number, quantityLots: number, orderType: OrderType = OrderType.limit): PlaceOrder {
    const seq = ++this.seq;
    // One literal shape for every placement, so the engine's property loads stay monomorphic.
    return {
      kind: CommandKind.placeOrder,
      seq,
      ts: startTs + seq,
      orderId: this.nextOrderId++,
      userId,
      mode: 0,
      pairId: benchPairId,
      side,
      orderType,
      timeInForce,
      priceTicks,
      stopPriceTicks: 0,
      quantityLots,
      postOnly: false,
      selfTradePrevention: SelfTradePrevention.none,
      clientOrderId: '',
    };
  }

  cancel(userId: number, orderId: number): CancelOrder {
    const seq = ++this.seq;
    return { kind: CommandKind.cancelOrder, seq, ts: startTs + seq, userId, mode: 0, orderId, clientOrderId: '' };
  }

  amend(userId: number, orderId: number, priceTicks: number, quantityLots: number): AmendOrder {
    const seq = ++this.seq;
    return { kind: CommandKind.amendOrder, seq, ts: startTs + seq, userId, mode: 0, orderId, priceTicks, quantityLots };
  }

  deposit(userId: number, assetId: number, amountAtoms: number): Deposit {
    const seq = ++this.seq;
    return { kind: CommandKind.deposit, seq, ts: startTs + seq, userId, mode: 0, assetId, amountAtoms };
  }

  /**
   * A venue's quote, as amm-manager.ts journals a worker's: the pool's levels with its next version. The
   * level arrays are the venue's own, shared by all its quotes (the engine only reads them).
   */
  quote(venue: VenueQuoteLevels, version: number): QuoteVenue {
    const seq = ++this.seq;
    const levels = venue.levels;
    return {
      kind: CommandKind.quoteVenue,
      seq,
      ts: startTs + seq,
      pairId: benchPairId,
      poolId: venue.poolId,
      chainId: venue.chainId,
      version,
      bidPriceTicks: levels.bidPriceTicks,
      bidLots: levels.bidLots,
      askPriceTicks: levels.askPriceTicks,
      askLots: levels.askLots,
    };
  }
}

/**
 * Follows the oracle's events to know which orders rest, at what price and with how many lots left.
 * Owner, side and total quantity are registered by the generator when it places the order, because the
 * events that end or rest an order do not all carry them.
 */
class LiveOrders implements EventSink {
  count = 0;
  trades = 0;
  /** AMM fills (fills of our takers against venue levels), in all and by venue (pool id). */
  ammFills = 0;
  readonly ammFillsByVenue = new Map<number, number>();
  private ids: Int32Array;
  /** Position in `ids` by order id; -1 when not live. */
  private position: Int32Array;
  readonly user: Int32Array;
  readonly side: Uint8Array;
  readonly price: Int32Array;
  readonly remaining: Int32Array;
  readonly total: Int32Array;

  constructor(idCapacity: number) {
    this.ids = new Int32Array(idCapacity);
    this.position = new Int32Array(idCapacity).fill(-1);
    this.user = new Int32Array(idCapacity);
    this.side = new Uint8Array(idCapacity);
    this.price = new Int32Array(idCapacity);
    this.remaining = new Int32Array(idCapacity);
    this.total = new Int32Array(idCapacity);
  }

  register(command: PlaceOrder): void {
    this.user[command.orderId] = command.userId;
    this.side[command.orderId] = command.side;
    this.total[command.orderId] = command.quantityLots;
  }

  isLive(orderId: number): boolean {
    return this.position[orderId]! >= 0;
  }

  /** A uniformly chosen live order id; the caller checks that `count` is not zero. */
  pick(random: Prng): number {
    return this.ids[Math.floor(random.next() * this.count)]!;
  }

  onEvent(event: EngineEvent): void {
    switch (event.kind) {
      case EventKind.orderRested:
        this.add(event.orderId);
        this.price[event.orderId] = event.priceTicks;
        this.remaining[event.orderId] = event.remainingLots;
        break;
      case EventKind.tradeExecuted:
        this.trades++;
        if (event.makerRemainingLots === 0) this.remove(event.makerOrderId);
        else this.remaining[event.makerOrderId] = event.makerRemainingLots;
        // Only an amended order can be live while it takes; a new taker becomes live when it rests.
        if (this.isLive(event.takerOrderId)) {
          if (event.takerRemainingLots === 0) this.remove(event.takerOrderId);
          else this.remaining[event.takerOrderId] = event.takerRemainingLots;
        }
        break;
      case EventKind.ammFill:
        this.ammFills++;
        this.ammFillsByVenue.set(event.venueId, (this.ammFillsByVenue.get(event.venueId) ?? 0) + 1);
        // As for a trade: only an amended order can be live while it takes.
        if (this.isLive(event.orderId)) {
          if (event.remainingLots === 0) this.remove(event.orderId);
          else this.remaining[event.orderId] = event.remainingLots;
        }
        break;
      case EventKind.orderAmended:
        this.price[event.orderId] = event.priceTicks;
        this.total[event.orderId] = event.quantityLots;
        this.remaining[event.orderId] = event.remainingLots;
        break;
      case EventKind.orderCancelled:
      case EventKind.orderExpired:
        this.remove(event.orderId);
        break;
      default:
        break;
    }
  }

  private add(orderId: number): void {
    if (this.position[orderId]! >= 0) return;
    this.position[orderId] = this.count;
    this.ids[this.count++] = orderId;
  }

  private remove(orderId: number): void {
    const at = this.position[orderId]!;
    if (at < 0) return;
    // Swap the last live id into the hole, so picking stays uniform and removal O(1).
    const last = this.ids[--this.count]!;
    this.ids[at] = last;
    this.position[last] = at;
    this.position[orderId] = -1;
  }
}

/**
 * One tracker that lives as long as the module. The oracle engines call their sink's `onEvent` on this
 * class, so the engine's optimised code has this class's hidden class (map) built in. V8 holds such maps
 * weakly: were every tracker to die, the next full collection (the bench forces one before each timed
 * run) would throw that code away, and the timed run would start in unoptimised code. Keeping one
 * instance alive keeps the map, and the optimised engine code, alive.
 */
export const retainedTracker = new LiveOrders(1);

/** What each generated command was meant to be, for the report (what it did is in the result codes). */
export interface MixCounts {
  gtc: number;
  crossingGtc: number;
  ioc: number;
  cancel: number;
  amendPrice: number;
  amendReduce: number;
  amendIncrease: number;
  /** Hybrid mix: takers sized to sweep into the venues' levels, as IOC limits or market orders. */
  sweepIoc: number;
  sweepMarket: number;
  /** Hybrid mix: venue re-quotes (QuoteVenue) in the stream. */
  quote: number;
}

/** One venue's levels as a worker quoted them (bench/venues.ts makes them from the fixture pools). */
export interface VenueQuoteLevels {
  readonly poolId: number;
  readonly chainId: number;
  /** Who runs the pool, for the report. */
  readonly venue: string;
  readonly levels: DepthLevels;
}

/** What a peer op is: a GTC or an IOC limit, a cancel, or a modify of the price or of the size. */
export const PeerOpKind = { limit: 0, cancel: 1, iocLimit: 2, modifyPrice: 3, modifySize: 4 } as const;

export interface PeerOps {
  /** A `PeerOpKind` per command. */
  readonly kinds: Uint8Array;
  /**
   * The order id as the peer's string id, for every kind; the fields below are plain numbers that the
   * benchmark turns into the peer's option objects before timing: side, price and size of a limit, the
   * new price of a price modify, the new size (what is left to fill) of a size modify.
   */
  readonly ids: string[];
  readonly sides: Uint8Array;
  readonly prices: Float64Array;
  readonly sizes: Float64Array;
}

export interface Scenario {
  readonly name: string;
  readonly restingTarget: number;
  /** Deposits and the pre-loaded resting orders: applied untimed to prepare an engine. */
  readonly setup: Command[];
  /** The timed commands. */
  readonly stream: Command[];
  /** The oracle's result for each stream command; the timed run must give the same. */
  readonly expected: Uint16Array;
  /** State hash of the oracle after setup and stream. */
  readonly expectedHash: string;
  readonly restingAfterSetup: number;
  readonly restingAfterStream: number;
  /** Trades the stream made in the oracle. */
  readonly trades: number;
  /** Fills of the stream's takers against venue levels in the oracle (AmmFill events), in all and by pool id. */
  readonly ammFills: number;
  readonly ammFillsByVenue: ReadonlyMap<number, number>;
  readonly mix: MixCounts;
  /** Set for the simple mix, and for the exchange-core mix when asked (`withPeer`): the same setup orders and stream for the peer book. */
  readonly peerSetup?: PeerOps;
  readonly peerStream?: PeerOps;
}

export interface StreamOptions {
  readonly markets: Markets;
  readonly seed: number;
  readonly resting: number;
  readonly commands: number;
  /** Skip the final state hash (warm-up streams do not need it). */
  readonly skipHash?: boolean;
  /** The exchange-core mix: translate the setup and the stream for the peer book too (the simple mix always does). */
  readonly withPeer?: boolean;
}

/** Distance from the mid of a passive order: skewed towards the top of the book, as real depth is. */
function passiveDistance(random: Prng): number {
  const u = random.next();
  return 1 + Math.floor((bandTicks - 1) * u * u);
}

function passivePrice(random: Prng, side: Side): number {
  const distance = passiveDistance(random);
  return side === 0 ? midTicks - distance : midTicks + distance;
}

/** Applies a command to the oracle and stores its result; refusals are kept, the stream is data. */
function applyToOracle(oracle: Engine, command: Command, expected: Uint16Array, index: number): ResultCode {
  const result = oracle.apply(command);
  expected[index] = result;
  return result;
}

/** Deposits for every user and `resting` passive orders spread around the mid (none of them crosses). */
function buildSetup(stamper: Stamper, random: Prng, resting: number): { setup: Command[]; preload: PlaceOrder[] } {
  const setup: Command[] = [];
  for (let userId = 1; userId <= userCount; userId++) {
    setup.push(stamper.deposit(userId, quoteAssetId, quoteDepositAtoms));
    setup.push(stamper.deposit(userId, baseAssetId, baseDepositAtoms));
  }
  const preload: PlaceOrder[] = [];
  for (let index = 0; index < resting; index++) {
    const side: Side = random.chance(0.5) ? 0 : 1;
    const order = stamper.place(random.int(1, userCount), side, TimeInForce.gtc, passivePrice(random, side), random.int(1, lotsMax));
    setup.push(order);
    preload.push(order);
  }
  return { setup, preload };
}

function prepareOracle(markets: Markets, setup: readonly Command[], live: LiveOrders): Engine {
  const oracle = createBenchEngine(markets, live);
  for (const command of setup) {
    if (command.kind === CommandKind.placeOrder) live.register(command);
    const result = oracle.apply(command);
    if (result !== 0) throw new Error(`setup command ${command.seq} refused with ${result}`);
  }
  return oracle;
}

function emptyMix(): MixCounts {
  return { gtc: 0, crossingGtc: 0, ioc: 0, cancel: 0, amendPrice: 0, amendReduce: 0, amendIncrease: 0, sweepIoc: 0, sweepMarket: 0, quote: 0 };
}

/** The target band: place instead of cancel below it, cancel instead of place above it. */
function band(target: number): { low: number; high: number } {
  const slack = Math.max(2, Math.round(target * 0.01));
  return { low: target - slack, high: target + slack };
}

/**
 * A crossing limit price: at or up to `throughMax` ticks through the best opposite price (the mid if that
 * side is empty).
 */
function crossingPrice(oracle: Engine, random: Prng, side: Side, throughMax: number): number {
  const book = oracle.contexts[0]!.book;
  const best = book.bestPrice(side === 0 ? 1 : 0);
  const through = random.int(0, throughMax);
  if (best === noPrice) return side === 0 ? midTicks + through : midTicks - through;
  return side === 0 ? best + through : best - through;
}

/** A price move of a few ticks that keeps the order inside its side's band (see `crossTicks`). */
function movedPrice(random: Prng, side: Side, priceTicks: number): number {
  const step = random.int(1, 4);
  const low = side === 0 ? midTicks - bandTicks : midTicks - crossTicks;
  const high = side === 0 ? midTicks + crossTicks : midTicks + bandTicks;
  let moved = random.chance(0.5) ? priceTicks + step : priceTicks - step;
  // Out of the band: move towards its middle instead (also brings back an order that rested outside it).
  if (moved < low || moved > high) moved = priceTicks > (low + high) / 2 ? priceTicks - step : priceTicks + step;
  return moved;
}

function assertPairZero(markets: Markets): void {
  // The oracle's book is read as `contexts[0]`: pair 1 must be the first pair, in live mode.
  const pair = markets.pairById(benchPairId);
  if (pair === undefined || pair.index !== 0) throw new Error('bench expects pair 1 at index 0');
}

/**
 * The exchange-core style mix: about 9 % GTC limits (a tenth of them priced through the touch), 3 % IOC
 * limits through the touch, 6 % cancels and 82 % amends of live orders: nine in ten move the price by 1-4
 * ticks, the rest reduce the quantity (keeping priority) or raise it. Near the target resting count, a
 * placement becomes a cancel when the book is above the band and a cancel becomes a placement below it.
 */
export function exchangeCoreMix(options: StreamOptions): Scenario {
  return exchangeCoreStream(options, null);
}

export interface HybridOptions extends StreamOptions {
  /** The venues on the bench's pair, quoted at the end of the setup and re-quoted by the stream. */
  readonly venues: readonly VenueQuoteLevels[];
}

/**
 * The hybrid mix: the exchange-core mix on a pair that also has AMM venue levels. The setup ends with a
 * quote of every venue; in the stream a fifth of the takers (crossing GTC and IOC limits) are sweeps that
 * take the resting orders in front of the best venue level and go on into it, as IOC limits or market
 * orders, and the venues are re-quoted at quote ticks as their worker would (see VenueFeed). The other
 * takers fill against a venue too whenever its level is the best price of its side, which on this thin-
 * topped book is often. Fails when the oracle saw no AMM fill: such a stream would time the CLOB alone
 * under the hybrid's name.
 */
export function hybridMix(options: HybridOptions): Scenario {
  if (options.venues.length === 0) throw new Error('the hybrid mix needs venues');
  const scenario = exchangeCoreStream(options, new VenueFeed(options.venues));
  if (scenario.ammFills === 0) throw new Error('the hybrid mix made no AMM fill in the oracle: its sweeps never reached a venue level');
  return { ...scenario, name: 'hybrid mix' };
}

/** What the exchange-core mix draws each command from. */
interface MixState {
  readonly random: Prng;
  readonly stamper: Stamper;
  readonly live: LiveOrders;
  readonly oracle: Engine;
  readonly mix: MixCounts;
  readonly low: number;
  readonly high: number;
  /** Whether a fifth of the takers sweep into the venues (the hybrid mix). */
  readonly sweeps: boolean;
}

/** The exchange-core mix, with venues when `feed` is given (the hybrid mix). */
function exchangeCoreStream(options: StreamOptions, feed: VenueFeed | null): Scenario {
  assertPairZero(options.markets);
  const random = new Prng(options.seed);
  const stamper = new Stamper();
  const { setup, preload } = buildSetup(stamper, random, options.resting);
  if (feed !== null) setup.push(...feed.quoteAll(stamper));
  // The peer book runs the CLOB-only stream too, when asked (it has no venues).
  const forPeer = feed === null && options.withPeer === true;
  const peerSetup = forPeer ? newPeerOps(preload.length) : undefined;
  const peerStream = forPeer ? newPeerOps(options.commands) : undefined;
  if (peerSetup !== undefined) for (let index = 0; index < preload.length; index++) translate(peerSetup, index, preload[index]!);
  const live = new LiveOrders(options.resting + options.commands + 1);
  const oracle = prepareOracle(options.markets, setup, live);
  const restingAfterSetup = oracle.contexts[0]!.book.orderCount;
  const { low, high } = band(options.resting);
  const stream: Command[] = new Array<Command>(options.commands);
  const expected = new Uint16Array(options.commands);
  const mix = emptyMix();
  const state: MixState = { random, stamper, live, oracle, mix, low, high, sweeps: feed !== null };
  const tradesBefore = live.trades;
  // The worker's heartbeat, as amm-manager.ts sets it: a third of the engine's quote lifetime.
  const heartbeatMs = Math.floor(oracle.settings.venueQuoteLifetimeMs / 3);

  for (let index = 0; index < options.commands; index++) {
    if (feed !== null && index % quoteTickCommands === 0) feed.tick(stamper.nextTs(), heartbeatMs, live);
    const quote = feed === null ? null : feed.next(stamper);
    if (quote !== null) mix.quote++;
    const command = quote ?? exchangeCoreCommand(state);
    stream[index] = command;
    if (peerStream !== undefined) translate(peerStream, index, command, live);
    applyToOracle(oracle, command, expected, index);
  }

  return {
    name: 'exchange-core mix',
    restingTarget: options.resting,
    setup,
    stream,
    expected,
    expectedHash: options.skipHash === true ? '' : stateHash(oracle),
    restingAfterSetup,
    restingAfterStream: oracle.contexts[0]!.book.orderCount,
    trades: live.trades - tradesBefore,
    ammFills: live.ammFills,
    ammFillsByVenue: live.ammFillsByVenue,
    mix,
    ...(peerSetup === undefined ? {} : { peerSetup, peerStream }),
  };
}

/** One command of the exchange-core mix, drawn against the oracle's current state. */
function exchangeCoreCommand(state: MixState): Command {
  const { random, stamper, live, oracle, mix } = state;
  const roll = random.next();
  let kind = roll < 0.09 ? 0 : roll < 0.12 ? 1 : roll < 0.18 ? 2 : 3;
  if (kind === 0 && live.count > state.high) kind = 2;
  else if (kind === 2 && live.count < state.low) kind = 0;
  if (live.count === 0 && kind >= 2) kind = 0;

  if (kind === 0) {
    const side: Side = random.chance(0.5) ? 0 : 1;
    const crossing = random.chance(0.1);
    if (crossing && state.sweeps && random.chance(sweepShare)) return sweepOrder(state, side);
    const price = crossing ? crossingPrice(oracle, random, side, 2) : passivePrice(random, side);
    if (crossing) mix.crossingGtc++;
    else mix.gtc++;
    const place = stamper.place(random.int(1, userCount), side, TimeInForce.gtc, price, random.int(1, lotsMax));
    live.register(place);
    return place;
  }
  if (kind === 1) {
    const side: Side = random.chance(0.5) ? 0 : 1;
    if (state.sweeps && random.chance(sweepShare)) return sweepOrder(state, side);
    const place = stamper.place(random.int(1, userCount), side, TimeInForce.ioc, crossingPrice(oracle, random, side, 2), random.int(1, lotsMax));
    live.register(place);
    mix.ioc++;
    return place;
  }
  const orderId = live.pick(random);
  const userId = live.user[orderId]!;
  if (kind === 2) {
    mix.cancel++;
    return stamper.cancel(userId, orderId);
  }
  const remaining = live.remaining[orderId]!;
  const total = live.total[orderId]!;
  const roll2 = random.next();
  if (roll2 < 0.9) {
    mix.amendPrice++;
    return stamper.amend(userId, orderId, movedPrice(random, live.side[orderId] as Side, live.price[orderId]!), 0);
  }
  if (roll2 < 0.95 && remaining >= 2) {
    // The new quantity is the total including the filled part; half of what is left goes.
    mix.amendReduce++;
    return stamper.amend(userId, orderId, 0, total - Math.floor(remaining / 2));
  }
  mix.amendIncrease++;
  return stamper.amend(userId, orderId, 0, total + random.int(1, 10));
}

// -------------------------------------------------------------------------------------------------
// The hybrid mix's venues

/** The share of the hybrid mix's takers (crossing GTC and IOC limits) that are sweeps into the venues. */
const sweepShare = 0.2;
/**
 * What a sweep takes from the venues once the resting orders in front of them are gone: 1 to this many
 * lots (up to 0.2 ETH). Far less than a venue's first level holds (7 to 160 ETH with the worker's 12 bp
 * levels), so a sweep ends in that level, and the levels the sweeps take between two quote ticks are a
 * small part of it.
 */
const sweepVenueLotsMax = 2_000;

/**
 * A taker that sweeps into the venues: its size is every resting lot at or better than the best fresh venue
 * level of the side it takes from, plus 1 to `sweepVenueLotsMax` lots of that level; half are IOC limits
 * priced at that level, half market orders (which the engine bounds by its market band).
 */
function sweepOrder(state: MixState, side: Side): PlaceOrder {
  const { random, stamper, oracle, mix } = state;
  const from: Side = side === 0 ? 1 : 0;
  const cutoffMs = stamper.nextTs() - oracle.settings.venueQuoteLifetimeMs;
  const venuePrice = oracle.venues[0]!.bestPrice(from, cutoffMs);
  if (venuePrice === noPrice) throw new Error(`no fresh venue level to sweep into on side ${from}`);
  const book = oracle.contexts[0]!.book;
  const bookLots = book.fillableLots(side, venuePrice, Number.MAX_SAFE_INTEGER, noAccount, SelfTradePrevention.none);
  const lots = bookLots + random.int(1, sweepVenueLotsMax);
  const market = random.chance(0.5);
  if (market) mix.sweepMarket++;
  else mix.sweepIoc++;
  const place = stamper.place(random.int(1, userCount), side, TimeInForce.ioc, market ? 0 : venuePrice, lots, market ? OrderType.market : OrderType.limit);
  state.live.register(place);
  return place;
}

/**
 * Commands between two quote ticks of the hybrid mix. The AMM worker quotes every 500 ms (its default
 * interval), but the stream's clock runs at one millisecond per command, a thousand times slower than the
 * engine applies them; ticks on that clock would send a quote every 125 commands (four pools), far more
 * than a worker does. So the interval counts commands instead: every 5 000 commands is every 2.5-5 ms of
 * engine time at the 1-2 M commands per second measured here, a hundred times the worker's rate, which
 * keeps the figure on the safe side. The heartbeat does follow the journaled clock, so no venue expires.
 */
export const quoteTickCommands = 5_000;

/**
 * The venues' side of the hybrid stream, standing in for their workers: every venue is quoted once at the
 * end of the setup; at each quote tick the venues that our takers filled against since their last quote
 * (their pools moved) or that have been quiet for a heartbeat are queued, and the queued quotes go into the
 * stream one per command, each with the venue's next version. A re-quote sends the venue's levels as first
 * quoted: between ticks the outside market (arbitrage) is taken to bring the pool back to its price, so
 * the levels the sweeps consumed come back; the engine does the same work for a quote either way.
 */
class VenueFeed {
  private readonly versions: number[];
  private readonly quotedAtMs: number[];
  /** The venue's AMM fills in the oracle at the tick that last queued its quote. */
  private readonly fillsAtQuote: number[];
  private readonly queue: number[] = [];

  constructor(private readonly venues: readonly VenueQuoteLevels[]) {
    this.versions = venues.map(() => 0);
    this.quotedAtMs = venues.map(() => 0);
    this.fillsAtQuote = venues.map(() => 0);
  }

  /** The first quote of every venue. */
  quoteAll(stamper: Stamper): QuoteVenue[] {
    return this.venues.map((_, index) => this.quote(stamper, index));
  }

  /** A quote tick at `nowMs`: queues the venues the worker would quote now. */
  tick(nowMs: number, heartbeatMs: number, live: LiveOrders): void {
    for (let index = 0; index < this.venues.length; index++) {
      const fills = live.ammFillsByVenue.get(this.venues[index]!.poolId) ?? 0;
      if (fills === this.fillsAtQuote[index] && nowMs - this.quotedAtMs[index]! < heartbeatMs) continue;
      this.fillsAtQuote[index] = fills;
      this.queue.push(index);
    }
  }

  /** The next queued quote, or null. */
  next(stamper: Stamper): QuoteVenue | null {
    const index = this.queue.shift();
    return index === undefined ? null : this.quote(stamper, index);
  }

  private quote(stamper: Stamper, index: number): QuoteVenue {
    const command = stamper.quote(this.venues[index]!, ++this.versions[index]!);
    this.quotedAtMs[index] = command.ts;
    return command;
  }
}

function newPeerOps(count: number): PeerOps {
  return {
    kinds: new Uint8Array(count),
    ids: new Array<string>(count).fill(''),
    sides: new Uint8Array(count),
    prices: new Float64Array(count),
    sizes: new Float64Array(count),
  };
}

/**
 * Translates one command for the peer: ids as strings, prices in ticks, sizes in lots. A GTC or IOC limit
 * is the peer's limit with that time in force; an amend is the peer's `modify`, of the price or of the
 * size. Our amend's quantity is the order's new total (its filled part included) and the peer's size is
 * what is left to fill, so a size amend is translated with `live`, read before the oracle applies it.
 */
function translate(ops: PeerOps, index: number, command: Command, live: LiveOrders | null = null): void {
  if (command.kind === CommandKind.placeOrder && command.orderType === OrderType.limit && command.timeInForce !== TimeInForce.fok) {
    ops.kinds[index] = command.timeInForce === TimeInForce.ioc ? PeerOpKind.iocLimit : PeerOpKind.limit;
    ops.ids[index] = String(command.orderId);
    ops.sides[index] = command.side;
    ops.prices[index] = command.priceTicks;
    ops.sizes[index] = command.quantityLots;
  } else if (command.kind === CommandKind.cancelOrder) {
    ops.kinds[index] = PeerOpKind.cancel;
    ops.ids[index] = String(command.orderId);
  } else if (command.kind === CommandKind.amendOrder && live !== null && (command.priceTicks === 0) !== (command.quantityLots === 0)) {
    ops.ids[index] = String(command.orderId);
    if (command.priceTicks !== 0) {
      ops.kinds[index] = PeerOpKind.modifyPrice;
      ops.prices[index] = command.priceTicks;
    } else {
      const filled = live.total[command.orderId]! - live.remaining[command.orderId]!;
      ops.kinds[index] = PeerOpKind.modifySize;
      ops.sizes[index] = command.quantityLots - filled;
    }
  } else {
    throw new Error(`the peer has no translation for command kind ${command.kind}`);
  }
}

/**
 * How far through the touch, and how large, the simple mix's crossing limits are. A crossing limit rests
 * whatever it does not fill, so for 50 % placements against 30 % cancels to hold the book steady each one
 * must take out about one resting order net: these values (found by trying) make it sweep a few makers and
 * rarely rest, and the realised mix comes out at about 50 / 30 / 20.
 */
const simpleThroughTicksMax = 40;
const simpleTakerLotsMax = 450;

/**
 * The simple mix: 50 % passive GTC limits, 30 % cancels of live orders and 20 % GTC limits priced at or
 * through the best opposite price (they trade, and rest what is left; see `simpleTakerLotsMax`). The same
 * band rule as above keeps the resting count near the target. Only placements and cancels, so the peer
 * book can run it too.
 */
export function simpleMix(options: StreamOptions): Scenario {
  assertPairZero(options.markets);
  const random = new Prng(options.seed);
  const stamper = new Stamper();
  const { setup, preload } = buildSetup(stamper, random, options.resting);
  const live = new LiveOrders(options.resting + options.commands + 1);
  const oracle = prepareOracle(options.markets, setup, live);
  const restingAfterSetup = oracle.contexts[0]!.book.orderCount;
  const { low, high } = band(options.resting);
  const stream: Command[] = new Array<Command>(options.commands);
  const expected = new Uint16Array(options.commands);
  const mix = emptyMix();
  const tradesBefore = live.trades;
  const peerSetup = newPeerOps(preload.length);
  for (let index = 0; index < preload.length; index++) translate(peerSetup, index, preload[index]!);
  const peerStream = newPeerOps(options.commands);

  for (let index = 0; index < options.commands; index++) {
    const roll = random.next();
    let kind = roll < 0.5 ? 0 : roll < 0.8 ? 1 : 2;
    if (kind === 0 && live.count > high) kind = 1;
    else if (kind === 1 && live.count < low) kind = 0;
    if (live.count === 0 && kind === 1) kind = 0;

    let command: Command;
    if (kind === 1) {
      const orderId = live.pick(random);
      mix.cancel++;
      command = stamper.cancel(live.user[orderId]!, orderId);
    } else {
      const side: Side = random.chance(0.5) ? 0 : 1;
      const price = kind === 0 ? passivePrice(random, side) : crossingPrice(oracle, random, side, simpleThroughTicksMax);
      if (kind === 0) mix.gtc++;
      else mix.crossingGtc++;
      const lots = random.int(1, kind === 0 ? lotsMax : simpleTakerLotsMax);
      const place = stamper.place(random.int(1, userCount), side, TimeInForce.gtc, price, lots);
      live.register(place);
      command = place;
    }
    stream[index] = command;
    translate(peerStream, index, command);
    applyToOracle(oracle, command, expected, index);
  }

  return {
    name: 'simple mix',
    restingTarget: options.resting,
    setup,
    stream,
    expected,
    expectedHash: options.skipHash === true ? '' : stateHash(oracle),
    restingAfterSetup,
    restingAfterStream: oracle.contexts[0]!.book.orderCount,
    trades: live.trades - tradesBefore,
    ammFills: live.ammFills,
    ammFillsByVenue: live.ammFillsByVenue,
    mix,
    peerSetup,
    peerStream,
  };
}
