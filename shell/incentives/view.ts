/**
 * The incentives' read view, fed only by durable batches (a client never sees what a crash could take
 * back): the catalogue, bots and their owners' tiers, staking positions, airdrop claims, active boosts,
 * and per-user activity for leaderboards and airdrop eligibility.
 *
 * Activity comes from the exchange's fills (TradeExecuted, AmmFill; live mode): volume (quote notional
 * atoms, counted for taker and maker alike), trades (fills taken part in), realised pnl (average cost per
 * account and pair: a fill that reduces a position realises its notional less the average cost of the lots
 * it closes; fees are not counted) and earnings (payouts of the incentives: staking rewards and airdrops,
 * in atoms of their token). They are kept per user per UTC day of journaled time for the last 31 days and
 * in total: daily is the current day, weekly the last 7 days, monthly the last 30, all_time the total.
 *
 * Staking positions mirror the engine's accrual exactly: the same integer steps (accrueSegment) at the same
 * events, so pending rewards read here are what a claim would pay at that time.
 */
import { gamesEarningsOf } from '../../engine/domains/games/index.ts';
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import type { Markets } from '../../engine/core/units.ts';
import {
  BoostKind,
  IncentivesEventType,
  dayMs,
  requestKeysPerUserMax,
  tierOf,
  tiers,
  windowDays,
  type AirdropClaimed,
  type AirdropConfig,
  type BoostActivated,
  type BoostConfig,
  type BoostExpired,
  type BotRegistered,
  type IncentivesCatalogue,
  type PoolConfig,
  type RewardsClaimed,
  type Staked,
  type TierChanged,
  type Unstaked,
} from '../../engine/domains/incentives/commands.ts';
import { accrueSegment, stakingRateBps } from '../../engine/domains/incentives/incentives.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';

export const Metric = { volume: 0, trades: 1, earnings: 2, pnl: 3 } as const;
export type MetricName = keyof typeof Metric;
export type Period = 'daily' | 'weekly' | 'monthly' | 'all_time';
const periodDays: Record<Period, number> = { daily: 1, weekly: 7, monthly: 30, all_time: 0 };
/** Days of activity kept per user (the monthly board needs 30). */
const keptDays = 31;

export interface BotRecord {
  botId: number;
  userId: number;
  wallet: string;
  name: string;
  strategyType: string;
  description: string;
  registeredMs: number;
}

export interface PositionRecord {
  userId: number;
  poolId: number;
  stakedAtoms: number;
  pendingAtoms: number;
  remainder: number;
  lastMs: number;
  unlockMs: number;
  claimedAtoms: number;
}

interface ActiveBoostRecord {
  boostId: number;
  kind: BoostKind;
  value: number;
  expiresMs: number;
  requestKey: string;
}

/** One user's activity: per kept day [day, volume, trades, earnings, pnl], and totals. */
interface Activity {
  days: Array<{ day: number; values: [number, number, number, number] }>;
  total: [number, number, number, number];
}

/** An account's position in one pair, for realised pnl by average cost. */
interface Holding {
  lots: number;
  costAtoms: number;
}

/** What a payout to a user means to the stream: a bot (if the wallet is one) and an amount. */
export interface Earning {
  userId: number;
  botId: number | null;
  /** The token paid; earnings totals add atoms of the platform's 6-decimal tokens (PLAT, PRED). */
  assetId: number;
  amountAtoms: number;
}

/**
 * Earnings sources: each maps a durable event to a payout, or null. Another domain's payouts (games'
 * prizes) join with one line here.
 */
export const earningsSources: ReadonlyArray<(event: EngineEvent) => Earning | null> = [
  (event) => {
    if (event.kind !== EventKind.domain || event.type !== IncentivesEventType.rewardsClaimed) return null;
    const body = event.body as RewardsClaimed;
    return { userId: body.userId, botId: null, assetId: body.assetId, amountAtoms: body.amountAtoms };
  },
  (event) => {
    if (event.kind !== EventKind.domain || event.type !== IncentivesEventType.airdropClaimed) return null;
    const body = event.body as AirdropClaimed;
    return { userId: body.userId, botId: null, assetId: body.assetId, amountAtoms: body.amountAtoms };
  },
  // The games' payouts: streak rewards, duel wins and tournament prizes.
  (event) => {
    const earning = gamesEarningsOf(event);
    return earning === null ? null : { userId: earning.userId, botId: null, assetId: earning.assetId, amountAtoms: earning.amountAtoms };
  },
];

