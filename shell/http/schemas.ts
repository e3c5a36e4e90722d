/**
 * Response schemas shared by the exchange, account, funding and auth routes (TypeBox, so each is both the
 * JSON Schema the OpenAPI document and the MCP tools show and the one the tests check answers against).
 * The records several routes answer (orders, fills, trades, balances, API keys, tokens, withdrawals, the
 * error shape) are declared once here; a route's own envelope is declared beside the route.
 *
 * Amounts, prices and quantities are decimal strings (never numbers), ids are decimal strings of integers,
 * and times are ISO 8601 UTC with milliseconds, as README's HTTP conventions say.
 */
import { Type, type ObjectOptions, type StringOptions, type TProperties, type TSchema } from '@sinclair/typebox';
import { modeNames, orderTypeNames, selfTradePreventionNames, sideNames, timeInForceNames } from '../../engine/core/commands.ts';
import { orderStatusNames } from '../../engine/core/events.ts';
import { tiers } from '../auth/api-keys.ts';

/** A value or null. */
export function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** An object with exactly these properties, all required: the shape of a record the handler builds whole. */
export function closed<T extends TProperties>(properties: T, options: ObjectOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/**
 * An answer that is one of several object shapes. The root says `type: object` as well: MCP requires a
 * tool's output schema to be an object schema, and a bare union would lose it.
 */
export function objectUnion<T extends TSchema[]>(variants: [...T], options: { description?: string } = {}) {
  return Type.Union(variants, { type: 'object', ...options });
}

/** One of a fixed list of words. */
export function oneOf(names: readonly string[], options: { description?: string } = {}) {
  return Type.Union(
    names.map((name) => Type.Literal(name)),
    options,
  );
}

/** A non-negative decimal string such as `2990.50` or `0` (the units follow from the field). */
export function decimalString(description?: string, options: StringOptions = {}) {
  return Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', ...(description === undefined ? {} : { description }), ...options });
}

/** A decimal string that may be negative (a change). */
export function signedDecimalString(description?: string) {
  return Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', ...(description === undefined ? {} : { description }) });
}

/** The id of an order, trade, TWAP, scale order or withdrawal: a positive integer as a string. */
export function id(description?: string) {
  return Type.String({ pattern: '^[0-9]{1,16}$', ...(description === undefined ? {} : { description }) });
}

/** An ISO 8601 UTC time with milliseconds, as `Date.prototype.toISOString` writes it. */
export function timestamp(description?: string) {
  return Type.String({
    format: 'date-time',
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
    ...(description === undefined ? {} : { description }),
  });
}

/** `before` of the next page of a list that pages backwards by id; null on the last page. */
export const nextBeforeField = nullable(Type.String({ pattern: '^[0-9]{1,16}$', description: 'pass as `before` for the next page; null on the last one' }));

export const symbolField = Type.String({ description: "the pair's base token symbol (ETH); the path's {symbol} is its slug" });
export const pairField = Type.String({ description: 'the pair as BASE/QUOTE (ETH/USDC)' });
export const assetField = Type.String({ description: 'an asset symbol (USDC)' });
export const sideField = oneOf(sideNames);
export const modeField = oneOf(modeNames, { description: 'live trading or the paper account' });
export const userIdField = Type.Integer({ minimum: 1, description: "the account's user id" });

/** The one error shape of the API, also an item of the batch routes' results. */
export const errorSchema = closed({
  error: closed({
    code: Type.String({ description: 'a stable upper-case code such as INSUFFICIENT_BALANCE' }),
    message: Type.String({ description: 'what went wrong, for people' }),
  }),
});

// ---------------------------------------------------------------------------------------------------
// Orders (shell/http/order-json.ts writes them as text; these are the same fields, in the same order).

/**
 * A client order id: 1 to 64 letters, digits, `.`, `_`, `:` or `-` (the engine's
 * clientOrderIdLengthMax), unique among the account's open orders. Kept to characters that need no
 * escaping in a URL path, so that it can name its order in /orders/by-client-id/{client_order_id}.
 */
export const clientOrderIdPattern = '^[A-Za-z0-9._:-]{1,64}$';
export const clientOrderIdField = nullable(Type.String({ description: 'the id the client gave at placement; null when it gave none' }));

/** The fields every order record starts with (orderJson). */
const orderFields = {
  order_id: id(),
  client_order_id: clientOrderIdField,
  symbol: symbolField,
  pair: pairField,
  side: sideField,
  order_type: oneOf(orderTypeNames, { description: 'an order placed as `ioc` is a limit order with time_in_force IOC' }),
  time_in_force: oneOf(timeInForceNames, { description: 'as the engine runs it: market kinds are always IOC' }),
  post_only: Type.Boolean(),
  stp: oneOf(selfTradePreventionNames, { description: 'self-trade prevention' }),
  quantity: decimalString('ordered quantity in the base asset'),
  price: nullable(decimalString('limit price in the quote asset; null for market and stop_market orders')),
  stop_price: nullable(decimalString('trigger price of a stop order; null for other orders')),
  mode: modeField,
  status: oneOf(orderStatusNames),
  filled_quantity: decimalString('quantity filled so far'),
  average_price: nullable(decimalString('average fill price, four decimals beyond the tick; null before the first fill')),
  created_at: timestamp(),
  twap_id: nullable(id('the TWAP whose slice placed this order')),
  scale_id: nullable(id('the scale order this order is a rung of')),
  sim_tx_hash: nullable(Type.String({ description: 'settlement hash of the first fill that settled through a (simulated) chain' })),
};

/** One fill of an order as a placement answer lists it (fillJson). */
export const orderFillSchema = closed({
  trade_id: id(),
  price: decimalString(),
  quantity: decimalString(),
  fee: decimalString('fee charged on this fill, in fee_asset'),
  fee_asset: assetField,
  liquidity: oneOf(['taker', 'maker']),
  venue: Type.String({ description: '`clob` for our order book, else the AMM pool filled against' }),
  chain: nullable(Type.String({ description: "the pool's chain; null for the order book" })),
  sim_tx_hash: nullable(Type.String({ description: 'settlement hash of a fill that settled through a (simulated) chain' })),
});

/** The order record of a placement (POST /orders, batches, scale orders): the order and the fills it made. */
export const placedOrderSchema = closed({ ...orderFields, fills: Type.Array(orderFillSchema, { description: 'fills this placement made, in order' }) });

/** An order as the read models keep it (GET /orders/{id}, /orders/history): fees paid and the last change. */
export const storedOrderSchema = closed({
  ...orderFields,
  fee: decimalString('fees paid on all its fills, in fee_asset'),
  fee_asset: assetField,
  updated_at: timestamp('when its status or fills last changed'),
});

// ---------------------------------------------------------------------------------------------------
// Trades, candles, the 24-hour ticker.

/** A public trade of the live book. */
export const tradeSchema = closed({
  trade_id: id(),
  price: decimalString(),
  quantity: decimalString(),
  side: oneOf(sideNames, { description: "the taker's side" }),
  timestamp: timestamp(),
});

/** One of the caller's fills. */
export const ownFillSchema = closed({
  trade_id: id(),
  order_id: id(),
  client_order_id: clientOrderIdField,
  symbol: symbolField,
  pair: pairField,
  side: sideField,
  role: oneOf(['maker', 'taker']),
  price: decimalString(),
  quantity: decimalString(),
  quote_quantity: decimalString('price × quantity in the quote asset'),
  fee: decimalString(),
  fee_asset: assetField,
  mode: modeField,
  timestamp: timestamp(),
});

export const candleSchema = closed({
  time: timestamp('start of the interval'),
  open: decimalString(),
  high: decimalString(),
  low: decimalString(),
  close: decimalString(),
  volume: decimalString('base quantity traded'),
  quote_volume: decimalString('quote notional traded'),
  trades: Type.Integer({ minimum: 0 }),
});

/** The 24-hour figures of a pair (tickerFields); null prices mean the pair never traded in the window. */
export const tickerFields = {
  symbol: symbolField,
  pair: pairField,
  price: nullable(decimalString('last trade price')),
  open_24h: nullable(decimalString('first price of the 24-hour window')),
  high_24h: nullable(decimalString()),
  low_24h: nullable(decimalString()),
  change_24h: nullable(signedDecimalString('last price minus the open')),
  change_percent_24h: nullable(signedDecimalString('change in percent, two decimals, rounded half away from zero')),
  volume_24h: decimalString('base quantity traded in the window'),
  quote_volume_24h: decimalString('quote notional traded in the window'),
  trades_24h: Type.Integer({ minimum: 0 }),
  window_start: timestamp('start of the 24-hour window'),
};

// ---------------------------------------------------------------------------------------------------
// Pairs, balances.

/** A trading pair as GET /pairs lists it (pairRecord). */
export const pairFields = {
  symbol: symbolField,
  slug: Type.String({ description: 'the path form of the symbol ({symbol})' }),
  pair: pairField,
  base: assetField,
  quote: assetField,
  tick_size: decimalString('price step'),
  lot_size: decimalString('quantity step'),
  max_price: decimalString(),
  max_quantity: decimalString(),
  taker_fee_bps: Type.Integer({ minimum: 0 }),
  maker_fee_bps: Type.Integer({ minimum: 0 }),
};
export const pairSchema = closed(pairFields);

/** One asset's balance of an account. */
export const balanceSchema = closed({
  asset: assetField,
  available: decimalString('free to trade or withdraw'),
  held: decimalString('held for open orders'),
  total: decimalString('available + held'),
});

// ---------------------------------------------------------------------------------------------------
// Credentials.

/** An API key as listings show it (keyView): the key masked, never its secret. */
export const apiKeyFields = {
  api_key_id: Type.Integer({ minimum: 1 }),
  key_name: Type.String(),
  api_key: Type.String({ description: 'the key, masked after creation' }),
  permissions: Type.Array(oneOf(['read', 'trade'])),
  tier: oneOf(tiers, { description: 'sets the rate limits' }),
  signed: Type.Boolean({ description: 'requests with this key must carry X-Timestamp and X-Signature (README "Signed requests")' }),
  created_at: timestamp(),
};
export const apiKeySchema = closed(apiKeyFields);

/** A new key: shown once, in full, with its secret. */
export const createdApiKeyFields = {
  ...apiKeyFields,
  api_key: Type.String({ description: 'the key in full (tpk_…), shown only now' }),
  api_secret: Type.String({ description: 'its secret (tps_…), shown only now' }),
};

/** A session's tokens (Tokens.issue and rotate). */
export const tokenFields = {
  access_token: Type.String({ description: 'a JWT for Authorization: Bearer' }),
  refresh_token: Type.String({ description: 'for POST /auth/refresh; used once' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ minimum: 1, description: "the access token's lifetime in seconds" }),
};
export const tokenSchema = closed(tokenFields);

// ---------------------------------------------------------------------------------------------------
// Funding.

export const withdrawalFields = {
  withdrawal_id: id(),
  client_withdrawal_id: nullable(Type.String({ description: "the client's idempotency reference" })),
  asset: assetField,
  amount: decimalString(),
  chain: Type.String(),
  address: Type.String({ description: 'the destination, normalized' }),
  status: oneOf(['completed'], { description: 'the embedded chain simulator settles a withdrawal when it is journaled' }),
  tx_hash: Type.String({ description: 'sim- and a UUID derived from the command seq' }),
  created_at: timestamp(),
};
export const withdrawalSchema = closed(withdrawalFields);

export const whitelistEntrySchema = closed({
  address: Type.String({ description: 'normalized' }),
  chain: Type.String(),
  label: Type.String(),
  status: oneOf(['cooling', 'usable']),
  created_at: timestamp(),
  usable_at: timestamp('when the cooling period ends'),
});
