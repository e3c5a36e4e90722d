/**
 * The event cards as durable batches left them: what the routes show. It starts from the recovered
 * engine's state (everything recovered is durable) and follows the domain's durable events, which carry
 * every figure it needs (new indexes, positions as they open, shrink and close, funding indexes), so a
 * client never sees what a crash could take back. Prices for change_24h come from a PricesView of its own,
 * fed by the same batches.
 *
 * It also remembers who owned the positions closed since the start, so that closing one of yours again is
 * a 409 rather than a 404 (positions closed before a restart are simply not found).
 */
import type { DomainEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import {
  EventCardsEventType,
  PositionKind,
  type BullBought,
  type BullSold,
  type CardIndexed,
  type CardListed,
  type FundingApplied,
  type PerpClosed,
  type PerpLiquidated,
  type PerpOpened,
} from '../../engine/domains/event-cards/commands.ts';
import { Card, EventCards, type Position } from '../../engine/domains/event-cards/event-cards.ts';
import { CardUuidKind, cardUuid, fundingOwedAtoms } from '../../engine/domains/event-cards/math.ts';
import { PricesView } from '../prices/view.ts';

/** Closed positions remembered for the 409 answer; the oldest are forgotten first. */
export const closedRememberedMax = 100_000;

/** Who owned a closed position, and how it ended. */
export interface ClosedPosition {
  readonly userId: number;
  readonly mode: number;
  readonly cardNo: number;
  readonly kind: PositionKind;
}

export class EventCardsView {
  readonly prices: PricesView;
  private readonly cards: Card[] = [];
  private readonly cardsBySlug = new Map<string, Card>();
  /** Open positions by number, in creation order. */
  readonly positions = new Map<number, Position>();
  private readonly numbersByUuid = new Map<string, number>();
  private readonly closed = new Map<number, ClosedPosition>();

  constructor(engine: Engine) {
    this.prices = new PricesView(engine);
    const module = engine.domain(EventCards.domainName);
    if (!(module instanceof EventCards)) return;
    for (const card of module.listedCards()) {
      const copy = new Card(card.cardNo, card.slug, card.name, card.description, card.symbols, card.weightsBps, card.baseIndexE8, card.referencePricesE8, card.listedMs);
      copy.indexE8 = card.indexE8;
      card.books.forEach((book, mode) => Object.assign(copy.books[mode]!, book));
      this.addCard(copy);
    }
    for (const position of module.openPositions()) this.addPosition({ ...position });
  }

  card(slug: string): Card | undefined {
    return this.cardsBySlug.get(slug);
  }

  cardByNo(cardNo: number): Card | undefined {
    return this.cards[cardNo - 1];
  }

  listed(): readonly Card[] {
    return this.cards;
  }

  /** The number of a position named by its UUID (open, or closed since the start), or undefined. */
  positionNo(uuid: string): number | undefined {
    return this.numbersByUuid.get(uuid.toLowerCase());
  }

  closedPosition(positionNo: number): ClosedPosition | undefined {
    return this.closed.get(positionNo);
  }

  /** Funding an open perpetual owes now, by the durable funding indexes (positive: it pays). */
  fundingOf(position: Position): number {
    const book = this.cards[position.cardNo - 1]!.books[position.mode];
    return fundingOwedAtoms(position.notionalAtoms, position.fundingEntryE8, position.side === 0 ? book.fundingLongE8 : book.fundingShortE8);
  }

  onBatch(batch: DurableBatch): void {
    this.prices.onBatch(batch);
    batch.forEachDomainEvent((event, _seq, ts) => this.apply(event, ts));
  }

  private addCard(card: Card): void {
    this.cards.push(card);
    this.cardsBySlug.set(card.slug, card);
  }

  private addPosition(position: Position): void {
    this.positions.set(position.positionNo, position);
    this.numbersByUuid.set(cardUuid(CardUuidKind.position, position.positionNo), position.positionNo);
  }

  private close(positionNo: number): void {
    const position = this.positions.get(positionNo);
    if (position === undefined) return;
    this.positions.delete(positionNo);
    this.closed.set(positionNo, { userId: position.userId, mode: position.mode, cardNo: position.cardNo, kind: position.kind });
    if (this.closed.size > closedRememberedMax) {
      const oldest = this.closed.keys().next().value as number;
      this.closed.delete(oldest);
      this.numbersByUuid.delete(cardUuid(CardUuidKind.position, oldest));
    }
  }

  private apply(event: DomainEvent, ts: number): void {
    switch (event.type) {
      case EventCardsEventType.cardListed: {
        const body = event.body as CardListed;
        const card = new Card(body.cardNo, body.slug, body.name, body.description, body.symbols, body.weightsBps, body.baseIndexE8, body.referencePricesE8, ts);
        card.indexE8 = body.indexE8;
        this.addCard(card);
        return;
      }
      case EventCardsEventType.cardIndexed: {
        const body = event.body as CardIndexed;
        body.cardNos.forEach((cardNo, index) => {
          const card = this.cards[cardNo - 1];
          if (card !== undefined) card.indexE8 = body.indexesE8[index]!;
        });
        return;
      }
      case EventCardsEventType.bullBought: {
        const body = event.body as BullBought;
        const book = this.cards[body.cardNo - 1]!.books[body.mode]!;
        book.bullCostAtoms += body.amountAtoms;
        book.bullUnitsE6 += body.unitsE6;
        this.addPosition({
          positionNo: body.positionNo,
          kind: PositionKind.bull,
          userId: body.userId,
          mode: body.mode as 0 | 1,
          cardNo: body.cardNo,
          openedMs: ts,
          entryIndexE8: body.entryIndexE8,
          unitsE6: body.unitsE6,
          costAtoms: body.amountAtoms,
          side: 0,
          marginAtoms: 0,
          leverage: 0,
          notionalAtoms: 0,
          fundingEntryE8: 0,
        });
        return;
      }
      case EventCardsEventType.bullSold: {
        const body = event.body as BullSold;
        const position = this.positions.get(body.positionNo);
        if (position === undefined) return;
        const book = this.cards[body.cardNo - 1]!.books[body.mode]!;
        book.bullCostAtoms -= position.costAtoms - body.remainingCostAtoms;
        book.bullUnitsE6 -= body.unitsSoldE6;
        position.unitsE6 = body.remainingUnitsE6;
        position.costAtoms = body.remainingCostAtoms;
        if (position.unitsE6 === 0) this.close(body.positionNo);
        return;
      }
      case EventCardsEventType.perpOpened: {
        const body = event.body as PerpOpened;
        const book = this.cards[body.cardNo - 1]!.books[body.mode]!;
        if (body.side === 0) book.openInterestLongAtoms += body.notionalAtoms;
        else book.openInterestShortAtoms += body.notionalAtoms;
        this.addPosition({
          positionNo: body.positionNo,
          kind: PositionKind.perp,
          userId: body.userId,
          mode: body.mode as 0 | 1,
          cardNo: body.cardNo,
          openedMs: ts,
          entryIndexE8: body.entryIndexE8,
          unitsE6: 0,
          costAtoms: 0,
          side: body.side,
          marginAtoms: body.marginAtoms,
          leverage: body.leverage,
          notionalAtoms: body.notionalAtoms,
          fundingEntryE8: body.fundingEntryE8,
        });
        return;
      }
      case EventCardsEventType.perpClosed:
      case EventCardsEventType.perpLiquidated: {
        const body = event.body as PerpClosed | PerpLiquidated;
        const position = this.positions.get(body.positionNo);
        if (position === undefined) return;
        const book = this.cards[body.cardNo - 1]!.books[body.mode]!;
        if (position.side === 0) book.openInterestLongAtoms -= position.notionalAtoms;
        else book.openInterestShortAtoms -= position.notionalAtoms;
        this.close(body.positionNo);
        return;
      }
      case EventCardsEventType.fundingApplied: {
        const body = event.body as FundingApplied;
        const book = this.cards[body.cardNo - 1]!.books[body.mode]!;
        book.fundingLongE8 = body.longIndexE8;
        book.fundingShortE8 = body.shortIndexE8;
        return;
      }
      default:
        return;
    }
  }
}
