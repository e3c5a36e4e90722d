/**
 * Response schemas of the arena routes, from the records of records.ts: the market, the running epoch, a
 * resolved epoch, a team's book and portfolio, headlines, orders and positions. Money and NAVs are USDC
 * decimal strings (6 decimals), share prices USDC with 2, sizes shares with 3, oracle prices USD with 8,
 * returns and changes percent with 2.
 */
import { Type } from '@sinclair/typebox';
import { headlineKindNames, teamNames } from '../../engine/domains/arena/commands.ts';
import { decimalText, idText, isoTime, nullable, enumOf, percentText } from '../prices/schemas.ts';

const team = enumOf(teamNames);
const side = enumOf(['buy', 'sell'] as const);
const usdc = (description: string) => decimalText(`${description}, USDC (6 decimals)`);
const sharePrice = (description: string) => decimalText(`${description}, USDC per share (0.01 steps)`);
const shares = (description: string) => decimalText(`${description}, in shares (0.001 steps)`);
const percent = (description: string) => percentText(`${description}, in percent`);
const leaderSchema = nullable(enumOf(teamNames, 'the team with the higher NAV this epoch (null when level)'));
const scoreboardSchema = Type.Object(
  { BLUE: Type.Integer({ minimum: 0 }), RED: Type.Integer({ minimum: 0 }), ties: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false, description: 'epochs won by each team, and ties' },
);
const teamNavFields = { team, nav: usdc('NAV per share now'), return_pct: percent('NAV against the epoch\'s base NAV') };

/** The running epoch (GET /api/v1/arena/epoch/current, and inside the market). */
export const epochSchema = Type.Object(
  {
    epoch: Type.Integer({ minimum: 0 }),
    status: Type.Literal('running'),
    start: isoTime(),
    end: isoTime(),
    epoch_seconds: Type.Number({ description: 'every epoch\'s length' }),
    countdown_seconds: Type.Integer({ minimum: 0, description: 'seconds to the end' }),
    teams: Type.Array(Type.Object(teamNavFields, { additionalProperties: false })),
    leader: leaderSchema,
    updated_at: isoTime('when the arena last changed'),
  },
  { additionalProperties: false },
);

/** A resolved epoch (GET /api/v1/arena/epoch/{n} and each entry of the history). */
export const epochResultSchema = Type.Object(
  {
    epoch: Type.Integer({ minimum: 0 }),
    start: isoTime(),
    end: isoTime(),
    winner: nullable(team),
    tie: Type.Boolean(),
    teams: Type.Array(Type.Object({ team, nav_end: usdc('NAV per share at the end'), return_pct: percent('closing NAV against the base NAV') }, { additionalProperties: false })),
    bonus_pool: usdc('the bonus pool at the end'),
    bonus_paid: usdc('paid to the winning team\'s holders'),
    bonus_carried: usdc('carried to the next epoch'),
    winners_paid: Type.Integer({ minimum: 0, description: 'holders paid a bonus' }),
  },
  { additionalProperties: false },
);

const houseSchema = Type.Object(
  { spread_bps: Type.Integer({ minimum: 0 }), size: shares('the house\'s quote size'), inventory_max: shares('the most the house holds either way') },
  { additionalProperties: false, description: 'the house market maker\'s settings' },
);

const marketFields = {
  market_id: Type.Literal('arena'),
  status: Type.Literal('running'),
  nav_base: usdc('every epoch\'s starting NAV per share'),
  epoch: epochSchema,
  teams: Type.Array(
    Type.Object({ ...teamNavFields, best_bid: nullable(sharePrice('the highest bid')), best_ask: nullable(sharePrice('the lowest ask')) }, { additionalProperties: false }),
  ),
  leader: leaderSchema,
  scoreboard: scoreboardSchema,
  bonus_pool: usdc('the bonus pool now'),
  taker_fee_bps: Type.Integer({ minimum: 0 }),
  tick_size: decimalText('the price step, USDC'),
  lot_size: decimalText('the size step, shares'),
  house: houseSchema,
};

