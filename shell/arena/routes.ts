/**
 * The arena routes of the API specification's "Arena" table. Reads need no credentials and come from the durable arena
 * view; writes (orders, cancels, the seed) need a caller with the trade permission and answer once their
 * command is durable, from the command's own events.
 *
 *   GET    /api/v1/arena/market                 teams, NAVs, the epoch, the scoreboard
 *   GET    /api/v1/arena/teams                  each team's portfolio
 *   GET    /api/v1/arena/orderbook/{team}       a team's share book (BLUE or RED, any case)
 *   GET    /api/v1/arena/epoch/current          the running epoch and its countdown
 *   GET    /api/v1/arena/epoch/{n}              a resolved epoch's result
 *   GET    /api/v1/arena/history                resolved epochs, newest first, paged
 *   GET    /api/v1/arena/headlines              headlines, newest first
 *   POST   /api/v1/arena/order                  a limit order {team, side, size | quantity, price}
 *   DELETE /api/v1/arena/order/{id}             cancel one of your resting orders
 *   GET    /api/v1/arena/positions              your positions and open orders
 *   POST   /api/v1/arena/seed                   create the arena market (idempotent)
 */
import { Type } from '@sinclair/typebox';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { newConversion, toSteps, type Step } from '../../engine/core/units.ts';
import {
  ArenaCommandType,
  ArenaEventType,
  ArenaResult,
  arenaTakerFeeBps,
  changeBps,
  orderLotsMax,
  priceTicksMax,
  teamCount,
  type ArenaOrderAccepted,
  type ArenaOrderCancelled,
  type ArenaOrderRested,
  type ArenaTrade,
  type PlaceArenaOrder,
} from '../../engine/domains/arena/commands.ts';
import { houseUserId } from '../../engine/domains/arena/arena.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { enqueue } from '../http/exchange-orders.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import {
  bookRecord,
  epochRecord,
  formatBps,
  formatLots,
  formatPriceTicks,
  formatUsdc,
  headlineRecord,
  iso,
  leader,
  portfolioRecord,
  priceStep,
  resultRecord,
  sizeStep,
  teamName,
  teamNavs,
  teamOf,
} from './records.ts';
import type { ArenaView } from './view.ts';
import { arenaBookSchema, arenaMarketSchema, cancelledArenaOrderSchema, epochResultSchema, epochSchema, headlinesSchema, historySchema, placedArenaOrderSchema, positionsSchema, seededSchema, teamsSchema } from './schemas.ts';

/** Levels per side one book request may ask for, epochs per history page, headlines per request. */
export const bookDepthMax = 500;
export const bookDepthDefault = 50;
export const historyLimitMax = 100;
export const historyLimitDefault = 20;
export const headlinesLimitDefault = 20;

export interface ArenaRoutesOptions {
  readonly context: ShellContext;
  readonly view: ArenaView;
  /** Seeds the arena unless it exists; true when this call created it. */
  readonly seed: () => Promise<boolean>;
}

const tags = ['Arena'];
const integerText = (digits: number) => Type.String({ pattern: `^[0-9]{1,${digits}}$` });
const decimal = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()]);

/** HTTP status of an arena refusal. */
function statusOf(result: ResultCode): number {
  switch (result) {
    case ArenaResult.orderNotFound:
      return 404;
    case ArenaResult.arenaNotSeeded:
      return 409;
    case ArenaResult.tooManyOrders:
    case ArenaResult.tooManyParticipants:
    case ArenaResult.tooManyLevels:
      return 429;
    default:
      return 422;
  }
}

function refusal(result: ResultCode): ApiError {
  return new ApiError(statusOf(result), resultCode(result), resultMessage(result));
}

