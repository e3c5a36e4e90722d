/**
 * Commands: what the engine is asked to do. Every command carries `seq` and `ts` stamped by the
 * sequencer (the engine never reads a clock) and a stable numeric `kind` that the journal stores.
 * Order ids are minted outside the engine and carried in the command, so replay needs nothing else.
 *
 * Enumerations are small integers here; their names for clients live in the `*Names` tables.
 */

export const CommandKind = {
  placeOrder: 1,
  cancelOrder: 2,
  cancelAll: 3,
  amendOrder: 4,
  deposit: 5,
  withdraw: 6,
  placeBatch: 7,
  cancelBatch: 8,
  withdrawTo: 9,
  quoteVenue: 10,
  openPaperAccount: 11,
  expireVenues: 12,
  startTwap: 13,
  cancelTwap: 14,
  runTimers: 15,
  placeScale: 16,
  domain: 17,
} as const;
export type CommandKind = (typeof CommandKind)[keyof typeof CommandKind];

export const Mode = { live: 0, paper: 1 } as const;
export type Mode = (typeof Mode)[keyof typeof Mode];
export const modeNames = ['live', 'paper'] as const;

export const Side = { buy: 0, sell: 1 } as const;
export type Side = (typeof Side)[keyof typeof Side];
export const sideNames = ['buy', 'sell'] as const;

export const OrderType = { limit: 0, market: 1, stopLimit: 2, stopMarket: 3 } as const;
export type OrderType = (typeof OrderType)[keyof typeof OrderType];
export const orderTypeNames = ['limit', 'market', 'stop_limit', 'stop_market'] as const;

export const TimeInForce = { gtc: 0, ioc: 1, fok: 2 } as const;
export type TimeInForce = (typeof TimeInForce)[keyof typeof TimeInForce];
export const timeInForceNames = ['GTC', 'IOC', 'FOK'] as const;

/** The time in force an order runs with: market kinds always run immediate-or-cancel, whatever was asked. */
export function effectiveTimeInForce(orderType: OrderType, requested: TimeInForce): TimeInForce {
  return orderType === OrderType.market || orderType === OrderType.stopMarket ? TimeInForce.ioc : requested;
}

/** Self-trade prevention: what happens when a taker meets a resting order of its own account. */
export const SelfTradePrevention = { cancelTaker: 0, cancelMaker: 1, cancelBoth: 2, none: 3 } as const;
export type SelfTradePrevention = (typeof SelfTradePrevention)[keyof typeof SelfTradePrevention];
export const selfTradePreventionNames = ['cancel_taker', 'cancel_maker', 'cancel_both', 'none'] as const;

/**
 * The parent an order was placed for: none (a client's own order), a TWAP (one of its slices) or a scale
 * order (one rung of its ladder). Carried on OrderAccepted so that records can name the parent.
 */
export const GroupKind = { none: 0, twap: 1, scale: 2 } as const;
export type GroupKind = (typeof GroupKind)[keyof typeof GroupKind];

/** The fields of one order placement; also the element of a batch. */
export interface OrderRequest {
  /** Minted by the sequencer; strictly increasing across the engine's life. */
  orderId: number;
  userId: number;
  mode: Mode;
  pairId: number;
  side: Side;
  orderType: OrderType;
  timeInForce: TimeInForce;
  /** Limit price in ticks (limit, stop_limit); 0 where not used. */
  priceTicks: number;
  /** Trigger price in ticks (stop orders); 0 where not used. */
  stopPriceTicks: number;
  quantityLots: number;
  postOnly: boolean;
  selfTradePrevention: SelfTradePrevention;
  /** Empty when the client gave none. */
  clientOrderId: string;
}

/**
 * An order request with one fixed layout. Requests reach placement from several makers (journal frames,
 * batch items, scale rungs, TWAP slices, domains' orders), each an object of its own shape; placement
 * copies the request into one of these first, so that the long placement path reads a single hidden class
 * and stays optimised (reading five shapes there made V8 give up optimising it).
 */
export class PlacementRequest implements OrderRequest {
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

  /** Copies `from` (numbers as given: placement validates them). */
  copy(from: OrderRequest): this {
    this.orderId = from.orderId;
    this.userId = from.userId;
    this.mode = from.mode;
    this.pairId = from.pairId;
    this.side = from.side;
    this.orderType = from.orderType;
    this.timeInForce = from.timeInForce;
    this.priceTicks = from.priceTicks;
    this.stopPriceTicks = from.stopPriceTicks;
    this.quantityLots = from.quantityLots;
    this.postOnly = from.postOnly;
    this.selfTradePrevention = from.selfTradePrevention;
    this.clientOrderId = from.clientOrderId;
    return this;
  }
}

export interface PlaceOrder extends OrderRequest {
  kind: typeof CommandKind.placeOrder;
  seq: number;
  ts: number;
}

export interface CancelOrder {
  kind: typeof CommandKind.cancelOrder;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  /** 0 to cancel by client order id instead. */
  orderId: number;
  clientOrderId: string;
}

export interface CancelAll {
  kind: typeof CommandKind.cancelAll;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  /** 0 for every pair. */
  pairId: number;
}

export interface AmendOrder {
  kind: typeof CommandKind.amendOrder;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  orderId: number;
  /** New limit price in ticks; 0 keeps the price. */
  priceTicks: number;
  /** New total quantity in lots (filled part included); 0 keeps the quantity. */
  quantityLots: number;
}

export interface Deposit {
  kind: typeof CommandKind.deposit;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  assetId: number;
  amountAtoms: number;
}

export interface Withdraw {
  kind: typeof CommandKind.withdraw;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  assetId: number;
  amountAtoms: number;
}

