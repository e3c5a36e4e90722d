/**
 * The perpetual prediction markets' routes (the API specification's "Perpetual prediction markets"):
 *
 *   GET  /api/v1/perpetual/markets                   every market with its current epoch
 *   GET  /api/v1/perpetual/markets/{symbol}/status   one market: epoch, prices, pools, countdown, last resolution
 *   POST /api/v1/perpetual/user/{token}-predict      stake PRED on YES or NO of a market's current epoch
 *   GET  /api/v1/perpetual/user/balance              the caller's collateral and open stakes
 *   GET  /api/v1/perpetual/user/trades               the caller's predictions, newest first
 *
 * The router matches whole segments only, so the predict route is declared as `/user/{action}` and the
 * handler accepts `<collateral slug>-predict` (404 UNKNOWN_COLLATERAL for another token's slug, 404
 * NOT_FOUND for anything else). Reads come from the durable perpetual view; a predict answers once its
 * command is durable, from the command's own PredictionPlaced event.
 */
import { Type } from '@sinclair/typebox';
import { Mode, modeNames, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { SimHashDomain, simTxHash } from '../../engine/core/sim-hash.ts';
import { amountToAtoms, formatAtoms, formatSteps, parseStep, type Asset } from '../../engine/core/units.ts';
import {
  PerpetualCommandType,
  PerpetualEventType,
  PerpetualResult,
  outcomeNames,
  perpetualDomainId,
  sideNames,
  stakeAtomsMax,
  stakeAtomsMin,
  type Predict,
  type PredictionPlaced,
} from '../../engine/domains/perpetual/commands.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { enqueue, modeOf, refuse } from '../http/exchange-orders.ts';
import { ensurePaperAccount, paperStartingAtoms } from '../http/paper.ts';
import { declareRoute, type Later, type Route } from '../http/route-table.ts';
import { formatPriceE8 } from '../prices/records.ts';
import type { TradeRecord } from './history.ts';
import type { MarketView, PerpetualView } from './view.ts';
import { perpetualBalanceSchema, perpetualMarketsSchema, perpetualStatusSchema, perpetualTradesSchema, predictionSchema } from './schemas.ts';

/** Trades one page may hold, and a page's size unless `limit` says. */
export const tradesPageMax = 100;
export const tradesPageDefault = 50;
/** Implied prices are pool shares floored to this step. */
const impliedPriceStep = parseStep('0.000001');
const impliedPriceScale = 1_000_000n;
/**
 * The sim_tx_hash of a paper prediction derives from its prediction id, as a paper fill's from its trade
 * id; the hash domain is a number of the perpetual domain's own range, apart from the core's kinds.
 */
const predictionHashDomain = (perpetualDomainId * 1000 + 1) as SimHashDomain;

const tags = ['Perpetual prediction markets'];
const iso = (ms: number): string => new Date(ms).toISOString();

export interface PerpetualRoutesOptions {
  readonly context: ShellContext;
  readonly view: PerpetualView;
  readonly collateral: Asset;
}

/** The YES and NO prices: each side's share of the pool (0.5 each while the pool is empty). */
export function impliedPrices(yesAtoms: number, noAtoms: number): [string, string] {
  const total = BigInt(yesAtoms) + BigInt(noAtoms);
  if (total === 0n) return [formatSteps(impliedPriceScale / 2n, impliedPriceStep), formatSteps(impliedPriceScale / 2n, impliedPriceStep)];
  const share = (atoms: number): string => formatSteps((BigInt(atoms) * impliedPriceScale) / total, impliedPriceStep);
  return [share(yesAtoms), share(noAtoms)];
}

/** HTTP status of a perpetual refusal: unknown market 404, a market not taking stakes now 409, a full epoch 429. */
function statusOf(result: ResultCode): number {
  switch (result) {
    case PerpetualResult.marketNotFound:
      return 404;
    case PerpetualResult.marketNotOpen:
    case PerpetualResult.epochClosed:
      return 409;
    case PerpetualResult.epochFull:
    case Result.tooManyAccounts:
      return 429;
    default:
      return 422;
  }
}

export function perpetualRoutes(options: PerpetualRoutesOptions): Route[] {
  const { context, view, collateral } = options;
  const slug = collateral.symbol.toLowerCase();
  const atoms = (value: number): string => formatAtoms(value, collateral);

  const marketOf = (symbol: string | undefined): MarketView => {
    const market = view.markets.get((symbol ?? '').toUpperCase());
    if (market === undefined) throw new ApiError(404, 'MARKET_NOT_FOUND', `no perpetual market ${JSON.stringify(symbol ?? '')}`);
    return market;
  };

  const marketJson = (market: MarketView, mode: Mode, nowMs: number): Record<string, unknown> => {
    const epoch = market.epoch;
    const priceE8 = view.prices.prices.priceE8(market.symbol);
    const pool = epoch?.pools[mode];
    const [yesPrice, noPrice] = pool === undefined ? [null, null] : impliedPrices(pool.yesAtoms, pool.noAtoms);
    return {
      symbol: market.symbol,
      collateral: collateral.symbol,
      mode: modeNames[mode],
      epoch: epoch?.epoch ?? null,
      epoch_start: epoch === null ? null : iso(epoch.startMs),
      epoch_end: epoch === null ? null : iso(epoch.endMs),
      start_price: epoch === null ? null : formatPriceE8(epoch.startPriceE8),
      current_price: priceE8 > 0 ? formatPriceE8(priceE8) : null,
      yes_pool: pool === undefined ? null : atoms(pool.yesAtoms),
      no_pool: pool === undefined ? null : atoms(pool.noAtoms),
      yes_price: yesPrice,
      no_price: noPrice,
      house_seed: pool === undefined ? null : atoms(pool.seedAtoms),
      // open: taking predictions; resolving: past its end, resolved by the next timer; waiting: no oracle price yet.
      status: epoch === null ? 'waiting' : nowMs >= epoch.endMs ? 'resolving' : 'open',
    };
  };

  const tradeJson = (trade: TradeRecord): Record<string, unknown> => ({
    prediction_id: String(trade.predictionId),
    market_symbol: trade.symbol,
    side: sideNames[trade.side],
    amount: atoms(trade.stakeAtoms),
    epoch: trade.epoch,
    epoch_end: iso(trade.epochEndMs),
    mode: modeNames[trade.mode],
    outcome: trade.outcome,
    payout: trade.payoutAtoms === null ? null : atoms(trade.payoutAtoms),
    created_at: iso(trade.createdMs),
    resolved_at: trade.resolvedMs === null ? null : iso(trade.resolvedMs),
    ...(trade.mode === Mode.paper ? { sim_tx_hash: simTxHash(predictionHashDomain, trade.predictionId) } : {}),
  });

  const predictBody = Type.Object(
    {
      market_symbol: Type.String({ minLength: 1, maxLength: 12, description: 'the market, e.g. BTC (any case)' }),
      side: Type.String({ pattern: '^([Yy][Ee][Ss]|[Nn][Oo])$', description: 'YES (the price ends above the epoch start) or NO (below)' }),
      amount: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()], { description: `stake in ${collateral.symbol}, 1 to 1000000, at most 6 decimals` }),
      mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')])),
      paper: Type.Optional(Type.Boolean()),
      is_paper: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  );

  const modeField = Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')], { description: 'paper for the paper account (live by default)' }));
  const modeQuery = Type.Object({ mode: modeField }, { additionalProperties: false });
  const tradesQuery = Type.Object(
    {
      mode: modeField,
      limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
      cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'next_cursor of the previous page: trades older than it' })),
    },
    { additionalProperties: false },
  );

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/perpetual/markets',
      name: 'list_perpetual_markets',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      query: modeQuery,
      response: perpetualMarketsSchema,
      summary: 'Every perpetual YES/NO market with its current epoch: times, start and current price, pools and implied prices (?mode=paper for the paper pools)',
      handler: (request) => {
        const mode = modeOf(request.query);
        const nowMs = context.clock();
        return { body: { markets: [...view.markets.values()].map((market) => marketJson(market, mode, nowMs)) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/perpetual/markets/{symbol}/status',
      name: 'get_perpetual_market_status',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['MARKET_NOT_FOUND'],
      query: modeQuery,
      response: perpetualStatusSchema,
      summary: 'One perpetual market: epoch number and times, start and current price, pools, implied prices, countdown_seconds to the epoch end and the last resolution',
      handler: (request) => {
        const market = marketOf(request.params['symbol']);
        const mode = modeOf(request.query);
        const nowMs = context.clock();
        const last = market.lastResolution;
        return {
          body: {
            ...marketJson(market, mode, nowMs),
            epoch_length_seconds: view.epochMs / 1000,
            countdown_seconds: market.epoch === null ? null : Math.max(0, Math.ceil((market.epoch.endMs - nowMs) / 1000)),
            last_resolution:
              last === null
                ? null
                : {
                    epoch: last.epoch,
                    epoch_start: iso(last.startMs),
                    epoch_end: iso(last.endMs),
                    start_price: formatPriceE8(last.startPriceE8),
                    end_price: formatPriceE8(last.endPriceE8),
                    outcome: outcomeNames[last.outcome],
                    yes_pool: atoms(last.yesPoolAtoms[mode]),
                    no_pool: atoms(last.noPoolAtoms[mode]),
                    resolved_at: iso(last.resolvedMs),
                  },
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/perpetual/user/{action}',
      name: 'perpetual_predict',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['NOT_FOUND', 'UNKNOWN_COLLATERAL', 'MARKET_NOT_FOUND', 'PERPETUAL_MARKET_NOT_OPEN', 'PERPETUAL_EPOCH_CLOSED', 'PERPETUAL_EPOCH_FULL', 'INVALID_PERPETUAL_STAKE', 'INSUFFICIENT_BALANCE'],
      body: predictBody,
      response: predictionSchema,
      summary:
        `Predict: POST /api/v1/perpetual/user/${slug}-predict stakes amount ${collateral.symbol} on side YES or NO of market_symbol's current epoch ` +
        '(live, or paper with mode "paper", paper or is_paper true); allowed until the epoch ends. Answers 201 with the prediction, the pools and implied prices after it',
      handler: (request): Later => {
        const action = request.params['action'] ?? '';
        const match = /^([a-z0-9]+)-predict$/i.exec(action);
        if (match === null) throw new ApiError(404, 'NOT_FOUND', `no route for POST ${request.path}`);
        if (match[1]!.toLowerCase() !== slug) throw new ApiError(404, 'UNKNOWN_COLLATERAL', `the collateral of perpetual markets is ${collateral.symbol}: POST /api/v1/perpetual/user/${slug}-predict`);
        const body = request.body;
        const market = marketOf(body.market_symbol);
        const amount = amountToAtoms(body.amount, collateral);
        if (amount.code !== Result.ok) refuse('body.amount', amount.code);
        if (amount.value < stakeAtomsMin || amount.value > stakeAtomsMax) {
          throw new ApiError(422, 'INVALID_PERPETUAL_STAKE', `body.amount: must be ${atoms(stakeAtomsMin)} to ${atoms(stakeAtomsMax)} ${collateral.symbol}`);
        }
        const side = body.side.toUpperCase() === 'YES' ? 0 : 1;
        const mode = body.mode === 'paper' || body.paper === true || body.is_paper === true ? Mode.paper : Mode.live;
        const userId = request.principal!.userId;
        if (mode === Mode.paper) ensurePaperAccount(context, userId);
        const predict: Predict = { userId, mode, symbol: market.symbol, side, amountAtoms: amount.value };
        const command: Command = domainCommand(PerpetualCommandType.predict, predict);
        return enqueue(context, request, command, (outcome) => {
          if (outcome.result !== Result.ok) throw new ApiError(statusOf(outcome.result), resultCode(outcome.result), resultMessage(outcome.result));
          let placed: PredictionPlaced | null = null;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.domain && event.type === PerpetualEventType.predictionPlaced) placed = { ...(event.body as PredictionPlaced) };
          });
          if (placed === null) throw new Error('an accepted prediction without its PredictionPlaced event');
          const event: PredictionPlaced = placed;
          const [yesPrice, noPrice] = impliedPrices(event.yesPoolAtoms, event.noPoolAtoms);
          return {
            status: 201,
            body: {
              prediction_id: String(event.predictionId),
              market_symbol: event.symbol,
              side: sideNames[event.side],
              amount: atoms(event.stakeAtoms),
              epoch: event.epoch,
              mode: modeNames[event.mode],
              yes_pool: atoms(event.yesPoolAtoms),
              no_pool: atoms(event.noPoolAtoms),
              yes_price: yesPrice,
              no_price: noPrice,
              created_at: iso(outcome.ts),
              ...(event.mode === Mode.paper ? { sim_tx_hash: simTxHash(predictionHashDomain, event.predictionId) } : {}),
            },
          };
        });
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/perpetual/user/balance',
      name: 'get_perpetual_balance',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: [],
      query: modeQuery,
      response: perpetualBalanceSchema,
      summary: `The caller's ${collateral.symbol} (available, held: open stakes and open orders) and open stakes, live or paper (?mode=paper)`,
      handler: (request) => {
        const userId = request.principal!.userId;
        const mode = modeOf(request.query);
        // The balance is the ledger's, as GET /api/v1/account/me/balances shows it; an unopened paper account shows what it will open with.
        const ledger = context.durable.engine.ledger;
        const account = ledger.find(userId, mode);
        const available = account === noAccount ? (mode === Mode.paper ? paperStartingAtoms(context, collateral) : 0) : ledger.availableAtoms(account, collateral.index);
        const held = account === noAccount ? 0 : ledger.heldAtoms(account, collateral.index);
        const open = view.openOf(userId, mode);
        return {
          body: {
            collateral: collateral.symbol,
            mode: modeNames[mode],
            available: atoms(available),
            held: atoms(held),
            staked: atoms(open.reduce((sum, trade) => sum + trade.stakeAtoms, 0)),
            open_stakes: open.map(tradeJson),
          },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/perpetual/user/trades',
      name: 'get_perpetual_trades',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: [],
      query: tradesQuery,
      response: perpetualTradesSchema,
      summary: `The caller's predictions, newest first, with outcome (pending, won, lost, refunded) and payout; limit 1-${tradesPageMax} (default ${tradesPageDefault}), cursor from next_cursor; ?mode=paper for paper`,
      handler: (request) => {
        const limit = request.query.limit === undefined ? tradesPageDefault : Number(request.query.limit);
        if (limit < 1 || limit > tradesPageMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.limit: must be 1 to ${tradesPageMax}`);
        const cursor = request.query.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(request.query.cursor);
        // One more than the page tells whether another page follows.
        const trades = view.tradesOf(request.principal!.userId, modeOf(request.query), cursor, limit + 1);
        const more = trades.length > limit;
        const page = trades.slice(0, limit);
        return { body: { trades: page.map(tradeJson), next_cursor: more ? String(page.at(-1)!.predictionId) : null } };
      },
    }),
  ];
}
