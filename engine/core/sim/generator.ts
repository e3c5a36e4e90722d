/**
 * A seeded generator of realistic command streams: resting limits around a drifting mid, cancels and
 * amends of live orders, crossing limits, market, IOC, FOK and post-only orders, stops, cancel-all,
 * batches, deposits and withdrawals (some to external addresses), self-trades (few users, mixed STP
 * modes), duplicate client ids, venue quotes of AMM pools around the mid (some stale, some malformed),
 * quiet spells after which venues expire, paper accounts opened with starting balances, TWAPs (live and
 * paper, limit and market slices, some invalid) with their cancels and the runtime's RunTimers as time
 * moves on, scale orders (some refused whole), and a sprinkle of malformed commands. The same seed gives
 * the same stream.
 *
 * The generator remembers the orders it placed; given an oracle that knows which are still live, it
 * mostly cancels and amends live ones, as a real client would. TWAP slices take order ids inside the
 * engine, so an oracle that tells the engine's last order id keeps the generator's ids increasing.
 */
import {
  CommandKind,
  OrderType,
  SelfTradePrevention,
  TimeInForce,
  type Command,
  type Mode,
  type OrderRequest,
  type Side,
} from '../commands.ts';
import { scaleOrdersMax, withdrawAddressCharsMax, withdrawReferenceCharsMax } from '../limits.ts';
import type { Asset, Markets, Pair } from '../units.ts';

/** sfc32: a small, fast, well-tested 32-bit PRNG; the whole stream derives from its seed. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let round = 0; round < 16; round++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

export interface LiveOrderOracle {
  isLive(orderId: number): boolean;
  /** The engine's last order id: orders the engine placed itself (TWAP slices) used ids the generator must skip. */
  lastOrderId?(): number;
}

/**
 * A domain's part of the seeded simulation (its descriptor's `simulation`): given the generator's random
 * stream and the time of the command it returns, a command of the domain, valid or deliberately not.
 */
export interface DomainCommandGenerator {
  next(random: Prng, nowMs: number): Command;
}

export interface GeneratorOptions {
  readonly seed: number;
  readonly markets: Markets;
  /** The domains' generators (engine/domains/index.ts: `domainGenerators()`); a share of commands comes from them. */
  readonly domains?: readonly DomainCommandGenerator[];
  /** Users 1..users trade; few users make self-trades common. */
  readonly users?: number;
  /** Pairs to trade (ids); all by default. */
  readonly pairIds?: readonly number[];
  /** Share of orders in paper mode. */
  readonly paperShare?: number;
  readonly oracle?: LiveOrderOracle;
  /** Timestamp of the first command, in milliseconds. */
  readonly startTs?: number;
}

interface PlacedOrder {
  orderId: number;
  userId: number;
  mode: Mode;
  pairId: number;
  side: Side;
  priceTicks: number;
  quantityLots: number;
}

interface PairState {
  pair: Pair;
  midTicks: number;
  /** Typical distance of resting orders from the mid. */
  spreadTicks: number;
  lotsMax: number;
  /** Quote versions of this pair's venues, by venue index (pool id = pair id × 10 + index + 1). */
  venueVersions: number[];
}

/** Venues quoting each pair, and the chains they sit on (by venue index). */
const venuesPerPair = 3;
const venueChains = [1, 3, 4] as const;
/** A quiet spell: longer than the engine's default venue quote lifetime, so quotes expire. */
const quietSpellMs = 31_000;

/** Rough USD prices to start each base asset's mid from. */
const startPrices: Record<string, number> = { ETH: 3000, BTC: 60000, SOL: 150, DOGE: 0.15, PLAT: 0.5, PRED: 0.2 };