/**
 * A withdrawal to an external address. It moves money exactly as a live Withdraw does; the destination
 * and the client's reference ride along so that the journal alone tells where the funds went and which
 * request asked for them, and the shell can answer a retried request after a crash without paying twice.
 * Only live funds leave the platform, so there is no mode field.
 */
export interface WithdrawTo {
  kind: typeof CommandKind.withdrawTo;
  seq: number;
  ts: number;
  userId: number;
  assetId: number;
  amountAtoms: number;
  /** Destination chain id (the shell's table: 1 ethereum, 2 base, 3 arbitrum, 4 solana); 1..255. */
  chainId: number;
  /** Destination address as the client gave it (already validated by the shell); 1..withdrawAddressCharsMax chars. */
  address: string;
  /** The client's idempotency key, or '' (0..withdrawReferenceCharsMax chars). */
  reference: string;
}

export interface PlaceBatch {
  kind: typeof CommandKind.placeBatch;
  seq: number;
  ts: number;
  orders: OrderRequest[];
}

export interface CancelBatch {
  kind: typeof CommandKind.cancelBatch;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  orderIds: number[];
}

/**
 * An outside venue's liquidity for one pair: the levels an AMM pool's worker computed from the pool's
 * state, replacing that pool's previous levels as a whole. Bids best first (descending), asks best first
 * (ascending), as parallel arrays of ticks and lots.
 */
export interface QuoteVenue {
  kind: typeof CommandKind.quoteVenue;
  seq: number;
  ts: number;
  pairId: number;
  /** The pool's stable id (1..venuePoolIdMax) and its chain (1..withdrawChainIdMax). */
  poolId: number;
  chainId: number;
  /** Increases with every quote of the pool; a quote not newer than the pool's last is refused. */
  version: number;
  bidPriceTicks: number[];
  bidLots: number[];
  askPriceTicks: number[];
  askLots: number[];
}

/**
 * Opens a user's paper account with its simulated starting balances (parallel arrays). Refused when the
 * account is already open, so that racing first paper orders fund it once.
 */
export interface OpenPaperAccount {
  kind: typeof CommandKind.openPaperAccount;
  seq: number;
  ts: number;
  userId: number;
  assetIds: number[];
  amountsAtoms: number[];
}

/**
 * Removes the levels of every venue whose last quote is older than the quote lifetime at this command's
 * time. The runtime sends it when its clock says a venue went quiet; takers skip such levels anyway.
 */
export interface ExpireVenues {
  kind: typeof CommandKind.expireVenues;
  seq: number;
  ts: number;
}

/**
 * Starts a TWAP: `quantityLots` bought or sold in `slicesTotal = ceil(durationMs / intervalMs)` slices, the
 * first at once (in this command), then one every `intervalMs` of journaled time from this command's ts.
 * Each slice is an immediate-or-cancel order for remaining / slices left (the last takes all that is
 * left): a limit at `limitPriceTicks`, or a market order when it is 0. The runtime's RunTimers commands
 * run the later slices, so replay needs no clock.
 */
export interface StartTwap {
  kind: typeof CommandKind.startTwap;
  seq: number;
  ts: number;
  /** Minted by the shell like order ids; strictly increasing across the engine's life. */
  twapId: number;
  userId: number;
  mode: Mode;
  pairId: number;
  side: Side;
  quantityLots: number;
  /** Limit price of every slice in ticks; 0 for market slices. */
  limitPriceTicks: number;
  durationMs: number;
  intervalMs: number;
}

/** Stops a TWAP of (user, mode): no further slices (a slice is immediate-or-cancel, so none is left open). */
export interface CancelTwap {
  kind: typeof CommandKind.cancelTwap;
  seq: number;
  ts: number;
  userId: number;
  mode: Mode;
  twapId: number;
}

/**
 * Runs every timer that is due at this command's time: one slice of each TWAP whose next slice time has
 * come, in (next slice time, TWAP id) order. Refused when nothing is due, so an idle runtime journals
 * nothing; a TWAP still overdue afterwards is due again at once, and the runtime sends another.
 */
export interface RunTimers {
  kind: typeof CommandKind.runTimers;
  seq: number;
  ts: number;
}

/**
 * Places a ladder of resting limit orders atomically under one scale id: every order is checked first (and
 * the holds of all of them together against the available balance), and the whole command is refused if
 * any would fail or take liquidity. All orders share user, mode, pair and side; all are GTC limits.
 */
export interface PlaceScale {
  kind: typeof CommandKind.placeScale;
  seq: number;
  ts: number;
  /** Minted by the shell; strictly increasing across the engine's life. */
  scaleId: number;
  orders: OrderRequest[];
}

/**
 * A command of a domain module (engine/domains): one envelope kind for all of them, so that the core's
 * unions, the journal's frame layout and the dispatch never change when a domain is added. `type` names the
 * domain's own command (unique across domains: domain id × 1000 + its number, see domain.ts); `body` is
 * the domain's typed payload, which only the domain's own codec reads and writes.
 */
export interface DomainCommand<Body = unknown> {
  kind: typeof CommandKind.domain;
  seq: number;
  ts: number;
  type: number;
  body: Body;
}

export type Command =
  | DomainCommand
  | PlaceOrder
  | CancelOrder
  | CancelAll
  | AmendOrder
  | Deposit
  | Withdraw
  | PlaceBatch
  | CancelBatch
  | WithdrawTo
  | QuoteVenue
  | OpenPaperAccount
  | ExpireVenues
  | StartTwap
  | CancelTwap
  | RunTimers
  | PlaceScale;
