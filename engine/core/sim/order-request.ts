/**
 * An order request with the defaults that tests and tools start from: a live GTC limit buy, no stop, no
 * post-only, cancel_taker, no client order id. Callers name the order, its owner and its pair, and
 * override what their case is about.
 */
import { OrderType, SelfTradePrevention, TimeInForce, type OrderRequest } from '../commands.ts';

export function orderRequest(fields: Partial<OrderRequest> & Pick<OrderRequest, 'orderId' | 'userId' | 'pairId'>): OrderRequest {
  return {
    mode: 0,
    side: 0,
    orderType: OrderType.limit,
    timeInForce: TimeInForce.gtc,
    priceTicks: 0,
    stopPriceTicks: 0,
    quantityLots: 1,
    postOnly: false,
    selfTradePrevention: SelfTradePrevention.cancelTaker,
    clientOrderId: '',
    ...fields,
  };
}
