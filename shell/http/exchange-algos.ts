/**
 * Exchange algos over HTTP: TWAPs (start, list the active ones, cancel) and scale orders (a ladder of
 * resting limits placed at once). The shell converts decimals at the edge and mints the ids (TWAP ids and
 * scale ids like order ids, from the engine's last one); the engine does the rest. A TWAP's later slices
 * are run by the runtime's timer (engine/runtime/timers.ts) through journaled RunTimers commands.
 *
 * Answers come when the command is durable, built from the command's own events (a TWAP's start and its
 * first slice; a scale's orders), as the order routes do.
 */
import { CommandKind, Mode, OrderType, SelfTradePrevention, TimeInForce, modeNames, sideNames, type Command, type OrderRequest, type Side } from '../../engine/core/commands.ts';
import { EventKind, TwapStatus, twapStatusNames, type EngineEvent } from '../../engine/core/events.ts';
import { scaleOrdersMax, scaleOrdersMin, twapDurationMsMax, twapIntervalMsMax, twapIntervalMsMin, twapSlicesMax } from '../../engine/core/limits.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { formatPrice, formatQuantity, quantityToLots, type Pair } from '../../engine/core/units.ts';
import { twapsOf } from '../../engine/domains/index.ts';
import type { Twap } from '../../engine/domains/exchange-algos/twaps.ts';
import type { Outcome } from '../../engine/runtime/sequencer.ts';
import type { ShellContext } from '../context.ts';
import { ApiError, engineRefusal } from './errors.ts';
import { decimal, enqueue, modeOf, modeQuery, orderRecordJson, refuse, ticksOf } from './exchange-orders.ts';
import { pairOf } from './exchange-public.ts';
import { averagePrice } from './order-json.ts';
import { ensurePaperAccount } from './paper.ts';
import type { Later, RequestContext, Route } from './route-table.ts';
import { Type } from '@sinclair/typebox';
import { closed, decimalString, id, modeField, nullable, oneOf, pairField, placedOrderSchema, sideField, symbolField, timestamp } from './schemas.ts';

const tags = ['Exchange'];

// ---------------------------------------------------------------------------------------------------
// Schemas: what clients send and get back (the OpenAPI document is generated from them).

const modeFields = {
  mode: { enum: ['live', 'paper'], description: 'paper runs on the paper account (same as paper or is_paper true)' },
  paper: { type: 'boolean' },
  is_paper: { type: 'boolean' },
};

const twapBody = {
  type: 'object',
  additionalProperties: false,
  required: ['side', 'quantity', 'duration_seconds', 'interval_seconds'],
  properties: {
    side: { enum: ['buy', 'sell'] },
    quantity: { ...decimal, description: 'total quantity in the base asset, on the lot grid' },
    duration_seconds: { type: 'integer', minimum: 1, maximum: twapDurationMsMax / 1000, description: 'the window; slices = ceil(duration / interval)' },
    interval_seconds: { type: 'integer', minimum: twapIntervalMsMin / 1000, maximum: twapIntervalMsMax / 1000, description: 'time between slices' },
    limit_price: { ...decimal, description: 'limit of every slice; without it slices are market orders' },
    ...modeFields,
  },
};

const twapRecord = closed({
  twap_id: id(),
  symbol: symbolField,
  pair: pairField,
  side: sideField,
  quantity: decimalString('total quantity in the base asset'),
  filled_quantity: decimalString(),
  remaining_quantity: decimalString('quantity minus filled_quantity'),
  average_price: nullable(decimalString('average fill price; null before the first fill')),
  limit_price: nullable(decimalString('limit of every slice; null for market slices')),
  mode: modeField,
  status: oneOf(twapStatusNames),
  slices_total: Type.Integer({ minimum: 1 }),
  slices_done: Type.Integer({ minimum: 0 }),
  slices_refused: Type.Integer({ minimum: 0, description: 'slices after the first that the engine refused (e.g. INSUFFICIENT_BALANCE); they placed no order' }),
  interval_seconds: Type.Integer({ minimum: 1 }),
  duration_seconds: Type.Integer({ minimum: 1 }),
  started_at: timestamp(),
  next_slice_at: nullable(timestamp('null once the TWAP ended')),
  ends_at: timestamp(),
  child_orders: Type.Array(id(), { description: 'ids of the orders its slices placed, oldest first' }),
});

const distributions = ['flat', 'increasing', 'decreasing'] as const;
type Distribution = (typeof distributions)[number];

const scaleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['side', 'quantity', 'price_low', 'price_high', 'count'],
  properties: {
    side: { enum: ['buy', 'sell'] },
    quantity: { ...decimal, description: 'total quantity of all the orders together' },
    price_low: decimal,
    price_high: decimal,
    count: { type: 'integer', minimum: scaleOrdersMin, maximum: scaleOrdersMax },
    distribution: { enum: [...distributions], description: 'flat (equal sizes, the default); increasing or decreasing: sizes in linear weights 1..count from price_low to price_high' },
    post_only: { type: 'boolean', description: 'accepted for symmetry: scale orders never take liquidity' },
    ...modeFields,
  },
};

const scaleAnswer = closed({
  scale_id: id(),
  symbol: symbolField,
  pair: pairField,
  side: sideField,
  quantity: decimalString('total quantity of all the orders'),
  count: Type.Integer({ minimum: scaleOrdersMin, maximum: scaleOrdersMax }),
  distribution: oneOf(distributions),
  mode: modeField,
  orders: Type.Array(placedOrderSchema, { description: 'the ladder from price_low to price_high, as POST /orders answers each order' }),
});

interface TwapBody {
  side: 'buy' | 'sell';
  quantity: unknown;
  duration_seconds: number;
  interval_seconds: number;
  limit_price?: unknown;
  mode?: 'live' | 'paper';
  paper?: boolean;
  is_paper?: boolean;
}

interface ScaleBody {
  side: 'buy' | 'sell';
  quantity: unknown;
  price_low: unknown;
  price_high: unknown;
  count: number;
  distribution?: Distribution;
  post_only?: boolean;
  mode?: 'live' | 'paper';
  paper?: boolean;
  is_paper?: boolean;
}

function modeOfBody(body: { mode?: 'live' | 'paper'; paper?: boolean; is_paper?: boolean }): Mode {
  return body.mode === 'paper' || body.paper === true || body.is_paper === true ? Mode.paper : Mode.live;
}

function invalid(field: string, rule: string): never {
  throw new ApiError(422, 'VALIDATION_FAILED', `body.${field}: ${rule}`);
}

// ---------------------------------------------------------------------------------------------------
// TWAP records.

/** What a TWAP record shows: the engine's state of an active TWAP, or what a command's events said. */
interface TwapView {
  twapId: number;
  side: Side;
  mode: Mode;
  quantityLots: number;
  limitPriceTicks: number;
  durationMs: number;
  intervalMs: number;
  startedMs: number;
  slicesTotal: number;
  slicesDone: number;
  slicesRefused: number;
  filledLots: number;
  filledNotionalAtoms: number;
  status: TwapStatus;
  /** 0 once ended. */
  nextSliceMs: number;
  childOrderIds: number[];
}

function viewOf(twap: Twap): TwapView {
  return {
    twapId: twap.twapId,
    side: twap.side,
    mode: twap.mode,
    quantityLots: twap.quantityLots,
    limitPriceTicks: twap.limitPriceTicks,
    durationMs: twap.durationMs,
    intervalMs: twap.intervalMs,
    startedMs: twap.startedMs,
    slicesTotal: twap.slicesTotal,
    slicesDone: twap.slicesDone,
    slicesRefused: twap.slicesRefused,
    filledLots: twap.filledLots,
    filledNotionalAtoms: twap.filledNotionalAtoms,
    status: TwapStatus.active,
    nextSliceMs: twap.nextSliceMs,
    childOrderIds: [...twap.childOrderIds],
  };
}

/** Brings a view up to date with one event of its TWAP (the view of an ended TWAP keeps its last figures). */
function applyTwapEvent(view: TwapView, event: EngineEvent): void {
  switch (event.kind) {
    case EventKind.twapSliced:
      if (event.twapId !== view.twapId) return;
      view.slicesDone = event.sliceIndex + 1;
      view.filledLots = event.filledLots;
      view.filledNotionalAtoms = event.filledNotionalAtoms;
      view.nextSliceMs = event.nextSliceMs;
      if (event.result === Result.ok) view.childOrderIds.push(event.orderId);
      else view.slicesRefused++;
      return;
    case EventKind.twapEnded:
      if (event.twapId !== view.twapId) return;
      view.status = event.status;
      view.slicesDone = event.slicesDone;
      view.filledLots = event.filledLots;
      view.filledNotionalAtoms = event.filledNotionalAtoms;
      view.nextSliceMs = 0;
      return;
    default:
      return;
  }
}