const rememberedMax = 4096;
/** Share of commands that come from the domains' generators when there are any. */
const domainShare = 0.01;
/** Share of live withdrawals that go to an external address (WithdrawTo) rather than a plain Withdraw. */
const withdrawToShare = 0.4;
/** TWAPs remembered for cancels. */
const rememberedTwapsMax = 64;
/** The longest time step before a RunTimers: past a TWAP interval or two, so some TWAPs fall behind. */
const timerStepMsMax = 2_500;
/** Chain ids of the shell's chain table (1 ethereum, 2 base, 3 arbitrum, 4 solana). */
const chainIds = [1, 2, 3, 4] as const;
const solanaChainId = 4;
const hexDigits = '0123456789abcdef';
const base58Digits = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Quote atoms each user starts with per mode (10 million of a 6-decimal quote asset). */
const startQuoteAtoms = 10_000_000_000_000;

export class CommandGenerator {
  private readonly random: Prng;
  /** The domains' own stream (see domainCommand). */
  private readonly domainRandom: Prng;
  private readonly users: number;
  private readonly pairs: PairState[];
  private readonly paperShare: number;
  private readonly remembered: PlacedOrder[] = [];
  private rememberedNext = 0;
  private seq = 0;
  private ts: number;
  private nextOrderId = 1;
  private nextTwapId = 1;
  private nextScaleId = 1;
  private readonly twaps: Array<{ twapId: number; userId: number; mode: Mode }> = [];

  constructor(private readonly options: GeneratorOptions) {
    this.random = new Prng(options.seed);
    this.domainRandom = new Prng(options.seed ^ 0x5eed_d0ca);
    this.users = options.users ?? 12;
    this.paperShare = options.paperShare ?? 0.2;
    this.ts = options.startTs ?? 1_767_225_600_000;
    const pairIds = options.pairIds ?? options.markets.pairs.map((pair) => pair.id);
    this.pairs = pairIds.map((id) => {
      const pair = options.markets.pairById(id);
      if (pair === undefined) throw new Error(`unknown pair ${id}`);
      const tickUsd = Number(pair.tick.mantissa) / 10 ** pair.tick.scale;
      const midTicks = Math.max(100, Math.round((startPrices[pair.base.symbol] ?? 1) / tickUsd));
      const spreadTicks = Math.max(2, Math.round(midTicks / 2000));
      // Orders up to about 20 000 quote units of notional.
      const lotsMax = Math.max(1, Math.floor((20_000 * 10 ** pair.quote.decimals) / (midTicks * pair.quoteAtomsPerTickLot)));
      return { pair, midTicks, spreadTicks, lotsMax, venueVersions: new Array<number>(venuesPerPair).fill(0) };
    });
  }

  /** Deposits that fund every user in both modes, so that most orders can pay for themselves. */
  fundingCommands(): Command[] {
    const commands: Command[] = [];
    const quotes = new Set<number>();
    for (const state of this.pairs) quotes.add(state.pair.quote.id);
    for (let userId = 1; userId <= this.users; userId++) {
      for (const mode of [0, 1] as const) {
        for (const assetId of quotes) {
          commands.push({ kind: CommandKind.deposit, ...this.stamp(), userId, mode, assetId, amountAtoms: startQuoteAtoms });
        }
        for (const state of this.pairs) {
          const lots = Math.floor(startQuoteAtoms / (state.midTicks * state.pair.quoteAtomsPerTickLot));
          const amountAtoms = lots * state.pair.baseAtomsPerLot;
          commands.push({ kind: CommandKind.deposit, ...this.stamp(), userId, mode, assetId: state.pair.base.id, amountAtoms });
        }
      }
    }
    return commands;
  }

  private stamp(): { seq: number; ts: number } {
    this.seq++;
    this.ts += this.random.int(0, 3);
    return { seq: this.seq, ts: this.ts };
  }

