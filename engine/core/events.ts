/**
 * Events: what happened, in the past tense. The engine emits them through an `EventSink` in the order
 * they happen within a command. For speed the engine reuses one object per event kind (no allocation per
 * event on the hot path): a sink that keeps an event must copy it (`copyEvent`) before returning.
 *
 * Balances move implicitly with order events (a hold at OrderAccepted, settlement at TradeExecuted, a
 * release at OrderCancelled/OrderExpired); BalanceChanged reports deposits and withdrawals. A withdrawal
 * to an external address is followed by FundsWithdrawn, which says where the funds went.
 */
import type { GroupKind, Mode, OrderType, SelfTradePrevention, Side, TimeInForce } from './commands.ts';
import type { ResultCode } from './results.ts';

export const EventKind = {
  orderAccepted: 1,
  orderRested: 2,
  tradeExecuted: 3,
  orderCancelled: 4,
  orderExpired: 5,
  stopTriggered: 6,
  orderAmended: 7,
  orderRejected: 8,
  balanceChanged: 9,
  fundsWithdrawn: 10,
  ammFill: 11,
  venueQuoted: 12,
  venueExpired: 13,
  twapStarted: 14,
  twapSliced: 15,
  twapEnded: 16,
  scalePlaced: 17,
  domain: 18,
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

export const OrderStatus = {
  pending: 0,
  open: 1,
  partiallyFilled: 2,
  filled: 3,
  cancelled: 4,
  expired: 5,
  rejected: 6,
} as const;
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];
export const orderStatusNames = ['pending', 'open', 'partially_filled', 'filled', 'cancelled', 'expired', 'rejected'] as const;

export const CancelReason = { user: 0, cancelAll: 1, selfTrade: 2 } as const;
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];
export const cancelReasonNames = ['user', 'cancel_all', 'self_trade'] as const;

export const ExpireReason = { immediateOrCancel: 0, fillOrKill: 1, market: 2 } as const;
export type ExpireReason = (typeof ExpireReason)[keyof typeof ExpireReason];
export const expireReasonNames = ['ioc', 'fok', 'market'] as const;

export const BalanceReason = { deposit: 0, withdraw: 1 } as const;

/**
 * A TWAP's state: active until its last slice ran (completed when nothing remains, expired when quantity
 * was left as its window ended) or it was cancelled.
 */
export const TwapStatus = { active: 0, completed: 1, expired: 2, cancelled: 3 } as const;
export type TwapStatus = (typeof TwapStatus)[keyof typeof TwapStatus];
export const twapStatusNames = ['active', 'completed', 'expired', 'cancelled'] as const;
export type BalanceReason = (typeof BalanceReason)[keyof typeof BalanceReason];

export class OrderAccepted {
  readonly kind = EventKind.orderAccepted;
  orderId = 0;
  userId = 0;
  mode: Mode = 0;
  pairId = 0;
  side: Side = 0;
  orderType: OrderType = 0;
  timeInForce: TimeInForce = 0;
  priceTicks = 0;
  stopPriceTicks = 0;
  quantityLots = 0;
  postOnly = false;
  selfTradePrevention: SelfTradePrevention = 0;
  clientOrderId = '';
  /** `pending` for an untriggered stop, `open` otherwise. */
  status: OrderStatus = 0;
  /** Atoms moved from available to held (quote for buys, base for sells). */
  heldAtoms = 0;
  /** The order's parent (a TWAP slice, a scale rung) and its id; `none` and 0 for a client's own order. */
  groupKind: GroupKind = 0;
  groupId = 0;
}

export class OrderRested {
  readonly kind = EventKind.orderRested;
  orderId = 0;
  pairId = 0;
  mode: Mode = 0;
  side: Side = 0;
  priceTicks = 0;
  remainingLots = 0;
}

export class TradeExecuted {
  readonly kind = EventKind.tradeExecuted;
  tradeId = 0;
  pairId = 0;
  mode: Mode = 0;
  priceTicks = 0;
  quantityLots = 0;
  notionalAtoms = 0;
  takerSide: Side = 0;
  takerOrderId = 0;
  makerOrderId = 0;
  takerUserId = 0;
  makerUserId = 0;
  takerFeeAtoms = 0;
  makerFeeAtoms = 0;
  takerRemainingLots = 0;
  makerRemainingLots = 0;
}

/**
 * The two terminal events that end an order before it is filled share their fields. `resting` says whether
 * the order was on the book (its `remainingLots` leave the level at `priceTicks` on `side`), so a market
 * data feed can keep exact level totals from events alone.
 */
export class OrderCancelled {
  readonly kind = EventKind.orderCancelled;
  orderId = 0;
  userId = 0;
  pairId = 0;
  mode: Mode = 0;
  side: Side = 0;
  priceTicks = 0;
  resting = false;
  reason: CancelReason = 0;
  remainingLots = 0;
  filledLots = 0;
  filledNotionalAtoms = 0;
  /** Atoms moved back from held to available. */
  releasedAtoms = 0;
}

