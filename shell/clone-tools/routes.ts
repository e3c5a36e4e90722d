/**
 * The clone tools' routes (keyless, general rate limit per address):
 *
 *   GET /api/v1/clones/fomo-radar/signals                    recent trades of tracked wallets, with conviction kinds
 *   GET /api/v1/clones/fomo-radar/traders                    wallets ranked by their realised track record
 *   GET /api/v1/clones/protocol-revenue/rankings             protocols ranked by fees or revenue over a window
 *   GET /api/v1/clones/protocol-revenue/protocols/{slug}     one protocol's daily series and totals
 *   GET /api/v1/clones/{name}/docs                           a tool's contract, generated from these declarations
 *
 * Outside-world data comes from the adapter (data.ts) and every answer says its `source` ("sample" for the
 * embedded fictional sample, "file" for CLONE_TOOLS_DATA_FILE, "platform" for our own durable data). When
 * the Solana wallet source is down (the adapter throws, or CLONE_TOOLS_SOLANA_DOWN=1), the Solana board
 * falls back to pool-level buy pressure from our own orders' fills against Solana AMM pools, and says so.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { formatAtoms, type Asset } from '../../engine/core/units.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import { chains, type Chain, type CloneToolsData, type ProtocolRecord } from './data.ts';
import { freshWindowMs, hotWalletsMin, qualifiedScoreMin, qualifiedTradesMin, rankTraders, signalFilters, signals, signalWindowMs } from './fomo.ts';
import { enumParam, integerParam, querySchema, textParam, type Param, type ParamDoc } from './params.ts';
import type { PlatformFlow } from './platform.ts';
import { ProtocolIndex, windows, windowSum, type Metric, type Window } from './revenue.ts';

const tags = ['Clone tools'];
const iso = (ms: number): string => new Date(ms).toISOString();
const msPerDay = 86_400_000;
const nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);
const usd = (value: number): string => value.toFixed(2);

/** Our platform as a protocol of the rankings: its slug, and how it is described. */
export const platformSlug = 'this-platform';

export interface ToolDoc {
  readonly description: string;
  readonly served: boolean;
  readonly rules: readonly string[];
  readonly fallbacks: readonly string[];
}

export const toolDocs: Record<string, ToolDoc> = {
  'fomo-radar': {
    description: 'Tracks wallets on Robinhood Chain and Solana: their recent trades as signals, and the wallets ranked by realised track record on closed round trips.',
    served: true,
    rules: [
      'A round trip, per wallet and token: buys open or add to a position (cost = sum of the buys in USD); the first sell after them closes it, with return (sell USD - cost) / cost. A sell with no open position is ignored for the record.',
      `score (0-100) = round(50 + 50 * n / (n + 5) * E), E = clamp(0.5 * (2w - 1) + 0.5 * clamp(r, -1, 1), -1, 1), with n closed round trips, w the share that gained, r their mean return. A wallet with no closed round trip scores exactly 50.`,
      `qualified: n >= ${qualifiedTradesMin} and score >= ${qualifiedScoreMin}; never with no closed round trip.`,
      'conviction_kind: new_position (a buy with no open position of the token), add (a buy while one is open), exit (a sell that closes one), orphan_sell (a sell with none open).',
      `signals cover the last ${signalWindowMs / 3_600_000} hours, newest first; filter hot keeps tokens bought by at least ${hotWalletsMin} distinct wallets in that window, fresh keeps new positions of the last ${freshWindowMs / 60_000} minutes, exits keeps exits.`,
    ],
    fallbacks: [
      'When the Solana wallet source is down (an adapter error, or CLONE_TOOLS_SOLANA_DOWN=1), chain=solana answers with fallback set: pool-level buy pressure from our own orders\' fills against Solana AMM pools over the last 24 hours (buy_pressure = buy volume / (buy + sell volume), null without fills), source "platform", and the reason.',
    ],
  },
  'protocol-revenue': {
    description: 'Protocols ranked by fees or revenue over 24 hours, 7 days or 30 days, with each protocol\'s daily series; our own platform is one of them, with its real collected fees.',
    served: true,
    rules: [
      'A window is whole UTC days ending today: 24h is today, 7d today and the 6 days before, 30d today and the 29 before.',
      'Ranking: the window\'s sum of the metric, highest first; ties by slug. chain and category match exactly in any case; q searches the names (full text: prefix matches and fuzziness 0.2).',
      `Our platform (slug ${platformSlug}, source "platform"): fees are the live exchange\'s taker and maker fees collected (USDC) from durable trades since this server started; revenue equals fees (the platform keeps every fee).`,
    ],
    fallbacks: ['Outside protocols come from the adapter: the fictional sample (source "sample") unless CLONE_TOOLS_DATA_FILE names a file (source "file").'],
  },
  'memecoin-terminal': {
    description: 'A terminal of new memecoin launches with holder and liquidity checks. Not served yet: no route answers for it.',
    served: false,
    rules: [],
    fallbacks: [],
  },
  'social-pulse': {
    description: 'Mentions and sentiment of tokens across social feeds. Not served yet: no route answers for it (the platform has no social data source).',
    served: false,
    rules: [],
    fallbacks: [],
  },
  'stable-pools': {
    description: 'Stablecoin pools ranked by yield and depth. Not served yet: no route answers for it.',
    served: false,
    rules: [],
    fallbacks: [],
  },
};

