/**
 * The runtime side of the engine's timers (TWAP slices today). The engine never reads a clock: it says
 * when its earliest timer is due (`Engine.nextTimerMs`), and this runner journals a RunTimers command when
 * the runtime clock has reached that time, so every slice runs at a journaled time and replay needs no
 * clock. It looks every `checkEveryMs` and when told that a timer was set (`poke`, after a TWAP starts).
 *
 * RunTimers runs one slice of each due TWAP; a TWAP still due afterwards (it fell behind) is due at once
 * again, so the runner sends commands back to back, at most `commandsPerCheckMax` per look, before it
 * waits for the next one.
 */
import { CommandKind, type Command } from '../core/commands.ts';
import { Result, resultCode } from '../core/results.ts';
import type { DurableEngine } from './durable-engine.ts';

/** How often the runner looks for a due timer: a tenth of the shortest TWAP interval (limits.ts). */
export const timerCheckMs = 100;
/** RunTimers commands one look may send while timers stay due. */
const commandsPerCheckMax = 64;

export interface TimersOptions {
  readonly durable: DurableEngine;
  /** The runtime clock, the one the sequencer stamps commands with. */
  readonly clock: () => number;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
  readonly checkEveryMs?: number;
}

export class Timers {
  /** RunTimers commands journaled, and refused (nothing due by the command's own time, or no room). */
  commandsSent = 0;
  commandsRefused = 0;
  private interval: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: TimersOptions) {}

  start(): void {
    this.interval = setInterval(() => this.check(), this.options.checkEveryMs ?? timerCheckMs);
    this.interval.unref();
  }

  /** A timer was set (a TWAP started): look now rather than at the next tick. */
  poke(): void {
    if (!this.stopped) this.check();
  }

  stop(): void {
    this.stopped = true;
    if (this.interval !== null) clearInterval(this.interval);
    this.interval = null;
  }

  /**
   * Sends RunTimers while the engine's earliest timer is due by the runtime clock. The sequencer applies a
   * command as it is enqueued, so the engine's next timer has moved on when `enqueue` returns.
   */
  private check(): void {
    const engine = this.options.durable.engine;
    for (let sent = 0; sent < commandsPerCheckMax && !this.stopped; sent++) {
      if (engine.nextTimerMs() > this.options.clock()) return;
      const command: Command = { kind: CommandKind.runTimers, seq: 0, ts: 0 };
      let refused = false;
      this.options.durable.enqueue(command, (outcome) => {
        if (outcome.error === null && outcome.result === Result.ok) {
          if (outcome.seq !== 0) this.commandsSent++;
          return;
        }
        refused = outcome.seq === 0;
        this.commandsRefused++;
        if (outcome.error !== null) this.options.log('timers_failed', { error: outcome.error.message });
        else if (outcome.result !== Result.nothingDue) this.options.log('timers_refused', { result: resultCode(outcome.result) });
      });
      // A refusal is answered at once: nothing ran, so looking again now would only repeat it.
      if (refused) return;
    }
  }
}
