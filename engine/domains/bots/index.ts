/**
 * The bots domain (clones of source bots and their strategy clock) as a domain: its descriptor
 * (engine/domains/index.ts lists it). The shell's bots module (shell/bots) journals its commands and runs
 * the strategies at its strikes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { BotsEventType, botsDomainId, configureBotsCodec, startCloneCodec } from './commands.ts';
import { Bots } from './bots.ts';
import { BotsSimulation } from './simulation.ts';

export const botsDomain: DomainDescriptor = {
  id: botsDomainId,
  name: Bots.domainName,
  formatVersion: 1,
  commands: [configureBotsCodec, startCloneCodec],
  eventNames: { [BotsEventType.configured]: 'BotsConfigured', [BotsEventType.cloneStarted]: 'CloneStarted', [BotsEventType.strategyTicked]: 'StrategyTicked' },
  create: (port) => new Bots(port),
  simulation: () => new BotsSimulation(),
};

export { Bots, botsOf, type RunningClone } from './bots.ts';
export * from './commands.ts';
