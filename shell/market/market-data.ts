/**
 * Public market data of the live books, fed by durable batches only: per pair the aggregated levels of
 * both sides, the AMM venues' levels, the last trade, and five stream topics (orderbook, trades, prices,
 * market, hybrid_bbo), each with its own sequence number so a subscriber can detect a gap.
 *
 * Per durable batch and pair it publishes one orderbook delta (every changed level with its new quantity,
 * "0" for a level that emptied), one trade message per trade, and, when anything traded or the top of the
 * book moved, a price_update and a market_update. A new orderbook subscriber gets a snapshot stamped with
 * the topic's current seq, so the next delta it sees carries seq + 1. hybrid_bbo carries the taker's best
 * price of each side across the order book and the venues (the netted hybrid book, never crossed), sent
 * when it changes. Paper books are private and are not published.
 */
import { sideNames, type Side } from '../../engine/core/commands.ts';
import type { Engine } from '../../engine/core/engine.ts';
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import { noPrice, type BookLevel } from '../../engine/core/book/book.ts';
import { formatPrice, formatQuantity, type Markets, type Pair } from '../../engine/core/units.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { venuesPerPairMax } from '../../engine/core/limits.ts';
import { SideLevels } from './levels.ts';
import type { VenueDirectory } from './venue-directory.ts';

export const channels = ['orderbook', 'trades', 'prices', 'market', 'hybrid_bbo'] as const;
export type Channel = (typeof channels)[number];
/**
 * The channels whose seqs follow from the durable batches alone, so that every process applying the same
 * batches counts them alike (stream edges: shell/cluster/edge.ts); hybrid_bbo counts what was sent.
 */
export const durableChannels = ['orderbook', 'trades', 'prices', 'market'] as const satisfies readonly Channel[];

/** Where messages go: the WebSocket layer, which says which topics anyone listens to. */
export interface StreamSink {
  /** Whether a message of this topic would reach anyone; messages nobody would get are not built. */
  listening(pair: Pair, channel: Channel): boolean;
  publish(pair: Pair, channel: Channel, message: Record<string, unknown>): void;
}

/** 24-hour figures of a pair, from the trade read models (null fields when there were no trades). */
export interface DayFigures {
  change24h: string | null;
  changePercent24h: string | null;
  volume24h: string;
  high24h: string | null;
  low24h: string | null;
}

export interface MarketDataOptions {
  readonly markets: Markets;
  /** Names of the venues, for trade messages of fills against them. */
  readonly venues: VenueDirectory;
  /** The engine as recovery left it: every command in it is durable, so its books are the starting levels. */
  readonly engine: Engine;
  readonly sink: StreamSink;
  readonly dayFigures?: (pair: Pair) => DayFigures | null;
}

type Level = [price: string, quantity: string];

/** One venue's levels of a pair as durable events left them, best first per side. */
class VenueLevels {
  constructor(
    readonly chainId: number,
    readonly bidPriceTicks: number[],
    readonly bidLots: number[],
    readonly askPriceTicks: number[],
    readonly askLots: number[],
  ) {}

  /** Takes `lots` off the level at `priceTicks` of `side`; a level left empty goes. */
  consume(side: Side, priceTicks: number, lots: number): void {
    const prices = side === 0 ? this.bidPriceTicks : this.askPriceTicks;
    const sizes = side === 0 ? this.bidLots : this.askLots;
    const index = prices.indexOf(priceTicks);
    if (index < 0) return;
    const left = sizes[index]! - lots;
    if (left > 0) {
      sizes[index] = left;
      return;
    }
    prices.splice(index, 1);
    sizes.splice(index, 1);
  }
}

/** One row of the hybrid book: a price level of one source. */
export interface HybridLevel {
  readonly priceTicks: number;
  readonly lots: number;
  /** 0 for the order book, else the venue (pool) id. */
  readonly venueId: number;
  readonly chainId: number;
  /** Resting orders at the level (order book rows only; 0 for a venue). */
  readonly orders: number;
}

/** The best price of one side of the netted hybrid book, as GET /bbo and hybrid_bbo show it. */
export interface HybridQuote {
  price: string;
  /** Base quantity at that price, every source together. */
  quantity: string;
  /** The first source a taker meets at that price: `clob`, else the pool's name. */
  source: string;
  /** That source's chain (null for the order book). */
  chain: string | null;
  /** Every source at that price, in matching order. */
  sources: Array<{ source: string; chain: string | null; quantity: string }>;
}

