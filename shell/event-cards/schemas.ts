/**
 * Response schemas of the event card routes: the card list, bull buys and sells, perpetual opens, closes
 * and open positions, and the house's exposure. Money is USDC decimal strings, index values decimal
 * strings with up to 8 decimals, units and fractions 6 decimals; positions are named by UUIDs.
 */
import { Type } from '@sinclair/typebox';
import { decimalText, isoTime, enumOf, percentText, nullable, priceText } from '../prices/schemas.ts';

const mode = enumOf(['live', 'paper'] as const);
const cardId = Type.String({ description: 'the card\'s slug' });
const positionId = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$', description: 'the position\'s UUID' });
const usdc = (description: string) => decimalText(`${description}, USDC`);
const index = (description: string) => priceText(`${description}: the card's index, up to 8 decimals`);
const sixDecimals = (description: string) => Type.String({ pattern: '^[0-9]+\\.[0-9]{6}$', description: `${description}, 6 decimals` });
const leverage = Type.Integer({ minimum: 1 });
const perpSide = enumOf(['short', 'long'] as const);

export const cardsSchema = Type.Object(
  {
    cards: Type.Array(
      Type.Object(
        {
          card_id: cardId,
          name: Type.String(),
          description: Type.String(),
          constituents: Type.Array(Type.Object({ symbol: Type.String(), weight: Type.Integer({ minimum: 0, description: 'basis points of the index' }) }, { additionalProperties: false })),
          index: index('now'),
          change_24h: nullable(percentText('the index against the index at the prices 24 hours before, in percent (null without them)')),
          open_interest: Type.Object(
            { long: usdc('long perpetual notional'), short: usdc('short perpetual notional'), bull: usdc('what open bull positions cost') },
            { additionalProperties: false },
          ),
          status: enumOf(['tradable', 'halted'] as const, 'halted while a constituent has no price'),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const bullBoughtSchema = Type.Object(
  {
    position_id: positionId,
    card_id: cardId,
    kind: Type.Literal('bull'),
    units: sixDecimals('index units bought'),
    entry_index: index('at the buy'),
    amount_usdc: usdc('spent on units'),
    fee: usdc('the taker fee, on top'),
    mode,
    created_at: isoTime(),
    sim_tx_hash: Type.Optional(Type.String({ pattern: '^sim-[0-9a-f-]{36}$', description: 'the simulated settlement hash (paper only)' })),
  },
  { additionalProperties: false },
);

export const bullSoldSchema = Type.Object(
  {
    position_id: positionId,
    fraction: sixDecimals('the share of the position sold'),
    units_sold: sixDecimals('index units sold'),
    exit_index: index('at the sale'),
    proceeds: usdc('paid out, after the fee'),
    fee: usdc('the fee'),
    remaining_units: sixDecimals('units left in the position'),
    closed: Type.Boolean({ description: 'true when nothing is left' }),
    mode,
  },
  { additionalProperties: false },
);

export const perpOpenedSchema = Type.Object(
  {
    position_id: positionId,
    card_id: cardId,
    side: perpSide,
    margin: usdc('the margin'),
    leverage,
    notional: usdc('margin × leverage'),
    entry_index: index('at the open'),
    liquidation_price: index('where the position is liquidated'),
    fee: usdc('the taker fee on the notional'),
    mode,
    created_at: isoTime(),
  },
  { additionalProperties: false },
);

export const perpClosedSchema = Type.Object(
  {
    position_id: positionId,
    exit_index: index('at the close'),
    realized_pnl: usdc('profit (negative: loss)'),
    funding: usdc('funding settled'),
    fee: usdc('the close fee'),
    returned: usdc('what went back to the account'),
    mode,
  },
  { additionalProperties: false },
);

export const perpPositionsSchema = Type.Object(
  {
    card_id: cardId,
    mode,
    positions: Type.Array(
      Type.Object(
        {
          position_id: positionId,
          side: perpSide,
          margin: usdc('the margin'),
          leverage,
          notional: usdc('the notional'),
          entry_index: index('at the open'),
          mark_index: index('now'),
          unrealized_pnl: usdc('at the mark'),
          funding: usdc('funding owed so far'),
          liquidation_price: index('where the position is liquidated, funding counted'),
          opened_at: isoTime(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const exposureSchema = Type.Object(
  {
    exposure: Type.Array(
      Type.Object(
        {
          card_id: cardId,
          mode,
          index: index('now'),
          bull_value: usdc('open bull units at the index'),
          long_notional: usdc('long perpetuals at the mark'),
          short_notional: usdc('short perpetuals at the mark'),
          net_exposure: usdc('short - long - bull: the house\'s delta (negative loses when the index rises)'),
          house_unrealized_pnl: usdc('the house\'s unrealized profit'),
        },
        { additionalProperties: false },
      ),
      { description: 'one entry per card and mode' },
    ),
  },
  { additionalProperties: false },
);
