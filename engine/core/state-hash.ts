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
import { StateHasher } from './state-hasher.ts';

// Domains import the hasher from here as before; it lives in a leaf file that imports no engine.
export { StateHasher };

/** Adds everything the store knows of one live order. */
function hashOrder(hasher: StateHasher, engine: Engine, slot: number, restingLots: number): void {
  const store = engine.orders;
  hasher.number(store.orderId(slot));
  hasher.number(engine.ledger.userOf(store.account(slot)));
  hasher.number(store.side(slot));
  hasher.number(store.orderType(slot));
  hasher.number(store.timeInForce(slot));
  hasher.number(store.selfTradePrevention(slot));
  hasher.number(store.postOnly(slot));
  hasher.number(store.status(slot));
  hasher.number(store.priceTicks(slot));
  hasher.number(store.stopPriceTicks(slot));
  hasher.number(store.holdPriceTicks(slot));
  hasher.number(store.quantityLots(slot));
  hasher.number(store.filledLots(slot));
  hasher.number(store.filledNotionalAtoms(slot));
  hasher.number(store.takerNotionalAtoms(slot));
  hasher.number(store.makerNotionalAtoms(slot));
  hasher.number(store.heldAtoms(slot));
  // An order's own taker rate only when it differs from the engine's, so states without discounts hash as before.
  if (store.takerFeeBps(slot) !== engine.settings.takerFeeBps) {
    hasher.number(-7);
    hasher.number(store.takerFeeBps(slot));
  }
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
  if (engine.takerFeeBpsByAccount.size !== 0) {
    hasher.number(-8);
    for (const account of [...engine.takerFeeBpsByAccount.keys()].sort((a, b) => a - b)) {
      hasher.number(ledger.userOf(account));
      hasher.number(ledger.modeOf(account));
      hasher.number(engine.takerFeeBpsByAccount.get(account)!);
    }
  }
  for (const domain of engine.domains) domain.hash(hasher);
  return hasher.digest();
}
