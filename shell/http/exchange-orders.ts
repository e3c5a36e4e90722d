/**
 * Exchange order routes: place, cancel, and list open orders. A placement is converted at the edge
 * (decimal strings or numbers to ticks and lots, exactly), given the next order id, and enqueued on the
 * sequencer; the answer is written when the command is durable, from the command's own events: the order
 * record of the API specification plus its progress and the fills it made.
 */
import {
  CommandKind,
  OrderType,
  effectiveTimeInForce,
  SelfTradePrevention,
  TimeInForce,
  orderTypeNames,
  selfTradePreventionNames,
  timeInForceNames,
  type Command,
  type Mode,
  type OrderRequest,
  type PlaceOrder,
} from '../../engine/core/commands.ts';
import { EventKind, Liquidity, OrderStatus, type EngineEvent } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { formatPrice, formatQuantity, priceToTicks, quantityToLots, type Pair } from '../../engine/core/units.ts';
import { noSlot } from '../../engine/core/order-store.ts';
import { ammFillTxHash } from '../../engine/core/sim-hash.ts';
import { ownedSlot } from '../../engine/core/orders/accounts.ts';
import type { Outcome } from '../../engine/runtime/sequencer.ts';
import { ApiError, engineRefusal, errorBody } from './errors.ts';
import { fillJson, groupJson, orderJson } from './order-json.ts';
import { later, type Later, type Reply, type RequestContext, type Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { clobVenueName, type VenueDirectory } from '../market/venue-directory.ts';
import { ReadModelsBusyError } from '../read-models/read-models.ts';
import { ensurePaperAccount } from './paper.ts';
import { pairOf } from './exchange-public.ts';
import { Type } from '@sinclair/typebox';
import { clientOrderIdField, clientOrderIdPattern, closed, decimalString, errorSchema, id, objectUnion, placedOrderSchema } from './schemas.ts';

const tags = ['Exchange'];

/** What a placement may be refused with: the edge's conversions and the engine's checks. */
export const placementErrors = [
  'PAIR_NOT_FOUND',
  ...[
    Result.invalidNumber,
    Result.negativeValue,
    Result.zeroValue,
    Result.offTick,
    Result.offLot,
    Result.tooManyDecimals,
    Result.valueTooLarge,
    Result.notionalTooLarge,
    Result.priceOutOfRange,
    Result.quantityOutOfRange,
    Result.priceRequired,
    Result.stopPriceRequired,
    Result.invalidOrderOptions,
    Result.invalidClientOrderId,
    Result.insufficientBalance,
    Result.balanceLimit,
    Result.postOnlyWouldTake,
    Result.duplicateClientOrderId,
    Result.tooManyOpenOrders,
    Result.bookFull,
    Result.tooManyStopOrders,
    Result.tooManyPriceLevels,
    Result.tooManyAccounts,
  ].map(resultCode),
];

const cancelledSchema = closed({
  order_id: id(),
  client_order_id: clientOrderIdField,
  status: Type.Literal('cancelled'),
  remaining_quantity: decimalString('the quantity that was still open'),
});

const cancelledAllSchema = closed({ cancelled_order_ids: Type.Array(id()), count: Type.Integer({ minimum: 0 }) });

const amendedSchema = objectUnion([
  closed({
    order_id: id(),
    client_order_id: clientOrderIdField,
    price: decimalString('the price it rests at now'),
    quantity: decimalString('its quantity now'),
    remaining_quantity: decimalString('what is still open'),
    priority_kept: Type.Boolean({ description: 'true when only the quantity shrank' }),
    filled_now: decimalString('what the amendment filled at once (a new price that crossed)'),
  }),
  closed({
    order_id: id(),
    client_order_id: clientOrderIdField,
    unchanged: Type.Literal(true, { description: 'the amendment asked for what the order already was' }),
    filled_now: decimalString(),
  }),
]);

export const decimal = { oneOf: [{ type: 'string', minLength: 1, maxLength: 40 }, { type: 'number' }] };

const orderBody = {
  type: 'object',
  additionalProperties: false,
  required: ['side', 'order_type', 'quantity'],
  properties: {
    side: { enum: ['buy', 'sell'] },
    order_type: { enum: ['limit', 'market', 'stop_limit', 'stop_market', 'ioc'] },
    quantity: decimal,
    price: decimal,
    stop_price: decimal,
    mode: { enum: ['live', 'paper'] },
    paper: { type: 'boolean' },
    is_paper: { type: 'boolean' },
    time_in_force: { enum: ['GTC', 'IOC', 'FOK', 'gtc', 'ioc', 'fok'] },
    post_only: { type: 'boolean' },
    client_order_id: { type: 'string', pattern: clientOrderIdPattern },
    stp: { enum: ['cancel_taker', 'cancel_maker', 'cancel_both', 'none'] },
    symbol: { type: 'string', maxLength: 32 },
    pair: { type: 'string', maxLength: 32 },
  },
};

interface OrderBody {
  side: 'buy' | 'sell';
  order_type: 'limit' | 'market' | 'stop_limit' | 'stop_market' | 'ioc';
  quantity: unknown;
  price?: unknown;
  stop_price?: unknown;
  mode?: 'live' | 'paper';
  paper?: boolean;
  is_paper?: boolean;
  time_in_force?: string;
  post_only?: boolean;
  client_order_id?: string;
  stp?: (typeof selfTradePreventionNames)[number];
}

export function refuse(field: string, code: ResultCode): never {
  throw new ApiError(422, resultCode(code), `${field}: ${resultMessage(code)}`);
}

/** A price field in ticks; refuses when it is missing (`missing`) or not a valid price of the pair. */
export function ticksOf(field: string, value: unknown, pair: Pair, missing: ResultCode): number {
  if (value === undefined) refuse(field, missing);
  const price = priceToTicks(value, pair);
  if (price.code !== Result.ok) refuse(field, price.code);
  return price.value;
}

/** Turns a validated body into a PlaceOrder for `pair` (order id and stamps filled in later). */
export function orderCommand(pair: Pair, userId: number, body: OrderBody): PlaceOrder {
  const quantity = quantityToLots(body.quantity, pair);
  if (quantity.code !== Result.ok) refuse('quantity', quantity.code);
  const kind = body.order_type === 'ioc' ? 'limit' : body.order_type;
  const orderType = orderTypeNames.indexOf(kind) as OrderType;
  const needsPrice = orderType === OrderType.limit || orderType === OrderType.stopLimit;
  const needsStop = orderType === OrderType.stopLimit || orderType === OrderType.stopMarket;
  const priceTicks = needsPrice ? ticksOf('price', body.price, pair, Result.priceRequired) : 0;
  const stopPriceTicks = needsStop ? ticksOf('stop_price', body.stop_price, pair, Result.stopPriceRequired) : 0;
  const tif = body.order_type === 'ioc' ? 'IOC' : (body.time_in_force ?? 'GTC').toUpperCase();
  const paper = body.mode === 'paper' || body.paper === true || body.is_paper === true;
  return {
    kind: CommandKind.placeOrder,
    seq: 0,
    ts: 0,
    orderId: 0,
    userId,
    mode: (paper ? 1 : 0) as Mode,
    pairId: pair.id,
    side: body.side === 'buy' ? 0 : 1,
    orderType,
    // As the engine will run it (market kinds immediate-or-cancel), so that the record says what happens.
    timeInForce: effectiveTimeInForce(orderType, timeInForceNames.indexOf(tif as (typeof timeInForceNames)[number]) as TimeInForce),
    priceTicks,
    stopPriceTicks,
    quantityLots: quantity.value,
    postOnly: body.post_only === true,
    selfTradePrevention: (body.stp === undefined ? SelfTradePrevention.cancelTaker : selfTradePreventionNames.indexOf(body.stp)) as SelfTradePrevention,
    clientOrderId: body.client_order_id ?? '',
  };
}

/**
 * Reads what one command did to one order off the command's events: its status, what it filled and the
 * fills as JSON. One instance, reused: the sequencer's callbacks run one at a time.
 */
class OrderProgress {
  orderId = 0;
  pair: Pair | null = null;
  venues: VenueDirectory | null = null;
  status: number = OrderStatus.open;
  filledLots = 0;
  notionalAtoms = 0;
  fills = '';
  /** The first settlement hash among the fills, or null. */
  simTxHash: string | null = null;
  /** The order's parent (a TWAP or a scale order), as its OrderAccepted says. */
  groupKind = 0;
  groupId = 0;
  readonly visit = (event: EngineEvent): void => this.apply(event);

  read(pair: Pair, orderId: number, outcome: Outcome, venues: VenueDirectory): void {
    this.orderId = orderId;
    this.pair = pair;
    this.venues = venues;
    this.status = OrderStatus.open;
    this.filledLots = 0;
    this.notionalAtoms = 0;
    this.fills = '';
    this.simTxHash = null;
    this.groupKind = 0;
    this.groupId = 0;
    outcome.forEachEvent(this.visit);
  }

  private addFill(fill: string, quantityLots: number, notionalAtoms: number): void {
    this.filledLots += quantityLots;
    this.notionalAtoms += notionalAtoms;
    this.fills = this.fills === '' ? fill : `${this.fills},${fill}`;
  }

  private apply(event: EngineEvent): void {
    switch (event.kind) {
      case EventKind.orderAccepted:
        if (event.orderId === this.orderId) {
          this.status = event.status;
          this.groupKind = event.groupKind;
          this.groupId = event.groupId;
        }
        break;
      case EventKind.stopTriggered:
        if (event.orderId === this.orderId) this.status = OrderStatus.open;
        break;
      case EventKind.tradeExecuted: {
        const taker = event.takerOrderId === this.orderId;
        if (!taker && event.makerOrderId !== this.orderId) break;
        const fee = taker ? event.takerFeeAtoms : event.makerFeeAtoms;
        this.addFill(fillJson(this.pair!, event.tradeId, event.priceTicks, event.quantityLots, fee, taker, clobVenueName, null, null), event.quantityLots, event.notionalAtoms);
        break;
      }
      case EventKind.ammFill: {
        if (event.orderId !== this.orderId) break;
        const venues = this.venues!;
        const txHash = ammFillTxHash(event);
        this.simTxHash ??= txHash;
        const fill = fillJson(
          this.pair!,
          event.tradeId,
          event.priceTicks,
          event.quantityLots,
          event.feeAtoms,
          event.liquidity === Liquidity.taker,
          venues.name(event.venueId),
          venues.chainName(event.chainId),
          txHash,
        );
        this.addFill(fill, event.quantityLots, event.notionalAtoms);
        break;
      }
      case EventKind.orderCancelled:
        if (event.orderId === this.orderId) this.status = OrderStatus.cancelled;
        break;
      case EventKind.orderExpired:
        if (event.orderId === this.orderId) this.status = OrderStatus.expired;
        break;
      default:
        break;
    }
  }
}

const progress = new OrderProgress();

/** The order record, as JSON, built from the events of the command that placed it. */
export function orderRecordJson(pair: Pair, command: OrderRequest, outcome: Outcome, venues: VenueDirectory): string {
  progress.read(pair, command.orderId, outcome, venues);
  let status = progress.status;
  if (status === OrderStatus.open && progress.filledLots > 0) {
    status = progress.filledLots === command.quantityLots ? OrderStatus.filled : OrderStatus.partiallyFilled;
  }
  const simTxHash = progress.simTxHash === null ? 'null' : JSON.stringify(progress.simTxHash);
  return orderJson(pair, command, status, progress.filledLots, progress.notionalAtoms, outcome.ts, `${groupJson(progress.groupKind, progress.groupId)},"sim_tx_hash":${simTxHash},"fills":[${progress.fills}]`);
}

/**
 * Runs a command and answers `request` from the sequencer's callback once it is durable, with the reply
 * `build` makes there (the outcome is only valid during the callback).
 */
export function enqueue(context: ShellContext, request: RequestContext, command: Command, build: (outcome: Outcome) => Reply): Later {
  // Commands whose events the read models could not take in yet wait outside, not in an unbounded queue.
  if (context.readModels.busy) throw new ReadModelsBusyError(`${context.readModels.lagCommands} commands to write`);
  context.durable.enqueue(command, (outcome) => {
    if (outcome.error !== null) return request.fail(outcome.error);
    let reply: Reply;
    try {
      reply = build(outcome);
    } catch (error) {
      return request.fail(error);
    }
    request.reply(reply);
  });
  return later;
}

export const modeQuery = { type: 'object', additionalProperties: false, properties: { mode: { enum: ['live', 'paper'] } } };

const clientOrderIdRule = new RegExp(clientOrderIdPattern);

export function modeOf(query: Readonly<Record<string, string>>): Mode {
  return query['mode'] === 'paper' ? 1 : 0;
}

export function exchangeOrderRoutes(context: ShellContext): Route[] {
  const engine = context.durable.engine;
  const place = (request: RequestContext, pair: Pair, body: OrderBody): Later => {
    const command = orderCommand(pair, request.principal!.userId, body);
    if (command.mode === 1) ensurePaperAccount(context, command.userId);
    // Ids are minted here, just before the command is sequenced: the engine requires them to increase.
    command.orderId = engine.lastOrderId + 1;
    return enqueue(context, request, command, (outcome) => {
      if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
      return { status: 201, json: orderRecordJson(pair, command, outcome, context.venues) };
    });
  };
  /**
   * Cancels the order in `slot` when it is the caller's and on `pair` (else 404). The command names the
   * order by id even when the client named it by client order id: the id cannot come to mean another
   * order between this check and the command's turn.
   */
  const cancel = (request: RequestContext, pair: Pair, slot: number): Later => {
    const mode = modeOf(request.query);
    const userId = request.principal!.userId;
    if (slot === noSlot || engine.contexts[engine.orders.context(slot)]!.pair !== pair) {
      throw new ApiError(404, 'ORDER_NOT_FOUND', 'no such open order');
    }
    const orderId = engine.orders.orderId(slot);
    const clientOrderId = engine.orders.clientOrderId[slot]!;
    const command: Command = { kind: CommandKind.cancelOrder, seq: 0, ts: 0, userId, mode, orderId, clientOrderId: '' };
    return enqueue(context, request, command, (outcome) => {
      if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
      let remainingLots = 0;
      outcome.forEachEvent((event) => {
        if (event.kind === EventKind.orderCancelled && event.orderId === orderId) remainingLots = event.remainingLots;
      });
      return {
        body: {
          order_id: String(orderId),
          client_order_id: clientOrderId === '' ? null : clientOrderId,
          status: 'cancelled',
          remaining_quantity: formatQuantity(remainingLots, pair),
        },
      };
    });
  };
  /** Cancels every open order of the caller in one command: on one pair, or on all of them when `pairId` is 0. */
  const cancelAll = (request: RequestContext, pairId: number): Later => {
    const command: Command = { kind: CommandKind.cancelAll, seq: 0, ts: 0, userId: request.principal!.userId, mode: modeOf(request.query), pairId };
    return enqueue(context, request, command, (outcome) => {
      if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
      const cancelled: string[] = [];
      outcome.forEachEvent((event) => {
        if (event.kind === EventKind.orderCancelled) cancelled.push(String(event.orderId));
      });
      return { body: { cancelled_order_ids: cancelled, count: cancelled.length } };
    });
  };
  return [
    {
      method: 'POST',
      name: 'tp_clob_place_order',
      path: '/api/v1/exchange/{symbol}/orders',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      status: 201,
      errors: placementErrors,
      summary: 'Place an order (limit, market, ioc, stop_limit, stop_market; GTC/IOC/FOK, post_only, client_order_id, stp; live or paper)',
      body: orderBody,
      response: placedOrderSchema,
      handler: (request) => place(request, pairOf(context, request.params['symbol']), request.body as OrderBody),
    },
    {
      method: 'POST',
      name: 'tp_clob_submit_order',
      path: '/api/v1/clob/orders',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      status: 201,
      errors: placementErrors,
      summary: 'Place an order naming the market in the body: pair (BASE/QUOTE) or symbol; otherwise as /exchange/{symbol}/orders',
      body: orderBody,
      response: placedOrderSchema,
      handler: (request) => {
        const body = request.body as OrderBody & { pair?: string; symbol?: string };
        const named = body.pair ?? body.symbol;
        if (named === undefined) throw new ApiError(422, 'VALIDATION_FAILED', 'body.pair: pair (BASE/QUOTE) or symbol is required');
        return place(request, pairOf(context, named), body);
      },
    },
    {
      method: 'DELETE',
      name: 'tp_clob_cancel_order',
      path: '/api/v1/exchange/{symbol}/orders/{order_id}',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      errors: ['PAIR_NOT_FOUND', 'ORDER_NOT_FOUND'],
      summary: 'Cancel an open order (404 for an order that is not yours or not open)',
      query: modeQuery,
      response: cancelledSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const orderId = Number(request.params['order_id']);
        return cancel(request, pair, Number.isSafeInteger(orderId) && orderId > 0 ? engine.slotOf(orderId) : noSlot);
      },
    },
    {
      method: 'DELETE',
      name: 'tp_clob_cancel_order_by_client_id',
      path: '/api/v1/exchange/{symbol}/orders/by-client-id/{client_order_id}',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      errors: ['PAIR_NOT_FOUND', 'ORDER_NOT_FOUND'],
      summary: "Cancel the caller's open order on this pair that has this client_order_id (404 when none is open)",
      query: modeQuery,
      response: cancelledSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const clientOrderId = request.params['client_order_id'] ?? '';
        const slot = clientOrderIdRule.test(clientOrderId) ? ownedSlot(engine, request.principal!.userId, modeOf(request.query), 0, clientOrderId) : noSlot;
        return cancel(request, pair, slot);
      },
    },
    {
      method: 'POST',
      name: 'tp_clob_place_batch',
      path: '/api/v1/exchange/{symbol}/orders/batch',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      weight: (body) => ((body as { orders?: unknown[] } | undefined)?.orders?.length ?? 1),
      tags,
      errors: placementErrors,
      summary: 'Place up to 10 orders in one command; each gets its own result, one bad order does not sink the others',
      response: closed({
        results: Type.Array(Type.Union([placedOrderSchema, errorSchema]), { description: 'one per order, in order: its order record, or the error that refused it' }),
      }),
      body: { type: 'object', additionalProperties: false, required: ['orders'], properties: { orders: { type: 'array', minItems: 1, maxItems: 10, items: orderBody } } },
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const userId = request.principal!.userId;
        // Items that fail conversion at the edge are answered with their error and never reach the engine.
        const items = (request.body as { orders: OrderBody[] }).orders.map((body) => {
          try {
            return { command: orderCommand(pair, userId, body), error: null };
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            return { command: null, error };
          }
        });
        const orders: OrderRequest[] = [];
        if (items.some((item) => item.command?.mode === 1)) ensurePaperAccount(context, userId);
        for (const item of items) {
          if (item.command === null) continue;
          item.command.orderId = engine.lastOrderId + 1 + orders.length;
          orders.push(item.command);
        }
        const errorOf = (error: ApiError): string => errorBody(error.code, error.message);
        if (orders.length === 0) return { status: 200, json: `{"results":[${items.map((item) => errorOf(item.error!)).join(',')}]}` };
        const command: Command = { kind: CommandKind.placeBatch, seq: 0, ts: 0, orders };
        return enqueue(context, request, command, (outcome) => {
          if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
          let next = 0;
          const results = items.map((item) => {
            if (item.command === null) return errorOf(item.error!);
            const result = outcome.batchResults[next++]!;
            return result === Result.ok ? orderRecordJson(pair, item.command, outcome, context.venues) : errorOf(engineRefusal(result));
          });
          return { json: `{"results":[${results.join(',')}]}` };
        });
      },
    },
    {
      method: 'DELETE',
      name: 'tp_clob_cancel_batch',
      path: '/api/v1/exchange/{symbol}/orders/batch',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      weight: (body) => ((body as { order_ids?: unknown[] } | undefined)?.order_ids?.length ?? 1),
      tags,
      errors: [],
      summary: 'Cancel up to 100 orders by id; a result per id',
      query: modeQuery,
      response: closed({
        results: Type.Array(
          Type.Union([
            closed({ order_id: id(), status: Type.Literal('cancelled') }),
            closed({ order_id: id(), error: errorSchema.properties.error }),
          ]),
          { description: 'one per id, in order: cancelled, or the error (ORDER_NOT_FOUND for an order that is not yours or not open)' },
        ),
      }),
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['order_ids'],
        properties: { order_ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', pattern: '^[0-9]{1,15}$' } } },
      },
      handler: (request) => {
        const orderIds = (request.body as { order_ids: string[] }).order_ids.map(Number);
        const command: Command = { kind: CommandKind.cancelBatch, seq: 0, ts: 0, userId: request.principal!.userId, mode: modeOf(request.query), orderIds };
        return enqueue(context, request, command, (outcome) => {
          if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
          const results = orderIds.map((orderId, index) => {
            const result = outcome.batchResults[index]!;
            return result === Result.ok ? { order_id: String(orderId), status: 'cancelled' } : { order_id: String(orderId), error: { code: resultCode(result), message: resultMessage(result) } };
          });
          return { body: { results } };
        });
      },
    },
    {
      method: 'DELETE',
      name: 'tp_clob_cancel_all_orders',
      path: '/api/v1/exchange/{symbol}/orders',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      errors: ['PAIR_NOT_FOUND'],
      summary: "Cancel all of the caller's open orders on this pair (resting and untriggered stops)",
      query: modeQuery,
      response: cancelledAllSchema,
      handler: (request) => cancelAll(request, pairOf(context, request.params['symbol']).id),
    },
    {
      method: 'DELETE',
      name: 'tp_clob_cancel_all_pairs',
      path: '/api/v1/exchange/orders',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      errors: [],
      summary: "Cancel all of the caller's open orders on every pair in one command (resting and untriggered stops), live or paper",
      query: modeQuery,
      response: cancelledAllSchema,
      handler: (request) => cancelAll(request, 0),
    },
    {
      method: 'PATCH',
      name: 'tp_clob_amend_order',
      path: '/api/v1/exchange/{symbol}/orders/{order_id}',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags,
      errors: [
        'PAIR_NOT_FOUND',
        'ORDER_NOT_FOUND',
        ...[
          Result.orderNotAmendable,
          Result.offTick,
          Result.offLot,
          Result.priceOutOfRange,
          Result.quantityOutOfRange,
          Result.insufficientBalance,
          Result.postOnlyWouldTake,
        ].map(resultCode),
      ],
      summary: 'Amend a resting limit order: a smaller quantity keeps its priority; a new price or a larger quantity loses it',
      query: modeQuery,
      response: amendedSchema,
      body: { type: 'object', additionalProperties: false, minProperties: 1, properties: { price: decimal, quantity: decimal } },
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const orderId = Number(request.params['order_id']);
        const body = request.body as { price?: unknown; quantity?: unknown };
        const priceTicks = body.price === undefined ? 0 : ticksOf('price', body.price, pair, Result.priceRequired);
        let quantityLots = 0;
        if (body.quantity !== undefined) {
          const quantity = quantityToLots(body.quantity, pair);
          if (quantity.code !== Result.ok) refuse('quantity', quantity.code);
          quantityLots = quantity.value;
        }
        const slot = Number.isSafeInteger(orderId) && orderId > 0 ? engine.slotOf(orderId) : noSlot;
        if (slot === noSlot || engine.contexts[engine.orders.context(slot)]!.pair !== pair) throw new ApiError(404, 'ORDER_NOT_FOUND', 'no such open order');
        const clientOrderId = engine.orders.clientOrderId[slot] === '' ? null : engine.orders.clientOrderId[slot]!;
        const command: Command = { kind: CommandKind.amendOrder, seq: 0, ts: 0, userId: request.principal!.userId, mode: modeOf(request.query), orderId, priceTicks, quantityLots };
        return enqueue(context, request, command, (outcome) => {
          if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
          let amended: Record<string, unknown> = { order_id: String(orderId), client_order_id: clientOrderId, unchanged: true };
          let remainingLots = -1;
          let filledLots = 0;
          let ended = false;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.orderAmended && event.orderId === orderId) {
              amended = {
                order_id: String(orderId),
                client_order_id: clientOrderId,
                price: formatPrice(event.priceTicks, pair),
                quantity: formatQuantity(event.quantityLots, pair),
                remaining_quantity: '', // set below, once the fills of the re-run are counted
                priority_kept: event.priorityKept,
              };
              remainingLots = event.remainingLots;
            }
            // What the re-run took at once: our resting orders' and the outside venues' liquidity alike.
            if (event.kind === EventKind.tradeExecuted && event.takerOrderId === orderId) filledLots += event.quantityLots;
            if (event.kind === EventKind.ammFill && event.orderId === orderId) filledLots += event.quantityLots;
            // A re-run can also end it (self-trade prevention cancels it): then nothing is left open.
            if ((event.kind === EventKind.orderCancelled || event.kind === EventKind.orderExpired) && event.orderId === orderId) ended = true;
          });
          if (remainingLots >= 0) amended['remaining_quantity'] = formatQuantity(ended ? 0 : remainingLots - filledLots, pair);
          return { body: { ...amended, filled_now: formatQuantity(filledLots, pair) } };
        });
      },
    },
  ];
}
