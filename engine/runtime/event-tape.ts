/**
 * An event tape: the events of a batch of commands recorded as numbers in one growable Float64Array
 * (strings in a side array), read back through reused event objects. Between a command's execution and
 * its batch becoming durable its events must be kept; as objects they would be garbage that outlives a
 * young-generation collection, and the collector then dominated durable throughput (bench:journal). On
 * the tape they cost no allocation at all once the tape has grown.
 *
 * Readers get each event as a reused object valid only during the visit; a reader that keeps one copies
 * it (`copyEvent`). Domain events are the exception: they are rare, already fresh objects and shaped by
 * their domains, so the tape keeps them as they are in a side array (`objects`) and records their index.
 */
import {
  AmmFill,
  BalanceChanged,
  EventKind,
  FundsWithdrawn,
  OrderAccepted,
  OrderAmended,
  OrderCancelled,
  OrderExpired,
  OrderRejected,
  OrderRested,
  ScalePlaced,
  StopTriggered,
  TradeExecuted,
  TwapEnded,
  TwapSliced,
  TwapStarted,
  VenueExpired,
  VenueQuoted,
  type DomainEvent,
  type EngineEvent,
  type EventSink,
  type Liquidity,
} from '../core/events.ts';
import type { GroupKind, Mode, OrderType, SelfTradePrevention, Side, TimeInForce } from '../core/commands.ts';
import type { ResultCode } from '../core/results.ts';
import type { BalanceReason, CancelReason, ExpireReason, OrderStatus, TwapStatus } from '../core/events.ts';

export type EventVisitor = (event: EngineEvent) => void;

export class EventTape implements EventSink {
  numbers = new Float64Array(1 << 16);
  length = 0;
  readonly strings: string[] = [];
  /** Domain events, in the order recorded. */
  readonly objects: DomainEvent[] = [];
  /**
   * Where on the tape each domain event was recorded (`objects[i]` at `objectAt[i]`), so that a reader of
   * domain events alone finds them without reading the rest (a tape made by `of` has none).
   */
  readonly objectAt: number[] = [];

  /** A tape holding `numbers` (all of them), `strings` and `objects`, as another tape recorded them. */
  static of(numbers: Float64Array<ArrayBuffer>, strings: readonly string[], objects: readonly DomainEvent[] = []): EventTape {
    const tape = new EventTape();
    tape.numbers = numbers;
    tape.length = numbers.length;
    tape.strings.push(...strings);
    tape.objects.push(...objects);
    return tape;
  }

  reset(): void {
    this.length = 0;
    this.strings.length = 0;
    this.objects.length = 0;
    this.objectAt.length = 0;
  }

  /** Drops what was recorded from `length` on (the events of a refused command). */
  truncate(length: number): void {
    this.length = length;
    while (this.objectAt.length > 0 && this.objectAt[this.objectAt.length - 1]! >= length) {
      this.objectAt.pop();
      this.objects.pop();
    }
  }

  private room(count: number): Float64Array {
    if (this.length + count > this.numbers.length) {
      const grown = new Float64Array(Math.max(this.numbers.length * 2, this.length + count));
      grown.set(this.numbers.subarray(0, this.length));
      this.numbers = grown;
    }
    return this.numbers;
  }

