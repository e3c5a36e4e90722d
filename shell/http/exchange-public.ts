/** Public exchange reads that need no credential: pairs, server time, the hybrid book, best bid and offer. */
import type { Pair } from '../../engine/core/units.ts';
import { formatPrice, formatQuantity, formatSteps } from '../../engine/core/units.ts';
import type { EngineSettings } from '../../engine/core/limits.ts';
import { ApiError } from './errors.ts';
import { clobVenueName } from '../market/venue-directory.ts';
import type { HybridLevel } from '../market/market-data.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { Type } from '@sinclair/typebox';
import { closed, decimalString, nullable, pairField, pairSchema, symbolField, timestamp } from './schemas.ts';

const tags = ['Exchange'];
const pairNotFound = ['PAIR_NOT_FOUND'];

/** One aggregated price level of the order book. */
const levelSchema = closed({
  price: decimalString(),
  quantity: decimalString('base quantity resting at this price'),
  orders: Type.Integer({ minimum: 1, description: 'orders resting at this price' }),
});
const bookSchema = closed({
  symbol: symbolField,
  pair: pairField,
  bids: Type.Array(levelSchema, { description: 'best (highest) first' }),
  asks: Type.Array(levelSchema, { description: 'best (lowest) first' }),
});

/** A hybrid-book row: a price level of the order book, or an AMM pool's depth at one price. */
const hybridRowSchema = Type.Union([
  closed({
    price: decimalString(),
    quantity: decimalString(),
    source: Type.Literal(clobVenueName, { description: 'the order book' }),
    chain: Type.Null(),
    orders: Type.Integer({ minimum: 1, description: 'orders resting at this price' }),
  }),
  closed({
    price: decimalString(),
    quantity: decimalString(),
    source: Type.String({ description: "the AMM pool's name (e.g. Uniswap v3 WETH/USDC 0.05 %)" }),
    chain: Type.String({ description: "the pool's chain" }),
    venue_id: Type.Integer({ minimum: 1, description: "the pool's venue id" }),
  }),
]);
const hybridBookSchema = closed({
  symbol: symbolField,
  pair: pairField,
  bids: Type.Array(hybridRowSchema, { description: 'best first; at one price the order book first, then pools by chain' }),
  asks: Type.Array(hybridRowSchema, { description: 'best first; at one price the order book first, then pools by chain' }),
});

/** Liquidity within one band around the mid. */
const bandSchema = closed({
  band: Type.String({ description: 'the band around the hybrid mid: 1%, 2% or 5%' }),
  bid_quantity: decimalString('base quantity bid at or above mid × (1 - band)'),
  ask_quantity: decimalString('base quantity offered at or below mid × (1 + band)'),
  bid_notional: decimalString('quote notional of those bids'),
  ask_notional: decimalString('quote notional of those asks'),
});
const bandsSchema = Type.Array(bandSchema, { description: 'one entry per band: 1%, 2%, 5%' });
const venuesSchema = closed({
  symbol: symbolField,
  pair: pairField,
  mid_price: nullable(decimalString('mid of the hybrid best bid and ask (else the last price); null when neither exists')),
  venues: Type.Array(
    closed({
      venue: Type.String({ description: '`clob` for the order book, else the pool name' }),
      venue_id: Type.Integer({ minimum: 0, description: '0 for the order book' }),
      chain: Type.String({ description: '`platform` for the order book' }),
      dex: nullable(Type.String({ description: '`platform` for the order book, else the exchange running the pool' })),
      kind: nullable(Type.String({ description: '`clob`, or the pool kind' })),
      quoting: Type.Boolean({ description: 'whether the pool currently quotes this pair' }),
      bands: bandsSchema,
    }),
  ),
  chains: Type.Array(closed({ chain: Type.String(), bands: bandsSchema }), { description: 'sums per chain (the order book is `platform`)' }),
  total: bandsSchema,
});