export const arenaMarketSchema = Type.Object(marketFields, { additionalProperties: false });

export const seededSchema = Type.Object(
  { created: Type.Boolean({ description: 'true when this call created the arena (201), false when it existed (200)' }), ...marketFields },
  { additionalProperties: false },
);

export const teamsSchema = Type.Object(
  {
    teams: Type.Array(
      Type.Object(
        {
          ...teamNavFields,
          nav_base: usdc('the epoch\'s starting NAV per share'),
          portfolio: Type.Array(
            Type.Object(
              {
                asset: Type.String(),
                weight_bps: Type.Integer({ minimum: 0 }),
                weight_pct: percent('the weight'),
                start_price: nullable(decimalText('the oracle price at the epoch start, USD (8 decimals)')),
                price: nullable(decimalText('the oracle price now, USD (8 decimals)')),
                change_pct: nullable(percent('price against start_price')),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    updated_at: isoTime(),
  },
  { additionalProperties: false },
);

const levelSchema = Type.Object(
  { price: sharePrice('the level\'s price'), quantity: shares('resting at the level'), orders: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const arenaBookSchema = Type.Object(
  {
    team,
    nav: usdc('NAV per share now'),
    bids: Type.Array(levelSchema, { description: 'best (highest) first' }),
    asks: Type.Array(levelSchema, { description: 'best (lowest) first' }),
    best_bid: nullable(sharePrice('the highest bid')),
    best_ask: nullable(sharePrice('the lowest ask')),
    spread: nullable(sharePrice('best_ask - best_bid')),
    timestamp: isoTime(),
  },
  { additionalProperties: false },
);

export const historySchema = Type.Object(
  {
    epochs: Type.Array(epochResultSchema, { description: 'newest first' }),
    total: Type.Integer({ minimum: 0, description: 'resolved epochs kept' }),
    limit: Type.Integer({ minimum: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    scoreboard: scoreboardSchema,
  },
  { additionalProperties: false },
);

export const headlinesSchema = Type.Object(
  {
    headlines: Type.Array(
      Type.Object({ text: Type.String(), kind: enumOf([...headlineKindNames, 'other'] as const), timestamp: isoTime() }, { additionalProperties: false }),
      { description: 'newest first' },
    ),
  },
  { additionalProperties: false },
);

export const placedArenaOrderSchema = Type.Object(
  {
    order_id: idText(),
    team,
    side,
    price: sharePrice('the limit price'),
    size: shares('ordered'),
    filled_size: shares('filled on arrival'),
    remaining_size: shares('resting now'),
    status: enumOf(['open', 'partially_filled', 'filled', 'cancelled'] as const),
    average_price: nullable(usdc('the average fill price per share (null without fills)')),
    fee: usdc('taker fees paid'),
    fills: Type.Array(
      Type.Object({ price: sharePrice('the maker\'s price'), size: shares('filled'), fee: usdc('the taker fee'), maker: enumOf(['house', 'user'] as const) }, { additionalProperties: false }),
    ),
    created_at: isoTime(),
  },
  { additionalProperties: false },
);

export const cancelledArenaOrderSchema = Type.Object(
  { order_id: idText(), team, side, price: sharePrice('the limit price'), cancelled_size: shares('what was still resting'), status: Type.Literal('cancelled') },
  { additionalProperties: false },
);

export const positionsSchema = Type.Object(
  {
    epoch: Type.Integer({ minimum: 0 }),
    positions: Type.Array(
      Type.Object(
        {
          team,
          shares: shares('held, resting sells included'),
          average_cost: usdc('cost per share'),
          cost: usdc('what the shares cost'),
          nav: usdc('NAV per share now'),
          value: usdc('shares at NAV'),
          unrealized_pnl: usdc('value - cost'),
          return_pct: percent('value against cost'),
        },
        { additionalProperties: false },
      ),
    ),
    open_orders: Type.Array(
      Type.Object({ order_id: idText(), team, side, price: sharePrice('the limit price'), remaining_size: shares('resting') }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
