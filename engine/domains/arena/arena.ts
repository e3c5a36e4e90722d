/**
 * The arena's module: two teams (BLUE, RED) whose NAVs follow their portfolios at journaled oracle prices,
 * a share book per team where users and the house market maker trade in USDC, epochs that end by journaled
 * timers with a winner, and a bonus from the arena fee pool for the winning team's holders.
 *
 * Rules (README "Arena" documents them for clients):
 * - NAV (USDC atoms per share) = base × Σ wᵢ × pᵢ / pᵢ,start / 10 000, each term floored at 10^-12 of an
 *   atom and the sum floored to the atom; an asset without a price at the epoch's start counts as cash
 *   (its ratio is 1) until the next epoch. NAVs are recomputed at every price tick that prices a portfolio
 *   asset (the prices module's tick listener), so they replay at the same tick.
 * - Epochs end at multiples of the epoch length of journaled time and are numbered from 1 at the seed;
 *   the epoch a late timer opens starts at the last boundary (epochs the runtime slept through are skipped).
 *   The team with the higher NAV at the end wins (both start at the same base, so the higher return wins);
 *   equal NAVs are a tie: no winner, no bonus, the pool carries over.
 * - Bonus: the pool's available USDC P is shared among the winning team's holders (the house excluded) by
 *   the shares S_i they hold at the boundary (resting sells included): payout_i = floor(P × S_i / S); the
 *   remainder stays in the pool. Taker fees (10 bps of notional, rounded up on each order's cumulative
 *   notional) feed the pool.
 * - Orders are GTC limit orders; a buy holds price × size plus the fee cap in USDC, a sell reserves
 *   unreserved shares (no short selling). Fills are at the maker's price; a taker meeting its own order
 *   has its remainder cancelled. Shares are positions of this module, not ledger assets.
 * - The house (domainUserId(4, 0)) quotes both books around NAV with the spread and size of the seed and
 *   never takes: a quote that would cross a user's order steps back one tick from it. Before quoting, its
 *   holdings of the team are brought into [size, inventory max - size] by minting or retiring shares, so a
 *   full bid and a full ask always fit and its holdings never pass the inventory max. It re-quotes at every
 *   NAV change, at an epoch's start and after a user's order filled one of its quotes.
 */