/** Rows read per side for the hybrid top: every source one price can have (the book and each pool). */
const hybridTopRowsMax = venuesPerPairMax + 1;

/**
 * Nets crossing depth out of raw hybrid rows (best first, matching order): while the head bid is at or
 * above the head ask, the smaller quantity is taken off both heads and a row left empty goes. Returns new
 * arrays; a partly netted head is a copy with its quantity left.
 *
 * Example: pool A bids 3010.00 × 2, pool B asks 3008.00 × 1.5 then 3015.00 × 2. 1.5 is netted at the
 * crossing (a taker buys B's 1.5 at 3008 and sells it to A at 3010): A's bid keeps 0.5 at 3010.00, B's
 * 3008.00 ask goes, and the book shows best bid 3010.00 × 0.5 (A) against best ask 3015.00 × 2 (B).
 */
export function netCrossing(bids: readonly HybridLevel[], asks: readonly HybridLevel[]): { bids: HybridLevel[]; asks: HybridLevel[] } {
  let bid = 0;
  let ask = 0;
  let bidLeft = bids[0]?.lots ?? 0;
  let askLeft = asks[0]?.lots ?? 0;
  while (bid < bids.length && ask < asks.length && bids[bid]!.priceTicks >= asks[ask]!.priceTicks) {
    const netted = Math.min(bidLeft, askLeft);
    bidLeft -= netted;
    askLeft -= netted;
    if (bidLeft === 0) bidLeft = bids[++bid]?.lots ?? 0;
    if (askLeft === 0) askLeft = asks[++ask]?.lots ?? 0;
  }
  const rest = (rows: readonly HybridLevel[], index: number, left: number): HybridLevel[] => {
    if (index >= rows.length) return [];
    const out = rows.slice(index);
    if (left !== out[0]!.lots) out[0] = { ...out[0]!, lots: left };
    return out;
  };
  return { bids: rest(bids, bid, bidLeft), asks: rest(asks, ask, askLeft) };
}

class PairMarket {
  readonly levels: [SideLevels, SideLevels] = [new SideLevels(0), new SideLevels(1)];
  readonly changed: [Set<number>, Set<number>] = [new Set(), new Set()];
  /** The batch's trades, as numbers until a message is wanted (parallel arrays, one entry per trade). */
  readonly tradeIds: number[] = [];
  readonly tradePrices: number[] = [];
  readonly tradeLots: number[] = [];
  readonly tradeSides: number[] = [];
  readonly tradeTimes: number[] = [];
  /** 0 for a trade between two of our orders, else the venue the fill was against. */
  readonly tradeVenues: number[] = [];
  /** Outside venues' levels by pool id. */
  readonly venues = new Map<number, VenueLevels>();
  readonly seq: Record<Channel, number> = { orderbook: 0, trades: 0, prices: 0, market: 0, hybrid_bbo: 0 };
  /** The hybrid top last sent on hybrid_bbo (or in a snapshot), as JSON without its timestamp. */
  hybridTopKey: string | null = null;
  lastPriceTicks = -1;
  lastTs = 0;
  touched = false;
  topBid = -1;
  topAsk = -1;

  constructor(readonly pair: Pair) {}
}

export class MarketData {
  private readonly byPairId = new Map<number, PairMarket>();
  private readonly touched: PairMarket[] = [];

  constructor(private readonly options: MarketDataOptions) {
    const scratch: BookLevel[] = [];
    for (const pair of options.markets.pairs) {
      const market = new PairMarket(pair);
      const context = options.engine.contexts[pair.index * 2]!;
      const book = context.book;
      if (context.lastPriceTicks !== noPrice) market.lastPriceTicks = context.lastPriceTicks;
      for (const side of [0, 1] as const) {
        const count = book.depth(side, Number.MAX_SAFE_INTEGER, scratch);
        for (let index = 0; index < count; index++) {
          const level = scratch[index]!;
          market.levels[side].change(level.priceTicks, level.lots, level.orders);
        }
      }
      market.topBid = market.levels[0].best();
      market.topAsk = market.levels[1].best();
      const venues = options.engine.venues[pair.index]!;
      for (const quote of venues.allQuotes()) {
        const levels = new VenueLevels(quote.chainId, [], [], [], []);
        venues.poolLevels(0, quote.poolId, levels.bidPriceTicks, levels.bidLots);
        venues.poolLevels(1, quote.poolId, levels.askPriceTicks, levels.askLots);
        market.venues.set(quote.poolId, levels);
      }
      this.byPairId.set(pair.id, market);
    }
  }

