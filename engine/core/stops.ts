/**
 * Stop orders: the per-book lists of untriggered stops in trigger order, and the cascade that triggers
 * them when the last price crosses their stop price (each triggered order runs as a taker).
 */
import { assert } from './assert.ts';
import { noPrice } from './book/book.ts';
import type { BookContext, EngineState } from './engine-state.ts';
import { OrderStatus } from './events.ts';
import { execute } from './matching/taker.ts';
import { noSlot } from './order-store.ts';

export function insertStop(engine: EngineState, context: BookContext, slot: number): void {
  const store = engine.orders;
  const buying = store.side(slot) === 0;
  const stops = buying ? context.buyStops : context.sellStops;
  const stopTicks = store.stopPriceTicks(slot);
  const orderId = store.orderId(slot);
  // Binary search for the first stop that triggers after this one.
  let low = 0;
  let high = stops.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const other = stops[middle]!;
    const otherTicks = store.stopPriceTicks(other);
    const after = otherTicks === stopTicks ? store.orderId(other) > orderId : buying ? otherTicks > stopTicks : otherTicks < stopTicks;
    if (after) high = middle;
    else low = middle + 1;
  }
  stops.splice(low, 0, slot);
}

export function removeStop(engine: EngineState, context: BookContext, slot: number): void {
  const stops = engine.orders.side(slot) === 0 ? context.buyStops : context.sellStops;
  const index = stops.indexOf(slot);
  assert(index >= 0, 'pending stop not in its list');
  stops.splice(index, 1);
}

/**
 * Triggers every stop the last trade price has crossed (buy: last ≥ stop; sell: last ≤ stop), one at a
 * time: buys first in stop-price-then-id order, then sells; each triggered order may trade and move the
 * last price, so the lists are looked at again after each one. Each stop triggers at most once, so the
 * cascade ends.
 */
export function triggerStops(engine: EngineState, context: BookContext): void {
  const store = engine.orders;
  for (;;) {
    const last = context.lastPriceTicks;
    if (last === noPrice) return;
    let slot = noSlot;
    const buy = context.buyStops[0];
    if (buy !== undefined && store.stopPriceTicks(buy) <= last) {
      slot = buy;
      context.buyStops.shift();
    } else {
      const sell = context.sellStops[0];
      if (sell !== undefined && store.stopPriceTicks(sell) >= last) {
        slot = sell;
        context.sellStops.shift();
      }
    }
    if (slot === noSlot) return;
    store.setStatus(slot, OrderStatus.open);
    const event = engine.triggered;
    event.orderId = store.orderId(slot);
    event.pairId = context.pair.id;
    event.mode = context.mode;
    event.lastPriceTicks = last;
    engine.sink.onEvent(event);
    execute(engine, context, slot);
  }
}
