/**
 * The prediction markets' real-time streams, both on the project's topic stream (per-topic seq, a
 * snapshot then updates, JSON or msgpack, bad frames answered with an error while the connection stays
 * open):
 *
 *   /ws/markets/{market_id}/orderbook/{asset}   subscribe to what you need (nothing is sent unasked)
 *   /ws/orderbook/{contract_address}            the legacy path: subscribed to every asset's orderbook as
 *                                               it opens, and it takes the same subscribe messages
 *
 * Channels and topics (a topic per market, asset and channel; `market` per market):
 *
 *   orderbook  orderbook_snapshot, then orderbook_update with the asset's full levels after every durable
 *              batch that changed its book (full levels rather than deltas: a side holds at most 999
 *              levels, and a client needs no merge logic)
 *   trades     trades_snapshot (the asset's last trades), then trade per fill
 *   prices     price_update with the asset's oracle price and change_24h, as a snapshot and after every
 *              durable tick of the asset while the market is pending or active
 *   market     market_status: the current status as a snapshot, then one at activation (start prices)
 *              and one at completion (standings, winners, WTA pool and payouts, position payouts)
 *
 * Every message names `market_id` and `contract_address` and carries its topic's `seq`. Prices come from
 * a prices view of the module's own, fed with the same durable batches, so the markets module needs
 * nothing from the prices module. When a market completes, its books are sent empty once more and its
 * topics are forgotten: they never speak again.
 */
import { ApiError } from '../http/errors.ts';
import { TopicStream, type StreamMessage, type TopicChoice } from '../ws/topic-stream.ts';
import type { Asset } from '../../engine/core/units.ts';
import { MarketStatus, marketStatusNames } from '../../engine/domains/markets/index.ts';
import { PricesEventType, type PricesTicked } from '../../engine/domains/prices/commands.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { changePercent, formatPriceE8 } from '../prices/records.ts';
import type { PricesView } from '../prices/view.ts';
import { bookRecord, formatTicks, resultsRecord } from './records.ts';
import type { MarketChange, MarketView, MarketsView, TradeView } from './view.ts';

export const marketsChannels = ['orderbook', 'trades', 'prices', 'market'] as const;
/** Trades in a trades_snapshot (the newest of the asset, oldest first). */
export const tradesInSnapshot = 50;

export interface MarketsStreamOptions {
  readonly view: MarketsView;
  readonly prices: PricesView;
  /** The market's settlement token (for amounts in the completion's results). */
  readonly tokenOf: (market: MarketView) => Asset;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
}

/** A connection's market, and the path's asset (null on the legacy path, which names none). */
interface Route {
  readonly market: MarketView;
  readonly assetIndex: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A topic's key on one of the two paths. uWS topics are the whole app's, so the two streams name the same
 * topic differently: publishing it on both then reaches each subscriber once, and both count the same seq.
 */
function topicKey(legacy: boolean, marketId: number, channel: string, assetIndex: number | null): string {
  const key = `${legacy ? 'markets-legacy' : 'markets'}:${marketId}:${channel}`;
  return assetIndex === null ? key : `${key}:${assetIndex}`;
}

export class MarketsStream {
  /** /ws/markets/{market_id}/orderbook/{asset}. */
  readonly markets: TopicStream<Route>;
  /** /ws/orderbook/{contract_address}. */
  readonly orderbook: TopicStream<Route>;
  /** Pending and active markets by asset symbol: who gets a price_update when a symbol ticks. */
  private readonly bySymbol = new Map<string, Set<MarketView>>();
  /** Books changed in the current batch, as market id → asset indices, published when it ends. */
  private readonly dirtyBooks = new Map<number, Set<number>>();
  private readonly completedInBatch: MarketView[] = [];
  private batchTs = 0;

  constructor(private readonly options: MarketsStreamOptions) {
    const common = {
      channels: marketsChannels,
      backpressureBytes: options.backpressureBytes,
      connectionsMax: options.connectionsMax,
      topicOf: (route: Route, channel: string, message: Readonly<StreamMessage>) => this.topicOf(route, channel, message),
      snapshot: (route: Route, channel: string, key: string) => this.snapshot(route.market, channel, key),
    };
    this.markets = new TopicStream<Route>({
      ...common,
      path: '/ws/markets/:market_id/orderbook/:asset',
      route: ([market, asset]) => {
        const found = this.marketOf(market ?? '');
        return { market: found, assetIndex: this.assetIndexOf(found, asset ?? '') };
      },
    });
    this.orderbook = new TopicStream<Route>({
      ...common,
      path: '/ws/orderbook/:contract_address',
      route: ([market]) => ({ market: this.marketOf(market ?? ''), assetIndex: null }),
      initialTopics: (route) => route.market.assets.map((_asset, index) => ({ channel: 'orderbook', choice: this.choice(true, route.market, 'orderbook', index) })),
    });
    for (const market of options.view.markets.values()) this.follow(market);
    options.view.subscribe((change) => this.onChange(change));
  }

