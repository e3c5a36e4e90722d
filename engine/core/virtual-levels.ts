/**
 * The virtual liquidity a paper taker sees: the live hybrid book's levels on the side it takes from (the
 * live order book's levels, then fresh AMM levels at the same price, by chain and pool), copied best first
 * up to the taker's limit and size. Paper orders fill against it at live prices without consuming anything
 * live: only this copy shrinks while one paper order executes.
 */
import type { Side } from './commands.ts';
import { noPrice, type Book, type BookLevel } from './book/book.ts';
import { liveBookVenueId } from './events.ts';
import type { VenueBook } from './venue-book.ts';

/**
 * Levels of the live book asked for at first; doubled while the taker needs more. Most paper takers fill
 * within the first few levels, and each level asked for is copied.
 */
const depthFirstAsk = 8;

/** Whether `price` on `side` (the side taken from) is no worse than the taker's limit. */
function within(side: Side, price: number, limitPriceTicks: number): boolean {
  return side === 0 ? price >= limitPriceTicks : price <= limitPriceTicks;
}

/** Whether price `a` on `side` is better than `b` (a higher bid, a lower ask). */
function better(side: Side, a: number, b: number): boolean {
  return side === 0 ? a > b : a < b;
}

export class VirtualLevels {
  private readonly priceTicks: number[] = [];
  private readonly lots: number[] = [];
  private readonly venueIds: number[] = [];
  private readonly chainIds: number[] = [];
  private head = 0;
  /** Levels loaded; entries past it are left over from an earlier load. */
  private count = 0;
  private readonly scratch: BookLevel[] = [];

  /**
   * Loads the levels of `side` (the side the taker takes from) at prices no worse than `limitPriceTicks`,
   * until they hold `wantedLots`: the live book's first, then fresh venue levels; at one price the live
   * book's level comes first.
   */
  load(side: Side, limitPriceTicks: number, wantedLots: number, liveBook: Book, venues: VenueBook, cutoffMs: number, levelsMax: number): void {
    // The arrays are reused and overwritten up to `count` (truncating an array costs a runtime call).
    this.count = 0;
    this.head = 0;
    let bookLevels = 0;
    let asked = 0;
    for (asked = Math.min(depthFirstAsk, levelsMax); ; asked = Math.min(asked * 2, levelsMax)) {
      bookLevels = liveBook.depth(side, asked, this.scratch);
      let lots = 0;
      for (let index = 0; index < bookLevels && within(side, this.scratch[index]!.priceTicks, limitPriceTicks); index++) lots += this.scratch[index]!.lots;
      const exhausted = bookLevels < asked || asked >= levelsMax || !within(side, this.scratch[bookLevels - 1]!.priceTicks, limitPriceTicks);
      if (lots >= wantedLots || exhausted) break;
    }
    let total = 0;
    let bookIndex = 0;
    let venueIndex = venues.firstFresh(side, cutoffMs);
    while (total < wantedLots) {
      const bookPrice = bookIndex < bookLevels ? this.scratch[bookIndex]!.priceTicks : noPrice;
      const venuePrice = venueIndex >= 0 ? venues.priceAt(side, venueIndex) : noPrice;
      const takeBook = bookPrice !== noPrice && (venuePrice === noPrice || !better(side, venuePrice, bookPrice));
      const price = takeBook ? bookPrice : venuePrice;
      if (price === noPrice || !within(side, price, limitPriceTicks)) break;
      if (takeBook) {
        const level = this.scratch[bookIndex++]!;
        this.push(level.priceTicks, level.lots, liveBookVenueId, 0);
        total += level.lots;
      } else {
        this.push(venuePrice, venues.lotsAt(side, venueIndex), venues.poolAt(side, venueIndex), venues.chainAt(side, venueIndex));
        total += venues.lotsAt(side, venueIndex);
        venueIndex = venues.nextFresh(side, venueIndex, cutoffMs);
      }
    }
  }

  private push(priceTicks: number, lots: number, venueId: number, chainId: number): void {
    const index = this.count++;
    this.priceTicks[index] = priceTicks;
    this.lots[index] = lots;
    this.venueIds[index] = venueId;
    this.chainIds[index] = chainId;
  }

  bestPrice(): number {
    return this.head < this.count ? this.priceTicks[this.head]! : noPrice;
  }

  headLots(): number {
    return this.lots[this.head]!;
  }

  headVenue(): number {
    return this.venueIds[this.head]!;
  }

  headChain(): number {
    return this.chainIds[this.head]!;
  }

  consumeHead(lots: number): void {
    const left = this.lots[this.head]! - lots;
    if (left > 0) this.lots[this.head] = left;
    else this.head++;
  }

  /** Visits the remaining levels best first until `visit` returns false. */
  forEachLevel(visit: (priceTicks: number, lots: number) => boolean): void {
    for (let index = this.head; index < this.count; index++) {
      if (!visit(this.priceTicks[index]!, this.lots[index]!)) return;
    }
  }
}

/**
 * A live taker's view of the venue levels of one side: the fresh ones, best first; taking from it
 * consumes the venue's level for real.
 */
export class LiveVenueLevels {
  private venues: VenueBook | null = null;
  private side: Side = 0;
  private cutoffMs = 0;
  private head = -1;

  reset(venues: VenueBook, side: Side, cutoffMs: number): void {
    this.venues = venues;
    this.side = side;
    this.cutoffMs = cutoffMs;
    this.head = venues.firstFresh(side, cutoffMs);
  }

  bestPrice(): number {
    return this.head < 0 ? noPrice : this.venues!.priceAt(this.side, this.head);
  }

  headLots(): number {
    return this.venues!.lotsAt(this.side, this.head);
  }

  headVenue(): number {
    return this.venues!.poolAt(this.side, this.head);
  }

  headChain(): number {
    return this.venues!.chainAt(this.side, this.head);
  }

  consumeHead(lots: number): void {
    const venues = this.venues!;
    const emptied = venues.lotsAt(this.side, this.head) <= lots;
    venues.consumeAt(this.side, this.head, lots);
    // An emptied level is removed, so the levels after it moved down one index: look again from there.
    if (emptied) this.head = venues.nextFresh(this.side, this.head - 1, this.cutoffMs);
  }

  /** Visits the fresh levels best first until `visit` returns false. */
  forEachLevel(visit: (priceTicks: number, lots: number) => boolean): void {
    const venues = this.venues!;
    for (let index = this.head; index >= 0; index = venues.nextFresh(this.side, index, this.cutoffMs)) {
      if (!visit(venues.priceAt(this.side, index), venues.lotsAt(this.side, index))) return;
    }
  }
}
