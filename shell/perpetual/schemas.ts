/**
 * Response schemas of the perpetual prediction market routes: a market with its current epoch, a
 * prediction, the caller's balance and trades. Amounts are decimal strings of the collateral token,
 * implied prices decimal strings in [0, 1] with 6 decimals, oracle prices USD with up to 8 decimals.
 */
import { Type } from '@sinclair/typebox';
import { modeNames } from '../../engine/core/commands.ts';
import { outcomeNames, sideNames } from '../../engine/domains/perpetual/commands.ts';
import { decimalText, idText, isoTime, nullable, enumOf, priceText } from '../prices/schemas.ts';

const mode = enumOf(modeNames, 'live or paper money');
const side = enumOf(sideNames, 'YES: the price ends above the epoch\'s start price; NO: below');
const amount = (description: string) => decimalText(`${description}, in the collateral token`);
const impliedPrice = (description: string) => decimalText(`${description}: its share of the epoch's pool, 6 decimals (0.5 while the pool is empty)`);
const simTxHash = Type.String({ pattern: '^sim-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: 'the simulated transaction hash of a paper prediction (paper only)' });

const marketFields = {
  symbol: Type.String({ description: 'the market\'s asset, upper case' }),
  collateral: Type.String({ description: 'the collateral token\'s symbol' }),
  mode,
  epoch: nullable(Type.Integer({ minimum: 0, description: 'the current epoch\'s number (null before the oracle priced the asset)' })),
  epoch_start: nullable(isoTime()),
  epoch_end: nullable(isoTime('when the epoch stops taking predictions and resolves')),
  start_price: nullable(priceText('the oracle price at the epoch start')),
  current_price: nullable(priceText('the latest oracle price')),
  yes_pool: nullable(amount('staked on YES this epoch')),
  no_pool: nullable(amount('staked on NO this epoch')),
  yes_price: nullable(impliedPrice('the YES price')),
  no_price: nullable(impliedPrice('the NO price')),
  house_seed: nullable(amount('what the house seeded the pools with')),
  status: enumOf(['open', 'resolving', 'waiting'] as const, 'open: taking predictions; resolving: past its end, resolved by the next timer; waiting: no oracle price yet'),
};

export const perpetualMarketsSchema = Type.Object({ markets: Type.Array(Type.Object(marketFields, { additionalProperties: false })) }, { additionalProperties: false });

export const perpetualStatusSchema = Type.Object(
  {
    ...marketFields,
    epoch_length_seconds: Type.Number({ description: 'every epoch\'s length' }),
    countdown_seconds: nullable(Type.Integer({ minimum: 0, description: 'seconds to the epoch end' })),
    last_resolution: nullable(
      Type.Object(
        {
          epoch: Type.Integer({ minimum: 0 }),
          epoch_start: isoTime(),
          epoch_end: isoTime(),
          start_price: priceText(),
          end_price: priceText(),
          outcome: enumOf(outcomeNames, 'YES when the price ended above the start, NO below, REFUND when it did not move'),
          yes_pool: amount('staked on YES in the requested mode'),
          no_pool: amount('staked on NO in the requested mode'),
          resolved_at: isoTime(),
        },
        { additionalProperties: false, description: 'the market\'s last resolved epoch (null before the first)' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const predictionSchema = Type.Object(
  {
    prediction_id: idText(),
    market_symbol: Type.String(),
    side,
    amount: amount('the stake'),
    epoch: Type.Integer({ minimum: 0 }),
    mode,
    yes_pool: amount('the YES pool after the prediction'),
    no_pool: amount('the NO pool after the prediction'),
    yes_price: impliedPrice('the YES price after it'),
    no_price: impliedPrice('the NO price after it'),
    created_at: isoTime(),
    sim_tx_hash: Type.Optional(simTxHash),
  },
  { additionalProperties: false },
);

/** One of the caller's predictions, open or resolved. */
export const perpetualTradeSchema = Type.Object(
  {
    prediction_id: idText(),
    market_symbol: Type.String(),
    side,
    amount: amount('the stake'),
    epoch: Type.Integer({ minimum: 0 }),
    epoch_end: isoTime(),
    mode,
    outcome: enumOf(['pending', 'won', 'lost', 'refunded'] as const),
    payout: nullable(amount('what the prediction was paid (null while pending)')),
    created_at: isoTime(),
    resolved_at: nullable(isoTime()),
    sim_tx_hash: Type.Optional(simTxHash),
  },
  { additionalProperties: false },
);

export const perpetualBalanceSchema = Type.Object(
  {
    collateral: Type.String(),
    mode,
    available: amount('free to stake'),
    held: amount('held by open stakes and open orders'),
    staked: amount('the sum of the open stakes'),
    open_stakes: Type.Array(perpetualTradeSchema),
  },
  { additionalProperties: false },
);

export const perpetualTradesSchema = Type.Object(
  { trades: Type.Array(perpetualTradeSchema, { description: 'newest first' }), next_cursor: nullable(idText('pass as cursor for the next (older) page; null on the last')) },
  { additionalProperties: false },
);
