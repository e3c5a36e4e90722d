/**
 * The prediction markets as durable batches left them: what the markets routes show (and, next, the
 * streams). Fed only by the domain's durable events (module.onDurable), so a client never sees a market,
 * order, trade or bet that a crash could take back. It starts from the recovered engine's markets module
 * (everything recovered is durable): its snapshot gives markets, resting orders and stakes.
 *
 * Kept per market: the record, its status and prices, per-asset books as price levels (derived from the
 * resting orders the events name), open orders, the last trades, stakes, and the completion's results.
 * `subscribe` tells a listener about every change a stream needs: book levels, trades, status.
 */
import type { DomainEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import {
  MarketStatus,
  MarketsEventType,
  marketAddress,
  marketsOf,
  type BetPlaced,
  type MarketActivated,
  type MarketCompleted,
  type MarketCreated,
  type MarketOrderAccepted,
  type MarketOrderCancelled,
  type MarketOrderRested,
  type MarketTradeExecuted,
} from '../../engine/domains/markets/index.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';

/** Trades kept per market for reads (the oldest are dropped). */
export const tradesKeptPerMarket = 1_000;

export interface LevelView {
  lots: number;
  orders: number;
}

/** One side's levels by price in ticks. */
export type SideLevels = Map<number, LevelView>;

export interface OrderView {
  orderId: number;
  userId: number;
  assetIndex: number;
  side: number;
  priceTicks: number;
  lots: number;
  remainingLots: number;
  createdMs: number;
}

export interface TradeView extends MarketTradeExecuted {
  seq: number;
  timestampMs: number;
}

export interface StakeView {
  userId: number;
  assetIndex: number;
  amountAtoms: number;
}

export interface MarketView extends MarketCreated {
  status: MarketStatus;
  startPricesE8: number[] | null;
  completion: MarketCompleted | null;
  /** Per asset: bids and asks. */
  books: Array<{ bids: SideLevels; asks: SideLevels }>;
  orders: Map<number, OrderView>;
  trades: TradeView[];
  stakes: Map<number, StakeView>;
  poolAtoms: number;
}

/** What changed, for subscribers (the streams): a book's levels, a trade, a market's status. */
export type MarketChange =
  | { kind: 'book'; marketId: number; assetIndex: number; seq: number }
  | { kind: 'trade'; marketId: number; trade: TradeView }
  | { kind: 'status'; marketId: number; status: MarketStatus; seq: number };

export type MarketListener = (change: MarketChange) => void;

function emptyBooks(count: number): Array<{ bids: SideLevels; asks: SideLevels }> {
  return Array.from({ length: count }, () => ({ bids: new Map(), asks: new Map() }));
}

export class MarketsView {
  /** Markets by id, in id order (ids only grow). */
  readonly markets = new Map<number, MarketView>();
  private readonly byAddress = new Map<string, MarketView>();
  private readonly listeners = new Set<MarketListener>();

  constructor(engine: Engine) {
    const state = marketsOf(engine).snapshot();
    if (state === null) return;
    for (const row of state.markets) {
      const market = this.add({
        marketId: row.id,
        address: marketAddress(row.id),
        creatorUserId: row.creatorUserId,
        name: row.name,
        description: row.description,
        assets: row.assets,
        assetType: row.assetType as 0 | 1,
        tokenAssetId: row.tokenAssetId,
        startMs: row.startMs,
        endMs: row.endMs,
        minBetAtoms: row.minBetAtoms,
        maxBetAtoms: row.maxBetAtoms,
        createdMs: row.createdMs,
      });
      market.status = row.status as MarketStatus;
      market.startPricesE8 = row.status === MarketStatus.pending ? null : row.startPricesE8;
      market.poolAtoms = row.poolAtoms;
      for (const [userId, assetIndex, amountAtoms] of row.stakes) market.stakes.set(userId * 32 + assetIndex, { userId, assetIndex, amountAtoms });
      row.books.forEach((book, assetIndex) => {
        for (const order of [...book.bids, ...book.asks]) {
          // A recovered order's original size and time are not in the snapshot: it shows what is left.
          market.orders.set(order.orderId, { orderId: order.orderId, userId: order.userId, assetIndex, side: order.side, priceTicks: order.priceTicks, lots: order.remainingLots, remainingLots: order.remainingLots, createdMs: row.createdMs });
          this.level(market, assetIndex, order.side, order.priceTicks, order.remainingLots, 1);
        }
      });
      market.completion = row.completion;
    }
  }

  subscribe(listener: MarketListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A market by its numeric id or its contract address (any case). */
  find(idOrAddress: string): MarketView | undefined {
    if (/^[0-9]{1,15}$/.test(idOrAddress)) return this.markets.get(Number(idOrAddress));
    return this.byAddress.get(idOrAddress.toLowerCase());
  }

  onBatch(batch: DurableBatch): void {
    batch.forEachDomainEvent((event, seq, ts) => this.apply(event, seq, ts));
  }

  private add(created: MarketCreated): MarketView {
    const market: MarketView = {
      ...created,
      status: MarketStatus.pending,
      startPricesE8: null,
      completion: null,
      books: emptyBooks(created.assets.length),
      orders: new Map(),
      trades: [],
      stakes: new Map(),
      poolAtoms: 0,
    };
    this.markets.set(market.marketId, market);
    this.byAddress.set(market.address, market);
    return market;
  }

  private level(market: MarketView, assetIndex: number, side: number, priceTicks: number, lots: number, orders: number): void {
    const book = market.books[assetIndex]!;
    const levels = side === 0 ? book.bids : book.asks;
    const level = levels.get(priceTicks) ?? { lots: 0, orders: 0 };
    level.lots += lots;
    level.orders += orders;
    if (level.orders === 0) levels.delete(priceTicks);
    else levels.set(priceTicks, level);
  }

  private notify(change: MarketChange): void {
    for (const listener of this.listeners) listener(change);
  }

  private apply(event: DomainEvent, seq: number, ts: number): void {
    switch (event.type) {
      case MarketsEventType.marketCreated: {
        const created = event.body as MarketCreated;
        this.add(created);
        this.notify({ kind: 'status', marketId: created.marketId, status: MarketStatus.pending, seq });
        return;
      }
      case MarketsEventType.marketActivated: {
        const body = event.body as MarketActivated;
        const market = this.markets.get(body.marketId)!;
        market.status = MarketStatus.active;
        market.startPricesE8 = body.startPricesE8;
        this.notify({ kind: 'status', marketId: market.marketId, status: market.status, seq });
        return;
      }
      case MarketsEventType.marketOrderAccepted: {
        const body = event.body as MarketOrderAccepted;
        const market = this.markets.get(body.marketId)!;
        market.orders.set(body.orderId, { orderId: body.orderId, userId: body.userId, assetIndex: body.assetIndex, side: body.side, priceTicks: body.priceTicks, lots: body.lots, remainingLots: body.lots, createdMs: ts });
        return;
      }
      case MarketsEventType.marketTradeExecuted: {
        const body = event.body as MarketTradeExecuted;
        const market = this.markets.get(body.marketId)!;
        const maker = market.orders.get(body.makerOrderId)!;
        const taker = market.orders.get(body.takerOrderId)!;
        this.level(market, body.assetIndex, maker.side, body.priceTicks, -body.lots, body.makerRemainingLots === 0 ? -1 : 0);
        maker.remainingLots = body.makerRemainingLots;
        if (maker.remainingLots === 0) market.orders.delete(maker.orderId);
        taker.remainingLots -= body.lots;
        if (taker.remainingLots === 0) market.orders.delete(taker.orderId);
        const trade: TradeView = { ...body, seq, timestampMs: ts };
        market.trades.push(trade);
        if (market.trades.length > tradesKeptPerMarket) market.trades.splice(0, market.trades.length - tradesKeptPerMarket);
        this.notify({ kind: 'trade', marketId: market.marketId, trade });
        this.notify({ kind: 'book', marketId: market.marketId, assetIndex: body.assetIndex, seq });
        return;
      }
      case MarketsEventType.marketOrderRested: {
        const body = event.body as MarketOrderRested;
        const market = this.markets.get(body.marketId)!;
        this.level(market, body.assetIndex, body.side, body.priceTicks, body.remainingLots, 1);
        this.notify({ kind: 'book', marketId: market.marketId, assetIndex: body.assetIndex, seq });
        return;
      }
      case MarketsEventType.marketOrderCancelled: {
        const body = event.body as MarketOrderCancelled;
        const market = this.markets.get(body.marketId)!;
        market.orders.delete(body.orderId);
        if (body.wasResting) {
          this.level(market, body.assetIndex, body.side, body.priceTicks, -body.remainingLots, -1);
          this.notify({ kind: 'book', marketId: market.marketId, assetIndex: body.assetIndex, seq });
        }
        return;
      }
      case MarketsEventType.betPlaced: {
        const body = event.body as BetPlaced;
        const market = this.markets.get(body.marketId)!;
        const key = body.userId * 32 + body.assetIndex;
        const stake = market.stakes.get(key);
        if (stake === undefined) market.stakes.set(key, { userId: body.userId, assetIndex: body.assetIndex, amountAtoms: body.amountAtoms });
        else stake.amountAtoms += body.amountAtoms;
        market.poolAtoms += body.amountAtoms;
        return;
      }
      case MarketsEventType.marketCompleted: {
        const body = event.body as MarketCompleted;
        const market = this.markets.get(body.marketId)!;
        market.status = MarketStatus.completed;
        market.completion = body;
        market.orders.clear();
        // The stakes live on in the completion's bet payouts, as in the engine.
        market.stakes.clear();
        market.books = emptyBooks(market.assets.length);
        this.notify({ kind: 'status', marketId: market.marketId, status: market.status, seq });
        return;
      }
      default:
        return;
    }
  }
}
