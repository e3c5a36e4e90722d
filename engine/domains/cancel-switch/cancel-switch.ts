/**
 * The cancel switch's state in the engine: one deadline per armed (user, mode). Rules:
 * - ArmCancelSwitch with a timeout sets the deadline to the command's time plus the timeout, replacing an
 *   earlier one (a renewal); with 0 it disarms (refused when not armed, so a no-op is not journaled);
 * - a RunTimers at or after a deadline cancels every open order of the account (the client's cancel-all
 *   path, reason cancel_all) and disarms the switch; due switches fire in (deadline, user, mode) order.
 * The switch holds no money; the cancels release the orders' holds as any cancel does.
 */
import { assert } from '../../core/assert.ts';
import type { Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { isDomainUserId } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hasher.ts';
import { validUser } from '../../core/validate.ts';
import {
  cancelSwitchesMax,
  CancelSwitchCommandType,
  CancelSwitchEventType,
  CancelSwitchResult,
  validTimeoutMs,
  type ArmCancelSwitch,
  type CancelSwitchArmed,
  type CancelSwitchDisarmed,
  type CancelSwitchFired,
} from './commands.ts';

/** userId, mode, deadlineMs per switch. */
export interface CancelSwitchSnapshot {
  switches: number[];
}

function keyOf(userId: number, mode: number): number {
  return userId * 2 + mode;
}

export class CancelSwitches implements DomainModule {
  static readonly domainName = 'cancel-switch';
  readonly name = CancelSwitches.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [CancelSwitchCommandType.arm];
  /** Deadline per key (userId × 2 + mode). */
  private readonly deadlines = new Map<number, number>();
  /** The earliest deadline, kept so that `nextTimerMs`, asked after every command, scans nothing. */
  private earliestMs = noTimerMs;

  constructor(private readonly port: DomainPort) {}

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the cancel switch gets domain commands only');
    if (command.type !== CancelSwitchCommandType.arm) return Result.unknownCommand;
    return this.arm(command.body as ArmCancelSwitch);
  }

  /** The journaled deadline of (user, mode), or null when the switch is not armed. */
  deadlineOf(userId: number, mode: number): number | null {
    return this.deadlines.get(keyOf(userId, mode)) ?? null;
  }

  get armedCount(): number {
    return this.deadlines.size;
  }

  private arm(body: ArmCancelSwitch): ResultCode {
    if (!validUser(body.userId) || isDomainUserId(body.userId) || (body.mode !== 0 && body.mode !== 1) || !validTimeoutMs(body.timeoutMs)) {
      return CancelSwitchResult.invalidSwitch;
    }
    const key = keyOf(body.userId, body.mode);
    if (body.timeoutMs === 0) {
      if (!this.deadlines.has(key)) return CancelSwitchResult.notArmed;
      this.deadlines.delete(key);
      this.recomputeEarliest();
      this.port.emit(domainEvent(CancelSwitchEventType.disarmed, { userId: body.userId, mode: body.mode } satisfies CancelSwitchDisarmed));
      return Result.ok;
    }
    if (!this.deadlines.has(key) && this.deadlines.size >= cancelSwitchesMax) return CancelSwitchResult.tooManySwitches;
    const deadlineMs = this.port.commandTimeMs() + body.timeoutMs;
    this.deadlines.set(key, deadlineMs);
    this.recomputeEarliest();
    this.port.emit(domainEvent(CancelSwitchEventType.armed, { userId: body.userId, mode: body.mode, timeoutMs: body.timeoutMs, deadlineMs } satisfies CancelSwitchArmed));
    return Result.ok;
  }

  private recomputeEarliest(): void {
    let earliest = noTimerMs;
    for (const deadline of this.deadlines.values()) if (deadline < earliest) earliest = deadline;
    this.earliestMs = earliest;
  }

  // Timers.

  nextTimerMs(): number {
    return this.earliestMs;
  }

  runTimers(nowMs: number): void {
    if (this.earliestMs > nowMs) return;
    const due: Array<[key: number, deadlineMs: number]> = [];
    for (const [key, deadline] of this.deadlines) if (deadline <= nowMs) due.push([key, deadline]);
    due.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    for (const [key, deadlineMs] of due) {
      this.deadlines.delete(key);
      const userId = Math.floor(key / 2);
      const mode = key % 2;
      const cancelledOrders = this.port.cancelClientOrders(userId, mode as 0 | 1);
      this.port.emit(domainEvent(CancelSwitchEventType.fired, { userId, mode, deadlineMs, firedMs: nowMs, cancelledOrders } satisfies CancelSwitchFired));
    }
    this.recomputeEarliest();
  }

  // Hash and snapshot: nothing while no switch is armed (the golden journal's hash does not move).

  private sortedKeys(): number[] {
    return [...this.deadlines.keys()].sort((a, b) => a - b);
  }

  hash(hasher: StateHasher): void {
    if (this.deadlines.size === 0) return;
    hasher.number(-19);
    hasher.number(this.deadlines.size);
    for (const key of this.sortedKeys()) {
      hasher.number(key);
      hasher.number(this.deadlines.get(key)!);
    }
  }

  snapshot(): CancelSwitchSnapshot | null {
    if (this.deadlines.size === 0) return null;
    const switches: number[] = [];
    for (const key of this.sortedKeys()) switches.push(Math.floor(key / 2), key % 2, this.deadlines.get(key)!);
    return { switches };
  }

  restore(state: unknown): void {
    assert(this.deadlines.size === 0, 'restore needs a fresh cancel switch module');
    const data = state as Partial<CancelSwitchSnapshot> | null;
    if (data === null || typeof data !== 'object' || !Array.isArray(data.switches) || data.switches.length % 3 !== 0 || data.switches.length > cancelSwitchesMax * 3) {
      throw new Error('cancel switch snapshot: malformed');
    }
    for (let index = 0; index < data.switches.length; index += 3) {
      const userId = data.switches[index] as number;
      const mode = data.switches[index + 1] as number;
      const deadlineMs = data.switches[index + 2] as number;
      if (!validUser(userId) || isDomainUserId(userId) || (mode !== 0 && mode !== 1) || !Number.isSafeInteger(deadlineMs) || this.deadlines.has(keyOf(userId, mode))) {
        throw new Error('cancel switch snapshot: malformed switch');
      }
      this.deadlines.set(keyOf(userId, mode), deadlineMs);
    }
    this.recomputeEarliest();
  }
}

/** The cancel switch module of an engine built with `platformDomains`. */
export function cancelSwitchesOf(engine: { domain(name: string): DomainModule | undefined }): CancelSwitches {
  const module = engine.domain(CancelSwitches.domainName);
  if (!(module instanceof CancelSwitches)) throw new Error('this engine has no cancel switch module');
  return module;
}
