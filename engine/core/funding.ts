/**
 * Funding commands: Deposit, Withdraw and WithdrawTo, and the BalanceChanged event every balance change
 * by a command reports. Deposits may fund a domain's own account (isDomainUserId); withdrawals may not.
 * Paper accounts are opened in paper.ts.
 */
import { assert } from './assert.ts';
import { Mode, type Deposit, type Withdraw, type WithdrawTo } from './commands.ts';
import type { EngineState } from './engine-state.ts';
import { BalanceReason } from './events.ts';
import { noAccount } from './ledger.ts';
import { isDomainUserId, withdrawReferenceCharsMax } from './limits.ts';
import { ensureAccountLists } from './orders/accounts.ts';
import { Result, type ResultCode } from './results.ts';
import { validAddress, validChainId, validUser } from './validate.ts';

export function deposit(engine: EngineState, command: Deposit): ResultCode {
  const asset = engine.markets.assetById(command.assetId);
  if (!validUser(command.userId) && !isDomainUserId(command.userId)) return Result.invalidUser;
  if (command.mode !== 0 && command.mode !== 1) return Result.invalidMode;
  if (asset === undefined) return Result.unknownAsset;
  if (!Number.isSafeInteger(command.amountAtoms) || command.amountAtoms <= 0) return Result.invalidCommand;
  if (!engine.ledger.canMint(asset.index, command.amountAtoms)) return Result.balanceLimit;
  const account = engine.ledger.findOrOpen(command.userId, command.mode);
  if (account === noAccount) return Result.tooManyAccounts;
  ensureAccountLists(engine, account);
  engine.ledger.deposit(account, asset.index, command.amountAtoms);
  emitBalance(engine, account, asset.index, asset.id, BalanceReason.deposit, command.amountAtoms);
  return Result.ok;
}

export function withdraw(engine: EngineState, command: Withdraw): ResultCode {
  const refusal = withdrawalRefusal(engine, command.userId, command.mode, command.assetId, command.amountAtoms);
  if (refusal !== Result.ok) return refusal;
  debit(engine, command.userId, command.mode, command.assetId, command.amountAtoms);
  return Result.ok;
}

/**
 * A withdrawal to an external address: the ledger moves as for a live Withdraw, then FundsWithdrawn
 * reports the destination and the reference. The destination is checked before the funds, as every
 * shape check comes before the balance check, so that a refusal names the first thing to fix.
 */
export function withdrawTo(engine: EngineState, command: WithdrawTo): ResultCode {
  if (!validChainId(command.chainId) || !validAddress(command.address)) return Result.invalidDestination;
  if (typeof command.reference !== 'string') return Result.invalidCommand;
  if (command.reference.length > withdrawReferenceCharsMax) return Result.referenceTooLong;
  const refusal = withdrawalRefusal(engine, command.userId, Mode.live, command.assetId, command.amountAtoms);
  if (refusal !== Result.ok) return refusal;
  debit(engine, command.userId, Mode.live, command.assetId, command.amountAtoms);
  const event = engine.fundsWithdrawn;
  event.userId = command.userId;
  event.mode = Mode.live;
  event.assetId = command.assetId;
  event.amountAtoms = command.amountAtoms;
  event.chainId = command.chainId;
  event.address = command.address;
  event.reference = command.reference;
  engine.sink.onEvent(event);
  return Result.ok;
}

/** Why a withdrawal of `amountAtoms` from (user, mode) cannot be made, or ok; changes nothing. */
function withdrawalRefusal(engine: EngineState, userId: number, mode: Mode, assetId: number, amountAtoms: number): ResultCode {
  const asset = engine.markets.assetById(assetId);
  if (!validUser(userId)) return Result.invalidUser;
  if (mode !== 0 && mode !== 1) return Result.invalidMode;
  if (asset === undefined) return Result.unknownAsset;
  if (!Number.isSafeInteger(amountAtoms) || amountAtoms <= 0) return Result.invalidCommand;
  const account = engine.ledger.find(userId, mode);
  if (account === noAccount || engine.ledger.availableAtoms(account, asset.index) < amountAtoms) {
    return Result.insufficientBalance;
  }
  return Result.ok;
}

/** Takes a withdrawal that `withdrawalRefusal` allowed out of the ledger and reports the new balance. */
function debit(engine: EngineState, userId: number, mode: Mode, assetId: number, amountAtoms: number): void {
  const asset = engine.markets.assetById(assetId);
  const account = engine.ledger.find(userId, mode);
  assert(asset !== undefined, 'debit of an unknown asset');
  assert(account !== noAccount, 'debit of an unknown account');
  engine.ledger.withdraw(account, asset.index, amountAtoms);
  emitBalance(engine, account, asset.index, asset.id, BalanceReason.withdraw, -amountAtoms);
}

export function emitBalance(engine: EngineState, account: number, assetIndex: number, assetId: number, reason: BalanceReason, delta: number): void {
  const event = engine.balanceChanged;
  event.userId = engine.ledger.userOf(account);
  event.mode = engine.ledger.modeOf(account);
  event.assetId = assetId;
  event.reason = reason;
  event.deltaAtoms = delta;
  event.availableAtoms = engine.ledger.availableAtoms(account, assetIndex);
  event.heldAtoms = engine.ledger.heldAtoms(account, assetIndex);
  engine.sink.onEvent(event);
}