  /** The current seq of a pair's channel (0 before its first message). */
  seqOf(pair: Pair, channel: Channel): number {
    return this.byPairId.get(pair.id)?.seq[channel] ?? 0;
  }

  /** The seqs of every pair's durable channels, by `slug:channel`. */
  positions(): Record<string, number> {
    const positions: Record<string, number> = {};
    for (const market of this.byPairId.values()) for (const channel of durableChannels) positions[`${market.pair.slug}:${channel}`] = market.seq[channel];
    return positions;
  }

  /** Takes another process's seqs at the same durable seq; returns the keys whose seq differed. */
  setPositions(positions: Readonly<Record<string, number>>): string[] {
    const differed: string[] = [];
    for (const market of this.byPairId.values()) {
      for (const channel of durableChannels) {
        const key = `${market.pair.slug}:${channel}`;
        const seq = positions[key];
        if (seq === undefined || seq === market.seq[channel]) continue;
        differed.push(key);
        market.seq[channel] = seq;
      }
    }
    return differed;
  }

  /** Applies a durable batch and publishes what it changed. */
  onBatch(batch: DurableBatch): void {
    batch.forEachEvent((event, _seq, ts) => this.apply(event, ts));
    for (const market of this.touched) this.publish(market);
    this.touched.length = 0;
  }

  /** The orderbook snapshot a new subscriber gets: levels best first, stamped with the topic's seq. */
  snapshot(pair: Pair, levelsMax: number): Record<string, unknown> {
    const market = this.market(pair);
    return this.bookMessage(market, true, this.sideLevels(market, 0, levelsMax), this.sideLevels(market, 1, levelsMax));
  }

  /** Durable levels for REST: price, quantity and order count, best first. */
  depth(pair: Pair, side: Side, levelsMax: number): Array<{ price: string; quantity: string; orders: number }> {
    const out: Array<{ price: string; quantity: string; orders: number }> = [];
    this.market(pair).levels[side].visit(levelsMax, (price, lots, orders) => {
      out.push({ price: formatPrice(price, pair), quantity: formatQuantity(lots, pair), orders });
    });
    return out;
  }

  /**
   * The hybrid book of one side as the engine holds it, before netting: the order book's levels and every
   * venue's, one row per source and price, best first; at one price the order book first, then venues by
   * chain and pool (the engine's matching order). At most `rowsMax` rows. Venues quote independently, so
   * one venue's bid may be at or above another's ask; clients see `hybridBook`, which nets that out.
   */
  hybridDepth(pair: Pair, side: Side, rowsMax: number): HybridLevel[] {
    return this.rawRows(this.market(pair), side, rowsMax);
  }

  /**
   * The hybrid book clients see, both sides best first with at most `rowsMax` rows each, never crossed:
   * while the best bid is at or above the best ask, the smaller of the two rows' quantities is taken off
   * both, as a taker buying the cheap ask and selling it to the rich bid would (rows in matching order, so
   * the rows removed are those such a taker's orders fill against). What is left is exactly the book the
   * engine holds once that arbitrage has traded, and every quantity shown is one a taker can have at that
   * price or better. A locked book (bid equal to ask) is netted too: best bid < best ask always.
   */
  hybridBook(pair: Pair, rowsMax: number): { bids: HybridLevel[]; asks: HybridLevel[] } {
    const market = this.market(pair);
    let venueRows = 0;
    for (const venue of market.venues.values()) venueRows += venue.bidPriceTicks.length + venue.askPriceTicks.length;
    // Netting removes rows from the top, so more raw rows than `rowsMax` are read; when netting reaches
    // past what was read (a truncated side), it is redone with twice as many.
    let cap = Math.min(Number.MAX_SAFE_INTEGER, rowsMax + venueRows + 1);
    for (;;) {
      const bids = this.rawRows(market, 0, cap);
      const asks = this.rawRows(market, 1, cap);
      const netted = netCrossing(bids, asks);
      const enough = (raw: HybridLevel[], kept: HybridLevel[]): boolean => raw.length < cap || kept.length >= rowsMax;
      if ((enough(bids, netted.bids) && enough(asks, netted.asks)) || cap === Number.MAX_SAFE_INTEGER) {
        return { bids: netted.bids.slice(0, rowsMax), asks: netted.asks.slice(0, rowsMax) };
      }
      cap = Math.min(Number.MAX_SAFE_INTEGER, cap * 2);
    }
  }

