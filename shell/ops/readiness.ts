/**
 * The readiness checks of GET /ready, as a pure function of figures the module reads from the runtime:
 * the journal takes commands, recovery is done (the server started its modules, and has not begun to stop),
 * every AMM chain's worker runs and its last quote is younger than the engine's quote lifetime, and the read
 * models are at most READY_READ_MODEL_LAG_MAX commands behind the journal.
 */
import type { AmmChainState } from '../../engine/runtime/amm-manager.ts';

export interface ReadinessFigures {
  /** Recovery done and every module started; false again once the server begins to stop. */
  readonly started: boolean;
  /** The sequencer takes commands (not closing, no failed journal write). */
  readonly journalAccepting: boolean;
  readonly nowMs: number;
  /** The engine's venue quote lifetime: an older quote no longer counts as quoting. */
  readonly quoteLifetimeMs: number;
  readonly ammChains: readonly AmmChainState[];
  /** Commands handed to the read models and not yet committed. */
  readonly readModelLag: number;
  readonly readModelLagMax: number;
}

export type ReadinessCheckName = 'journal' | 'recovery' | 'amm' | 'read_models';

export interface ReadinessCheck {
  readonly name: ReadinessCheckName;
  readonly ok: boolean;
  /** What was found, in a sentence an operator can act on. */
  readonly detail: string;
}

/** Why one chain is not quoting, or null when it is. */
function chainProblem(chain: AmmChainState, nowMs: number, lifetimeMs: number): string | null {
  if (!chain.workerUp) return `chain ${chain.chainId}: worker not running`;
  if (chain.lastQuoteAtMs === null) return `chain ${chain.chainId}: no quote yet`;
  const ageMs = nowMs - chain.lastQuoteAtMs;
  if (ageMs > lifetimeMs) return `chain ${chain.chainId}: last quote ${ageMs} ms ago (lifetime ${lifetimeMs} ms)`;
  return null;
}

/** Every check, in a fixed order, each with its finding. */
export function readinessChecks(figures: ReadinessFigures): ReadinessCheck[] {
  const problems = figures.ammChains.map((chain) => chainProblem(chain, figures.nowMs, figures.quoteLifetimeMs)).filter((problem) => problem !== null);
  const ammDetail =
    figures.ammChains.length === 0 ? 'no AMM chain configured' : problems.length === 0 ? `${figures.ammChains.length} chain(s) quoting` : problems.join('; ');
  return [
    { name: 'journal', ok: figures.journalAccepting, detail: figures.journalAccepting ? 'open and taking commands' : 'closing or failed: commands are refused' },
    { name: 'recovery', ok: figures.started, detail: figures.started ? 'recovered and started' : 'not started (recovering) or stopping' },
    { name: 'amm', ok: problems.length === 0, detail: ammDetail },
    {
      name: 'read_models',
      ok: figures.readModelLag <= figures.readModelLagMax,
      detail: `${figures.readModelLag} command(s) behind the journal (at most ${figures.readModelLagMax})`,
    },
  ];
}
