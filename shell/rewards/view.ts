/**
 * The rewards as durable batches left them: the configuration, each user's pending revenue-share rewards
 * per token, the last accrual's time and the bounty payments, starting from the recovered engine's state
 * and following the domain's durable events.
 */
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { RewardsEventType, type RewardsAccrued, type RewardsConfigured } from '../../engine/domains/rewards/commands.ts';
import { rewardsOf } from '../../engine/domains/rewards/rewards.ts';

const key = (userId: number, assetId: number): string => `${userId}:${assetId}`;

export class RewardsView {
  intervalMs = 0;
  shareBps = 0;
  tokenAssetIds: number[] = [];
  lastAccrualMs = 0;
  private readonly pending = new Map<string, number>();

  constructor(engine: Engine) {
    const state = rewardsOf(engine).snapshot();
    if (state === null) return;
    this.intervalMs = state.intervalMs;
    this.shareBps = state.shareBps;
    this.tokenAssetIds = state.tokenAssetIds;
    this.lastAccrualMs = state.lastAccrualMs;
    for (const [userId, assetId, atoms] of state.pending) this.pending.set(key(userId, assetId), atoms);
  }

  pendingAtoms(userId: number, assetId: number): number {
    return this.pending.get(key(userId, assetId)) ?? 0;
  }

  /** When the next accrual is due: the next multiple of the interval after the last one (null unconfigured). */
  nextAccrualMs(nowMs: number): number | null {
    if (this.intervalMs === 0) return null;
    return (Math.floor(Math.max(nowMs, this.lastAccrualMs) / this.intervalMs) + 1) * this.intervalMs;
  }

  onBatch(batch: DurableBatch): void {
    batch.forEachEvent((event) => this.apply(event));
  }

  private apply(event: EngineEvent): void {
    if (event.kind !== EventKind.domain) return;
    if (event.type === RewardsEventType.configured) {
      const body = event.body as RewardsConfigured;
      this.intervalMs = body.intervalMs;
      this.shareBps = body.shareBps;
      this.tokenAssetIds = [...body.tokenAssetIds];
    } else if (event.type === RewardsEventType.accrued) {
      const body = event.body as RewardsAccrued;
      this.lastAccrualMs = body.atMs;
      for (const [userId, assetId, atoms] of body.accruals) this.pending.set(key(userId, assetId), this.pendingAtoms(userId, assetId) + atoms);
    }
  }
}
