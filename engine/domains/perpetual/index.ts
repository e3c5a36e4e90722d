/**
 * Perpetual YES/NO prediction markets as a domain: its descriptor (engine/domains/index.ts lists it). The
 * shell's perpetual module (shell/perpetual) configures it, funds its house and serves its routes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { PerpetualEventType, configurePerpetualCodec, perpetualDomainId, predictCodec } from './commands.ts';
import { Perpetual } from './perpetual.ts';
import { PerpetualSimulation } from './simulation.ts';

export const perpetualDomain: DomainDescriptor = {
  id: perpetualDomainId,
  name: Perpetual.domainName,
  formatVersion: 1,
  commands: [configurePerpetualCodec, predictCodec],
  eventNames: {
    [PerpetualEventType.configured]: 'PerpetualConfigured',
    [PerpetualEventType.epochOpened]: 'EpochOpened',
    [PerpetualEventType.predictionPlaced]: 'PredictionPlaced',
    [PerpetualEventType.epochResolved]: 'EpochResolved',
  },
  create: (port) => new Perpetual(port),
  simulation: () => new PerpetualSimulation(),
};

export { Perpetual, houseUserId, perpetualOf, poolUserId } from './perpetual.ts';
export * from './commands.ts';
