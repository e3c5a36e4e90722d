/**
 * The incentives module (domain 8): bot tiers with the engine's taker fee discount, staking pools with
 * integer reward accrual, airdrop campaigns over traded volume, and time-limited boosts. Commands and the
 * tier table are in commands.ts; the shell (shell/incentives) journals the catalogue, serves the routes
 * and the /ws/incentives stream.
 *
 * Volume comes from the engine's fills (port.onTrade) in live mode only, so no command can raise it: a
 * registered bot's owner gets a day bucket of the last 30 days, and each airdrop campaign open at the fill
 * counts the fill for both sides. When a bot owner's 30-day volume crosses a tier boundary on one of its
 * fills, the module sets the account's taker rate on the core (orders placed from then on pay it) and emits
 * TierChanged.
 *
 * Staking rewards accrue per position over journaled time: amount × rate × elapsed / year, where the rate
 * is the pool's APY (bps) times the owner's tier multiplier and any staking boost (percent, floored to a
 * whole bps). The product is exact (bigint), the floor goes to pending and the remainder is carried to the
 * next interval, so nothing is lost to rounding. Every change of a position's rate (a stake, an unstake, a
 * tier change, a boost starting or ending) first accrues up to that moment at the old rate.
 */
import { assert } from '../../core/assert.ts';
import { Mode, type Command, type DomainCommand } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { EventKind, type AmmFill, type TradeExecuted } from '../../core/events.ts';
import { noAccount } from '../../core/ledger.ts';
import { domainUserId } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';
import {
  BoostKind,
  IncentivesCommandType,
  IncentivesEventType,
  IncentivesResult,
  airdropAccountIndex,
  airdropUsersMax,
  airdropsMax,
  amountAtomsMax,
  apyBpsMax,
  boostAccountIndex,
  boostMsMax,
  boostMsMin,
  boostsMax,
  botsMax,
  botsPerUserMax,
  bpsDenominator,
  dayMs,
  lockupDaysMax,
  lockupOptionsMax,
  multiplierPctMax,
  poolRewardAccountIndex,
  poolStakeAccountIndex,
  poolsMax,
  positionsMax,
  printable,
  requestKeyCharsMax,
  requestKeysPerUserMax,
  tierOf,
  tiers,
  walletCharsMax,
  windowDays,
  yearMs,
  botNameCharsMax,
  strategyCharsMax,
  descriptionCharsMax,
  incentivesDomainId,
  type ActivateBoost,
  type AirdropConfig,
  type BoostConfig,
  type ClaimAirdrop,
  type ClaimRewards,
  type ConfigureIncentives,
  type IncentivesCatalogue,
  decodeCatalogue,
  type PoolConfig,
  type RegisterBot,
  type Stake,
  type Unstake,
} from './commands.ts';

interface Bot {
  botId: number;
  userId: number;
  wallet: string;
}

/** A bot owner's tier and its 30-day volume, one bucket per day (`days[i]` is the day bucket i holds). */
interface TierState {
  tier: number;
  days: number[];
  volumes: number[];
}

interface Position {
  userId: number;
  poolId: number;
  stakedAtoms: number;
  pendingAtoms: number;
  /** The accrual's carried numerator: always below bpsDenominator × yearMs. */
  remainder: number;
  lastMs: number;
  unlockMs: number;
  claimedAtoms: number;
}

interface Pool {
  config: PoolConfig;
  assetIndex: number;
  totalAtoms: number;
}

interface Airdrop {
  config: AirdropConfig;
  assetIndex: number;
  volumes: Map<number, number>;
  claimed: Set<number>;
}

interface ActiveBoost {
  userId: number;
  boostId: number;
  kind: BoostKind;
  value: number;
  expiresMs: number;
}

/** What accrual up to a time would give a position, computed without changing it. */
interface Accrued {
  pendingAtoms: number;
  remainder: number;
}

const denominator = BigInt(bpsDenominator) * BigInt(yearMs);
const positionKey = (userId: number, poolId: number): number => userId * 32 + poolId;
const boostKey = (userId: number, kind: number): number => userId * 2 + kind;

export class Incentives implements DomainModule {
  static readonly domainName = 'incentives';
  readonly name = Incentives.domainName;
  readonly commandKinds = [];
  readonly commandTypes = Object.values(IncentivesCommandType);

