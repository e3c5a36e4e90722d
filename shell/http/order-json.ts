/**
 * The order record of the API specification as JSON text, written directly rather than built as an object and passed
 * to JSON.stringify: it is the answer to every placement, and in bench:http profiles building the object,
 * its fills and their decimal strings and then encoding them was the largest cost of an order after the
 * socket write. The enum names and each pair's names are fixed strings with nothing to escape, made into
 * JSON once; the only text a client chose, `client_order_id`, goes through JSON.stringify.
 */
import { GroupKind, modeNames, orderTypeNames, OrderType, selfTradePreventionNames, sideNames, timeInForceNames, type OrderRequest } from '../../engine/core/commands.ts';
import { orderStatusNames } from '../../engine/core/events.ts';
import { formatPrice, formatQuantity, formatSteps, type Pair, type Step } from '../../engine/core/units.ts';

/** What an order was asked to be: the placement command, or a read-model row. */
export type OrderTerms = Omit<OrderRequest, 'userId' | 'pairId'>;

const quoted = (names: readonly string[]): string[] => names.map((name) => JSON.stringify(name));
const sideJson = quoted(sideNames);
const orderTypeJson = quoted(orderTypeNames);
const timeInForceJson = quoted(timeInForceNames);
const stpJson = quoted(selfTradePreventionNames);
const modeJson = quoted(modeNames);
const statusJson = quoted(orderStatusNames);

/** `"symbol":…,"pair":…` of each pair, by pair id. */
const pairFields = new Map<number, string>();

function pairJson(pair: Pair): string {
  let text = pairFields.get(pair.id);
  if (text === undefined) {
    text = `"symbol":${JSON.stringify(pair.base.symbol)},"pair":${JSON.stringify(pair.name)}`;
    pairFields.set(pair.id, text);
  }
  return text;
}

let lastIsoMs = Number.NaN;
let lastIso = '';

/** ISO 8601 UTC of a time in milliseconds; the last one is remembered, since a batch's records share it. */
export function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIsoMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** `numerator / denominator` steps as a decimal string with the step's decimals plus `extra`, rounded down. */
export function formatRatio(numerator: number, denominator: number, step: Step, extra: number): string {
  const factor = 10n ** BigInt(extra);
  const scaled = (BigInt(numerator) * step.mantissa * factor) / BigInt(denominator);
  return formatSteps(Number(scaled), { mantissa: 1n, scale: step.scale + extra });
}

/** An order's average fill price (four decimals beyond the tick's), or null before its first fill. */
export function averagePrice(pair: Pair, filledLots: number, filledNotionalAtoms: number): string | null {
  return filledLots === 0 ? null : formatRatio(filledNotionalAtoms, filledLots * pair.quoteAtomsPerTickLot, pair.tick, 4);
}

const noGroupJson = ',"twap_id":null,"scale_id":null';

/**
 * `,"twap_id":…,"scale_id":…` of an order placed for a parent (GroupKind: a TWAP slice, a scale rung); both
 * null for a client's own order.
 */
export function groupJson(groupKind: number, groupId: number): string {
  if (groupKind === GroupKind.twap) return `,"twap_id":"${groupId}","scale_id":null`;
  if (groupKind === GroupKind.scale) return `,"twap_id":null,"scale_id":"${groupId}"`;
  return noGroupJson;
}

/**
 * `{…}` of the order record: order_id, client_order_id, symbol, pair, side, order_type, time_in_force,
 * post_only, stp, quantity, price, stop_price, mode, status, filled_quantity, average_price, created_at,
 * then `tail` (more fields, each starting with a comma). The progress comes as arguments rather than as
 * one merged object: copying a command into a new object per answer cost more than writing the record.
 */
export function orderJson(pair: Pair, order: OrderTerms, status: number, filledLots: number, filledNotionalAtoms: number, createdAtMs: number, tail: string): string {
  const isMarket = order.orderType === OrderType.market || order.orderType === OrderType.stopMarket;
  const average = averagePrice(pair, filledLots, filledNotionalAtoms);
  return (
    `{"order_id":"${order.orderId}","client_order_id":${order.clientOrderId === '' ? 'null' : JSON.stringify(order.clientOrderId)},` +
    `${pairJson(pair)},"side":${sideJson[order.side]},"order_type":${orderTypeJson[order.orderType]},` +
    `"time_in_force":${timeInForceJson[order.timeInForce]},"post_only":${order.postOnly},"stp":${stpJson[order.selfTradePrevention]},` +
    `"quantity":"${formatQuantity(order.quantityLots, pair)}","price":${isMarket ? 'null' : `"${formatPrice(order.priceTicks, pair)}"`},` +
    `"stop_price":${order.stopPriceTicks === 0 ? 'null' : `"${formatPrice(order.stopPriceTicks, pair)}"`},"mode":${modeJson[order.mode]},` +
    `"status":${statusJson[status]},"filled_quantity":"${formatQuantity(filledLots, pair)}",` +
    `"average_price":${average === null ? 'null' : `"${average}"`},"created_at":"${isoTime(createdAtMs)}"${tail}}`
  );
}

/**
 * One fill of an order as the placement record lists it: `venue` is `clob` for a trade with another of
 * our orders, else the outside venue's name and `chain`; a fill that settled through a (simulated) chain
 * carries its `sim_tx_hash` (every paper fill; live fills against AMM venues in the embedded default).
 */
export function fillJson(
  pair: Pair,
  tradeId: number,
  priceTicks: number,
  quantityLots: number,
  feeAtoms: number,
  taker: boolean,
  venue: string,
  chain: string | null,
  simTxHash: string | null,
): string {
  return (
    `{"trade_id":"${tradeId}","price":"${formatPrice(priceTicks, pair)}","quantity":"${formatQuantity(quantityLots, pair)}",` +
    `"fee":"${formatSteps(feeAtoms, pair.quote.atom)}","fee_asset":${JSON.stringify(pair.quote.symbol)},"liquidity":${taker ? '"taker"' : '"maker"'},` +
    `"venue":${JSON.stringify(venue)},"chain":${chain === null ? 'null' : JSON.stringify(chain)},"sim_tx_hash":${simTxHash === null ? 'null' : JSON.stringify(simTxHash)}}`
  );
}