  /**
   * The taker's best price of each side in the netted hybrid book, as GET /bbo and the hybrid_bbo channel
   * show it: price, the quantity at that price from every source, the first source a taker meets there
   * (`clob` before pools) and every source at that price in matching order; plus the spread.
   */
  hybridTop(pair: Pair): { best_bid: HybridQuote | null; best_ask: HybridQuote | null; spread: string | null } {
    const book = this.hybridBook(pair, hybridTopRowsMax);
    const quote = (rows: HybridLevel[]): HybridQuote | null => {
      const first = rows[0];
      if (first === undefined) return null;
      const atBest = rows.filter((row) => row.priceTicks === first.priceTicks);
      const sources = atBest.map((row) => ({
        source: this.options.venues.name(row.venueId),
        chain: this.options.venues.chainName(row.chainId),
        quantity: formatQuantity(row.lots, pair),
      }));
      return {
        price: formatPrice(first.priceTicks, pair),
        quantity: formatQuantity(atBest.reduce((sum, row) => sum + row.lots, 0), pair),
        source: sources[0]!.source,
        chain: sources[0]!.chain,
        sources,
      };
    };
    const bid = book.bids[0]?.priceTicks ?? -1;
    const ask = book.asks[0]?.priceTicks ?? -1;
    return { best_bid: quote(book.bids), best_ask: quote(book.asks), spread: bid < 0 || ask < 0 ? null : formatPrice(ask - bid, pair) };
  }

  /** The hybrid_bbo snapshot a new subscriber gets, stamped with the topic's current seq. */
  hybridSnapshot(pair: Pair): Record<string, unknown> {
    const market = this.market(pair);
    const top = this.hybridTop(pair);
    market.hybridTopKey = JSON.stringify(top);
    return this.hybridMessage(market, true, top);
  }

  /** Whether a venue has levels for the pair (it quoted and did not expire). */
  hasVenue(pair: Pair, venueId: number): boolean {
    return this.market(pair).venues.has(venueId);
  }

  /** Best price of a side of the netted hybrid book (order book and venues), -1 when empty. */
  hybridBest(pair: Pair, side: Side): number {
    const book = this.hybridBook(pair, 1);
    return (side === 0 ? book.bids : book.asks)[0]?.priceTicks ?? -1;
  }

  /** Best price of a side in ticks, -1 when empty. */
  best(pair: Pair, side: Side): number {
    return this.market(pair).levels[side].best();
  }

  lotsAt(pair: Pair, side: Side, priceTicks: number): number {
    return this.market(pair).levels[side].lotsAt(priceTicks);
  }

  lastPrice(pair: Pair): number {
    return this.market(pair).lastPriceTicks;
  }

  /** Raw hybrid rows of a side, best first, in matching order at one price (see `hybridDepth`). */
  private rawRows(market: PairMarket, side: Side, rowsMax: number): HybridLevel[] {
    const rows: HybridLevel[] = [];
    market.levels[side].visit(rowsMax, (priceTicks, lots, orders) => rows.push({ priceTicks, lots, venueId: 0, chainId: 0, orders }));
    for (const [venueId, venue] of market.venues) {
      const prices = side === 0 ? venue.bidPriceTicks : venue.askPriceTicks;
      const sizes = side === 0 ? venue.bidLots : venue.askLots;
      for (let index = 0; index < prices.length && index < rowsMax; index++) {
        rows.push({ priceTicks: prices[index]!, lots: sizes[index]!, venueId, chainId: venue.chainId, orders: 0 });
      }
    }
    const direction = side === 0 ? -1 : 1;
    rows.sort((a, b) => direction * (a.priceTicks - b.priceTicks) || (a.venueId === 0 ? -1 : b.venueId === 0 ? 1 : a.chainId - b.chainId || a.venueId - b.venueId));
    return rows.length > rowsMax ? rows.slice(0, rowsMax) : rows;
  }

  private hybridMessage(market: PairMarket, snapshot: boolean, top: ReturnType<MarketData['hybridTop']>): Record<string, unknown> {
    return {
      type: 'hybrid_bbo',
      channel: 'hybrid_bbo',
      symbol: market.pair.base.symbol,
      asset: market.pair.base.symbol,
      pair: market.pair.name,
      seq: market.seq.hybrid_bbo,
      snapshot,
      ...top,
      timestamp: market.lastTs === 0 ? null : new Date(market.lastTs).toISOString(),
    };
  }

  private market(pair: Pair): PairMarket {
    return this.byPairId.get(pair.id)!;
  }