  next(): Command {
    const domains = this.options.domains;
    if (domains !== undefined && domains.length > 0 && this.domainRandom.chance(domainShare)) return this.domainCommand(domains);
    const random = this.random;
    const state = random.pick(this.pairs);
    // The mid drifts by a tick now and then, so books move and stops trigger.
    if (random.chance(0.2)) state.midTicks = Math.max(state.spreadTicks * 4, state.midTicks + random.int(-1, 1) * state.spreadTicks);
    const roll = random.next();
    if (roll < 0.36) return this.place(state, 'rest');
    if (roll < 0.42) return this.place(state, 'cross');
    if (roll < 0.46) return this.place(state, 'ioc');
    if (roll < 0.48) return this.place(state, 'fok');
    if (roll < 0.53) return this.place(state, 'postOnly');
    if (roll < 0.56) return this.place(state, 'market');
    if (roll < 0.62) return this.place(state, 'stop');
    if (roll < 0.74) return this.cancel();
    if (roll < 0.88) return this.amend(state);
    if (roll < 0.884) return this.cancelAll(state);
    if (roll < 0.91) return this.batch(state);
    if (roll < 0.92) return this.cancelBatch();
    if (roll < 0.95) return this.funding(state);
    if (roll < 0.96) return this.place(state, 'malformed');
    if (roll < 0.985) return this.quoteVenue(state);
    if (roll < 0.987) return this.expireVenues();
    if (roll < 0.989) return this.openPaperAccount(state);
    if (roll < 0.9915) return this.startTwap(state);
    if (roll < 0.9925) return this.cancelTwap();
    if (roll < 0.9965) return this.runTimers();
    if (roll < 0.9985) return this.placeScale(state);
    return this.place(state, 'rest');
  }

  /**
   * A domain's command, drawn from a stream of its own and stamped at the current time: the exchange's
   * stream stays the same command for command whether domains are simulated or not.
   */
  private domainCommand(domains: readonly DomainCommandGenerator[]): Command {
    const command = this.domainRandom.pick(domains).next(this.domainRandom, this.ts);
    command.seq = ++this.seq;
    command.ts = this.ts;
    return command;
  }

  /** The next order id: after the generator's last and the engine's (whose TWAP slices take ids too). */
  private orderId(): number {
    const engineLast = this.options.oracle?.lastOrderId?.() ?? 0;
    if (this.nextOrderId <= engineLast) this.nextOrderId = engineLast + 1;
    return this.nextOrderId++;
  }

  /**
   * A TWAP over a few seconds (so that it slices, fills, rolls over and ends within a run), with market
   * slices or an aggressive or passive limit; about one in twelve is invalid (an interval below the
   * minimum, fewer lots than slices, a reused id).
   */
  private startTwap(state: PairState): Command {
    const random = this.random;
    const intervalMs = random.int(1, 3) * 1_000;
    const durationMs = intervalMs * random.int(1, 5) - random.pick([0, 0, 400]);
    const slices = Math.ceil(durationMs / intervalMs);
    const side: Side = random.chance(0.5) ? 0 : 1;
    const limitRoll = random.next();
    let limitPriceTicks = 0;
    if (limitRoll < 0.35) limitPriceTicks = Math.max(1, side === 0 ? state.midTicks + random.int(0, state.spreadTicks * 3) : state.midTicks - random.int(0, state.spreadTicks * 3));
    else if (limitRoll < 0.5) limitPriceTicks = Math.max(1, side === 0 ? state.midTicks - state.spreadTicks * 20 : state.midTicks + state.spreadTicks * 20);
    let twapId = this.nextTwapId++;
    let quantityLots = slices + random.int(0, state.lotsMax);
    let interval = intervalMs;
    const invalidRoll = random.next();
    if (invalidRoll < 0.03) interval = 500;
    else if (invalidRoll < 0.06) quantityLots = Math.max(1, slices - 1);
    else if (invalidRoll < 0.08) twapId = Math.max(1, twapId - 3);
    const userId = random.int(1, this.users);
    const mode = this.mode();
    if (this.twaps.length >= rememberedTwapsMax) this.twaps.shift();
    this.twaps.push({ twapId, userId, mode });
    return { kind: CommandKind.startTwap, ...this.stamp(), twapId, userId, mode, pairId: state.pair.id, side, quantityLots, limitPriceTicks, durationMs, intervalMs: interval };
  }

