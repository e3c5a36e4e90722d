/**
 * TWAPs: a quantity bought or sold in equal slices over a window, one slice every interval of journaled
 * time. StartTwap runs the first slice at once; RunTimers commands run the later ones when they are due,
 * so the schedule depends only on the journaled timestamps and replay needs no clock.
 *
 * Rules (numbers in core/limits.ts):
 * - slicesTotal = ceil(duration / interval); interval 1 s .. 1 h, duration up to 7 days, at most 1000
 *   slices, and at least one lot per slice (quantity ≥ slicesTotal);
 * - slice k (from 0) is due at start + k × interval; it is an immediate-or-cancel order for
 *   floor(remaining / slices left) lots (the last slice takes all that remains), a limit at the TWAP's
 *   limit price or a market order when it has none, placed through the engine's normal order path with
 *   the next order id, and marked as the TWAP's child;
 * - the first slice runs in StartTwap itself, and if the engine refuses it the TWAP is refused with that
 *   result (nothing changes);
 * - what a slice does not fill rolls into the later slices; a later slice the engine refuses (insufficient
 *   balance, say) still counts as run, and is counted in `slicesRefused`;
 * - after the last slice the TWAP ends: completed when nothing remains, expired otherwise; a TWAP whose
 *   window passed before its last slice could run (the runtime was down) ends expired without trading, as
 *   a catch-up burst of slices would not be the average the client asked for;
 * - RunTimers runs one slice of each due TWAP, in (next slice time, TWAP id) order; a TWAP still due
 *   afterwards waits for the next RunTimers;
 * - at most `twapsPerAccountMax` active TWAPs per account and `twapsMax` in all.
 *
 * Paper TWAPs place paper slices, which take the live hybrid book read-only like any paper order.
 */
import { assert } from '../../core/assert.ts';
import { CommandKind, GroupKind, OrderType, SelfTradePrevention, TimeInForce, type CancelTwap, type Command, type Mode, type OrderRequest, type Side, type StartTwap } from '../../core/commands.ts';
import { noTimerMs, type DomainModule } from '../../core/domain.ts';
import type { DomainPort } from '../../core/port.ts';
import { TwapEnded, TwapSliced, TwapStarted, TwapStatus } from '../../core/events.ts';
import { noAccount } from '../../core/ledger.ts';
import { twapDurationMsMax, twapIntervalMsMax, twapIntervalMsMin, twapSlicesMax, userIdMax } from '../../core/limits.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';

/** One active TWAP. */
export class Twap {
  twapId = 0;
  userId = 0;
  mode: Mode = 0;
  pairId = 0;
  side: Side = 0;
  quantityLots = 0;
  limitPriceTicks = 0;
  durationMs = 0;
  intervalMs = 0;
  startedMs = 0;
  slicesTotal = 0;
  slicesDone = 0;
  filledLots = 0;
  filledNotionalAtoms = 0;
  /** Later slices the engine refused (the first one is never refused: that refuses the TWAP). */
  slicesRefused = 0;
  /** When the next slice is due. */
  nextSliceMs = 0;
  /** Ids of the orders its slices placed (refused slices placed none), oldest first. */
  readonly childOrderIds: number[] = [];

  get remainingLots(): number {
    return this.quantityLots - this.filledLots;
  }

  get endsMs(): number {
    return this.startedMs + this.durationMs;
  }
}

/** The fields of a TWAP in snapshots and in the hash, in this order (the child order ids follow apart). */
const rowFields = [
  'twapId',
  'userId',
  'mode',
  'pairId',
  'side',
  'quantityLots',
  'limitPriceTicks',
  'durationMs',
  'intervalMs',
  'startedMs',
  'slicesTotal',
  'slicesDone',
  'filledLots',
  'filledNotionalAtoms',
  'slicesRefused',
  'nextSliceMs',
] as const;

export interface TwapsSnapshot {
  lastTwapId: number;
  /** Per active TWAP, in id order: its `rowFields`. */
  rows: number[][];
  /** Per active TWAP, in id order: its child order ids. */
  children: number[][];
}

/** slices = ceil(duration / interval): the window is cut into whole intervals, the last one possibly short. */
export function twapSlices(durationMs: number, intervalMs: number): number {
  return Math.ceil(durationMs / intervalMs);
}

