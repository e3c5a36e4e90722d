/**
 * Cancels: one order by id or client order id, all of an account's orders (optionally of one pair), and
 * cancel batches. A cancelled order leaves its book or its stop list and releases its hold.
 */
import { Mode, type CancelAll, type CancelBatch, type CancelOrder } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { CancelReason, OrderStatus } from '../events.ts';
import { noAccount } from '../ledger.ts';
import { noSlot } from '../order-store.ts';
import { firstAccountSlot, ownedSlot } from './accounts.ts';
import { finishCancelled } from './lifecycle.ts';
import { Result, type ResultCode } from '../results.ts';
import { removeStop } from '../stops.ts';
import { validUser } from '../validate.ts';

export function cancelOrder(engine: EngineState, command: CancelOrder): ResultCode {
  return cancelById(engine, command.userId, command.mode, command.orderId, command.clientOrderId, CancelReason.user);
}

/** Cancels one live order of (user, mode) by id or client order id; ORDER_NOT_FOUND when it has none such. */
export function cancelById(engine: EngineState, userId: number, mode: Mode, orderId: number, clientOrderId: string, reason: CancelReason): ResultCode {
  const slot = ownedSlot(engine, userId, mode, orderId, clientOrderId);
  if (slot === noSlot) return Result.orderNotFound;
  cancelSlot(engine, slot, reason);
  return Result.ok;
}

export function cancelAll(engine: EngineState, command: CancelAll): ResultCode {
  if (!validUser(command.userId)) return Result.invalidUser;
  if (command.mode !== 0 && command.mode !== 1) return Result.invalidMode;
  let contextIndex = -1;
  if (command.pairId !== 0) {
    const pair = engine.markets.pairById(command.pairId);
    if (pair === undefined) return Result.unknownPair;
    contextIndex = pair.index * 2 + command.mode;
  }
  const account = engine.ledger.find(command.userId, command.mode);
  if (account === noAccount) return Result.ok;
  let slot = firstAccountSlot(engine, account);
  while (slot !== noSlot) {
    const next = engine.orders.accountNext(slot);
    if (contextIndex === -1 || engine.orders.context(slot) === contextIndex) cancelSlot(engine, slot, CancelReason.cancelAll);
    slot = next;
  }
  return Result.ok;
}

export function cancelBatch(engine: EngineState, command: CancelBatch): ResultCode {
  engine.batchResults.length = 0;
  if (command.orderIds.length === 0) return Result.batchEmpty;
  if (command.orderIds.length > engine.limits.batchCancelMax) return Result.batchTooLarge;
  for (const orderId of command.orderIds) {
    engine.batchResults.push(cancelById(engine, command.userId, command.mode, orderId, '', CancelReason.user));
  }
  return Result.ok;
}

function cancelSlot(engine: EngineState, slot: number, reason: CancelReason): void {
  const store = engine.orders;
  const context = engine.contexts[store.context(slot)]!;
  const resting = store.status(slot) !== OrderStatus.pending;
  if (resting) context.book.remove(slot);
  else removeStop(engine, context, slot);
  finishCancelled(engine, slot, reason, resting);
}
