/**
 * The rewards as durable batches left them: the configuration, each user's pending and paid revenue-share
 * rewards per token, the last accrual's and payout's times, starting from the recovered engine's state and
 * following the domain's durable events (RewardsAccrued adds to pending, RewardsPaid moves it to paid).
 */
import type { DomainEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { RewardsEventType, type PayoutsConfigured, type RewardsAccrued, type RewardsConfigured, type RewardsPaid } from '../../engine/domains/rewards/commands.ts';
import { rewardsOf } from '../../engine/domains/rewards/rewards.ts';

const key = (userId: number, assetId: number): string => `${userId}:${assetId}`;

export class RewardsView {
  intervalMs = 0;
  shareBps = 0;
  tokenAssetIds: number[] = [];
  lastAccrualMs = 0;
  payoutIntervalMs = 0;
  lastPayoutMs = 0;
  private readonly pending = new Map<string, number>();
  private readonly paid = new Map<string, number>();

  constructor(engine: Engine) {
    const state = rewardsOf(engine).snapshot();
    if (state === null) return;
    this.intervalMs = state.intervalMs;
    this.shareBps = state.shareBps;
    this.tokenAssetIds = state.tokenAssetIds;
    this.lastAccrualMs = state.lastAccrualMs;
    for (const [userId, assetId, atoms] of state.pending) this.pending.set(key(userId, assetId), atoms);
    this.payoutIntervalMs = state.payoutIntervalMs ?? 0;
    this.lastPayoutMs = state.lastPayoutMs ?? 0;
    for (const [userId, assetId, atoms] of state.paid ?? []) this.paid.set(key(userId, assetId), atoms);
  }

  pendingAtoms(userId: number, assetId: number): number {
    return this.pending.get(key(userId, assetId)) ?? 0;
  }

  paidAtoms(userId: number, assetId: number): number {
    return this.paid.get(key(userId, assetId)) ?? 0;
  }

  /** When the next accrual is due: the next multiple of the interval after the last one (null unconfigured). */
  nextAccrualMs(nowMs: number): number | null {
    return nextMultiple(this.intervalMs, Math.max(nowMs, this.lastAccrualMs));
  }

  /** When the next payout is due, the same way (null without payouts). */
  nextPayoutMs(nowMs: number): number | null {
    return nextMultiple(this.payoutIntervalMs, Math.max(nowMs, this.lastPayoutMs));
  }

  onBatch(batch: DurableBatch): void {
    batch.forEachDomainEvent((event) => this.apply(event));
  }

  private apply(event: DomainEvent): void {
    if (event.type === RewardsEventType.configured) {
      const body = event.body as RewardsConfigured;
      this.intervalMs = body.intervalMs;
      this.shareBps = body.shareBps;
      this.tokenAssetIds = [...body.tokenAssetIds];
    } else if (event.type === RewardsEventType.accrued) {
      const body = event.body as RewardsAccrued;
      this.lastAccrualMs = body.atMs;
      for (const [userId, assetId, atoms] of body.accruals) this.pending.set(key(userId, assetId), this.pendingAtoms(userId, assetId) + atoms);
    } else if (event.type === RewardsEventType.payoutsConfigured) {
      this.payoutIntervalMs = (event.body as PayoutsConfigured).intervalMs;
    } else if (event.type === RewardsEventType.paid) {
      const body = event.body as RewardsPaid;
      this.lastPayoutMs = body.atMs;
      for (const [userId, assetId, atoms] of body.payments) {
        const entry = key(userId, assetId);
        const left = this.pendingAtoms(userId, assetId) - atoms;
        if (left > 0) this.pending.set(entry, left);
        else this.pending.delete(entry);
        this.paid.set(entry, this.paidAtoms(userId, assetId) + atoms);
      }
    }
  }
}

/** The next multiple of `intervalMs` after `afterMs` (timers are aligned to their multiples); null for no timer. */
function nextMultiple(intervalMs: number, afterMs: number): number | null {
  return intervalMs === 0 ? null : (Math.floor(afterMs / intervalMs) + 1) * intervalMs;
}