  private configured = false;
  private pools: Pool[] = [];
  private airdrops: Airdrop[] = [];
  private boosts: BoostConfig[] = [];
  private bots: Bot[] = [];
  private readonly botWallets = new Set<string>();
  private readonly botsPerUser = new Map<number, number>();
  private readonly tierStates = new Map<number, TierState>();
  private readonly positions = new Map<number, Position>();
  private readonly activeBoosts = new Map<number, ActiveBoost>();
  private readonly requestKeys = new Map<number, string[]>();

  constructor(private readonly port: DomainPort) {
    port.onTrade((fill) => this.onFill(fill));
  }

  // ---------------------------------------------------------------------------------------------------
  // Queries (read-only; the shell's view keeps its own copy from events, these serve tests and tools).

  /** Whether the catalogue is journaled. */
  get isConfigured(): boolean {
    return this.configured;
  }

  tierOfUser(userId: number): number {
    return this.tierStates.get(userId)?.tier ?? 0;
  }

  /** The 30-day volume of a bot owner at `nowMs` (0 for a user without a bot). */
  volumeOf(userId: number, nowMs: number): number {
    const state = this.tierStates.get(userId);
    return state === undefined ? 0 : windowVolume(state, Math.floor(nowMs / dayMs));
  }

  position(userId: number, poolId: number): Readonly<Position> | undefined {
    return this.positions.get(positionKey(userId, poolId));
  }

  /** Pending rewards of a position as of `nowMs` (accrued but not yet booked). */
  pendingAt(userId: number, poolId: number, nowMs: number): number {
    const position = this.positions.get(positionKey(userId, poolId));
    return position === undefined ? 0 : this.accrued(position, nowMs).pendingAtoms;
  }

  /**
   * Visits every position with tokens staked: the staker, the pool's asset id and the staked atoms, in the
   * positions' order (journal order, kept by snapshots). Other domains read it: the revenue share
   * (rewards) counts staked tokens as their staker's holding, since they sit in the pools' accounts.
   */
  forEachStake(visit: (userId: number, assetId: number, stakedAtoms: number) => void): void {
    for (const position of this.positions.values()) {
      if (position.stakedAtoms === 0) continue;
      const pool = this.pools.find((candidate) => candidate.config.poolId === position.poolId);
      if (pool !== undefined) visit(position.userId, pool.config.assetId, position.stakedAtoms);
    }
  }

  airdropVolume(airdropId: number, userId: number): number {
    return this.airdrops.find((airdrop) => airdrop.config.airdropId === airdropId)?.volumes.get(userId) ?? 0;
  }

  activeBoost(userId: number, kind: BoostKind): Readonly<ActiveBoost> | undefined {
    return this.activeBoosts.get(boostKey(userId, kind));
  }

  // ---------------------------------------------------------------------------------------------------
  // Commands.

  apply(command: Command): ResultCode {
    const domainCommand = command as DomainCommand;
    switch (domainCommand.type) {
      case IncentivesCommandType.configure:
        return this.configure(domainCommand.body as ConfigureIncentives);
      case IncentivesCommandType.registerBot:
        return this.registerBot(domainCommand.body as RegisterBot);
      case IncentivesCommandType.stake:
        return this.stake(domainCommand.body as Stake);
      case IncentivesCommandType.unstake:
        return this.unstake(domainCommand.body as Unstake);
      case IncentivesCommandType.claimRewards:
        return this.claimRewards(domainCommand.body as ClaimRewards);
      case IncentivesCommandType.claimAirdrop:
        return this.claimAirdrop(domainCommand.body as ClaimAirdrop);
      case IncentivesCommandType.activateBoost:
        return this.activateBoost(domainCommand.body as ActivateBoost);
      default:
        return Result.unknownCommand;
    }
  }

  private configure(command: ConfigureIncentives): ResultCode {
    const body = decodeCatalogue(command);
    if (this.configured || body === null || !this.validCatalogue(body)) return IncentivesResult.invalidConfiguration;
    this.configured = true;
    this.pools = body.pools.map((config) => ({ config: clonePool(config), assetIndex: this.assetIndex(config.assetId), totalAtoms: 0 }));
    this.airdrops = body.airdrops.map((config) => ({ config: { ...config }, assetIndex: this.assetIndex(config.assetId), volumes: new Map(), claimed: new Set() }));
    this.boosts = body.boosts.map((config) => ({ ...config }));
    this.port.emit(domainEvent(IncentivesEventType.configured, { pools: body.pools.map(clonePool), airdrops: body.airdrops.map((a) => ({ ...a })), boosts: body.boosts.map((b) => ({ ...b })) }));
    return Result.ok;
  }