export interface CloneToolsOptions {
  readonly context: ShellContext;
  readonly data: CloneToolsData;
  readonly flow: PlatformFlow;
  readonly solanaDown: boolean;
  readonly quote: Asset;
}

const signalRow = Type.Object({
  wallet: Type.String(),
  wallet_label: Type.String(),
  token: Type.String(),
  side: Type.String(),
  amount_usd: Type.String(),
  time: Type.String(),
  conviction_kind: Type.String(),
  wallet_score: Type.Integer(),
  wallet_qualified: Type.Boolean(),
});
const traderRow = Type.Object({
  rank: Type.Integer(),
  wallet: Type.String(),
  wallet_label: Type.String(),
  score: Type.Integer(),
  qualified: Type.Boolean(),
  closed_trades: Type.Integer(),
  win_rate: nullable(Type.Number()),
  avg_return_pct: nullable(Type.Number()),
  realised_pnl_usd: Type.String(),
  conviction_kind: nullable(Type.String()),
});
const poolRow = Type.Object({ venue: Type.String(), pair: Type.String(), buys: Type.Integer(), sells: Type.Integer(), buy_volume_usd: Type.String(), sell_volume_usd: Type.String(), buy_pressure: nullable(Type.Number()) });
const fallbackSchema = nullable(Type.Object({ reason: Type.String(), kind: Type.Literal('pool_buy_pressure'), source: Type.Literal('platform'), window_hours: Type.Integer(), pools: Type.Array(poolRow) }));
const fomoResponse = (rows: TSchema, key: string): TSchema =>
  Type.Object({ tool: Type.String(), chain: Type.String(), source: Type.String(), as_of: Type.String(), count: Type.Integer(), [key]: Type.Array(rows), fallback: fallbackSchema, ...(key === 'signals' ? { filter: Type.String() } : {}) });
const rankingRow = Type.Object({ rank: Type.Integer(), slug: Type.String(), name: Type.String(), chain: Type.String(), category: Type.String(), value_usd: Type.String(), source: Type.String() });
const rankingsResponse = Type.Object({ tool: Type.String(), metric: Type.String(), window: Type.String(), source: Type.String(), as_of: Type.String(), count: Type.Integer(), protocols: Type.Array(rankingRow) });
const totals = Type.Object({ '24h': Type.String(), '7d': Type.String(), '30d': Type.String(), all: Type.String() });
const protocolResponse = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  chain: Type.String(),
  category: Type.String(),
  source: Type.String(),
  series_since: nullable(Type.String()),
  daily: Type.Array(Type.Object({ date: Type.String(), fees_usd: Type.String(), revenue_usd: Type.String() })),
  totals: Type.Object({ fees: totals, revenue: totals }),
});
const docsResponse = Type.Object({
  tool: Type.String(),
  status: Type.String(),
  description: Type.String(),
  data_source: Type.String(),
  routes: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), name: Type.String(), auth: Type.String(), rate_limit: Type.String(), summary: Type.String(), parameters: Type.Array(Type.Unknown()), errors: Type.Array(Type.String()), response: Type.Unknown() })),
  rules: Type.Array(Type.String()),
  fallbacks: Type.Array(Type.String()),
});

