/**
 * Domain modules: the parts of the state machine that live outside the core (engine/domains: exchange
 * algos today; markets, vaults and the rest as they come). The core knows only this interface: a module
 * names the command kinds it handles, applies them (validate first, then mutate, a result code always),
 * may ask for timers (run by RunTimers commands at journaled times), and adds its state to the state hash
 * and to snapshots. Modules move money and place orders only through the engine's own paths, so the
 * ledger's rules hold for them as for a client.
 *
 * A module whose state is empty adds nothing to the hash and nothing to a snapshot: states from before the
 * module existed hash as they did (the golden journal's hash does not move).
 */
import type { Command, CommandKind } from './commands.ts';
import type { Engine } from './engine.ts';
import type { ResultCode } from './results.ts';
import type { StateHasher } from './state-hash.ts';

/** A timer time meaning "none": later than any journaled time. */
export const noTimerMs = Number.MAX_SAFE_INTEGER;

export interface DomainModule {
  /** Stable name: the key of the module's state in snapshots. */
  readonly name: string;
  /** The command kinds the engine hands to this module. */
  readonly commandKinds: readonly CommandKind[];
  /** Applies one of its commands at the engine's current command time. */
  apply(command: Command): ResultCode;
  /** The journaled time at which its earliest timer is due, or `noTimerMs`. */
  nextTimerMs(): number;
  /** Runs what is due at `nowMs` (called by RunTimers only when `nextTimerMs() <= nowMs`). */
  runTimers(nowMs: number): void;
  /** Adds the module's state to the hash; nothing at all when the state is empty. */
  hash(hasher: StateHasher): void;
  /** The module's state as plain data (msgpack-able), or null when empty. */
  snapshot(): unknown;
  /** Loads what `snapshot` returned into a fresh module; throws on data that does not fit. */
  restore(state: unknown): void;
}

/** Makes an engine's modules (each engine has its own; a restored engine gets fresh ones). */
export type DomainFactory = (engine: Engine) => readonly DomainModule[];

/**
 * How a watched order (placed through `Engine.placeGroupOrder` with `watch`) ended: the engine fills it
 * when the order leaves the store. Reused; read right after the placement.
 */
export class OrderReport {
  /** The watched order id; 0 when none is watched. */
  orderId = 0;
  /** Whether the order ended (filled, cancelled or expired) during the placement. */
  ended = false;
  filledLots = 0;
  filledNotionalAtoms = 0;

  watch(orderId: number): void {
    this.orderId = orderId;
    this.ended = false;
    this.filledLots = 0;
    this.filledNotionalAtoms = 0;
  }
}
