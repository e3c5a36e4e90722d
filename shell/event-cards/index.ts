/**
 * The event cards module of the shell: the durable view, the routes on it, and what runs at start:
 * - the funding interval is journaled (ConfigureEventCards) when EVENT_CARDS_FUNDING_MS differs from the
 *   engine's;
 * - the house treasury of each mode is topped up to EVENT_CARDS_HOUSE_FUND_USDC by a journaled Deposit;
 * - the fixture's cards not listed yet are listed once the oracle has priced their constituents (a card
 *   still unpriced is tried again after a later durable batch).
 * These decisions read the live engine (what is already journaled), never answers to clients.
 */
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { domainUserId } from '../../engine/core/limits.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { amountToAtoms } from '../../engine/core/units.ts';
import { EventCardsAccount, EventCardsCommandType, eventCardsDomainId, type ListCard } from '../../engine/domains/event-cards/commands.ts';
import { EventCards } from '../../engine/domains/event-cards/event-cards.ts';
import { pricesOf } from '../../engine/domains/index.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import type { ShellModule } from '../shell-module.ts';
import type { ShellContext } from '../context.ts';
import { loadEventCards } from './fixture.ts';
import { eventCardsRoutes } from './routes.ts';
import { EventCardsView } from './view.ts';

function eventCardsOf(context: ShellContext): EventCards {
  const module = context.durable.engine.domain(EventCards.domainName);
  if (!(module instanceof EventCards)) throw new Error('the engine has no event cards module');
  return module;
}

/** Lists the fixture's cards that are not listed, once their constituents are priced; one attempt in flight per card. */
class Lister {
  private readonly inFlight = new Set<string>();
  private pending = true;

  constructor(
    private readonly context: ShellContext,
    private readonly cards: readonly ListCard[],
  ) {}

  /** Whether a card remains to be listed (the module then looks at every durable batch). */
  get waiting(): boolean {
    return this.pending;
  }

  run(): void {
    const module = eventCardsOf(this.context);
    const prices = pricesOf(this.context.durable.engine);
    let left = 0;
    for (const card of this.cards) {
      if (module.cardBySlug(card.slug) !== undefined) continue;
      left++;
      if (this.inFlight.has(card.slug) || card.symbols.some((symbol) => prices.priceE8(symbol) <= 0)) continue;
      this.inFlight.add(card.slug);
      this.context.durable.enqueue(domainCommand(EventCardsCommandType.listCard, card), (outcome) => {
        this.inFlight.delete(card.slug);
        if (outcome.error !== null) this.context.log('event_card_listing_failed', { card_id: card.slug, error: outcome.error.message });
        else if (outcome.result !== Result.ok) this.context.log('event_card_listing_refused', { card_id: card.slug, code: resultCode(outcome.result) });
        else this.context.log('event_card_listed', { card_id: card.slug, seq: outcome.seq });
      });
    }
    this.pending = left > 0;
  }
}

export const eventCardsModule: ShellModule = {
  name: 'event-cards',
  create(context) {
    const { config } = context;
    const usdc = context.markets.assetBySymbol('USDC');
    if (usdc === undefined) throw new Error('event cards need the USDC asset');
    const houseFund = amountToAtoms(config.eventCardsHouseFundUsdc, usdc);
    if (houseFund.code !== Result.ok) throw new Error('EVENT_CARDS_HOUSE_FUND_USDC must be a positive USDC amount');
    const cards = loadEventCards(undefined, new Set(loadOracleAssets().map((asset) => asset.symbol)));
    const view = new EventCardsView(context.durable.engine);
    const lister = new Lister(context, cards);
    let started = false;

    const start = async (): Promise<void> => {
      const module = eventCardsOf(context);
      if (module.configuredFundingIntervalMs !== config.eventCardsFundingMs) {
        const configured = await context.durable.submit(domainCommand(EventCardsCommandType.configure, { fundingIntervalMs: config.eventCardsFundingMs }));
        if (configured.result !== Result.ok) throw new Error(`EVENT_CARDS_FUNDING_MS refused: ${resultCode(configured.result)}`);
      }
      const ledger = context.durable.engine.ledger;
      for (const mode of [0, 1] as const) {
        const userId = domainUserId(eventCardsDomainId, EventCardsAccount.house);
        const account = ledger.find(userId, mode);
        const available = account < 0 ? 0 : ledger.availableAtoms(account, usdc.index);
        if (available >= houseFund.value) continue;
        const deposit: Command = { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId: usdc.id, amountAtoms: houseFund.value - available };
        const funded = await context.durable.submit(deposit);
        if (funded.result !== Result.ok) throw new Error(`event cards house funding refused: ${resultCode(funded.result)}`);
        context.log('event_cards_house_funded', { mode, amount_atoms: deposit.amountAtoms });
      }
      lister.run();
    };

    return {
      routes: eventCardsRoutes({ context, view, usdc }),
      onDurable: (batch) => {
        view.onBatch(batch);
        // Only a started module lists cards (a stream edge never starts modules: it makes no commands).
        if (started && lister.waiting) lister.run();
      },
      start: async () => {
        started = true;
        await start();
      },
    };
  },
};
