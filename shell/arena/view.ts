/**
 * The arena as durable events left it: what the arena routes and /ws/arena show. It starts from the
 * recovered engine's arena (everything recovered is durable) and then follows the arena's events of each
 * durable batch, so it never shows what a crash could take back.
 *
 * It keeps the market's settings and epoch, the NAVs and prices of the last NavUpdated, each team book's
 * levels (price → lots and orders), each user's open orders and positions (shares and cost basis, by the
 * engine's own rule: a buy adds its notional, a sell removes the floored pro-rata share of the cost), the
 * resolved epochs, the headlines, the scoreboard and the fee pool (its balance at the last resolution plus
 * the fees of trades since).
 */
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import type { Engine } from '../../engine/core/engine.ts';
import {
  Arena,
  ArenaEventType,
  headlinesMax,
  houseUserId,
  poolUserId,
  teamCount,
  type ArenaOrderAccepted,
  type ArenaOrderCancelled,
  type ArenaOrderRested,
  type ArenaSeeded,
  type ArenaTrade,
  type EpochResolved,
  type HeadlineAdded,
  type HouseInventoryChanged,
  type NavUpdated,
  type SeedArena,
} from '../../engine/domains/arena/index.ts';
import type { EpochRecord, Headline } from '../../engine/domains/arena/arena.ts';
import { epochsKeptMax } from '../../engine/domains/arena/commands.ts';

export interface Level {
  lots: number;
  orders: number;
}

export interface OpenOrder {
  orderId: number;
  userId: number;
  team: number;
  side: number;
  priceTicks: number;
  sizeLots: number;
  remainingLots: number;
}

export interface Holding {
  lots: number;
  costAtoms: number;
}

/** What one durable batch changed, for the stream: levels touched per team and side, and whether NAVs moved. */
export interface BatchChanges {
  readonly levels: Array<[Set<number>, Set<number>]>;
  navs: boolean;
}

export class ArenaView {
  config: SeedArena | null = null;
  epoch = 0;
  epochStartMs = 0;
  epochEndMs = 0;
  startPricesE8: number[][] = [[], []];
  pricesE8: number[][] = [[], []];
  navsAtoms = [0, 0];
  updatedMs = 0;
  readonly wins = [0, 0];
  ties = 0;
  poolAtoms = 0;
  /** Per team, bids and asks by price in ticks. */
  readonly books: Array<[Map<number, Level>, Map<number, Level>]> = [
    [new Map(), new Map()],
    [new Map(), new Map()],
  ];
  readonly orders = new Map<number, OpenOrder>();
  readonly holdings = new Map<number, Holding[]>();
  /** Resolved epochs, oldest first (the engine keeps the newest `epochsKeptMax`). */
  readonly history: EpochRecord[] = [];
  /** Newest first. */
  headlines: Headline[] = [];

  constructor(engine: Engine) {
    const arena = engine.domain(Arena.domainName);
    if (!(arena instanceof Arena)) throw new Error('this engine has no arena module');
    const state = arena.snapshot();
    const pool = engine.ledger.find(poolUserId, 0);
    const usdc = engine.markets.assetBySymbol('USDC');
    if (pool !== noAccount && usdc !== undefined) this.poolAtoms = engine.ledger.availableAtoms(pool, usdc.index);
    if (state === null) return;
    this.config = state.config;
    this.epoch = state.epoch;
    this.epochStartMs = state.epochStartMs;
    this.epochEndMs = state.epochEndMs;
    this.startPricesE8 = state.startPricesE8;
    this.pricesE8 = state.pricesE8;
    this.navsAtoms = state.navsAtoms;
    this.updatedMs = state.epochStartMs;
    this.wins[0] = state.wins[0]!;
    this.wins[1] = state.wins[1]!;
    this.ties = state.ties;
    state.participants.forEach((userId, participant) => {
      const row = state.positions[participant]!;
      this.holdings.set(userId, [
        { lots: row[0]! + row[1]!, costAtoms: row[2]! },
        { lots: row[3]! + row[4]!, costAtoms: row[5]! },
      ]);
    });
    for (const order of state.orders) {
      const userId = state.participants[order.participant]!;
      this.orders.set(order.orderId, { orderId: order.orderId, userId, team: order.team, side: order.side, priceTicks: order.priceTicks, sizeLots: order.remainingLots, remainingLots: order.remainingLots });
      this.addLevel(order.team, order.side, order.priceTicks, order.remainingLots, 1);
    }
    this.history.push(...state.history);
    this.headlines = state.headlines;
  }

