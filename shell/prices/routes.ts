/**
 * The pricing and indicator routes of the API specification's "Prediction markets, pricing, trading" table:
 *
 *   GET /api/v1/prices/{asset}                 one asset's price
 *   GET /api/v1/prices?assets=BTC&assets=ETH   several (the key repeated; commas also split)
 *   GET /api/v1/prices/{asset}/history?days=N  daily closes, oldest first, ending with the latest close
 *   GET /api/v1/technical-indicators/macd/{symbol}
 *
 * All read the durable prices view; the MACD computes on exactly the closes the history route returns for
 * the same `days`. Symbols are matched case-insensitively; an asset outside the oracle's list is 404.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import { priceSourceNames } from '../../engine/domains/prices/commands.ts';
import type { AssetPrice } from '../../engine/domains/prices/prices.ts';
import type { OracleAsset } from '../../engine/runtime/oracle/source.ts';
import { changePercent, dateOfDay, formatPriceE8 } from './records.ts';
import type { PricesView } from './view.ts';
import { computeMacd, macdDefaults, macdInputProblem } from './macd.ts';
import { macdSchema, priceHistorySchema, priceRecordSchema, pricesSchema } from './schemas.ts';

/** The longest history one request may ask for, and assets one prices request may name. */
export const historyDaysMax = 400;
export const historyDaysDefault = 30;
export const assetsPerRequestMax = 50;

export interface PricesRoutesOptions {
  readonly view: PricesView;
  readonly assets: readonly OracleAsset[];
  readonly clock: () => number;
  readonly staleMs: number;
}

const integerText = (digits: number) => Type.String({ pattern: `^[0-9]{1,${digits}}$` });

export function pricesRoutes(options: PricesRoutesOptions): Route[] {
  const catalog = new Map(options.assets.map((asset) => [asset.symbol, asset]));
  const known = (symbol: string): OracleAsset => {
    const asset = catalog.get(symbol.toUpperCase());
    if (asset === undefined) throw new ApiError(404, 'ASSET_NOT_FOUND', `no price feed for asset ${JSON.stringify(symbol)}`);
    return asset;
  };
  const priced = (symbol: string): [OracleAsset, AssetPrice] => {
    const asset = known(symbol);
    const price = options.view.prices.asset(asset.symbol);
    if (price === undefined) throw new ApiError(404, 'PRICE_NOT_AVAILABLE', `the oracle has no price of ${asset.symbol} yet`);
    return [asset, price];
  };
  const record = (asset: OracleAsset, price: AssetPrice) => ({
    asset: asset.symbol,
    asset_type: asset.assetType,
    price: formatPriceE8(price.priceE8),
    change_24h: changePercent(price.priceE8, options.view.prices.referenceE8(price)),
    timestamp: new Date(price.updatedMs).toISOString(),
    source: priceSourceNames[price.source],
    stale: options.clock() - price.updatedMs > options.staleMs,
  });
  /** The last `days` closes as the history route gives them. */
  const history = (asset: OracleAsset, days: number) => {
    const closes = options.view.prices.closes(asset.symbol, days);
    if (closes === undefined) throw new ApiError(404, 'PRICE_NOT_AVAILABLE', `the oracle has no price of ${asset.symbol} yet`);
    return closes.closesE8.map((closeE8, index) => ({ date: dateOfDay(closes.firstDay + index), close: formatPriceE8(closeE8) }));
  };
  const tags = ['Prediction markets, pricing, trading'];

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/prices/{asset}',
      name: 'get_price',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['ASSET_NOT_FOUND', 'PRICE_NOT_AVAILABLE'],
      response: priceRecordSchema,
      summary: 'Latest oracle price of one asset: price, change_24h (percent), timestamp, source and stale flag',
      handler: (request) => {
        const [asset, price] = priced(request.params['asset'] ?? '');
        return { body: record(asset, price) };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/prices',
      name: 'get_prices',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['ASSET_NOT_FOUND', 'PRICE_NOT_AVAILABLE', 'TOO_MANY_ASSETS'],
      query: Type.Object({ assets: Type.String({ minLength: 1, maxLength: 600 }) }, { additionalProperties: false }),
      response: pricesSchema,
      summary: `Latest oracle prices of several assets: query assets repeated per asset (or comma-separated), at most ${assetsPerRequestMax}`,
      handler: (request) => {
        const symbols = [...new Set(request.queryAll('assets').flatMap((value) => value.split(',')).map((value) => value.trim().toUpperCase()).filter((value) => value !== ''))];
        if (symbols.length === 0) throw new ApiError(422, 'VALIDATION_FAILED', 'query.assets: name at least one asset');
        if (symbols.length > assetsPerRequestMax) throw new ApiError(422, 'TOO_MANY_ASSETS', `query.assets: at most ${assetsPerRequestMax} assets per request`);
        return { body: { prices: symbols.map((symbol) => record(...priced(symbol))) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/prices/{asset}/history',
      name: 'get_price_history',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['ASSET_NOT_FOUND', 'PRICE_NOT_AVAILABLE'],
      query: Type.Object({ days: Type.Optional(integerText(3)) }, { additionalProperties: false }),
      response: priceHistorySchema,
      summary: `Daily closes of one asset, oldest first, ending with the latest close (days 1-${historyDaysMax}, default ${historyDaysDefault})`,
      handler: (request) => {
        const days = request.query.days === undefined ? historyDaysDefault : Number(request.query.days);
        if (days < 1 || days > historyDaysMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.days: must be 1 to ${historyDaysMax}`);
        const asset = known(request.params['asset'] ?? '');
        const closes = history(asset, days);
        return { body: { asset: asset.symbol, asset_type: asset.assetType, days: closes.length, history: closes } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/technical-indicators/macd/{symbol}',
      name: 'get_macd',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['ASSET_NOT_FOUND', 'PRICE_NOT_AVAILABLE', 'INSUFFICIENT_HISTORY'],
      query: Type.Object(
        {
          days: Type.Optional(integerText(4)),
          fast_period: Type.Optional(integerText(4)),
          slow_period: Type.Optional(integerText(4)),
          signal_period: Type.Optional(integerText(4)),
        },
        { additionalProperties: false },
      ),
      response: macdSchema,
      summary: 'MACD of an asset\'s daily closes (TA-Lib convention): days 35-365 (default 90), fast 12, slow 26, signal 9',
      handler: (request) => {
        const number = (text: string | undefined, fallback: number) => (text === undefined ? fallback : Number(text));
        const days = number(request.query.days, macdDefaults.days);
        const fast = number(request.query.fast_period, macdDefaults.fastPeriod);
        const slow = number(request.query.slow_period, macdDefaults.slowPeriod);
        const signal = number(request.query.signal_period, macdDefaults.signalPeriod);
        const problem = macdInputProblem(days, fast, slow, signal);
        if (problem !== null) throw new ApiError(422, 'VALIDATION_FAILED', `query.${problem}`);
        const asset = known(request.params['symbol'] ?? '');
        const closes = history(asset, days);
        if (closes.length < days) {
          throw new ApiError(422, 'INSUFFICIENT_HISTORY', `${asset.symbol} has ${closes.length} daily closes; days asks for ${days}`);
        }
        const series = closes.map((row) => ({ date: row.date, close: Number(row.close) }));
        return { body: computeMacd(asset.symbol, series, { fastPeriod: fast, slowPeriod: slow, signalPeriod: signal }) };
      },
    }),
  ];
}