  get streams(): readonly TopicStream<Route>[] {
    return [this.markets, this.orderbook];
  }

  private marketOf(idOrAddress: string): MarketView {
    const market = this.options.view.find(idOrAddress);
    if (market === undefined) throw new ApiError(404, 'MARKET_NOT_FOUND', `no market ${JSON.stringify(idOrAddress)}`);
    return market;
  }

  private assetIndexOf(market: MarketView, symbol: string): number {
    const index = market.assets.indexOf(symbol.toUpperCase());
    if (index < 0) throw new ApiError(404, 'ASSET_NOT_FOUND', `asset: must be one of the market's assets (${market.assets.join(', ')})`);
    return index;
  }

  private choice(legacy: boolean, market: MarketView, channel: string, assetIndex: number | null): TopicChoice {
    const fields: StreamMessage = { market_id: market.marketId, contract_address: market.address };
    if (assetIndex !== null) fields['asset'] = market.assets[assetIndex]!;
    return { key: topicKey(legacy, market.marketId, channel, assetIndex), fields };
  }

  private topicOf(route: Route, channel: string, message: Readonly<StreamMessage>): TopicChoice {
    if (channel === 'market') return this.choice(route.assetIndex === null, route.market, channel, null);
    const asset = message['asset'];
    if (asset === undefined && route.assetIndex !== null) return this.choice(false, route.market, channel, route.assetIndex);
    if (typeof asset !== 'string' || asset.length > 40) throw new ApiError(422, 'VALIDATION_FAILED', `asset: the ${channel} channel needs one of the market's assets (${route.market.assets.join(', ')})`);
    return this.choice(route.assetIndex === null, route.market, channel, this.assetIndexOf(route.market, asset));
  }

  private head(market: MarketView, type: string): StreamMessage {
    return { type, market_id: market.marketId, contract_address: market.address };
  }

  private assetOfKey(key: string): number {
    return Number(key.slice(key.lastIndexOf(':') + 1));
  }

  private snapshot(market: MarketView, channel: string, key: string): StreamMessage | null {
    switch (channel) {
      case 'orderbook':
        return { ...this.head(market, 'orderbook_snapshot'), ...bookRecord(market, this.assetOfKey(key)) };
      case 'trades': {
        const assetIndex = this.assetOfKey(key);
        const trades = market.trades.filter((trade) => trade.assetIndex === assetIndex).slice(-tradesInSnapshot);
        return { ...this.head(market, 'trades_snapshot'), asset: market.assets[assetIndex]!, trades: trades.map((trade) => this.tradeRecord(market, trade)) };
      }
      case 'prices':
        return this.priceMessage(market, this.assetOfKey(key));
      case 'market':
        return this.statusMessage(market);
      default:
        return null;
    }
  }

  private tradeRecord(market: MarketView, trade: TradeView): StreamMessage {
    return {
      asset: market.assets[trade.assetIndex]!,
      price: formatTicks(trade.priceTicks),
      quantity: formatTicks(trade.lots),
      side: trade.takerSide === 0 ? 'buy' : 'sell',
      timestamp: iso(trade.timestampMs),
    };
  }

  /** The asset's oracle price as the durable batches left it, or null before its first price. */
  private priceMessage(market: MarketView, assetIndex: number): StreamMessage | null {
    const prices = this.options.prices.prices;
    const price = prices.asset(market.assets[assetIndex]!);
    if (price === undefined) return null;
    return {
      ...this.head(market, 'price_update'),
      asset: price.symbol,
      price: formatPriceE8(price.priceE8),
      change_24h: changePercent(price.priceE8, prices.referenceE8(price)),
      timestamp: iso(price.updatedMs),
    };
  }