/** The view of a TWAP as its StartTwap command left it, from that command's events. */
function startedView(outcome: Outcome, twapId: number): TwapView {
  let view: TwapView | null = null;
  outcome.forEachEvent((event) => {
    if (event.kind === EventKind.twapStarted && event.twapId === twapId) {
      view = {
        twapId,
        side: event.side,
        mode: event.mode,
        quantityLots: event.quantityLots,
        limitPriceTicks: event.limitPriceTicks,
        durationMs: event.durationMs,
        intervalMs: event.intervalMs,
        startedMs: event.startedMs,
        slicesTotal: event.slicesTotal,
        slicesDone: 0,
        slicesRefused: 0,
        filledLots: 0,
        filledNotionalAtoms: 0,
        status: TwapStatus.active,
        nextSliceMs: event.nextSliceMs,
        childOrderIds: [],
      };
    } else if (view !== null) {
      applyTwapEvent(view, event);
    }
  });
  if (view === null) throw new Error(`TWAP ${twapId} was accepted without a TwapStarted event`);
  return view;
}

export function twapJson(pair: Pair, view: TwapView): Record<string, unknown> {
  const ended = view.status !== TwapStatus.active;
  return {
    twap_id: String(view.twapId),
    symbol: pair.base.symbol,
    pair: pair.name,
    side: sideNames[view.side],
    quantity: formatQuantity(view.quantityLots, pair),
    filled_quantity: formatQuantity(view.filledLots, pair),
    remaining_quantity: formatQuantity(view.quantityLots - view.filledLots, pair),
    average_price: averagePrice(pair, view.filledLots, view.filledNotionalAtoms),
    limit_price: view.limitPriceTicks === 0 ? null : formatPrice(view.limitPriceTicks, pair),
    mode: modeNames[view.mode],
    status: twapStatusNames[view.status],
    slices_total: view.slicesTotal,
    slices_done: view.slicesDone,
    slices_refused: view.slicesRefused,
    interval_seconds: view.intervalMs / 1000,
    duration_seconds: view.durationMs / 1000,
    started_at: new Date(view.startedMs).toISOString(),
    next_slice_at: ended || view.nextSliceMs === 0 ? null : new Date(view.nextSliceMs).toISOString(),
    ends_at: new Date(view.startedMs + view.durationMs).toISOString(),
    child_orders: view.childOrderIds.map(String),
  };
}

// ---------------------------------------------------------------------------------------------------
// Scale ladders.

export interface Ladder {
  priceTicks: number[];
  lots: number[];
}

/**
 * The rungs of a scale order on the pair's grid: `count` prices evenly spaced from low to high (each
 * rounded to the nearest tick, half up, so both ends are exact), and sizes by the distribution: flat
 * equal, increasing or decreasing in linear weights 1..count from the low price to the high, each floored
 * to lots with the remainder added to the largest (the last, or the first for decreasing), so that the
 * sizes add up exactly to `quantityLots`. Refuses, naming the field, what the grid cannot hold.
 */
export function scaleLadder(lowTicks: number, highTicks: number, count: number, quantityLots: number, distribution: Distribution): Ladder {
  if (highTicks <= lowTicks) invalid('price_high', 'must be above price_low');
  const span = BigInt(highTicks - lowTicks);
  const steps = BigInt(count - 1);
  // Distinct prices need at least one tick per step.
  if (span < steps) invalid('count', `the price range holds only ${highTicks - lowTicks + 1} prices on the tick grid`);
  const priceTicks: number[] = [];
  for (let index = 0; index < count; index++) {
    priceTicks.push(lowTicks + Number((2n * BigInt(index) * span + steps) / (2n * steps)));
  }
  const weights = Array.from({ length: count }, (_, index) => (distribution === 'flat' ? 1 : distribution === 'increasing' ? index + 1 : count - index));
  const weightTotal = BigInt(weights.reduce((sum, weight) => sum + weight, 0));
  const lots = weights.map((weight) => Number((BigInt(quantityLots) * BigInt(weight)) / weightTotal));
  const remainder = quantityLots - lots.reduce((sum, size) => sum + size, 0);
  const largest = distribution === 'decreasing' ? 0 : count - 1;
  lots[largest] = lots[largest]! + remainder;
  if (lots.some((size) => size < 1)) invalid('quantity', `too small to give each of the ${count} orders at least one lot`);
  return { priceTicks, lots };
}

// ---------------------------------------------------------------------------------------------------
// Routes.

