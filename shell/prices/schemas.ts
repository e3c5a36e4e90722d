/**
 * Response schemas of the price routes, and the few building blocks the older domains' response schemas
 * share (markets, perpetual, arena and event cards import them from here): decimal strings, ISO times,
 * enums as literal unions, nullable values. Each route declares what its handler answers exactly, so the
 * OpenAPI document and the MCP tools' output schemas say what a client really gets.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { priceSourceNames } from '../../engine/domains/prices/commands.ts';

/** A value or null (a field that is not known yet, such as a price before the oracle has one). */
export const nullable = <Schema extends TSchema>(schema: Schema) => Type.Union([schema, Type.Null()]);

/** One of the given words (an enum written as a union of literals, as TypeBox and OpenAPI 3.1 read it). */
export const enumOf = <const Names extends readonly string[]>(names: Names, description?: string) =>
  Type.Union(names.map((name) => Type.Literal(name)), description === undefined ? {} : { description });

/** A decimal written as a string (money, prices, quantities: never a float): an optional minus, digits, an optional fraction. */
export const decimalText = (description?: string) => Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', ...(description === undefined ? {} : { description }) });

/** An integer written as a string (order and prediction ids, which may outgrow a JSON reader's doubles). */
export const idText = (description?: string) => Type.String({ pattern: '^[0-9]+$', ...(description === undefined ? {} : { description }) });

/** A time in ISO 8601 UTC with milliseconds, as Date.prototype.toISOString writes it. */
export const isoTime = (description?: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$', description: description ?? 'ISO 8601 UTC time' });

/** A calendar date, YYYY-MM-DD (UTC). */
export const isoDate = (description?: string) => Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: description ?? 'UTC date, YYYY-MM-DD' });

/** The kinds of asset the oracle prices. */
export const assetTypeSchema = enumOf(['crypto', 'stock'] as const);

/** An oracle price: USD with up to 8 decimals, trailing zeros trimmed. */
export const priceText = (description?: string) => Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,8})?$', description: description ?? 'USD, up to 8 decimals' });

/** A change in percent with two decimals ("1.23", "-0.05"), or null without a reference. */
export const percentText = (description: string) => Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}$', description });

/** One asset's latest price, as GET /api/v1/prices/{asset} and each entry of GET /api/v1/prices answer it. */
export const priceRecordSchema = Type.Object(
  {
    asset: Type.String({ description: 'the asset\'s symbol, upper case' }),
    asset_type: assetTypeSchema,
    price: priceText(),
    change_24h: nullable(percentText('change from the reference price 24 hours before, in percent (null without one)')),
    timestamp: isoTime('when the oracle last priced the asset'),
    source: enumOf(priceSourceNames, 'the feed the price came from'),
    stale: Type.Boolean({ description: 'true when the price is older than the staleness limit' }),
  },
  { additionalProperties: false },
);

export const pricesSchema = Type.Object({ prices: Type.Array(priceRecordSchema) }, { additionalProperties: false });

export const priceHistorySchema = Type.Object(
  {
    asset: Type.String(),
    asset_type: assetTypeSchema,
    days: Type.Integer({ minimum: 0, description: 'closes returned (fewer than asked when the history is shorter)' }),
    history: Type.Array(Type.Object({ date: isoDate(), close: priceText('the day\'s close (today: the latest price)') }, { additionalProperties: false }), { description: 'oldest first' }),
  },
  { additionalProperties: false },
);

const macdPointSchema = Type.Object(
  { date: isoDate(), macd: Type.Number(), signal: Type.Number(), histogram: Type.Number() },
  { additionalProperties: false },
);

/** The MACD's answer: numbers here are indicator values rounded to 8 decimals, not money. */
export const macdSchema = Type.Object(
  {
    symbol: Type.String(),
    current: Type.Object(
      { macd: Type.Number(), signal: Type.Number(), histogram: Type.Number(), trend: enumOf(['bullish', 'bearish', 'neutral'] as const, 'the sign of the last histogram') },
      { additionalProperties: false },
    ),
    interpretation: Type.Object(
      {
        signal: enumOf(['bullish_crossover', 'bearish_crossover', 'bullish_momentum', 'bearish_momentum', 'weakening', 'neutral'] as const, 'what the last histogram point did'),
        strength: enumOf(['strong', 'moderate', 'weak'] as const, '|histogram| / price: strong from 0.5 %, moderate from 0.1 %'),
        description: Type.String(),
      },
      { additionalProperties: false },
    ),
    metadata: Type.Object(
      { current_price: Type.Number({ description: 'the last close' }), start_date: isoDate(), end_date: isoDate(), data_points: Type.Integer({ description: 'closes used (= days)' }) },
      { additionalProperties: false },
    ),
    timeseries: Type.Array(macdPointSchema, { description: 'one point per close from index slow + signal - 2, oldest first' }),
  },
  { additionalProperties: false },
);