  onEvent(event: EngineEvent): void {
    let n: Float64Array;
    let at = this.length;
    switch (event.kind) {
      case EventKind.domain:
        n = this.room(2);
        this.objectAt.push(at);
        n[at++] = event.kind;
        n[at++] = this.objects.length;
        this.objects.push(event);
        break;
      case EventKind.orderAccepted:
        n = this.room(18);
        n[at++] = event.kind;
        n[at++] = event.orderId;
        n[at++] = event.userId;
        n[at++] = event.mode;
        n[at++] = event.pairId;
        n[at++] = event.side;
        n[at++] = event.orderType;
        n[at++] = event.timeInForce;
        n[at++] = event.priceTicks;
        n[at++] = event.stopPriceTicks;
        n[at++] = event.quantityLots;
        n[at++] = event.postOnly ? 1 : 0;
        n[at++] = event.selfTradePrevention;
        n[at++] = this.strings.push(event.clientOrderId) - 1;
        n[at++] = event.status;
        n[at++] = event.heldAtoms;
        n[at++] = event.groupKind;
        n[at++] = event.groupId;
        break;
      case EventKind.orderRested:
        n = this.room(7);
        n[at++] = event.kind;
        n[at++] = event.orderId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.side;
        n[at++] = event.priceTicks;
        n[at++] = event.remainingLots;
        break;
      case EventKind.tradeExecuted:
        n = this.room(16);
        n[at++] = event.kind;
        n[at++] = event.tradeId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.priceTicks;
        n[at++] = event.quantityLots;
        n[at++] = event.notionalAtoms;
        n[at++] = event.takerSide;
        n[at++] = event.takerOrderId;
        n[at++] = event.makerOrderId;
        n[at++] = event.takerUserId;
        n[at++] = event.makerUserId;
        n[at++] = event.takerFeeAtoms;
        n[at++] = event.makerFeeAtoms;
        n[at++] = event.takerRemainingLots;
        n[at++] = event.makerRemainingLots;
        break;
      case EventKind.orderCancelled:
      case EventKind.orderExpired:
        n = this.room(13);
        n[at++] = event.kind;
        n[at++] = event.orderId;
        n[at++] = event.userId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.side;
        n[at++] = event.priceTicks;
        n[at++] = event.resting ? 1 : 0;
        n[at++] = event.reason;
        n[at++] = event.remainingLots;
        n[at++] = event.filledLots;
        n[at++] = event.filledNotionalAtoms;
        n[at++] = event.releasedAtoms;
        break;
      case EventKind.stopTriggered:
        n = this.room(5);
        n[at++] = event.kind;
        n[at++] = event.orderId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.lastPriceTicks;
        break;
      case EventKind.orderAmended:
        n = this.room(12);
        n[at++] = event.kind;
        n[at++] = event.orderId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.side;
        n[at++] = event.previousPriceTicks;
        n[at++] = event.previousRemainingLots;
        n[at++] = event.priceTicks;
        n[at++] = event.quantityLots;
        n[at++] = event.remainingLots;
        n[at++] = event.priorityKept ? 1 : 0;
        n[at++] = event.heldDeltaAtoms;
        break;
      case EventKind.orderRejected:
        n = this.room(6);
        n[at++] = event.kind;
        n[at++] = event.orderId;
        n[at++] = event.userId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.result;
        break;
      case EventKind.balanceChanged:
        n = this.room(8);
        n[at++] = event.kind;
        n[at++] = event.userId;
        n[at++] = event.mode;
        n[at++] = event.assetId;
        n[at++] = event.reason;
        n[at++] = event.deltaAtoms;
        n[at++] = event.availableAtoms;
        n[at++] = event.heldAtoms;
        break;
      case EventKind.fundsWithdrawn:
        n = this.room(8);
        n[at++] = event.kind;
        n[at++] = event.userId;
        n[at++] = event.mode;
        n[at++] = event.assetId;
        n[at++] = event.amountAtoms;
        n[at++] = event.chainId;
        n[at++] = this.strings.push(event.address) - 1;
        n[at++] = this.strings.push(event.reference) - 1;
        break;
      case EventKind.ammFill:
        n = this.room(17);
        n[at++] = event.kind;
        n[at++] = event.tradeId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.orderId;
        n[at++] = event.userId;
        n[at++] = event.side;
        n[at++] = event.liquidity;
        n[at++] = event.priceTicks;
        n[at++] = event.quantityLots;
        n[at++] = event.notionalAtoms;
        n[at++] = event.feeAtoms;
        n[at++] = event.remainingLots;
        n[at++] = event.venueId;
        n[at++] = event.chainId;
        break;
      case EventKind.venueQuoted: {
        const bids = event.bidPriceTicks.length;
        const asks = event.askPriceTicks.length;
        n = this.room(8 + 2 * bids + 2 * asks);
        n[at++] = event.kind;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.poolId;
        n[at++] = event.chainId;
        n[at++] = event.version;
        n[at++] = bids;
        for (let index = 0; index < bids; index++) {
          n[at++] = event.bidPriceTicks[index]!;
          n[at++] = event.bidLots[index]!;
        }
        n[at++] = asks;
        for (let index = 0; index < asks; index++) {
          n[at++] = event.askPriceTicks[index]!;
          n[at++] = event.askLots[index]!;
        }
        break;
      }
      case EventKind.venueExpired:
        n = this.room(5);
        n[at++] = event.kind;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.poolId;
        n[at++] = event.chainId;
        break;
      case EventKind.twapStarted:
        n = this.room(14);
        n[at++] = event.kind;
        n[at++] = event.twapId;
        n[at++] = event.userId;
        n[at++] = event.mode;
        n[at++] = event.pairId;
        n[at++] = event.side;
        n[at++] = event.quantityLots;
        n[at++] = event.limitPriceTicks;
        n[at++] = event.durationMs;
        n[at++] = event.intervalMs;
        n[at++] = event.slicesTotal;
        n[at++] = event.startedMs;
        n[at++] = event.nextSliceMs;
        break;
      case EventKind.twapSliced:
        n = this.room(14);
        n[at++] = event.kind;
        n[at++] = event.twapId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.userId;
        n[at++] = event.sliceIndex;
        n[at++] = event.orderId;
        n[at++] = event.result;
        n[at++] = event.sliceLots;
        n[at++] = event.sliceFilledLots;
        n[at++] = event.filledLots;
        n[at++] = event.filledNotionalAtoms;
        n[at++] = event.remainingLots;
        n[at++] = event.nextSliceMs;
        break;
      case EventKind.twapEnded:
        n = this.room(9);
        n[at++] = event.kind;
        n[at++] = event.twapId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.userId;
        n[at++] = event.status;
        n[at++] = event.slicesDone;
        n[at++] = event.filledLots;
        n[at++] = event.filledNotionalAtoms;
        break;
      case EventKind.scalePlaced:
        n = this.room(8);
        n[at++] = event.kind;
        n[at++] = event.scaleId;
        n[at++] = event.pairId;
        n[at++] = event.mode;
        n[at++] = event.userId;
        n[at++] = event.side;
        n[at++] = event.count;
        n[at++] = event.quantityLots;
        break;
    }
    this.length = at;
  }
}

