/**
 * The engine: a deterministic state machine over the ledger and the order books. `apply` takes one
 * command, validates everything it needs first, then mutates and emits events; it returns a result code.
 * Nothing here reads a clock, draws a random number, awaits or does I/O, so the same commands always give
 * the same events and the same state hash.
 *
 * Money rules (all integers):
 * - notional of a fill = price ticks × lots × pair.quoteAtomsPerTickLot (quote atoms);
 * - a buy holds holdPrice × remaining × k + the fee cap; a sell holds its base atoms;
 * - fees are charged on an order's cumulative notional, rounded up to the atom, so the total fee of an
 *   order is exactly ceil(notional × bps / 10 000) however many fills it takes; the taker and maker fee
 *   caps of a buy are held at placement and the unused part is released when the order ends;
 * - a buy that fills below its hold price gets the difference released at once.
 *
 * Hybrid liquidity: beside each live book, a VenueBook holds the levels outside venues (AMM pools) quote.
 * A taker takes price first; at one price the resting orders come before the venues' levels (and venues
 * among themselves by chain, then pool). A fill against a venue settles through the mode's venue account
 * and is reported as AmmFill. Paper orders match in their own book, whose virtual liquidity is the live
 * hybrid book read-only (VirtualLevels); a resting paper order fills when a live trade prints through its
 * price.
 *
 * Domains: command kinds the core does not handle go to the domain modules the options register (see
 * domain.ts); they place orders through `placeGroupOrder`, the same path a client's order takes. Timers of
 * the modules run on RunTimers commands, at journaled times. Scale orders (PlaceScale) are placed in the
 * core (orders/scale.ts), because their all-or-nothing check needs the ledger, the books and the hybrid
 * best price that only the core sees.
 *
 * Layout: this file is the wiring (the Engine class: dispatch, the domain port, the queries); the state
 * lives in engine-state.ts and each command's handling in a file named for it, as plain functions of the
 * state: orders/ (placement, cancel, amend, scale, endings, account lists, restore), matching/ (the taker
 * walk, fills, fees, the hybrid best price, live prints), venues/ (quotes, outside fills), stops.ts,
 * paper.ts and funding.ts.
 */
import { assert } from './assert.ts';
import { noAccount } from './ledger.ts';
import { CommandKind, type Command, type DomainCommand, type GroupKind, type Mode, type OrderRequest } from './commands.ts';
import { CancelReason, type AmmFill, type EngineEvent, type TradeExecuted } from './events.ts';
import { noSlot } from './order-store.ts';
import { Result, type ResultCode } from './results.ts';
import { noTimerMs, type DomainModule } from './domain-module.ts';
import type { DomainPort, SellEstimate } from './port.ts';
import { EngineState, type BookContext, type EngineOptions } from './engine-state.ts';
import { deposit, withdraw, withdrawTo } from './funding.ts';
import { TakerFills } from './matching/fills.ts';
import { ensureAccountLists, openOrderCount, openOrderSlots, slotOf } from './orders/accounts.ts';
import { amendOrder } from './orders/amend.ts';
import { cancelAll, cancelBatch, cancelById, cancelOrder } from './orders/cancel.ts';
import { SellLadder, estimateSell } from './matching/estimate.ts';
import { isDomainUserId } from './limits.ts';
import { placeBatch, placeGroupOrder, placeOrder } from './orders/place.ts';
import { restoreAccountLink, restoreOrder, type RestoredOrder } from './orders/restore.ts';
import { placeScale } from './orders/scale.ts';
import { fillPaperOnPrints, openPaperAccount, PaperPrintFills } from './paper.ts';
import { expireVenues, quoteVenue } from './venues/quotes.ts';

// The engine's options are imported from here; they live with the state they build.
export type { EngineOptions } from './engine-state.ts';

/** Commands per group of `Engine.applyRun`: how many orders' reads it puts in flight at once. */
export const touchGroup = 8;
/**
 * Live orders from which `Engine.applyRun` reads ahead: 16 MiB of order records. Below it the records and
 * the id index stay in the processor's caches, where the reads ahead cost more than they save (measured
 * on the two-core machine of bench/README.md, against `apply` one by one in the same process: 0.93 at
 * 10 000 resting orders, 0.95 at 100 000, 1.11 at 200 000, 2.0 at a million; in bench:engine 1.17-1.23
 * at a million).
 */