  private statusMessage(market: MarketView): StreamMessage {
    const message: StreamMessage = {
      ...this.head(market, 'market_status'),
      status: marketStatusNames[market.status],
      start_time: iso(market.startMs),
      end_time: iso(market.endMs),
      start_prices: market.startPricesE8 === null ? null : Object.fromEntries(market.assets.map((asset, index) => [asset, formatPriceE8(market.startPricesE8![index]!)])),
    };
    if (market.status !== MarketStatus.completed) return message;
    const { standings, winners, wta, positions_payouts, positions_payout_total, token } = resultsRecord(market, this.options.tokenOf(market));
    return { ...message, token, standings, winners, wta, positions_payouts, positions_payout_total };
  }

  /** Starts sending the market's assets' prices (while it is pending or active). */
  private follow(market: MarketView): void {
    if (market.status === MarketStatus.completed) return;
    for (const symbol of market.assets) {
      const markets = this.bySymbol.get(symbol) ?? new Set<MarketView>();
      markets.add(market);
      this.bySymbol.set(symbol, markets);
    }
  }

  private unfollow(market: MarketView): void {
    for (const symbol of market.assets) {
      const markets = this.bySymbol.get(symbol);
      markets?.delete(market);
      if (markets?.size === 0) this.bySymbol.delete(symbol);
    }
  }

  /** Publishes a topic's message on both paths. */
  private publish(marketId: number, channel: string, assetIndex: number | null, message: StreamMessage): void {
    this.markets.publish(topicKey(false, marketId, channel, assetIndex), message);
    this.orderbook.publish(topicKey(true, marketId, channel, assetIndex), message);
  }

  private markBook(marketId: number, assetIndex: number): void {
    const dirty = this.dirtyBooks.get(marketId) ?? new Set<number>();
    dirty.add(assetIndex);
    this.dirtyBooks.set(marketId, dirty);
  }

  /** What the view tells while it applies a batch: trades and statuses go out now, books when it ends. */
  private onChange(change: MarketChange): void {
    const market = this.options.view.markets.get(change.marketId)!;
    switch (change.kind) {
      case 'book':
        this.markBook(change.marketId, change.assetIndex);
        return;
      case 'trade':
        this.publish(market.marketId, 'trades', change.trade.assetIndex, { ...this.head(market, 'trade'), ...this.tradeRecord(market, change.trade) });
        return;
      case 'status':
        if (change.status === MarketStatus.pending) this.follow(market);
        if (change.status !== MarketStatus.pending) this.publish(market.marketId, 'market', null, this.statusMessage(market));
        if (change.status === MarketStatus.completed) {
          // The view emptied the books: their subscribers see them empty once more, at the batch's end.
          for (let index = 0; index < market.assets.length; index++) this.markBook(market.marketId, index);
          this.unfollow(market);
          this.completedInBatch.push(market);
        }
        return;
      default:
    }
  }

  /**
   * Publishes what a durable batch changed; called after the markets and prices views have taken it in:
   * every changed book's full levels, and the prices of the assets it ticked.
   */
  onBatch(batch: DurableBatch): void {
    const ticked = new Set<string>();
    // Books change and prices tick by domain events only: the batch's last of them stamps what is published.
    batch.forEachDomainEvent((event, _seq, ts) => {
      this.batchTs = ts;
      if (event.type === PricesEventType.pricesTicked) {
        for (const symbol of (event.body as PricesTicked).symbols) ticked.add(symbol);
      }
    });
    for (const [marketId, assets] of this.dirtyBooks) {
      const market = this.options.view.markets.get(marketId)!;
      for (const assetIndex of [...assets].sort((a, b) => a - b)) {
        this.publish(marketId, 'orderbook', assetIndex, { ...this.head(market, 'orderbook_update'), ...bookRecord(market, assetIndex), timestamp: iso(this.batchTs) });
      }
    }
    this.dirtyBooks.clear();
    for (const symbol of ticked) {
      for (const market of this.bySymbol.get(symbol) ?? []) {
        const assetIndex = market.assets.indexOf(symbol);
        const message = this.priceMessage(market, assetIndex);
        if (message !== null) this.publish(market.marketId, 'prices', assetIndex, message);
      }
    }
    for (const market of this.completedInBatch) {
      for (let index = 0; index < market.assets.length; index++) {
        for (const channel of ['orderbook', 'trades', 'prices']) this.forget(market.marketId, channel, index);
      }
      this.forget(market.marketId, 'market', null);
    }
    this.completedInBatch.length = 0;
  }

  private forget(marketId: number, channel: string, assetIndex: number | null): void {
    this.markets.forget(topicKey(false, marketId, channel, assetIndex));
    this.orderbook.forget(topicKey(true, marketId, channel, assetIndex));
  }
}
