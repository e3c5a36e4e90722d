/**
 * Exchange reads served from the read models (shell/read-models/): one order's status, order history,
 * public trades, own fills, the 24-hour ticker and stats, and OHLC candles. Everything here reflects
 * durable batches only. Lists are newest first and page with `before` (an order or trade id) and
 * `next_before`, the value to pass for the next page (null on the last one). Open orders, and one order
 * by id or client id while it is live, come from the live orders in memory (read-models/open-orders.ts);
 * the rest from SQLite once it holds every command durable at the request's arrival.
 */
import { readFileSync } from 'node:fs';
import { orderStatusNames, type OrderStatus } from '../../engine/core/events.ts';
import { sideNames, type Mode } from '../../engine/core/commands.ts';
import { formatAtoms, formatPrice, formatQuantity, formatSteps, type Pair } from '../../engine/core/units.ts';
import { defaultMarketsPath } from '../../engine/runtime/markets.ts';
import { candleIntervals } from '../read-models/candles.ts';
import type { CandleRow, FillRow, OrderRow, TradeRow } from '../read-models/queries.ts';
import type { ReadModels } from '../read-models/read-models.ts';
import type { TickerView } from '../read-models/ticker.ts';
import type { DayFigures } from '../market/market-data.ts';
import { ApiError } from './errors.ts';
import { pairNames, pairOf } from './exchange-public.ts';
import { modeOf, modeQuery } from './exchange-orders.ts';
import { groupJson, orderJson } from './order-json.ts';
import type { Reply, RequestContext, Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { Type } from '@sinclair/typebox';
import {
  candleSchema,
  clientOrderIdPattern,
  closed,
  decimalString,
  nextBeforeField,
  nullable,
  ownFillSchema,
  pairField,
  pairFields,
  storedOrderSchema,
  symbolField,
  tickerFields as tickerSchemaFields,
  timestamp,
  tradeSchema,
} from './schemas.ts';

const tags = ['Exchange'];
const pairNotFound = ['PAIR_NOT_FOUND'];
const tickerSchema = closed({ ...tickerSchemaFields, timestamp: timestamp('when this answer was made') });
/** A pair with its ticker, as GET /exchange/markets lists them. */
const marketSchema = closed({
  ...tickerSchemaFields,
  slug: pairFields.slug,
  base: pairFields.base,
  quote: pairFields.quote,
  tick_size: pairFields.tick_size,
  lot_size: pairFields.lot_size,
});

/** Page sizes: order history up to 500, open orders, trades, fills and candles up to 1 000; 100 by default. */
export const historyLimitMax = 500;
export const openOrdersLimitMax = 1000;
export const tradesLimitMax = 1000;
export const candlesLimitMax = 1000;
const limitDefault = 100;

/** Statuses an order can have in the read models (a rejected order never became one). */
const storedStatuses = orderStatusNames.filter((name) => name !== 'rejected');

const text = { type: 'string', maxLength: 40 };
const pagedQuery = (extra: Record<string, unknown> = {}) => ({
  ...modeQuery,
  properties: { ...modeQuery.properties, limit: text, before: text, ...extra },
});

/** An integer query field in `low..high`, or `fallback` when absent; 422 naming the field otherwise. */
function integerField(query: Readonly<Record<string, string>>, name: string, low: number, high: number, fallback: number): number {
  const value = query[name];
  if (value === undefined) return fallback;
  const parsed = /^[0-9]{1,16}$/.test(value) ? Number(value) : NaN;
  if (!(parsed >= low && parsed <= high)) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be an integer from ${low} to ${high}`);
  return parsed;
}

/** A time query field: ISO 8601 or Unix milliseconds; undefined when absent. */
function timeField(query: Readonly<Record<string, string>>, name: string): number | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const ms = /^[0-9]{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be an ISO 8601 time or Unix milliseconds`);
  return ms;
}

/** `before` of the next page. Rows come `limit + 1` at most; a trade split over the cut stays whole. */
function page<T>(rows: T[], limit: number, idOf: (row: T) => number): { rows: T[]; nextBefore: string | null } {
  if (rows.length <= limit) return { rows, nextBefore: null };
  let cut = limit;
  while (cut > 0 && idOf(rows[cut - 1]!) === idOf(rows[cut]!)) cut--;
  if (cut === 0) cut = rows.length;
  return { rows: rows.slice(0, cut), nextBefore: String(idOf(rows[cut - 1]!)) };
}

const clientOrderIdRule = new RegExp(clientOrderIdPattern);

const iso = (ms: number): string => new Date(ms).toISOString();
const priceOrNull = (ticks: number | null, pair: Pair): string | null => (ticks === null ? null : formatPrice(ticks, pair));

