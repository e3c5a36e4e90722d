/**
 * The rewards module: revenue-share accrual and bounty payments (the rules are in commands.ts).
 *
 * - ConfigureRewards may come again: a new interval applies from the next accrual, a new share and token
 *   list at it. The first one starts counting fees (before it the module is empty and counts nothing, so
 *   older journals hash as before).
 * - Accrual runs at the first RunTimers at or after `nextAccrualMs`; the next is the following multiple of
 *   the interval after that RunTimers' time.
 * - Holdings at an accrual: each user's live ledger balance of the token (available + held) and what the
 *   user has staked of it in the incentives domain's pools. That module is made after this one, so it is
 *   looked up when an accrual runs (every module exists by then), never while this one is made.
 * - ConfigurePayouts sets a second timer; a payout runs at the first RunTimers at or after `nextPayoutMs`,
 *   after the accrual due at the same RunTimers, and pays each pending entry in full (one ledger move from
 *   the fee account, in the entries' order) or leaves it pending when the fee account cannot cover it.
 * - PayBounty: validate everything, then one ledger move from the bounty account to the reporter.
 */
import { assert } from '../../core/assert.ts';
import type { Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import type { Engine } from '../../core/engine.ts';
import { Liquidity, EventKind, type AmmFill, type TradeExecuted } from '../../core/events.ts';
import { noAccount } from '../../core/ledger.ts';
import { domainUserId, isDomainUserId, userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hasher.ts';
import {
  RewardsCommandType,
  RewardsEventType,
  RewardsResult,
  accrualIntervalMsMax,
  accrualIntervalMsMin,
  bountiesMax,
  bountyAtomsMax,
  paidEntriesMax,
  pendingEntriesMax,
  rewardTokensMax,
  rewardsAssetSymbol,
  rewardsDomainId,
  shareBpsMax,
  type BountyPaid,
  type ConfigurePayouts,
  type ConfigureRewards,
  type PayBounty,
  type PayoutsConfigured,
  type RewardsAccrued,
  type RewardsConfigured,
  type RewardsPaid,
} from './commands.ts';

/** The bounty account: funded by journaled deposits, pays verified reports. */
export const bountyUserId = domainUserId(rewardsDomainId, 0);

const pendingKey = (userId: number, assetId: number): string => `${userId}:${assetId}`;

/** The live fee account's user: taker fees arrive there, payouts leave from it. */
const feeUserId = 0;

/** What the revenue share reads of the incentives domain: its staked positions. */
interface StakeSource {
  forEachStake(visit: (userId: number, assetId: number, stakedAtoms: number) => void): void;
}
const incentivesDomainName = 'incentives';

export interface RewardsSnapshot {
  intervalMs: number;
  shareBps: number;
  tokenAssetIds: number[];
  collectedAtoms: number;
  carryAtoms: number;
  nextAccrualMs: number;
  lastAccrualMs: number;
  /** [userId, assetId, atoms], in insertion order. */
  pending: Array<[number, number, number]>;
  paidReports: number[];
  /** Payouts (absent in snapshots of builds without them: no payouts). */
  payoutIntervalMs?: number;
  nextPayoutMs?: number;
  lastPayoutMs?: number;
  /** [userId, assetId, atoms paid in all], in insertion order. */
  paid?: Array<[number, number, number]>;
}

export class Rewards implements DomainModule {
  static readonly domainName = 'rewards';
  readonly name = Rewards.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [RewardsCommandType.configure, RewardsCommandType.payBounty, RewardsCommandType.configurePayouts];
  intervalMs = 0;
  shareBps = 0;
  tokenAssetIds: number[] = [];
  /** Live taker fees in USDC atoms since the last accrual. */
  collectedAtoms = 0;
  /** Shares earlier accruals could not give out. */
  carryAtoms = 0;
  nextAccrualMs = noTimerMs;
  lastAccrualMs = 0;
  /** The payout timer's period (0: no payouts), its next strike and the last payout's time. */
  payoutIntervalMs = 0;
  nextPayoutMs = noTimerMs;
  lastPayoutMs = 0;
  private readonly pending = new Map<string, [number, number, number]>();
  private readonly paid = new Map<string, [number, number, number]>();
  private readonly paidReports = new Set<number>();
  private readonly assetIndex: number;

  constructor(private readonly port: DomainPort) {
    const asset = port.markets.assetBySymbol(rewardsAssetSymbol);
    assert(asset !== undefined, `the rewards domain needs the ${rewardsAssetSymbol} asset`);
    this.assetIndex = asset.index;
    port.onTrade((fill) => this.onFill(fill));
  }

  get configured(): boolean {
    return this.intervalMs > 0;
  }

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the rewards module gets domain commands only');
    switch (command.type) {
      case RewardsCommandType.configure:
        return this.configure(command.body as ConfigureRewards);
      case RewardsCommandType.payBounty:
        return this.payBounty(command.body as PayBounty);
      case RewardsCommandType.configurePayouts:
        return this.configurePayouts(command.body as ConfigurePayouts);
      default:
        return Result.unknownCommand;
    }
  }

  // Queries.

  /** Pending revenue-share rewards of a user for a token, in USDC atoms. */
  pendingAtoms(userId: number, tokenAssetId: number): number {
    return this.pending.get(pendingKey(userId, tokenAssetId))?.[2] ?? 0;
  }

  /** Revenue-share rewards paid out to a user for a token in all, in USDC atoms. */
  paidAtoms(userId: number, tokenAssetId: number): number {
    return this.paid.get(pendingKey(userId, tokenAssetId))?.[2] ?? 0;
  }

  isPaid(reportId: number): boolean {
    return this.paidReports.has(reportId);
  }

  // Fees.

  private onFill(fill: TradeExecuted | AmmFill): void {
    if (!this.configured || fill.mode !== 0) return;
    const pair = this.port.markets.pairById(fill.pairId);
    if (pair === undefined || pair.quote.index !== this.assetIndex) return;
    if (fill.kind === EventKind.tradeExecuted) this.collectedAtoms += fill.takerFeeAtoms;
    else if (fill.liquidity === Liquidity.taker) this.collectedAtoms += fill.feeAtoms;
  }

  // Commands.

  private configure(body: ConfigureRewards): ResultCode {
    const ids = body.tokenAssetIds;
    if (
      !Number.isSafeInteger(body.intervalMs) ||
      body.intervalMs < accrualIntervalMsMin ||
      body.intervalMs > accrualIntervalMsMax ||
      !Number.isSafeInteger(body.shareBps) ||
      body.shareBps < 0 ||
      body.shareBps > shareBpsMax ||
      !Array.isArray(ids) ||
      ids.length < 1 ||
      ids.length > rewardTokensMax ||
      new Set(ids).size !== ids.length ||
      !ids.every((id) => {
        const asset = this.port.markets.assetById(id);
        return asset !== undefined && asset.index !== this.assetIndex;
      })
    ) {
      return RewardsResult.invalidConfiguration;
    }
    const nowMs = this.port.commandTimeMs();
    const first = !this.configured;
    this.intervalMs = body.intervalMs;
    this.shareBps = body.shareBps;
    this.tokenAssetIds = [...ids];
    if (first) this.nextAccrualMs = (Math.floor(nowMs / this.intervalMs) + 1) * this.intervalMs;
    const event: RewardsConfigured = { intervalMs: body.intervalMs, shareBps: body.shareBps, tokenAssetIds: [...ids] };
    this.port.emit(domainEvent(RewardsEventType.configured, event));
    return Result.ok;
  }

  private configurePayouts(body: ConfigurePayouts): ResultCode {
    const interval = body.intervalMs;
    if (!Number.isSafeInteger(interval) || (interval !== 0 && (interval < accrualIntervalMsMin || interval > accrualIntervalMsMax))) return RewardsResult.invalidPayouts;
    this.payoutIntervalMs = interval;
    this.nextPayoutMs = interval === 0 ? noTimerMs : (Math.floor(this.port.commandTimeMs() / interval) + 1) * interval;
    const event: PayoutsConfigured = { intervalMs: interval, nextPayoutMs: interval === 0 ? 0 : this.nextPayoutMs };
    this.port.emit(domainEvent(RewardsEventType.payoutsConfigured, event));
    return Result.ok;
  }

  private payBounty(body: PayBounty): ResultCode {
    if (!Number.isSafeInteger(body.reportId) || body.reportId < 1 || !Number.isSafeInteger(body.amountAtoms) || body.amountAtoms < 1 || body.amountAtoms > bountyAtomsMax) {
      return RewardsResult.invalidBounty;
    }
    if (!Number.isSafeInteger(body.userId) || body.userId < 1 || body.userId > userIdMax) return Result.invalidUser;
    if (this.paidReports.has(body.reportId)) return RewardsResult.bountyAlreadyPaid;
    if (this.paidReports.size >= bountiesMax) return RewardsResult.tooManyBounties;
    const ledger = this.port.ledger;
    const fund = ledger.find(bountyUserId, 0);
    if (fund === noAccount || ledger.availableAtoms(fund, this.assetIndex) < body.amountAtoms) return RewardsResult.bountyFundEmpty;
    // The last check: opening the reporter's account is the only change a refusal could leave behind.
    const account = ledger.findOrOpen(body.userId, 0);
    if (account === noAccount) return Result.tooManyAccounts;

    ledger.payFromAvailable(fund, account, this.assetIndex, body.amountAtoms);
    this.paidReports.add(body.reportId);
    const asset = this.port.markets.assets.find((candidate) => candidate.index === this.assetIndex)!;
    const event: BountyPaid = { reportId: body.reportId, userId: body.userId, assetId: asset.id, amountAtoms: body.amountAtoms, paidMs: this.port.commandTimeMs() };
    this.port.emit(domainEvent(RewardsEventType.bountyPaid, event));
    return Result.ok;
  }

  // Accrual.

  private accrue(nowMs: number): void {
    const ledger = this.port.ledger;
    const shareAtoms = Number((BigInt(this.collectedAtoms) * BigInt(this.shareBps)) / BigInt(shareBpsMax)) + this.carryAtoms;
    const perToken = Math.floor(shareAtoms / this.tokenAssetIds.length);
    const staked = this.stakedByAsset();
    const accruals: Array<[number, number, number]> = [];
    let distributed = 0;
    for (const assetId of this.tokenAssetIds) {
      const index = this.port.markets.assetById(assetId)!.index;
      // Holdings in ledger account order, then stakers holding none of the token in their account.
      const holdings = new Map<number, number>();
      let total = 0n;
      for (let account = 0; account < ledger.accountCount; account++) {
        if (ledger.modeOf(account) !== 0) continue;
        const userId = ledger.userOf(account);
        if (userId < 1 || userId > userIdMax || isDomainUserId(userId)) continue;
        const balance = ledger.availableAtoms(account, index) + ledger.heldAtoms(account, index);
        if (balance <= 0) continue;
        holdings.set(userId, balance);
        total += BigInt(balance);
      }
      for (const [userId, atoms] of staked.get(assetId) ?? []) {
        holdings.set(userId, (holdings.get(userId) ?? 0) + atoms);
        total += BigInt(atoms);
      }
      if (total === 0n || perToken === 0) continue;
      for (const [userId, holding] of holdings) {
        const atoms = Number((BigInt(perToken) * BigInt(holding)) / total);
        if (atoms === 0) continue;
        const key = pendingKey(userId, assetId);
        const entry = this.pending.get(key);
        if (entry !== undefined) entry[2] += atoms;
        else if (this.pending.size < pendingEntriesMax) this.pending.set(key, [userId, assetId, atoms]);
        else continue;
        distributed += atoms;
        accruals.push([userId, assetId, atoms]);
      }
    }
    const event: RewardsAccrued = { atMs: nowMs, collectedAtoms: this.collectedAtoms, shareAtoms, distributedAtoms: distributed, carryAtoms: shareAtoms - distributed, accruals };
    this.collectedAtoms = 0;
    this.carryAtoms = shareAtoms - distributed;
    this.lastAccrualMs = nowMs;
    this.port.emit(domainEvent(RewardsEventType.accrued, event));
  }

  /** Staked atoms per token asset id and user, in the incentives domain's position order (empty without it). */
  private stakedByAsset(): Map<number, Array<[number, number]>> {
    const byAsset = new Map<number, Array<[number, number]>>();
    const source = this.port.domain(incentivesDomainName) as Partial<StakeSource> | undefined;
    if (source === undefined || typeof source.forEachStake !== 'function') return byAsset;
    source.forEachStake((userId, assetId, stakedAtoms) => {
      if (!this.tokenAssetIds.includes(assetId) || userId < 1 || userId > userIdMax || isDomainUserId(userId)) return;
      const list = byAsset.get(assetId);
      if (list === undefined) byAsset.set(assetId, [[userId, stakedAtoms]]);
      else list.push([userId, stakedAtoms]);
    });
    return byAsset;
  }

  /**
   * Pays every pending entry from the live fee account to the holder's live account and records it as
   * paid. An entry the fee account cannot cover (or whose holder has no account and none can be opened,
   * or with no room left for its paid total) stays pending for the next payout.
   */
  private payOut(nowMs: number): void {
    if (this.pending.size === 0) return;
    this.lastPayoutMs = nowMs;
    const ledger = this.port.ledger;
    const fee = ledger.find(feeUserId, 0);
    assert(fee !== noAccount, 'the ledger opens the fee accounts first');
    const payments: Array<[number, number, number]> = [];
    let paidAtoms = 0;
    let unpaidAtoms = 0;
    for (const [key, entry] of this.pending) {
      const [userId, assetId, atoms] = entry;
      const known = this.paid.get(key);
      const account = ledger.availableAtoms(fee, this.assetIndex) < atoms || (known === undefined && this.paid.size >= paidEntriesMax) ? noAccount : ledger.findOrOpen(userId, 0);
      if (account === noAccount) {
        unpaidAtoms += atoms;
        continue;
      }
      ledger.payFromAvailable(fee, account, this.assetIndex, atoms);
      if (known !== undefined) known[2] += atoms;
      else this.paid.set(key, [userId, assetId, atoms]);
      this.pending.delete(key);
      payments.push([userId, assetId, atoms]);
      paidAtoms += atoms;
    }
    const usdc = this.port.markets.assets.find((candidate) => candidate.index === this.assetIndex)!;
    const event: RewardsPaid = { atMs: nowMs, assetId: usdc.id, paidAtoms, unpaidAtoms, payments };
    this.port.emit(domainEvent(RewardsEventType.paid, event));
  }

  nextTimerMs(): number {
    const accrual = this.configured ? this.nextAccrualMs : noTimerMs;
    const payout = this.payoutIntervalMs > 0 ? this.nextPayoutMs : noTimerMs;
    return Math.min(accrual, payout);
  }

  runTimers(nowMs: number): void {
    if (this.configured && this.nextAccrualMs <= nowMs) {
      this.accrue(nowMs);
      this.nextAccrualMs = (Math.floor(nowMs / this.intervalMs) + 1) * this.intervalMs;
    }
    if (this.payoutIntervalMs > 0 && this.nextPayoutMs <= nowMs) {
      this.payOut(nowMs);
      this.nextPayoutMs = (Math.floor(nowMs / this.payoutIntervalMs) + 1) * this.payoutIntervalMs;
    }
  }

  /** Whether anything of payouts exists (older journals have none, and hash and snapshot as before). */
  private get hasPayouts(): boolean {
    return this.payoutIntervalMs > 0 || this.lastPayoutMs > 0 || this.paid.size > 0;
  }

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    if (!this.configured && this.paidReports.size === 0 && !this.hasPayouts) return;
    hasher.number(-111);
    for (const value of [this.intervalMs, this.shareBps, this.collectedAtoms, this.carryAtoms, this.nextAccrualMs, this.lastAccrualMs, this.tokenAssetIds.length, ...this.tokenAssetIds]) hasher.number(value);
    hasher.number(this.pending.size);
    for (const [userId, assetId, atoms] of this.pending.values()) {
      hasher.number(userId);
      hasher.number(assetId);
      hasher.number(atoms);
    }
    hasher.number(this.paidReports.size);
    for (const reportId of this.paidReports) hasher.number(reportId);
    if (!this.hasPayouts) return;
    for (const value of [this.payoutIntervalMs, this.nextPayoutMs, this.lastPayoutMs, this.paid.size]) hasher.number(value);
    for (const [userId, assetId, atoms] of this.paid.values()) {
      hasher.number(userId);
      hasher.number(assetId);
      hasher.number(atoms);
    }
  }

  snapshot(): RewardsSnapshot | null {
    if (!this.configured && this.paidReports.size === 0 && !this.hasPayouts) return null;
    return {
      intervalMs: this.intervalMs,
      shareBps: this.shareBps,
      tokenAssetIds: [...this.tokenAssetIds],
      collectedAtoms: this.collectedAtoms,
      carryAtoms: this.carryAtoms,
      nextAccrualMs: this.nextAccrualMs,
      lastAccrualMs: this.lastAccrualMs,
      pending: [...this.pending.values()].map((entry) => [...entry] as [number, number, number]),
      paidReports: [...this.paidReports],
      ...(this.hasPayouts
        ? {
            payoutIntervalMs: this.payoutIntervalMs,
            nextPayoutMs: this.nextPayoutMs,
            lastPayoutMs: this.lastPayoutMs,
            paid: [...this.paid.values()].map((entry) => [...entry] as [number, number, number]),
          }
        : {}),
    };
  }

  restore(state: unknown): void {
    assert(!this.configured && this.paidReports.size === 0 && !this.hasPayouts, 'restore needs a fresh rewards module');
    const data = state as Partial<RewardsSnapshot> | null;
    const integer = (value: unknown): value is number => Number.isSafeInteger(value);
    if (
      data === null ||
      typeof data !== 'object' ||
      ![data.intervalMs, data.shareBps, data.collectedAtoms, data.carryAtoms, data.nextAccrualMs, data.lastAccrualMs].every(integer) ||
      !Array.isArray(data.tokenAssetIds) ||
      data.tokenAssetIds.length > rewardTokensMax ||
      !data.tokenAssetIds.every(integer) ||
      !Array.isArray(data.pending) ||
      data.pending.length > pendingEntriesMax ||
      !data.pending.every((entry) => Array.isArray(entry) && entry.length === 3 && entry.every(integer)) ||
      !Array.isArray(data.paidReports) ||
      data.paidReports.length > bountiesMax ||
      !data.paidReports.every(integer) ||
      ![data.payoutIntervalMs ?? 0, data.nextPayoutMs ?? noTimerMs, data.lastPayoutMs ?? 0].every(integer) ||
      !Array.isArray(data.paid ?? []) ||
      (data.paid ?? []).length > paidEntriesMax ||
      !(data.paid ?? []).every((entry) => Array.isArray(entry) && entry.length === 3 && entry.every(integer))
    ) {
      throw new Error('rewards snapshot: malformed');
    }
    this.intervalMs = data.intervalMs!;
    this.shareBps = data.shareBps!;
    this.tokenAssetIds = [...data.tokenAssetIds];
    this.collectedAtoms = data.collectedAtoms!;
    this.carryAtoms = data.carryAtoms!;
    this.nextAccrualMs = data.nextAccrualMs!;
    this.lastAccrualMs = data.lastAccrualMs!;
    for (const [userId, assetId, atoms] of data.pending) this.pending.set(pendingKey(userId, assetId), [userId, assetId, atoms]);
    for (const reportId of data.paidReports) this.paidReports.add(reportId);
    this.payoutIntervalMs = data.payoutIntervalMs ?? 0;
    this.nextPayoutMs = data.nextPayoutMs ?? noTimerMs;
    this.lastPayoutMs = data.lastPayoutMs ?? 0;
    for (const [userId, assetId, atoms] of data.paid ?? []) this.paid.set(pendingKey(userId, assetId), [userId, assetId, atoms]);
  }
}

/** The rewards module of an engine built with `platformDomains`. */
export function rewardsOf(engine: Engine): Rewards {
  const rewards = engine.domain(Rewards.domainName);
  if (!(rewards instanceof Rewards)) throw new Error('this engine has no rewards module');
  return rewards;
}
