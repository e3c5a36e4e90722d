/**
 * The event cards in the engine: listed cards with their index, open bull and perpetual positions, the
 * open interest and cumulative funding indexes per card and mode, and the funding timer.
 *
 * Rules:
 * - ListCard takes each constituent's reference price from the prices domain at that command and refuses
 *   while one is unpriced; the index starts at the card's base. After every accepted price tick (the
 *   prices module's tick listener, inside the same command) the cards holding a ticked symbol get their
 *   new index (CardIndexed), then every open perpetual of those cards whose equity is below maintenance at
 *   the new index is liquidated, in position creation order.
 * - Bull buy: the user pays the amount to the house treasury and the taker fee to the mode's fee account;
 *   the position holds floor(amount / index) units. Sell: the house pays the share's value less the fee;
 *   a house that cannot pay refuses the sale (HOUSE_LIQUIDITY) and nothing changes.
 * - Perpetual open: the margin goes to the margin account, the fee from the user's available to the fee
 *   account. Close: P&L and funding owed settle between the margin account, the house and the user, the
 *   close fee (on the notional) first out of the margin; a loss beyond the margin is the house's bad debt
 *   (nothing moves for it). Liquidation: the house takes the loss (up to the margin), the remaining equity
 *   (at most the margin) goes to the insurance account.
 * - Funding: every funding interval of journaled time (RunTimers) each card and mode with open perpetual
 *   interest gets rate = clamp(k × (L − S) / (L + S), ±max); the long side's cumulative index grows by the
 *   rate and the short side's falls by it. A position keeps its side's index at entry and settles what it
 *   owes at close or liquidation; the house takes the other side of any imbalance.
 * Refusals are decided before anything moves; a refused command changes nothing.
 */
