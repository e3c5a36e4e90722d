/**
 * The bots domain's state in the engine: the running clones (user, mode, source) in the order they
 * started, and the strategy clock. Rules:
 * - ConfigureBots sets the period; the next strike is one period after the command (0 stops the clock);
 * - StartClone registers a platform user once; a user runs at most one clone;
 * - the clock strikes while a period is set and a clone runs: a RunTimers at or after the due time emits
 *   StrategyTicked and sets the next strike one period after it (periods missed while the runtime was down
 *   collapse into one strike); when a clone starts after the clock fell behind, the next strike is one
 *   period after the start.
 * Nothing here moves money: the clones' orders, bets and predictions are ordinary commands the runtime
 * journals at each strike, so the ledger's rules hold for them as for any client.
 */
import { assert } from '../../core/assert.ts';
import type { Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hasher.ts';
import {
  BotsCommandType,
  BotsEventType,
  BotsResult,
  clonesMax,
  sourcesPerTypeMax,
  validStrategyMs,
  type BotsConfigured,
  type CloneStarted,
  type ConfigureBots,
  type StartClone,
  type StrategyTicked,
} from './commands.ts';

/** One running clone. */
export interface RunningClone {
  readonly userId: number;
  readonly mode: number;
  readonly sourceType: number;
  readonly sourceIndex: number;
}

export interface BotsSnapshot {
  strategyMs: number;
  nextStrikeMs: number;
  ticks: number;
  /** userId, mode, sourceType, sourceIndex per clone, in start order. */
  clones: number[];
}

export function validClone(body: StartClone): boolean {
  return (
    Number.isSafeInteger(body.userId) &&
    body.userId >= 1 &&
    body.userId <= userIdMax &&
    (body.mode === 0 || body.mode === 1) &&
    Number.isInteger(body.sourceType) &&
    body.sourceType >= 0 &&
    body.sourceType <= 2 &&
    Number.isInteger(body.sourceIndex) &&
    body.sourceIndex >= 0 &&
    body.sourceIndex < sourcesPerTypeMax
  );
}

export class Bots implements DomainModule {
  static readonly domainName = 'bots';
  readonly name = Bots.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [BotsCommandType.configure, BotsCommandType.startClone];
  private readonly running = new Map<number, RunningClone>();
  private strategyMsValue = 0;
  private nextStrikeMs = 0;
  private ticks = 0;

  constructor(private readonly port: DomainPort) {}

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the bots module gets domain commands only');
    switch (command.type) {
      case BotsCommandType.configure:
        return this.configure(command.body as ConfigureBots);
      case BotsCommandType.startClone:
        return this.startClone(command.body as StartClone);
      default:
        return Result.unknownCommand;
    }
  }

  // Queries.

  get strategyMs(): number {
    return this.strategyMsValue;
  }

  get strikes(): number {
    return this.ticks;
  }

  clone(userId: number): RunningClone | undefined {
    return this.running.get(userId);
  }

  /** Running clones in start order. */
  clones(): RunningClone[] {
    return [...this.running.values()];
  }

  // Commands.

  private configure(body: ConfigureBots): ResultCode {
    if (!validStrategyMs(body.strategyMs)) return BotsResult.invalidConfiguration;
    this.strategyMsValue = body.strategyMs;
    this.nextStrikeMs = body.strategyMs === 0 ? 0 : this.port.commandTimeMs() + body.strategyMs;
    this.port.emit(domainEvent(BotsEventType.configured, { strategyMs: body.strategyMs } satisfies BotsConfigured));
    return Result.ok;
  }

  private startClone(body: StartClone): ResultCode {
    if (!validClone(body)) return BotsResult.invalidClone;
    if (this.running.has(body.userId)) return BotsResult.alreadyRunning;
    if (this.running.size >= clonesMax) return BotsResult.tooManyClones;
    const clone: RunningClone = { userId: body.userId, mode: body.mode, sourceType: body.sourceType, sourceIndex: body.sourceIndex };
    this.running.set(body.userId, clone);
    const nowMs = this.port.commandTimeMs();
    if (this.strategyMsValue > 0 && this.nextStrikeMs < nowMs) this.nextStrikeMs = nowMs + this.strategyMsValue;
    const event: CloneStarted = { ...clone, clonesRunning: this.running.size };
    this.port.emit(domainEvent(BotsEventType.cloneStarted, event));
    return Result.ok;
  }

  // Timers.

  nextTimerMs(): number {
    return this.strategyMsValue > 0 && this.running.size > 0 ? this.nextStrikeMs : noTimerMs;
  }

  runTimers(nowMs: number): void {
    if (this.nextTimerMs() > nowMs) return;
    this.ticks++;
    this.nextStrikeMs = nowMs + this.strategyMsValue;
    const event: StrategyTicked = { tick: this.ticks, timestampMs: nowMs, clonesRunning: this.running.size };
    this.port.emit(domainEvent(BotsEventType.strategyTicked, event));
  }

  // Hash and snapshot: nothing while nothing was ever configured or started.

  private empty(): boolean {
    return this.running.size === 0 && this.strategyMsValue === 0 && this.ticks === 0 && this.nextStrikeMs === 0;
  }

  hash(hasher: StateHasher): void {
    if (this.empty()) return;
    hasher.number(-17);
    hasher.number(this.strategyMsValue);
    hasher.number(this.nextStrikeMs);
    hasher.number(this.ticks);
    hasher.number(this.running.size);
    for (const clone of this.running.values()) {
      hasher.number(clone.userId);
      hasher.number(clone.mode);
      hasher.number(clone.sourceType);
      hasher.number(clone.sourceIndex);
    }
  }

  snapshot(): BotsSnapshot | null {
    if (this.empty()) return null;
    const clones: number[] = [];
    for (const clone of this.running.values()) clones.push(clone.userId, clone.mode, clone.sourceType, clone.sourceIndex);
    return { strategyMs: this.strategyMsValue, nextStrikeMs: this.nextStrikeMs, ticks: this.ticks, clones };
  }

  restore(state: unknown): void {
    assert(this.empty(), 'restore needs a fresh bots module');
    const data = state as Partial<BotsSnapshot> | null;
    if (
      data === null ||
      typeof data !== 'object' ||
      !validStrategyMs(data.strategyMs) ||
      !Number.isSafeInteger(data.nextStrikeMs) ||
      !Number.isSafeInteger(data.ticks) ||
      !Array.isArray(data.clones) ||
      data.clones.length % 4 !== 0 ||
      data.clones.length > clonesMax * 4
    ) {
      throw new Error('bots snapshot: malformed');
    }
    for (let index = 0; index < data.clones.length; index += 4) {
      const clone = { userId: data.clones[index], mode: data.clones[index + 1], sourceType: data.clones[index + 2], sourceIndex: data.clones[index + 3] } as StartClone;
      if (!validClone(clone) || this.running.has(clone.userId)) throw new Error('bots snapshot: malformed clone');
      this.running.set(clone.userId, clone);
    }
    this.strategyMsValue = data.strategyMs;
    this.nextStrikeMs = data.nextStrikeMs!;
    this.ticks = data.ticks!;
  }
}

/** The bots module of an engine built with `platformDomains`. */
export function botsOf(engine: { domain(name: string): DomainModule | undefined }): Bots {
  const bots = engine.domain(Bots.domainName);
  if (!(bots instanceof Bots)) throw new Error('this engine has no bots module');
  return bots;
}
