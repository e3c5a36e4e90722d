/**
 * The port: everything a domain module may ask of the core, and nothing more. A module gets it from its
 * descriptor's `create(port)`; the Engine implements it. Keeping it this small is what lets ten domains
 * arrive without the core growing: a domain needs no new core code unless it needs a new kind of thing
 * from the core, and then the port grows by one documented member.
 *
 * - Time: `commandTimeMs()` is the journaled time of the command being applied (or of the RunTimers that
 *   runs a timer). Nothing else in a domain knows the time; nothing reads a clock.
 * - Money: `ledger` moves and holds funds between accounts under the ledger's own assertions (a move
 *   never creates or destroys money); minting (deposits, withdrawals) is not on the port. A domain's own
 *   accounts (escrow, pools) are ledger accounts of `domainUserId(domainId, index)` (limits.ts), opened
 *   with `ledger.findOrOpen`.
 * - Orders: `placeGroupOrder` places an order through the client's own path (holds, matching, fees,
 *   events) on behalf of a parent the domain names; `nextOrderId()` is the id it must carry.
 * - Timers: a module says when its next timer is due (`DomainModule.nextTimerMs`); the runtime journals a
 *   RunTimers command at that time and the engine calls the module's `runTimers`.
 * - Events: `emit` hands an event to the engine's sink, in order with the core's events of the command.
 * - Other domains: `domain(name)` returns another module (registered earlier in engine/domains/index.ts)
 *   for its read-only queries, e.g. the price oracle's prices.
 *
 * Opening books for instruments a domain defines (a YES/NO book per asset of a market, a book per arena
 * team) joins the port with the first domain that trades them (prediction markets).
 */
import type { GroupKind, OrderRequest } from './commands.ts';
import type { OrderReport, DomainModule } from './domain-module.ts';
import type { EngineEvent } from './events.ts';
import type { Ledger } from './ledger.ts';
import type { EngineLimits } from './limits.ts';
import type { ResultCode } from './results.ts';
import type { Markets } from './units.ts';

/** The ledger as a domain sees it: find accounts, read balances, hold, release and move. */
export type LedgerPort = Pick<
  Ledger,
  'find' | 'findOrOpen' | 'availableAtoms' | 'heldAtoms' | 'hold' | 'release' | 'payFromHeld' | 'payFromAvailable' | 'userOf' | 'modeOf'
>;

export interface DomainPort {
  readonly markets: Markets;
  readonly limits: EngineLimits;
  readonly ledger: LedgerPort;
  /** How the order placed by the last watching `placeGroupOrder` ended. */
  readonly orderReport: OrderReport;
  commandTimeMs(): number;
  nextOrderId(): number;
  placeGroupOrder(request: OrderRequest, groupKind: GroupKind, groupId: number, watch: boolean): ResultCode;
  emit(event: EngineEvent): void;
  domain(name: string): DomainModule | undefined;
}