export class OrderExpired {
  readonly kind = EventKind.orderExpired;
  orderId = 0;
  userId = 0;
  pairId = 0;
  mode: Mode = 0;
  side: Side = 0;
  priceTicks = 0;
  resting = false;
  reason: ExpireReason = 0;
  remainingLots = 0;
  filledLots = 0;
  filledNotionalAtoms = 0;
  releasedAtoms = 0;
}

export class StopTriggered {
  readonly kind = EventKind.stopTriggered;
  orderId = 0;
  pairId = 0;
  mode: Mode = 0;
  lastPriceTicks = 0;
}

/**
 * An amend of a resting order. With `priorityKept` the order stays at its level with fewer lots; otherwise
 * it left the book (`previousRemainingLots` at `previousPriceTicks`) and re-entered as a taker, so trades
 * and an OrderRested may follow.
 */
export class OrderAmended {
  readonly kind = EventKind.orderAmended;
  orderId = 0;
  pairId = 0;
  mode: Mode = 0;
  side: Side = 0;
  previousPriceTicks = 0;
  previousRemainingLots = 0;
  priceTicks = 0;
  quantityLots = 0;
  remainingLots = 0;
  priorityKept = false;
  /** Change of the order's hold: positive holds more, negative releases. */
  heldDeltaAtoms = 0;
}

export class OrderRejected {
  readonly kind = EventKind.orderRejected;
  orderId = 0;
  userId = 0;
  pairId = 0;
  mode: Mode = 0;
  result: ResultCode = 0;
}

export class BalanceChanged {
  readonly kind = EventKind.balanceChanged;
  userId = 0;
  mode: Mode = 0;
  assetId = 0;
  reason: BalanceReason = 0;
  deltaAtoms = 0;
  availableAtoms = 0;
  heldAtoms = 0;
}

/**
 * Funds left the platform for an external address (WithdrawTo). It follows that command's BalanceChanged
 * and carries what the ledger does not keep: the destination and the client's reference, so that the
 * shell can record the withdrawal and, after a crash, find it again among the replayed events.
 */
export class FundsWithdrawn {
  readonly kind = EventKind.fundsWithdrawn;
  userId = 0;
  /**
   * Always live: only live funds can be withdrawn to an address. It is carried so that every event has a
   * mode and consumers can filter on it without asking which kind they hold.
   */
  mode: Mode = 0;
  assetId = 0;
  amountAtoms = 0;
  chainId = 0;
  address = '';
  reference = '';
}

export const Liquidity = { taker: 0, maker: 1 } as const;
export type Liquidity = (typeof Liquidity)[keyof typeof Liquidity];
export const liquidityNames = ['taker', 'maker'] as const;

/** Venue id of the live order book, as the virtual liquidity of paper orders (AMM pools have ids from 1). */
export const liveBookVenueId = 0;

/**
 * One of our orders filled against outside liquidity rather than another of our orders: an AMM pool's
 * level (live orders consume it; the pool's worker is told, so the pool moves), or, for a paper order,
 * the live hybrid book read-only (venue `liveBookVenueId` for the live order book's levels, a pool id for
 * an AMM level; nothing live is consumed). A resting paper order is filled as the maker when a live trade
 * prints through its price. Settles through the mode's venue account; the settlement's `sim-` hash is
 * derived from the trade id and mode by `ammFillTxHash` (sim-hash.ts) where it is shown, so the matching
 * path formats no string.
 */
export class AmmFill {
  readonly kind = EventKind.ammFill;
  tradeId = 0;
  pairId = 0;
  mode: Mode = 0;
  orderId = 0;
  userId = 0;
  /** Our order's side. */
  side: Side = 0;
  liquidity: Liquidity = 0;
  priceTicks = 0;
  quantityLots = 0;
  notionalAtoms = 0;
  /** Our order's fee for this fill (taker or maker rate), in quote atoms. */
  feeAtoms = 0;
  /** What our order still wants after this fill. */
  remainingLots = 0;
  venueId = 0;
  /** The venue's chain; 0 for the live order book. */
  chainId = 0;
}

/**
 * A venue's levels for a pair were replaced by a quote: the levels as the engine keeps them, after any
 * that would have crossed the resting orders were dropped. Readers copy the arrays if they keep them.
 */
export class VenueQuoted {
  readonly kind = EventKind.venueQuoted;
  pairId = 0;
  /** Always live (virtual liquidity is the live hybrid book's); carried for filtering like every event. */
  mode: Mode = 0;
  poolId = 0;
  chainId = 0;
  version = 0;
  bidPriceTicks: number[] = [];
  bidLots: number[] = [];
  askPriceTicks: number[] = [];
  askLots: number[] = [];
}