  private assetIndex(assetId: number): number {
    const asset = this.port.markets.assetById(assetId);
    assert(asset !== undefined, 'a checked asset id');
    return asset.index;
  }

  private validCatalogue(body: IncentivesCatalogue): boolean {
    const amount = (value: number, min = 0) => Number.isSafeInteger(value) && value >= min && value <= amountAtomsMax;
    const asset = (assetId: number) => Number.isSafeInteger(assetId) && this.port.markets.assetById(assetId) !== undefined;
    const distinct = (ids: number[]) => new Set(ids).size === ids.length;
    if (!Array.isArray(body.pools) || body.pools.length > poolsMax || !distinct(body.pools.map((pool) => pool.poolId))) return false;
    for (const pool of body.pools) {
      if (!Number.isSafeInteger(pool.poolId) || pool.poolId < 1 || pool.poolId > poolsMax || !asset(pool.assetId)) return false;
      if (!Number.isSafeInteger(pool.apyBps) || pool.apyBps < 0 || pool.apyBps > apyBpsMax) return false;
      if (!amount(pool.minStakeAtoms, 1) || !amount(pool.maxStakeAtoms, pool.minStakeAtoms) || !amount(pool.capacityAtoms, 1)) return false;
      if (!Array.isArray(pool.lockupDays) || pool.lockupDays.length === 0 || pool.lockupDays.length > lockupOptionsMax || !distinct(pool.lockupDays)) return false;
      if (!pool.lockupDays.every((days) => Number.isSafeInteger(days) && days >= 0 && days <= lockupDaysMax)) return false;
    }
    if (!Array.isArray(body.airdrops) || body.airdrops.length > airdropsMax || !distinct(body.airdrops.map((a) => a.airdropId))) return false;
    for (const airdrop of body.airdrops) {
      if (!Number.isSafeInteger(airdrop.airdropId) || airdrop.airdropId < 1 || !asset(airdrop.assetId)) return false;
      if (!amount(airdrop.amountAtoms, 1) || !amount(airdrop.minVolumeAtoms)) return false;
      if (!amount(airdrop.windowStartMs) || !amount(airdrop.windowEndMs, airdrop.windowStartMs + 1) || !amount(airdrop.claimEndMs, airdrop.windowStartMs + 1)) return false;
    }
    if (!Array.isArray(body.boosts) || body.boosts.length > boostsMax || !distinct(body.boosts.map((b) => b.boostId))) return false;
    for (const boost of body.boosts) {
      if (!Number.isSafeInteger(boost.boostId) || boost.boostId < 1 || !asset(boost.costAssetId) || !amount(boost.costAtoms)) return false;
      if (boost.kind === BoostKind.stakingApy) {
        if (!Number.isSafeInteger(boost.value) || boost.value < 100 || boost.value > multiplierPctMax) return false;
      } else if (boost.kind === BoostKind.feeDiscount) {
        if (!Number.isSafeInteger(boost.value) || boost.value < 1 || boost.value > bpsDenominator) return false;
      } else {
        return false;
      }
      if (!Number.isSafeInteger(boost.durationMs) || boost.durationMs < boostMsMin || boost.durationMs > boostMsMax) return false;
      if (!Number.isSafeInteger(boost.minTier) || boost.minTier < 0 || boost.minTier >= tiers.length) return false;
    }
    return true;
  }

  private registerBot(body: RegisterBot): ResultCode {
    if (!Number.isSafeInteger(body.userId) || body.userId < 1 || body.userId >= domainUserId(1, 0)) return IncentivesResult.invalidBot;
    if (!printable(body.wallet, walletCharsMax) || body.wallet.length === 0 || !printable(body.name, botNameCharsMax) || body.name.length === 0) return IncentivesResult.invalidBot;
    if (!printable(body.strategyType, strategyCharsMax) || !printable(body.description, descriptionCharsMax)) return IncentivesResult.invalidBot;
    if (this.botWallets.has(body.wallet)) return IncentivesResult.walletTaken;
    const owned = this.botsPerUser.get(body.userId) ?? 0;
    if (owned >= botsPerUserMax || this.bots.length >= botsMax) return IncentivesResult.tooManyBots;

    const bot: Bot = { botId: this.bots.length + 1, userId: body.userId, wallet: body.wallet };
    this.bots.push(bot);
    this.botWallets.add(body.wallet);
    this.botsPerUser.set(body.userId, owned + 1);
    if (!this.tierStates.has(body.userId)) this.tierStates.set(body.userId, { tier: 0, days: new Array<number>(windowDays).fill(-1), volumes: new Array<number>(windowDays).fill(0) });
    this.port.emit(
      domainEvent(IncentivesEventType.botRegistered, {
        botId: bot.botId,
        userId: body.userId,
        wallet: body.wallet,
        name: body.name,
        strategyType: body.strategyType,
        description: body.description,
        registeredMs: this.port.commandTimeMs(),
      }),
    );
    return Result.ok;
  }

