/**
 * The cancel switch's commands, events, result codes and limits (domain id 19: numbers 19000..19999).
 *
 * The dead-man's switch of a market maker: ArmCancelSwitch sets (user, mode)'s deadline to the command's
 * journaled time plus `timeoutMs`, replacing any earlier one (a renewal); `timeoutMs` 0 disarms it. When
 * a RunTimers reaches the deadline, every open order of the account is cancelled (reason cancel_all),
 * inside that command, so the deadline and its firing are in the journal and survive a restart.
 */
import { fieldCodec, field } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const cancelSwitchDomainId = 19;

// Limits (a named maximum for everything).
/** The shortest and longest timeout a switch may be armed with, in milliseconds (0 disarms). */
export const cancelSwitchTimeoutMsMin = 1_000;
export const cancelSwitchTimeoutMsMax = 600_000;
/** Switches armed at once, over all accounts. */
export const cancelSwitchesMax = 100_000;

export const CancelSwitchCommandType = { arm: 19001 } as const;
export const CancelSwitchEventType = { armed: 19001, disarmed: 19002, fired: 19003 } as const;

/** Arms, renews (a new deadline replaces the old) or, with `timeoutMs` 0, disarms the switch of (user, mode). */
export interface ArmCancelSwitch {
  userId: number;
  mode: number;
  timeoutMs: number;
}

export interface CancelSwitchArmed {
  userId: number;
  mode: number;
  timeoutMs: number;
  /** Journaled time at which the orders are cancelled unless the switch is renewed or disarmed. */
  deadlineMs: number;
}

export interface CancelSwitchDisarmed {
  userId: number;
  mode: number;
}

/** The deadline passed: the account's open orders were cancelled just before (their OrderCancelled events precede this). */
export interface CancelSwitchFired {
  userId: number;
  mode: number;
  deadlineMs: number;
  /** Journaled time of the RunTimers that fired it (at or after the deadline). */
  firedMs: number;
  cancelledOrders: number;
}

export const CancelSwitchResult = {
  invalidSwitch: domainResult(
    cancelSwitchDomainId,
    19001,
    'INVALID_CANCEL_SWITCH',
    `a switch belongs to a client account (not a domain account) in mode live or paper; timeout_ms is 0 (disarm) or ${cancelSwitchTimeoutMsMin} to ${cancelSwitchTimeoutMsMax}`,
  ),
  notArmed: domainResult(cancelSwitchDomainId, 19002, 'CANCEL_SWITCH_NOT_ARMED', 'the switch is not armed: there is nothing to disarm'),
  tooManySwitches: domainResult(cancelSwitchDomainId, 19003, 'TOO_MANY_CANCEL_SWITCHES', `at most ${cancelSwitchesMax} switches are armed at once`),
} as const;

export const armCancelSwitchCodec = fieldCodec<ArmCancelSwitch>(CancelSwitchCommandType.arm, 'ArmCancelSwitch', {
  userId: field.integer,
  mode: field.integer,
  timeoutMs: field.integer,
});

/** Whether `timeoutMs` is 0 (disarm) or within the bounds. */
export function validTimeoutMs(timeoutMs: unknown): timeoutMs is number {
  return Number.isSafeInteger(timeoutMs) && ((timeoutMs as number) === 0 || ((timeoutMs as number) >= cancelSwitchTimeoutMsMin && (timeoutMs as number) <= cancelSwitchTimeoutMsMax));
}