  /** A cancel of a remembered TWAP (often ended already), now and then by somebody else. */
  private cancelTwap(): Command {
    const random = this.random;
    const target = this.twaps.length === 0 ? { twapId: 1, userId: 1, mode: 0 as Mode } : random.pick(this.twaps);
    const userId = random.chance(0.1) ? (target.userId % this.users) + 1 : target.userId;
    return { kind: CommandKind.cancelTwap, ...this.stamp(), userId, mode: target.mode, twapId: target.twapId };
  }

  /** Time moves on (up to a few intervals, now and then past whole windows), then the runtime's timer command. */
  private runTimers(): Command {
    this.ts += this.random.chance(0.05) ? 20_000 : this.random.int(0, timerStepMsMax);
    return { kind: CommandKind.runTimers, ...this.stamp() };
  }

  /**
   * A ladder of resting limits of one user on one side, away from the mid; some cross the book (refused
   * whole: a scale never takes), some are too large for the balance, some have a count out of range.
   */
  private placeScale(state: PairState): Command {
    const random = this.random;
    const side: Side = random.chance(0.5) ? 0 : 1;
    const userId = random.int(1, this.users);
    const mode = this.mode();
    const invalidRoll = random.next();
    const count = invalidRoll < 0.04 ? random.pick([1, scaleOrdersMax + 1]) : random.int(2, 8);
    const crossing = invalidRoll >= 0.04 && invalidRoll < 0.15;
    const huge = invalidRoll >= 0.15 && invalidRoll < 0.2;
    const startAway = crossing ? -random.int(state.spreadTicks * 20, state.spreadTicks * 40) : random.int(1, state.spreadTicks * 20);
    const stepTicks = random.int(1, state.spreadTicks);
    const orders: OrderRequest[] = [];
    for (let index = 0; index < count; index++) {
      const away = startAway + index * stepTicks;
      const request: OrderRequest = {
        orderId: this.orderId(),
        userId,
        mode,
        pairId: state.pair.id,
        side,
        orderType: OrderType.limit,
        timeInForce: TimeInForce.gtc,
        priceTicks: Math.max(1, side === 0 ? state.midTicks - away : state.midTicks + away),
        stopPriceTicks: 0,
        quantityLots: huge ? state.lotsMax * 1_000 : random.int(1, Math.max(1, Math.floor(state.lotsMax / 4))),
        postOnly: false,
        selfTradePrevention: SelfTradePrevention.cancelTaker,
        clientOrderId: '',
      };
      this.remember(request);
      orders.push(request);
    }
    return { kind: CommandKind.placeScale, ...this.stamp(), scaleId: this.nextScaleId++, orders };
  }

  /**
   * A venue's levels around the mid, outside the resting orders' usual spread so that some takers reach
   * them; one in twenty is malformed (unsorted or crossed) and one in twenty repeats an old version.
   */
  private quoteVenue(state: PairState): Command {
    const random = this.random;
    const venue = random.int(0, venuesPerPair - 1);
    const poolId = state.pair.id * 10 + venue + 1;
    const chainId = venueChains[venue]!;
    const stale = random.chance(0.05) && state.venueVersions[venue]! > 0;
    if (!stale) state.venueVersions[venue]!++;
    const version = Math.max(1, state.venueVersions[venue]!);
    const levels = random.int(0, 12);
    const stepTicks = Math.max(1, Math.round(state.spreadTicks / 2));
    const firstAway = random.int(1, state.spreadTicks * 4);
    const bidPriceTicks: number[] = [];
    const bidLots: number[] = [];
    const askPriceTicks: number[] = [];
    const askLots: number[] = [];
    for (let level = 0; level < levels; level++) {
      const bid = state.midTicks - firstAway - level * stepTicks;
      if (bid >= 1) {
        bidPriceTicks.push(bid);
        bidLots.push(random.int(1, state.lotsMax));
      }
      askPriceTicks.push(state.midTicks + firstAway + level * stepTicks);
      askLots.push(random.int(1, state.lotsMax));
    }
    if (random.chance(0.05) && askPriceTicks.length > 1) askPriceTicks.reverse();
    else if (random.chance(0.05) && askPriceTicks.length > 0 && bidPriceTicks.length > 0) askPriceTicks[0] = bidPriceTicks[0]!;
    return { kind: CommandKind.quoteVenue, ...this.stamp(), pairId: state.pair.id, poolId, chainId, version, bidPriceTicks, bidLots, askPriceTicks, askLots };
  }