  private stake(body: Stake): ResultCode {
    if (!this.configured) return IncentivesResult.notConfigured;
    const pool = this.pools.find((candidate) => candidate.config.poolId === body.poolId);
    if (pool === undefined) return IncentivesResult.poolNotFound;
    const config = pool.config;
    const key = positionKey(body.userId, body.poolId);
    const existing = this.positions.get(key);
    const stakedBefore = existing?.stakedAtoms ?? 0;
    if (!Number.isSafeInteger(body.amountAtoms) || body.amountAtoms < config.minStakeAtoms || stakedBefore + body.amountAtoms > config.maxStakeAtoms) return IncentivesResult.invalidStake;
    if (!config.lockupDays.includes(body.lockupDays)) return IncentivesResult.invalidStake;
    if (pool.totalAtoms + body.amountAtoms > config.capacityAtoms) return IncentivesResult.poolFull;
    if (existing === undefined && this.positions.size >= positionsMax) return IncentivesResult.tooManyPositions;
    const ledger = this.port.ledger;
    const account = Number.isSafeInteger(body.userId) && body.userId >= 1 ? ledger.find(body.userId, Mode.live) : noAccount;
    if (account === noAccount || ledger.availableAtoms(account, pool.assetIndex) < body.amountAtoms) return Result.insufficientBalance;
    const poolAccount = this.domainAccount(poolStakeAccountIndex(body.poolId));

    const now = this.port.commandTimeMs();
    const position = existing ?? { userId: body.userId, poolId: body.poolId, stakedAtoms: 0, pendingAtoms: 0, remainder: 0, lastMs: now, unlockMs: now, claimedAtoms: 0 };
    this.accrue(position, now);
    ledger.payFromAvailable(account, poolAccount, pool.assetIndex, body.amountAtoms);
    position.stakedAtoms += body.amountAtoms;
    position.unlockMs = Math.max(position.unlockMs, now + body.lockupDays * dayMs);
    pool.totalAtoms += body.amountAtoms;
    if (existing === undefined) this.positions.set(key, position);
    this.port.emit(
      domainEvent(IncentivesEventType.staked, {
        userId: body.userId,
        poolId: body.poolId,
        amountAtoms: body.amountAtoms,
        lockupDays: body.lockupDays,
        unlockMs: position.unlockMs,
        positionAtoms: position.stakedAtoms,
        poolTotalAtoms: pool.totalAtoms,
      }),
    );
    return Result.ok;
  }

  private unstake(body: Unstake): ResultCode {
    if (!this.configured) return IncentivesResult.notConfigured;
    const pool = this.pools.find((candidate) => candidate.config.poolId === body.poolId);
    if (pool === undefined) return IncentivesResult.poolNotFound;
    const position = this.positions.get(positionKey(body.userId, body.poolId));
    if (position === undefined || !Number.isSafeInteger(body.amountAtoms) || body.amountAtoms < 1 || body.amountAtoms > position.stakedAtoms) return IncentivesResult.invalidUnstake;
    const now = this.port.commandTimeMs();
    if (now < position.unlockMs) return IncentivesResult.stakeLocked;

    this.accrue(position, now);
    const ledger = this.port.ledger;
    const account = ledger.find(body.userId, Mode.live);
    assert(account !== noAccount, 'a staker has an account');
    ledger.payFromAvailable(this.domainAccount(poolStakeAccountIndex(body.poolId)), account, pool.assetIndex, body.amountAtoms);
    position.stakedAtoms -= body.amountAtoms;
    pool.totalAtoms -= body.amountAtoms;
    // The position stays while it holds pending rewards or its history of claims (the summary shows both).
    this.port.emit(
      domainEvent(IncentivesEventType.unstaked, {
        userId: body.userId,
        poolId: body.poolId,
        amountAtoms: body.amountAtoms,
        positionAtoms: position.stakedAtoms,
        poolTotalAtoms: pool.totalAtoms,
      }),
    );
    return Result.ok;
  }