const clobQuoteSchema = nullable(closed({ price: decimalString(), quantity: decimalString('base quantity at that price') }));
/** The taker's best price of a side across the order book and the AMM pools (MarketData.hybridTop). */
const hybridQuoteSchema = nullable(
  closed({
    price: decimalString('the best price a taker gets on this side, order book and pools together (netted: never crossed)'),
    quantity: decimalString('base quantity at that price, every source together'),
    source: Type.String({ description: '`clob` for the order book, else the pool\'s name: the first source a taker meets at that price' }),
    chain: nullable(Type.String({ description: "that source's chain; null for the order book" })),
    sources: Type.Array(
      closed({ source: Type.String(), chain: nullable(Type.String()), quantity: decimalString() }),
      { description: 'every source at that price, in the order a taker meets them (the order book first, then pools by chain)' },
    ),
  }),
);
const bboSchema = closed({
  symbol: symbolField,
  pair: pairField,
  best_bid: hybridQuoteSchema,
  best_ask: hybridQuoteSchema,
  spread: nullable(decimalString('hybrid best ask minus best bid (always positive); null unless both exist')),
  clob_best_bid: clobQuoteSchema,
  clob_best_ask: clobQuoteSchema,
  clob_spread: nullable(decimalString('order-book best ask minus best bid; null unless both exist')),
});

/** The bands of GET /venues, in basis points around the mid. */
export const venueBandsBps = [100, 200, 500] as const;

/** The pair named by a path's `{symbol}`: the base token's slug (or BASE/QUOTE), any case. */
export function pairOf(context: ShellContext, symbol: string | undefined): Pair {
  const pair = symbol === undefined ? undefined : context.markets.pairBySymbol(symbol);
  if (pair === undefined) throw new ApiError(404, 'PAIR_NOT_FOUND', `no trading pair for symbol ${JSON.stringify(symbol ?? '')}`);
  return pair;
}

/** A pair's names and steps, as GET /pairs and GET /markets show them. */
export function pairNames(pair: Pair): { slug: string; base: string; quote: string; tick_size: string; lot_size: string } {
  return { slug: pair.slug, base: pair.base.symbol, quote: pair.quote.symbol, tick_size: formatSteps(1, pair.tick), lot_size: formatSteps(1, pair.lot) };
}

function pairRecord(pair: Pair, settings: EngineSettings): Record<string, unknown> {
  const names = pairNames(pair);
  return {
    symbol: pair.base.symbol,
    slug: names.slug,
    pair: pair.name,
    base: names.base,
    quote: names.quote,
    tick_size: names.tick_size,
    lot_size: names.lot_size,
    max_price: formatPrice(pair.priceTicksMax, pair),
    max_quantity: formatQuantity(pair.quantityLotsMax, pair),
    taker_fee_bps: settings.takerFeeBps,
    maker_fee_bps: settings.makerFeeBps,
  };
}