  /** A quiet spell now and then (time jumps past the quote lifetime), then the runtime's expiry command. */
  private expireVenues(): Command {
    if (this.random.chance(0.3)) this.ts += quietSpellMs;
    return { kind: CommandKind.expireVenues, ...this.stamp() };
  }

  /** A paper account opened with starting balances: a new user's, or an existing one's (refused). */
  private openPaperAccount(state: PairState): Command {
    const random = this.random;
    const userId = random.int(1, this.users + 4);
    const assetIds = [state.pair.quote.id, state.pair.base.id];
    const amountsAtoms = [random.int(1, 1_000_000) * 10 ** Math.min(state.pair.quote.decimals, 4), random.int(1, 1000) * state.pair.baseAtomsPerLot];
    return { kind: CommandKind.openPaperAccount, ...this.stamp(), userId, assetIds, amountsAtoms };
  }

  private mode(): Mode {
    return this.random.chance(this.paperShare) ? 1 : 0;
  }

  private stp(): SelfTradePrevention {
    const roll = this.random.next();
    if (roll < 0.7) return SelfTradePrevention.cancelTaker;
    if (roll < 0.8) return SelfTradePrevention.cancelMaker;
    if (roll < 0.9) return SelfTradePrevention.cancelBoth;
    return SelfTradePrevention.none;
  }

  private request(state: PairState, kind: string): OrderRequest {
    const random = this.random;
    const side: Side = random.chance(0.5) ? 0 : 1;
    const away = random.int(1, state.spreadTicks * 40);
    const through = random.int(0, state.spreadTicks * 3);
    const passive = side === 0 ? state.midTicks - away : state.midTicks + away;
    const aggressive = side === 0 ? state.midTicks + through : state.midTicks - through;
    const request: OrderRequest = {
      orderId: this.orderId(),
      userId: random.int(1, this.users),
      mode: this.mode(),
      pairId: state.pair.id,
      side,
      orderType: OrderType.limit,
      timeInForce: TimeInForce.gtc,
      priceTicks: passive,
      stopPriceTicks: 0,
      quantityLots: random.int(1, state.lotsMax),
      postOnly: false,
      selfTradePrevention: this.stp(),
      clientOrderId: random.chance(0.15) ? `c${random.int(1, 200)}` : '',
    };
    switch (kind) {
      case 'cross':
        request.priceTicks = aggressive;
        break;
      case 'ioc':
        request.priceTicks = aggressive;
        request.timeInForce = TimeInForce.ioc;
        break;
      case 'fok':
        request.priceTicks = aggressive;
        request.timeInForce = TimeInForce.fok;
        break;
      case 'postOnly':
        request.postOnly = true;
        if (random.chance(0.3)) request.priceTicks = aggressive;
        break;
      case 'market':
        request.orderType = OrderType.market;
        request.priceTicks = 0;
        break;
      case 'stop': {
        const market = random.chance(0.5);
        request.orderType = market ? OrderType.stopMarket : OrderType.stopLimit;
        const trigger = random.int(0, state.spreadTicks * 4);
        request.stopPriceTicks = Math.max(1, side === 0 ? state.midTicks + trigger : state.midTicks - trigger);
        request.priceTicks = market ? 0 : Math.max(1, side === 0 ? request.stopPriceTicks + through : request.stopPriceTicks - through);
        if (!market && random.chance(0.2)) request.timeInForce = TimeInForce.ioc;
        break;
      }
      case 'malformed':
        this.malform(request, state);
        break;
    }
    request.priceTicks = Math.max(request.orderType === OrderType.limit || request.orderType === OrderType.stopLimit ? 1 : 0, request.priceTicks);
    return request;
  }