  private claimRewards(body: ClaimRewards): ResultCode {
    if (!this.configured) return IncentivesResult.notConfigured;
    if (body.poolId !== 0 && !this.pools.some((pool) => pool.config.poolId === body.poolId)) return IncentivesResult.poolNotFound;
    const now = this.port.commandTimeMs();
    const ledger = this.port.ledger;
    // Check every pool first: a claim of all pools pays all of them or none.
    const paying: Array<{ pool: Pool; position: Position; accrued: Accrued }> = [];
    for (const pool of this.pools) {
      if (body.poolId !== 0 && pool.config.poolId !== body.poolId) continue;
      const position = this.positions.get(positionKey(body.userId, pool.config.poolId));
      if (position === undefined) continue;
      const accrued = this.accrued(position, now);
      if (accrued.pendingAtoms === 0) continue;
      const rewardAccount = ledger.find(domainUserId(incentivesDomainId, poolRewardAccountIndex(pool.config.poolId)), Mode.live);
      if (rewardAccount === noAccount || ledger.availableAtoms(rewardAccount, pool.assetIndex) < accrued.pendingAtoms) return IncentivesResult.rewardsUnfunded;
      paying.push({ pool, position, accrued });
    }
    if (paying.length === 0) return IncentivesResult.nothingToClaim;

    const account = ledger.find(body.userId, Mode.live);
    assert(account !== noAccount, 'a staker has an account');
    for (const { pool, position } of paying) {
      this.accrue(position, now);
      const amountAtoms = position.pendingAtoms;
      ledger.payFromAvailable(this.domainAccount(poolRewardAccountIndex(pool.config.poolId)), account, pool.assetIndex, amountAtoms);
      position.pendingAtoms = 0;
      position.claimedAtoms += amountAtoms;
      this.port.emit(
        domainEvent(IncentivesEventType.rewardsClaimed, {
          userId: body.userId,
          poolId: pool.config.poolId,
          assetId: pool.config.assetId,
          amountAtoms,
          claimedTotalAtoms: position.claimedAtoms,
        }),
      );
    }
    return Result.ok;
  }

  private claimAirdrop(body: ClaimAirdrop): ResultCode {
    if (!this.configured) return IncentivesResult.notConfigured;
    const airdrop = this.airdrops.find((candidate) => candidate.config.airdropId === body.airdropId);
    if (airdrop === undefined) return IncentivesResult.airdropNotFound;
    const config = airdrop.config;
    if (this.port.commandTimeMs() >= config.claimEndMs) return IncentivesResult.airdropEnded;
    if (airdrop.claimed.has(body.userId)) return IncentivesResult.airdropClaimed;
    if ((airdrop.volumes.get(body.userId) ?? 0) < Math.max(1, config.minVolumeAtoms)) return IncentivesResult.airdropIneligible;
    const ledger = this.port.ledger;
    const source = ledger.find(domainUserId(incentivesDomainId, airdropAccountIndex), Mode.live);
    if (source === noAccount || ledger.availableAtoms(source, airdrop.assetIndex) < config.amountAtoms) return IncentivesResult.airdropUnfunded;
    const account = ledger.find(body.userId, Mode.live);
    assert(account !== noAccount, 'a trader has an account');
    ledger.payFromAvailable(source, account, airdrop.assetIndex, config.amountAtoms);
    airdrop.claimed.add(body.userId);
    this.port.emit(domainEvent(IncentivesEventType.airdropClaimed, { userId: body.userId, airdropId: config.airdropId, assetId: config.assetId, amountAtoms: config.amountAtoms }));
    return Result.ok;
  }