export function exchangePublicRoutes(context: ShellContext): Route[] {
  /** Aggregated durable levels of the order book's side, best first. */
  const sideLevels = (pair: Pair, side: 0 | 1, depth: number) => context.marketData.depth(pair, side, depth);
  const depthQuery = (extra: Record<string, unknown> = {}) => ({
    type: 'object',
    additionalProperties: false,
    ...(Object.keys(extra).length > 0 ? { required: Object.keys(extra) } : {}),
    properties: { depth: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' }, ...extra },
  });
  const depthOf = (query: Readonly<Record<string, string>>): number => (query['depth'] === undefined ? 50 : Number(query['depth']));
  /**
   * The hybrid book: one row per price and source, best first; at one price the order book (`clob`) comes
   * first, then the venues by chain and pool, the order a taker meets them in. Crossing depth between
   * venues is netted out (MarketData.hybridBook), so the best bid is always below the best ask.
   */
  const hybridRows = (pair: Pair, rows: HybridLevel[]) =>
    rows.map((row) => ({
      price: formatPrice(row.priceTicks, pair),
      quantity: formatQuantity(row.lots, pair),
      source: row.venueId === 0 ? clobVenueName : context.venues.name(row.venueId),
      chain: context.venues.chainName(row.chainId),
      ...(row.venueId === 0 ? { orders: row.orders } : { venue_id: row.venueId }),
    }));
  const hybrid = (pair: Pair, depth: number) => {
    const book = context.marketData.hybridBook(pair, depth);
    return { symbol: pair.base.symbol, pair: pair.name, bids: hybridRows(pair, book.bids), asks: hybridRows(pair, book.asks) };
  };
  /**
   * Liquidity by venue within bands around the hybrid mid: for each band, the base quantity and quote
   * notional of the bids at or above mid × (1 - band) and of the asks at or below mid × (1 + band); summed
   * per chain (the order book is `platform`) and in total. Notional in quote atoms as BigInt: a side's sum
   * can pass the safe-integer range.
   */
  const venues = (pair: Pair) => {
    const data = context.marketData;
    const bid = data.hybridBest(pair, 0);
    const ask = data.hybridBest(pair, 1);
    const last = data.lastPrice(pair);
    const midTicks = bid >= 0 && ask >= 0 ? (bid + ask) / 2 : last >= 0 ? last : -1;
    interface Sums {
      bidLots: number;
      askLots: number;
      bidAtoms: bigint;
      askAtoms: bigint;
    }
    const empty = (): Sums[] => venueBandsBps.map(() => ({ bidLots: 0, askLots: 0, bidAtoms: 0n, askAtoms: 0n }));
    const byVenue = new Map<number, { chainId: number; sums: Sums[] }>();
    const add = (side: 0 | 1, venueId: number, chainId: number, priceTicks: number, lots: number): void => {
      let entry = byVenue.get(venueId);
      if (entry === undefined) {
        entry = { chainId, sums: empty() };
        byVenue.set(venueId, entry);
      }
      venueBandsBps.forEach((bandBps, index) => {
        const inside = side === 0 ? priceTicks * 10_000 >= midTicks * (10_000 - bandBps) : priceTicks * 10_000 <= midTicks * (10_000 + bandBps);
        if (!inside) return;
        const sums = entry.sums[index]!;
        const atoms = BigInt(priceTicks) * BigInt(lots) * BigInt(pair.quoteAtomsPerTickLot);
        if (side === 0) {
          sums.bidLots += lots;
          sums.bidAtoms += atoms;
        } else {
          sums.askLots += lots;
          sums.askAtoms += atoms;
        }
      });
    };
    byVenue.set(0, { chainId: 0, sums: empty() });
    for (const venue of context.venues.all) if (venue.pair === pair.name) byVenue.set(venue.id, { chainId: venue.chainId, sums: empty() });
    if (midTicks >= 0) {
      const book = data.hybridBook(pair, Number.MAX_SAFE_INTEGER);
      for (const side of [0, 1] as const) {
        for (const row of side === 0 ? book.bids : book.asks) add(side, row.venueId, row.chainId, row.priceTicks, row.lots);
      }
    }
    const bandsJson = (sums: Sums[]) =>
      sums.map((band, index) => ({
        band: `${venueBandsBps[index]! / 100}%`,
        bid_quantity: formatQuantity(band.bidLots, pair),
        ask_quantity: formatQuantity(band.askLots, pair),
        bid_notional: formatSteps(band.bidAtoms, pair.quote.atom),
        ask_notional: formatSteps(band.askAtoms, pair.quote.atom),
      }));
    const merge = (into: Sums[], from: Sums[]): void =>
      from.forEach((band, index) => {
        const target = into[index]!;
        target.bidLots += band.bidLots;
        target.askLots += band.askLots;
        target.bidAtoms += band.bidAtoms;
        target.askAtoms += band.askAtoms;
      });
    const byChain = new Map<string, Sums[]>();
    const total = empty();
    const rows = [...byVenue].map(([venueId, entry]) => {
      const chain = context.venues.chainName(entry.chainId) ?? 'platform';
      if (!byChain.has(chain)) byChain.set(chain, empty());
      merge(byChain.get(chain)!, entry.sums);
      merge(total, entry.sums);
      const info = context.venues.info(venueId);
      return {
        venue: venueId === 0 ? clobVenueName : context.venues.name(venueId),
        venue_id: venueId,
        chain,
        dex: venueId === 0 ? 'platform' : (info?.dex ?? null),
        kind: venueId === 0 ? 'clob' : (info?.kind ?? null),
        quoting: venueId === 0 || data.hasVenue(pair, venueId),
        bands: bandsJson(entry.sums),
      };
    });
    return {
      symbol: pair.base.symbol,
      pair: pair.name,
      // The mid is a whole or a half tick: in steps of a tenth of a tick it is exact.
      mid_price: midTicks < 0 ? null : formatSteps(BigInt(Math.round(midTicks * 2)) * 5n, { mantissa: pair.tick.mantissa, scale: pair.tick.scale + 1 }),
      venues: rows,
      chains: [...byChain].map(([chain, sums]) => ({ chain, bands: bandsJson(sums) })),
      total: bandsJson(total),
    };
  };

  return [
    {
      method: 'GET',
      name: 'tp_clob_list_pairs',
      path: '/api/v1/exchange/pairs',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: 'List the trading pairs with their tick and lot sizes and fees',
      response: closed({ pairs: Type.Array(pairSchema) }),
      handler: () => ({ body: { pairs: context.markets.pairs.map((pair) => pairRecord(pair, context.durable.engine.settings)) } }),
    },
    {
      method: 'GET',
      name: 'tp_clob_time',
      path: '/api/v1/exchange/time',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: 'Server time',
      response: closed({ server_time: timestamp(), timestamp_ms: Type.Integer({ minimum: 0, description: 'Unix milliseconds' }) }),
      handler: () => {
        const now = context.clock();
        return { body: { server_time: new Date(now).toISOString(), timestamp_ms: now } };
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_orderbook',
      path: '/api/v1/exchange/{symbol}/book',
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: 'Bids and asks of the live order book (CLOB only), aggregated by price level, best first',
      query: depthQuery(),
      response: bookSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const depth = depthOf(request.query);
        return { body: { symbol: pair.base.symbol, pair: pair.name, bids: sideLevels(pair, 0, depth), asks: sideLevels(pair, 1, depth) } };
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_hybrid_book',
      path: '/api/v1/exchange/{symbol}/book/hybrid',
      auth: 'none',
      rateLimit: 'none',
      tags,
      errors: pairNotFound,
      summary: 'The hybrid book: resting orders and AMM depth from four chains merged, one row per price and source (clob or the pool), best first, depth crossing between pools netted out (never crossed)',
      query: depthQuery(),
      response: hybridBookSchema,
      handler: (request) => ({ body: hybrid(pairOf(context, request.params['symbol']), depthOf(request.query)) }),
    },
    {
      method: 'GET',
      name: 'tp_clob_book',
      path: '/api/v1/clob/book/hybrid',
      auth: 'none',
      rateLimit: 'none',
      tags,
      errors: pairNotFound,
      summary: 'The hybrid book of a pair given as BASE/QUOTE',
      query: depthQuery({ pair: { type: 'string', pattern: '^[A-Za-z0-9]{1,16}/[A-Za-z0-9]{1,16}$' } }),
      response: hybridBookSchema,
      handler: (request) => {
        const pair = context.markets.pairBySymbol(request.query['pair'] ?? '');
        if (pair === undefined || pair.name !== (request.query['pair'] ?? '').toUpperCase()) {
          throw new ApiError(404, 'PAIR_NOT_FOUND', `no trading pair ${JSON.stringify(request.query['pair'])}`);
        }
        return { body: hybrid(pair, depthOf(request.query)) };
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_venues',
      path: '/api/v1/exchange/{symbol}/venues',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: 'Liquidity by venue (the order book and each AMM pool) and by chain within 1 %, 2 % and 5 % of the hybrid mid, bid and ask',
      response: venuesSchema,
      handler: (request) => ({ body: venues(pairOf(context, request.params['symbol'])) }),
    },
    {
      method: 'GET',
      name: 'tp_clob_bbo',
      path: '/api/v1/exchange/{symbol}/bbo',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: 'Best bid and offer a taker gets across the order book and the AMM pools (with the source), and the order book\'s own',
      response: bboSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const data = context.marketData;
        const clobBest = (side: 0 | 1): Record<string, string> | null => {
          const ticks = data.best(pair, side);
          return ticks < 0 ? null : { price: formatPrice(ticks, pair), quantity: formatQuantity(data.lotsAt(pair, side, ticks), pair) };
        };
        const bidTicks = data.best(pair, 0);
        const askTicks = data.best(pair, 1);
        return {
          body: {
            symbol: pair.base.symbol,
            pair: pair.name,
            ...data.hybridTop(pair),
            clob_best_bid: clobBest(0),
            clob_best_ask: clobBest(1),
            clob_spread: bidTicks >= 0 && askTicks >= 0 ? formatPrice(askTicks - bidTicks, pair) : null,
          },
        };
      },
    },
  ];
}