  get seeded(): boolean {
    return this.config !== null;
  }

  symbols(team: number): string[] {
    const config = this.config;
    if (config === null) return [];
    return team === 0 ? config.blueSymbols : config.redSymbols;
  }

  weights(team: number): number[] {
    const config = this.config;
    if (config === null) return [];
    return team === 0 ? config.blueWeightsBps : config.redWeightsBps;
  }

  holding(userId: number, team: number): Holding {
    return this.holdings.get(userId)?.[team] ?? { lots: 0, costAtoms: 0 };
  }

  /** Levels of one side, best first. */
  levels(team: number, side: number): Array<[number, Level]> {
    const entries = [...this.books[team]![side]!.entries()];
    return entries.sort((a, b) => (side === 0 ? b[0] - a[0] : a[0] - b[0]));
  }

  best(team: number, side: number): number {
    let best = -1;
    for (const price of this.books[team]![side]!.keys()) if (best === -1 || (side === 0 ? price > best : price < best)) best = price;
    return best;
  }

  epochRecord(epoch: number): EpochRecord | undefined {
    return this.history.find((record) => record.epoch === epoch);
  }

  newChanges(): BatchChanges {
    return { levels: [[new Set(), new Set()], [new Set(), new Set()]], navs: false };
  }

  /** Applies one durable event; records in `changes` what the stream must tell. */
  apply(event: EngineEvent, ts: number, changes: BatchChanges): void {
    if (event.kind !== EventKind.domain) return;
    switch (event.type) {
      case ArenaEventType.arenaSeeded: {
        const body = event.body as ArenaSeeded;
        this.config = body.config;
        this.epoch = body.epoch;
        this.epochStartMs = body.epochStartMs;
        this.epochEndMs = body.epochEndMs;
        this.startPricesE8 = body.startPricesE8.map((row) => [...row]);
        this.pricesE8 = body.startPricesE8.map((row) => [...row]);
        this.navsAtoms = [body.config.navBaseAtoms, body.config.navBaseAtoms];
        this.updatedMs = ts;
        changes.navs = true;
        this.holdings.set(houseUserId, [
          { lots: 0, costAtoms: 0 },
          { lots: 0, costAtoms: 0 },
        ]);
        return;
      }
      case ArenaEventType.navUpdated: {
        const body = event.body as NavUpdated;
        this.navsAtoms = [...body.navsAtoms];
        this.pricesE8 = body.pricesE8.map((row) => [...row]);
        this.updatedMs = body.timestampMs;
        changes.navs = true;
        return;
      }
      case ArenaEventType.orderAccepted: {
        const body = event.body as ArenaOrderAccepted;
        this.orders.set(body.orderId, { orderId: body.orderId, userId: body.userId, team: body.team, side: body.side, priceTicks: body.priceTicks, sizeLots: body.sizeLots, remainingLots: body.sizeLots });
        return;
      }
      case ArenaEventType.orderRested: {
        const body = event.body as ArenaOrderRested;
        const order = this.orders.get(body.orderId);
        if (order !== undefined) order.remainingLots = body.remainingLots;
        this.addLevel(body.team, body.side, body.priceTicks, body.remainingLots, 1);
        changes.levels[body.team]![body.side]!.add(body.priceTicks);
        return;
      }
      case ArenaEventType.orderCancelled: {
        const body = event.body as ArenaOrderCancelled;
        this.orders.delete(body.orderId);
        if (body.rested) {
          this.addLevel(body.team, body.side, body.priceTicks, -body.remainingLots, -1);
          changes.levels[body.team]![body.side]!.add(body.priceTicks);
        }
        return;
      }
      case ArenaEventType.trade: {
        const body = event.body as ArenaTrade;
        const makerSide = 1 - body.takerSide;
        this.addLevel(body.team, makerSide, body.priceTicks, -body.lots, body.makerRemainingLots === 0 ? -1 : 0);
        changes.levels[body.team]![makerSide]!.add(body.priceTicks);
        const maker = this.orders.get(body.makerOrderId);
        if (maker !== undefined) {
          maker.remainingLots = body.makerRemainingLots;
          if (body.makerRemainingLots === 0) this.orders.delete(body.makerOrderId);
        }
        const taker = this.orders.get(body.takerOrderId);
        if (taker !== undefined) {
          taker.remainingLots -= body.lots;
          // A taker filled whole neither rests nor is cancelled: its last fill ends it.
          if (taker.remainingLots === 0) this.orders.delete(body.takerOrderId);
        }
        const buyer = body.takerSide === 0 ? body.takerUserId : body.makerUserId;
        const seller = body.takerSide === 0 ? body.makerUserId : body.takerUserId;
        const bought = this.holdingOf(buyer, body.team);
        bought.lots += body.lots;
        bought.costAtoms += body.notionalAtoms;
        const sold = this.holdingOf(seller, body.team);
        sold.costAtoms -= Number((BigInt(sold.costAtoms) * BigInt(body.lots)) / BigInt(Math.max(1, sold.lots)));
        sold.lots -= body.lots;
        this.poolAtoms += body.feeAtoms;
        return;
      }
      case ArenaEventType.houseInventoryChanged: {
        const body = event.body as HouseInventoryChanged;
        this.holdingOf(houseUserId, body.team).lots = body.holdingsLots;
        return;
      }
      case ArenaEventType.epochResolved: {
        const body = event.body as EpochResolved;
        this.history.push({ epoch: body.epoch, startMs: body.startMs, endMs: body.endMs, navsAtoms: [...body.navsAtoms], winner: body.winner, poolAtoms: body.poolAtoms, paidAtoms: body.paidAtoms, winners: body.payoutUserIds.length });
        if (this.history.length > epochsKeptMax) this.history.shift();
        if (body.winner === -1) this.ties++;
        else this.wins[body.winner] = this.wins[body.winner]! + 1;
        this.poolAtoms = body.poolAtoms - body.paidAtoms;
        this.epoch = body.nextEpoch;
        this.epochStartMs = body.nextStartMs;
        this.epochEndMs = body.nextEndMs;
        this.startPricesE8 = body.nextStartPricesE8.map((row) => [...row]);
        this.pricesE8 = body.nextStartPricesE8.map((row) => [...row]);
        this.navsAtoms = [body.navBaseAtoms, body.navBaseAtoms];
        this.updatedMs = body.timestampMs;
        changes.navs = true;
        return;
      }
      case ArenaEventType.headlineAdded: {
        const body = event.body as HeadlineAdded;
        this.headlines.unshift({ kind: body.kind, text: body.text, timestampMs: body.timestampMs });
        if (this.headlines.length > headlinesMax) this.headlines.length = headlinesMax;
        return;
      }
      default:
    }
  }

  private holdingOf(userId: number, team: number): Holding {
    let rows = this.holdings.get(userId);
    if (rows === undefined) {
      rows = Array.from({ length: teamCount }, () => ({ lots: 0, costAtoms: 0 }));
      this.holdings.set(userId, rows);
    }
    return rows[team]!;
  }

  private addLevel(team: number, side: number, priceTicks: number, lots: number, orders: number): void {
    const book = this.books[team]![side]!;
    const level = book.get(priceTicks) ?? { lots: 0, orders: 0 };
    level.lots += lots;
    level.orders += orders;
    if (level.lots <= 0 || level.orders <= 0) book.delete(priceTicks);
    else book.set(priceTicks, level);
  }
}