export interface IncentivesListener {
  onEarning(earning: Earning, totalAtoms: number): void;
  onTierChanged(change: TierChanged): void;
}

export class IncentivesView {
  pools: PoolConfig[] = [];
  airdrops: AirdropConfig[] = [];
  boosts: BoostConfig[] = [];
  readonly poolTotals = new Map<number, number>();
  readonly bots = new Map<number, BotRecord>();
  readonly botByWallet = new Map<string, BotRecord>();
  readonly tierByUser = new Map<number, number>();
  readonly positions = new Map<string, PositionRecord>();
  readonly airdropClaims = new Set<string>();
  readonly activeBoosts = new Map<string, ActiveBoostRecord>();
  /** Boost activations by user and request key, for the idempotent answer. */
  readonly activations = new Map<string, BoostActivated>();
  private readonly keysByUser = new Map<number, string[]>();
  private readonly activity = new Map<number, Activity>();
  private readonly holdings = new Map<string, Holding>();
  private readonly earningsTotal = new Map<number, number>();
  /** Bot owners' volume per day since their first bot (the engine's tier window counts from then too). */
  private readonly tierDays = new Map<number, Map<number, number>>();
  /** Users the view has seen (fills, bots, stakes, claims): whose deposit addresses the stream may map. */
  readonly knownUsers = new Set<number>();
  /** The journaled time of the last durable command seen. */
  lastMs = 0;
  listener: IncentivesListener | null = null;

  constructor(private readonly markets: Markets) {}

  onBatch(batch: DurableBatch): void {
    batch.forEachEvent((event, _seq, ts) => this.apply(event, ts));
  }

  apply(event: EngineEvent, ts: number): void {
    this.lastMs = Math.max(this.lastMs, ts);
    if (event.kind === EventKind.tradeExecuted) {
      if (event.mode !== 0) return;
      const pair = this.markets.pairById(event.pairId)!;
      const lots = event.quantityLots;
      this.fill(event.takerUserId, event.pairId, event.takerSide === 0 ? lots : -lots, event.notionalAtoms, ts, pair.id);
      if (event.makerUserId !== event.takerUserId) this.fill(event.makerUserId, event.pairId, event.takerSide === 0 ? -lots : lots, event.notionalAtoms, ts, pair.id);
      return;
    }
    if (event.kind === EventKind.ammFill) {
      if (event.mode !== 0) return;
      this.fill(event.userId, event.pairId, event.side === 0 ? event.quantityLots : -event.quantityLots, event.notionalAtoms, ts, event.pairId);
      return;
    }
    if (event.kind !== EventKind.domain) return;
    for (const source of earningsSources) {
      const earning = source(event);
      if (earning === null) continue;
      const total = (this.earningsTotal.get(earning.userId) ?? 0) + earning.amountAtoms;
      this.earningsTotal.set(earning.userId, total);
      this.record(earning.userId, ts, Metric.earnings, earning.amountAtoms);
      this.listener?.onEarning(earning, total);
    }
    switch (event.type) {
      case IncentivesEventType.configured: {
        const body = event.body as IncentivesCatalogue;
        this.pools = body.pools;
        this.airdrops = body.airdrops;
        this.boosts = body.boosts;
        for (const pool of body.pools) this.poolTotals.set(pool.poolId, 0);
        return;
      }
      case IncentivesEventType.botRegistered: {
        const body = event.body as BotRegistered;
        const record: BotRecord = { ...body };
        this.knownUsers.add(body.userId);
        this.bots.set(body.botId, record);
        this.botByWallet.set(body.wallet, record);
        if (!this.tierByUser.has(body.userId)) this.tierByUser.set(body.userId, 0);
        if (!this.tierDays.has(body.userId)) this.tierDays.set(body.userId, new Map());
        return;
      }
      case IncentivesEventType.tierChanged: {
        const body = event.body as TierChanged;
        this.accrueUser(body.userId, ts);
        this.tierByUser.set(body.userId, body.newTier);
        this.listener?.onTierChanged(body);
        return;
      }
      case IncentivesEventType.staked: {
        const body = event.body as Staked;
        const key = `${body.userId}:${body.poolId}`;
        this.knownUsers.add(body.userId);
        const position = this.positions.get(key) ?? { userId: body.userId, poolId: body.poolId, stakedAtoms: 0, pendingAtoms: 0, remainder: 0, lastMs: ts, unlockMs: ts, claimedAtoms: 0 };
        this.accrue(position, ts);
        position.stakedAtoms = body.positionAtoms;
        position.unlockMs = body.unlockMs;
        this.positions.set(key, position);
        this.poolTotals.set(body.poolId, body.poolTotalAtoms);
        return;
      }
      case IncentivesEventType.unstaked: {
        const body = event.body as Unstaked;
        const position = this.positions.get(`${body.userId}:${body.poolId}`)!;
        this.accrue(position, ts);
        position.stakedAtoms = body.positionAtoms;
        this.poolTotals.set(body.poolId, body.poolTotalAtoms);
        return;
      }
      case IncentivesEventType.rewardsClaimed: {
        const body = event.body as RewardsClaimed;
        const position = this.positions.get(`${body.userId}:${body.poolId}`)!;
        this.accrue(position, ts);
        position.pendingAtoms -= body.amountAtoms;
        position.claimedAtoms = body.claimedTotalAtoms;
        return;
      }
      case IncentivesEventType.airdropClaimed: {
        const body = event.body as AirdropClaimed;
        this.airdropClaims.add(`${body.userId}:${body.airdropId}`);
        return;
      }
      case IncentivesEventType.boostActivated: {
        const body = event.body as BoostActivated;
        if (body.kind === BoostKind.stakingApy) this.accrueUser(body.userId, ts);
        this.activeBoosts.set(`${body.userId}:${body.kind}`, { boostId: body.boostId, kind: body.kind, value: body.value, expiresMs: body.expiresMs, requestKey: body.requestKey });
        this.activations.set(`${body.userId}:${body.requestKey}`, body);
        // The engine answers a repeat only for an account's last keys: keep the same ones here.
        const keys = this.keysByUser.get(body.userId) ?? [];
        keys.push(body.requestKey);
        if (keys.length > requestKeysPerUserMax) this.activations.delete(`${body.userId}:${keys.shift()!}`);
        this.keysByUser.set(body.userId, keys);
        return;
      }
      case IncentivesEventType.boostExpired: {
        const body = event.body as BoostExpired;
        if (body.kind === BoostKind.stakingApy) this.accrueUser(body.userId, ts);
        this.activeBoosts.delete(`${body.userId}:${body.kind}`);
        return;
      }
    }
  }

