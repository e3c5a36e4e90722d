/**
 * The prices as durable batches left them: what the price routes show. It is a Prices module of its own,
 * fed with the oracle's durable events, so it applies exactly the engine's rules and shows nothing that a
 * crash could take back. It starts from the recovered engine's prices (everything recovered is durable).
 */
import { domainCommand } from '../../engine/core/domain.ts';
import type { DomainEvent } from '../../engine/core/events.ts';
import type { DomainPort } from '../../engine/core/port.ts';
import { Result } from '../../engine/core/results.ts';
import { pricesOf } from '../../engine/domains/index.ts';
import {
  PricesCommandType,
  PricesEventType,
  type PostPriceTicks,
  type PriceHistorySeeded,
  type PricesTicked,
  type SeedPriceHistory,
} from '../../engine/domains/prices/commands.ts';
import { Prices } from '../../engine/domains/prices/prices.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';

/** The part of the port a Prices module uses: the command's time; its events go nowhere. */
class ViewPort {
  nowMs = 0;
  commandTimeMs(): number {
    return this.nowMs;
  }
  emit(): void {}
}

export class PricesView {
  readonly prices: Prices;
  private readonly port = new ViewPort();

  constructor(engine: Engine) {
    // The view's Prices reads only the time and emits; the rest of the port is never called.
    this.prices = new Prices(this.port as unknown as DomainPort);
    const state = pricesOf(engine).snapshot();
    if (state !== null) this.prices.restore(state);
  }

  /** A durable batch's price events, applied in order. */
  onBatch(batch: DurableBatch): void {
    batch.forEachDomainEvent((event, _seq, ts) => this.apply(event, ts));
  }

  private apply(event: DomainEvent, ts: number): void {
    this.port.nowMs = ts;
    let result;
    if (event.type === PricesEventType.pricesTicked) {
      const body = event.body as PricesTicked;
      const command: PostPriceTicks = { source: body.source, symbols: body.symbols, pricesE8: body.pricesE8 };
      result = this.prices.apply({ ...domainCommand(PricesCommandType.postPriceTicks, command), ts });
    } else if (event.type === PricesEventType.priceHistorySeeded) {
      const body = event.body as PriceHistorySeeded;
      const command: SeedPriceHistory = { source: body.source, symbol: body.symbol, firstDay: body.firstDay, closesE8: body.closesE8 };
      result = this.prices.apply({ ...domainCommand(PricesCommandType.seedPriceHistory, command), ts });
    } else {
      return;
    }
    // The engine accepted these commands under the same rules: the view cannot refuse them.
    if (result !== Result.ok) throw new Error(`prices view refused a durable event of type ${event.type}`);
  }
}