  private apply(event: EngineEvent, ts: number): void {
    if (event.kind === EventKind.domain || event.mode !== 0) return;
    switch (event.kind) {
      case EventKind.orderRested:
        this.change(event.pairId, event.side, event.priceTicks, event.remainingLots, 1, ts);
        break;
      case EventKind.tradeExecuted: {
        const market = this.change(event.pairId, event.takerSide === 0 ? 1 : 0, event.priceTicks, -event.quantityLots, event.makerRemainingLots === 0 ? -1 : 0, ts);
        market.lastPriceTicks = event.priceTicks;
        market.tradeIds.push(event.tradeId);
        market.tradePrices.push(event.priceTicks);
        market.tradeLots.push(event.quantityLots);
        market.tradeSides.push(event.takerSide);
        market.tradeTimes.push(ts);
        market.tradeVenues.push(0);
        break;
      }
      case EventKind.ammFill: {
        // Live only (paper is filtered above): one of our orders took a venue's level.
        const market = this.byPairId.get(event.pairId)!;
        market.venues.get(event.venueId)?.consume(event.side === 0 ? 1 : 0, event.priceTicks, event.quantityLots);
        market.lastPriceTicks = event.priceTicks;
        market.lastTs = ts;
        market.tradeIds.push(event.tradeId);
        market.tradePrices.push(event.priceTicks);
        market.tradeLots.push(event.quantityLots);
        market.tradeSides.push(event.side);
        market.tradeTimes.push(ts);
        market.tradeVenues.push(event.venueId);
        this.touch(market);
        break;
      }
      case EventKind.venueQuoted: {
        const market = this.byPairId.get(event.pairId)!;
        market.venues.set(event.poolId, new VenueLevels(event.chainId, [...event.bidPriceTicks], [...event.bidLots], [...event.askPriceTicks], [...event.askLots]));
        // A quote moves the hybrid top only: hybrid_bbo is checked when the batch is published.
        market.lastTs = ts;
        this.touch(market);
        break;
      }
      case EventKind.venueExpired: {
        const market = this.byPairId.get(event.pairId)!;
        market.venues.delete(event.poolId);
        market.lastTs = ts;
        this.touch(market);
        break;
      }
      case EventKind.orderCancelled:
      case EventKind.orderExpired:
        if (event.resting) this.change(event.pairId, event.side, event.priceTicks, -event.remainingLots, -1, ts);
        break;
      case EventKind.orderAmended:
        if (event.priorityKept) {
          this.change(event.pairId, event.side, event.previousPriceTicks, event.remainingLots - event.previousRemainingLots, 0, ts);
        } else {
          this.change(event.pairId, event.side, event.previousPriceTicks, -event.previousRemainingLots, -1, ts);
        }
        break;
      default:
        break;
    }
  }

  private change(pairId: number, side: Side, priceTicks: number, lots: number, orders: number, ts: number): PairMarket {
    const market = this.byPairId.get(pairId)!;
    market.levels[side].change(priceTicks, lots, orders);
    market.changed[side].add(priceTicks);
    market.lastTs = ts;
    this.touch(market);
    return market;
  }

  private touch(market: PairMarket): void {
    if (market.touched) return;
    market.touched = true;
    this.touched.push(market);
  }