/** A decimal field on a grid: `field` is named in the 422 with the rule it broke. */
function stepsOf(field: string, value: unknown, step: Step, max: number, rule: string): number {
  const conversion = toSteps(value, step, false, Result.invalidNumber, newConversion());
  if (conversion.code !== Result.ok || conversion.value > max) throw new ApiError(422, 'VALIDATION_FAILED', `${field}: ${rule}`);
  return conversion.value;
}

export function arenaRoutes(options: ArenaRoutesOptions): Route[] {
  const { context, view } = options;
  const seeded = (): void => {
    if (!view.seeded) throw new ApiError(404, 'ARENA_NOT_SEEDED', 'the arena market does not exist yet; POST /api/v1/arena/seed creates it');
  };
  const market = () => ({
    market_id: 'arena',
    status: 'running',
    nav_base: formatUsdc(view.config!.navBaseAtoms),
    epoch: epochRecord(view, context.clock()),
    teams: Array.from({ length: teamCount }, (_, team) => {
      const book = bookRecord(view, team, 1);
      return { ...teamNavs(view)[team]!, best_bid: book.best_bid, best_ask: book.best_ask };
    }),
    leader: leader(view),
    scoreboard: { BLUE: view.wins[0], RED: view.wins[1], ties: view.ties },
    bonus_pool: formatUsdc(view.poolAtoms),
    taker_fee_bps: arenaTakerFeeBps,
    tick_size: '0.01',
    lot_size: '0.001',
    house: { spread_bps: view.config!.mmSpreadBps, size: formatLots(view.config!.mmSizeLots), inventory_max: formatLots(view.config!.mmInventoryMaxLots) },
  });
  const ownOrders = (userId: number) =>
    [...view.orders.values()]
      .filter((order) => order.userId === userId)
      .map((order) => ({
        order_id: String(order.orderId),
        team: teamName(order.team),
        side: order.side === 0 ? 'buy' : 'sell',
        price: formatPriceTicks(order.priceTicks),
        remaining_size: formatLots(order.remainingLots),
      }));

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/market',
      name: 'get_arena_state',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['ARENA_NOT_SEEDED'],
      response: arenaMarketSchema,
      summary: 'The arena: both teams with NAV per share and return this epoch, best bid and ask, the running epoch and its countdown, the leader, the scoreboard of wins and the bonus pool',
      handler: () => {
        seeded();
        return { body: market() };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/teams',
      name: 'get_arena_teams',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['ARENA_NOT_SEEDED'],
      response: teamsSchema,
      summary: 'Each team with its NAV and its portfolio: assets, weights, prices at the epoch start and now, and their change',
      handler: () => {
        seeded();
        return {
          body: {
            teams: Array.from({ length: teamCount }, (_, team) => ({ ...teamNavs(view)[team]!, nav_base: formatUsdc(view.config!.navBaseAtoms), portfolio: portfolioRecord(view, team) })),
            updated_at: iso(view.updatedMs),
          },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/orderbook/{team}',
      name: 'get_arena_orderbook',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['TEAM_NOT_FOUND', 'ARENA_NOT_SEEDED'],
      query: Type.Object({ depth: Type.Optional(integerText(3)) }, { additionalProperties: false }),
      response: arenaBookSchema,
      summary: `A team's share book (team BLUE or RED, any case): bids and asks best first with price (USDC), quantity (shares) and orders, up to depth levels a side (1-${bookDepthMax}, default ${bookDepthDefault})`,
      handler: (request) => {
        const team = teamOf(request.params['team']);
        if (team < 0) throw new ApiError(404, 'TEAM_NOT_FOUND', `no team ${JSON.stringify(request.params['team'])}; teams are BLUE and RED`);
        const depth = request.query.depth === undefined ? bookDepthDefault : Number(request.query.depth);
        if (depth < 1 || depth > bookDepthMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.depth: must be 1 to ${bookDepthMax}`);
        seeded();
        return { body: { ...bookRecord(view, team, depth), timestamp: iso(context.clock()) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/epoch/current',
      name: 'get_arena_epoch',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['ARENA_NOT_SEEDED'],
      response: epochSchema,
      summary: 'The running epoch: number, start and end, seconds left, each team\'s live NAV and return, the leader',
      handler: () => {
        seeded();
        return { body: epochRecord(view, context.clock()) };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/epoch/{n}',
      name: 'get_arena_epoch_result',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['EPOCH_NOT_FOUND', 'ARENA_NOT_SEEDED'],
      response: epochResultSchema,
      summary: 'A resolved epoch: start and end, each team\'s closing NAV and return, the winner (null on a tie) and the bonus paid from the pool',
      handler: (request) => {
        const text = request.params['n'] ?? '';
        if (!/^[0-9]{1,9}$/.test(text)) throw new ApiError(422, 'VALIDATION_FAILED', 'path.n: must be an epoch number');
        seeded();
        const record = view.epochRecord(Number(text));
        if (record === undefined) {
          const why = Number(text) >= view.epoch ? 'is not resolved yet' : 'is unknown (or older than the kept history)';
          throw new ApiError(404, 'EPOCH_NOT_FOUND', `epoch ${text} ${why}`);
        }
        return { body: resultRecord(record, view.config!.navBaseAtoms) };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/history',
      name: 'get_arena_history',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['ARENA_NOT_SEEDED'],
      query: Type.Object({ limit: Type.Optional(integerText(3)), offset: Type.Optional(integerText(6)) }, { additionalProperties: false }),
      response: historySchema,
      summary: `Resolved epochs with their winners, newest first: limit 1-${historyLimitMax} (default ${historyLimitDefault}) from offset; total counts the kept ones`,
      handler: (request) => {
        const limit = request.query.limit === undefined ? historyLimitDefault : Number(request.query.limit);
        const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
        if (limit < 1 || limit > historyLimitMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.limit: must be 1 to ${historyLimitMax}`);
        seeded();
        const total = view.history.length;
        const page = view.history.slice(Math.max(0, total - offset - limit), Math.max(0, total - offset)).reverse();
        return {
          body: {
            epochs: page.map((record) => resultRecord(record, view.config!.navBaseAtoms)),
            total,
            limit,
            offset,
            scoreboard: { BLUE: view.wins[0], RED: view.wins[1], ties: view.ties },
          },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/headlines',
      name: 'get_arena_headlines',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['ARENA_NOT_SEEDED'],
      query: Type.Object({ limit: Type.Optional(integerText(2)) }, { additionalProperties: false }),
      response: headlinesSchema,
      summary: 'Headlines made from the arena\'s state (leader changes, biggest movers, epoch results), newest first, each with its kind and timestamp; limit 1-50, default 20',
      handler: (request) => {
        const limit = request.query.limit === undefined ? headlinesLimitDefault : Number(request.query.limit);
        if (limit < 1 || limit > 50) throw new ApiError(422, 'VALIDATION_FAILED', 'query.limit: must be 1 to 50');
        seeded();
        return { body: { headlines: view.headlines.slice(0, limit).map(headlineRecord) } };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/arena/order',
      name: 'place_arena_order',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['INVALID_ARENA_ORDER', 'INSUFFICIENT_BALANCE', 'INSUFFICIENT_SHARES', 'NOTIONAL_TOO_LARGE', 'ARENA_NOT_SEEDED', 'TOO_MANY_ARENA_ORDERS', 'TOO_MANY_ARENA_PARTICIPANTS', 'TOO_MANY_ARENA_PRICE_LEVELS'],
      body: Type.Object(
        {
          team: Type.String({ minLength: 1, maxLength: 8, description: 'BLUE or RED, any case' }),
          side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
          size: Type.Optional(decimal),
          quantity: Type.Optional(decimal),
          price: decimal,
        },
        { additionalProperties: false },
      ),
      response: placedArenaOrderSchema,
      summary: `A good-till-cancelled limit order on a team's share book: team, side, size in shares (0.001 steps; quantity is an alias) and price in USDC per share (0.01 steps). A buy holds price × size plus the ${arenaTakerFeeBps} bps taker fee cap in USDC; a sell needs unreserved shares. The answer lists the fills it made at once`,
      handler: (request) => {
        const body = request.body;
        const team = teamOf(body.team);
        if (team < 0) throw new ApiError(422, 'VALIDATION_FAILED', 'body.team: must be BLUE or RED');
        if (body.size !== undefined && body.quantity !== undefined && String(body.size) !== String(body.quantity)) {
          throw new ApiError(422, 'VALIDATION_FAILED', 'body.quantity: is an alias of size; give one, or both equal');
        }
        const sizeInput = body.size ?? body.quantity;
        if (sizeInput === undefined) throw new ApiError(422, 'VALIDATION_FAILED', 'body.size: required (or quantity)');
        const sizeLots = stepsOf('body.size', sizeInput, sizeStep, orderLotsMax, `must be a positive number of shares in steps of 0.001, at most ${orderLotsMax / 1000}`);
        const priceTicks = stepsOf('body.price', body.price, priceStep, priceTicksMax, `must be a positive USDC price in steps of 0.01, at most ${priceTicksMax / 100}`);
        const userId = request.principal!.userId;
        const order: PlaceArenaOrder = { userId, team, side: body.side === 'buy' ? 0 : 1, priceTicks, sizeLots };
        return enqueue(context, request, domainCommand(ArenaCommandType.placeArenaOrder, order), (outcome) => {
          if (outcome.result !== Result.ok) throw refusal(outcome.result);
          let accepted: ArenaOrderAccepted | null = null;
          let restedLots = 0;
          let cancelledLots = 0;
          let filledLots = 0;
          let notionalAtoms = 0;
          let feeAtoms = 0;
          const fills: Array<{ price: string; size: string; fee: string; maker: 'house' | 'user' }> = [];
          outcome.forEachEvent((event) => {
            if (event.kind !== EventKind.domain) return;
            if (event.type === ArenaEventType.orderAccepted && accepted === null) accepted = event.body as ArenaOrderAccepted;
            if (accepted === null) return;
            const orderId = (accepted as ArenaOrderAccepted).orderId;
            if (event.type === ArenaEventType.trade) {
              const trade = event.body as ArenaTrade;
              if (trade.takerOrderId !== orderId) return;
              filledLots += trade.lots;
              notionalAtoms += trade.notionalAtoms;
              feeAtoms += trade.feeAtoms;
              fills.push({ price: formatPriceTicks(trade.priceTicks), size: formatLots(trade.lots), fee: formatUsdc(trade.feeAtoms), maker: trade.makerUserId === houseUserId ? 'house' : 'user' });
            } else if (event.type === ArenaEventType.orderRested && (event.body as ArenaOrderRested).orderId === orderId) {
              restedLots = (event.body as ArenaOrderRested).remainingLots;
            } else if (event.type === ArenaEventType.orderCancelled && (event.body as ArenaOrderCancelled).orderId === orderId) {
              cancelledLots = (event.body as ArenaOrderCancelled).remainingLots;
            }
          });
          if (accepted === null) throw new Error('an accepted arena order has no ArenaOrderAccepted event');
          const placed = accepted as ArenaOrderAccepted;
          const status = restedLots > 0 ? (filledLots > 0 ? 'partially_filled' : 'open') : cancelledLots > 0 ? 'cancelled' : 'filled';
          return {
            status: 201,
            body: {
              order_id: String(placed.orderId),
              team: teamName(team),
              side: body.side,
              price: formatPriceTicks(priceTicks),
              size: formatLots(sizeLots),
              filled_size: formatLots(filledLots),
              remaining_size: formatLots(restedLots),
              status,
              average_price: filledLots === 0 ? null : formatAverage(notionalAtoms, filledLots),
              fee: formatUsdc(feeAtoms),
              fills,
              created_at: iso(placed.timestampMs),
            },
          };
        });
      },
    }),
    declareRoute({
      method: 'DELETE',
      path: '/api/v1/arena/order/{id}',
      name: 'cancel_arena_order',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: ['ARENA_ORDER_NOT_FOUND', 'ARENA_NOT_SEEDED'],
      response: cancelledArenaOrderSchema,
      summary: 'Cancels one of your resting arena orders (another user\'s order, or one that is gone, is 404); a buy\'s hold and a sell\'s shares are freed',
      handler: (request) => {
        const text = request.params['id'] ?? '';
        if (!/^[0-9]{1,15}$/.test(text)) throw new ApiError(404, 'ARENA_ORDER_NOT_FOUND', `no resting arena order ${JSON.stringify(text)} of yours`);
        const command = domainCommand(ArenaCommandType.cancelArenaOrder, { userId: request.principal!.userId, orderId: Number(text) });
        return enqueue(context, request, command, (outcome) => {
          if (outcome.result !== Result.ok) throw refusal(outcome.result);
          let cancelled: ArenaOrderCancelled | null = null;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.domain && event.type === ArenaEventType.orderCancelled) cancelled = event.body as ArenaOrderCancelled;
          });
          const body = cancelled as ArenaOrderCancelled | null;
          if (body === null) throw new Error('an accepted arena cancel has no ArenaOrderCancelled event');
          return {
            body: {
              order_id: String(body.orderId),
              team: teamName(body.team),
              side: body.side === 0 ? 'buy' : 'sell',
              price: formatPriceTicks(body.priceTicks),
              cancelled_size: formatLots(body.remainingLots),
              status: 'cancelled',
            },
          };
        });
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/arena/positions',
      name: 'get_arena_positions',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['ARENA_NOT_SEEDED'],
      response: positionsSchema,
      summary: 'Your arena positions, kept across epochs: shares of each team (resting sells included), average cost, value at NAV and unrealized profit, and your resting orders',
      handler: (request) => {
        seeded();
        const userId = request.principal!.userId;
        const positions = [];
        for (let team = 0; team < teamCount; team++) {
          const holding = view.holding(userId, team);
          if (holding.lots === 0) continue;
          const nav = view.navsAtoms[team]!;
          // Value at NAV: shares × NAV, in atoms (lots are thousandths of a share), floored.
          const value = Number((BigInt(holding.lots) * BigInt(nav)) / 1000n);
          positions.push({
            team: teamName(team),
            shares: formatLots(holding.lots),
            average_cost: formatUsdc(Number((BigInt(holding.costAtoms) * 1000n) / BigInt(holding.lots))),
            cost: formatUsdc(holding.costAtoms),
            nav: formatUsdc(nav),
            value: formatUsdc(value),
            unrealized_pnl: formatUsdc(value - holding.costAtoms),
            return_pct: formatBps(changeBps(value, holding.costAtoms)),
          });
        }
        return { body: { epoch: view.epoch, positions, open_orders: ownOrders(userId) } };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/arena/seed',
      name: 'seed_arena',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'general',
      status: 201,
      body: Type.Optional(Type.Object({}, { additionalProperties: false })),
      response: seededSchema,
      summary: 'Creates the arena market from the configured teams (fixtures/arena.json) and settings, once: 201 with the market when this call created it, 200 with the same market when it already exists',
      handler: async () => {
        const created = await options.seed();
        return { status: created ? 201 : 200, body: { created, ...market() } };
      },
    }),
  ];
}

/** The average fill price in USDC, from the notional in atoms over the lots, with 6 decimals (floored). */
function formatAverage(notionalAtoms: number, lots: number): string {
  // notional atoms / shares = notional × 1000 / lots atoms per share.
  return formatUsdc(Number((BigInt(notionalAtoms) * 1000n) / BigInt(lots)));
}
