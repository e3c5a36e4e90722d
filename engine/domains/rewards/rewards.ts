/**
 * The rewards module: revenue-share accrual and bounty payments (the rules are in commands.ts).
 *
 * - ConfigureRewards may come again: a new interval applies from the next accrual, a new share and token
 *   list at it. The first one starts counting fees (before it the module is empty and counts nothing, so
 *   older journals hash as before).
 * - Accrual runs at the first RunTimers at or after `nextAccrualMs`; the next is the following multiple of
 *   the interval after that RunTimers' time.
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
  pendingEntriesMax,
  rewardTokensMax,
  rewardsAssetSymbol,
  rewardsDomainId,
  shareBpsMax,
  type BountyPaid,
  type ConfigureRewards,
  type PayBounty,
  type RewardsAccrued,
  type RewardsConfigured,
} from './commands.ts';

/** The bounty account: funded by journaled deposits, pays verified reports. */
export const bountyUserId = domainUserId(rewardsDomainId, 0);

const pendingKey = (userId: number, assetId: number): string => `${userId}:${assetId}`;

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
}

export class Rewards implements DomainModule {
  static readonly domainName = 'rewards';
  readonly name = Rewards.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [RewardsCommandType.configure, RewardsCommandType.payBounty];
  intervalMs = 0;
  shareBps = 0;
  tokenAssetIds: number[] = [];
  /** Live taker fees in USDC atoms since the last accrual. */
  collectedAtoms = 0;
  /** Shares earlier accruals could not give out. */
  carryAtoms = 0;
  nextAccrualMs = noTimerMs;
  lastAccrualMs = 0;
  private readonly pending = new Map<string, [number, number, number]>();
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
      default:
        return Result.unknownCommand;
    }
  }

  // Queries.

  /** Pending revenue-share rewards of a user for a token, in USDC atoms. */
  pendingAtoms(userId: number, tokenAssetId: number): number {
    return this.pending.get(pendingKey(userId, tokenAssetId))?.[2] ?? 0;
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
    const accruals: Array<[number, number, number]> = [];
    let distributed = 0;
    for (const assetId of this.tokenAssetIds) {
      const index = this.port.markets.assetById(assetId)!.index;
      const holders: Array<[number, number]> = [];
      let total = 0n;
      for (let account = 0; account < ledger.accountCount; account++) {
        if (ledger.modeOf(account) !== 0) continue;
        const userId = ledger.userOf(account);
        if (userId < 1 || userId > userIdMax || isDomainUserId(userId)) continue;
        const balance = ledger.availableAtoms(account, index) + ledger.heldAtoms(account, index);
        if (balance <= 0) continue;
        holders.push([userId, balance]);
        total += BigInt(balance);
      }
      if (total === 0n || perToken === 0) continue;
      for (const [userId, balance] of holders) {
        const atoms = Number((BigInt(perToken) * BigInt(balance)) / total);
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

  nextTimerMs(): number {
    return this.configured ? this.nextAccrualMs : noTimerMs;
  }

  runTimers(nowMs: number): void {
    if (!this.configured || this.nextAccrualMs > nowMs) return;
    this.accrue(nowMs);
    this.nextAccrualMs = (Math.floor(nowMs / this.intervalMs) + 1) * this.intervalMs;
  }

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    if (!this.configured && this.paidReports.size === 0) return;
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
  }

  snapshot(): RewardsSnapshot | null {
    if (!this.configured && this.paidReports.size === 0) return null;
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
    };
  }

  restore(state: unknown): void {
    assert(!this.configured && this.paidReports.size === 0, 'restore needs a fresh rewards module');
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
      !data.paidReports.every(integer)
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
  }
}

/** The rewards module of an engine built with `platformDomains`. */
export function rewardsOf(engine: Engine): Rewards {
  const rewards = engine.domain(Rewards.domainName);
  if (!(rewards instanceof Rewards)) throw new Error('this engine has no rewards module');
  return rewards;
}
