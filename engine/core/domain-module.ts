/**
 * What the core holds of a domain module once it is made: the module's interface, the report of a
 * watched order, and the "no timer" time. A leaf file (it imports only types of leaf files), so that the
 * port, the descriptors (domain.ts) and the engine can all name a module without importing each other.
 */
import type { Command, CommandKind, Mode } from './commands.ts';
import type { ResultCode } from './results.ts';
import type { StateHasher } from './state-hasher.ts';

/** A timer time meaning "none": later than any journaled time. */
export const noTimerMs = Number.MAX_SAFE_INTEGER;

export interface DomainModule {
  /** Stable name: the key of the module's state in snapshots. */
  readonly name: string;
  /**
   * Core command kinds the engine hands to this module: only the exchange algos, whose TWAP commands were
   * core kinds before domains had their own envelope (journal format 4); every other domain has none.
   */
  readonly commandKinds: readonly CommandKind[];
  /** The domain command types (kind 17) the engine hands to this module. */
  readonly commandTypes: readonly number[];
  /** Applies one of its commands at the engine's current command time. */
  apply(command: Command): ResultCode;
  /** The journaled time at which its earliest timer is due, or `noTimerMs`. */
  nextTimerMs(): number;
  /** Runs what is due at `nowMs` (called by RunTimers only when `nextTimerMs() <= nowMs`). */
  runTimers(nowMs: number): void;
  /**
   * Atoms of an asset the module holds in one account (a prediction's stake, an escrow): the ledger's held
   * balance is the orders' holds plus these. Absent when the module holds nothing.
   */
  heldAtoms?(userId: number, mode: Mode, assetIndex: number): number;
  /** Adds the module's state to the hash; nothing at all when the state is empty. */
  hash(hasher: StateHasher): void;
  /** The module's state as plain data (msgpack-able), or null when empty. */
  snapshot(): unknown;
  /** Loads what `snapshot` returned into a fresh module; throws on data that does not fit. */
  restore(state: unknown): void;
}

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