export function exchangeAlgoRoutes(context: ShellContext): Route[] {
  const engine = context.durable.engine;
  const twaps = twapsOf(engine);

  const startTwap = (request: RequestContext): Later => {
    const pair = pairOf(context, request.params['symbol']);
    const body = request.body as TwapBody;
    const userId = request.principal!.userId;
    const quantity = quantityToLots(body.quantity, pair);
    if (quantity.code !== Result.ok) refuse('quantity', quantity.code);
    const limitPriceTicks = body.limit_price === undefined ? 0 : ticksOf('limit_price', body.limit_price, pair, Result.priceRequired);
    const durationMs = body.duration_seconds * 1000;
    const intervalMs = body.interval_seconds * 1000;
    const slices = Math.ceil(durationMs / intervalMs);
    if (slices > twapSlicesMax) invalid('interval_seconds', `gives ${slices} slices over duration_seconds; at most ${twapSlicesMax}`);
    if (quantity.value < slices) invalid('quantity', `too small for ${slices} slices of at least one lot`);
    const mode = modeOfBody(body);
    if (mode === Mode.paper) ensurePaperAccount(context, userId);
    // Ids are minted just before the command is sequenced, as order ids are: the engine requires them to increase.
    const twapId = twaps.lastTwapId + 1;
    const command: Command = {
      kind: CommandKind.startTwap,
      seq: 0,
      ts: 0,
      twapId,
      userId,
      mode,
      pairId: pair.id,
      side: body.side === 'buy' ? 0 : 1,
      quantityLots: quantity.value,
      limitPriceTicks,
      durationMs,
      intervalMs,
    };
    const answer: Later = enqueue(context, request, command, (outcome) => {
      if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
      return { status: 201, body: twapJson(pair, startedView(outcome, twapId)) };
    });
    context.timers.poke();
    return answer;
  };

  const placeScale = (request: RequestContext): Later => {
    const pair = pairOf(context, request.params['symbol']);
    const body = request.body as ScaleBody;
    const userId = request.principal!.userId;
    const quantity = quantityToLots(body.quantity, pair);
    if (quantity.code !== Result.ok) refuse('quantity', quantity.code);
    const lowTicks = ticksOf('price_low', body.price_low, pair, Result.priceRequired);
    const highTicks = ticksOf('price_high', body.price_high, pair, Result.priceRequired);
    const distribution = body.distribution ?? 'flat';
    const ladder = scaleLadder(lowTicks, highTicks, body.count, quantity.value, distribution);
    const mode = modeOfBody(body);
    if (mode === Mode.paper) ensurePaperAccount(context, userId);
    const side: Side = body.side === 'buy' ? 0 : 1;
    const firstOrderId = engine.lastOrderId + 1;
    const orders: OrderRequest[] = ladder.priceTicks.map((priceTicks, index) => ({
      orderId: firstOrderId + index,
      userId,
      mode,
      pairId: pair.id,
      side,
      orderType: OrderType.limit,
      timeInForce: TimeInForce.gtc,
      priceTicks,
      stopPriceTicks: 0,
      quantityLots: ladder.lots[index]!,
      postOnly: false,
      selfTradePrevention: SelfTradePrevention.cancelTaker,
      clientOrderId: '',
    }));
    const scaleId = engine.lastScaleId + 1;
    const command: Command = { kind: CommandKind.placeScale, seq: 0, ts: 0, scaleId, orders };
    return enqueue(context, request, command, (outcome) => {
      if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
      const records = orders.map((order) => orderRecordJson(pair, order, outcome, context.venues));
      const head = JSON.stringify({
        scale_id: String(scaleId),
        symbol: pair.base.symbol,
        pair: pair.name,
        side: sideNames[side],
        quantity: formatQuantity(quantity.value, pair),
        count: orders.length,
        distribution,
        mode: modeNames[mode],
      });
      return { status: 201, json: `${head.slice(0, -1)},"orders":[${records.join(',')}]}` };
    });
  };

  const scaleRoute = (name: string, path: string, summary: string): Route => ({
    method: 'POST',
    name,
    path,
    auth: 'bearer_or_key',
    permission: 'trade',
    rateLimit: 'orders',
    // Each order of the ladder counts against the order rate, as in a batch.
    weight: (body) => Math.min(scaleOrdersMax, Math.max(1, Number((body as { count?: unknown } | undefined)?.count) || 1)),
    tags,
    status: 201,
    errors: [
      'PAIR_NOT_FOUND',
      ...[
        Result.invalidScale,
        Result.scaleWouldTake,
        Result.insufficientBalance,
        Result.offTick,
        Result.offLot,
        Result.priceOutOfRange,
        Result.quantityOutOfRange,
        Result.tooManyOpenOrders,
        Result.bookFull,
        Result.tooManyPriceLevels,
      ].map(resultCode),
    ],
    summary,
    body: scaleBody,
    response: scaleAnswer,
    handler: placeScale,
  });

  return [
    {
      method: 'POST',
      name: 'tp_clob_place_twap',
      path: '/api/v1/exchange/{symbol}/twap',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      summary:
        'Start a TWAP: quantity bought or sold in ceil(duration_seconds / interval_seconds) immediate-or-cancel slices, the first at once, ' +
        `then one every interval_seconds (${twapIntervalMsMin / 1000}..${twapIntervalMsMax / 1000} s; at most ${twapDurationMsMax / 1000} s and ${twapSlicesMax} slices); ` +
        'each slice takes remaining / slices left (unfilled lots roll over; the last takes the rest) at limit_price, or at market without one; ' +
        'live or paper (mode, paper, is_paper). Answers 201 with the TWAP record after its first slice; a first slice the engine refuses (e.g. INSUFFICIENT_BALANCE) refuses the TWAP',
      tags,
      status: 201,
      errors: [
        'PAIR_NOT_FOUND',
        ...[
          Result.invalidTwapSchedule,
          Result.insufficientBalance,
          Result.offTick,
          Result.offLot,
          Result.priceOutOfRange,
          Result.quantityOutOfRange,
          Result.tooManyTwaps,
          Result.twapsFull,
        ].map(resultCode),
      ],
      body: twapBody,
      response: twapRecord,
      handler: startTwap,
    },
    {
      method: 'GET',
      name: 'tp_clob_active_twaps',
      path: '/api/v1/exchange/{symbol}/twap',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      summary: 'The caller\'s active TWAPs on this pair (?mode=paper for paper), oldest first: {"twaps": [TWAP records]}',
      tags,
      errors: ['PAIR_NOT_FOUND'],
      query: modeQuery,
      response: closed({ twaps: Type.Array(twapRecord, { description: 'oldest first' }) }),
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const active = twaps.activeOf(request.principal!.userId, modeOf(request.query)).filter((twap) => twap.pairId === pair.id);
        return { body: { twaps: active.map((twap) => twapJson(pair, viewOf(twap))) } };
      },
    },
    {
      method: 'DELETE',
      name: 'tp_clob_cancel_twap',
      path: '/api/v1/exchange/{symbol}/twap/{twap_id}',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      summary: 'Cancel an active TWAP: no further slices (each slice is immediate-or-cancel, so none is left open). 200 with the final record (status cancelled); 404 for one that is not yours or has ended',
      tags,
      errors: ['PAIR_NOT_FOUND', 'TWAP_NOT_FOUND'],
      response: twapRecord,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const twapId = Number(request.params['twap_id']);
        const userId = request.principal!.userId;
        const twap = Number.isSafeInteger(twapId) && twapId > 0 ? twaps.find(twapId) : undefined;
        if (twap === undefined || twap.userId !== userId || twap.pairId !== pair.id) throw new ApiError(404, 'TWAP_NOT_FOUND', 'no such active TWAP');
        // The engine applies the cancel as it is enqueued; the record is taken just before.
        const view = viewOf(twap);
        const command: Command = { kind: CommandKind.cancelTwap, seq: 0, ts: 0, userId, mode: twap.mode, twapId };
        return enqueue(context, request, command, (outcome) => {
          if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
          outcome.forEachEvent((event) => applyTwapEvent(view, event));
          return { body: twapJson(pair, view) };
        });
      },
    },
    scaleRoute(
      'tp_clob_place_scale',
      '/api/v1/exchange/{symbol}/scale',
      `Place a scale order: count (${scaleOrdersMin}..${scaleOrdersMax}) GTC limit orders from price_low to price_high, evenly spaced on the tick grid, ` +
        'sizes flat, increasing or decreasing (linear weights 1..count from price_low to price_high), floored to lots with the remainder on the largest, ' +
        'adding up exactly to quantity; live or paper. All or nothing: refused whole if the holds do not fit the available balance or any order would take ' +
        'liquidity. Answers 201 {scale_id, symbol, pair, side, quantity, count, distribution, mode, orders: [order records]}',
    ),
    scaleRoute('tp_clob_place_scale_orders', '/api/v1/exchange/{symbol}/orders/scale', 'Place a scale order; the same as POST /api/v1/exchange/{symbol}/scale'),
  ];
}
