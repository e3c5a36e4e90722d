/**
 * Order placement: every check first (shape, grid, account, capacity, funds), then the hold, the store
 * slot, OrderAccepted, and the order's run as a taker or its entry as a pending stop. Batches and the
 * orders domains place on behalf of a parent (placeGroupOrder) take the same path.
 */
import { assert } from '../assert.ts';
import { noPrice } from '../book/book.ts';
import { GroupKind, OrderType, TimeInForce, effectiveTimeInForce, type OrderRequest, type PlaceBatch, type PlacementRequest } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { OrderStatus } from '../events.ts';
import { noAccount } from '../ledger.ts';
import { accountTakerFeeBps, buyBand, buyHold } from '../matching/fees.ts';
import { crosses, hybridBest } from '../matching/hybrid.ts';
import { execute } from '../matching/taker.ts';
import { linkToAccount } from './accounts.ts';
import { Result, type ResultCode } from '../results.ts';
import { insertStop, triggerStops } from '../stops.ts';
import { validTicks, validUser } from '../validate.ts';
import { isDomainUserId } from '../limits.ts';

/**
 * The taker fee rate a buy's hold covers. A post-only order never takes: it is refused when it would
 * cross, at placement and at amendment, and otherwise only ever fills as a maker. So it holds price ×
 * quantity and the maker fee cap, not a taker fee it can never owe (journal format 6 on; older journals
 * replay with the taker fee held).
 */
export function holdTakerFeeBps(engine: EngineState, postOnly: boolean, takerFeeBps: number): number {
  return postOnly && engine.postOnlyHoldsMakerFeeOnly ? 0 : takerFeeBps;
}

/** Places one order (alone or as a batch item). Refusals emit OrderRejected and change nothing else. */
export function placeOrder(engine: EngineState, request: OrderRequest): ResultCode {
  // Placement reads its request before anything it calls could place another order (matching never
  // places), so one reused record serves every placement.
  const result = tryPlaceOrder(engine, engine.placement.copy(request));
  if (result !== Result.ok) {
    const event = engine.rejected;
    event.orderId = request.orderId;
    event.userId = request.userId;
    event.pairId = request.pairId;
    event.mode = request.mode;
    event.result = result;
    engine.sink.onEvent(event);
  }
  return result;
}

