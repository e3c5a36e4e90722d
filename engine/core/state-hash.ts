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
import { OrderStatus } from './events.ts';
import type { EngineSnapshot, OrderColumns } from './snapshot.ts';
import { StateHasher, WordRecorder } from './state-hasher.ts';

// Domains import the hasher from here as before; it lives in a leaf file that imports no engine.
export { StateHasher };

/** An order's numeric fields in hashing order, handed to the hasher as one run (`StateHasher.numbers`). */
const orderFields = new Float64Array(19);

/**
 * Adds everything the store knows of one live order. `hashOrderRow` adds the same words from a snapshot's
 * columns: change both together (snapshot.test.ts checks that the two hashes agree).
 */
function hashOrder(hasher: StateHasher, engine: Engine, slot: number, restingLots: number): void {
  const store = engine.orders;
  const fields = orderFields;
  fields[0] = store.orderId(slot);
  fields[1] = engine.ledger.userOf(store.account(slot));
  fields[2] = store.side(slot);
  fields[3] = store.orderType(slot);
  fields[4] = store.timeInForce(slot);
  fields[5] = store.selfTradePrevention(slot);
  fields[6] = store.postOnly(slot);
  fields[7] = store.status(slot);
  fields[8] = store.priceTicks(slot);
  fields[9] = store.stopPriceTicks(slot);
  fields[10] = store.holdPriceTicks(slot);
  fields[11] = store.quantityLots(slot);
  fields[12] = store.filledLots(slot);
  fields[13] = store.filledNotionalAtoms(slot);
  fields[14] = store.takerNotionalAtoms(slot);
  fields[15] = store.makerNotionalAtoms(slot);
  fields[16] = store.heldAtoms(slot);
  let count = 17;
  // An order's own taker rate only when it differs from the engine's, so states without discounts hash as before.
  if (store.takerFeeBps(slot) !== engine.settings.takerFeeBps) {
    fields[count++] = -7;
    fields[count++] = store.takerFeeBps(slot);
  }
  hasher.numbers(fields, count);
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
  addRest(hasher, engine);
  return hasher.digest();
}

/**
 * The words `stateHash` adds after the books (balances, supply, venues, scale ids, fee rates, the
 * domains), recorded: with a snapshot's order columns taken at the same moment they give its state hash
 * (`snapshotStateHash`) without the engine, so that another thread can compute it.
 */
export function stateHashRestWords(engine: Engine): number[] {
  const recorder = new WordRecorder();
  addRest(recorder, engine);
  return recorder.recorded;
}

/**
 * `stateHash` of the engine from which `state` was taken (`takeSnapshot`) and `restWords` recorded
 * (`stateHashRestWords`) at the same moment: the same words in the same order, the orders read from the
 * columns (per book context the resting bids and asks in priority order, then the buy and the sell stops).
 * `defaultTakerFeeBps` is the engine's setting. Throws on columns out of that order.
 */
export function snapshotStateHash(state: EngineSnapshot, restWords: ArrayLike<number>, defaultTakerFeeBps: number): string {
  const hasher = new StateHasher();
  hasher.number(state.lastOrderId);
  hasher.number(state.lastTradeId);
  const columns = state.orders;
  const rows = columns.orderId.length;
  let row = 0;
  for (let context = 0; context < state.lastPriceTicks.length; context++) {
    hasher.number(context);
    hasher.number(state.lastPriceTicks[context]!);
    for (const side of [0, 1] as const) {
      hasher.number(side);
      hasher.number(-1);
      for (; row < rows && columns.context[row] === context && columns.status[row] !== OrderStatus.pending && columns.side[row] === side; row++) {
        hasher.number(columns.priceTicks[row]!);
        hashOrderRow(hasher, columns, row, defaultTakerFeeBps);
      }
    }
    for (const side of [0, 1] as const) {
      hasher.number(-2);
      for (; row < rows && columns.context[row] === context && columns.status[row] === OrderStatus.pending && columns.side[row] === side; row++) {
        hashOrderRow(hasher, columns, row, defaultTakerFeeBps);
      }
    }
  }
  if (row !== rows) throw new Error(`order columns out of book order at row ${row} of ${rows}`);
  hasher.words(restWords);
  return hasher.digest();
}

/** `hashOrder` of the order in `row` of the columns. */
function hashOrderRow(hasher: StateHasher, columns: OrderColumns, row: number, defaultTakerFeeBps: number): void {
  const fields = orderFields;
  fields[0] = columns.orderId[row]!;
  fields[1] = columns.userId[row]!;
  fields[2] = columns.side[row]!;
  fields[3] = columns.orderType[row]!;
  fields[4] = columns.timeInForce[row]!;
  fields[5] = columns.selfTradePrevention[row]!;
  fields[6] = columns.postOnly[row]!;
  fields[7] = columns.status[row]!;
  fields[8] = columns.priceTicks[row]!;
  fields[9] = columns.stopPriceTicks[row]!;
  fields[10] = columns.holdPriceTicks[row]!;
  fields[11] = columns.quantityLots[row]!;
  fields[12] = columns.filledLots[row]!;
  fields[13] = columns.filledNotionalAtoms[row]!;
  fields[14] = columns.takerNotionalAtoms[row]!;
  fields[15] = columns.makerNotionalAtoms[row]!;
  fields[16] = columns.heldAtoms[row]!;
  let count = 17;
  const takerFeeBps = columns.takerFeeBps![row]!;
  if (takerFeeBps !== defaultTakerFeeBps) {
    fields[count++] = -7;
    fields[count++] = takerFeeBps;
  }
  hasher.numbers(fields, count);
  hasher.string(columns.clientOrderId[row]!);
  hasher.number(columns.restingLots[row]!);
}

/** Everything after the books: balances, supply, venues, scale ids, fee rates, the domains. */
function addRest(hasher: StateHasher, engine: Engine): void {
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
}