  private malform(request: OrderRequest, state: PairState): void {
    switch (this.random.int(0, 7)) {
      case 0:
        request.quantityLots = 0;
        break;
      case 1:
        request.priceTicks = state.pair.priceTicksMax + 1;
        break;
      case 2:
        request.pairId = 999;
        break;
      case 3:
        request.quantityLots = state.pair.quantityLotsMax + 1;
        break;
      case 4:
        request.orderId = Math.max(1, request.orderId - 10);
        break;
      case 5:
        request.postOnly = true;
        request.timeInForce = TimeInForce.ioc;
        break;
      case 6:
        request.orderType = OrderType.stopLimit;
        request.stopPriceTicks = 0;
        break;
      default:
        request.quantityLots = state.lotsMax * 100_000;
        break;
    }
  }

  private remember(request: OrderRequest): void {
    const placed: PlacedOrder = {
      orderId: request.orderId,
      userId: request.userId,
      mode: request.mode,
      pairId: request.pairId,
      side: request.side,
      priceTicks: request.priceTicks,
      quantityLots: request.quantityLots,
    };
    if (this.remembered.length < rememberedMax) this.remembered.push(placed);
    else this.remembered[this.rememberedNext] = placed;
    this.rememberedNext = (this.rememberedNext + 1) % rememberedMax;
  }

  private place(state: PairState, kind: string): Command {
    const request = this.request(state, kind);
    this.remember(request);
    return { kind: CommandKind.placeOrder, ...this.stamp(), ...request };
  }

  /** A remembered order, live if the oracle can find one in a few tries. */
  private target(): PlacedOrder | undefined {
    if (this.remembered.length === 0) return undefined;
    let candidate = this.random.pick(this.remembered);
    const oracle = this.options.oracle;
    for (let attempt = 0; oracle !== undefined && attempt < 6 && !oracle.isLive(candidate.orderId); attempt++) {
      candidate = this.random.pick(this.remembered);
    }
    return candidate;
  }

  private cancel(): Command {
    const target = this.target();
    const stamp = this.stamp();
    if (target === undefined) return { kind: CommandKind.cancelOrder, ...stamp, userId: 1, mode: 0, orderId: 1, clientOrderId: '' };
    // Now and then somebody else tries to cancel it: that must look like an unknown order.
    const userId = this.random.chance(0.05) ? (target.userId % this.users) + 1 : target.userId;
    return { kind: CommandKind.cancelOrder, ...stamp, userId, mode: target.mode, orderId: target.orderId, clientOrderId: '' };
  }

  private amend(state: PairState): Command {
    const target = this.target();
    const stamp = this.stamp();
    if (target === undefined) return { kind: CommandKind.amendOrder, ...stamp, userId: 1, mode: 0, orderId: 1, priceTicks: 0, quantityLots: 0 };
    const random = this.random;
    let priceTicks = 0;
    let quantityLots = 0;
    const roll = random.next();
    if (roll < 0.5) {
      priceTicks = Math.max(1, target.priceTicks + random.int(-state.spreadTicks * 2, state.spreadTicks * 2));
    } else if (roll < 0.8) {
      quantityLots = Math.max(1, Math.floor(target.quantityLots * random.int(20, 90) / 100));
    } else {
      quantityLots = target.quantityLots + random.int(1, state.lotsMax);
      if (random.chance(0.5)) priceTicks = Math.max(1, target.priceTicks + random.int(-state.spreadTicks, state.spreadTicks));
    }
    if (priceTicks !== 0) target.priceTicks = priceTicks;
    if (quantityLots !== 0) target.quantityLots = quantityLots;
    return { kind: CommandKind.amendOrder, ...stamp, userId: target.userId, mode: target.mode, orderId: target.orderId, priceTicks, quantityLots };
  }

