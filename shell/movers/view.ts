/**
 * The movers tournament as durable batches left it: what the tournament routes show. It starts from the
 * recovered engine's state (the running round and its entries are durable once recovered) and follows the
 * domain's durable events; the oracle's prices come from a prices view of its own fed by the same batches.
 * The last ended round is kept from its RoundEnded event (after a restart, until the next round ends, there
 * is none to show).
 */
import type { DomainEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { MoversEventType, type MoversConfigured, type MoversEntered, type RoundEnded, type RoundOpened } from '../../engine/domains/movers/commands.ts';
import { moversOf, type Entry } from '../../engine/domains/movers/movers.ts';
import { PricesView } from '../prices/view.ts';

export interface RoundView {
  readonly round: number;
  readonly startMs: number;
  readonly endMs: number;
  /** Entries in entry order. */
  readonly entries: Entry[];
}

export class MoversView {
  readonly prices: PricesView;
  roundMs = 0;
  current: RoundView | null = null;
  lastEnded: RoundEnded | null = null;

  constructor(engine: Engine) {
    this.prices = new PricesView(engine);
    const movers = moversOf(engine);
    this.roundMs = movers.roundMs;
    const round = movers.current;
    if (round !== null) this.current = { round: round.round, startMs: round.startMs, endMs: round.endMs, entries: round.entries.map((entry) => ({ ...entry, symbols: [...entry.symbols], startPricesE8: [...entry.startPricesE8] })) };
  }

  onBatch(batch: DurableBatch): void {
    this.prices.onBatch(batch);
    batch.forEachDomainEvent((event) => this.apply(event));
  }

  private apply(event: DomainEvent): void {
    switch (event.type) {
      case MoversEventType.configured:
        this.roundMs = (event.body as MoversConfigured).roundMs;
        return;
      case MoversEventType.roundOpened: {
        const body = event.body as RoundOpened;
        this.current = { round: body.round, startMs: body.startMs, endMs: body.endMs, entries: [] };
        return;
      }
      case MoversEventType.entered: {
        const body = event.body as MoversEntered;
        this.current?.entries.push({ entryId: body.entryId, userId: body.userId, symbols: [...body.symbols], startPricesE8: [...body.startPricesE8], enteredMs: body.enteredMs });
        return;
      }
      case MoversEventType.roundEnded:
        this.lastEnded = structuredClone(event.body as RoundEnded);
        return;
    }
  }
}