function tryPlaceOrder(engine: EngineState, request: PlacementRequest): ResultCode {
  // Shape.
  if (!validUser(request.userId) && !(engine.placingForDomain && isDomainUserId(request.userId))) return Result.invalidUser;
  if (request.mode !== 0 && request.mode !== 1) return Result.invalidMode;
  const pair = Number.isInteger(request.pairId) ? engine.pairsById[request.pairId] : undefined;
  if (pair === undefined) return Result.unknownPair;
  const side = request.side;
  if (side !== 0 && side !== 1) return Result.invalidSide;
  const orderType = request.orderType;
  if (!(orderType >= 0 && orderType <= 3 && Number.isInteger(orderType))) return Result.invalidOrderType;
  const isMarketKind = orderType === OrderType.market || orderType === OrderType.stopMarket;
  const isStop = orderType === OrderType.stopLimit || orderType === OrderType.stopMarket;
  if (!(request.timeInForce >= 0 && request.timeInForce <= 2 && Number.isInteger(request.timeInForce))) {
    return Result.invalidTimeInForce;
  }
  const stp = request.selfTradePrevention;
  if (!(stp >= 0 && stp <= 3 && Number.isInteger(stp))) return Result.invalidSelfTradePrevention;
  if (!Number.isSafeInteger(request.orderId) || request.orderId <= engine.lastOrderId) return Result.orderIdNotIncreasing;

  // Numbers, on the pair's grid and within its maxima.
  const quantityLots = request.quantityLots;
  if (!Number.isSafeInteger(quantityLots) || quantityLots < 1 || quantityLots > pair.quantityLotsMax) {
    return Result.quantityOutOfRange;
  }
  let priceTicks = 0;
  if (!isMarketKind) {
    priceTicks = request.priceTicks;
    if (priceTicks === 0) return Result.priceRequired;
    if (!validTicks(priceTicks, pair)) return Result.priceOutOfRange;
  }
  let stopPriceTicks = 0;
  if (isStop) {
    stopPriceTicks = request.stopPriceTicks;
    if (stopPriceTicks === 0) return Result.stopPriceRequired;
    if (!validTicks(stopPriceTicks, pair)) return Result.priceOutOfRange;
  }
  // Post-only is only meaningful for a resting limit.
  const timeInForce = effectiveTimeInForce(orderType, request.timeInForce);
  if (request.postOnly && (orderType !== OrderType.limit || timeInForce !== TimeInForce.gtc)) {
    return Result.invalidOrderOptions;
  }

  // Account, identity and capacity.
  const account = engine.ledger.find(request.userId, request.mode);
  const clientOrderId = request.clientOrderId;
  if (typeof clientOrderId !== 'string' || clientOrderId.length > engine.limits.clientOrderIdLengthMax) {
    return Result.invalidClientOrderId;
  }
  if (account === noAccount) return Result.insufficientBalance;
  if (clientOrderId !== '' && engine.slotByClientOrderId.has(account, clientOrderId)) {
    return Result.duplicateClientOrderId;
  }
  if (engine.accountOpenOrders[account]! >= engine.limits.openOrdersPerAccountMax) return Result.tooManyOpenOrders;
  if (!engine.orders.hasRoom()) return Result.bookFull;
  const context = engine.contexts[pair.index * 2 + request.mode]!;
  const book = context.book;
  if (book.orderCount >= engine.limits.bookOrdersMax) return Result.bookFull;
  if (isStop && context.buyStops.length + context.sellStops.length >= engine.limits.stopOrdersPerBookMax) {
    return Result.tooManyStopOrders;
  }
  if (orderType === OrderType.limit && timeInForce === TimeInForce.gtc) {
    const restable = book.canRest(side, priceTicks);
    if (restable !== Result.ok) return restable;
  }
  if (request.postOnly && crosses(engine, context, side, priceTicks)) return Result.postOnlyWouldTake;

  // Funds.
  let holdPriceTicks = priceTicks;
  if (side === 0 && isMarketKind) {
    const reference = orderType === OrderType.market ? hybridBest(engine, context, 1) : stopPriceTicks;
    holdPriceTicks = reference === noPrice ? 0 : Math.min(buyBand(engine, reference), pair.priceTicksMax);
  }
  const takerFeeBps = accountTakerFeeBps(engine, account);
  const heldAtoms = side === 0 ? buyHold(engine, pair, holdPriceTicks, quantityLots, holdTakerFeeBps(engine, request.postOnly, takerFeeBps)) : quantityLots * pair.baseAtomsPerLot;
  const heldAsset = side === 0 ? pair.quote.index : pair.base.index;
  if (engine.ledger.availableAtoms(account, heldAsset) < heldAtoms) return Result.insufficientBalance;

  // Accept: from here on nothing is refused.
  engine.lastOrderId = request.orderId;
  const slot = engine.orders.allocate(engine.growSlots);
  const store = engine.orders;
  store.setOrderId(slot, request.orderId);
  store.setAccount(slot, account);
  store.setContext(slot, context.index);
  store.setSide(slot, side);
  store.setOrderType(slot, orderType);
  store.setTimeInForce(slot, timeInForce);
  store.setSelfTradePrevention(slot, stp);
  store.setPostOnly(slot, request.postOnly ? 1 : 0);
  store.setStatus(slot, isStop ? OrderStatus.pending : OrderStatus.open);
  store.setPriceTicks(slot, priceTicks);
  store.setStopPriceTicks(slot, stopPriceTicks);
  store.setHoldPriceTicks(slot, holdPriceTicks);
  store.setQuantityLots(slot, quantityLots);
  store.setFilledLots(slot, 0);
  store.setFilledNotionalAtoms(slot, 0);
  store.setTakerNotionalAtoms(slot, 0);
  store.setMakerNotionalAtoms(slot, 0);
  store.setTakerFeeBps(slot, takerFeeBps);
  store.setHeldAtoms(slot, heldAtoms);
  store.setClientOrderId(slot, clientOrderId);
  if (heldAtoms > 0) engine.ledger.hold(account, heldAsset, heldAtoms);
  engine.slotByOrderId.add(request.orderId, slot);
  if (clientOrderId !== '') engine.slotByClientOrderId.add(account, clientOrderId, slot);
  linkToAccount(engine, account, slot);

  const event = engine.accepted;
  event.orderId = request.orderId;
  event.userId = request.userId;
  event.mode = request.mode;
  event.pairId = pair.id;
  event.side = side;
  event.orderType = orderType;
  event.timeInForce = timeInForce;
  event.priceTicks = priceTicks;
  event.stopPriceTicks = stopPriceTicks;
  event.quantityLots = quantityLots;
  event.postOnly = request.postOnly;
  event.selfTradePrevention = stp;
  event.clientOrderId = clientOrderId;
  event.status = store.status(slot) as OrderStatus;
  event.heldAtoms = heldAtoms;
  event.groupKind = engine.placingGroupKind;
  event.groupId = engine.placingGroupId;
  engine.sink.onEvent(event);

  if (isStop) {
    insertStop(engine, context, slot);
  } else {
    execute(engine, context, slot);
  }
  triggerStops(engine, context);
  return Result.ok;
}

export function placeBatch(engine: EngineState, command: PlaceBatch): ResultCode {
  engine.batchResults.length = 0;
  if (command.orders.length === 0) return Result.batchEmpty;
  if (command.orders.length > engine.limits.batchOrdersMax) return Result.batchTooLarge;
  for (const order of command.orders) engine.batchResults.push(placeOrder(engine, order));
  return Result.ok;
}

/**
 * Places an order on behalf of a parent (a TWAP slice, a scale rung) through the same path as a client's
 * order; its OrderAccepted carries the parent. With `watch`, `orderReport` tells afterwards how the order
 * ended, for orders that end within the call (immediate-or-cancel and market orders always do).
 */
export function placeGroupOrder(engine: EngineState, request: OrderRequest, groupKind: GroupKind, groupId: number, watch: boolean): ResultCode {
  engine.placingGroupKind = groupKind;
  engine.placingGroupId = groupId;
  if (watch) engine.orderReport.watch(request.orderId);
  const result = placeOrder(engine, request);
  engine.placingGroupKind = GroupKind.none;
  engine.placingGroupId = 0;
  if (watch) {
    assert(result !== Result.ok || engine.orderReport.ended, 'a watched order ended within its placement');
    engine.orderReport.orderId = 0;
  }
  return result;
}
