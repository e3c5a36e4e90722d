/**
 * Response schemas of the prediction market routes: the market record, its book, its results, orders and
 * bets, each declared once and used by every route that answers it. Prices and quantities are decimal
 * strings on the 0.001 grid; amounts in the market's settlement token; times ISO 8601 UTC.
 */
import { Type } from '@sinclair/typebox';
import { assetTypeNames, marketStatusNames } from '../../engine/domains/markets/index.ts';
import { decimalText, idText, isoTime, nullable, enumOf, percentText, priceText } from '../prices/schemas.ts';

const address = Type.String({ pattern: '^0x[0-9a-f]{40}$', description: 'the market\'s contract address (a platform identifier, not an on-chain address)' });
const marketId = Type.Integer({ minimum: 0, description: 'the market\'s numeric id' });
const userId = Type.Integer({ minimum: 1 });
const asset = Type.String({ description: 'an asset symbol of the market, upper case' });
const status = enumOf(marketStatusNames, 'pending before start_time, active until end_time, then completed');
const side = enumOf(['buy', 'sell'] as const);
const shares = (description: string) => decimalText(`${description}, in shares (0.001 steps)`);
const amount = (description: string) => decimalText(`${description}, in the market's token`);
const yesPrice = (description: string) => decimalText(`${description}: a YES share's price in (0, 1), 0.001 steps`);
/** Per asset of the market, an oracle price (USD); null until the market has them. */
const pricesByAsset = (description: string) => nullable(Type.Record(Type.String(), priceText(), { description }));

export const marketSchema = Type.Object(
  {
    id: marketId,
    contract_address: address,
    name: Type.String(),
    description: Type.String(),
    assets: Type.Array(asset),
    asset_type: enumOf(assetTypeNames),
    token: Type.String({ description: 'the settlement token\'s symbol' }),
    start_time: isoTime(),
    end_time: isoTime(),
    min_bet: amount('the smallest winner-takes-all bet'),
    max_bet: amount('the largest winner-takes-all bet'),
    status,
    created_at: isoTime(),
    creator_user_id: userId,
    start_prices: pricesByAsset('each asset\'s oracle price at start_time (null while pending)'),
    end_prices: pricesByAsset('each asset\'s oracle price at end_time (null until completed)'),
    winners: nullable(Type.Array(asset, { description: 'the asset(s) with the largest change (null until completed)' })),
  },
  { additionalProperties: false },
);

export const marketListSchema = Type.Object(
  { markets: Type.Array(marketSchema), cursor: nullable(Type.String({ description: 'pass as cursor for the next page; null on the last page' })) },
  { additionalProperties: false },
);

const levelSchema = Type.Object(
  { price: yesPrice('the level\'s price'), quantity: shares('resting quantity at the level'), orders: Type.Integer({ minimum: 1, description: 'resting orders at the level' }) },
  { additionalProperties: false },
);

/** One asset's YES book as the REST route answers it (the stream's snapshots carry the same fields). */
export const marketBookSchema = Type.Object(
  {
    contract_address: address,
    asset,
    bids: Type.Array(levelSchema, { description: 'best (highest) first' }),
    asks: Type.Array(levelSchema, { description: 'best (lowest) first' }),
    best_bid: nullable(yesPrice('the highest bid')),
    best_ask: nullable(yesPrice('the lowest ask')),
    spread: nullable(yesPrice('best_ask - best_bid (null unless both sides rest)')),
  },
  { additionalProperties: false },
);

export const marketResultsSchema = Type.Object(
  {
    contract_address: address,
    market_id: marketId,
    status,
    token: Type.String(),
    standings: Type.Array(
      Type.Object(
        {
          asset,
          start_price: nullable(priceText()),
          end_price: nullable(priceText()),
          change_pct: nullable(percentText('end against start, in percent')),
          rank: nullable(Type.Integer({ minimum: 1, description: '1 = largest change; tied assets share a rank (null until completed)' })),
        },
        { additionalProperties: false },
      ),
    ),
    winners: nullable(Type.Array(asset)),
    wta: Type.Object(
      {
        pool: amount('the winner-takes-all pool (the sum of the stakes)'),
        bets: Type.Array(Type.Object({ user_id: userId, asset, amount: amount('the stake') }, { additionalProperties: false })),
        payouts: Type.Array(
          Type.Object({ user_id: userId, asset, stake: amount('the stake'), payout: amount('what the stake was paid') }, { additionalProperties: false }),
          { description: 'empty until completed' },
        ),
        remainder: nullable(amount('what the pro-rata split left over (null until completed)')),
        refunded: nullable(Type.Boolean({ description: 'true when no stake was on a winner and stakes went back (null until completed)' })),
      },
      { additionalProperties: false },
    ),
    positions_payouts: Type.Array(Type.Object({ user_id: userId, shares: shares('winning shares held'), payout: amount('paid for them') }, { additionalProperties: false })),
    positions_payout_total: amount('the sum of the position payouts'),
  },
  { additionalProperties: false },
);

const orderFields = {
  order_id: idText(),
  contract_address: address,
  market_id: marketId,
  user_id: userId,
  asset,
  side,
  price: yesPrice('the limit price'),
  quantity: shares('ordered quantity'),
  filled_quantity: shares('filled so far'),
  remaining_quantity: shares('still resting'),
  created_at: isoTime(),
};

/** An open order as GET .../orders lists it. */
export const marketOrderSchema = Type.Object({ ...orderFields, status: enumOf(['open', 'partially_filled'] as const) }, { additionalProperties: false });

export const marketOrdersSchema = Type.Object({ contract_address: address, orders: Type.Array(marketOrderSchema, { description: 'oldest first' }) }, { additionalProperties: false });

export const placedMarketOrderSchema = Type.Object(
  {
    ...orderFields,
    status: enumOf(['open', 'partially_filled', 'filled', 'cancelled'] as const, 'cancelled when self-trade prevention or the market\'s end took the rest'),
    fills: Type.Array(
      Type.Object(
        { price: yesPrice('the maker\'s price'), quantity: shares('filled'), role: Type.Literal('taker'), fee: amount('the taker fee') },
        { additionalProperties: false },
      ),
      { description: 'the fills the order made on arrival' },
    ),
  },
  { additionalProperties: false },
);

export const cancelledMarketOrderSchema = Type.Object(
  { order_id: idText(), contract_address: address, asset, side, price: yesPrice('the limit price'), remaining_quantity: shares('what was still resting'), status: Type.Literal('cancelled') },
  { additionalProperties: false },
);

export const betSchema = Type.Object(
  {
    market_id: marketId,
    contract_address: address,
    user_id: userId,
    asset,
    amount: amount('this bet'),
    stake: amount('the caller\'s whole stake on the asset after it'),
    pool: amount('the pool after it'),
    placed_at: isoTime(),
  },
  { additionalProperties: false },
);