  private activateBoost(body: ActivateBoost): ResultCode {
    if (!this.configured) return IncentivesResult.notConfigured;
    if (!printable(body.requestKey, requestKeyCharsMax) || body.requestKey.length === 0) return IncentivesResult.invalidRequestKey;
    const boost = this.boosts.find((candidate) => candidate.boostId === body.boostId);
    if (boost === undefined) return IncentivesResult.boostNotFound;
    // The same request again: answered ok, nothing changes (the first activation stands).
    if (this.requestKeys.get(body.userId)?.includes(body.requestKey) === true) return Result.ok;
    if (this.tierOfUser(body.userId) < boost.minTier) return IncentivesResult.boostIneligible;
    if (this.activeBoosts.has(boostKey(body.userId, boost.kind))) return IncentivesResult.boostActive;
    const ledger = this.port.ledger;
    const costIndex = this.assetIndex(boost.costAssetId);
    const account = Number.isSafeInteger(body.userId) && body.userId >= 1 && body.userId < domainUserId(1, 0) ? ledger.find(body.userId, Mode.live) : noAccount;
    if (account === noAccount || ledger.availableAtoms(account, costIndex) < boost.costAtoms) return Result.insufficientBalance;

    const now = this.port.commandTimeMs();
    if (boost.kind === BoostKind.stakingApy) this.accrueUser(body.userId, now);
    if (boost.costAtoms > 0) ledger.payFromAvailable(account, this.domainAccount(boostAccountIndex), costIndex, boost.costAtoms);
    const active: ActiveBoost = { userId: body.userId, boostId: boost.boostId, kind: boost.kind, value: boost.value, expiresMs: now + boost.durationMs };
    this.activeBoosts.set(boostKey(body.userId, boost.kind), active);
    const keys = this.requestKeys.get(body.userId) ?? [];
    keys.push(body.requestKey);
    if (keys.length > requestKeysPerUserMax) keys.shift();
    this.requestKeys.set(body.userId, keys);
    if (boost.kind === BoostKind.feeDiscount) this.applyFeeRate(body.userId);
    this.port.emit(
      domainEvent(IncentivesEventType.boostActivated, {
        userId: body.userId,
        boostId: boost.boostId,
        kind: boost.kind,
        value: boost.value,
        expiresMs: active.expiresMs,
        requestKey: body.requestKey,
        costAtoms: boost.costAtoms,
      }),
    );
    return Result.ok;
  }

  // ---------------------------------------------------------------------------------------------------
  // Fills, tiers and fee rates.

  private onFill(fill: TradeExecuted | AmmFill): void {
    if (fill.mode !== Mode.live) return;
    const now = this.port.commandTimeMs();
    if (fill.kind === EventKind.tradeExecuted) {
      this.count(fill.takerUserId, fill.notionalAtoms, now);
      if (fill.makerUserId !== fill.takerUserId) this.count(fill.makerUserId, fill.notionalAtoms, now);
    } else {
      this.count(fill.userId, fill.notionalAtoms, now);
    }
  }

  private count(userId: number, notionalAtoms: number, now: number): void {
    for (const airdrop of this.airdrops) {
      const config = airdrop.config;
      if (now < config.windowStartMs || now >= config.windowEndMs) continue;
      const before = airdrop.volumes.get(userId);
      if (before === undefined && airdrop.volumes.size >= airdropUsersMax) continue;
      airdrop.volumes.set(userId, (before ?? 0) + notionalAtoms);
    }
    const state = this.tierStates.get(userId);
    if (state === undefined) return;
    const day = Math.floor(now / dayMs);
    const bucket = day % windowDays;
    if (state.days[bucket] !== day) {
      state.days[bucket] = day;
      state.volumes[bucket] = 0;
    }
    state.volumes[bucket] = state.volumes[bucket]! + notionalAtoms;
    const volumeAtoms = windowVolume(state, day);
    const tier = tierOf(volumeAtoms);
    if (tier === state.tier) return;
    // Rewards up to this fill accrue at the old multiplier.
    this.accrueUser(userId, now);
    const oldTier = state.tier;
    state.tier = tier;
    const takerFeeBps = this.applyFeeRate(userId);
    this.port.emit(
      domainEvent(IncentivesEventType.tierChanged, { userId, oldTier, newTier: tier, volumeAtoms, takerFeeBps, rewardMultiplierPct: tiers[tier]!.rewardMultiplierPct }),
    );
  }

  /** Sets the account's taker rate from its tier and fee boost; returns it. */
  private applyFeeRate(userId: number): number {
    const engineBps = this.port.settings.takerFeeBps;
    const boost = this.activeBoosts.get(boostKey(userId, BoostKind.feeDiscount));
    const bps = Math.max(0, engineBps - tiers[this.tierOfUser(userId)]!.discountBps - (boost?.value ?? 0));
    if (this.port.ledger.find(userId, Mode.live) !== noAccount) this.port.setTakerFeeBps(userId, Mode.live, bps);
    return bps;
  }

  // ---------------------------------------------------------------------------------------------------
  // Accrual.

  /** The position's rate in bps now: the pool's APY with the owner's tier multiplier and staking boost. */
  private rateBps(position: Position, boosted: boolean): number {
    const pool = this.pools.find((candidate) => candidate.config.poolId === position.poolId)!;
    const boost = boosted ? this.activeBoosts.get(boostKey(position.userId, BoostKind.stakingApy)) : undefined;
    return stakingRateBps(pool.config.apyBps, tiers[this.tierOfUser(position.userId)]!.rewardMultiplierPct, boost?.value ?? 100);
  }

