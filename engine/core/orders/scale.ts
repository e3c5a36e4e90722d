/**
 * Scale orders (PlaceScale): a ladder of resting limit orders, checked all together and then placed one
 * by one through placeGroupOrder. In the core because the all-or-nothing check needs the ledger, the books
 * and the hybrid best price.
 */
import { assert } from '../assert.ts';
import { GroupKind, OrderType, TimeInForce, type PlaceScale } from '../commands.ts';
import type { EngineState } from '../engine-state.ts';
import { noAccount } from '../ledger.ts';
import { scaleOrdersMax, scaleOrdersMin } from '../limits.ts';
import { accountTakerFeeBps, buyHold } from '../matching/fees.ts';
import { crosses } from '../matching/hybrid.ts';
import { placeGroupOrder } from './place.ts';
import { Result, type ResultCode } from '../results.ts';
import { validTicks, validUser } from '../validate.ts';

/**
 * A ladder of resting limit orders, all or nothing: every check a placement makes is made first for all
 * of them together (their holds added up against the available balance; room for all of them in the
 * account, the store, the book and its levels), and none may take liquidity from the hybrid book, so
 * that placing them one by one afterwards cannot trade or fail halfway.
 */
export function placeScale(engine: EngineState, command: PlaceScale): ResultCode {
  const orders = command.orders;
  if (!Number.isSafeInteger(command.scaleId) || command.scaleId <= engine.lastScaleId) return Result.scaleIdNotIncreasing;
  if (!Array.isArray(orders) || orders.length < scaleOrdersMin || orders.length > scaleOrdersMax) return Result.invalidScale;
  const first = orders[0]!;
  if (!validUser(first.userId)) return Result.invalidUser;
  if (first.mode !== 0 && first.mode !== 1) return Result.invalidMode;
  const pair = Number.isInteger(first.pairId) ? engine.pairsById[first.pairId] : undefined;
  if (pair === undefined) return Result.unknownPair;
  const side = first.side;
  if (side !== 0 && side !== 1) return Result.invalidSide;
  const stp = first.selfTradePrevention;
  if (!(stp >= 0 && stp <= 3 && Number.isInteger(stp))) return Result.invalidSelfTradePrevention;
  let previousOrderId = engine.lastOrderId;
  for (let index = 0; index < orders.length; index++) {
    const order = orders[index]!;
    if (order.userId !== first.userId || order.mode !== first.mode || order.pairId !== first.pairId || order.side !== side) return Result.invalidScale;
    if (order.selfTradePrevention !== stp || order.orderType !== OrderType.limit || order.timeInForce !== TimeInForce.gtc) return Result.invalidScale;
    if (order.postOnly !== false || order.clientOrderId !== '' || order.stopPriceTicks !== 0) return Result.invalidScale;
    if (!Number.isSafeInteger(order.orderId) || order.orderId <= previousOrderId) return Result.orderIdNotIncreasing;
    previousOrderId = order.orderId;
    if (!Number.isSafeInteger(order.quantityLots) || order.quantityLots < 1 || order.quantityLots > pair.quantityLotsMax) return Result.quantityOutOfRange;
    if (!validTicks(order.priceTicks, pair)) return Result.priceOutOfRange;
    for (let other = 0; other < index; other++) if (orders[other]!.priceTicks === order.priceTicks) return Result.invalidScale;
  }

  const account = engine.ledger.find(first.userId, first.mode);
  if (account === noAccount) return Result.insufficientBalance;
  const count = orders.length;
  if (engine.accountOpenOrders[account]! + count > engine.limits.openOrdersPerAccountMax) return Result.tooManyOpenOrders;
  if (engine.orders.liveCount + count > engine.limits.ordersMax) return Result.bookFull;
  const context = engine.contexts[pair.index * 2 + first.mode]!;
  if (context.book.orderCount + count > engine.limits.bookOrdersMax) return Result.bookFull;
  // Counted as if every rung opened a new level: exact enough for a bound that is far from a ladder's size.
  if (context.book.levelCount(side) + count > engine.limits.priceLevelsPerSideMax) return Result.tooManyPriceLevels;
  // All rungs are on one side, so resting some cannot make another cross: each is checked against now.
  for (const order of orders) if (crosses(engine, context, side, order.priceTicks)) return Result.scaleWouldTake;
  const heldAsset = side === 0 ? pair.quote.index : pair.base.index;
  const availableAtoms = engine.ledger.availableAtoms(account, heldAsset);
  const takerFeeBps = accountTakerFeeBps(engine, account);
  let heldAtoms = 0;
  for (const order of orders) {
    heldAtoms += side === 0 ? buyHold(engine, pair, order.priceTicks, order.quantityLots, takerFeeBps) : order.quantityLots * pair.baseAtomsPerLot;
    if (heldAtoms > availableAtoms) return Result.insufficientBalance;
  }

  // Accept: every placement below passes the checks just made.
  engine.lastScaleId = command.scaleId;
  const event = engine.scalePlaced;
  event.scaleId = command.scaleId;
  event.pairId = pair.id;
  event.mode = first.mode;
  event.userId = first.userId;
  event.side = side;
  event.count = count;
  event.quantityLots = 0;
  for (const order of orders) event.quantityLots += order.quantityLots;
  engine.sink.onEvent(event);
  for (const order of orders) {
    const result = placeGroupOrder(engine, order, GroupKind.scale, command.scaleId, false);
    assert(result === Result.ok, 'a checked scale order was refused');
  }
  return Result.ok;
}