  // Activity.

  private fill(userId: number, pairId: number, signedLots: number, notionalAtoms: number, ts: number, pairKey: number): void {
    this.record(userId, ts, Metric.volume, notionalAtoms);
    this.record(userId, ts, Metric.trades, 1);
    this.knownUsers.add(userId);
    const days = this.tierDays.get(userId);
    if (days !== undefined) {
      const day = Math.floor(ts / dayMs);
      days.set(day, (days.get(day) ?? 0) + notionalAtoms);
      for (const old of days.keys()) if (old <= day - windowDays) days.delete(old);
    }
    const pnl = this.realise(`${userId}:${pairKey}`, signedLots, notionalAtoms);
    if (pnl !== 0) this.record(userId, ts, Metric.pnl, pnl);
    void pairId;
  }

  /** Average cost: adding to a position adds its cost; reducing realises against the average. */
  private realise(key: string, signedLots: number, notionalAtoms: number): number {
    const holding = this.holdings.get(key) ?? { lots: 0, costAtoms: 0 };
    this.holdings.set(key, holding);
    let realised = 0;
    const sameSide = holding.lots === 0 || Math.sign(holding.lots) === Math.sign(signedLots);
    if (sameSide) {
      holding.lots += signedLots;
      holding.costAtoms += notionalAtoms;
      return 0;
    }
    const closing = Math.min(Math.abs(signedLots), Math.abs(holding.lots));
    const closedCost = Math.floor((holding.costAtoms * closing) / Math.abs(holding.lots));
    const closedNotional = Math.floor((notionalAtoms * closing) / Math.abs(signedLots));
    // A long closed by a sell gains notional less cost; a short closed by a buy gains cost less notional.
    realised = holding.lots > 0 ? closedNotional - closedCost : closedCost - closedNotional;
    holding.costAtoms -= closedCost;
    holding.lots += Math.sign(signedLots) * closing;
    const rest = Math.abs(signedLots) - closing;
    if (rest > 0) {
      holding.lots = Math.sign(signedLots) * rest;
      holding.costAtoms = notionalAtoms - closedNotional;
    }
    return realised;
  }

