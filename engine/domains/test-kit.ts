/**
 * What the domains' tests share: an engine with every platform domain whose commands are stamped with the
 * next seq and the given time, as the sequencer would, and whose accepted commands are kept as the journal
 * a replay test feeds to a second engine. Only tests import it.
 */
import type { Command } from '../core/commands.ts';
import { Engine } from '../core/engine.ts';
import type { EngineOptions } from '../core/engine-state.ts';
import { CollectingSink } from '../core/events.ts';
import { Result, type ResultCode } from '../core/results.ts';
import { platformDomains } from './index.ts';

export class JournaledEngine {
  readonly sink = new CollectingSink();
  readonly engine: Engine;
  /** The commands the engine accepted, in order, stamped. */
  readonly journal: Command[] = [];
  private seq = 0;

  constructor(options: Omit<EngineOptions, 'sink' | 'domains'>) {
    this.engine = new Engine({ ...options, sink: this.sink, domains: platformDomains });
  }

  /** Applies `command` at time `ts` with the next seq; an accepted one joins the journal. */
  apply(ts: number, command: Command): ResultCode {
    command.seq = ++this.seq;
    command.ts = ts;
    const result = this.engine.apply(command);
    if (result === Result.ok) this.journal.push(command);
    return result;
  }
}
