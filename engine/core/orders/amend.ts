/**
 * AmendOrder: a reduction keeps priority and releases part of the hold; a price change or an increase
 * loses priority, re-holds and runs the order again as a taker.
 */
import { TimeInForce, type AmendOrder, type Side } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { OrderStatus } from '../events.ts';
import { buyHold } from '../matching/fees.ts';
import { holdTakerFeeBps } from './place.ts';
import { crosses } from '../matching/hybrid.ts';
import { execute, rest } from '../matching/taker.ts';
import { noSlot } from '../order-store.ts';
import { ownedSlot } from './accounts.ts';
import { Result, type ResultCode } from '../results.ts';
import { triggerStops } from '../stops.ts';
import { validTicks } from '../validate.ts';

export function amendOrder(engine: EngineState, command: AmendOrder): ResultCode {
  const slot = ownedSlot(engine, command.userId, command.mode, command.orderId, '');
  if (slot === noSlot) return Result.orderNotFound;
  const store = engine.orders;
  const context = engine.contexts[store.context(slot)]!;
  const pair = context.pair;
  const book = context.book;
  const status = store.status(slot);
  if (status === OrderStatus.pending || store.priceTicks(slot) === 0 || store.timeInForce(slot) !== TimeInForce.gtc) {
    return Result.orderNotAmendable;
  }
  const priceTicks = store.priceTicks(slot);
  const quantityLots = store.quantityLots(slot);
  const filledLots = store.filledLots(slot);
  const newPriceTicks = command.priceTicks === 0 ? priceTicks : command.priceTicks;
  const newQuantityLots = command.quantityLots === 0 ? quantityLots : command.quantityLots;
  if (!validTicks(newPriceTicks, pair)) return Result.priceOutOfRange;
  if (!Number.isSafeInteger(newQuantityLots) || newQuantityLots <= filledLots || newQuantityLots > pair.quantityLotsMax) {
    return Result.quantityOutOfRange;
  }
  if (newPriceTicks === priceTicks && newQuantityLots === quantityLots) return Result.ok;
  const side = store.side(slot) as Side;
  const account = store.account(slot);
  const remainingLots = quantityLots - filledLots;
  const newRemainingLots = newQuantityLots - filledLots;
  const heldAsset = side === 0 ? pair.quote.index : pair.base.index;
  const event = engine.amended;
  event.orderId = store.orderId(slot);
  event.pairId = pair.id;
  event.mode = context.mode;
  event.side = side;
  event.previousPriceTicks = priceTicks;
  event.previousRemainingLots = remainingLots;
  event.priceTicks = newPriceTicks;
  event.quantityLots = newQuantityLots;
  event.remainingLots = newRemainingLots;

  if (newPriceTicks === priceTicks && newQuantityLots < quantityLots) {
    // A reduction keeps priority; the hold shrinks by the reduced part at the order's price (fee cap kept).
    const releasedLots = remainingLots - newRemainingLots;
    const releasedAtoms = side === 0 ? priceTicks * releasedLots * pair.quoteAtomsPerTickLot : releasedLots * pair.baseAtomsPerLot;
    book.reduce(slot, newRemainingLots);
    store.setQuantityLots(slot, newQuantityLots);
    store.setHeldAtoms(slot, store.heldAtoms(slot) - releasedAtoms);
    engine.ledger.release(account, heldAsset, releasedAtoms);
    event.priorityKept = true;
    event.heldDeltaAtoms = -releasedAtoms;
    engine.sink.onEvent(event);
    return Result.ok;
  }

  // A price change or an increase loses priority: the order leaves the book and re-enters as a taker.
  const newHeldAtoms = side === 0 ? buyHold(engine, pair, newPriceTicks, newRemainingLots, holdTakerFeeBps(engine, store.postOnly(slot) === 1, store.takerFeeBps(slot))) : newRemainingLots * pair.baseAtomsPerLot;
  const deltaAtoms = newHeldAtoms - store.heldAtoms(slot);
  if (deltaAtoms > 0 && engine.ledger.availableAtoms(account, heldAsset) < deltaAtoms) return Result.insufficientBalance;
  // Whether the new price takes anything (the other side only: leaving our own side changes nothing here).
  const takes = crosses(engine, context, side, newPriceTicks);
  if (store.postOnly(slot) === 1 && takes) return Result.postOnlyWouldTake;
  if (newPriceTicks !== priceTicks) {
    const restable = book.canRest(side, newPriceTicks);
    if (restable !== Result.ok) return restable;
  }
  book.remove(slot);
  if (deltaAtoms > 0) engine.ledger.hold(account, heldAsset, deltaAtoms);
  else if (deltaAtoms < 0) engine.ledger.release(account, heldAsset, -deltaAtoms);
  store.setPriceTicks(slot, newPriceTicks);
  store.setHoldPriceTicks(slot, newPriceTicks);
  store.setQuantityLots(slot, newQuantityLots);
  store.setHeldAtoms(slot, newHeldAtoms);
  // Fees round up per price leg: the new hold carries a fresh fee cap for the new leg.
  store.setTakerNotionalAtoms(slot, 0);
  store.setMakerNotionalAtoms(slot, 0);
  event.priorityKept = false;
  event.heldDeltaAtoms = deltaAtoms;
  engine.sink.onEvent(event);
  // Most amends move a resting order within its side: with nothing on the other side at or through the
  // new price (the book's or the outside's), the taker walk would take nothing and rest it, so it rests.
  if (takes) execute(engine, context, slot);
  else rest(engine, context, slot, side, account, newPriceTicks, newRemainingLots);
  triggerStops(engine, context);
  return Result.ok;
}