/** Reads tape ranges back as reused event objects. */
export class TapeReader {
  private readonly accepted = new OrderAccepted();
  private readonly rested = new OrderRested();
  private readonly trade = new TradeExecuted();
  private readonly cancelled = new OrderCancelled();
  private readonly expired = new OrderExpired();
  private readonly triggered = new StopTriggered();
  private readonly amended = new OrderAmended();
  private readonly rejected = new OrderRejected();
  private readonly balance = new BalanceChanged();
  private readonly withdrawn = new FundsWithdrawn();
  private readonly ammFill = new AmmFill();
  private readonly venueQuoted = new VenueQuoted();
  private readonly venueExpired = new VenueExpired();
  private readonly twapStarted = new TwapStarted();
  private readonly twapSliced = new TwapSliced();
  private readonly twapEnded = new TwapEnded();
  private readonly scalePlaced = new ScalePlaced();

  /** Visits the events recorded in `[start, end)` of the tape, in order. */
  read(tape: EventTape, start: number, end: number, visit: EventVisitor): void {
    const n = tape.numbers;
    let at = start;
    while (at < end) {
      const kind = n[at++]!;
      switch (kind) {
        case EventKind.domain:
          visit(tape.objects[n[at++]!]!);
          break;
        case EventKind.orderAccepted: {
          const event = this.accepted;
          event.orderId = n[at++]!;
          event.userId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.pairId = n[at++]!;
          event.side = n[at++] as Side;
          event.orderType = n[at++] as OrderType;
          event.timeInForce = n[at++] as TimeInForce;
          event.priceTicks = n[at++]!;
          event.stopPriceTicks = n[at++]!;
          event.quantityLots = n[at++]!;
          event.postOnly = n[at++] === 1;
          event.selfTradePrevention = n[at++] as SelfTradePrevention;
          event.clientOrderId = tape.strings[n[at++]!]!;
          event.status = n[at++] as OrderStatus;
          event.heldAtoms = n[at++]!;
          event.groupKind = n[at++] as GroupKind;
          event.groupId = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.orderRested: {
          const event = this.rested;
          event.orderId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.side = n[at++] as Side;
          event.priceTicks = n[at++]!;
          event.remainingLots = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.tradeExecuted: {
          const event = this.trade;
          event.tradeId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.priceTicks = n[at++]!;
          event.quantityLots = n[at++]!;
          event.notionalAtoms = n[at++]!;
          event.takerSide = n[at++] as Side;
          event.takerOrderId = n[at++]!;
          event.makerOrderId = n[at++]!;
          event.takerUserId = n[at++]!;
          event.makerUserId = n[at++]!;
          event.takerFeeAtoms = n[at++]!;
          event.makerFeeAtoms = n[at++]!;
          event.takerRemainingLots = n[at++]!;
          event.makerRemainingLots = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.orderCancelled:
        case EventKind.orderExpired: {
          const event = kind === EventKind.orderCancelled ? this.cancelled : this.expired;
          event.orderId = n[at++]!;
          event.userId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.side = n[at++] as Side;
          event.priceTicks = n[at++]!;
          event.resting = n[at++] === 1;
          event.reason = n[at++] as CancelReason & ExpireReason;
          event.remainingLots = n[at++]!;
          event.filledLots = n[at++]!;
          event.filledNotionalAtoms = n[at++]!;
          event.releasedAtoms = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.stopTriggered: {
          const event = this.triggered;
          event.orderId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.lastPriceTicks = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.orderAmended: {
          const event = this.amended;
          event.orderId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.side = n[at++] as Side;
          event.previousPriceTicks = n[at++]!;
          event.previousRemainingLots = n[at++]!;
          event.priceTicks = n[at++]!;
          event.quantityLots = n[at++]!;
          event.remainingLots = n[at++]!;
          event.priorityKept = n[at++] === 1;
          event.heldDeltaAtoms = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.orderRejected: {
          const event = this.rejected;
          event.orderId = n[at++]!;
          event.userId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.result = n[at++] as ResultCode;
          visit(event);
          break;
        }
        case EventKind.balanceChanged: {
          const event = this.balance;
          event.userId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.assetId = n[at++]!;
          event.reason = n[at++] as BalanceReason;
          event.deltaAtoms = n[at++]!;
          event.availableAtoms = n[at++]!;
          event.heldAtoms = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.fundsWithdrawn: {
          const event = this.withdrawn;
          event.userId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.assetId = n[at++]!;
          event.amountAtoms = n[at++]!;
          event.chainId = n[at++]!;
          event.address = tape.strings[n[at++]!]!;
          event.reference = tape.strings[n[at++]!]!;
          visit(event);
          break;
        }
        case EventKind.ammFill: {
          const event = this.ammFill;
          event.tradeId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.orderId = n[at++]!;
          event.userId = n[at++]!;
          event.side = n[at++] as Side;
          event.liquidity = n[at++] as Liquidity;
          event.priceTicks = n[at++]!;
          event.quantityLots = n[at++]!;
          event.notionalAtoms = n[at++]!;
          event.feeAtoms = n[at++]!;
          event.remainingLots = n[at++]!;
          event.venueId = n[at++]!;
          event.chainId = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.venueQuoted: {
          const event = this.venueQuoted;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.poolId = n[at++]!;
          event.chainId = n[at++]!;
          event.version = n[at++]!;
          event.bidPriceTicks.length = 0;
          event.bidLots.length = 0;
          event.askPriceTicks.length = 0;
          event.askLots.length = 0;
          const bids = n[at++]!;
          for (let index = 0; index < bids; index++) {
            event.bidPriceTicks.push(n[at++]!);
            event.bidLots.push(n[at++]!);
          }
          const asks = n[at++]!;
          for (let index = 0; index < asks; index++) {
            event.askPriceTicks.push(n[at++]!);
            event.askLots.push(n[at++]!);
          }
          visit(event);
          break;
        }
        case EventKind.venueExpired: {
          const event = this.venueExpired;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.poolId = n[at++]!;
          event.chainId = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.twapStarted: {
          const event = this.twapStarted;
          event.twapId = n[at++]!;
          event.userId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.pairId = n[at++]!;
          event.side = n[at++] as Side;
          event.quantityLots = n[at++]!;
          event.limitPriceTicks = n[at++]!;
          event.durationMs = n[at++]!;
          event.intervalMs = n[at++]!;
          event.slicesTotal = n[at++]!;
          event.startedMs = n[at++]!;
          event.nextSliceMs = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.twapSliced: {
          const event = this.twapSliced;
          event.twapId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.userId = n[at++]!;
          event.sliceIndex = n[at++]!;
          event.orderId = n[at++]!;
          event.result = n[at++] as ResultCode;
          event.sliceLots = n[at++]!;
          event.sliceFilledLots = n[at++]!;
          event.filledLots = n[at++]!;
          event.filledNotionalAtoms = n[at++]!;
          event.remainingLots = n[at++]!;
          event.nextSliceMs = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.twapEnded: {
          const event = this.twapEnded;
          event.twapId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.userId = n[at++]!;
          event.status = n[at++] as TwapStatus;
          event.slicesDone = n[at++]!;
          event.filledLots = n[at++]!;
          event.filledNotionalAtoms = n[at++]!;
          visit(event);
          break;
        }
        case EventKind.scalePlaced: {
          const event = this.scalePlaced;
          event.scaleId = n[at++]!;
          event.pairId = n[at++]!;
          event.mode = n[at++] as Mode;
          event.userId = n[at++]!;
          event.side = n[at++] as Side;
          event.count = n[at++]!;
          event.quantityLots = n[at++]!;
          visit(event);
          break;
        }
        default:
          throw new Error(`event tape: unknown kind ${kind} at ${at - 1}`);
      }
    }
  }
}