/** An order from the read models, as JSON: the placement record's fields plus fees paid and the last change. */
function orderRecordJson(pair: Pair, order: OrderRow): string {
  const simTxHash = order.simTxHash === '' ? 'null' : JSON.stringify(order.simTxHash);
  const tail = `${groupJson(order.groupKind, order.groupId)},"sim_tx_hash":${simTxHash},"fee":"${formatAtoms(order.feeAtoms, pair.quote)}","fee_asset":${JSON.stringify(pair.quote.symbol)},"updated_at":"${iso(order.updatedAtMs)}"`;
  return orderJson(pair, order, order.status, order.filledLots, order.filledNotionalAtoms, order.createdAtMs, tail);
}

function tradeRecord(pair: Pair, trade: TradeRow): Record<string, unknown> {
  return {
    trade_id: String(trade.tradeId),
    price: formatPrice(trade.priceTicks, pair),
    quantity: formatQuantity(trade.quantityLots, pair),
    side: sideNames[trade.takerSide],
    timestamp: iso(trade.tsMs),
  };
}

function fillRecord(pair: Pair, fill: FillRow, mode: Mode): Record<string, unknown> {
  return {
    trade_id: String(fill.tradeId),
    order_id: String(fill.orderId),
    client_order_id: fill.clientOrderId === '' ? null : fill.clientOrderId,
    symbol: pair.base.symbol,
    pair: pair.name,
    side: sideNames[fill.side],
    role: fill.role,
    price: formatPrice(fill.priceTicks, pair),
    quantity: formatQuantity(fill.quantityLots, pair),
    quote_quantity: formatAtoms(fill.notionalAtoms, pair.quote),
    fee: formatAtoms(fill.feeAtoms, pair.quote),
    fee_asset: pair.quote.symbol,
    mode: mode === 0 ? 'live' : 'paper',
    timestamp: iso(fill.tsMs),
  };
}

function candleRecord(pair: Pair, candle: CandleRow): Record<string, unknown> {
  return {
    time: iso(candle.openTimeMs),
    open: formatPrice(candle.openTicks, pair),
    high: formatPrice(candle.highTicks, pair),
    low: formatPrice(candle.lowTicks, pair),
    close: formatPrice(candle.closeTicks, pair),
    volume: formatQuantity(candle.volumeLots, pair),
    quote_volume: formatAtoms(candle.quoteVolumeAtoms, pair.quote),
    trades: candle.trades,
  };
}

/**
 * The 24-hour figures of a pair (also what a price stream sends): the last price, the window's open, high
 * and low, the change since the open (absolute, and in percent with two decimals rounded half away from
 * zero), and the volumes. Null prices mean the pair never traded.
 */
export function tickerFields(pair: Pair, view: TickerView): Record<string, unknown> {
  const change = changeOf(pair, view);
  return {
    symbol: pair.base.symbol,
    pair: pair.name,
    price: priceOrNull(view.lastPriceTicks, pair),
    open_24h: priceOrNull(view.openPriceTicks, pair),
    high_24h: priceOrNull(view.highPriceTicks, pair),
    low_24h: priceOrNull(view.lowPriceTicks, pair),
    change_24h: change.absolute,
    change_percent_24h: change.percent,
    volume_24h: formatQuantity(view.volumeLots, pair),
    quote_volume_24h: formatAtoms(view.quoteVolumeAtoms, pair.quote),
    trades_24h: view.trades,
    window_start: iso(view.windowStartMs),
  };
}

/** The change since the window's open: absolute, and in percent with two decimals rounded half away from zero. */
function changeOf(pair: Pair, view: TickerView): { absolute: string | null; percent: string | null } {
  const last = view.lastPriceTicks;
  const open = view.openPriceTicks;
  if (last === null || open === null) return { absolute: null, percent: null };
  const changeTicks = last - open;
  const hundredths = Math.sign(changeTicks) * Math.round((Math.abs(changeTicks) * 10_000) / open);
  return { absolute: formatPrice(changeTicks, pair), percent: formatSteps(hundredths, { mantissa: 1n, scale: 2 }) };
}

/** The 24-hour figures the price and market streams carry, as the ticker route gives them. */
export function dayFigures(pair: Pair, view: TickerView): DayFigures {
  const change = changeOf(pair, view);
  return {
    change24h: change.absolute,
    changePercent24h: change.percent,
    volume24h: formatQuantity(view.volumeLots, pair),
    high24h: priceOrNull(view.highPriceTicks, pair),
    low24h: priceOrNull(view.lowPriceTicks, pair),
  };
}