import { assert } from '../../core/assert.ts';
import { FastBookFactory, type FastBook } from '../../core/book/fast-book.ts';
import type { MatchHandler } from '../../core/book/book.ts';
import { SelfTradePrevention, type Command, type Side } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { noAccount } from '../../core/ledger.ts';
import { domainUserId, safeIntegerMax, userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';
import { Prices } from '../prices/prices.ts';
import {
  ArenaCommandType,
  ArenaEventType,
  ArenaResult,
  CancelReason,
  HeadlineKind,
  arenaDomainId,
  arenaOrdersMax,
  arenaPriceLevelsPerSideMax,
  arenaTakerFeeBps,
  changeBps,
  epochsKeptMax,
  headlineCharsMax,
  headlinesMax,
  openOrdersPerUserMax,
  orderLotsMax,
  participantsMax,
  percentOfBps,
  priceTicksMax,
  teamCount,
  teamNames,
  validSeed,
  weightsTotalBps,
  type ArenaOrderAccepted,
  type ArenaOrderCancelled,
  type ArenaOrderRested,
  type ArenaSeeded,
  type ArenaTrade,
  type CancelArenaOrder,
  type EpochResolved,
  type HeadlineAdded,
  type HouseInventoryChanged,
  type NavUpdated,
  type PlaceArenaOrder,
  type SeedArena,
} from './commands.ts';

/** The house market maker's and the fee pool's ledger users. */
export const houseUserId = domainUserId(arenaDomainId, 0);
export const poolUserId = domainUserId(arenaDomainId, 1);
/** The house is always participant 0 (registered at the seed). */
const houseParticipant = 0;
const live = 0;
const noSlot = -1;
/** Precision of the NAV's per-asset terms (10^-12 of an atom). */
const navScale = 1_000_000_000_000n;

/** One resolved epoch, as kept for the history (the payouts' totals; the event has the per-user lists). */
export interface EpochRecord {
  epoch: number;
  startMs: number;
  endMs: number;
  navsAtoms: number[];
  winner: number;
  poolAtoms: number;
  paidAtoms: number;
  winners: number;
}

export interface Headline {
  kind: number;
  text: string;
  timestampMs: number;
}

/** A resting order as snapshots keep it (books in priority order, so restore rebuilds the same queues). */
interface OrderRow {
  orderId: number;
  participant: number;
  team: number;
  side: number;
  priceTicks: number;
  remainingLots: number;
  heldAtoms: number;
}

export interface ArenaSnapshot {
  config: SeedArena;
  epoch: number;
  epochStartMs: number;
  epochEndMs: number;
  startPricesE8: number[][];
  pricesE8: number[][];
  navsAtoms: number[];
  nextOrderId: number;
  participants: number[];
  /** Per participant, per team: [free lots, reserved lots, cost atoms]. */
  positions: number[][];
  orders: OrderRow[];
  supplyLots: number[];
  leader: number;
  wins: number[];
  ties: number;
  moverBuckets: number[];
  headlines: Headline[];
  history: EpochRecord[];
}

/** A user's holding of one team, as the shell's queries see it. */
export interface ArenaPosition {
  team: number;
  freeLots: number;
  reservedLots: number;
  costAtoms: number;
}

export class Arena implements DomainModule, MatchHandler {
  static readonly domainName = 'arena';
  readonly name = Arena.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [ArenaCommandType.seedArena, ArenaCommandType.placeArenaOrder, ArenaCommandType.cancelArenaOrder];

  private config: SeedArena | null = null;
  private symbols: string[][] = [[], []];
  private weights: number[][] = [[], []];
  epoch = 0;
  epochStartMs = 0;
  epochEndMs = 0;
  private startPricesE8: number[][] = [[], []];
  private pricesE8: number[][] = [[], []];
  readonly navsAtoms = [0, 0];
  private nextOrderId = 1;

  private readonly participants: number[] = [];
  private readonly participantOf = new Map<number, number>();
  /** Ledger accounts of the participants (opened at their first order). */
  private readonly accounts: number[] = [];
  private readonly freeLots: number[] = [];
  private readonly reservedLots: number[] = [];
  private readonly costAtoms: number[] = [];
  private readonly openOrders: number[] = [];
  private readonly supplyLots = [0, 0];

  private readonly factory = new FastBookFactory();
  private readonly books: FastBook[];
  private slotCapacity = 0;
  private readonly freeSlots: number[] = [];
  private slotOrderId: number[] = [];
  private slotParticipant: number[] = [];
  private slotTeam: number[] = [];
  private slotSide: number[] = [];
  private slotPrice: number[] = [];
  private slotHeld: number[] = [];
  private readonly slotOfOrder = new Map<number, number>();
  private restingCount = 0;
  /** The house's resting bid and ask slot of each team, or noSlot. */
  private readonly houseSlots = [
    [noSlot, noSlot],
    [noSlot, noSlot],
  ];

  private leader = -1;
  /** The scoreboard: epochs won by each team, and ties (kept whole while the history keeps the newest). */
  readonly wins = [0, 0];
  ties = 0;
  private readonly moverBuckets = [0, 0];
  private headlines: Headline[] = [];
  private history: EpochRecord[] = [];

  private usdc = -1;
  private atomsPerTickLot = 0;
  private atomsPerTick = 0;
  private poolAccount = noAccount;

  // The taker being matched (read by onFill).
  private takerSlot = noSlot;
  private takerNotionalAtoms = 0;
  private takerFeeAtoms = 0;
  private houseFilled = false;
  private listening = false;

  constructor(private readonly port: DomainPort) {
    this.books = [this.factory.create(arenaPriceLevelsPerSideMax), this.factory.create(arenaPriceLevelsPerSideMax)];
    const usdc = port.markets.assetBySymbol('USDC');
    if (usdc !== undefined && usdc.decimals >= 5) {
      this.usdc = usdc.index;
      // One tick (0.01 USDC) times one lot (0.001 share) is 10^-5 USDC.
      this.atomsPerTickLot = 10 ** (usdc.decimals - 5);
      this.atomsPerTick = 10 ** (usdc.decimals - 2);
    }
    // The prices module is made before the arena (engine/domains/index.ts), so its listener is registered
    // now, in the domain list's order, alike on a live engine and a restored one: listeners of several
    // domains then run, and emit their events, in the same order everywhere. Before the seed a tick moves
    // nothing (onTicked checks). A module made without prices (a read view) registers at its seed.
    if (this.prices() !== undefined) this.listenToTicks();
  }

  /** Listens to the oracle's ticks, once. */
  private listenToTicks(): void {
    if (this.listening) return;
    const prices = this.prices();
    assert(prices !== undefined, 'the arena needs the prices module listed before it');
    prices.onTicked((symbols, nowMs) => this.onTicked(symbols, nowMs));
    this.listening = true;
  }

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the arena module gets domain commands only');
    switch (command.type) {
      case ArenaCommandType.seedArena:
        return this.seed(command.body as SeedArena);
      case ArenaCommandType.placeArenaOrder:
        return this.placeOrder(command.body as PlaceArenaOrder);
      case ArenaCommandType.cancelArenaOrder:
        return this.cancelOrder(command.body as CancelArenaOrder);
      default:
        return Result.unknownCommand;
    }
  }

  // Queries (the shell seeds its view from them at start; tests read them).

  get seeded(): boolean {
    return this.config !== null;
  }

  /** Resting orders across both books. */
  get orderCount(): number {
    return this.restingCount;
  }

  /** The house's holdings (free and reserved lots) of a team. */
  houseHoldingsLots(team: number): number {
    return this.holdings(houseParticipant, team);
  }

  /** Best price of a side of a team's book, or -1. */
  bestPrice(team: number, side: Side): number {
    return this.books[team]!.bestPrice(side);
  }

  /** Resting lots of a side of a team's book. */
  depthLots(team: number, side: Side): number {
    let lots = 0;
    this.books[team]!.visit(side, (_slot, _account, _price, remaining) => (lots += remaining));
    return lots;
  }

  position(userId: number, team: number): ArenaPosition {
    const participant = this.participantOf.get(userId);
    if (participant === undefined) return { team, freeLots: 0, reservedLots: 0, costAtoms: 0 };
    const at = participant * teamCount + team;
    return { team, freeLots: this.freeLots[at]!, reservedLots: this.reservedLots[at]!, costAtoms: this.costAtoms[at]! };
  }

  /** Shares in positions (free and reserved) minus shares minted, per team: zero when shares are conserved. */
  shareImbalanceLots(team: number): number {
    let total = 0;
    for (let participant = 0; participant < this.participants.length; participant++) total += this.holdings(participant, team);
    return total - this.supplyLots[team]!;
  }

  epochRecord(epoch: number): EpochRecord | undefined {
    return this.history.find((record) => record.epoch === epoch);
  }

  private holdings(participant: number, team: number): number {
    const at = participant * teamCount + team;
    return participant < this.participants.length ? this.freeLots[at]! + this.reservedLots[at]! : 0;
  }

  // Seed.

  private seed(body: SeedArena): ResultCode {
    if (!validSeed(body)) return ArenaResult.invalidSeed;
    if (this.config !== null) return ArenaResult.arenaExists;
    if (this.usdc < 0) return Result.unknownAsset;
    const house = this.port.ledger.findOrOpen(houseUserId, live);
    const pool = this.port.ledger.findOrOpen(poolUserId, live);
    assert(house !== noAccount && pool !== noAccount, 'the ledger has no room for the arena accounts');
    const nowMs = this.port.commandTimeMs();
    this.config = {
      blueSymbols: [...body.blueSymbols],
      blueWeightsBps: [...body.blueWeightsBps],
      redSymbols: [...body.redSymbols],
      redWeightsBps: [...body.redWeightsBps],
      navBaseAtoms: body.navBaseAtoms,
      epochMs: body.epochMs,
      mmSpreadBps: body.mmSpreadBps,
      mmSizeLots: body.mmSizeLots,
      mmInventoryMaxLots: body.mmInventoryMaxLots,
    };
    this.configure();
    this.listenToTicks();
    this.registerParticipant(houseUserId, house);
    this.poolAccount = pool;
    this.epoch = 1;
    this.epochStartMs = nowMs;
    this.epochEndMs = (Math.floor(nowMs / body.epochMs) + 1) * body.epochMs;
    this.startEpochPrices();
    const event: ArenaSeeded = {
      config: { ...this.config, blueSymbols: [...body.blueSymbols], blueWeightsBps: [...body.blueWeightsBps], redSymbols: [...body.redSymbols], redWeightsBps: [...body.redWeightsBps] },
      epoch: this.epoch,
      epochStartMs: this.epochStartMs,
      epochEndMs: this.epochEndMs,
      startPricesE8: this.startPricesE8.map((prices) => [...prices]),
      timestampMs: nowMs,
    };
    this.port.emit(domainEvent(ArenaEventType.arenaSeeded, event));
    this.headline(HeadlineKind.seeded, `The arena opens: epoch 1, BLUE and RED at ${this.usdcText(body.navBaseAtoms)} USDC a share`, nowMs);
    for (let team = 0; team < teamCount; team++) this.requote(team, nowMs);
    return Result.ok;
  }

  private configure(): void {
    const config = this.config!;
    this.symbols = [config.blueSymbols, config.redSymbols];
    this.weights = [config.blueWeightsBps, config.redWeightsBps];
  }

  private prices(): Prices | undefined {
    const prices = this.port.domain(Prices.domainName);
    return prices instanceof Prices ? prices : undefined;
  }

  /** The epoch's start prices are the oracle's current ones; NAVs restart at the base. */
  private startEpochPrices(): void {
    const prices = this.prices();
    for (let team = 0; team < teamCount; team++) {
      const current = this.symbols[team]!.map((symbol) => prices?.priceE8(symbol) ?? 0);
      this.startPricesE8[team] = current;
      this.pricesE8[team] = [...current];
      this.navsAtoms[team] = this.config!.navBaseAtoms;
      this.moverBuckets[team] = 0;
    }
    this.leader = -1;
  }

  private nav(team: number): number {
    const weights = this.weights[team]!;
    const start = this.startPricesE8[team]!;
    const now = this.pricesE8[team]!;
    let sum = 0n;
    for (let index = 0; index < weights.length; index++) {
      const weight = BigInt(weights[index]!);
      const from = start[index]!;
      sum += from === 0 ? weight * navScale : (weight * BigInt(now[index]!) * navScale) / BigInt(from);
    }
    const nav = (BigInt(this.config!.navBaseAtoms) * sum) / (BigInt(weightsTotalBps) * navScale);
    return nav > BigInt(safeIntegerMax) ? safeIntegerMax : Number(nav);
  }

  // Prices: NAVs, headlines and the house's quotes follow every tick of a portfolio asset.

  private onTicked(symbols: readonly string[], nowMs: number): void {
    if (this.config === null) return;
    const prices = this.prices();
    if (prices === undefined) return;
    let touched = false;
    for (let team = 0; team < teamCount && !touched; team++) touched = this.symbols[team]!.some((symbol) => symbols.includes(symbol));
    if (!touched) return;
    for (let team = 0; team < teamCount; team++) {
      const current = this.pricesE8[team]!;
      this.symbols[team]!.forEach((symbol, index) => (current[index] = prices.priceE8(symbol)));
      this.navsAtoms[team] = this.nav(team);
    }
    const event: NavUpdated = { epoch: this.epoch, navsAtoms: [...this.navsAtoms], pricesE8: this.pricesE8.map((row) => [...row]), timestampMs: nowMs };
    this.port.emit(domainEvent(ArenaEventType.navUpdated, event));
    this.newsOfTick(nowMs);
    // A quote already at the new prices stays (requote returns early), so an unmoved NAV costs nothing.
    for (let team = 0; team < teamCount; team++) this.requote(team, nowMs);
  }

  private returnBps(team: number): number {
    return changeBps(this.navsAtoms[team]!, this.config!.navBaseAtoms);
  }

  /** Leader changes and the biggest movers crossing another whole percent this epoch. */
  private newsOfTick(nowMs: number): void {
    const [blue, red] = this.navsAtoms as [number, number];
    const leader = blue > red ? 0 : red > blue ? 1 : -1;
    if (leader !== -1 && leader !== this.leader) {
      const other = 1 - leader;
      this.headline(HeadlineKind.leader, `${teamNames[leader]} takes the lead: ${percentOfBps(this.returnBps(leader))}% vs ${percentOfBps(this.returnBps(other))}%`, nowMs);
      this.leader = leader;
    }
    for (let team = 0; team < teamCount; team++) {
      let best = -1;
      let bestMove = 0;
      const start = this.startPricesE8[team]!;
      const now = this.pricesE8[team]!;
      for (let index = 0; index < start.length; index++) {
        if (start[index] === 0) continue;
        const move = changeBps(now[index]!, start[index]!);
        if (best === -1 || Math.abs(move) > Math.abs(bestMove)) {
          best = index;
          bestMove = move;
        }
      }
      if (best === -1) continue;
      const bucket = Math.floor(Math.abs(bestMove) / 100);
      if (bucket > this.moverBuckets[team]!) {
        this.moverBuckets[team] = bucket;
        this.headline(HeadlineKind.mover, `${teamNames[team]}'s biggest mover: ${this.symbols[team]![best]} ${percentOfBps(bestMove)}% this epoch`, nowMs);
      }
    }
  }

  private headline(kind: number, text: string, nowMs: number): void {
    const line: Headline = { kind, text: text.slice(0, headlineCharsMax), timestampMs: nowMs };
    this.headlines.unshift(line);
    if (this.headlines.length > headlinesMax) this.headlines.length = headlinesMax;
    const event: HeadlineAdded = { ...line };
    this.port.emit(domainEvent(ArenaEventType.headlineAdded, event));
  }

  private usdcText(atoms: number): string {
    const perUsdc = this.atomsPerTick * 100;
    const cents = Math.floor((atoms % perUsdc) / this.atomsPerTick);
    return `${Math.floor(atoms / perUsdc)}.${cents < 10 ? '0' : ''}${cents}`;
  }

  // Timers: the epoch's end.

  nextTimerMs(): number {
    return this.config === null ? noTimerMs : this.epochEndMs;
  }

  runTimers(nowMs: number): void {
    if (this.config === null || nowMs < this.epochEndMs) return;
    this.resolveEpoch(nowMs);
  }

  private resolveEpoch(nowMs: number): void {
    const config = this.config!;
    const [blue, red] = this.navsAtoms as [number, number];
    const winner = blue > red ? 0 : red > blue ? 1 : -1;
    const ledger = this.port.ledger;
    const poolAtoms = ledger.availableAtoms(this.poolAccount, this.usdc);
    const payoutUserIds: number[] = [];
    const payoutShareLots: number[] = [];
    const payoutAtoms: number[] = [];
    let paidAtoms = 0;
    if (winner !== -1) {
      let shares = 0;
      for (let participant = 1; participant < this.participants.length; participant++) shares += this.holdings(participant, winner);
      if (shares > 0 && poolAtoms > 0) {
        for (let participant = 1; participant < this.participants.length; participant++) {
          const held = this.holdings(participant, winner);
          if (held === 0) continue;
          const amount = Number((BigInt(poolAtoms) * BigInt(held)) / BigInt(shares));
          payoutUserIds.push(this.participants[participant]!);
          payoutShareLots.push(held);
          payoutAtoms.push(amount);
          if (amount > 0) ledger.payFromAvailable(this.poolAccount, this.accounts[participant]!, this.usdc, amount);
          paidAtoms += amount;
        }
      }
    }
    assert(paidAtoms <= poolAtoms, 'the bonus paid more than the pool held');
    if (winner === -1) this.ties++;
    else this.wins[winner] = this.wins[winner]! + 1;
    const resolved = { epoch: this.epoch, startMs: this.epochStartMs, endMs: this.epochEndMs, navsAtoms: [blue, red], winner, poolAtoms, paidAtoms };
    this.history.push({ ...resolved, navsAtoms: [blue, red], winners: payoutUserIds.length });
    if (this.history.length > epochsKeptMax) this.history.shift();
    const returns = `${percentOfBps(this.returnBps(0))}% vs ${percentOfBps(this.returnBps(1))}%`;
    const text =
      winner === -1
        ? `Epoch ${this.epoch} ends in a tie (${returns}); the pool carries over`
        : `Epoch ${this.epoch}: ${teamNames[winner]} wins, BLUE ${percentOfBps(this.returnBps(0))}% vs RED ${percentOfBps(this.returnBps(1))}%`;

    this.epoch++;
    this.epochStartMs = Math.floor(nowMs / config.epochMs) * config.epochMs;
    this.epochEndMs = this.epochStartMs + config.epochMs;
    this.startEpochPrices();
    const event: EpochResolved = {
      ...resolved,
      navBaseAtoms: config.navBaseAtoms,
      payoutUserIds,
      payoutShareLots,
      payoutAtoms,
      nextEpoch: this.epoch,
      nextStartMs: this.epochStartMs,
      nextEndMs: this.epochEndMs,
      nextStartPricesE8: this.startPricesE8.map((row) => [...row]),
      timestampMs: nowMs,
    };
    this.port.emit(domainEvent(ArenaEventType.epochResolved, event));
    this.headline(HeadlineKind.result, text, nowMs);
    for (let team = 0; team < teamCount; team++) this.requote(team, nowMs);
  }

  // Participants and slots.

  private registerParticipant(userId: number, account: number): number {
    const participant = this.participants.length;
    this.participants.push(userId);
    this.participantOf.set(userId, participant);
    this.accounts.push(account);
    this.openOrders.push(0);
    for (let team = 0; team < teamCount; team++) {
      this.freeLots.push(0);
      this.reservedLots.push(0);
      this.costAtoms.push(0);
    }
    return participant;
  }

  private allocateSlot(): number {
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.slotCapacity++;
    this.factory.ensureSlots(this.slotCapacity);
    this.slotOrderId.push(0);
    this.slotParticipant.push(0);
    this.slotTeam.push(0);
    this.slotSide.push(0);
    this.slotPrice.push(0);
    this.slotHeld.push(0);
    return slot;
  }

  private releaseSlot(slot: number): void {
    this.slotOfOrder.delete(this.slotOrderId[slot]!);
    this.slotOrderId[slot] = 0;
    this.slotHeld[slot] = 0;
    this.freeSlots.push(slot);
  }

  // Orders.

  private notionalAtoms(priceTicks: number, lots: number): number {
    return priceTicks * lots * this.atomsPerTickLot;
  }

  /** ceil(notional × fee bps / 10 000), split so that no product leaves the safe-integer range. */
  private static feeAtoms(notionalAtoms: number): number {
    const whole = Math.floor(notionalAtoms / 10_000);
    const rest = notionalAtoms - whole * 10_000;
    return whole * arenaTakerFeeBps + Math.ceil((rest * arenaTakerFeeBps) / 10_000);
  }

  private placeOrder(body: PlaceArenaOrder): ResultCode {
    if (this.config === null) return ArenaResult.arenaNotSeeded;
    const { userId, team, side, priceTicks, sizeLots } = body;
    const valid =
      Number.isSafeInteger(userId) && userId > 0 && userId <= userIdMax &&
      (team === 0 || team === 1) &&
      (side === 0 || side === 1) &&
      Number.isSafeInteger(priceTicks) && priceTicks >= 1 && priceTicks <= priceTicksMax &&
      Number.isSafeInteger(sizeLots) && sizeLots >= 1 && sizeLots <= orderLotsMax;
    if (!valid) return ArenaResult.invalidOrder;
    const notional = this.notionalAtoms(priceTicks, sizeLots);
    const hold = notional + Arena.feeAtoms(notional);
    if (!Number.isSafeInteger(hold) || hold > safeIntegerMax / 2) return Result.notionalTooLarge;
    const participant = this.participantOf.get(userId);
    if (participant === undefined && this.participants.length >= participantsMax) return ArenaResult.tooManyParticipants;
    if ((participant !== undefined && this.openOrders[participant]! >= openOrdersPerUserMax) || this.restingCount >= arenaOrdersMax) return ArenaResult.tooManyOrders;
    if (this.books[team]!.canRest(side as Side, priceTicks) !== Result.ok) return ArenaResult.tooManyLevels;
    const account = this.port.ledger.find(userId, live);
    if (side === 0) {
      if (account === noAccount || this.port.ledger.availableAtoms(account, this.usdc) < hold) return Result.insufficientBalance;
    } else if (participant === undefined || this.freeLots[participant * teamCount + team]! < sizeLots) {
      return ArenaResult.insufficientShares;
    }
    // Everything is checked: from here on the order is accepted.
    const owner = participant ?? this.registerParticipant(userId, account);
    this.houseFilled = false;
    this.place(owner, team, side as Side, priceTicks, sizeLots, this.port.commandTimeMs());
    if (this.houseFilled) this.requote(team, this.port.commandTimeMs());
    return Result.ok;
  }

  /** Places a checked order: holds, matches, rests the remainder. */
  private place(participant: number, team: number, side: Side, priceTicks: number, lots: number, nowMs: number): void {
    const ledger = this.port.ledger;
    const account = this.accounts[participant]!;
    const userId = this.participants[participant]!;
    const orderId = this.nextOrderId++;
    const slot = this.allocateSlot();
    this.slotOrderId[slot] = orderId;
    this.slotParticipant[slot] = participant;
    this.slotTeam[slot] = team;
    this.slotSide[slot] = side;
    this.slotPrice[slot] = priceTicks;
    this.slotOfOrder.set(orderId, slot);
    const at = participant * teamCount + team;
    if (side === 0) {
      const notional = this.notionalAtoms(priceTicks, lots);
      // The house never takes, so it holds no fee cap.
      const hold = participant === houseParticipant ? notional : notional + Arena.feeAtoms(notional);
      ledger.hold(account, this.usdc, hold);
      this.slotHeld[slot] = hold;
    } else {
      this.freeLots[at] = this.freeLots[at]! - lots;
      this.reservedLots[at] = this.reservedLots[at]! + lots;
    }
    const accepted: ArenaOrderAccepted = { orderId, userId, team, side, priceTicks, sizeLots: lots, house: participant === houseParticipant, timestampMs: nowMs };
    this.port.emit(domainEvent(ArenaEventType.orderAccepted, accepted));

    const book = this.books[team]!;
    this.takerSlot = slot;
    this.takerNotionalAtoms = 0;
    this.takerFeeAtoms = 0;
    const filled = book.match(side, priceTicks, lots, participant, SelfTradePrevention.cancelTaker, this);
    this.takerSlot = noSlot;
    const remaining = lots - filled;
    if (remaining > 0 && book.stoppedBySelfTrade) {
      this.endOrder(slot, remaining, CancelReason.selfTrade, false);
    } else if (remaining > 0) {
      book.add(slot, participant, side, priceTicks, remaining);
      if (participant === houseParticipant) this.houseSlots[team]![side] = slot;
      this.restingCount++;
      this.openOrders[participant] = this.openOrders[participant]! + 1;
      if (side === 0) {
        // A resting buy pays makers' prices and no fee: it keeps exactly its remaining notional.
        const keep = this.notionalAtoms(priceTicks, remaining);
        const excess = this.slotHeld[slot]! - keep;
        assert(excess >= 0, 'a resting buy holds less than its notional');
        if (excess > 0) ledger.release(account, this.usdc, excess);
        this.slotHeld[slot] = keep;
      }
      const rested: ArenaOrderRested = { orderId, userId, team, side, priceTicks, remainingLots: remaining };
      this.port.emit(domainEvent(ArenaEventType.orderRested, rested));
    } else {
      if (this.slotHeld[slot]! > 0) ledger.release(account, this.usdc, this.slotHeld[slot]!);
      this.releaseSlot(slot);
    }
  }

  /** One fill of the taker in `takerSlot` against the maker in `makerSlot`, at the maker's price. */
  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    const takerSlot = this.takerSlot;
    const ledger = this.port.ledger;
    const team = this.slotTeam[takerSlot]!;
    const takerSide = this.slotSide[takerSlot]!;
    const taker = this.slotParticipant[takerSlot]!;
    const maker = this.slotParticipant[makerSlot]!;
    const buyerSlot = takerSide === 0 ? takerSlot : makerSlot;
    const buyer = takerSide === 0 ? taker : maker;
    const seller = takerSide === 0 ? maker : taker;
    const notional = this.notionalAtoms(priceTicks, lots);
    ledger.payFromHeld(this.accounts[buyer]!, this.accounts[seller]!, this.usdc, notional);
    this.slotHeld[buyerSlot] = this.slotHeld[buyerSlot]! - notional;
    this.takerNotionalAtoms += notional;
    const fee = Arena.feeAtoms(this.takerNotionalAtoms) - this.takerFeeAtoms;
    this.takerFeeAtoms += fee;
    if (fee > 0) {
      if (takerSide === 0) {
        ledger.payFromHeld(this.accounts[taker]!, this.poolAccount, this.usdc, fee);
        this.slotHeld[takerSlot] = this.slotHeld[takerSlot]! - fee;
      } else {
        ledger.payFromAvailable(this.accounts[taker]!, this.poolAccount, this.usdc, fee);
      }
    }
    const buyerAt = buyer * teamCount + team;
    const sellerAt = seller * teamCount + team;
    const sellerShares = this.freeLots[sellerAt]! + this.reservedLots[sellerAt]!;
    this.costAtoms[sellerAt] = this.costAtoms[sellerAt]! - Number((BigInt(this.costAtoms[sellerAt]!) * BigInt(lots)) / BigInt(sellerShares));
    this.reservedLots[sellerAt] = this.reservedLots[sellerAt]! - lots;
    this.freeLots[buyerAt] = this.freeLots[buyerAt]! + lots;
    this.costAtoms[buyerAt] = this.costAtoms[buyerAt]! + notional;
    if (maker === houseParticipant) this.houseFilled = true;
    const trade: ArenaTrade = {
      team,
      priceTicks,
      lots,
      notionalAtoms: notional,
      makerOrderId: this.slotOrderId[makerSlot]!,
      takerOrderId: this.slotOrderId[takerSlot]!,
      makerUserId: this.participants[maker]!,
      takerUserId: this.participants[taker]!,
      takerSide,
      feeAtoms: fee,
      makerRemainingLots,
      timestampMs: this.port.commandTimeMs(),
    };
    this.port.emit(domainEvent(ArenaEventType.trade, trade));
    if (makerRemainingLots === 0) {
      assert(this.slotSide[makerSlot] === 1 || this.slotHeld[makerSlot] === 0, 'a filled buy still holds');
      this.restingCount--;
      this.openOrders[maker] = this.openOrders[maker]! - 1;
      if (maker === houseParticipant) this.houseSlots[team]![this.slotSide[makerSlot]!] = noSlot;
      this.releaseSlot(makerSlot);
    }
  }

  onSelfTradeMakerRemoved(): void {
    assert(false, 'the arena prevents self-trades by cancelling the taker only');
  }

  /** Ends an order that is not in the book (a self-trade remainder) or was removed from it: frees what it held. */
  private endOrder(slot: number, remainingLots: number, reason: number, rested: boolean): void {
    const participant = this.slotParticipant[slot]!;
    const team = this.slotTeam[slot]!;
    const side = this.slotSide[slot]!;
    if (side === 0) {
      if (this.slotHeld[slot]! > 0) this.port.ledger.release(this.accounts[participant]!, this.usdc, this.slotHeld[slot]!);
    } else {
      const at = participant * teamCount + team;
      this.reservedLots[at] = this.reservedLots[at]! - remainingLots;
      this.freeLots[at] = this.freeLots[at]! + remainingLots;
    }
    if (rested) {
      this.restingCount--;
      this.openOrders[participant] = this.openOrders[participant]! - 1;
      if (participant === houseParticipant) this.houseSlots[team]![side] = noSlot;
    }
    const cancelled: ArenaOrderCancelled = {
      orderId: this.slotOrderId[slot]!,
      userId: this.participants[participant]!,
      team,
      side,
      priceTicks: this.slotPrice[slot]!,
      remainingLots,
      reason,
      rested,
    };
    this.releaseSlot(slot);
    this.port.emit(domainEvent(ArenaEventType.orderCancelled, cancelled));
  }

  private cancelOrder(body: CancelArenaOrder): ResultCode {
    if (this.config === null) return ArenaResult.arenaNotSeeded;
    const slot = Number.isSafeInteger(body.orderId) ? this.slotOfOrder.get(body.orderId) : undefined;
    if (slot === undefined || this.participants[this.slotParticipant[slot]!] !== body.userId || body.userId === houseUserId) return ArenaResult.orderNotFound;
    const remaining = this.books[this.slotTeam[slot]!]!.remove(slot);
    this.endOrder(slot, remaining, CancelReason.user, true);
    return Result.ok;
  }

  // The house.

  private requote(team: number, nowMs: number): void {
    const config = this.config!;
    const book = this.books[team]!;
    const nav = this.navsAtoms[team]!;
    const half = Math.ceil((nav * config.mmSpreadBps) / 20_000);
    let bid = Math.max(1, Math.floor((nav - half) / this.atomsPerTick));
    let ask = Math.min(priceTicksMax, Math.max(bid + 1, Math.ceil((nav + half) / this.atomsPerTick)));
    bid = Math.min(bid, ask - 1);
    const bidSlot = this.houseSlots[team]![0]!;
    const askSlot = this.houseSlots[team]![1]!;
    const size = config.mmSizeLots;
    const current = (slot: number, price: number) => slot !== noSlot && this.slotPrice[slot] === price && book.remainingLots(slot) === size;
    if (current(bidSlot, bid) && current(askSlot, ask)) return;
    for (const slot of [bidSlot, askSlot]) {
      if (slot === noSlot) continue;
      this.endOrder(slot, book.remove(slot), CancelReason.requote, true);
    }
    // Never take: a quote that would cross a user's order steps back one tick from it.
    const bestAsk = book.bestPrice(1);
    const bestBid = book.bestPrice(0);
    if (bestAsk >= 0) bid = Math.min(bid, bestAsk - 1);
    if (bestBid >= 0) ask = Math.max(ask, bestBid + 1);
    // Holdings into [size, inventory max - size]: a full ask and a full bid then both fit the bound.
    const at = houseParticipant * teamCount + team;
    const holdings = this.freeLots[at]!;
    const target = Math.min(Math.max(holdings, size), config.mmInventoryMaxLots - size);
    if (target !== holdings) {
      this.freeLots[at] = target;
      this.supplyLots[team] = this.supplyLots[team]! + (target - holdings);
      const changed: HouseInventoryChanged = { team, deltaLots: target - holdings, holdingsLots: target };
      this.port.emit(domainEvent(ArenaEventType.houseInventoryChanged, changed));
    }
    const account = this.accounts[houseParticipant]!;
    if (bid >= 1 && book.canRest(0, bid) === Result.ok && this.restingCount < arenaOrdersMax) {
      const affordable = Math.floor(this.port.ledger.availableAtoms(account, this.usdc) / (bid * this.atomsPerTickLot));
      const lots = Math.min(size, affordable);
      if (lots > 0) this.place(houseParticipant, team, 0, bid, lots, nowMs);
    }
    if (ask <= priceTicksMax && book.canRest(1, ask) === Result.ok && this.restingCount < arenaOrdersMax) this.place(houseParticipant, team, 1, ask, size, nowMs);
  }

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    const state = this.snapshot();
    if (state === null) return;
    hasher.number(-41);
    const config = state.config;
    for (const list of [config.blueSymbols, config.redSymbols]) {
      hasher.number(list.length);
      for (const symbol of list) hasher.string(symbol);
    }
    const numbers = (values: readonly number[]) => {
      hasher.number(values.length);
      for (const value of values) hasher.number(value);
    };
    numbers(config.blueWeightsBps);
    numbers(config.redWeightsBps);
    numbers([config.navBaseAtoms, config.epochMs, config.mmSpreadBps, config.mmSizeLots, config.mmInventoryMaxLots]);
    numbers([state.epoch, state.epochStartMs, state.epochEndMs, state.nextOrderId, state.leader, state.ties, ...state.wins, ...state.navsAtoms, ...state.supplyLots, ...state.moverBuckets]);
    for (const row of [...state.startPricesE8, ...state.pricesE8]) numbers(row);
    numbers(state.participants);
    for (const row of state.positions) numbers(row);
    hasher.number(state.orders.length);
    for (const order of state.orders) numbers([order.orderId, order.participant, order.team, order.side, order.priceTicks, order.remainingLots, order.heldAtoms]);
    hasher.number(state.headlines.length);
    for (const line of state.headlines) {
      hasher.number(line.kind);
      hasher.number(line.timestampMs);
      hasher.string(line.text);
    }
    hasher.number(state.history.length);
    for (const record of state.history) {
      numbers([record.epoch, record.startMs, record.endMs, record.winner, record.poolAtoms, record.paidAtoms, record.winners, ...record.navsAtoms]);
    }
  }

  snapshot(): ArenaSnapshot | null {
    const config = this.config;
    if (config === null) return null;
    const positions: number[][] = [];
    for (let participant = 0; participant < this.participants.length; participant++) {
      const row: number[] = [];
      for (let team = 0; team < teamCount; team++) {
        const at = participant * teamCount + team;
        row.push(this.freeLots[at]!, this.reservedLots[at]!, this.costAtoms[at]!);
      }
      positions.push(row);
    }
    const orders: OrderRow[] = [];
    for (let team = 0; team < teamCount; team++) {
      for (const side of [0, 1] as const) {
        this.books[team]!.visit(side, (slot, participant, priceTicks, remainingLots) => {
          orders.push({ orderId: this.slotOrderId[slot]!, participant, team, side, priceTicks, remainingLots, heldAtoms: this.slotHeld[slot]! });
        });
      }
    }
    return {
      config: { ...config, blueSymbols: [...config.blueSymbols], blueWeightsBps: [...config.blueWeightsBps], redSymbols: [...config.redSymbols], redWeightsBps: [...config.redWeightsBps] },
      epoch: this.epoch,
      epochStartMs: this.epochStartMs,
      epochEndMs: this.epochEndMs,
      startPricesE8: this.startPricesE8.map((row) => [...row]),
      pricesE8: this.pricesE8.map((row) => [...row]),
      navsAtoms: [...this.navsAtoms],
      nextOrderId: this.nextOrderId,
      participants: [...this.participants],
      positions,
      orders,
      supplyLots: [...this.supplyLots],
      leader: this.leader,
      wins: [...this.wins],
      ties: this.ties,
      moverBuckets: [...this.moverBuckets],
      headlines: this.headlines.map((line) => ({ ...line })),
      history: this.history.map((record) => ({ ...record, navsAtoms: [...record.navsAtoms] })),
    };
  }

  restore(state: unknown): void {
    assert(this.config === null, 'restore needs a fresh arena');
    const data = state as ArenaSnapshot | null;
    const integers = (values: unknown, length?: number) =>
      Array.isArray(values) && (length === undefined || values.length === length) && values.every((value) => Number.isSafeInteger(value));
    if (
      data === null ||
      typeof data !== 'object' ||
      typeof data.config !== 'object' ||
      data.config === null ||
      !validSeed(data.config) ||
      !integers([data.epoch, data.epochStartMs, data.epochEndMs, data.nextOrderId, data.leader, data.ties]) ||
      !integers(data.wins, teamCount) ||
      !integers(data.navsAtoms, teamCount) ||
      !integers(data.supplyLots, teamCount) ||
      !integers(data.moverBuckets, teamCount) ||
      !Array.isArray(data.startPricesE8) ||
      !Array.isArray(data.pricesE8) ||
      !integers(data.participants) ||
      data.participants.length > participantsMax ||
      data.participants[houseParticipant] !== houseUserId ||
      !Array.isArray(data.positions) ||
      data.positions.length !== data.participants.length ||
      !Array.isArray(data.orders) ||
      data.orders.length > arenaOrdersMax ||
      !Array.isArray(data.headlines) ||
      data.headlines.length > headlinesMax ||
      !Array.isArray(data.history) ||
      data.history.length > epochsKeptMax
    ) {
      throw new Error('arena snapshot: malformed');
    }
    this.config = { ...data.config };
    this.configure();
    this.listenToTicks();
    for (let team = 0; team < teamCount; team++) {
      const length = this.symbols[team]!.length;
      if (!integers(data.startPricesE8[team], length) || !integers(data.pricesE8[team], length)) throw new Error('arena snapshot: malformed prices');
      this.startPricesE8[team] = [...data.startPricesE8[team]!];
      this.pricesE8[team] = [...data.pricesE8[team]!];
      this.navsAtoms[team] = data.navsAtoms[team]!;
      this.supplyLots[team] = data.supplyLots[team]!;
      this.moverBuckets[team] = data.moverBuckets[team]!;
      this.wins[team] = data.wins[team]!;
    }
    this.ties = data.ties;
    this.epoch = data.epoch;
    this.epochStartMs = data.epochStartMs;
    this.epochEndMs = data.epochEndMs;
    this.nextOrderId = data.nextOrderId;
    this.leader = data.leader;
    const ledger = this.port.ledger;
    this.poolAccount = ledger.find(poolUserId, live);
    if (this.poolAccount === noAccount) throw new Error('arena snapshot: the pool account is missing');
    data.participants.forEach((userId, participant) => {
      const account = ledger.find(userId, live);
      if (account === noAccount || this.participantOf.has(userId)) throw new Error('arena snapshot: a participant has no account');
      this.registerParticipant(userId, account);
      const row = data.positions[participant];
      if (!integers(row, teamCount * 3)) throw new Error('arena snapshot: malformed position');
      for (let team = 0; team < teamCount; team++) {
        const at = participant * teamCount + team;
        this.freeLots[at] = row![team * 3]!;
        this.reservedLots[at] = row![team * 3 + 1]!;
        this.costAtoms[at] = row![team * 3 + 2]!;
      }
    });
    for (const order of data.orders) {
      const fields = [order.orderId, order.participant, order.team, order.side, order.priceTicks, order.remainingLots, order.heldAtoms];
      if (!integers(fields) || order.participant < 0 || order.participant >= this.participants.length || (order.team !== 0 && order.team !== 1) || (order.side !== 0 && order.side !== 1)) {
        throw new Error('arena snapshot: malformed order');
      }
      const slot = this.allocateSlot();
      this.slotOrderId[slot] = order.orderId;
      this.slotParticipant[slot] = order.participant;
      this.slotTeam[slot] = order.team;
      this.slotSide[slot] = order.side;
      this.slotPrice[slot] = order.priceTicks;
      this.slotHeld[slot] = order.heldAtoms;
      this.slotOfOrder.set(order.orderId, slot);
      this.books[order.team]!.add(slot, order.participant, order.side as Side, order.priceTicks, order.remainingLots);
      this.restingCount++;
      this.openOrders[order.participant] = this.openOrders[order.participant]! + 1;
      if (order.participant === houseParticipant) this.houseSlots[order.team]![order.side] = slot;
    }
    this.headlines = data.headlines.map((line) => ({ kind: line.kind, text: String(line.text), timestampMs: line.timestampMs }));
    this.history = data.history.map((record) => ({ ...record, navsAtoms: [...record.navsAtoms] }));
  }
}
