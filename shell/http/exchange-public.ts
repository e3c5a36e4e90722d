/** Public exchange reads that need no credential: pairs, server time, best bid and offer. */
import type { Pair } from '../../engine/core/units.ts';
import { formatPrice, formatQuantity, formatSteps } from '../../engine/core/units.ts';
import type { EngineSettings } from '../../engine/core/limits.ts';
import { ApiError } from './errors.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';

/** The pair named by a path's `{symbol}`: the base token's slug (or BASE/QUOTE), any case. */
export function pairOf(context: ShellContext, symbol: string | undefined): Pair {
  const pair = symbol === undefined ? undefined : context.markets.pairBySymbol(symbol);
  if (pair === undefined) throw new ApiError(404, 'PAIR_NOT_FOUND', `no trading pair for symbol ${JSON.stringify(symbol ?? '')}`);
  return pair;
}

function pairRecord(pair: Pair, settings: EngineSettings): Record<string, unknown> {
  return {
    symbol: pair.base.symbol,
    slug: pair.slug,
    pair: pair.name,
    base: pair.base.symbol,
    quote: pair.quote.symbol,
    tick_size: formatSteps(1, pair.tick),
    lot_size: formatSteps(1, pair.lot),
    max_price: formatPrice(pair.priceTicksMax, pair),
    max_quantity: formatQuantity(pair.quantityLotsMax, pair),
    taker_fee_bps: settings.takerFeeBps,
    maker_fee_bps: settings.makerFeeBps,
  };
}

export function exchangePublicRoutes(context: ShellContext): Route[] {
  /** Aggregated durable levels of one side, best first, each with its source for the hybrid book. */
  const sideLevels = (pair: Pair, side: 0 | 1, depth: number, withSource: boolean) => {
    const levels = context.marketData.depth(pair, side, depth);
    return withSource ? levels.map((level) => ({ ...level, source: 'clob' })) : levels;
  };
  const depthQuery = (extra: Record<string, unknown> = {}) => ({
    type: 'object',
    additionalProperties: false,
    ...(Object.keys(extra).length > 0 ? { required: Object.keys(extra) } : {}),
    properties: { depth: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' }, ...extra },
  });
  const depthOf = (query: Readonly<Record<string, string>>): number => (query['depth'] === undefined ? 50 : Number(query['depth']));
  /**
   * The hybrid book: resting orders merged with virtual AMM depth, each level tagged with its source. AMM
   * quoting arrives with the hybrid-liquidity work; until then every level is `clob`.
   */
  const hybrid = (pair: Pair, depth: number) => ({
    symbol: pair.base.symbol,
    pair: pair.name,
    bids: sideLevels(pair, 0, depth, true),
    asks: sideLevels(pair, 1, depth, true),
  });
  return [
    {
      method: 'GET',
      path: '/api/v1/exchange/pairs',
      auth: 'none',
      rateLimit: 'general',
      summary: 'List the trading pairs with their tick and lot sizes and fees',
      handler: () => ({ body: { pairs: context.markets.pairs.map((pair) => pairRecord(pair, context.durable.engine.settings)) } }),
    },
    {
      method: 'GET',
      path: '/api/v1/exchange/time',
      auth: 'none',
      rateLimit: 'general',
      summary: 'Server time',
      handler: () => {
        const now = context.clock();
        return { body: { server_time: new Date(now).toISOString(), timestamp_ms: now } };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/exchange/{symbol}/book',
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      summary: 'Bids and asks of the live order book (CLOB only), aggregated by price level, best first',
      query: depthQuery(),
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const depth = depthOf(request.query);
        return { body: { symbol: pair.base.symbol, pair: pair.name, bids: sideLevels(pair, 0, depth, false), asks: sideLevels(pair, 1, depth, false) } };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/exchange/{symbol}/book/hybrid',
      auth: 'none',
      rateLimit: 'none',
      summary: 'The hybrid book: resting orders and virtual AMM depth merged, each level with its source',
      query: depthQuery(),
      handler: (request) => ({ body: hybrid(pairOf(context, request.params['symbol']), depthOf(request.query)) }),
    },
    {
      method: 'GET',
      path: '/api/v1/clob/book/hybrid',
      auth: 'none',
      rateLimit: 'none',
      summary: 'The hybrid book of a pair given as BASE/QUOTE',
      query: depthQuery({ pair: { type: 'string', pattern: '^[A-Za-z0-9]{1,16}/[A-Za-z0-9]{1,16}$' } }),
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
      path: '/api/v1/exchange/{symbol}/bbo',
      auth: 'none',
      rateLimit: 'general',
      summary: 'Best bid and offer of the live order book',
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const data = context.marketData;
        const best = (side: 0 | 1): Record<string, string> | null => {
          const ticks = data.best(pair, side);
          return ticks < 0 ? null : { price: formatPrice(ticks, pair), quantity: formatQuantity(data.lotsAt(pair, side, ticks), pair) };
        };
        const bidTicks = data.best(pair, 0);
        const askTicks = data.best(pair, 1);
        const bid = best(0);
        const ask = best(1);
        const spread = bidTicks >= 0 && askTicks >= 0 ? formatPrice(askTicks - bidTicks, pair) : null;
        return { body: { symbol: pair.base.symbol, pair: pair.name, best_bid: bid, best_ask: ask, spread } };
      },
    },
  ];
}