export const touchLiveOrdersMin = 1 << 17;

export class Engine extends EngineState implements DomainPort {
  /** The domain modules, in registration order (the order their timers run and their state is hashed). */
  readonly domains: DomainModule[] = [];
  /** Domain modules by the core command kind they handle (the TWAP commands of format 4). */
  private readonly domainByKind: Array<DomainModule | undefined> = [];
  /** Domain modules by the domain command type they handle. */
  private readonly domainByType = new Map<number, DomainModule>();
  /** What `applyRun`'s reads ahead returned, kept so that they are not dropped as unused; no state. */
  private touched = 0;
  /** The slots `applyRun` reads ahead for one group. */
  private readonly touchSlots = new Int32Array(touchGroup);

  constructor(options: EngineOptions) {
    super(options);
    this.takerFills = new TakerFills(this);
    this.paperPrints = new PaperPrintFills(this);
    // One by one, so that a module being made finds the ones made before it through `domain(name)`.
    for (const make of options.domains ?? []) this.domains.push(make(this));
    for (const domain of this.domains) {
      for (const kind of domain.commandKinds) {
        assert(this.domainByKind[kind] === undefined, `two domains handle command kind ${kind}`);
        while (this.domainByKind.length <= kind) this.domainByKind.push(undefined);
        this.domainByKind[kind] = domain;
      }
      for (const type of domain.commandTypes) {
        assert(!this.domainByType.has(type), `two domains handle command type ${type}`);
        this.domainByType.set(type, domain);
      }
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Commands

  apply(command: Command): ResultCode {
    this.nowMs = command.ts;
    const result = this.dispatch(command);
    // Trades only happen in accepted commands; resting paper orders see this command's live prints now.
    if (this.printCount > 0) fillPaperOnPrints(this);
    return result;
  }

  /**
   * Applies `commands[from]` to `commands[to - 1]` in order, each result into `results` at the command's
   * index: the same as `apply` on each in turn (apply-run.test.ts), faster on a large book. It takes the
   * commands in groups of `touchGroup`, and before applying a group reads the id-index entry and record of
   * every live order that the group's cancels and amends name: first the group's index entries, in a pass
   * of their own, then the records they name (both cache lines), unconfirmed (an entry an older order holds
   * names that order's record, a read for nothing), then a word of each of those orders' neighbours in
   * their levels' lists (`BookFactory.touchNeighbours`), which a cancel or a move writes when it unlinks
   * the order. The reads of one pass are independent of one another,
   * so the processor has them all in flight at once; applied one after another, each command waits for
   * its own two (the index entry, then the record it points to) before it can start. With a million
   * resting orders the index and the records are far larger than the caches and each of those reads goes
   * to memory (bench/README.md, bench:engine, "reading ahead"). A group's later commands may end or move
   * the orders read for it: the reads are only reads, so that costs time, never correctness.
   *
   * For streams that are at hand as a whole: a journal replayed, a benchmark's stream. The sequencer
   * applies each command as it arrives, with nothing after it to read ahead for.
   */
  applyRun(commands: readonly Command[], results: Uint16Array, from = 0, to = commands.length): void {
    if (this.orders.liveCount < touchLiveOrdersMin) {
      for (let index = from; index < to; index++) results[index] = this.apply(commands[index]!);
      return;
    }
    for (let start = from; start < to; start += touchGroup) {
      const end = Math.min(to, start + touchGroup);
      const slots = this.touchSlots;
      let count = 0;
      for (let index = start; index < end; index++) {
        const command = commands[index]!;
        if (command.kind === CommandKind.cancelOrder || command.kind === CommandKind.amendOrder) slots[count++] = this.slotByOrderId.peek(command.orderId);
      }
      let touched = 0;
      const store = this.orders;
      for (let index = 0; index < count; index++) {
        const slot = slots[index]!;
        if (slot !== noSlot) touched ^= store.touch(slot);
      }
      // Then the neighbours in their levels' lists, which unlinking the order (a cancel, a move) writes.
      const books = this.books;
      for (let index = 0; index < count; index++) {
        const slot = slots[index]!;
        if (slot !== noSlot) touched ^= books.touchNeighbours(slot);
      }
      this.touched ^= touched;
      for (let index = start; index < end; index++) results[index] = this.apply(commands[index]!);
    }
  }

  private dispatch(command: Command): ResultCode {
    switch (command.kind) {
      case CommandKind.placeOrder:
        return placeOrder(this, command);
      case CommandKind.cancelOrder:
        return cancelOrder(this, command);
      case CommandKind.cancelAll:
        return cancelAll(this, command);
      case CommandKind.amendOrder:
        return amendOrder(this, command);
      case CommandKind.deposit:
        return deposit(this, command);
      case CommandKind.withdraw:
        return withdraw(this, command);
      case CommandKind.placeBatch:
        return placeBatch(this, command);
      case CommandKind.cancelBatch:
        return cancelBatch(this, command);
      case CommandKind.withdrawTo:
        return withdrawTo(this, command);
      case CommandKind.quoteVenue:
        return quoteVenue(this, command);
      case CommandKind.openPaperAccount:
        return openPaperAccount(this, command);
      case CommandKind.expireVenues:
        return expireVenues(this, command);
      case CommandKind.runTimers:
        return this.runTimers();
      case CommandKind.placeScale:
        return placeScale(this, command);
      case CommandKind.startTwap:
      case CommandKind.cancelTwap:
        return this.applyDomain(command);
      case CommandKind.domain:
        return this.applyDomainCommand(command);
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Domains

  /** Hands a command to the module registered for its kind; an engine without one refuses it. */
  private applyDomain(command: Command): ResultCode {
    const domain = this.domainByKind[command.kind];
    return domain === undefined ? Result.unknownCommand : domain.apply(command);
  }

  /** Hands a domain command to the module registered for its type; an engine without one refuses it. */
  private applyDomainCommand(command: DomainCommand): ResultCode {
    const domain = this.domainByType.get(command.type);
    return domain === undefined ? Result.unknownCommand : domain.apply(command);
  }

  // The port (port.ts): what domain modules may ask of the core.

  commandTimeMs(): number {
    return this.nowMs;
  }

  nextOrderId(): number {
    return this.lastOrderId + 1;
  }

  emit(event: EngineEvent): void {
    this.sink.onEvent(event);
  }

  domain(name: string): DomainModule | undefined {
    return this.domains.find((domain) => domain.name === name);
  }

  onTrade(listener: (fill: TradeExecuted | AmmFill) => void): void {
    this.tradeListeners.push(listener);
  }

  setTakerFeeBps(userId: number, mode: Mode, bps: number): void {
    assert(Number.isInteger(bps) && bps >= 0 && bps <= this.settings.takerFeeBps, 'account taker fee out of range');
    const account = this.ledger.find(userId, mode);
    assert(account !== noAccount, 'taker fee of an unknown account');
    if (bps === this.settings.takerFeeBps) this.takerFeeBpsByAccount.delete(account);
    else this.takerFeeBpsByAccount.set(account, bps);
  }

  /** Runs the timers of every module that has one due now; refused when none is due (nothing to journal). */
  private runTimers(): ResultCode {
    let ran = false;
    for (const domain of this.domains) {
      if (domain.nextTimerMs() > this.nowMs) continue;
      domain.runTimers(this.nowMs);
      ran = true;
    }
    return ran ? Result.ok : Result.nothingDue;
  }

  /** The journaled time at which the earliest timer of any module is due, or `noTimerMs` (a query). */
  nextTimerMs(): number {
    let earliest = noTimerMs;
    for (const domain of this.domains) earliest = Math.min(earliest, domain.nextTimerMs());
    return earliest;
  }

  /**
   * Places an order on behalf of a parent (a TWAP slice, a scale rung) through the same path as a client's
   * order; its OrderAccepted carries the parent. With `watch`, `orderReport` tells afterwards how the order
   * ended, for orders that end within the call (immediate-or-cancel and market orders always do).
   */
  placeGroupOrder(request: OrderRequest, groupKind: GroupKind, groupId: number, watch: boolean): ResultCode {
    // A domain may trade for its own accounts (a vault's pool); a client's command never reaches here. Such
    // an account was opened through the port's ledger, which does not grow the per-account order lists.
    const account = this.ledger.find(request.userId, request.mode);
    if (account !== noAccount) ensureAccountLists(this, account);
    this.placingForDomain = true;
    try {
      return placeGroupOrder(this, request, groupKind, groupId, watch);
    } finally {
      this.placingForDomain = false;
    }
  }

  /**
   * Cancels a resting order of a domain's own account through the client's cancel path (port.ts). Client
   * accounts are refused: a domain never cancels a client's order.
   */
  cancelGroupOrder(userId: number, mode: Mode, orderId: number): ResultCode {
    if (!isDomainUserId(userId)) return Result.invalidUser;
    if (!Number.isSafeInteger(orderId) || orderId < 1) return Result.orderNotFound;
    return cancelById(this, userId, mode, orderId, '', CancelReason.user);
  }

  /** Every live order of a client's account, cancelled as its own cancel-all would (port.ts). */
  cancelClientOrders(userId: number, mode: Mode): number {
    if (isDomainUserId(userId) || (mode !== 0 && mode !== 1)) return 0;
    const count = openOrderCount(this, userId, mode);
    if (count > 0) cancelAll(this, { kind: CommandKind.cancelAll, seq: 0, ts: 0, userId, mode, pairId: 0 });
    return count;
  }

  /** What an immediate-or-cancel sell would fill and raise now (a query; matching/estimate.ts). */
  estimateSell(userId: number, mode: Mode, pairId: number, lots: number, limitPriceTicks: number): SellEstimate {
    return estimateSell(this, userId, mode, pairId, lots, limitPriceTicks);
  }

  /** The liquidity a sell would reach, read once for estimates of several sizes (matching/estimate.ts). */
  sellLadder(userId: number, mode: Mode, pairId: number, limitPriceTicks: number): SellLadder {
    return new SellLadder(this, userId, mode, pairId, limitPriceTicks);
  }

  /** Places one order (alone or as a batch item). Refusals emit OrderRejected and change nothing else. */
  placeOrder(request: OrderRequest): ResultCode {
    return placeOrder(this, request);
  }

  // -------------------------------------------------------------------------------------------------
  // Snapshot restore (snapshot.ts): orders come back in priority order, account links afterwards.

  /** Re-creates one live order from a snapshot row; returns its slot. */
  restoreOrder(row: RestoredOrder): number {
    return restoreOrder(this, row);
  }

  /**
   * Grows the per-account order lists over every account the ledger holds, as opening each account did
   * live: restored accounts without orders need them too (placing into lists too short would link nothing).
   */
  restoreAccountLists(): void {
    if (this.ledger.accountCount > 0) ensureAccountLists(this, this.ledger.accountCount - 1);
  }

  /** Makes room for `count` restored orders at once: the order store and the id index grow once, not by doublings. */
  reserveOrders(count: number): void {
    this.orders.reserve(count, this.growSlots);
    this.slotByOrderId.reserve(count);
  }

  /** Appends a restored order to its account's list (called in order-id order). */
  restoreAccountLink(slot: number): void {
    restoreAccountLink(this, slot);
  }

  // -------------------------------------------------------------------------------------------------
  // Queries (never journaled)

  /** Slot of a live order, or `noSlot`. */
  slotOf(orderId: number): number {
    return slotOf(this, orderId);
  }

  context(pairId: number, mode: Mode): BookContext | undefined {
    const pair = this.markets.pairById(pairId);
    return pair === undefined ? undefined : this.contexts[pair.index * 2 + mode];
  }

  /** Live order slots of (user, mode), oldest first. */
  openOrderSlots(userId: number, mode: Mode): number[] {
    return openOrderSlots(this, userId, mode);
  }

  openOrderCount(userId: number, mode: Mode): number {
    return openOrderCount(this, userId, mode);
  }
}
