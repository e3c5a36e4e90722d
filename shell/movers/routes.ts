/**
 * The movers tournament's routes:
 *
 *   GET  /api/v1/universe/movers/tournament         current round, countdown, leaderboard (and the caller's entry when known)
 *   POST /api/v1/universe/movers/tournament/enter   enter the current round with 1 to 5 oracle symbols
 *   GET  /api/v1/universe/movers/potential          symbols ranked by risk-adjusted momentum (potential.ts)
 *
 * Reads come from the durable movers view. The leaderboard of the running round scores each entry against
 * the latest durable oracle prices (the same formula the round's end applies); the final ranking is the
 * engine's, at the round's timer. An entry is checked here first so the 422 names the symbol and the
 * reason, then journaled; the engine checks again at its command.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage } from '../../engine/core/results.ts';
import { MoversCommandType, MoversEventType, MoversResult, entrySymbolsMax, scoreE6, type EnterMovers, type MoversEntered } from '../../engine/domains/movers/commands.ts';
import type { Entry } from '../../engine/domains/movers/movers.ts';
import type { OracleAsset } from '../../engine/runtime/oracle/source.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { enqueue } from '../http/exchange-orders.ts';
import { declareRoute, type Later, type Route } from '../http/route-table.ts';
import { formatPriceE8 } from '../prices/records.ts';
import { closesRead, potentialOf, rankPotential } from './potential.ts';
import type { MoversView } from './view.ts';

/** Rows of the leaderboard an answer shows, and the screen's bounds. */
export const leaderboardMax = 100;
export const potentialLimitMax = 100;
export const potentialLimitDefault = 25;

const tags = ['Movers tournament'];
const iso = (ms: number): string => new Date(ms).toISOString();

/** A score in 10^-6 percent as a decimal percentage string with 6 decimals ("-1.500000"). */
export function formatScore(scoreE6: number): string {
  const sign = scoreE6 < 0 ? '-' : '';
  const magnitude = Math.abs(scoreE6);
  return `${sign}${Math.floor(magnitude / 1_000_000)}.${String(magnitude % 1_000_000).padStart(6, '0')}`;
}

const nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);
const entrySchema = Type.Object({
  rank: Type.Integer({ description: 'place in the live leaderboard (1 first)' }),
  entry_id: Type.String(),
  user_id: Type.String(),
  symbols: Type.Array(Type.String()),
  entry_prices: Type.Array(Type.String()),
  score_pct: Type.String({ description: 'mean percentage change of the symbols since entry, 6 decimals' }),
  entered_at: Type.String(),
});
const resultSchema = Type.Object({ rank: Type.Integer(), entry_id: Type.String(), user_id: Type.String(), score_pct: Type.String(), end_prices: Type.Array(Type.String()) });
const tournamentResponse = Type.Object({
  round: nullable(Type.Integer()),
  round_start: nullable(Type.String()),
  round_end: nullable(Type.String()),
  round_length_seconds: Type.Integer(),
  countdown_seconds: nullable(Type.Integer()),
  entries: Type.Integer(),
  leaderboard: Type.Array(entrySchema),
  last_round: nullable(Type.Object({ round: Type.Integer(), round_start: Type.String(), round_end: Type.String(), ended_at: Type.String(), results: Type.Array(resultSchema) })),
  my_entry: Type.Optional(nullable(entrySchema)),
});
const enterResponse = Type.Object({ entry_id: Type.String(), round: Type.Integer(), symbols: Type.Array(Type.String()), entry_prices: Type.Array(Type.String()), entered_at: Type.String() });
const potentialResponse = Type.Object({
  as_of: Type.String(),
  ranked: Type.Integer(),
  symbols: Type.Array(
    Type.Object({
      rank: Type.Integer(),
      symbol: Type.String(),
      asset_type: Type.String(),
      price: Type.String(),
      momentum_7d_pct: Type.Number(),
      momentum_30d_pct: nullable(Type.Number()),
      volatility_30d_pct: Type.Number(),
      score: Type.Number(),
    }),
  ),
});

export interface MoversRoutesOptions {
  readonly context: ShellContext;
  readonly view: MoversView;
  readonly assets: readonly OracleAsset[];
}

