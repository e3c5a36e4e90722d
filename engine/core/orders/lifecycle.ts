/**
 * How an order ends: filled, cancelled or expired. Each ending releases what the order still holds,
 * reports it (the watched order's report too, for placeGroupOrder) and frees its slot.
 */
import type { Side } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { CancelReason, ExpireReason, OrderCancelled, OrderExpired, OrderStatus } from '../events.ts';
import { unlinkFromAccount } from './accounts.ts';

export function finishFilled(engine: EngineState, slot: number): void {
  engine.orders.setStatus(slot, OrderStatus.filled);
  releaseHold(engine, slot);
  forget(engine, slot);
}

/** `resting`: the order was on the book until now (a resting order cancelled, not a taker's remainder). */
export function finishCancelled(engine: EngineState, slot: number, reason: CancelReason, resting = false): void {
  finishEnded(engine, slot, engine.cancelled, reason, resting);
}

export function finishExpired(engine: EngineState, slot: number, reason: ExpireReason): void {
  finishEnded(engine, slot, engine.expired, reason, false);
}

/** Ends an order before it filled: releases its hold, reports how far it got, and forgets it. */
function finishEnded(engine: EngineState, slot: number, event: OrderCancelled | OrderExpired, reason: CancelReason | ExpireReason, resting: boolean): void {
  const store = engine.orders;
  const context = engine.contexts[store.context(slot)]!;
  const releasedAtoms = releaseHold(engine, slot);
  event.orderId = store.orderId(slot);
  event.userId = engine.ledger.userOf(store.account(slot));
  event.pairId = context.pair.id;
  event.mode = context.mode;
  event.side = store.side(slot) as Side;
  event.priceTicks = store.priceTicks(slot);
  event.resting = resting;
  event.reason = reason;
  event.filledLots = store.filledLots(slot);
  event.remainingLots = store.quantityLots(slot) - event.filledLots;
  event.filledNotionalAtoms = store.filledNotionalAtoms(slot);
  event.releasedAtoms = releasedAtoms;
  engine.sink.onEvent(event);
  forget(engine, slot);
}

/** Releases whatever the order still holds (unused fee cap, unfilled part); returns the atoms released. */
function releaseHold(engine: EngineState, slot: number): number {
  const store = engine.orders;
  const heldAtoms = store.heldAtoms(slot);
  if (heldAtoms > 0) {
    const pair = engine.contexts[store.context(slot)]!.pair;
    const asset = store.side(slot) === 0 ? pair.quote.index : pair.base.index;
    engine.ledger.release(store.account(slot), asset, heldAtoms);
    store.setHeldAtoms(slot, 0);
  }
  return heldAtoms;
}

function forget(engine: EngineState, slot: number): void {
  const store = engine.orders;
  const account = store.account(slot);
  const report = engine.orderReport;
  if (store.orderId(slot) === report.orderId) {
    report.ended = true;
    report.filledLots = store.filledLots(slot);
    report.filledNotionalAtoms = store.filledNotionalAtoms(slot);
  }
  engine.slotByOrderId.delete(store.orderId(slot), slot);
  if (store.hasClientOrderId(slot)) engine.slotByClientOrderId.delete(account, store.clientOrderId[slot]!);
  unlinkFromAccount(engine, account, slot);
  store.release(slot);
}