  private publish(market: PairMarket): void {
    market.touched = false;
    const { pair } = market;
    const sink = this.options.sink;
    // Every topic's seq advances whether or not anyone listens, so that a later snapshot's seq and the
    // deltas after it line up.
    if (market.changed[0].size > 0 || market.changed[1].size > 0) {
      market.seq.orderbook++;
      if (sink.listening(pair, 'orderbook')) {
        sink.publish(pair, 'orderbook', this.bookMessage(market, false, this.changedLevels(market, 0), this.changedLevels(market, 1)));
      }
      market.changed[0].clear();
      market.changed[1].clear();
    }
    // hybrid_bbo is built only while someone listens, and its seq counts the changes sent: a new
    // subscriber's snapshot records what it was sent, so the next change it gets is seq + 1.
    if (sink.listening(pair, 'hybrid_bbo')) {
      const top = this.hybridTop(pair);
      const key = JSON.stringify(top);
      if (key !== market.hybridTopKey) {
        market.hybridTopKey = key;
        market.seq.hybrid_bbo++;
        sink.publish(pair, 'hybrid_bbo', this.hybridMessage(market, false, top));
      }
    }
    const trades = market.tradeIds.length;
    const tradesWanted = trades > 0 && sink.listening(pair, 'trades');
    for (let index = 0; index < trades; index++) {
      market.seq.trades++;
      if (!tradesWanted) continue;
      sink.publish(pair, 'trades', {
        type: 'trade',
        channel: 'trades',
        symbol: pair.base.symbol,
        asset: pair.base.symbol,
        seq: market.seq.trades,
        // A string, as in every REST record: ids may outgrow what a client's JSON numbers hold exactly.
        trade_id: String(market.tradeIds[index]!),
        price: formatPrice(market.tradePrices[index]!, pair),
        quantity: formatQuantity(market.tradeLots[index]!, pair),
        side: sideNames[market.tradeSides[index]!],
        venue: this.options.venues.name(market.tradeVenues[index]!),
        timestamp: new Date(market.tradeTimes[index]!).toISOString(),
      });
    }
    const traded = trades > 0;
    market.tradeIds.length = 0;
    market.tradePrices.length = 0;
    market.tradeLots.length = 0;
    market.tradeSides.length = 0;
    market.tradeTimes.length = 0;
    market.tradeVenues.length = 0;
    const topBid = market.levels[0].best();
    const topAsk = market.levels[1].best();
    const topMoved = topBid !== market.topBid || topAsk !== market.topAsk;
    market.topBid = topBid;
    market.topAsk = topAsk;
    if (!traded && !topMoved) return;
    if (traded) market.seq.prices++;
    market.seq.market++;
    const pricesWanted = traded && sink.listening(pair, 'prices');
    const marketWanted = sink.listening(pair, 'market');
    if (!pricesWanted && !marketWanted) return;
    const day = this.options.dayFigures?.(pair) ?? null;
    const timestamp = new Date(market.lastTs).toISOString();
    const price = market.lastPriceTicks < 0 ? null : formatPrice(market.lastPriceTicks, pair);
    if (pricesWanted) {
      sink.publish(pair, 'prices', {
        type: 'price_update',
        channel: 'prices',
        symbol: pair.base.symbol,
        asset: pair.base.symbol,
        seq: market.seq.prices,
        price,
        change_24h: day?.change24h ?? null,
        change_percent_24h: day?.changePercent24h ?? null,
        timestamp,
      });
    }
    if (!marketWanted) return;
    sink.publish(pair, 'market', {
      type: 'market_update',
      channel: 'market',
      symbol: pair.base.symbol,
      asset: pair.base.symbol,
      pair: pair.name,
      seq: market.seq.market,
      last_price: price,
      ...this.top(market),
      volume_24h: day?.volume24h ?? null,
      high_24h: day?.high24h ?? null,
      low_24h: day?.low24h ?? null,
      change_24h: day?.change24h ?? null,
      timestamp,
    });
  }

  private top(market: PairMarket): { best_bid: string | null; best_ask: string | null; spread: string | null } {
    const bid = market.levels[0].best();
    const ask = market.levels[1].best();
    const pair = market.pair;
    return {
      best_bid: bid < 0 ? null : formatPrice(bid, pair),
      best_ask: ask < 0 ? null : formatPrice(ask, pair),
      spread: bid < 0 || ask < 0 ? null : formatPrice(ask - bid, pair),
    };
  }

  private bookMessage(market: PairMarket, snapshot: boolean, bids: Level[], asks: Level[]): Record<string, unknown> {
    return {
      type: 'orderbook_update',
      channel: 'orderbook',
      symbol: market.pair.base.symbol,
      asset: market.pair.base.symbol,
      pair: market.pair.name,
      seq: market.seq.orderbook,
      snapshot,
      bids,
      asks,
      ...this.top(market),
      timestamp: market.lastTs === 0 ? null : new Date(market.lastTs).toISOString(),
    };
  }

  private sideLevels(market: PairMarket, side: Side, levelsMax: number): Level[] {
    const out: Level[] = [];
    market.levels[side].visit(levelsMax, (price, lots) => out.push([formatPrice(price, market.pair), formatQuantity(lots, market.pair)]));
    return out;
  }

  /** Changed levels of a side with their new quantities, best first ("0": the level emptied). */
  private changedLevels(market: PairMarket, side: Side): Level[] {
    const prices = [...market.changed[side]].sort(side === 0 ? (a, b) => b - a : (a, b) => a - b);
    const levels = market.levels[side];
    return prices.map((price) => [formatPrice(price, market.pair), formatQuantity(levels.lotsAt(price), market.pair)]);
  }
}