export function moversRoutes(options: MoversRoutesOptions): Route[] {
  const { context, view, assets } = options;
  const assetTypes = new Map(assets.map((asset) => [asset.symbol, asset.assetType]));
  const priceE8 = (symbol: string): number => view.prices.prices.priceE8(symbol);

  /** The running round's entries ranked against the latest durable prices, as the round's end would rank them. */
  const leaderboard = (entries: readonly Entry[]) =>
    entries
      .map((entry) => ({ entry, score: scoreE6(entry.startPricesE8, entry.symbols.map(priceE8)) }))
      .sort((a, b) => b.score - a.score || a.entry.enteredMs - b.entry.enteredMs || a.entry.entryId - b.entry.entryId)
      .map((row, index) => ({
        rank: index + 1,
        entry_id: String(row.entry.entryId),
        user_id: String(row.entry.userId),
        symbols: row.entry.symbols,
        entry_prices: row.entry.startPricesE8.map(formatPriceE8),
        score_pct: formatScore(row.score),
        entered_at: iso(row.entry.enteredMs),
      }));

  const enterBody = Type.Object(
    { symbols: Type.Array(Type.String({ minLength: 1, maxLength: 12 }), { maxItems: 50, description: `1 to ${entrySymbolsMax} distinct oracle symbols (any case), each priced now` }) },
    { additionalProperties: false },
  );

  /** The first problem of a pick, named: count, then each symbol in order (duplicate, unknown, unpriced). */
  const checkSymbols = (raw: readonly string[]): string[] => {
    if (raw.length === 0) throw new ApiError(422, 'MOVERS_SYMBOL_COUNT', `body.symbols: too few: an entry holds 1 to ${entrySymbolsMax} symbols`);
    if (raw.length > entrySymbolsMax) throw new ApiError(422, 'MOVERS_SYMBOL_COUNT', `body.symbols: too many: ${raw.length} symbols, an entry holds at most ${entrySymbolsMax}`);
    const symbols = raw.map((symbol) => symbol.toUpperCase());
    symbols.forEach((symbol, index) => {
      if (symbols.indexOf(symbol) !== index) throw new ApiError(422, 'MOVERS_DUPLICATE_SYMBOL', `body.symbols[${index}]: ${symbol} is a duplicate: each symbol once`);
      if (!assetTypes.has(symbol)) throw new ApiError(422, 'MOVERS_UNKNOWN_SYMBOL', `body.symbols[${index}]: ${symbol} is unknown: not an asset the oracle prices`);
      if (priceE8(symbol) <= 0) throw new ApiError(422, 'MOVERS_SYMBOL_UNPRICED', `body.symbols[${index}]: ${symbol} is unpriced: the oracle has no price for it yet`);
    });
    return symbols;
  };

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/universe/movers/tournament',
      name: 'get_movers_tournament',
      tags,
      auth: 'optional',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: tournamentResponse,
      summary:
        `The movers tournament's current round: times, countdown_seconds, the live leaderboard (top ${leaderboardMax}, scored against the latest oracle prices) ` +
        'and the last ended round; with a session or API key also my_entry, the caller\'s entry (null when none)',
      handler: (request) => {
        const nowMs = context.clock();
        const round = view.current;
        const board = round === null ? [] : leaderboard(round.entries);
        const last = view.lastEnded;
        const principal = request.principal;
        return {
          body: {
            round: round?.round ?? null,
            round_start: round === null ? null : iso(round.startMs),
            round_end: round === null ? null : iso(round.endMs),
            round_length_seconds: Math.floor(view.roundMs / 1000),
            countdown_seconds: round === null ? null : Math.max(0, Math.ceil((round.endMs - nowMs) / 1000)),
            entries: board.length,
            leaderboard: board.slice(0, leaderboardMax),
            last_round:
              last === null
                ? null
                : {
                    round: last.round,
                    round_start: iso(last.startMs),
                    round_end: iso(last.endMs),
                    ended_at: iso(last.endedMs),
                    results: last.results.slice(0, leaderboardMax).map((row) => ({
                      rank: row.rank,
                      entry_id: String(row.entryId),
                      user_id: String(row.userId),
                      score_pct: formatScore(row.scoreE6),
                      end_prices: row.endPricesE8.map(formatPriceE8),
                    })),
                  },
            ...(principal === null ? {} : { my_entry: board.find((row) => row.user_id === String(principal.userId)) ?? null }),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/universe/movers/tournament/enter',
      name: 'enter_movers_tournament',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['MOVERS_SYMBOL_COUNT', 'MOVERS_DUPLICATE_SYMBOL', 'MOVERS_UNKNOWN_SYMBOL', 'MOVERS_SYMBOL_UNPRICED', 'MOVERS_ALREADY_ENTERED', 'MOVERS_ROUND_CLOSED', 'MOVERS_NOT_CONFIGURED'],
      body: enterBody,
      response: enterResponse,
      summary:
        `Enter the current round with symbols: 1 to ${entrySymbolsMax} distinct oracle symbols, each priced now; once per round. ` +
        'Score at the round end: the mean percentage change of the symbols from their entry prices; ties by entry time. 422 names the symbol and the reason',
      handler: (request): Later => {
        const symbols = checkSymbols(request.body.symbols);
        const body: EnterMovers = { userId: request.principal!.userId, symbols };
        return enqueue(context, request, domainCommand(MoversCommandType.enter, body), (outcome) => {
          if (outcome.result !== Result.ok) {
            const status = outcome.result === MoversResult.alreadyEntered || outcome.result === MoversResult.roundClosed || outcome.result === MoversResult.notConfigured ? 409 : 422;
            throw new ApiError(status, resultCode(outcome.result), resultMessage(outcome.result));
          }
          let entered: MoversEntered | null = null;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.domain && event.type === MoversEventType.entered) entered = structuredClone(event.body as MoversEntered);
          });
          if (entered === null) throw new Error('an accepted entry without its MoversEntered event');
          const event: MoversEntered = entered;
          return {
            status: 201,
            body: { entry_id: String(event.entryId), round: event.round, symbols: event.symbols, entry_prices: event.startPricesE8.map(formatPriceE8), entered_at: iso(event.enteredMs) },
          };
        });
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/universe/movers/potential',
      name: 'get_movers_potential',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      query: Type.Object(
        {
          limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `rows, 1 to ${potentialLimitMax} (default ${potentialLimitDefault})` })),
          asset_type: Type.Optional(Type.Union([Type.Literal('crypto'), Type.Literal('stock')])),
        },
        { additionalProperties: false },
      ),
      response: potentialResponse,
      summary:
        'A screen of oracle symbols ranked by score = momentum_7d_pct / max(volatility_30d_pct, 0.01) from the daily closes (highest first; symbols with fewer than 8 closes are left out); ' +
        `limit 1-${potentialLimitMax} (default ${potentialLimitDefault}), asset_type crypto|stock`,
      handler: (request) => {
        const limit = request.query.limit === undefined ? potentialLimitDefault : Number(request.query.limit);
        if (limit < 1 || limit > potentialLimitMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.limit: must be 1 to ${potentialLimitMax}`);
        const prices = view.prices.prices;
        const rows = [];
        for (const symbol of prices.symbols()) {
          const type = assetTypes.get(symbol);
          if (type === undefined || (request.query.asset_type !== undefined && type !== request.query.asset_type)) continue;
          const row = potentialOf(symbol, prices.closes(symbol, closesRead)?.closesE8 ?? []);
          if (row !== null) rows.push(row);
        }
        const ranked = rankPotential(rows);
        return {
          body: {
            as_of: iso(context.clock()),
            ranked: ranked.length,
            symbols: ranked.slice(0, limit).map((row, index) => ({
              rank: index + 1,
              symbol: row.symbol,
              asset_type: assetTypes.get(row.symbol)!,
              price: formatPriceE8(priceE8(row.symbol)),
              momentum_7d_pct: row.momentum7dPct,
              momentum_30d_pct: row.momentum30dPct,
              volatility_30d_pct: row.volatility30dPct,
              score: row.score,
            })),
          },
        };
      },
    }),
  ];
}