export class Twaps implements DomainModule {
  readonly name = 'twaps';
  readonly commandKinds = [CommandKind.startTwap, CommandKind.cancelTwap] as const;
  readonly commandTypes: readonly number[] = [];
  /** The last TWAP id accepted; ids must increase. */
  lastTwapId = 0;
  /** Active TWAPs by id; a Map keeps insertion order, which is id order (ids increase). */
  private readonly active = new Map<number, Twap>();
  /** Active TWAPs per account key (user × 2 + mode). */
  private readonly perAccount = new Map<number, number>();
  private readonly started = new TwapStarted();
  private readonly sliced = new TwapSliced();
  private readonly ended = new TwapEnded();
  /** The slice being placed (reused: the engine copies what it keeps). */
  private readonly slice: OrderRequest = {
    orderId: 0,
    userId: 0,
    mode: 0,
    pairId: 0,
    side: 0,
    orderType: OrderType.limit,
    timeInForce: TimeInForce.ioc,
    priceTicks: 0,
    stopPriceTicks: 0,
    quantityLots: 0,
    postOnly: false,
    selfTradePrevention: SelfTradePrevention.cancelTaker,
    clientOrderId: '',
  };
  private readonly due: Twap[] = [];

  constructor(private readonly engine: DomainPort) {}

  // -------------------------------------------------------------------------------------------------
  // Commands

  apply(command: Command): ResultCode {
    switch (command.kind) {
      case CommandKind.startTwap:
        return this.start(command);
      case CommandKind.cancelTwap:
        return this.cancel(command);
      default:
        return Result.unknownCommand;
    }
  }

  private start(command: StartTwap): ResultCode {
    const engine = this.engine;
    if (!Number.isSafeInteger(command.twapId) || command.twapId <= this.lastTwapId) return Result.twapIdNotIncreasing;
    if (!Number.isSafeInteger(command.userId) || command.userId < 1 || command.userId > userIdMax) return Result.invalidUser;
    if (command.mode !== 0 && command.mode !== 1) return Result.invalidMode;
    const pair = Number.isInteger(command.pairId) ? engine.markets.pairById(command.pairId) : undefined;
    if (pair === undefined) return Result.unknownPair;
    if (command.side !== 0 && command.side !== 1) return Result.invalidSide;
    const quantityLots = command.quantityLots;
    if (!Number.isSafeInteger(quantityLots) || quantityLots < 1 || quantityLots > pair.quantityLotsMax) return Result.quantityOutOfRange;
    const limitPriceTicks = command.limitPriceTicks;
    if (!Number.isSafeInteger(limitPriceTicks) || limitPriceTicks < 0 || limitPriceTicks > pair.priceTicksMax) return Result.priceOutOfRange;
    const { durationMs, intervalMs } = command;
    if (!Number.isSafeInteger(intervalMs) || intervalMs < twapIntervalMsMin || intervalMs > twapIntervalMsMax) return Result.invalidTwapSchedule;
    if (!Number.isSafeInteger(durationMs) || durationMs < 1 || durationMs > twapDurationMsMax) return Result.invalidTwapSchedule;
    const slicesTotal = twapSlices(durationMs, intervalMs);
    if (slicesTotal > twapSlicesMax || quantityLots < slicesTotal) return Result.invalidTwapSchedule;
    if (engine.ledger.find(command.userId, command.mode) === noAccount) return Result.insufficientBalance;
    const accountKey = command.userId * 2 + command.mode;
    if ((this.perAccount.get(accountKey) ?? 0) >= engine.limits.twapsPerAccountMax) return Result.tooManyTwaps;
    if (this.active.size >= engine.limits.twapsMax) return Result.twapsFull;

    const twap = new Twap();
    twap.twapId = command.twapId;
    twap.userId = command.userId;
    twap.mode = command.mode;
    twap.pairId = pair.id;
    twap.side = command.side;
    twap.quantityLots = quantityLots;
    twap.limitPriceTicks = limitPriceTicks;
    twap.durationMs = durationMs;
    twap.intervalMs = intervalMs;
    twap.startedMs = command.ts;
    twap.slicesTotal = slicesTotal;
    twap.nextSliceMs = command.ts;
    // The first slice runs in this command, before the TWAP exists: if the engine refuses it (no funds, a
    // full book), the client hears that refusal at once and nothing changed, rather than getting a TWAP
    // whose slices will all fail. A refused placement changes nothing, so this is still validation.
    const firstLots = this.sliceLots(twap);
    const firstResult = this.placeSlice(twap, firstLots);
    if (firstResult !== Result.ok) return firstResult;

    // Accept.
    this.lastTwapId = command.twapId;
    this.active.set(twap.twapId, twap);
    this.perAccount.set(accountKey, (this.perAccount.get(accountKey) ?? 0) + 1);
    const event = this.started;
    event.twapId = twap.twapId;
    event.userId = twap.userId;
    event.mode = twap.mode;
    event.pairId = twap.pairId;
    event.side = twap.side;
    event.quantityLots = quantityLots;
    event.limitPriceTicks = limitPriceTicks;
    event.durationMs = durationMs;
    event.intervalMs = intervalMs;
    event.slicesTotal = slicesTotal;
    event.startedMs = twap.startedMs;
    event.nextSliceMs = slicesTotal > 1 ? twap.startedMs + intervalMs : 0;
    engine.emit(event);
    this.recordSlice(twap, firstLots, firstResult);
    return Result.ok;
  }

