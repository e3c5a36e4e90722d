/**
 * Per-account order lists (a doubly linked list through the order store, oldest first, with a count of
 * open orders per account), client order ids, and the lookups of a live order by id or client order id.
 */
import { Mode } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { noAccount } from '../ledger.ts';
import { noSlot } from '../order-store.ts';
import { grownInt32 } from '../typed-arrays.ts';

/** Grows the per-account arrays to hold `account`: called whenever an account may be new. */
export function ensureAccountLists(engine: EngineState, account: number): void {
  if (account < engine.accountHead.length) return;
  const capacity = Math.max(engine.accountHead.length * 2, account + 1);
  engine.accountHead = grownInt32(engine.accountHead, capacity, noSlot);
  engine.accountTail = grownInt32(engine.accountTail, capacity, noSlot);
  engine.accountOpenOrders = grownInt32(engine.accountOpenOrders, capacity);
}

/**
 * The oldest live order of `account`, or `noSlot`. An account whose lists were never grown (opened by a
 * credit or a domain and restored from a snapshot without orders, where the lists grow only for accounts
 * with orders) has none: reading past the lists would give `undefined` and a walk that never ends.
 */
export function firstAccountSlot(engine: EngineState, account: number): number {
  return account < engine.accountHead.length ? engine.accountHead[account]! : noSlot;
}

/** Appends a new live order to its account's list and counts it. */
export function linkToAccount(engine: EngineState, account: number, slot: number): void {
  const store = engine.orders;
  const tail = engine.accountTail[account]!;
  store.setAccountPrev(slot, tail);
  store.setAccountNext(slot, noSlot);
  if (tail === noSlot) engine.accountHead[account] = slot;
  else store.setAccountNext(tail, slot);
  engine.accountTail[account] = slot;
  engine.accountOpenOrders[account] = engine.accountOpenOrders[account]! + 1;
}

/** Takes an ending order out of its account's list. */
export function unlinkFromAccount(engine: EngineState, account: number, slot: number): void {
  const store = engine.orders;
  const prev = store.accountPrev(slot);
  const next = store.accountNext(slot);
  if (prev === noSlot) engine.accountHead[account] = next;
  else store.setAccountNext(prev, next);
  if (next === noSlot) engine.accountTail[account] = prev;
  else store.setAccountPrev(next, prev);
  engine.accountOpenOrders[account] = engine.accountOpenOrders[account]! - 1;
}

/** The slot of a live order owned by (user, mode), by id or client order id; `noSlot` otherwise. */
export function ownedSlot(engine: EngineState, userId: number, mode: Mode, orderId: number, clientOrderId: string): number {
  if (orderId !== 0) {
    // By id: one lookup, then the owner is read off the order rather than looked up.
    const slot = slotOf(engine, orderId);
    if (slot === noSlot) return noSlot;
    const account = engine.orders.account(slot);
    return engine.ledger.userOf(account) === userId && engine.ledger.modeOf(account) === mode ? slot : noSlot;
  }
  if (clientOrderId === '') return noSlot;
  const account = engine.ledger.find(userId, mode);
  if (account === noAccount) return noSlot;
  return engine.slotByClientOrderId.get(account, clientOrderId);
}

/** Slot of a live order, or `noSlot`. */
export function slotOf(engine: EngineState, orderId: number): number {
  if (!Number.isSafeInteger(orderId) || orderId < 0) return noSlot;
  return engine.slotByOrderId.get(orderId);
}

/** Live order slots of (user, mode), oldest first. */
export function openOrderSlots(engine: EngineState, userId: number, mode: Mode): number[] {
  const account = engine.ledger.find(userId, mode);
  const slots: number[] = [];
  if (account === noAccount) return slots;
  for (let slot = firstAccountSlot(engine, account); slot !== noSlot; slot = engine.orders.accountNext(slot)) slots.push(slot);
  return slots;
}

/** How many live orders (user, mode) has, resting or pending. */
export function openOrderCount(engine: EngineState, userId: number, mode: Mode): number {
  const account = engine.ledger.find(userId, mode);
  return account === noAccount || account >= engine.accountOpenOrders.length ? 0 : engine.accountOpenOrders[account]!;
}