  /** Accrual from the position's last time to `now`, split where a staking boost ends. */
  private accrued(position: Position, now: number): Accrued {
    let pendingAtoms = position.pendingAtoms;
    let remainder = position.remainder;
    let from = position.lastMs;
    const step = (to: number, boosted: boolean): void => {
      if (to <= from || position.stakedAtoms === 0) {
        from = Math.max(from, to);
        return;
      }
      const segment = accrueSegment(position.stakedAtoms, this.rateBps(position, boosted), to - from, remainder);
      pendingAtoms += segment.rewardAtoms;
      remainder = segment.remainder;
      from = to;
    };
    const boost = this.activeBoosts.get(boostKey(position.userId, BoostKind.stakingApy));
    if (boost !== undefined && boost.expiresMs < now) {
      step(boost.expiresMs, true);
      step(now, false);
    } else {
      step(now, true);
    }
    assert(pendingAtoms <= Number.MAX_SAFE_INTEGER, 'pending rewards beyond the safe range');
    return { pendingAtoms, remainder };
  }

  private accrue(position: Position, now: number): void {
    const accrued = this.accrued(position, now);
    position.pendingAtoms = accrued.pendingAtoms;
    position.remainder = accrued.remainder;
    position.lastMs = Math.max(position.lastMs, now);
  }

  private accrueUser(userId: number, now: number): void {
    for (const pool of this.pools) {
      const position = this.positions.get(positionKey(userId, pool.config.poolId));
      if (position !== undefined) this.accrue(position, now);
    }
  }

  private domainAccount(index: number): number {
    const account = this.port.ledger.findOrOpen(domainUserId(incentivesDomainId, index), Mode.live);
    assert(account !== noAccount, 'no room for an incentives account');
    return account;
  }

  // ---------------------------------------------------------------------------------------------------
  // Timers: boosts end at their journaled expiry.

  nextTimerMs(): number {
    let earliest = noTimerMs;
    for (const boost of this.activeBoosts.values()) earliest = Math.min(earliest, boost.expiresMs);
    return earliest;
  }