import { assert } from '../../core/assert.ts';
import type { Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { noAccount } from '../../core/ledger.ts';
import { domainUserId } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';
import { Prices } from '../prices/prices.ts';
import {
  EventCardsAccount,
  EventCardsCommandType,
  EventCardsEventType,
  EventCardsResult,
  PerpSide,
  PositionKind,
  amountAtomsMax,
  amountAtomsMin,
  cardsMax,
  eventCardsDomainId,
  fractionScale,
  fundingIntervalMsDefault,
  fundingIntervalMsMax,
  fundingIntervalMsMin,
  leverageMax,
  openInterestAtomsMax,
  positionsMax,
  positionsPerUserCardMax,
  validCard,
  type BullBought,
  type BullSold,
  type BuyBull,
  type CardIndexed,
  type CardListed,
  type ClosePerp,
  type ConfigureEventCards,
  type EventCardsConfigured,
  type FundingApplied,
  type ListCard,
  type OpenPerp,
  type PerpClosed,
  type PerpLiquidated,
  type PerpOpened,
  type SellBull,
} from './commands.ts';
import {
  cardIndexE8,
  fundingOwedAtoms,
  fundingRateE8,
  isLiquidatable,
  perpPnlAtoms,
  remainingCost,
  takerFeeAtoms,
  unitsFor,
  unitsOfFraction,
  valueOfUnits,
} from './math.ts';

/** Open interest and funding of one card in one mode. */
export class CardBook {
  openInterestLongAtoms = 0;
  openInterestShortAtoms = 0;
  /** Cost basis of the open bull positions. */
  bullCostAtoms = 0;
  bullUnitsE6 = 0;
  fundingLongE8 = 0;
  fundingShortE8 = 0;
}

export class Card {
  indexE8: number;
  readonly books: [CardBook, CardBook] = [new CardBook(), new CardBook()];

  constructor(
    readonly cardNo: number,
    readonly slug: string,
    readonly name: string,
    readonly description: string,
    readonly symbols: readonly string[],
    readonly weightsBps: readonly number[],
    readonly baseIndexE8: number,
    readonly referencePricesE8: readonly number[],
    readonly listedMs: number,
  ) {
    this.indexE8 = baseIndexE8;
  }
}

/** One open position; bull fields are 0 on a perpetual and the reverse. */
export interface Position {
  positionNo: number;
  kind: PositionKind;
  userId: number;
  mode: 0 | 1;
  cardNo: number;
  openedMs: number;
  entryIndexE8: number;
  /** Bull: units held and their remaining cost basis. */
  unitsE6: number;
  costAtoms: number;
  /** Perpetual. */
  side: PerpSide;
  marginAtoms: number;
  leverage: number;
  notionalAtoms: number;
  fundingEntryE8: number;
}

const positionFields = [
  'positionNo',
  'kind',
  'userId',
  'mode',
  'cardNo',
  'openedMs',
  'entryIndexE8',
  'unitsE6',
  'costAtoms',
  'side',
  'marginAtoms',
  'leverage',
  'notionalAtoms',
  'fundingEntryE8',
] as const satisfies ReadonlyArray<keyof Position>;

const bookFields = [
  'openInterestLongAtoms',
  'openInterestShortAtoms',
  'bullCostAtoms',
  'bullUnitsE6',
  'fundingLongE8',
  'fundingShortE8',
] as const satisfies ReadonlyArray<keyof CardBook>;

interface CardRow {
  cardNo: number;
  slug: string;
  name: string;
  description: string;
  symbols: string[];
  weightsBps: number[];
  baseIndexE8: number;
  referencePricesE8: number[];
  listedMs: number;
  indexE8: number;
  books: number[][];
}

export interface EventCardsSnapshot {
  fundingIntervalMs: number;
  nextFundingMs: number;
  nextPositionNo: number;
  cards: CardRow[];
  positions: number[][];
}

const isMode = (mode: number): mode is 0 | 1 => mode === 0 || mode === 1;

export class EventCards implements DomainModule {
  static readonly domainName = 'event-cards';
  readonly name = EventCards.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = Object.values(EventCardsCommandType);
  /** Cards by card number (1, 2, ... in listing order). */
  private readonly cards: Card[] = [];
  private readonly cardsBySlug = new Map<string, Card>();
  /** Open positions in creation order (a Map keeps insertion order): the order liquidations run in. */
  private readonly positions = new Map<number, Position>();
  /** Open positions per (user, mode, card): derived, rebuilt on restore. */
  private readonly openCounts = new Map<string, number>();
  private fundingIntervalMs = fundingIntervalMsDefault;
  private nextFundingMs = noTimerMs;
  private nextPositionNo = 1;

  /** Whether the module listens to the prices module's ticks yet. */
  private listening = false;

  constructor(private readonly port: DomainPort) {
    // The prices module is made before this one (engine/domains/index.ts): the listener is registered now,
    // in the domain list's order, alike on a live engine and a restored one, so listeners of several
    // domains run in the same order everywhere. Ticks before the first listing move nothing (onTicked).
    this.listen();
  }

  /** Registers the tick listener, once. Engines built without prices never move a card's index. */
  private listen(): void {
    if (this.listening) return;
    const prices = this.prices();
    if (prices === undefined) return;
    prices.onTicked((symbols) => this.onTicked(symbols));
    this.listening = true;
  }

  // Queries (the shell reads them at start, and tests).

  card(cardNo: number): Card | undefined {
    return this.cards[cardNo - 1];
  }

  cardBySlug(slug: string): Card | undefined {
    return this.cardsBySlug.get(slug);
  }

  listedCards(): readonly Card[] {
    return this.cards;
  }

  position(positionNo: number): Position | undefined {
    return this.positions.get(positionNo);
  }

  openPositions(): IterableIterator<Position> {
    return this.positions.values();
  }

  get configuredFundingIntervalMs(): number {
    return this.fundingIntervalMs;
  }

  /** The ledger account of one of the domain's own accounts (house, margin, insurance) in a mode, or noAccount. */
  accountOf(which: number, mode: 0 | 1): number {
    return this.port.ledger.find(domainUserId(eventCardsDomainId, which), mode);
  }

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the event cards module gets domain commands only');
    switch (command.type) {
      case EventCardsCommandType.configure:
        return this.configure(command.body as ConfigureEventCards);
      case EventCardsCommandType.listCard:
        return this.listCard(command.body as ListCard);
      case EventCardsCommandType.buyBull:
        return this.buyBull(command.body as BuyBull);
      case EventCardsCommandType.sellBull:
        return this.sellBull(command.body as SellBull);
      case EventCardsCommandType.openPerp:
        return this.openPerp(command.body as OpenPerp);
      case EventCardsCommandType.closePerp:
        return this.closePerp(command.body as ClosePerp);
      default:
        return Result.unknownCommand;
    }
  }

  // Helpers.

  private usdcIndex(): number {
    return this.port.markets.assetBySymbol('USDC')?.index ?? -1;
  }

  private prices(): Prices | undefined {
    const prices = this.port.domain(Prices.domainName);
    return prices instanceof Prices ? prices : undefined;
  }

  /** The domain's account, opened if new. Opening can fail only on a ledger of 4 million accounts. */
  private ownAccount(which: number, mode: 0 | 1): number {
    const account = this.port.ledger.findOrOpen(domainUserId(eventCardsDomainId, which), mode);
    assert(account !== noAccount, 'the ledger has no room for an event cards account');
    return account;
  }

  private countKey(userId: number, mode: number, cardNo: number): string {
    return `${userId}:${mode}:${cardNo}`;
  }

  private countOpen(position: Position, delta: 1 | -1): void {
    const key = this.countKey(position.userId, position.mode, position.cardNo);
    const count = (this.openCounts.get(key) ?? 0) + delta;
    if (count === 0) this.openCounts.delete(key);
    else this.openCounts.set(key, count);
  }

  private roomForPosition(userId: number, mode: number, cardNo: number): boolean {
    return this.positions.size < positionsMax && (this.openCounts.get(this.countKey(userId, mode, cardNo)) ?? 0) < positionsPerUserCardMax;
  }

  private newPosition(fields: Omit<Position, 'positionNo' | 'openedMs'>): Position {
    const position: Position = { ...fields, positionNo: this.nextPositionNo++, openedMs: this.port.commandTimeMs() };
    this.positions.set(position.positionNo, position);
    this.countOpen(position, 1);
    return position;
  }

  private removePosition(position: Position): void {
    this.positions.delete(position.positionNo);
    this.countOpen(position, -1);
  }

  /** The caller's open position of `kind` on the card, or undefined. */
  private ownPosition(userId: number, mode: number, cardNo: number, positionNo: number, kind: PositionKind): Position | undefined {
    const position = this.positions.get(positionNo);
    if (position === undefined || position.userId !== userId || position.mode !== mode || position.cardNo !== cardNo || position.kind !== kind) return undefined;
    return position;
  }

  /** Common checks of a trade: a known mode and user account, a tradable card. */
  private tradeRefusal(userId: number, mode: number, cardNo: number): ResultCode | Card {
    if (!Number.isSafeInteger(userId) || userId < 1 || !isMode(mode) || !Number.isSafeInteger(cardNo)) return EventCardsResult.invalidPosition;
    const card = this.card(cardNo);
    if (card === undefined) return EventCardsResult.cardNotFound;
    if (card.indexE8 <= 0 || this.usdcIndex() < 0) return EventCardsResult.cardNotTradable;
    return card;
  }

  // Commands.

  private configure(body: ConfigureEventCards): ResultCode {
    const interval = body.fundingIntervalMs;
    if (!Number.isSafeInteger(interval) || interval < fundingIntervalMsMin || interval > fundingIntervalMsMax) return EventCardsResult.invalidConfiguration;
    this.fundingIntervalMs = interval;
    if (this.cards.length > 0) this.nextFundingMs = this.port.commandTimeMs() + interval;
    const event: EventCardsConfigured = { fundingIntervalMs: interval, nextFundingMs: this.nextFundingMs };
    this.port.emit(domainEvent(EventCardsEventType.configured, event));
    return Result.ok;
  }

  private listCard(body: ListCard): ResultCode {
    if (!validCard(body)) return EventCardsResult.invalidCard;
    if (this.cardsBySlug.has(body.slug)) return EventCardsResult.cardExists;
    if (this.cards.length >= cardsMax) return EventCardsResult.tooManyCards;
    if (this.usdcIndex() < 0) return EventCardsResult.cardNotTradable;
    const prices = this.prices();
    const referencePricesE8 = body.symbols.map((symbol) => prices?.priceE8(symbol) ?? 0);
    if (referencePricesE8.some((price) => price <= 0)) return EventCardsResult.cardUnpriced;
    const nowMs = this.port.commandTimeMs();
    const card = new Card(this.cards.length + 1, body.slug, body.name, body.description, [...body.symbols], [...body.weightsBps], body.baseIndexE8, referencePricesE8, nowMs);
    this.cards.push(card);
    this.cardsBySlug.set(card.slug, card);
    this.listen();
    for (const which of [EventCardsAccount.house, EventCardsAccount.margin, EventCardsAccount.insurance]) {
      for (const mode of [0, 1] as const) this.ownAccount(which, mode);
    }
    if (this.nextFundingMs === noTimerMs) this.nextFundingMs = nowMs + this.fundingIntervalMs;
    const event: CardListed = {
      cardNo: card.cardNo,
      slug: card.slug,
      name: card.name,
      description: card.description,
      symbols: [...card.symbols],
      weightsBps: [...card.weightsBps],
      baseIndexE8: card.baseIndexE8,
      referencePricesE8: [...referencePricesE8],
      indexE8: card.indexE8,
    };
    this.port.emit(domainEvent(EventCardsEventType.cardListed, event));
    return Result.ok;
  }

  private buyBull(body: BuyBull): ResultCode {
    const checked = this.tradeRefusal(body.userId, body.mode, body.cardNo);
    if (!(checked instanceof Card)) return checked;
    const card = checked;
    const mode = body.mode as 0 | 1;
    const amount = body.amountAtoms;
    if (!Number.isSafeInteger(amount) || amount < amountAtomsMin || amount > amountAtomsMax) return EventCardsResult.invalidAmount;
    const book = card.books[mode];
    if (book.bullCostAtoms + amount > openInterestAtomsMax) return EventCardsResult.openInterestCap;
    if (!this.roomForPosition(body.userId, mode, card.cardNo)) return EventCardsResult.tooManyPositions;
    const units = unitsFor(amount, card.indexE8);
    if (units <= 0) return EventCardsResult.invalidAmount;
    const fee = takerFeeAtoms(amount);
    const ledger = this.port.ledger;
    const usdc = this.usdcIndex();
    const user = ledger.find(body.userId, mode);
    if (user === noAccount || ledger.availableAtoms(user, usdc) < amount + fee) return Result.insufficientBalance;

    ledger.payFromAvailable(user, this.ownAccount(EventCardsAccount.house, mode), usdc, amount);
    ledger.payFromAvailable(user, ledger.find(0, mode), usdc, fee);
    book.bullCostAtoms += amount;
    book.bullUnitsE6 += units;
    const position = this.newPosition({
      kind: PositionKind.bull,
      userId: body.userId,
      mode,
      cardNo: card.cardNo,
      entryIndexE8: card.indexE8,
      unitsE6: units,
      costAtoms: amount,
      side: PerpSide.long,
      marginAtoms: 0,
      leverage: 0,
      notionalAtoms: 0,
      fundingEntryE8: 0,
    });
    const event: BullBought = {
      positionNo: position.positionNo,
      userId: body.userId,
      mode,
      cardNo: card.cardNo,
      amountAtoms: amount,
      feeAtoms: fee,
      unitsE6: units,
      entryIndexE8: card.indexE8,
    };
    this.port.emit(domainEvent(EventCardsEventType.bullBought, event));
    return Result.ok;
  }

  private sellBull(body: SellBull): ResultCode {
    const checked = this.tradeRefusal(body.userId, body.mode, body.cardNo);
    if (!(checked instanceof Card)) return checked;
    const card = checked;
    const mode = body.mode as 0 | 1;
    const fraction = body.fractionPpm;
    if (!Number.isSafeInteger(fraction) || fraction < 1 || fraction > fractionScale) return EventCardsResult.invalidFraction;
    const position = this.ownPosition(body.userId, mode, card.cardNo, body.positionNo, PositionKind.bull);
    if (position === undefined) return EventCardsResult.positionNotFound;
    const sold = unitsOfFraction(position.unitsE6, fraction);
    if (sold <= 0) return EventCardsResult.fractionTooSmall;
    const gross = valueOfUnits(sold, card.indexE8);
    const fee = Math.min(gross, takerFeeAtoms(gross));
    const ledger = this.port.ledger;
    const usdc = this.usdcIndex();
    const house = ledger.find(domainUserId(eventCardsDomainId, EventCardsAccount.house), mode);
    if (house === noAccount || ledger.availableAtoms(house, usdc) < gross) return EventCardsResult.houseLiquidity;

    const user = ledger.find(body.userId, mode);
    assert(user !== noAccount, 'a bull position belongs to an account');
    ledger.payFromAvailable(house, user, usdc, gross - fee);
    ledger.payFromAvailable(house, ledger.find(0, mode), usdc, fee);
    const book = card.books[mode];
    const costLeft = remainingCost(position.costAtoms, position.unitsE6, sold);
    book.bullCostAtoms -= position.costAtoms - costLeft;
    book.bullUnitsE6 -= sold;
    position.costAtoms = costLeft;
    position.unitsE6 -= sold;
    if (position.unitsE6 === 0) this.removePosition(position);
    const event: BullSold = {
      positionNo: position.positionNo,
      userId: body.userId,
      mode,
      cardNo: card.cardNo,
      fractionPpm: fraction,
      indexE8: card.indexE8,
      unitsSoldE6: sold,
      proceedsAtoms: gross - fee,
      feeAtoms: fee,
      remainingUnitsE6: position.unitsE6,
      remainingCostAtoms: position.costAtoms,
    };
    this.port.emit(domainEvent(EventCardsEventType.bullSold, event));
    return Result.ok;
  }

  private openPerp(body: OpenPerp): ResultCode {
    const checked = this.tradeRefusal(body.userId, body.mode, body.cardNo);
    if (!(checked instanceof Card)) return checked;
    const card = checked;
    const mode = body.mode as 0 | 1;
    if (body.side !== PerpSide.long && body.side !== PerpSide.short) return EventCardsResult.invalidPosition;
    const side = body.side as PerpSide;
    const margin = body.marginAtoms;
    if (!Number.isSafeInteger(margin) || margin < amountAtomsMin || margin > amountAtomsMax) return EventCardsResult.invalidAmount;
    if (!Number.isSafeInteger(body.leverage) || body.leverage < 1 || body.leverage > leverageMax) return EventCardsResult.invalidLeverage;
    const notional = margin * body.leverage;
    const book = card.books[mode];
    const sideInterest = side === PerpSide.long ? book.openInterestLongAtoms : book.openInterestShortAtoms;
    if (sideInterest + notional > openInterestAtomsMax) return EventCardsResult.openInterestCap;
    if (!this.roomForPosition(body.userId, mode, card.cardNo)) return EventCardsResult.tooManyPositions;
    const fee = takerFeeAtoms(notional);
    const ledger = this.port.ledger;
    const usdc = this.usdcIndex();
    const user = ledger.find(body.userId, mode);
    if (user === noAccount || ledger.availableAtoms(user, usdc) < margin + fee) return Result.insufficientBalance;

    ledger.payFromAvailable(user, this.ownAccount(EventCardsAccount.margin, mode), usdc, margin);
    ledger.payFromAvailable(user, ledger.find(0, mode), usdc, fee);
    if (side === PerpSide.long) book.openInterestLongAtoms += notional;
    else book.openInterestShortAtoms += notional;
    const fundingEntryE8 = side === PerpSide.long ? book.fundingLongE8 : book.fundingShortE8;
    const position = this.newPosition({
      kind: PositionKind.perp,
      userId: body.userId,
      mode,
      cardNo: card.cardNo,
      entryIndexE8: card.indexE8,
      unitsE6: 0,
      costAtoms: 0,
      side,
      marginAtoms: margin,
      leverage: body.leverage,
      notionalAtoms: notional,
      fundingEntryE8,
    });
    const event: PerpOpened = {
      positionNo: position.positionNo,
      userId: body.userId,
      mode,
      cardNo: card.cardNo,
      side,
      marginAtoms: margin,
      leverage: body.leverage,
      notionalAtoms: notional,
      entryIndexE8: card.indexE8,
      feeAtoms: fee,
      fundingEntryE8,
    };
    this.port.emit(domainEvent(EventCardsEventType.perpOpened, event));
    return Result.ok;
  }

  /** Funding a perpetual owes now (positive: it pays). */
  fundingOf(position: Position): number {
    const book = this.cards[position.cardNo - 1]!.books[position.mode];
    const now = position.side === PerpSide.long ? book.fundingLongE8 : book.fundingShortE8;
    return fundingOwedAtoms(position.notionalAtoms, position.fundingEntryE8, now);
  }

  private closePerp(body: ClosePerp): ResultCode {
    const checked = this.tradeRefusal(body.userId, body.mode, body.cardNo);
    if (!(checked instanceof Card)) return checked;
    const card = checked;
    const mode = body.mode as 0 | 1;
    const position = this.ownPosition(body.userId, mode, card.cardNo, body.positionNo, PositionKind.perp);
    if (position === undefined) return EventCardsResult.positionNotFound;
    const pnl = perpPnlAtoms(position.side, position.notionalAtoms, position.entryIndexE8, card.indexE8);
    const funding = this.fundingOf(position);
    const fee = Math.min(position.marginAtoms, takerFeeAtoms(position.notionalAtoms));
    const gain = pnl - funding;
    const ledger = this.port.ledger;
    const usdc = this.usdcIndex();
    const house = ledger.find(domainUserId(eventCardsDomainId, EventCardsAccount.house), mode);
    if (gain > 0 && (house === noAccount || ledger.availableAtoms(house, usdc) < gain)) return EventCardsResult.houseLiquidity;

    const user = ledger.find(body.userId, mode);
    const marginAccount = this.ownAccount(EventCardsAccount.margin, mode);
    assert(user !== noAccount, 'a perpetual belongs to an account');
    const afterFee = position.marginAtoms - fee;
    ledger.payFromAvailable(marginAccount, ledger.find(0, mode), usdc, fee);
    let returned: number;
    let badDebt = 0;
    if (gain >= 0) {
      ledger.payFromAvailable(marginAccount, user, usdc, afterFee);
      if (gain > 0) ledger.payFromAvailable(house, user, usdc, gain);
      returned = afterFee + gain;
    } else {
      const toHouse = Math.min(-gain, afterFee);
      returned = afterFee - toHouse;
      badDebt = -gain - toHouse;
      if (toHouse > 0) ledger.payFromAvailable(marginAccount, this.ownAccount(EventCardsAccount.house, mode), usdc, toHouse);
      if (returned > 0) ledger.payFromAvailable(marginAccount, user, usdc, returned);
    }
    this.closeInterest(card, position);
    const event: PerpClosed = {
      positionNo: position.positionNo,
      userId: position.userId,
      mode,
      cardNo: card.cardNo,
      exitIndexE8: card.indexE8,
      pnlAtoms: pnl,
      fundingAtoms: funding,
      feeAtoms: fee,
      returnedAtoms: returned,
      badDebtAtoms: badDebt,
    };
    this.port.emit(domainEvent(EventCardsEventType.perpClosed, event));
    return Result.ok;
  }

  private closeInterest(card: Card, position: Position): void {
    const book = card.books[position.mode];
    if (position.side === PerpSide.long) book.openInterestLongAtoms -= position.notionalAtoms;
    else book.openInterestShortAtoms -= position.notionalAtoms;
    this.removePosition(position);
  }

  /**
   * Liquidates a perpetual at the card's index: its equity is below maintenance, so the position has lost
   * more than 95 % of what its margin covers; the house takes the loss (up to the margin) and what equity
   * remains goes to the insurance account. A loss beyond the margin (the index gapped between ticks) is
   * the house's bad debt.
   */
  private liquidate(card: Card, position: Position): void {
    const mode = position.mode;
    const pnl = perpPnlAtoms(position.side, position.notionalAtoms, position.entryIndexE8, card.indexE8);
    const funding = this.fundingOf(position);
    const equity = position.marginAtoms + pnl - funding;
    const ledger = this.port.ledger;
    const usdc = this.usdcIndex();
    const marginAccount = this.ownAccount(EventCardsAccount.margin, mode);
    // At high leverage the maintenance margin (5 % of the notional at the mark) can exceed the equity of a
    // position that gained on price but paid funding: it is liquidated all the same, and a net gain beyond
    // its margin is forfeited, so the insurance account gets at most the margin.
    const toInsurance = Math.min(position.marginAtoms, Math.max(0, equity));
    const toHouse = position.marginAtoms - toInsurance;
    if (toHouse > 0) ledger.payFromAvailable(marginAccount, this.ownAccount(EventCardsAccount.house, mode), usdc, toHouse);
    if (toInsurance > 0) ledger.payFromAvailable(marginAccount, this.ownAccount(EventCardsAccount.insurance, mode), usdc, toInsurance);
    this.closeInterest(card, position);
    const event: PerpLiquidated = {
      positionNo: position.positionNo,
      userId: position.userId,
      mode,
      cardNo: card.cardNo,
      exitIndexE8: card.indexE8,
      pnlAtoms: pnl,
      fundingAtoms: funding,
      insuranceAtoms: toInsurance,
      badDebtAtoms: Math.max(0, -equity),
    };
    this.port.emit(domainEvent(EventCardsEventType.perpLiquidated, event));
  }

  // The price tick: new indexes, then liquidations (inside the prices command, so they replay with it).

  private onTicked(symbols: readonly string[]): void {
    if (this.cards.length === 0) return;
    const prices = this.prices();
    if (prices === undefined) return;
    const ticked = new Set(symbols);
    const moved: Card[] = [];
    for (const card of this.cards) {
      if (!card.symbols.some((symbol) => ticked.has(symbol))) continue;
      const indexE8 = cardIndexE8(card.baseIndexE8, card.weightsBps, card.referencePricesE8, card.symbols.map((symbol) => prices.priceE8(symbol)));
      if (indexE8 === card.indexE8) continue;
      card.indexE8 = indexE8;
      moved.push(card);
    }
    if (moved.length === 0) return;
    const event: CardIndexed = { cardNos: moved.map((card) => card.cardNo), indexesE8: moved.map((card) => card.indexE8) };
    this.port.emit(domainEvent(EventCardsEventType.cardIndexed, event));
    const movedNos = new Set(moved.map((card) => card.cardNo));
    const doomed: Position[] = [];
    for (const position of this.positions.values()) {
      if (position.kind !== PositionKind.perp || !movedNos.has(position.cardNo)) continue;
      const card = this.cards[position.cardNo - 1]!;
      if (isLiquidatable(position.side, position.marginAtoms, position.notionalAtoms, position.entryIndexE8, card.indexE8, this.fundingOf(position))) doomed.push(position);
    }
    for (const position of doomed) this.liquidate(this.cards[position.cardNo - 1]!, position);
  }

  // Timers: funding.

  nextTimerMs(): number {
    return this.nextFundingMs;
  }

  runTimers(nowMs: number): void {
    if (nowMs < this.nextFundingMs) return;
    for (const card of this.cards) {
      for (const mode of [0, 1] as const) {
        const book = card.books[mode];
        if (book.openInterestLongAtoms + book.openInterestShortAtoms === 0) continue;
        const rate = fundingRateE8(book.openInterestLongAtoms, book.openInterestShortAtoms);
        book.fundingLongE8 += rate;
        book.fundingShortE8 -= rate;
        const event: FundingApplied = {
          cardNo: card.cardNo,
          mode,
          rateE8: rate,
          longIndexE8: book.fundingLongE8,
          shortIndexE8: book.fundingShortE8,
          openInterestLongAtoms: book.openInterestLongAtoms,
          openInterestShortAtoms: book.openInterestShortAtoms,
        };
        this.port.emit(domainEvent(EventCardsEventType.fundingApplied, event));
      }
    }
    // One application per due time: a runtime that was down for several intervals does not charge them all.
    this.nextFundingMs = nowMs + this.fundingIntervalMs;
  }

  // Hash and snapshot.

  private isEmpty(): boolean {
    return this.cards.length === 0 && this.nextPositionNo === 1 && this.fundingIntervalMs === fundingIntervalMsDefault && this.nextFundingMs === noTimerMs;
  }

  hash(hasher: StateHasher): void {
    if (this.isEmpty()) return;
    hasher.number(-51);
    hasher.number(this.fundingIntervalMs);
    hasher.number(this.nextFundingMs);
    hasher.number(this.nextPositionNo);
    hasher.number(this.cards.length);
    for (const card of this.cards) {
      hasher.string(card.slug);
      hasher.string(card.name);
      hasher.string(card.description);
      hasher.number(card.symbols.length);
      for (let index = 0; index < card.symbols.length; index++) {
        hasher.string(card.symbols[index]!);
        hasher.number(card.weightsBps[index]!);
        hasher.number(card.referencePricesE8[index]!);
      }
      hasher.number(card.baseIndexE8);
      hasher.number(card.listedMs);
      hasher.number(card.indexE8);
      for (const book of card.books) for (const field of bookFields) hasher.number(book[field]);
    }
    hasher.number(this.positions.size);
    for (const position of this.positions.values()) for (const field of positionFields) hasher.number(position[field]);
  }

  snapshot(): EventCardsSnapshot | null {
    if (this.isEmpty()) return null;
    return {
      fundingIntervalMs: this.fundingIntervalMs,
      nextFundingMs: this.nextFundingMs,
      nextPositionNo: this.nextPositionNo,
      cards: this.cards.map((card) => ({
        cardNo: card.cardNo,
        slug: card.slug,
        name: card.name,
        description: card.description,
        symbols: [...card.symbols],
        weightsBps: [...card.weightsBps],
        baseIndexE8: card.baseIndexE8,
        referencePricesE8: [...card.referencePricesE8],
        listedMs: card.listedMs,
        indexE8: card.indexE8,
        books: card.books.map((book) => bookFields.map((field) => book[field])),
      })),
      positions: [...this.positions.values()].map((position) => positionFields.map((field) => position[field])),
    };
  }

  restore(state: unknown): void {
    assert(this.isEmpty() && this.positions.size === 0, 'restore needs fresh event cards');
    const data = state as Partial<EventCardsSnapshot> | null;
    const integer = (value: unknown): value is number => Number.isSafeInteger(value);
    if (
      data === null ||
      typeof data !== 'object' ||
      !integer(data.fundingIntervalMs) ||
      !integer(data.nextFundingMs) ||
      !integer(data.nextPositionNo) ||
      !Array.isArray(data.cards) ||
      data.cards.length > cardsMax ||
      !Array.isArray(data.positions) ||
      data.positions.length > positionsMax
    ) {
      throw new Error('event cards snapshot: malformed');
    }
    this.fundingIntervalMs = data.fundingIntervalMs;
    this.nextFundingMs = data.nextFundingMs;
    this.nextPositionNo = data.nextPositionNo;
    for (const row of data.cards as unknown[]) {
      const fields = row as Partial<CardRow>;
      const definition = { slug: fields.slug, name: fields.name, description: fields.description, symbols: fields.symbols, weightsBps: fields.weightsBps, baseIndexE8: fields.baseIndexE8 } as ListCard;
      if (
        !validCard(definition) ||
        fields.cardNo !== this.cards.length + 1 ||
        this.cardsBySlug.has(definition.slug) ||
        !Array.isArray(fields.referencePricesE8) ||
        fields.referencePricesE8.length !== definition.symbols.length ||
        !fields.referencePricesE8.every((price) => integer(price) && price > 0) ||
        !integer(fields.listedMs) ||
        !integer(fields.indexE8) ||
        !Array.isArray(fields.books) ||
        fields.books.length !== 2 ||
        !fields.books.every((book) => Array.isArray(book) && book.length === bookFields.length && book.every(integer))
      ) {
        throw new Error('event cards snapshot: malformed card');
      }
      const card = new Card(fields.cardNo, definition.slug, definition.name, definition.description, definition.symbols, definition.weightsBps, definition.baseIndexE8, fields.referencePricesE8, fields.listedMs);
      card.indexE8 = fields.indexE8;
      fields.books.forEach((values, mode) => bookFields.forEach((field, index) => (card.books[mode]![field] = values[index]!)));
      this.cards.push(card);
      this.cardsBySlug.set(card.slug, card);
    }
    for (const row of data.positions as unknown[]) {
      if (!Array.isArray(row) || row.length !== positionFields.length || !row.every(integer)) throw new Error('event cards snapshot: malformed position');
      const position = {} as Record<string, number>;
      positionFields.forEach((field, index) => (position[field] = row[index] as number));
      const typed = position as unknown as Position;
      if (
        this.positions.has(typed.positionNo) ||
        typed.positionNo < 1 ||
        typed.positionNo >= this.nextPositionNo ||
        !isMode(typed.mode) ||
        this.card(typed.cardNo) === undefined ||
        (typed.kind !== PositionKind.bull && typed.kind !== PositionKind.perp) ||
        (typed.side !== PerpSide.long && typed.side !== PerpSide.short) ||
        typed.entryIndexE8 < 1
      ) {
        throw new Error('event cards snapshot: malformed position');
      }
      this.positions.set(typed.positionNo, typed);
      this.countOpen(typed, 1);
    }
    if (this.cards.length > 0) this.listen();
  }
}