/** A venue went quiet for longer than the quote lifetime (journaled time): its levels were removed. */
export class VenueExpired {
  readonly kind = EventKind.venueExpired;
  pairId = 0;
  mode: Mode = 0;
  poolId = 0;
  chainId = 0;
}

/**
 * A TWAP was accepted: its terms and schedule. Its first slice's order was placed just before, in the same
 * command (a refused first slice refuses the TWAP), and the TwapSliced that reports it follows.
 */
export class TwapStarted {
  readonly kind = EventKind.twapStarted;
  twapId = 0;
  userId = 0;
  mode: Mode = 0;
  pairId = 0;
  side: Side = 0;
  quantityLots = 0;
  /** 0 for market slices. */
  limitPriceTicks = 0;
  durationMs = 0;
  intervalMs = 0;
  slicesTotal = 0;
  /** When the command ran (journaled time): the first slice's time, and the start of the schedule. */
  startedMs = 0;
  /** When the second slice is due (`startedMs + intervalMs`). */
  nextSliceMs = 0;
}

/**
 * One slice of a TWAP ran: the child order it placed (`orderId`, whose own events precede this one) and
 * how it ended. A slice the engine refused (`result` not ok, nothing filled) still counts as run.
 */
export class TwapSliced {
  readonly kind = EventKind.twapSliced;
  twapId = 0;
  pairId = 0;
  mode: Mode = 0;
  userId = 0;
  /** 0 for the first slice. */
  sliceIndex = 0;
  orderId = 0;
  result: ResultCode = 0;
  /** What the slice asked for and what it filled. */
  sliceLots = 0;
  sliceFilledLots = 0;
  /** The TWAP's totals after the slice. */
  filledLots = 0;
  filledNotionalAtoms = 0;
  remainingLots = 0;
  /** When the next slice is due; 0 when this was the last (a TwapEnded follows). */
  nextSliceMs = 0;
}

/** A TWAP ended: completed, expired (its window ended with quantity left) or cancelled. */
export class TwapEnded {
  readonly kind = EventKind.twapEnded;
  twapId = 0;
  pairId = 0;
  mode: Mode = 0;
  userId = 0;
  status: TwapStatus = 0;
  slicesDone = 0;
  filledLots = 0;
  filledNotionalAtoms = 0;
}

/** A scale order's ladder was accepted; its `count` orders follow in the same command, each with the scale id as group. */
export class ScalePlaced {
  readonly kind = EventKind.scalePlaced;
  scaleId = 0;
  pairId = 0;
  mode: Mode = 0;
  userId = 0;
  side: Side = 0;
  count = 0;
  /** The orders' quantities added up. */
  quantityLots = 0;
}

/**
 * An event of a domain module: one envelope for all of them. Domains emit far fewer events than the order
 * path, so a domain event is a fresh object that consumers may keep as it is (no reuse, no copy needed);
 * `type` is unique across domains like a domain command's, and `body` is plain data (msgpack- and
 * JSON-able).
 */
export interface DomainEvent<Body = unknown> {
  readonly kind: typeof EventKind.domain;
  readonly type: number;
  readonly body: Body;
}

export type EngineEvent =
  | DomainEvent
  | OrderAccepted
  | OrderRested
  | TradeExecuted
  | OrderCancelled
  | OrderExpired
  | StopTriggered
  | OrderAmended
  | OrderRejected
  | BalanceChanged
  | FundsWithdrawn
  | AmmFill
  | VenueQuoted
  | VenueExpired
  | TwapStarted
  | TwapSliced
  | TwapEnded
  | ScalePlaced;

export interface EventSink {
  /** Called synchronously; `event` is reused after the call returns. */
  onEvent(event: EngineEvent): void;
}

/** A plain-object copy of a (reused) event, safe to keep. */
export function copyEvent(event: EngineEvent): EngineEvent {
  // Domain events are never reused.
  if (event.kind === EventKind.domain) return event;
  if (event.kind === EventKind.venueQuoted) {
    return {
      ...event,
      bidPriceTicks: [...event.bidPriceTicks],
      bidLots: [...event.bidLots],
      askPriceTicks: [...event.askPriceTicks],
      askLots: [...event.askLots],
    };
  }
  return { ...event };
}

/** A sink that drops everything (benchmarks measure the engine, not a consumer). */
export const nullSink: EventSink = { onEvent() {} };

/** A sink that keeps copies of every event (tests, small tools). */
export class CollectingSink implements EventSink {
  readonly events: EngineEvent[] = [];
  onEvent(event: EngineEvent): void {
    this.events.push(copyEvent(event));
  }
  clear(): void {
    this.events.length = 0;
  }
}