  private cancel(command: CancelTwap): ResultCode {
    const twap = Number.isSafeInteger(command.twapId) ? this.active.get(command.twapId) : undefined;
    if (twap === undefined || twap.userId !== command.userId || twap.mode !== command.mode) return Result.twapNotFound;
    this.end(twap, TwapStatus.cancelled);
    return Result.ok;
  }

  // -------------------------------------------------------------------------------------------------
  // Timers

  nextTimerMs(): number {
    let earliest = noTimerMs;
    for (const twap of this.active.values()) if (twap.nextSliceMs < earliest) earliest = twap.nextSliceMs;
    return earliest;
  }

  runTimers(nowMs: number): void {
    const due = this.due;
    due.length = 0;
    for (const twap of this.active.values()) if (twap.nextSliceMs <= nowMs) due.push(twap);
    due.sort((a, b) => a.nextSliceMs - b.nextSliceMs || a.twapId - b.twapId);
    for (const twap of due) {
      if (nowMs >= twap.endsMs) this.end(twap, TwapStatus.expired);
      else this.runSlice(twap);
    }
    due.length = 0;
  }

  /** Places the TWAP's next slice and records how it ended; ends the TWAP after its last slice. */
  private runSlice(twap: Twap): void {
    const lots = this.sliceLots(twap);
    this.recordSlice(twap, lots, this.placeSlice(twap, lots));
  }

  /** The next slice's size: remaining / slices left, floored; the last slice takes all that remains. */
  private sliceLots(twap: Twap): number {
    const slicesLeft = twap.slicesTotal - twap.slicesDone;
    assert(slicesLeft > 0, 'a slice of a TWAP that ran all of them');
    // remaining ≥ slices left holds throughout (it does at the start, and a slice takes at most
    // remaining / slices left), so every slice is at least one lot.
    const lots = slicesLeft === 1 ? twap.remainingLots : Math.floor(twap.remainingLots / slicesLeft);
    assert(lots >= 1, 'a TWAP slice of no lots');
    return lots;
  }

  /** Places a slice of `lots` as the TWAP's child with the next order id; `engine.orderReport` tells how it ended. */
  private placeSlice(twap: Twap, lots: number): ResultCode {
    const engine = this.engine;
    const request = this.slice;
    request.orderId = engine.nextOrderId();
    request.userId = twap.userId;
    request.mode = twap.mode;
    request.pairId = twap.pairId;
    request.side = twap.side;
    request.orderType = twap.limitPriceTicks === 0 ? OrderType.market : OrderType.limit;
    request.priceTicks = twap.limitPriceTicks;
    request.quantityLots = lots;
    return engine.placeGroupOrder(request, GroupKind.twap, twap.twapId, true);
  }

