/**
 * The event cards' routes (the API specification's "Event cards"):
 *
 *   GET  /api/v1/event-cards                           tradable cards with index, change_24h, open interest
 *   POST /api/v1/event-cards/{card_id}/buy             a bull position: {amount_usdc}
 *   POST /api/v1/event-cards/{card_id}/sell            sells a fraction of one: {position_id, fraction}
 *   POST /api/v1/event-cards/{card_id}/short           a perpetual: {margin_usdc, leverage, side short|long}
 *   POST /api/v1/event-cards/{card_id}/short/close     closes one: {position_id}
 *   GET  /api/v1/event-cards/{card_id}/perp/positions  the caller's open perpetuals of the card
 *   GET  /api/v1/admin/event-cards/exposure            the house's net exposure per card and mode (admin)
 *
 * Every write takes `paper`/`is_paper` true or `mode` "paper" and goes through the sequencer; its answer
 * comes once the command is durable, from the command's own events. Reads come from the durable view.
 * Decimals at the edge: amounts in USDC, fractions in (0, 1] with at most 6 decimals, indexes as decimal
 * strings of at most 8 decimals.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Mode } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { amountToAtoms, formatAtoms, formatSteps, toSteps, newConversion, type Asset, type Step } from '../../engine/core/units.ts';
import {
  EventCardsCommandType,
  EventCardsEventType,
  EventCardsResult,
  PerpSide,
  PositionKind,
  leverageMax,
  type BullBought,
  type BullSold,
  type PerpClosed,
  type PerpOpened,
} from '../../engine/domains/event-cards/commands.ts';
import type { Card, Position } from '../../engine/domains/event-cards/event-cards.ts';
import { CardUuidKind, cardIndexE8, cardUuid, liquidationIndexE8, perpPnlAtoms, valueOfUnits } from '../../engine/domains/event-cards/math.ts';
import type { ShellContext } from '../context.ts';
import { ApiError, engineRefusal } from '../http/errors.ts';
import { isoTime } from '../http/order-json.ts';
import { ensurePaperAccount } from '../http/paper.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import { changePercent, formatPriceE8 } from '../prices/records.ts';
import type { EventCardsView } from './view.ts';
import { bullBoughtSchema, bullSoldSchema, cardsSchema, exposureSchema, perpClosedSchema, perpOpenedSchema, perpPositionsSchema } from './schemas.ts';

const tags = ['Event cards'];
/** Bull units and fractions: 6 decimals. */
const sixDecimals: Step = { mantissa: 1n, scale: 6 };
const uuidPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const Decimal = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()]);
const ModeFields = {
  mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')], { description: 'paper runs on the paper account (same as paper or is_paper true)' })),
  paper: Type.Optional(Type.Boolean()),
  is_paper: Type.Optional(Type.Boolean()),
};
const Flag = Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')]));
const ModeQuery = Type.Object({ mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')])), paper: Flag, is_paper: Flag }, { additionalProperties: false });
const BuyBody = Type.Object({ amount_usdc: Decimal, ...ModeFields }, { additionalProperties: false });
const SellBody = Type.Object(
  { position_id: Type.String({ pattern: uuidPattern }), fraction: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()], { description: 'share of the position to sell, in (0, 1]; 1 closes it' }), ...ModeFields },
  { additionalProperties: false },
);
const ShortBody = Type.Object(
  {
    margin_usdc: Decimal,
    leverage: Type.Integer({ minimum: 1, maximum: leverageMax }),
    side: Type.Union([Type.Literal('short'), Type.Literal('long')]),
    ...ModeFields,
  },
  { additionalProperties: false },
);
const CloseBody = Type.Object({ position_id: Type.String({ pattern: uuidPattern }), ...ModeFields }, { additionalProperties: false });

type ModeBody = { mode?: 'live' | 'paper'; paper?: boolean; is_paper?: boolean };

function modeOfBody(body: ModeBody): Mode {
  return body.mode === 'paper' || body.paper === true || body.is_paper === true ? Mode.paper : Mode.live;
}

