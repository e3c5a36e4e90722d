/**
 * The prediction market routes (the API specification's "Prediction markets, pricing, trading"):
 *
 *   GET    /api/v1/markets                                     list (limit, cursor, status, asset_type, tickers)
 *   POST   /api/v1/markets                                     create
 *   GET    /api/v1/markets/{contract_address}                  one market
 *   GET    /api/v1/markets/{contract_address}/results          standings, winners, WTA pool and payouts
 *   GET    /api/v1/markets/{contract_address}/orderbook?asset= one asset's book as price levels
 *   POST   /api/v1/markets/{contract_address}/orders           place a limit order on one asset's book
 *   GET    /api/v1/markets/{contract_address}/orders           your open orders in the market
 *   DELETE /api/v1/markets/{contract_address}/orders/{order_id} cancel one of yours
 *   POST   /api/v1/wta/markets/{market_id}/bet                 a winner-takes-all bet
 *
 * Every path's market accepts the numeric id or the contract address (the router needs one parameter name
 * per position, so the specification's {contract} is {contract_address} here too). Reads come from the durable view;
 * writes go through the sequencer and answer once durable, from the command's own events and the view
 * (which has taken in the batch before any submitter is answered).
 */
import { Type } from '@sinclair/typebox';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { amountToAtoms, formatAtoms, toSteps, newConversion, type Asset, type Markets } from '../../engine/core/units.ts';
import {
  AssetType,
  MarketsCommandType,
  MarketsEventType,
  MarketsResult,
  assetTypeNames,
  marketAssetsMax,
  marketAssetsMin,
  marketDescriptionCharsMax,
  marketNameCharsMax,
  marketStatusNames,
  orderLotsMax,
  priceTicksMax,
  priceTicksMin,
  type CancelMarketOrder,
  type CreateMarket,
  type MarketCreated,
  type MarketOrderAccepted,
  type MarketOrderCancelled,
  type MarketOrderRested,
  type MarketTradeExecuted,
  type PlaceBet,
  type PlaceMarketOrder,
} from '../../engine/domains/markets/index.ts';
import type { OracleAsset } from '../../engine/runtime/oracle/source.ts';
import type { Outcome } from '../../engine/runtime/sequencer.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { enqueue } from '../http/exchange-orders.ts';
import { declareRoute, type Later, type RequestContext, type Route } from '../http/route-table.ts';
import { formatPriceE8 } from '../prices/records.ts';
import type { MarketView } from './view.ts';
import { bookRecord, formatTicks, resultsRecord, tick } from './records.ts';
import { MarketsView } from './view.ts';
import { betSchema, cancelledMarketOrderSchema, marketBookSchema, marketListSchema, marketOrdersSchema, marketResultsSchema, marketSchema, placedMarketOrderSchema } from './schemas.ts';

/** Markets one list page may hold, and the default. */
export const listLimitMax = 1_000;
export const listLimitDefault = 100;
/** Contract addresses one list request may filter by. */
export const tickersPerRequestMax = 100;

const tags = ['Prediction markets, pricing, trading'];
const decimal = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()]);
const marketPath = '/api/v1/markets/{contract_address}';
/** ISO 8601 UTC with a Z: seconds required, up to milliseconds. */
const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export interface MarketsRoutesOptions {
  readonly context: ShellContext;
  readonly view: MarketsView;
  readonly assets: readonly OracleAsset[];
}

function invalid(field: string, rule: string, code = 'VALIDATION_FAILED'): never {
  throw new ApiError(422, code, `${field}: ${rule}`);
}

/** HTTP status of an engine refusal of a markets command. */
function refusal(result: ResultCode): ApiError {
  let status = 422;
  if (result === MarketsResult.marketNotFound || result === MarketsResult.orderNotFound) status = 404;
  else if (result === MarketsResult.marketCompleted) status = 409;
  else if (result === MarketsResult.tooManyOpenOrders || result === MarketsResult.bookFull || result === MarketsResult.tooManyMarkets || result === MarketsResult.tooManyStakes || result === Result.tooManyAccounts || result === Result.tooManyPriceLevels) status = 429;
  return new ApiError(status, resultCode(result), resultMessage(result));
}

