/**
 * A deterministic digest of the engine's whole state: every book (orders in priority order with their
 * progress and holds), every pending stop, every last price, every balance, the id counters, every
 * venue's quote and levels, and the domain modules' states. Equal
 * states give equal hashes on any machine; slot numbers and other storage details are left out, so the
 * fast and the reference book hash alike.
 *
 * The digest is two independent 32-bit multiply-xor lanes over the state's numbers (a 64-bit result as
 * 16 hex digits): not cryptographic, but cheap enough for every snapshot and every replay, and any
 * divergence of state changes it with overwhelming probability.
 */
import type { Engine } from './engine.ts';

const twoTo32 = 4294967296;

export class StateHasher {
  private low = 0x9e3779b9;
  private high = 0x85ebca6b;
  private count = 0;

  /** Adds a number (integer or not) exactly: safe integers by their two 32-bit halves. */
  number(value: number): void {
    if (Number.isSafeInteger(value)) {
      const negative = value < 0;
      const magnitude = negative ? -value : value;
      this.word(magnitude % twoTo32);
      this.word(Math.floor(magnitude / twoTo32) + (negative ? 0x200000 : 0));
    } else {
      this.string(String(value));
    }
  }

  string(value: string): void {
    this.word(value.length);
    for (let index = 0; index < value.length; index++) this.word(value.charCodeAt(index));
  }

  private word(value: number): void {
    this.count++;
    this.low = Math.imul(this.low ^ (value >>> 0), 0x01000193);
    this.low = (this.low << 13) | (this.low >>> 19);
    this.high = Math.imul(this.high + (value >>> 0), 0x5bd1e995);
    this.high ^= this.high >>> 15;
  }

  digest(): string {
    let low = this.low ^ this.count;
    let high = this.high ^ Math.imul(this.count, 0x27d4eb2f);
    low = Math.imul(low ^ (low >>> 16), 0x85ebca6b);
    low = Math.imul(low ^ (low >>> 13), 0xc2b2ae35);
    low ^= low >>> 16;
    high = Math.imul(high ^ (high >>> 16), 0x7feb352d);
    high = Math.imul(high ^ (high >>> 15), 0x846ca68b);
    high ^= high >>> 16;
    return (high >>> 0).toString(16).padStart(8, '0') + ((low ^ high) >>> 0).toString(16).padStart(8, '0');
  }
}

/** Adds everything the store knows of one live order. */
function hashOrder(hasher: StateHasher, engine: Engine, slot: number, restingLots: number): void {
  const store = engine.orders;
  hasher.number(store.orderId[slot]!);
  hasher.number(engine.ledger.userOf(store.account[slot]!));
  hasher.number(store.side[slot]!);
  hasher.number(store.orderType[slot]!);
  hasher.number(store.timeInForce[slot]!);
  hasher.number(store.selfTradePrevention[slot]!);
  hasher.number(store.postOnly[slot]!);
  hasher.number(store.status[slot]!);
  hasher.number(store.priceTicks[slot]!);
  hasher.number(store.stopPriceTicks[slot]!);
  hasher.number(store.holdPriceTicks[slot]!);
  hasher.number(store.quantityLots[slot]!);
  hasher.number(store.filledLots[slot]!);
  hasher.number(store.filledNotionalAtoms[slot]!);
  hasher.number(store.takerNotionalAtoms[slot]!);
  hasher.number(store.makerNotionalAtoms[slot]!);
  hasher.number(store.heldAtoms[slot]!);
  hasher.string(store.clientOrderId[slot]!);
  hasher.number(restingLots);
}

export function stateHash(engine: Engine): string {
  const hasher = new StateHasher();
  hasher.number(engine.lastOrderId);
  hasher.number(engine.lastTradeId);
  for (const context of engine.contexts) {
    hasher.number(context.index);
    hasher.number(context.lastPriceTicks);
    for (const side of [0, 1] as const) {
      hasher.number(side);
      hasher.number(-1);
      context.book.visit(side, (slot, _account, priceTicks, lots) => {
        hasher.number(priceTicks);
        hashOrder(hasher, engine, slot, lots);
      });
    }
    for (const stops of [context.buyStops, context.sellStops]) {
      hasher.number(-2);
      for (const slot of stops) hashOrder(hasher, engine, slot, 0);
    }
  }
  const ledger = engine.ledger;
  hasher.number(ledger.accountCount);
  for (let account = 0; account < ledger.accountCount; account++) {
    hasher.number(ledger.userOf(account));
    hasher.number(ledger.modeOf(account));
    for (let asset = 0; asset < ledger.assetCount; asset++) {
      hasher.number(ledger.availableAtoms(account, asset));
      hasher.number(ledger.heldAtoms(account, asset));
    }
  }
  for (let asset = 0; asset < ledger.assetCount; asset++) hasher.number(ledger.supply[asset]!);
  // Venues only when some pair has any, so that states without them hash as they did before venues.
  for (const pair of engine.markets.pairs) {
    const venues = engine.venues[pair.index]!;
    if (venues.poolCount === 0) continue;
    hasher.number(-3);
    hasher.number(pair.index);
    for (const quote of venues.allQuotes()) {
      hasher.number(quote.poolId);
      hasher.number(quote.chainId);
      hasher.number(quote.version);
      hasher.number(quote.quotedAtMs);
    }
    for (const side of [0, 1] as const) {
      hasher.number(-4 - side);
      for (let index = 0; index < venues.levelCount(side); index++) {
        hasher.number(venues.priceAt(side, index));
        hasher.number(venues.lotsAt(side, index));
        hasher.number(venues.poolAt(side, index));
      }
    }
  }
  // Scale ids and the domains only when they hold anything, for the same reason.
  if (engine.lastScaleId !== 0) {
    hasher.number(-6);
    hasher.number(engine.lastScaleId);
  }
  for (const domain of engine.domains) domain.hash(hasher);
  return hasher.digest();
}