/** The same choice on a read: `?mode=paper`, `?paper=true` or `?is_paper=true`. */
function modeOfQuery(query: Readonly<Record<string, string>>): Mode {
  return query['mode'] === 'paper' || query['paper'] === 'true' || query['is_paper'] === 'true' ? Mode.paper : Mode.live;
}

const modeName = (mode: number): 'live' | 'paper' => (mode === Mode.paper ? 'paper' : 'live');

/** HTTP status of a refusal of the event cards domain (core refusals go through engineRefusal). */
function refusal(result: ResultCode): ApiError {
  switch (result) {
    case EventCardsResult.cardNotFound:
    case EventCardsResult.positionNotFound:
      return new ApiError(404, resultCode(result), resultMessage(result));
    case EventCardsResult.houseLiquidity:
    case EventCardsResult.openInterestCap:
    case EventCardsResult.tooManyPositions:
    case EventCardsResult.cardNotTradable:
      return new ApiError(409, resultCode(result), resultMessage(result));
    default:
      return engineRefusal(result);
  }
}

function invalid(field: string, rule: string): never {
  throw new ApiError(422, 'VALIDATION_FAILED', `body.${field}: ${rule}`);
}

/** The body of the first event of `type` among a command's events. */
function eventBody<Body>(events: readonly EngineEvent[], type: number): Body {
  const found = events.find((event) => event.kind === EventKind.domain && event.type === type);
  if (found === undefined || found.kind !== EventKind.domain) throw new Error(`an accepted event cards command without event ${type}`);
  return found.body as Body;
}

export interface EventCardsRoutesOptions {
  readonly context: ShellContext;
  readonly view: EventCardsView;
  readonly usdc: Asset;
}

