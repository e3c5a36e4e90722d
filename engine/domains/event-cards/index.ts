/**
 * The event cards as a domain: its descriptor (engine/domains/index.ts lists it after the prices domain,
 * whose prices and ticks it reads). The shell's event-cards module (shell/event-cards) serves its routes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { eventCardsCodecs, eventCardsDomainId, eventCardsEventNames } from './commands.ts';
import { EventCards } from './event-cards.ts';
import { EventCardsSimulation } from './simulation.ts';

export const eventCardsDomain: DomainDescriptor = {
  id: eventCardsDomainId,
  name: EventCards.domainName,
  formatVersion: 1,
  commands: eventCardsCodecs,
  eventNames: eventCardsEventNames,
  create: (port) => new EventCards(port),
  simulation: () => new EventCardsSimulation(),
};

export { EventCards } from './event-cards.ts';
export * from './commands.ts';
