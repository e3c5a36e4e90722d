/**
 * The perpetual markets as durable batches left them: what the perpetual routes show. It starts from the
 * recovered engine's state (everything recovered is durable: the markets, their open epochs and open
 * stakes) and the history store (settled trades, last resolutions), and follows the domain's durable
 * events (configured, epoch opened, prediction placed, epoch resolved). The oracle's prices come from a
 * prices view of its own, fed by the same batches.
 */
import type { Mode } from '../../engine/core/commands.ts';
import type { DomainEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import {
  Outcome,
  PerpetualEventType,
  type EpochOpened,
  type EpochResolved,
  type PerpetualConfigured,
  type PredictionPlaced,
  type Side,
} from '../../engine/domains/perpetual/commands.ts';
import { perpetualOf } from '../../engine/domains/perpetual/perpetual.ts';
import { PricesView } from '../prices/view.ts';
import type { PerpetualHistory, ResolutionView, TradeOutcome, TradeRecord } from './history.ts';

export interface PoolView {
  seedAtoms: number;
  yesAtoms: number;
  noAtoms: number;
}

export interface EpochView {
  readonly epoch: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly startPriceE8: number;
  readonly pools: [PoolView, PoolView];
}

export interface MarketView {
  readonly symbol: string;
  epoch: EpochView | null;
  lastResolution: ResolutionView | null;
}

const accountKey = (userId: number, mode: Mode): number => userId * 2 + mode;

export class PerpetualView {
  readonly prices: PricesView;
  epochMs = 0;
  seedAtoms = 0;
  readonly markets = new Map<string, MarketView>();
  /** Each account's open trades by prediction id (in increasing order); settled ones are in the history store. */
  private readonly openByAccount = new Map<number, Map<number, TradeRecord>>();

  constructor(
    engine: Engine,
    private readonly history: PerpetualHistory,
  ) {
    this.prices = new PricesView(engine);
    const perpetual = perpetualOf(engine);
    this.epochMs = perpetual.epochMs;
    this.seedAtoms = perpetual.seedAtoms;
    for (const market of perpetual.markets) {
      const view: MarketView = { symbol: market.symbol, epoch: null, lastResolution: null };
      this.markets.set(market.symbol, view);
      const epoch = market.epoch;
      if (epoch === null) continue;
      view.epoch = {
        epoch: epoch.epoch,
        startMs: epoch.startMs,
        endMs: epoch.endMs,
        startPriceE8: epoch.startPriceE8,
        pools: [
          { seedAtoms: epoch.pools[0].seedAtoms, yesAtoms: epoch.pools[0].yesAtoms, noAtoms: epoch.pools[0].noAtoms },
          { seedAtoms: epoch.pools[1].seedAtoms, yesAtoms: epoch.pools[1].yesAtoms, noAtoms: epoch.pools[1].noAtoms },
        ],
      };
      const recovered: TradeRecord[] = [];
      for (const mode of [0, 1] as const) {
        for (const stake of epoch.pools[mode].stakes) {
          recovered.push({
            predictionId: stake.predictionId,
            userId: stake.userId,
            mode,
            symbol: market.symbol,
            epoch: epoch.epoch,
            epochEndMs: epoch.endMs,
            side: stake.side,
            stakeAtoms: stake.stakeAtoms,
            createdMs: stake.placedMs,
            outcome: 'pending',
            payoutAtoms: null,
            resolvedMs: null,
          });
        }
      }
      for (const trade of recovered.sort((a, b) => a.predictionId - b.predictionId)) this.add(trade);
    }
    for (const resolution of history.resolutions()) {
      const market = this.markets.get(resolution.symbol);
      if (market !== undefined) market.lastResolution = resolution;
    }
  }

  /** A durable batch's events, in order. */
  onBatch(batch: DurableBatch): void {
    this.prices.onBatch(batch);
    batch.forEachDomainEvent((event, _seq, ts) => this.apply(event, ts));
  }

  /** The account's open stakes, newest first. */
  openOf(userId: number, mode: Mode): TradeRecord[] {
    return [...(this.openByAccount.get(accountKey(userId, mode))?.values() ?? [])].reverse();
  }

  /** The account's trades with ids below `beforeId`, newest first, at most `limit`: open and settled ones merged. */
  tradesOf(userId: number, mode: Mode, beforeId: number, limit: number): TradeRecord[] {
    const open = this.openOf(userId, mode).filter((trade) => trade.predictionId < beforeId).slice(0, limit);
    const settled = this.history.settled(userId, mode, beforeId, limit);
    return [...open, ...settled].sort((a, b) => b.predictionId - a.predictionId).slice(0, limit);
  }

  private apply(event: DomainEvent, ts: number): void {
    switch (event.type) {
      case PerpetualEventType.configured: {
        const body = event.body as PerpetualConfigured;
        this.epochMs = body.epochMs;
        this.seedAtoms = body.seedAtoms;
        for (const symbol of body.symbols) if (!this.markets.has(symbol)) this.markets.set(symbol, { symbol, epoch: null, lastResolution: null });
        return;
      }
      case PerpetualEventType.epochOpened: {
        const body = event.body as EpochOpened;
        const market = this.markets.get(body.symbol);
        if (market === undefined) throw new Error(`perpetual view: an epoch of unknown market ${body.symbol}`);
        market.epoch = {
          epoch: body.epoch,
          startMs: body.startMs,
          endMs: body.endMs,
          startPriceE8: body.startPriceE8,
          pools: [
            { seedAtoms: body.seedAtoms[0], yesAtoms: body.seedAtoms[0], noAtoms: body.seedAtoms[0] },
            { seedAtoms: body.seedAtoms[1], yesAtoms: body.seedAtoms[1], noAtoms: body.seedAtoms[1] },
          ],
        };
        return;
      }
      case PerpetualEventType.predictionPlaced: {
        const body = event.body as PredictionPlaced;
        const epoch = this.markets.get(body.symbol)?.epoch;
        if (epoch === null || epoch === undefined) throw new Error(`perpetual view: a prediction without an open epoch of ${body.symbol}`);
        const pool = epoch.pools[body.mode];
        pool.yesAtoms = body.yesPoolAtoms;
        pool.noAtoms = body.noPoolAtoms;
        this.add({
          predictionId: body.predictionId,
          userId: body.userId,
          mode: body.mode,
          symbol: body.symbol,
          epoch: body.epoch,
          epochEndMs: epoch.endMs,
          side: body.side,
          stakeAtoms: body.stakeAtoms,
          createdMs: ts,
          outcome: 'pending',
          payoutAtoms: null,
          resolvedMs: null,
        });
        return;
      }
      case PerpetualEventType.epochResolved: {
        const body = event.body as EpochResolved;
        const market = this.markets.get(body.symbol);
        if (market === undefined) throw new Error(`perpetual view: a resolution of unknown market ${body.symbol}`);
        market.epoch = null;
        const resolution: ResolutionView = {
          symbol: body.symbol,
          epoch: body.epoch,
          startMs: body.startMs,
          endMs: body.endMs,
          startPriceE8: body.startPriceE8,
          endPriceE8: body.endPriceE8,
          outcome: body.outcome,
          yesPoolAtoms: [...body.yesPoolAtoms],
          noPoolAtoms: [...body.noPoolAtoms],
          resolvedMs: ts,
        };
        market.lastResolution = resolution;
        const settled: TradeRecord[] = [];
        for (const payout of body.payouts) {
          if (payout.predictionId === 0) continue;
          const account = this.openByAccount.get(accountKey(payout.userId, payout.mode));
          const trade = account?.get(payout.predictionId);
          if (trade === undefined) throw new Error(`perpetual view: a payout of unknown prediction ${payout.predictionId}`);
          account!.delete(payout.predictionId);
          if (account!.size === 0) this.openByAccount.delete(accountKey(payout.userId, payout.mode));
          trade.payoutAtoms = payout.payoutAtoms;
          trade.resolvedMs = ts;
          trade.outcome = tradeOutcome(body.outcome, payout.side, payout.payoutAtoms);
          settled.push(trade);
        }
        this.history.settle(resolution, settled);
        return;
      }
      default:
        return;
    }
  }

  private add(trade: TradeRecord): void {
    const key = accountKey(trade.userId, trade.mode);
    let open = this.openByAccount.get(key);
    if (open === undefined) {
      open = new Map();
      this.openByAccount.set(key, open);
    }
    open.set(trade.predictionId, trade);
  }
}

/**
 * A stake's outcome: refunded when the prices were equal, or when its side lost but it got its stake back
 * (nobody stood on the winning side); won when its side won; else lost.
 */
export function tradeOutcome(outcome: Outcome, side: Side, payoutAtoms: number): TradeOutcome {
  if (outcome === Outcome.refund) return 'refunded';
  if (outcome === side) return 'won';
  return payoutAtoms > 0 ? 'refunded' : 'lost';
}
