/**
 * The vaults as durable batches left them: what the vault routes and /ws/vault/nav show. It starts from
 * the recovered engine's vaults (everything recovered is durable: holders, shares, balances) and follows
 * the domain's durable events: created, deposited, withdrawn, traded and each revaluation (VaultNav).
 *
 * NAV history is the engine's (one point per hour per vault, in its state): the view copies each vault's
 * series from the recovered engine at start and then follows VaultNavSampled with the same rule (a point
 * of a new hour is added, one of the last point's hour replaces it), so the series, and the performance
 * figures computed from it, are the same after a restart. Trades are the view's own bounded ring, from
 * VaultTraded events since the process started.
 */
import type { DomainEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { Mode } from '../../engine/core/commands.ts';
import { inDomainRange } from '../../engine/core/domain.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { VaultsEventType, navHistoryMax, vaultsDomainId, type Strategy, type VaultCreated, type VaultFlow, type VaultNav, type VaultNavSampled, type VaultTraded } from '../../engine/domains/vaults/commands.ts';
import { vaultsOf } from '../../engine/domains/vaults/vaults.ts';
import { PricesView } from '../prices/view.ts';

/** Trades one vault's view keeps; idempotent answers remembered. */
export const tradesKeptMax = 1_000;
export const flowsKeptMax = 10_000;

export interface HolderView {
  shares: number;
  costAtoms: number;
}

export interface NavPoint {
  readonly ms: number;
  readonly navAtoms: number;
  readonly totalShares: number;
}

export interface TradeView {
  readonly ms: number;
  readonly pairId: number;
  readonly orderId: number;
  readonly side: number;
  readonly filledLots: number;
  readonly filledNotionalAtoms: number;
  readonly unwind: boolean;
  /** A taker's fill of a market-making quote (not an order of the strategy's own run). */
  readonly quote: boolean;
}

export interface VaultView {
  readonly vaultId: number;
  readonly slug: string;
  readonly strategy: Strategy;
  readonly pairIds: readonly number[];
  readonly mode: Mode;
  readonly ownerUserId: number;
  readonly createdMs: number;
  totalShares: number;
  navAtoms: number;
  cashAtoms: number;
  /** By the vault's pairs: the base held and its oracle price (0: none). */
  baseAtoms: number[];
  pricesE8: number[];
  updatedMs: number;
  readonly holders: Map<number, HolderView>;
  readonly history: NavPoint[];
  readonly trades: TradeView[];
}

/** What a listener hears: a vault's revaluation, or one of its strategy's fills. */
export type VaultChange = { kind: 'nav'; vault: VaultView } | { kind: 'trade'; vault: VaultView; trade: TradeView };

export class VaultsView {
  readonly prices: PricesView;
  strategyMs = 0;
  readonly vaults = new Map<number, VaultView>();
  /** Accepted deposits and withdrawals by "userId:key", for answering a repeated Idempotency-Key. */
  private readonly flows = new Map<string, { kind: 'deposit' | 'withdraw'; flow: VaultFlow; ms: number }>();
  private readonly listeners: Array<(change: VaultChange) => void> = [];

  constructor(engine: Engine) {
    this.prices = new PricesView(engine);
    const vaults = vaultsOf(engine);
    this.strategyMs = vaults.strategyMs;
    const nowMs = engine.nowMs;
    for (const vault of vaults.vaults) {
      const value = vaults.valuation(vault);
      const view = this.add(vault.vaultId, vault.slug, vault.strategy, vault.pairs.map((pair) => pair.id), vault.mode, vault.ownerUserId, nowMs);
      for (const [userId, holder] of vault.holders) view.holders.set(userId, { shares: holder.shares, costAtoms: holder.costAtoms });
      for (let at = 0; at < vault.navHistory.length; at += 3) view.history.push({ ms: vault.navHistory[at]!, navAtoms: vault.navHistory[at + 1]!, totalShares: vault.navHistory[at + 2]! });
      this.revalue(view, { vaultId: vault.vaultId, atMs: nowMs, navAtoms: value.navAtoms, cashAtoms: value.cashAtoms, baseAtoms: value.baseAtoms, pricesE8: value.pricesE8, totalShares: vault.totalShares });
    }
  }

  onChange(listener: (change: VaultChange) => void): void {
    this.listeners.push(listener);
  }

  bySlug(slug: string): VaultView | undefined {
    for (const vault of this.vaults.values()) if (vault.slug === slug) return vault;
    return undefined;
  }

  flowOf(userId: number, key: string): { kind: 'deposit' | 'withdraw'; flow: VaultFlow; ms: number } | undefined {
    return this.flows.get(`${userId}:${key}`);
  }

  private add(vaultId: number, slug: string, strategy: Strategy, pairIds: readonly number[], mode: Mode, ownerUserId: number, ms: number): VaultView {
    const view: VaultView = {
      vaultId,
      slug,
      strategy,
      pairIds,
      mode,
      ownerUserId,
      createdMs: ms,
      totalShares: 0,
      navAtoms: 0,
      cashAtoms: 0,
      baseAtoms: pairIds.map(() => 0),
      pricesE8: pairIds.map(() => 0),
      updatedMs: ms,
      holders: new Map(),
      history: [],
      trades: [],
    };
    this.vaults.set(vaultId, view);
    return view;
  }

  private revalue(vault: VaultView, nav: VaultNav): void {
    vault.navAtoms = nav.navAtoms;
    vault.cashAtoms = nav.cashAtoms;
    vault.baseAtoms = nav.baseAtoms;
    vault.pricesE8 = nav.pricesE8;
    vault.totalShares = nav.totalShares;
    vault.updatedMs = nav.atMs;
  }

  /** The engine's rule for its NAV history (VaultNavSampled): the hour's point replaced, or a new one. */
  private sampled(vault: VaultView, sample: VaultNavSampled): void {
    if (sample.replaced) vault.history.pop();
    vault.history.push({ ms: sample.atMs, navAtoms: sample.navAtoms, totalShares: sample.totalShares });
    if (vault.history.length > navHistoryMax) vault.history.shift();
  }

  /** A durable batch's vault events (and prices), applied in order. */
  onBatch(batch: DurableBatch): void {
    this.prices.onBatch(batch);
    batch.forEachDomainEvent((event, _seq, ts) => this.apply(event, ts));
  }

  private apply(event: DomainEvent, ts: number): void {
    if (!inDomainRange(vaultsDomainId, event.type)) return;
    switch (event.type) {
      case VaultsEventType.configured:
        this.strategyMs = (event.body as { strategyMs: number }).strategyMs;
        return;
      case VaultsEventType.created: {
        const body = event.body as VaultCreated;
        this.add(body.vaultId, body.slug, body.strategy, body.pairIds, body.mode, body.ownerUserId, ts);
        return;
      }
      case VaultsEventType.deposited:
      case VaultsEventType.withdrawn: {
        const flow = event.body as VaultFlow;
        const vault = this.vaults.get(flow.vaultId);
        if (vault === undefined) return;
        if (flow.holderShares === 0) vault.holders.delete(flow.userId);
        else vault.holders.set(flow.userId, { shares: flow.holderShares, costAtoms: flow.holderCostAtoms });
        this.flows.set(`${flow.userId}:${flow.idempotencyKey}`, { kind: event.type === VaultsEventType.deposited ? 'deposit' : 'withdraw', flow: { ...flow }, ms: ts });
        if (this.flows.size > flowsKeptMax) this.flows.delete(this.flows.keys().next().value!);
        return;
      }
      case VaultsEventType.traded: {
        const body = event.body as VaultTraded;
        const vault = this.vaults.get(body.vaultId);
        if (vault === undefined) return;
        const trade: TradeView = { ms: ts, pairId: body.pairId, orderId: body.orderId, side: body.side, filledLots: body.filledLots, filledNotionalAtoms: body.filledNotionalAtoms, unwind: body.unwind, quote: body.quote };
        vault.trades.push(trade);
        if (vault.trades.length > tradesKeptMax) vault.trades.shift();
        if (body.filledLots > 0) for (const listener of this.listeners) listener({ kind: 'trade', vault, trade });
        return;
      }
      case VaultsEventType.nav: {
        const body = event.body as VaultNav;
        const vault = this.vaults.get(body.vaultId);
        if (vault === undefined) return;
        this.revalue(vault, body);
        for (const listener of this.listeners) listener({ kind: 'nav', vault });
        return;
      }
      case VaultsEventType.navSampled: {
        const body = event.body as VaultNavSampled;
        const vault = this.vaults.get(body.vaultId);
        if (vault !== undefined) this.sampled(vault, body);
        return;
      }
      default:
    }
  }

  /** The holdings of one user across the vaults it may see (its own paper vaults, the public ones). */
  positionsOf(userId: number): Array<{ vault: VaultView; holder: HolderView }> {
    const positions: Array<{ vault: VaultView; holder: HolderView }> = [];
    for (const vault of this.vaults.values()) {
      const holder = vault.holders.get(userId);
      if (holder !== undefined) positions.push({ vault, holder });
    }
    return positions;
  }
}