export function cloneToolsRoutes(options: CloneToolsOptions): Route[] {
  const { context, data, flow, solanaDown, quote } = options;
  const index = new ProtocolIndex(data.protocols());
  /** The parameters of each route, for its docs. */
  const paramsOf = new Map<string, readonly ParamDoc[]>();
  const declare = (route: Route, params: readonly Param<unknown>[], extra: readonly ParamDoc[] = []): Route => {
    paramsOf.set(route.name!, [...extra, ...params.map((param) => param.doc)]);
    return route;
  };

  const chainParam = enumParam<Chain>('chain', chains, 'robinhood', 'the chain whose wallets to read');
  const filterParam = enumParam('filter', signalFilters, 'all', 'which signals: all, hot, fresh or exits');
  const signalLimit = integerParam('limit', 1, 200, 40, 'signals to return');
  const traderLimit = integerParam('limit', 1, 100, 25, 'wallets to return');
  const metricParam = enumParam<Metric>('metric', ['fees', 'revenue'], 'fees', 'what to rank by');
  const windowParam = enumParam<Window>('window', ['24h', '7d', '30d'], '24h', 'the window of whole UTC days ending today');
  const protocolChain = textParam('chain', 40, 'only protocols of this chain (any case)');
  const categoryParam = textParam('category', 40, 'only protocols of this category (any case)');
  const qParam = textParam('q', 100, 'full-text search on the protocol name');
  const rankingLimit = integerParam('limit', 1, 500, 200, 'protocols to return');

  /** The wallets of a chain, or the reason the source is down (the Solana fallback's trigger). */
  const walletsOf = (chain: Chain) => {
    if (chain === 'solana' && solanaDown) return { wallets: null, reason: 'the Solana wallet source is marked down (CLONE_TOOLS_SOLANA_DOWN=1)' };
    try {
      return { wallets: data.wallets(chain), reason: null };
    } catch (error) {
      if (chain !== 'solana') throw error;
      return { wallets: null, reason: `the Solana wallet source failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  };

  const poolFallback = (reason: string, nowMs: number) => {
    const solana = context.funding.chains.all.find((chain) => chain.name === 'solana');
    const pools = new Map<number, { buys: number; sells: number; buyAtoms: number; sellAtoms: number }>();
    for (const venue of context.venues.all) if (venue.chainId === solana?.id) pools.set(venue.id, { buys: 0, sells: 0, buyAtoms: 0, sellAtoms: 0 });
    for (const fill of flow.recentFills(nowMs)) {
      const pool = pools.get(fill.venueId);
      if (pool === undefined) continue;
      if (fill.side === 0) {
        pool.buys++;
        pool.buyAtoms += fill.notionalAtoms;
      } else {
        pool.sells++;
        pool.sellAtoms += fill.notionalAtoms;
      }
    }
    const rows = [...pools.entries()].map(([venueId, pool]) => {
      const venue = context.venues.info(venueId)!;
      const total = pool.buyAtoms + pool.sellAtoms;
      return {
        venue: venue.name,
        pair: venue.pair,
        buys: pool.buys,
        sells: pool.sells,
        buy_volume_usd: formatAtoms(pool.buyAtoms, quote),
        sell_volume_usd: formatAtoms(pool.sellAtoms, quote),
        buy_pressure: total === 0 ? null : Math.round((pool.buyAtoms / total) * 10_000) / 10_000,
      };
    });
    rows.sort((a, b) => (b.buy_pressure ?? -1) - (a.buy_pressure ?? -1) || (a.venue < b.venue ? -1 : 1));
    return { reason, kind: 'pool_buy_pressure' as const, source: 'platform' as const, window_hours: 24, pools: rows };
  };

  /** Our platform as a protocol: its live fees by UTC day, from durable trades since this server started. */
  const platformProtocol = (): ProtocolRecord => {
    const scale = 10 ** quote.decimals;
    const daily = [...flow.feesByDay.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([day, fees]) => ({ day, feesUsd: (fees.takerAtoms + fees.makerAtoms) / scale, revenueUsd: (fees.takerAtoms + fees.makerAtoms) / scale }));
    return { slug: platformSlug, name: 'This platform (our exchange)', chain: 'multi', category: 'exchange', daily };
  };

  const routes: Route[] = [
    declare(
      declareRoute({
        method: 'GET',
        path: '/api/v1/clones/fomo-radar/signals',
        name: 'get_fomo_radar_signals',
        tags,
        auth: 'none',
        rateLimit: 'general',
        status: 200,
        errors: [],
        query: querySchema([chainParam, filterParam, signalLimit]),
        response: fomoResponse(signalRow, 'signals'),
        summary: 'Recent trades (24 h) of tracked wallets with conviction_kind and the wallet\'s score; filter all|hot|fresh|exits, chain robinhood|solana, limit 1-200 (default 40). Data is labelled by source; Solana falls back to pool buy pressure when its source is down',
        handler: (request) => {
          const chain = chainParam.read(request.query)!;
          const filter = filterParam.read(request.query)!;
          const limit = signalLimit.read(request.query);
          const nowMs = context.clock();
          const { wallets, reason } = walletsOf(chain);
          if (wallets === null) return { body: { tool: 'fomo-radar', chain, filter, source: 'platform', as_of: iso(nowMs), count: 0, signals: [], fallback: poolFallback(reason!, nowMs) } };
          const rows = signals(wallets, filter, nowMs).slice(0, limit);
          return {
            body: {
              tool: 'fomo-radar',
              chain,
              filter,
              source: data.source,
              as_of: iso(nowMs),
              count: rows.length,
              signals: rows.map((row) => ({
                wallet: row.wallet.address,
                wallet_label: row.wallet.label,
                token: row.trade.token,
                side: row.trade.side,
                amount_usd: usd(row.trade.amountUsd),
                time: iso(row.trade.timeMs),
                conviction_kind: row.kind,
                wallet_score: row.record.score,
                wallet_qualified: row.record.qualified,
              })),
              fallback: null,
            },
          };
        },
      }),
      [chainParam, filterParam, signalLimit],
    ),
    declare(
      declareRoute({
        method: 'GET',
        path: '/api/v1/clones/fomo-radar/traders',
        name: 'get_fomo_radar_traders',
        tags,
        auth: 'none',
        rateLimit: 'general',
        status: 200,
        errors: [],
        query: querySchema([chainParam, traderLimit]),
        response: fomoResponse(traderRow, 'traders'),
        summary: 'Wallets ranked by realised track record on closed round trips (score 0-100; no closed trade scores 50 and is never qualified); chain robinhood|solana, limit 1-100 (default 25)',
        handler: (request) => {
          const chain = chainParam.read(request.query)!;
          const limit = traderLimit.read(request.query);
          const nowMs = context.clock();
          const { wallets, reason } = walletsOf(chain);
          if (wallets === null) return { body: { tool: 'fomo-radar', chain, source: 'platform', as_of: iso(nowMs), count: 0, traders: [], fallback: poolFallback(reason!, nowMs) } };
          const rows = rankTraders(wallets).slice(0, limit);
          return {
            body: {
              tool: 'fomo-radar',
              chain,
              source: data.source,
              as_of: iso(nowMs),
              count: rows.length,
              traders: rows.map((row, rank) => ({
                rank: rank + 1,
                wallet: row.wallet.address,
                wallet_label: row.wallet.label,
                score: row.record.score,
                qualified: row.record.qualified,
                closed_trades: row.record.closedTrades,
                win_rate: row.record.winRate === null ? null : Math.round(row.record.winRate * 10_000) / 10_000,
                avg_return_pct: row.record.meanReturn === null ? null : Math.round(row.record.meanReturn * 1_000_000) / 10_000,
                realised_pnl_usd: usd(row.record.realisedPnlUsd),
                conviction_kind: row.record.kinds.at(-1) ?? null,
              })),
              fallback: null,
            },
          };
        },
      }),
      [chainParam, traderLimit],
    ),
    declare(
      declareRoute({
        method: 'GET',
        path: '/api/v1/clones/protocol-revenue/rankings',
        name: 'get_protocol_revenue_rankings',
        tags,
        auth: 'none',
        rateLimit: 'general',
        status: 200,
        errors: [],
        query: querySchema([metricParam, windowParam, protocolChain, categoryParam, qParam, rankingLimit]),
        response: rankingsResponse,
        summary: 'Protocols ranked by fees or revenue over 24h|7d|30d of whole UTC days; chain, category, q (full text on the name), limit 1-500 (default 200). Our platform is included with its real collected fees (source platform)',
        handler: (request) => {
          const metric = metricParam.read(request.query)!;
          const window = windowParam.read(request.query)!;
          const limit = rankingLimit.read(request.query);
          const nowMs = context.clock();
          const query = { metric, window, chain: protocolChain.read(request.query), category: categoryParam.read(request.query), q: qParam.read(request.query) };
          const outside = index.rank(query, nowMs);
          const own = new ProtocolIndex([platformProtocol()]).rank(query, nowMs);
          const ranked = [...outside.map((row) => ({ ...row, source: data.source as string })), ...own.map((row) => ({ ...row, source: 'platform' }))].sort(
            (a, b) => b.value - a.value || (a.protocol.slug < b.protocol.slug ? -1 : 1),
          );
          return {
            body: {
              tool: 'protocol-revenue',
              metric,
              window,
              source: data.source,
              as_of: iso(nowMs),
              count: Math.min(limit, ranked.length),
              protocols: ranked.slice(0, limit).map((row, rank) => ({
                rank: rank + 1,
                slug: row.protocol.slug,
                name: row.protocol.name,
                chain: row.protocol.chain,
                category: row.protocol.category,
                value_usd: usd(row.value),
                source: row.source,
              })),
            },
          };
        },
      }),
      [metricParam, windowParam, protocolChain, categoryParam, qParam, rankingLimit],
    ),
    declare(
      declareRoute({
        method: 'GET',
        path: '/api/v1/clones/protocol-revenue/protocols/{slug}',
        name: 'get_protocol_revenue_protocol',
        tags,
        auth: 'none',
        rateLimit: 'general',
        status: 200,
        errors: ['PROTOCOL_NOT_FOUND'],
        response: protocolResponse,
        summary: `One protocol: its daily fees and revenue (oldest first) and totals over 24h, 7d, 30d and all days; ${platformSlug} is our platform`,
        handler: (request) => {
          const slug = (request.params['slug'] ?? '').toLowerCase();
          const own = slug === platformSlug;
          const protocol = own ? platformProtocol() : data.protocols().find((row) => row.slug === slug);
          if (protocol === undefined) throw new ApiError(404, 'PROTOCOL_NOT_FOUND', `no protocol ${JSON.stringify(request.params['slug'] ?? '')}`);
          const nowMs = context.clock();
          const total = (metric: Metric) => ({
            '24h': usd(windowSum(protocol, metric, windows['24h'], nowMs)),
            '7d': usd(windowSum(protocol, metric, windows['7d'], nowMs)),
            '30d': usd(windowSum(protocol, metric, windows['30d'], nowMs)),
            all: usd(protocol.daily.reduce((sum, day) => sum + (metric === 'fees' ? day.feesUsd : day.revenueUsd), 0)),
          });
          return {
            body: {
              slug: protocol.slug,
              name: protocol.name,
              chain: protocol.chain,
              category: protocol.category,
              source: own ? 'platform' : data.source,
              series_since: own ? iso(flow.sinceMs) : null,
              daily: protocol.daily.map((day) => ({ date: iso(day.day * msPerDay).slice(0, 10), fees_usd: usd(day.feesUsd), revenue_usd: usd(day.revenueUsd) })),
              totals: { fees: total('fees'), revenue: total('revenue') },
            },
          };
        },
      }),
      [],
      [{ name: 'slug', in: 'path', type: 'string', required: true, description: `the protocol's slug from the rankings (${platformSlug} for our platform)` }],
    ),
  ];

  const docs = declareRoute({
    method: 'GET',
    path: '/api/v1/clones/{name}/docs',
    name: 'get_clone_tool_docs',
    tags,
    auth: 'none',
    rateLimit: 'general',
    status: 200,
    errors: ['TOOL_NOT_FOUND'],
    response: docsResponse,
    summary: `A clone tool's full contract (routes, parameters with bounds, response fields, scoring rules, fallbacks), generated from the route declarations: ${Object.keys(toolDocs).join(', ')}`,
    handler: (request) => {
      const name = request.params['name'] ?? '';
      const doc = toolDocs[name];
      if (doc === undefined) throw new ApiError(404, 'TOOL_NOT_FOUND', `no clone tool ${JSON.stringify(name)}; tools: ${Object.keys(toolDocs).join(', ')}`);
      const own = routes.filter((route) => route.path.startsWith(`/api/v1/clones/${name}/`));
      return {
        body: {
          tool: name,
          status: own.length > 0 ? 'served' : 'not_served',
          description: doc.description,
          data_source: own.length === 0 ? 'none' : data.source,
          routes: own.map((route) => ({
            method: route.method,
            path: route.path,
            name: route.name!,
            auth: route.auth,
            rate_limit: route.rateLimit,
            summary: route.summary,
            parameters: paramsOf.get(route.name!) ?? [],
            errors: [...(route.errors ?? []), 'VALIDATION_FAILED', 'RATE_LIMITED'],
            response: route.response,
          })),
          rules: doc.rules,
          fallbacks: doc.fallbacks,
        },
      };
    },
  });
  return [...routes, docs];
}