  runTimers(nowMs: number): void {
    const due = [...this.activeBoosts.values()].filter((boost) => boost.expiresMs <= nowMs);
    // In expiry order, then user and kind, so that equal states expire alike.
    due.sort((a, b) => a.expiresMs - b.expiresMs || a.userId - b.userId || a.kind - b.kind);
    for (const boost of due) {
      // A staking boost's positions accrue to now (the split at its expiry happens inside).
      if (boost.kind === BoostKind.stakingApy) this.accrueUser(boost.userId, nowMs);
      this.activeBoosts.delete(boostKey(boost.userId, boost.kind));
      if (boost.kind === BoostKind.feeDiscount) this.applyFeeRate(boost.userId);
      this.port.emit(domainEvent(IncentivesEventType.boostExpired, { userId: boost.userId, boostId: boost.boostId, kind: boost.kind }));
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Hash and snapshot: one plain structure, hashed in the same order it is stored.

  hash(hasher: StateHasher): void {
    const state = this.snapshot();
    if (state === null) return;
    hasher.number(-incentivesDomainId);
    hashValue(hasher, state);
  }

  snapshot(): IncentivesSnapshot | null {
    if (!this.configured && this.bots.length === 0) return null;
    return {
      configured: this.configured,
      pools: this.pools.map((pool) => ({ config: clonePool(pool.config), totalAtoms: pool.totalAtoms })),
      airdrops: this.airdrops.map((airdrop) => ({ config: { ...airdrop.config }, volumes: [...airdrop.volumes.entries()], claimed: [...airdrop.claimed] })),
      boosts: this.boosts.map((boost) => ({ ...boost })),
      bots: this.bots.map((bot) => ({ ...bot })),
      tiers: [...this.tierStates.entries()].map(([userId, state]) => ({ userId, tier: state.tier, days: [...state.days], volumes: [...state.volumes] })),
      positions: [...this.positions.values()].map((position) => ({ ...position })),
      activeBoosts: [...this.activeBoosts.values()].map((boost) => ({ ...boost })),
      requestKeys: [...this.requestKeys.entries()].map(([userId, keys]) => ({ userId, keys: [...keys] })),
    };
  }

  restore(state: unknown): void {
    assert(!this.configured && this.bots.length === 0, 'restore needs a fresh incentives module');
    const data = state as IncentivesSnapshot;
    assert(data !== null && typeof data === 'object' && Array.isArray(data.pools) && Array.isArray(data.bots) && Array.isArray(data.positions), 'incentives snapshot shape');
    this.configured = data.configured === true;
    this.pools = data.pools.map((pool) => ({ config: clonePool(pool.config), assetIndex: this.assetIndex(pool.config.assetId), totalAtoms: pool.totalAtoms }));
    this.airdrops = data.airdrops.map((airdrop) => ({
      config: { ...airdrop.config },
      assetIndex: this.assetIndex(airdrop.config.assetId),
      volumes: new Map(airdrop.volumes.map(([userId, volume]) => [userId, volume] as [number, number])),
      claimed: new Set(airdrop.claimed),
    }));
    this.boosts = data.boosts.map((boost) => ({ ...boost }));
    for (const bot of data.bots) {
      this.bots.push({ ...bot });
      this.botWallets.add(bot.wallet);
      this.botsPerUser.set(bot.userId, (this.botsPerUser.get(bot.userId) ?? 0) + 1);
    }
    for (const tier of data.tiers) this.tierStates.set(tier.userId, { tier: tier.tier, days: [...tier.days], volumes: [...tier.volumes] });
    for (const position of data.positions) this.positions.set(positionKey(position.userId, position.poolId), { ...position });
    for (const boost of data.activeBoosts) this.activeBoosts.set(boostKey(boost.userId, boost.kind), { ...boost });
    for (const entry of data.requestKeys) this.requestKeys.set(entry.userId, [...entry.keys]);
  }
}

export interface IncentivesSnapshot {
  configured: boolean;
  pools: Array<{ config: PoolConfig; totalAtoms: number }>;
  airdrops: Array<{ config: AirdropConfig; volumes: Array<[number, number]>; claimed: number[] }>;
  boosts: BoostConfig[];
  bots: Bot[];
  tiers: Array<{ userId: number; tier: number; days: number[]; volumes: number[] }>;
  positions: Position[];
  activeBoosts: ActiveBoost[];
  requestKeys: Array<{ userId: number; keys: string[] }>;
}

/** A position's rate: the pool's APY times the tier multiplier and the staking boost (percent), floored to whole bps. */
export function stakingRateBps(apyBps: number, tierPct: number, boostPct: number): number {
  return Math.floor((apyBps * tierPct * boostPct) / 10_000);
}

/**
 * Rewards of `stakedAtoms` at `rateBps` a year over `elapsedMs`, with the carried `remainder`: the floor
 * is paid, the rest carried (always below bpsDenominator × yearMs, a safe integer). Exact, in bigint.
 */
export function accrueSegment(stakedAtoms: number, rateBps: number, elapsedMs: number, remainder: number): { rewardAtoms: number; remainder: number } {
  const numerator = BigInt(stakedAtoms) * BigInt(rateBps) * BigInt(elapsedMs) + BigInt(remainder);
  return { rewardAtoms: Number(numerator / denominator), remainder: Number(numerator % denominator) };
}

function clonePool(config: PoolConfig): PoolConfig {
  return { ...config, lockupDays: [...config.lockupDays] };
}

/** The volume of the buckets that fall in the 30 days ending with `day`. */
function windowVolume(state: TierState, day: number): number {
  let total = 0;
  for (let bucket = 0; bucket < windowDays; bucket++) {
    const bucketDay = state.days[bucket]!;
    if (bucketDay > day - windowDays && bucketDay <= day) total += state.volumes[bucket]!;
  }
  return total;
}

/** Hashes plain data (numbers, strings, booleans, arrays, objects in key order) with type markers. */
function hashValue(hasher: StateHasher, value: unknown): void {
  if (typeof value === 'number') {
    hasher.number(value);
  } else if (typeof value === 'string') {
    hasher.string(value);
  } else if (typeof value === 'boolean') {
    hasher.number(value ? 1 : 0);
  } else if (Array.isArray(value)) {
    hasher.number(-1_000_000 - value.length);
    for (const item of value) hashValue(hasher, item);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      hasher.string(key);
      hashValue(hasher, item);
    }
  }
}

/** The incentives module of an engine, if it has one. */
export function incentivesOf(engine: { domain(name: string): DomainModule | undefined }): Incentives | undefined {
  const module = engine.domain(Incentives.domainName);
  return module instanceof Incentives ? module : undefined;
}
