/**
 * Snapshot restore (snapshot.ts): live orders come back in priority order into their books or stop lists,
 * and are linked to their accounts afterwards in order-id order.
 */
import { assert } from '../assert.ts';
import type { Side } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { OrderStatus } from '../events.ts';
import { noAccount } from '../ledger.ts';
import { ensureAccountLists, linkToAccount } from './accounts.ts';

/** One live order as a snapshot stores it. */
export interface RestoredOrder {
  orderId: number;
  userId: number;
  context: number;
  side: Side;
  orderType: number;
  timeInForce: number;
  selfTradePrevention: number;
  postOnly: number;
  status: number;
  priceTicks: number;
  stopPriceTicks: number;
  holdPriceTicks: number;
  quantityLots: number;
  filledLots: number;
  filledNotionalAtoms: number;
  takerNotionalAtoms: number;
  makerNotionalAtoms: number;
  /** The taker fee rate the order was placed with. */
  takerFeeBps: number;
  heldAtoms: number;
  restingLots: number;
  clientOrderId: string;
}

/** Re-creates one live order from a snapshot row; returns its slot. */
export function restoreOrder(engine: EngineState, row: RestoredOrder): number {
  const account = engine.ledger.find(row.userId, (engine.contexts[row.context]!.mode));
  assert(account !== noAccount, 'restored order of an unknown account');
  ensureAccountLists(engine, account);
  const context = engine.contexts[row.context]!;
  const slot = engine.orders.allocate(engine.growSlots);
  const store = engine.orders;
  store.setOrderId(slot, row.orderId);
  store.setAccount(slot, account);
  store.setContext(slot, row.context);
  store.setSide(slot, row.side);
  store.setOrderType(slot, row.orderType);
  store.setTimeInForce(slot, row.timeInForce);
  store.setSelfTradePrevention(slot, row.selfTradePrevention);
  store.setPostOnly(slot, row.postOnly);
  store.setStatus(slot, row.status);
  store.setPriceTicks(slot, row.priceTicks);
  store.setStopPriceTicks(slot, row.stopPriceTicks);
  store.setHoldPriceTicks(slot, row.holdPriceTicks);
  store.setQuantityLots(slot, row.quantityLots);
  store.setFilledLots(slot, row.filledLots);
  store.setFilledNotionalAtoms(slot, row.filledNotionalAtoms);
  store.setTakerNotionalAtoms(slot, row.takerNotionalAtoms);
  store.setMakerNotionalAtoms(slot, row.makerNotionalAtoms);
  store.setTakerFeeBps(slot, row.takerFeeBps);
  store.setHeldAtoms(slot, row.heldAtoms);
  store.setClientOrderId(slot, row.clientOrderId);
  engine.slotByOrderId.add(row.orderId, slot);
  if (row.clientOrderId !== '') engine.slotByClientOrderId.add(account, row.clientOrderId, slot);
  if (row.status === OrderStatus.pending) {
    (row.side === 0 ? context.buyStops : context.sellStops).push(slot);
  } else {
    context.book.add(slot, account, row.side, row.priceTicks, row.restingLots);
  }
  return slot;
}

/** Appends a restored order to its account's list (called in order-id order). */
export function restoreAccountLink(engine: EngineState, slot: number): void {
  linkToAccount(engine, engine.orders.account(slot), slot);
}
