/**
 * The movers tournament as a domain: its descriptor (engine/domains/index.ts lists it). The shell's movers
 * module (shell/movers) configures it and serves the tournament's routes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { MoversEventType, configureMoversCodec, enterMoversCodec, moversDomainId } from './commands.ts';
import { Movers } from './movers.ts';
import { MoversSimulation } from './simulation.ts';

export const moversDomain: DomainDescriptor = {
  id: moversDomainId,
  name: Movers.domainName,
  formatVersion: 1,
  commands: [configureMoversCodec, enterMoversCodec],
  eventNames: {
    [MoversEventType.configured]: 'MoversConfigured',
    [MoversEventType.roundOpened]: 'MoversRoundOpened',
    [MoversEventType.entered]: 'MoversEntered',
    [MoversEventType.roundEnded]: 'MoversRoundEnded',
  },
  create: (port) => new Movers(port),
  simulation: () => new MoversSimulation(),
};

export { Movers, moversOf } from './movers.ts';
export * from './commands.ts';