export function eventCardsRoutes(options: EventCardsRoutesOptions): Route[] {
  const { context, view, usdc } = options;
  const usdcText = (atoms: number): string => formatAtoms(atoms, usdc);

  const cardOf = (slug: string | undefined): Card => {
    const card = view.card((slug ?? '').toLowerCase());
    if (card === undefined) throw new ApiError(404, 'CARD_NOT_FOUND', `no event card ${JSON.stringify(slug)}`);
    return card;
  };

  /** The caller's open position of `kind` named by `uuid`: 404 when unknown or another's, 409 when closed. */
  const ownPosition = (card: Card, uuid: string, userId: number, mode: Mode, kind: PositionKind): number => {
    const positionNo = view.positionNo(uuid);
    const notFound = new ApiError(404, 'POSITION_NOT_FOUND', `no position ${uuid} of yours on ${card.slug} in ${modeName(mode)} mode`);
    if (positionNo === undefined) throw notFound;
    const owned = (found: { userId: number; mode: number; cardNo: number; kind: number }): boolean =>
      found.userId === userId && found.mode === mode && found.cardNo === card.cardNo && found.kind === kind;
    const open = view.positions.get(positionNo);
    if (open !== undefined) {
      if (!owned(open)) throw notFound;
      return positionNo;
    }
    const closed = view.closedPosition(positionNo);
    if (closed !== undefined && owned(closed)) throw new ApiError(409, 'POSITION_CLOSED', `position ${uuid} is closed`);
    throw notFound;
  };

  const amountOf = (field: string, value: unknown): number => {
    const converted = amountToAtoms(value, usdc);
    if (converted.code !== Result.ok) invalid(field, `${resultMessage(converted.code)} (USDC, at most ${usdc.decimals} decimals)`);
    return converted.value;
  };

  /** Submits a command once its paper account is open (enqueued just before), and returns its events. */
  const submit = async (userId: number, mode: Mode, type: number, body: object): Promise<{ events: EngineEvent[]; ts: number }> => {
    if (mode === Mode.paper) ensurePaperAccount(context, userId);
    const submission = await context.durable.submit(domainCommand(type, body));
    if (submission.result !== Result.ok) throw refusal(submission.result);
    return { events: submission.events, ts: submission.ts };
  };

  /** The index of a card at the prices change_24h compares with, or 0 when a constituent has none. */
  const referenceIndexE8 = (card: Card): number => {
    const references: number[] = [];
    for (const symbol of card.symbols) {
      const asset = view.prices.prices.asset(symbol);
      const reference = asset === undefined ? 0 : view.prices.prices.referenceE8(asset);
      if (reference <= 0) return 0;
      references.push(reference);
    }
    return cardIndexE8(card.baseIndexE8, card.weightsBps, card.referencePricesE8, references);
  };

  const perpRecord = (position: Position) => {
    const card = view.cardByNo(position.cardNo)!;
    const funding = view.fundingOf(position);
    return {
      position_id: cardUuid(CardUuidKind.position, position.positionNo),
      side: position.side === PerpSide.long ? 'long' : 'short',
      margin: usdcText(position.marginAtoms),
      leverage: position.leverage,
      notional: usdcText(position.notionalAtoms),
      entry_index: formatPriceE8(position.entryIndexE8),
      mark_index: formatPriceE8(card.indexE8),
      unrealized_pnl: usdcText(perpPnlAtoms(position.side, position.notionalAtoms, position.entryIndexE8, card.indexE8)),
      funding: usdcText(funding),
      liquidation_price: formatPriceE8(liquidationIndexE8(position.side, position.marginAtoms, position.notionalAtoms, position.entryIndexE8, funding)),
      opened_at: isoTime(position.openedMs),
    };
  };

  const listed = (mode: Mode) =>
    view.listed().map((card) => {
      const book = card.books[mode];
      return {
        card_id: card.slug,
        name: card.name,
        description: card.description,
        constituents: card.symbols.map((symbol, index) => ({ symbol, weight: card.weightsBps[index]! })),
        index: formatPriceE8(card.indexE8),
        change_24h: changePercent(card.indexE8, referenceIndexE8(card)),
        open_interest: {
          long: usdcText(book.openInterestLongAtoms),
          short: usdcText(book.openInterestShortAtoms),
          bull: usdcText(book.bullCostAtoms),
        },
        status: card.indexE8 > 0 ? 'tradable' : 'halted',
      };
    });

  const positionErrors = ['CARD_NOT_FOUND', 'POSITION_NOT_FOUND', 'POSITION_CLOSED', 'HOUSE_LIQUIDITY', 'CARD_NOT_TRADABLE'];

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/event-cards',
      name: 'list_event_cards',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      query: ModeQuery,
      response: cardsSchema,
      summary: 'Tradable event cards: constituents with weights, index, change_24h (percent), open interest (long, short, bull; ?mode=paper for paper)',
      handler: (request) => ({ body: { cards: listed(modeOfQuery(request.query)) } }),
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/event-cards/{card_id}/buy',
      name: 'buy_event_card',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['CARD_NOT_FOUND', 'INSUFFICIENT_BALANCE', 'OPEN_INTEREST_CAP', 'TOO_MANY_POSITIONS', 'CARD_NOT_TRADABLE', 'INVALID_AMOUNT'],
      body: BuyBody,
      response: bullBoughtSchema,
      summary: 'Buy a bull position: amount_usdc buys index units at the current index (taker fee 10 bp on top); returns its position_id',
      handler: async (request) => {
        const card = cardOf(request.params['card_id']);
        const amountAtoms = amountOf('amount_usdc', request.body.amount_usdc);
        const userId = request.principal!.userId;
        const mode = modeOfBody(request.body);
        const { events, ts } = await submit(userId, mode, EventCardsCommandType.buyBull, { userId, mode, cardNo: card.cardNo, amountAtoms });
        const bought = eventBody<BullBought>(events, EventCardsEventType.bullBought);
        return {
          status: 201,
          body: {
            position_id: cardUuid(CardUuidKind.position, bought.positionNo),
            card_id: card.slug,
            kind: 'bull',
            units: formatSteps(bought.unitsE6, sixDecimals),
            entry_index: formatPriceE8(bought.entryIndexE8),
            amount_usdc: usdcText(bought.amountAtoms),
            fee: usdcText(bought.feeAtoms),
            mode: modeName(mode),
            created_at: isoTime(ts),
            ...(mode === Mode.paper ? { sim_tx_hash: `sim-${cardUuid(CardUuidKind.paperSettlement, bought.positionNo)}` } : {}),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/event-cards/{card_id}/sell',
      name: 'sell_event_card',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: [...positionErrors, 'FRACTION_TOO_SMALL'],
      body: SellBody,
      response: bullSoldSchema,
      summary: 'Sell a fraction (0 < fraction <= 1, at most 6 decimals) of a bull position at the current index, less the 10 bp fee; 1 closes it',
      handler: async (request) => {
        const card = cardOf(request.params['card_id']);
        const fraction = toSteps(request.body.fraction, sixDecimals, false, Result.tooManyDecimals, newConversion());
        if (fraction.code !== Result.ok || fraction.value > 1_000_000) invalid('fraction', 'must be a decimal in (0, 1] with at most 6 decimals');
        const userId = request.principal!.userId;
        const mode = modeOfBody(request.body);
        const positionNo = ownPosition(card, request.body.position_id, userId, mode, PositionKind.bull);
        const { events } = await submit(userId, mode, EventCardsCommandType.sellBull, { userId, mode, cardNo: card.cardNo, positionNo, fractionPpm: fraction.value });
        const sold = eventBody<BullSold>(events, EventCardsEventType.bullSold);
        return {
          body: {
            position_id: request.body.position_id.toLowerCase(),
            fraction: formatSteps(sold.fractionPpm, sixDecimals),
            units_sold: formatSteps(sold.unitsSoldE6, sixDecimals),
            exit_index: formatPriceE8(sold.indexE8),
            proceeds: usdcText(sold.proceedsAtoms),
            fee: usdcText(sold.feeAtoms),
            remaining_units: formatSteps(sold.remainingUnitsE6, sixDecimals),
            closed: sold.remainingUnitsE6 === 0,
            mode: modeName(mode),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/event-cards/{card_id}/short',
      name: 'open_event_card_perp',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['CARD_NOT_FOUND', 'INSUFFICIENT_BALANCE', 'OPEN_INTEREST_CAP', 'TOO_MANY_POSITIONS', 'CARD_NOT_TRADABLE', 'INVALID_AMOUNT'],
      body: ShortBody,
      response: perpOpenedSchema,
      summary: `Open a perpetual on the card's index: margin_usdc × leverage (1-${leverageMax}) of notional, side short or long; taker fee 10 bp of the notional`,
      handler: async (request) => {
        const card = cardOf(request.params['card_id']);
        const marginAtoms = amountOf('margin_usdc', request.body.margin_usdc);
        const userId = request.principal!.userId;
        const mode = modeOfBody(request.body);
        const side = request.body.side === 'long' ? PerpSide.long : PerpSide.short;
        const { events, ts } = await submit(userId, mode, EventCardsCommandType.openPerp, { userId, mode, cardNo: card.cardNo, side, marginAtoms, leverage: request.body.leverage });
        const opened = eventBody<PerpOpened>(events, EventCardsEventType.perpOpened);
        return {
          status: 201,
          body: {
            position_id: cardUuid(CardUuidKind.position, opened.positionNo),
            card_id: card.slug,
            side: request.body.side,
            margin: usdcText(opened.marginAtoms),
            leverage: opened.leverage,
            notional: usdcText(opened.notionalAtoms),
            entry_index: formatPriceE8(opened.entryIndexE8),
            liquidation_price: formatPriceE8(liquidationIndexE8(side, opened.marginAtoms, opened.notionalAtoms, opened.entryIndexE8, 0)),
            fee: usdcText(opened.feeAtoms),
            mode: modeName(mode),
            created_at: isoTime(ts),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/event-cards/{card_id}/short/close',
      name: 'close_event_card_perp',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: positionErrors,
      body: CloseBody,
      response: perpClosedSchema,
      summary: 'Close a perpetual at the current index: realized P&L, funding settled, close fee 10 bp of the notional, what was returned',
      handler: async (request) => {
        const card = cardOf(request.params['card_id']);
        const userId = request.principal!.userId;
        const mode = modeOfBody(request.body);
        const positionNo = ownPosition(card, request.body.position_id, userId, mode, PositionKind.perp);
        const { events } = await submit(userId, mode, EventCardsCommandType.closePerp, { userId, mode, cardNo: card.cardNo, positionNo });
        const closed = eventBody<PerpClosed>(events, EventCardsEventType.perpClosed);
        return {
          body: {
            position_id: request.body.position_id.toLowerCase(),
            exit_index: formatPriceE8(closed.exitIndexE8),
            realized_pnl: usdcText(closed.pnlAtoms),
            funding: usdcText(closed.fundingAtoms),
            fee: usdcText(closed.feeAtoms),
            returned: usdcText(closed.returnedAtoms),
            mode: modeName(mode),
          },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/event-cards/{card_id}/perp/positions',
      name: 'list_event_card_perp_positions',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['CARD_NOT_FOUND'],
      query: ModeQuery,
      response: perpPositionsSchema,
      summary: "The caller's open perpetuals of the card (?mode=paper for paper): entry, mark, unrealized P&L, funding owed, liquidation price",
      handler: (request) => {
        const card = cardOf(request.params['card_id']);
        const userId = request.principal!.userId;
        const mode = modeOfQuery(request.query);
        const positions = [];
        for (const position of view.positions.values()) {
          if (position.kind === PositionKind.perp && position.userId === userId && position.mode === mode && position.cardNo === card.cardNo) positions.push(perpRecord(position));
        }
        return { body: { card_id: card.slug, mode: modeName(mode), positions } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/admin/event-cards/exposure',
      name: 'get_event_cards_exposure',
      tags,
      auth: 'admin',
      rateLimit: 'none',
      status: 200,
      errors: [],
      response: exposureSchema,
      summary: "The house's exposure per card and mode: bull value and long and short notional at the mark; net_exposure = short - long - bull (the house's delta: negative loses when the index rises); house_unrealized_pnl",
      handler: () => {
        const exposure = [];
        for (const card of view.listed()) {
          for (const mode of [Mode.live, Mode.paper]) {
            const book = card.books[mode];
            let longAtMark = 0;
            let shortAtMark = 0;
            let housePnl = 0;
            for (const position of view.positions.values()) {
              if (position.cardNo !== card.cardNo || position.mode !== mode) continue;
              if (position.kind === PositionKind.bull) {
                housePnl -= valueOfUnits(position.unitsE6, card.indexE8) - position.costAtoms;
                continue;
              }
              // N × mark / entry, floored: the notional plus what a long would have made.
              const atMark = position.notionalAtoms + perpPnlAtoms(PerpSide.long, position.notionalAtoms, position.entryIndexE8, card.indexE8);
              if (position.side === PerpSide.long) longAtMark += atMark;
              else shortAtMark += atMark;
              housePnl -= perpPnlAtoms(position.side, position.notionalAtoms, position.entryIndexE8, card.indexE8);
            }
            const bullValue = valueOfUnits(book.bullUnitsE6, card.indexE8);
            exposure.push({
              card_id: card.slug,
              mode: modeName(mode),
              index: formatPriceE8(card.indexE8),
              bull_value: usdcText(bullValue),
              long_notional: usdcText(longAtMark),
              short_notional: usdcText(shortAtMark),
              net_exposure: usdcText(shortAtMark - longAtMark - bullValue),
              house_unrealized_pnl: usdcText(housePnl),
            });
          }
        }
        return { body: { exposure } };
      },
    }),
  ];
}