const iso = (ms: number) => new Date(ms).toISOString();

function parseTime(field: string, value: string): number {
  const ms = isoUtc.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) invalid(field, 'must be an ISO 8601 UTC time such as 2026-01-31T12:00:00Z');
  return ms;
}

/** A decimal input in steps of 0.001 within [1, max]; names the field and the rule when it is not. */
function thousandths(field: string, value: unknown, max: number, offGrid: ResultCode, rangeCode: string): number {
  const conversion = toSteps(value, tick, false, offGrid, newConversion());
  if (conversion.code !== Result.ok) invalid(field, resultMessage(conversion.code), resultCode(conversion.code));
  if (conversion.value > max) invalid(field, `at most ${formatTicks(max)}`, rangeCode);
  return conversion.value;
}

function paperRefused(mode: string | undefined): void {
  if (mode === 'paper') throw new ApiError(422, 'PAPER_NOT_SUPPORTED', 'body.mode: prediction markets are live only in this version');
}

export function marketsRoutes(options: MarketsRoutesOptions): Route[] {
  const { context, view } = options;
  const markets: Markets = context.markets;
  const catalog = new Map(options.assets.map((asset) => [asset.symbol, asset]));

  const marketOf = (request: RequestContext, param: string): MarketView => {
    const market = view.find(request.params[param] ?? '');
    if (market === undefined) throw new ApiError(404, 'MARKET_NOT_FOUND', `no market ${JSON.stringify(request.params[param] ?? '')}`);
    return market;
  };
  const tokenOf = (market: MarketView): Asset => markets.assetById(market.tokenAssetId)!;
  const assetIndexOf = (market: MarketView, field: string, symbol: string): number => {
    const index = market.assets.indexOf(symbol.toUpperCase());
    if (index < 0) invalid(field, `must be one of the market's assets (${market.assets.join(', ')})`, 'ASSET_NOT_IN_MARKET');
    return index;
  };
  const ownUser = (request: RequestContext, userId: number): void => {
    if (userId !== request.principal!.userId) throw new ApiError(403, 'USER_MISMATCH', 'body.user_id: must be your own user id');
  };
  const pricesOf = (market: MarketView, prices: readonly number[] | null) => {
    if (prices === null) return null;
    return Object.fromEntries(market.assets.map((asset, index) => [asset, formatPriceE8(prices[index]!)]));
  };

  const record = (market: MarketView) => {
    const token = tokenOf(market);
    return {
      id: market.marketId,
      contract_address: market.address,
      name: market.name,
      description: market.description,
      assets: market.assets,
      asset_type: assetTypeNames[market.assetType],
      token: token.symbol,
      start_time: iso(market.startMs),
      end_time: iso(market.endMs),
      min_bet: formatAtoms(market.minBetAtoms, token),
      max_bet: formatAtoms(market.maxBetAtoms, token),
      status: marketStatusNames[market.status],
      created_at: iso(market.createdMs),
      creator_user_id: market.creatorUserId,
      start_prices: pricesOf(market, market.startPricesE8),
      end_prices: pricesOf(market, market.completion?.endPricesE8 ?? null),
      winners: market.completion === null ? null : market.completion.winners.map((index) => market.assets[index]!),
    };
  };

  const orderRecord = (market: MarketView, order: { orderId: number; userId: number; assetIndex: number; side: number; priceTicks: number; lots: number; remainingLots: number; createdMs: number }, status: string) => ({
    order_id: String(order.orderId),
    contract_address: market.address,
    market_id: market.marketId,
    user_id: order.userId,
    asset: market.assets[order.assetIndex]!,
    side: order.side === 0 ? 'buy' : 'sell',
    price: formatTicks(order.priceTicks),
    quantity: formatTicks(order.lots),
    filled_quantity: formatTicks(order.lots - order.remainingLots),
    remaining_quantity: formatTicks(order.remainingLots),
    status,
    created_at: iso(order.createdMs),
  });

  /** Submits a markets command and answers from its durable outcome with `build`. */
  const submit = (request: RequestContext, type: number, body: unknown, build: (outcome: Outcome) => { status?: number; body: unknown }): Later =>
    enqueue(context, request, domainCommand(type, body), (outcome) => {
      if (outcome.result !== Result.ok) throw refusal(outcome.result);
      return build(outcome);
    });

  const listQuery = Type.Object(
    {
      limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
      cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      status: Type.Optional(Type.Union(marketStatusNames.map((name) => Type.Literal(name)))),
      asset_type: Type.Optional(Type.Union(assetTypeNames.map((name) => Type.Literal(name)))),
      tickers: Type.Optional(Type.String({ minLength: 1, maxLength: 5_000 })),
    },
    { additionalProperties: false },
  );

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/markets',
      name: 'list_markets',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['VALIDATION_FAILED'],
      query: listQuery,
      response: marketListSchema,
      summary: `Markets by id ascending: limit 1-${listLimitMax} (default ${listLimitDefault}), cursor from the previous page, filters status, asset_type and tickers (comma-separated contract addresses or ids)`,
      handler: (request) => {
        const limit = request.query.limit === undefined ? listLimitDefault : Number(request.query.limit);
        if (limit < 1 || limit > listLimitMax) invalid('query.limit', `must be 1 to ${listLimitMax}`);
        const status = request.query.status === undefined ? -1 : marketStatusNames.indexOf(request.query.status);
        const assetType = request.query.asset_type === undefined ? -1 : assetTypeNames.indexOf(request.query.asset_type);
        let tickers: Set<number> | null = null;
        if (request.query.tickers !== undefined) {
          const names = [...new Set(request.query.tickers.split(',').map((value) => value.trim().toLowerCase()).filter((value) => value !== ''))];
          if (names.length === 0 || names.length > tickersPerRequestMax) invalid('query.tickers', `name 1 to ${tickersPerRequestMax} contract addresses`);
          // Unknown addresses match nothing (a filter, not a lookup).
          tickers = new Set(names.flatMap((name) => {
            const market = view.find(name);
            return market === undefined ? [] : [market.marketId];
          }));
        }
        const fingerprint = `${status}|${assetType}|${tickers === null ? '*' : [...tickers].sort((a, b) => a - b).join('.')}`;
        const afterId = request.query.cursor === undefined ? 0 : decodeCursor(request.query.cursor, fingerprint);
        const page: MarketView[] = [];
        let more = false;
        for (const market of view.markets.values()) {
          if (market.marketId <= afterId) continue;
          if (status >= 0 && market.status !== status) continue;
          if (assetType >= 0 && market.assetType !== assetType) continue;
          if (tickers !== null && !tickers.has(market.marketId)) continue;
          if (page.length === limit) {
            more = true;
            break;
          }
          page.push(market);
        }
        const cursor = more ? encodeCursor(page.at(-1)!.marketId, fingerprint) : null;
        return { body: { markets: page.map(record), cursor } };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/markets',
      name: 'create_market',
      tags,
      auth: 'key',
      permission: 'trade',
      rateLimit: 'general',
      status: 201,
      errors: ['VALIDATION_FAILED', 'UNKNOWN_ASSET', 'ASSET_TYPE_MISMATCH', 'INVALID_TOKEN', 'INVALID_SCHEDULE', 'INVALID_BET_BOUNDS', 'ASSET_NOT_PRICED', 'TOO_MANY_MARKETS'],
      body: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: marketNameCharsMax }),
          description: Type.Optional(Type.String({ maxLength: marketDescriptionCharsMax })),
          assets: Type.Array(Type.String({ minLength: 1, maxLength: 12 }), { minItems: marketAssetsMin, maxItems: marketAssetsMax }),
          asset_type: Type.Union(assetTypeNames.map((name) => Type.Literal(name))),
          token: Type.String({ minLength: 1, maxLength: 16 }),
          start_time: Type.String({ minLength: 20, maxLength: 24 }),
          end_time: Type.String({ minLength: 20, maxLength: 24 }),
          min_bet: decimal,
          max_bet: decimal,
        },
        { additionalProperties: false },
      ),
      response: marketSchema,
      summary: `Create a market over ${marketAssetsMin}-${marketAssetsMax} assets of one asset_type, settled in token, from start_time to end_time (ISO 8601 UTC; at most 90 days), bets within [min_bet, max_bet]`,
      handler: (request) => {
        const body = request.body;
        const assetType = assetTypeNames.indexOf(body.asset_type) as AssetType;
        const assets = body.assets.map((symbol, index) => {
          const asset = catalog.get(symbol.toUpperCase());
          if (asset === undefined) invalid(`body.assets[${index}]`, `unknown asset ${JSON.stringify(symbol)}`, 'UNKNOWN_ASSET');
          if (asset.assetType !== body.asset_type) invalid(`body.assets[${index}]`, `${asset.symbol} is a ${asset.assetType} asset, not ${body.asset_type}`, 'ASSET_TYPE_MISMATCH');
          return asset.symbol;
        });
        if (new Set(assets).size !== assets.length) invalid('body.assets', 'must be distinct');
        const token = markets.assetBySymbol(body.token.toUpperCase());
        if (token === undefined) invalid('body.token', `unknown token ${JSON.stringify(body.token)}`, 'INVALID_TOKEN');
        const startMs = parseTime('body.start_time', body.start_time);
        const endMs = parseTime('body.end_time', body.end_time);
        const bet = (field: string, value: unknown): number => {
          const atoms = amountToAtoms(value, token);
          if (atoms.code !== Result.ok) invalid(field, resultMessage(atoms.code), resultCode(atoms.code));
          return atoms.value;
        };
        const command: CreateMarket = {
          userId: request.principal!.userId,
          name: body.name,
          description: body.description ?? '',
          assets,
          assetType,
          tokenAssetId: token.id,
          startMs,
          endMs,
          minBetAtoms: bet('body.min_bet', body.min_bet),
          maxBetAtoms: bet('body.max_bet', body.max_bet),
        };
        return submit(request, MarketsCommandType.createMarket, command, (outcome) => {
          let marketId = 0;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.domain && event.type === MarketsEventType.marketCreated) marketId = (event.body as MarketCreated).marketId;
          });
          return { status: 201, body: record(view.markets.get(marketId)!) };
        });
      },
    }),
    declareRoute({
      method: 'GET',
      path: marketPath,
      name: 'get_market',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['MARKET_NOT_FOUND'],
      response: marketSchema,
      summary: 'One market by contract address or id: its record, status, and start and end prices and winners once known',
      handler: (request) => ({ body: record(marketOf(request, 'contract_address')) }),
    }),
    declareRoute({
      method: 'GET',
      path: `${marketPath}/results`,
      name: 'get_market_results',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['MARKET_NOT_FOUND'],
      response: marketResultsSchema,
      summary: 'Standings (start and end price, change, rank per asset), winners, the WTA pool with its bets and payouts, and the position payouts',
      handler: (request) => {
        const market = marketOf(request, 'contract_address');
        return { body: resultsRecord(market, tokenOf(market)) };
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${marketPath}/orderbook`,
      name: 'get_market_orderbook',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['MARKET_NOT_FOUND', 'ASSET_NOT_IN_MARKET'],
      query: Type.Object({ asset: Type.String({ minLength: 1, maxLength: 12 }) }, { additionalProperties: false }),
      response: marketBookSchema,
      summary: 'The YES book of one asset of the market: bids and asks as price levels (price, quantity in shares, orders), best bid and ask, spread',
      handler: (request) => {
        const market = marketOf(request, 'contract_address');
        const index = assetIndexOf(market, 'query.asset', request.query.asset);
        return { body: { contract_address: market.address, ...bookRecord(market, index) } };
      },
    }),
    declareRoute({
      method: 'POST',
      path: `${marketPath}/orders`,
      name: 'place_market_order',
      tags,
      auth: 'key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['MARKET_NOT_FOUND', 'USER_MISMATCH', 'ASSET_NOT_IN_MARKET', 'PRICE_OFF_TICK', 'QUANTITY_OFF_LOT', 'PRICE_OUT_OF_RANGE', 'QUANTITY_OUT_OF_RANGE', 'INSUFFICIENT_BALANCE', 'MARKET_COMPLETED', 'PAPER_NOT_SUPPORTED', 'TOO_MANY_MARKET_ORDERS', 'MARKET_BOOK_FULL'],
      body: Type.Object(
        {
          user_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
          asset: Type.String({ minLength: 1, maxLength: 12 }),
          side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
          price: decimal,
          quantity: decimal,
          mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')])),
        },
        { additionalProperties: false },
      ),
      response: placedMarketOrderSchema,
      summary: 'A limit order on one asset\'s YES book: price in (0, 1) on a 0.001 grid, quantity in shares on a 0.001 grid; matched at the maker\'s price, taker fee 10 bps, the rest rests until filled, cancelled or the market ends',
      handler: (request) => {
        const body = request.body;
        const market = marketOf(request, 'contract_address');
        ownUser(request, body.user_id);
        paperRefused(body.mode);
        const assetIndex = assetIndexOf(market, 'body.asset', body.asset);
        const priceTicks = thousandths('body.price', body.price, priceTicksMax, Result.offTick, 'PRICE_OUT_OF_RANGE');
        if (priceTicks < priceTicksMin) invalid('body.price', 'must be above 0');
        const lots = thousandths('body.quantity', body.quantity, orderLotsMax, Result.offLot, 'QUANTITY_OUT_OF_RANGE');
        const command: PlaceMarketOrder = { userId: body.user_id, marketId: market.marketId, asset: market.assets[assetIndex]!, side: body.side === 'buy' ? 0 : 1, priceTicks, lots };
        return submit(request, MarketsCommandType.placeMarketOrder, command, (outcome) => {
          let accepted: MarketOrderAccepted | null = null;
          let remaining = 0;
          let status = 'filled';
          const fills: Array<{ price: string; quantity: string; role: string; fee: string }> = [];
          outcome.forEachEvent((event) => {
            if (event.kind !== EventKind.domain) return;
            if (event.type === MarketsEventType.marketOrderAccepted) {
              accepted = event.body as MarketOrderAccepted;
              remaining = accepted.lots;
            } else if (event.type === MarketsEventType.marketTradeExecuted) {
              const trade = event.body as MarketTradeExecuted;
              if (trade.takerOrderId !== accepted?.orderId) return;
              remaining -= trade.lots;
              fills.push({ price: formatTicks(trade.priceTicks), quantity: formatTicks(trade.lots), role: 'taker', fee: formatAtoms(trade.takerFeeAtoms, tokenOf(market)) });
            } else if (event.type === MarketsEventType.marketOrderRested) {
              status = remaining === (event.body as MarketOrderRested).remainingLots && fills.length === 0 ? 'open' : 'partially_filled';
            } else if (event.type === MarketsEventType.marketOrderCancelled) {
              status = 'cancelled';
            }
          });
          const order = accepted as MarketOrderAccepted | null;
          if (order === null) throw new Error('an accepted market order without its event');
          return { status: 201, body: { ...orderRecord(market, { ...order, remainingLots: remaining, createdMs: outcome.ts }, status), fills } };
        });
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${marketPath}/orders`,
      name: 'list_my_market_orders',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['MARKET_NOT_FOUND'],
      response: marketOrdersSchema,
      summary: 'Your open orders in the market, oldest first',
      handler: (request) => {
        const market = marketOf(request, 'contract_address');
        const userId = request.principal!.userId;
        const orders = [...market.orders.values()]
          .filter((order) => order.userId === userId)
          .map((order) => orderRecord(market, order, order.remainingLots === order.lots ? 'open' : 'partially_filled'));
        return { body: { contract_address: market.address, orders } };
      },
    }),
    declareRoute({
      method: 'DELETE',
      path: `${marketPath}/orders/{order_id}`,
      name: 'cancel_market_order',
      tags,
      auth: 'key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: ['MARKET_NOT_FOUND', 'MARKET_ORDER_NOT_FOUND'],
      response: cancelledMarketOrderSchema,
      summary: 'Cancel one of your open orders in the market; its holds are released',
      handler: (request) => {
        const market = marketOf(request, 'contract_address');
        const text = request.params['order_id'] ?? '';
        if (!/^[0-9]{1,15}$/.test(text)) throw refusal(MarketsResult.orderNotFound);
        const command: CancelMarketOrder = { userId: request.principal!.userId, marketId: market.marketId, orderId: Number(text) };
        return submit(request, MarketsCommandType.cancelMarketOrder, command, (outcome) => {
          let cancelled: MarketOrderCancelled | null = null;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.domain && event.type === MarketsEventType.marketOrderCancelled) cancelled = event.body as MarketOrderCancelled;
          });
          const order = cancelled as MarketOrderCancelled | null;
          if (order === null) throw new Error('a cancel without its event');
          return {
            body: {
              order_id: String(order.orderId),
              contract_address: market.address,
              asset: market.assets[order.assetIndex]!,
              side: order.side === 0 ? 'buy' : 'sell',
              price: formatTicks(order.priceTicks),
              remaining_quantity: formatTicks(order.remainingLots),
              status: 'cancelled',
            },
          };
        });
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/wta/markets/{market_id}/bet',
      name: 'place_wta_bet',
      tags,
      auth: 'key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['MARKET_NOT_FOUND', 'USER_MISMATCH', 'ASSET_NOT_IN_MARKET', 'BET_OUT_OF_BOUNDS', 'INSUFFICIENT_BALANCE', 'MARKET_COMPLETED', 'PAPER_NOT_SUPPORTED', 'TOO_MANY_STAKES'],
      body: Type.Object(
        {
          user_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
          asset: Type.String({ minLength: 1, maxLength: 12 }),
          amount: decimal,
          mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')])),
        },
        { additionalProperties: false },
      ),
      response: betSchema,
      summary: 'A winner-takes-all bet on one asset (amount in the market\'s token within [min_bet, max_bet], held at once) while the market is pending or active; the pool goes pro-rata to stakes on the winner(s)',
      handler: (request) => {
        const body = request.body;
        const market = marketOf(request, 'market_id');
        ownUser(request, body.user_id);
        paperRefused(body.mode);
        const assetIndex = assetIndexOf(market, 'body.asset', body.asset);
        const token = tokenOf(market);
        const amount = amountToAtoms(body.amount, token);
        if (amount.code !== Result.ok) invalid('body.amount', resultMessage(amount.code), resultCode(amount.code));
        const command: PlaceBet = { userId: body.user_id, marketId: market.marketId, asset: market.assets[assetIndex]!, amountAtoms: amount.value };
        return submit(request, MarketsCommandType.placeBet, command, (outcome) => {
          const stake = market.stakes.get(body.user_id * 32 + assetIndex);
          return {
            status: 201,
            body: {
              market_id: market.marketId,
              contract_address: market.address,
              user_id: body.user_id,
              asset: market.assets[assetIndex]!,
              amount: formatAtoms(amount.value, token),
              stake: formatAtoms(stake?.amountAtoms ?? amount.value, token),
              pool: formatAtoms(market.poolAtoms, token),
              placed_at: iso(outcome.ts),
            },
          };
        });
      },
    }),
  ];
}

/** The list cursor: base64url of {"after": last id, "filters": fingerprint of the filters it was made for}. */
export function encodeCursor(afterId: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ after: afterId, filters: fingerprint })).toString('base64url');
}

function decodeCursor(cursor: string, fingerprint: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    invalid('query.cursor', 'is not a cursor this API gave');
  }
  const fields = parsed as { after?: unknown; filters?: unknown } | null;
  if (fields === null || typeof fields !== 'object' || !Number.isSafeInteger(fields.after) || (fields.after as number) < 0 || typeof fields.filters !== 'string') {
    invalid('query.cursor', 'is not a cursor this API gave');
  }
  if (fields.filters !== fingerprint) invalid('query.cursor', 'was made for other filters (status, asset_type, tickers); start again without it');
  return fields.after as number;
}