  private record(userId: number, ts: number, metric: number, amount: number): void {
    const day = Math.floor(ts / dayMs);
    let activity = this.activity.get(userId);
    if (activity === undefined) {
      activity = { days: [], total: [0, 0, 0, 0] };
      this.activity.set(userId, activity);
    }
    let current = activity.days[activity.days.length - 1];
    if (current === undefined || current.day !== day) {
      current = { day, values: [0, 0, 0, 0] };
      activity.days.push(current);
      while (activity.days.length > keptDays) activity.days.shift();
    }
    current.values[metric] = current.values[metric]! + amount;
    activity.total[metric] = activity.total[metric]! + amount;
  }

  /** A user's metric over a period ending on the day of `nowMs`. */
  metricOf(userId: number, metric: number, period: Period, nowMs: number): number {
    const activity = this.activity.get(userId);
    if (activity === undefined) return 0;
    if (period === 'all_time') return activity.total[metric]!;
    const today = Math.floor(nowMs / dayMs);
    let sum = 0;
    for (const entry of activity.days) if (entry.day > today - periodDays[period] && entry.day <= today) sum += entry.values[metric]!;
    return sum;
  }

  /** The top `limit` users by the metric: descending value, ties by ascending user id; zero values left out. */
  leaderboard(metric: number, period: Period, limit: number, nowMs: number): Array<{ userId: number; value: number }> {
    const rows: Array<{ userId: number; value: number }> = [];
    for (const userId of this.activity.keys()) {
      const value = this.metricOf(userId, metric, period, nowMs);
      if (value !== 0) rows.push({ userId, value });
    }
    rows.sort((a, b) => b.value - a.value || a.userId - b.userId);
    return rows.slice(0, limit);
  }

  /** A user's volume within [fromMs, toMs), from the kept days (whole days; airdrop windows are day-aligned or longer). */
  volumeBetween(userId: number, fromMs: number, toMs: number): number {
    const activity = this.activity.get(userId);
    if (activity === undefined) return 0;
    let sum = 0;
    for (const entry of activity.days) if (entry.day * dayMs + dayMs > fromMs && entry.day * dayMs < toMs) sum += entry.values[Metric.volume]!;
    return sum;
  }

  /** A bot owner's 30-day volume as of `nowMs`, and its tier by the table. */
  tierVolume(userId: number, nowMs: number): { volumeAtoms: number; tier: number } {
    const today = Math.floor(nowMs / dayMs);
    let volumeAtoms = 0;
    for (const [day, volume] of this.tierDays.get(userId) ?? []) if (day > today - windowDays && day <= today) volumeAtoms += volume;
    return { volumeAtoms, tier: this.tierByUser.get(userId) ?? tierOf(0) };
  }

  earningsOf(userId: number): number {
    return this.earningsTotal.get(userId) ?? 0;
  }

  // Staking mirror.

  private rate(position: PositionRecord, boosted: boolean): number {
    const pool = this.pools.find((candidate) => candidate.poolId === position.poolId)!;
    const boost = boosted ? this.activeBoosts.get(`${position.userId}:${BoostKind.stakingApy}`) : undefined;
    return stakingRateBps(pool.apyBps, tiers[this.tierByUser.get(position.userId) ?? 0]!.rewardMultiplierPct, boost?.value ?? 100);
  }

  /** Pending rewards as of `nowMs` without changing the record (the engine's steps, split at a boost's expiry). */
  pendingAt(position: PositionRecord, nowMs: number): number {
    const copy = { ...position };
    this.accrue(copy, nowMs);
    return copy.pendingAtoms;
  }

  private accrue(position: PositionRecord, now: number): void {
    const step = (to: number, boosted: boolean): void => {
      if (to > position.lastMs && position.stakedAtoms > 0) {
        const segment = accrueSegment(position.stakedAtoms, this.rate(position, boosted), to - position.lastMs, position.remainder);
        position.pendingAtoms += segment.rewardAtoms;
        position.remainder = segment.remainder;
      }
      position.lastMs = Math.max(position.lastMs, to);
    };
    const boost = this.activeBoosts.get(`${position.userId}:${BoostKind.stakingApy}`);
    if (boost !== undefined && boost.expiresMs < now) {
      step(boost.expiresMs, true);
      step(now, false);
    } else {
      step(now, true);
    }
  }

  private accrueUser(userId: number, now: number): void {
    for (const position of this.positions.values()) if (position.userId === userId) this.accrue(position, now);
  }

  positionsOf(userId: number): PositionRecord[] {
    return [...this.positions.values()].filter((position) => position.userId === userId);
  }
}