  /** Counts the slice just placed (or refused), reports it, and ends the TWAP after its last one. */
  private recordSlice(twap: Twap, lots: number, result: ResultCode): void {
    const report = this.engine.orderReport;
    const sliceIndex = twap.slicesDone;
    twap.slicesDone++;
    let sliceFilledLots = 0;
    if (result === Result.ok) {
      sliceFilledLots = report.filledLots;
      twap.filledLots += report.filledLots;
      twap.filledNotionalAtoms += report.filledNotionalAtoms;
      twap.childOrderIds.push(this.slice.orderId);
    } else {
      twap.slicesRefused++;
    }
    const last = twap.slicesDone === twap.slicesTotal || twap.remainingLots === 0;
    twap.nextSliceMs = last ? noTimerMs : twap.startedMs + twap.slicesDone * twap.intervalMs;
    const event = this.sliced;
    event.twapId = twap.twapId;
    event.pairId = twap.pairId;
    event.mode = twap.mode;
    event.userId = twap.userId;
    event.sliceIndex = sliceIndex;
    event.orderId = result === Result.ok ? this.slice.orderId : 0;
    event.result = result;
    event.sliceLots = lots;
    event.sliceFilledLots = sliceFilledLots;
    event.filledLots = twap.filledLots;
    event.filledNotionalAtoms = twap.filledNotionalAtoms;
    event.remainingLots = twap.remainingLots;
    event.nextSliceMs = last ? 0 : twap.nextSliceMs;
    this.engine.emit(event);
    if (last) this.end(twap, twap.remainingLots === 0 ? TwapStatus.completed : TwapStatus.expired);
  }

  private end(twap: Twap, status: TwapStatus): void {
    const event = this.ended;
    event.twapId = twap.twapId;
    event.pairId = twap.pairId;
    event.mode = twap.mode;
    event.userId = twap.userId;
    event.status = status;
    event.slicesDone = twap.slicesDone;
    event.filledLots = twap.filledLots;
    event.filledNotionalAtoms = twap.filledNotionalAtoms;
    this.engine.emit(event);
    this.active.delete(twap.twapId);
    const accountKey = twap.userId * 2 + twap.mode;
    const count = this.perAccount.get(accountKey)! - 1;
    if (count === 0) this.perAccount.delete(accountKey);
    else this.perAccount.set(accountKey, count);
  }

  // -------------------------------------------------------------------------------------------------
  // Queries (never journaled)

  /** An active TWAP, or undefined. */
  find(twapId: number): Twap | undefined {
    return this.active.get(twapId);
  }

  /** The active TWAPs of (user, mode), oldest first. */
  activeOf(userId: number, mode: Mode): Twap[] {
    const found: Twap[] = [];
    for (const twap of this.active.values()) if (twap.userId === userId && twap.mode === mode) found.push(twap);
    return found;
  }

  get activeCount(): number {
    return this.active.size;
  }

  // -------------------------------------------------------------------------------------------------
  // State hash and snapshot

  hash(hasher: StateHasher): void {
    if (this.lastTwapId === 0 && this.active.size === 0) return;
    hasher.number(-7);
    hasher.number(this.lastTwapId);
    for (const twap of this.active.values()) {
      for (const field of rowFields) hasher.number(twap[field]);
      hasher.number(twap.childOrderIds.length);
      for (const orderId of twap.childOrderIds) hasher.number(orderId);
    }
  }

  snapshot(): TwapsSnapshot | null {
    if (this.lastTwapId === 0 && this.active.size === 0) return null;
    const rows: number[][] = [];
    const children: number[][] = [];
    for (const twap of this.active.values()) {
      rows.push(rowFields.map((field) => twap[field]));
      children.push([...twap.childOrderIds]);
    }
    return { lastTwapId: this.lastTwapId, rows, children };
  }

  restore(state: unknown): void {
    assert(this.lastTwapId === 0 && this.active.size === 0, 'restore needs fresh TWAPs');
    const data = state as Partial<TwapsSnapshot> | null;
    if (data === null || typeof data !== 'object' || !Number.isSafeInteger(data.lastTwapId) || !Array.isArray(data.rows) || !Array.isArray(data.children)) {
      throw new Error('snapshot TWAPs are malformed');
    }
    if (data.rows.length !== data.children.length) throw new Error('snapshot TWAP columns have different lengths');
    this.lastTwapId = data.lastTwapId!;
    data.rows.forEach((row, index) => {
      const children = data.children![index]!;
      if (!Array.isArray(row) || row.length !== rowFields.length || !row.every((value) => Number.isSafeInteger(value))) throw new Error('snapshot TWAP row is malformed');
      if (!Array.isArray(children) || !children.every((value) => Number.isSafeInteger(value))) throw new Error('snapshot TWAP children are malformed');
      const twap = new Twap();
      rowFields.forEach((field, column) => {
        (twap as unknown as Record<string, number>)[field] = row[column]!;
      });
      twap.childOrderIds.push(...children);
      this.active.set(twap.twapId, twap);
      const accountKey = twap.userId * 2 + twap.mode;
      this.perAccount.set(accountKey, (this.perAccount.get(accountKey) ?? 0) + 1);
    });
  }
}