  private cancelAll(state: PairState): Command {
    const pairId = this.random.chance(0.7) ? state.pair.id : 0;
    return { kind: CommandKind.cancelAll, ...this.stamp(), userId: this.random.int(1, this.users), mode: this.mode(), pairId };
  }

  private batch(state: PairState): Command {
    const random = this.random;
    const count = random.chance(0.05) ? 11 : random.int(1, 10);
    const kinds = ['rest', 'rest', 'rest', 'cross', 'ioc', 'postOnly', 'malformed'];
    const orders: OrderRequest[] = [];
    for (let index = 0; index < count; index++) {
      const request = this.request(state, random.pick(kinds));
      this.remember(request);
      orders.push(request);
    }
    return { kind: CommandKind.placeBatch, ...this.stamp(), orders };
  }

  private cancelBatch(): Command {
    const first = this.target();
    const userId = first?.userId ?? 1;
    const mode = first?.mode ?? 0;
    const orderIds: number[] = [];
    const count = this.random.int(1, 8);
    for (let index = 0; index < count; index++) {
      const target = this.target();
      if (target !== undefined) orderIds.push(target.orderId);
    }
    return { kind: CommandKind.cancelBatch, ...this.stamp(), userId, mode, orderIds };
  }

  private funding(state: PairState): Command {
    const random = this.random;
    const userId = random.int(1, this.users);
    const mode = this.mode();
    const asset = random.chance(0.5) ? state.pair.quote : state.pair.base;
    const amountAtoms = random.int(1, 1_000_000) * 10 ** Math.min(asset.decimals, 4);
    const kind = random.chance(0.5) ? CommandKind.deposit : CommandKind.withdraw;
    if (kind === CommandKind.withdraw && mode === 0 && random.chance(withdrawToShare)) return this.withdrawTo(userId, asset, amountAtoms);
    return { kind, ...this.stamp(), userId, mode, assetId: asset.id, amountAtoms };
  }

  /**
   * A withdrawal to an address on one of the shell's chains, with a reference most of the time. About one
   * in ten is invalid (a chain id out of range, an empty or overlong address, an overlong reference) and
   * must be refused; some strings sit exactly at their limits, and some references are not ASCII, so the
   * journal's string coding is exercised at its edges.
   */
  private withdrawTo(userId: number, asset: Asset, amountAtoms: number): Command {
    const random = this.random;
    let chainId: number = random.pick(chainIds);
    let address = chainId === solanaChainId ? this.digits(base58Digits, random.int(32, 44)) : '0x' + this.digits(hexDigits, 40);
    let reference = '';
    const referenceRoll = random.next();
    if (referenceRoll < 0.5) reference = `w-${userId}-${random.int(1, 1_000_000)}`;
    else if (referenceRoll < 0.6) reference = `retrait-é-${random.int(1, 1000)}-出金`;
    else if (referenceRoll < 0.65) reference = this.digits(hexDigits, withdrawReferenceCharsMax);
    const invalidRoll = random.next();
    if (invalidRoll < 0.03) chainId = random.chance(0.5) ? 0 : 256;
    else if (invalidRoll < 0.05) address = '';
    else if (invalidRoll < 0.07) address = this.digits(base58Digits, withdrawAddressCharsMax + 1);
    else if (invalidRoll < 0.1) reference = this.digits(hexDigits, withdrawReferenceCharsMax + 1);
    else if (invalidRoll < 0.12) address = this.digits(base58Digits, withdrawAddressCharsMax);
    return { kind: CommandKind.withdrawTo, ...this.stamp(), userId, assetId: asset.id, amountAtoms, chainId, address, reference };
  }

  /** `count` characters drawn from `alphabet`. */
  private digits(alphabet: string, count: number): string {
    let text = '';
    for (let index = 0; index < count; index++) text += alphabet[this.random.int(0, alphabet.length - 1)];
    return text;
  }
}
