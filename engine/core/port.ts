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
 *   `cancelGroupOrder` cancels a resting order a domain placed for one of its own accounts (a vault's
 *   quotes), through the client's cancel path; `cancelClientOrders` cancels all of a client's orders
 *   (the dead-man's switch the client armed). `estimateSell` tells, without changing anything, what an
 *   immediate-or-cancel sell would fill and raise against the book as it is now, so that a domain can
 *   decide before it trades (a withdrawal that selling could not pay is refused without a sell).
 * - Timers: a module says when its next timer is due (`DomainModule.nextTimerMs`); the runtime journals a
 *   RunTimers command at that time and the engine calls the module's `runTimers`.
 * - Events: `emit` hands an event to the engine's sink, in order with the core's events of the command.
 * - Other domains: `domain(name)` returns another module (registered earlier in engine/domains/index.ts)
 *   for its read-only queries, e.g. the price oracle's prices.
 *
 * - Fills: `onTrade` calls a domain after every exchange fill (volume, streaks, tiers follow real trading).
 * - Settings: `settings` gives the engine's fee rates, for domains that charge the platform's fees.
 * - Fee discounts: `setTakerFeeBps` gives one account a lower taker rate (a tier's discount) for the
 *   orders it places from then on; orders already placed keep the rate they hold for.
 *
 * Books for instruments a domain defines (a YES/NO book per asset, a book per arena team) are the core's
 * Book (book/book.ts) made by the domain's own FastBookFactory over its own order slots: matching rules
 * differ per instrument (minting collateral, house quotes), the price-time priority does not.
 *
 * Modules are made one by one in the domain list's order; while a module is made, `domain(name)` finds
 * the modules made before it, so it registers its listeners (a price-tick listener, `onTrade`) at once,
 * in the same order on a live engine and on a restored one.
 */
import type { GroupKind, Mode, OrderRequest } from './commands.ts';
import type { OrderReport, DomainModule } from './domain-module.ts';
import type { AmmFill, EngineEvent, TradeExecuted } from './events.ts';
import type { Ledger } from './ledger.ts';
import type { EngineLimits, EngineSettings } from './limits.ts';
import type { ResultCode } from './results.ts';
import type { Markets } from './units.ts';

/**
 * The ledger as a domain sees it: find accounts, read balances, hold, release and move; `accountCount`
 * lets a domain visit every account (accounts are 0 .. accountCount − 1), for shares pro rata to holdings.
 */
export type LedgerPort = Pick<
  Ledger,
  'find' | 'findOrOpen' | 'availableAtoms' | 'heldAtoms' | 'hold' | 'release' | 'payFromHeld' | 'payFromAvailable' | 'userOf' | 'modeOf' | 'accountCount'
>;

/** What an immediate-or-cancel sell would do now (`estimateSell`): the lots and notional it fills, and what it credits. */
export interface SellEstimate {
  filledLots: number;
  filledNotionalAtoms: number;
  /** Quote atoms the seller receives: the notional less the taker fee at the account's rate. */
  proceedsAtoms: number;
}

/** The liquidity a sell would reach now, read once (`sellLadder`): what a sell of any size would fill. */
export interface SellLadder {
  /** What a sell of `lots` would fill and credit, as `estimateSell` with the ladder's user, pair and limit. */
  estimate(lots: number): SellEstimate;
}

export interface DomainPort {
  readonly markets: Markets;
  readonly limits: EngineLimits;
  /** The engine's fee settings (taker and maker bps): a domain charging the platform's fees reads them here. */
  readonly settings: EngineSettings;
  readonly ledger: LedgerPort;
  /** How the order placed by the last watching `placeGroupOrder` ended. */
  readonly orderReport: OrderReport;
  commandTimeMs(): number;
  nextOrderId(): number;
  placeGroupOrder(request: OrderRequest, groupKind: GroupKind, groupId: number, watch: boolean): ResultCode;
  /**
   * Cancels the live order `orderId` of a domain's own account (user, mode) (`isDomainUserId`), one the
   * domain placed through `placeGroupOrder`: it leaves its book and its hold is released, as a client's
   * cancel (OrderCancelled, reason user). ORDER_NOT_FOUND when the order is no longer live (filled) or is
   * not that account's; INVALID_USER for a client's account, which only its owner may cancel.
   */
  cancelGroupOrder(userId: number, mode: Mode, orderId: number): ResultCode;
  /**
   * Cancels every live order (resting or untriggered stop) of a client's account (user, mode), on every
   * pair, exactly as the client's own cancel-all (OrderCancelled, reason cancel_all): for a dead-man's
   * switch the client armed. Returns how many were cancelled; 0 for an account with none, or for a
   * domain's own account, whose orders only their domain cancels. Not inside an `onTrade` listener.
   */
  cancelClientOrders(userId: number, mode: Mode): number;
  /**
   * What an immediate-or-cancel limit sell of `lots` at `limitPriceTicks` by (user, mode) on `pairId` would
   * fill now and credit (notional less the account's taker fee), against the same liquidity the order would
   * reach: the pair's book in that mode and the outside liquidity (live venues, or the live hybrid book
   * for a paper order), as if the account's own live orders were cancelled first (the caller cancels them
   * before it sells). A query: it changes nothing. Exact for a sell the caller places next, in the same
   * command, with nothing traded on that pair in between.
   */
  estimateSell(userId: number, mode: Mode, pairId: number, lots: number, limitPriceTicks: number): SellEstimate;
  /**
   * The same liquidity read once, for estimates of several sizes (a search for the size that raises an
   * amount): `sellLadder(...).estimate(lots)` equals `estimateSell(..., lots, ...)` while nothing changes
   * on the pair. A query: it changes nothing.
   */
  sellLadder(userId: number, mode: Mode, pairId: number, limitPriceTicks: number): SellLadder;
  emit(event: EngineEvent): void;
  domain(name: string): DomainModule | undefined;
  /**
   * Calls `listener` after every exchange fill (TradeExecuted against a resting order, AmmFill against a
   * venue), inside the command that made it, so a domain can follow real trading (volume, streaks)
   * deterministically. The event object is reused by the engine: copy what you keep. The listener must not
   * place, cancel or amend orders (the match is in progress) and must not fail; it may record and emit.
   * Register while the module is made.
   */
  onTrade(listener: (fill: TradeExecuted | AmmFill) => void): void;
  /**
   * Sets the taker fee rate of (user, mode) for orders placed from now on: an integer from 0 to
   * `settings.takerFeeBps` (the engine's rate itself removes the account's own). The account must exist.
   * Safe inside an `onTrade` listener: the order being matched keeps the rate it was placed with.
   */
  setTakerFeeBps(userId: number, mode: Mode, bps: number): void;
}