/** Circulating supply in whole tokens by asset symbol, from the markets file (`circulating_supply`). */
export function loadCirculatingSupply(path: string = defaultMarketsPath): Map<string, bigint> {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { assets: Array<{ symbol: string; circulating_supply?: string }> };
  const supply = new Map<string, bigint>();
  for (const asset of parsed.assets) {
    if (asset.circulating_supply === undefined) continue;
    if (!/^[0-9]{1,20}$/.test(asset.circulating_supply)) throw new Error(`asset ${asset.symbol}: circulating_supply must be a whole number`);
    supply.set(asset.symbol.toUpperCase(), BigInt(asset.circulating_supply));
  }
  return supply;
}

export function exchangeHistoryRoutes(context: ShellContext, readModels: ReadModels): Route[] {
  const supply = loadCirculatingSupply();
  const queries = readModels.queries;
  /**
   * Runs a query once the read models hold every command that was durable when the request arrived:
   * whatever a client was answered for, it then reads back.
   */
  const committed = (query: () => Reply): Reply | Promise<Reply> => {
    const ready = readModels.whenApplied(context.durable.sequencer.durableSeq);
    return ready === null ? query() : ready.then(query);
  };
  /** Price × supply, exact: the supply scales the tick's mantissa, so no product leaves the safe range. */
  const marketCap = (pair: Pair, lastPriceTicks: number | null): string | null => {
    const tokens = supply.get(pair.base.symbol);
    if (tokens === undefined || lastPriceTicks === null) return null;
    return formatSteps(lastPriceTicks, { mantissa: pair.tick.mantissa * tokens, scale: pair.tick.scale });
  };
  const pairOfRow = (pairId: number): Pair => context.markets.pairById(pairId)!;
  /**
   * One page of the caller's open orders, newest first: on `pair`, or on every pair when it is null.
   * Answered from the open orders in memory (read-models/open-orders.ts), which hold every durable batch
   * already: no wait for the SQLite writer.
   */
  const openOrders = (request: RequestContext, pair: Pair | null): Reply => {
    const limit = integerField(request.query, 'limit', 1, openOrdersLimitMax, limitDefault);
    const before = integerField(request.query, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    const rows = readModels.openOrders.list(request.principal!.userId, modeOf(request.query), pair === null ? 0 : pair.id, limit + 1, before);
    const found = page(rows, limit, (order) => order.orderId);
    const orders = found.rows.map((order) => orderRecordJson(pair ?? pairOfRow(order.pairId), order)).join(',');
    return { json: `{"orders":[${orders}],"next_before":${JSON.stringify(found.nextBefore)}}` };
  };
  const openOrdersResponse = closed({ orders: Type.Array(storedOrderSchema, { description: 'newest first' }), next_before: nextBeforeField });
  return [
    {
      method: 'GET',
      name: 'tp_clob_open_orders',
      path: '/api/v1/exchange/{symbol}/orders/open',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: "The caller's open orders on this pair (resting, partially filled, untriggered stops) as full order records, newest first; limit 1..1000 (100), before, mode",
      query: pagedQuery(),
      response: openOrdersResponse,
      handler: (request) => openOrders(request, pairOf(context, request.params['symbol'])),
    },
    {
      method: 'GET',
      name: 'tp_clob_open_orders_all',
      path: '/api/v1/exchange/orders/open',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: "The caller's open orders on every pair as full order records, newest first; limit 1..1000 (100), before (order id), mode",
      query: pagedQuery(),
      response: openOrdersResponse,
      handler: (request) => openOrders(request, null),
    },
    {
      method: 'GET',
      name: 'tp_clob_get_order_by_client_id',
      path: '/api/v1/exchange/{symbol}/orders/by-client-id/{client_order_id}',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: ['PAIR_NOT_FOUND', 'ORDER_NOT_FOUND'],
      summary: "The caller's newest order on this pair with this client_order_id (the open one when there is one), in any status; mode",
      query: modeQuery,
      response: storedOrderSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const userId = request.principal!.userId;
        const mode = modeOf(request.query);
        const clientOrderId = request.params['client_order_id'] ?? '';
        if (!clientOrderIdRule.test(clientOrderId)) throw new ApiError(404, 'ORDER_NOT_FOUND', 'no order with this client_order_id');
        // A live order with the id is the newest that had it: from memory, without waiting.
        const live = readModels.openOrders.withClientOrderId(userId, mode, clientOrderId);
        if (live !== undefined && live.pairId === pair.id) return { json: orderRecordJson(pair, live) };
        return committed(() => {
          const order = queries.orderByClientId(userId, mode, pair.id, clientOrderId);
          if (order === undefined) throw new ApiError(404, 'ORDER_NOT_FOUND', 'no order with this client_order_id');
          return { json: orderRecordJson(pair, order) };
        });
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_my_trades_all',
      path: '/api/v1/exchange/trades/mine',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: "The caller's fills on every pair, newest first, each with its pair, role, fee, order id and client_order_id; limit 1..1000 (100), before (trade id), mode",
      query: pagedQuery(),
      response: closed({ trades: Type.Array(ownFillSchema, { description: 'newest first' }), next_before: nextBeforeField }),
      handler: (request) =>
        committed(() => {
          const mode = modeOf(request.query);
          const limit = integerField(request.query, 'limit', 1, tradesLimitMax, limitDefault);
          const before = integerField(request.query, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
          const found = page(queries.fillsAllPairs(request.principal!.userId, mode, limit + 1, before), limit, (fill) => fill.tradeId);
          return { body: { trades: found.rows.map((fill) => fillRecord(pairOfRow(fill.pairId), fill, mode)), next_before: found.nextBefore } };
        }),
    },
    {
      method: 'GET',
      name: 'tp_clob_order_history',
      path: '/api/v1/exchange/{symbol}/orders/history',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: "The caller's orders on this pair (any status), newest first; limit 1..500 (100), before (order id), status, mode",
      query: pagedQuery({ status: { enum: storedStatuses } }),
      response: closed({ orders: Type.Array(storedOrderSchema, { description: 'newest first' }), next_before: nextBeforeField }),
      handler: (request) =>
        committed(() => {
          const pair = pairOf(context, request.params['symbol']);
          const limit = integerField(request.query, 'limit', 1, historyLimitMax, limitDefault);
          const status = request.query['status'];
          const rows = queries.orderHistory({
            userId: request.principal!.userId,
            pairId: pair.id,
            mode: modeOf(request.query),
            limit: limit + 1,
            beforeOrderId: integerField(request.query, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
            ...(status === undefined ? {} : { status: orderStatusNames.indexOf(status as (typeof orderStatusNames)[number]) as OrderStatus }),
          });
          const found = page(rows, limit, (order) => order.orderId);
          return { json: `{"orders":[${found.rows.map((order) => orderRecordJson(pair, order)).join(',')}],"next_before":${JSON.stringify(found.nextBefore)}}` };
        }),
    },
    {
      method: 'GET',
      name: 'tp_clob_get_order',
      path: '/api/v1/exchange/{symbol}/orders/{order_id}',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: ['PAIR_NOT_FOUND', 'ORDER_NOT_FOUND'],
      summary: "One of the caller's orders in any status, live or paper, with fills so far and fees (404 for any other order)",
      response: storedOrderSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const orderId = /^[1-9][0-9]{0,15}$/.test(request.params['order_id'] ?? '') ? Number(request.params['order_id']) : 0;
        if (!(Number.isSafeInteger(orderId) && orderId > 0)) throw new ApiError(404, 'ORDER_NOT_FOUND', 'no such order');
        const owned = (order: OrderRow | undefined): order is OrderRow => order !== undefined && order.userId === request.principal!.userId && order.pairId === pair.id;
        // A live order is answered from memory, without waiting; an ended one from the tables.
        const live = readModels.openOrders.get(orderId);
        if (owned(live)) return { json: orderRecordJson(pair, live) };
        return committed(() => {
          const order = queries.order(orderId);
          if (!owned(order)) throw new ApiError(404, 'ORDER_NOT_FOUND', 'no such order');
          return { json: orderRecordJson(pair, order) };
        });
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_recent_trades',
      path: '/api/v1/exchange/{symbol}/trades',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: 'Recent public trades of the live book, newest first; limit 1..1000 (100), before (trade id); side is the taker s',
      query: { type: 'object', additionalProperties: false, properties: { limit: text, before: text } },
      response: closed({ symbol: symbolField, pair: pairField, trades: Type.Array(tradeSchema, { description: 'newest first' }), next_before: nextBeforeField }),
      handler: (request) =>
        committed(() => {
          const pair = pairOf(context, request.params['symbol']);
          const limit = integerField(request.query, 'limit', 1, tradesLimitMax, limitDefault);
          const before = integerField(request.query, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
          const found = page(queries.trades(pair.id, 0, limit + 1, before), limit, (trade) => trade.tradeId);
          return { body: { symbol: pair.base.symbol, pair: pair.name, trades: found.rows.map((trade) => tradeRecord(pair, trade)), next_before: found.nextBefore } };
        }),
    },
    {
      method: 'GET',
      name: 'tp_clob_my_trades',
      path: '/api/v1/exchange/{symbol}/trades/mine',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: "The caller's fills on this pair, newest first, each with role (maker or taker), fee and order id; limit, before, mode",
      query: pagedQuery(),
      response: closed({ trades: Type.Array(ownFillSchema, { description: 'newest first' }), next_before: nextBeforeField }),
      handler: (request) =>
        committed(() => {
          const pair = pairOf(context, request.params['symbol']);
          const mode = modeOf(request.query);
          const limit = integerField(request.query, 'limit', 1, tradesLimitMax, limitDefault);
          const before = integerField(request.query, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
          const found = page(queries.fills(request.principal!.userId, pair.id, mode, limit + 1, before), limit, (fill) => fill.tradeId);
          return { body: { trades: found.rows.map((fill) => fillRecord(pair, fill, mode)), next_before: found.nextBefore } };
        }),
    },
    {
      method: 'GET',
      name: 'tp_clob_markets',
      path: '/api/v1/exchange/markets',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: 'Every trading pair with its 24-hour ticker in one call: the ticker fields plus base, quote, tick and lot sizes',
      response: closed({ markets: Type.Array(marketSchema, { description: 'in the order of GET /pairs' }), timestamp: timestamp('when this answer was made') }),
      handler: () => ({
        body: {
          markets: context.markets.pairs.map((pair) => ({ ...tickerFields(pair, context.tickers.view(pair.id)), ...pairNames(pair) })),
          timestamp: iso(context.clock()),
        },
      }),
    },
    {
      method: 'GET',
      name: 'tp_clob_ticker',
      path: '/api/v1/exchange/{symbol}/ticker',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: '24-hour rolling ticker of the live book: last price, open, high, low, change (absolute and percent), volumes',
      response: tickerSchema,
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        return { body: { ...tickerFields(pair, context.tickers.view(pair.id)), timestamp: iso(context.clock()) } };
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_stats',
      path: '/api/v1/exchange/{symbol}/stats',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: 'Price, 24-hour high, low, volume and change, and market cap (price × circulating supply; null when unknown)',
      response: closed({
        ...tickerSchemaFields,
        circulating_supply: nullable(Type.String({ pattern: '^[0-9]+$', description: 'whole tokens of the base asset; null when unknown' })),
        market_cap: nullable(decimalString('price × circulating supply, in market_cap_asset; null when either is unknown')),
        market_cap_asset: Type.String({ description: 'the quote asset' }),
        timestamp: timestamp('when this answer was made'),
      }),
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const view = context.tickers.view(pair.id);
        const tokens = supply.get(pair.base.symbol);
        return {
          body: {
            ...tickerFields(pair, view),
            circulating_supply: tokens === undefined ? null : tokens.toString(),
            market_cap: marketCap(pair, view.lastPriceTicks),
            market_cap_asset: pair.quote.symbol,
            timestamp: iso(context.clock()),
          },
        };
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_chart',
      path: '/api/v1/exchange/{symbol}/chart',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: pairNotFound,
      summary: 'OHLC candles of live trades in time order: interval 1m,5m,15m,1h,4h,1d (1h), limit 1..1000 (100), start/end (ISO 8601 or ms)',
      response: closed({
        symbol: symbolField,
        pair: pairField,
        interval: Type.Union(candleIntervals.map((interval) => Type.Literal(interval.name))),
        candles: Type.Array(candleSchema, { description: 'oldest first' }),
      }),
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { interval: { enum: candleIntervals.map((interval) => interval.name) }, limit: text, start: text, end: text },
      },
      handler: (request) =>
        committed(() => {
          const pair = pairOf(context, request.params['symbol']);
          const interval = candleIntervals.find((candidate) => candidate.name === (request.query['interval'] ?? '1h'))!;
          const limit = integerField(request.query, 'limit', 1, candlesLimitMax, limitDefault);
          const startMs = timeField(request.query, 'start');
          const endMs = timeField(request.query, 'end');
          if (startMs !== undefined && endMs !== undefined && startMs > endMs) throw new ApiError(422, 'VALIDATION_FAILED', 'query.start: must not be after end');
          const candles = queries.candles({
            pairId: pair.id,
            intervalMs: interval.ms,
            limit,
            // A start inside a bucket includes that bucket.
            ...(startMs === undefined ? {} : { startMs: startMs - (startMs % interval.ms) }),
            ...(endMs === undefined ? {} : { endMs }),
          });
          return { body: { symbol: pair.base.symbol, pair: pair.name, interval: interval.name, candles: candles.map((candle) => candleRecord(pair, candle)) } };
        }),
    },
  ];
}
