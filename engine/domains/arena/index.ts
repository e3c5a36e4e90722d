/**
 * The arena as a domain: its descriptor (engine/domains/index.ts lists it). The shell's arena module
 * (shell/arena) seeds it, routes orders to it and reads its durable events.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { Arena } from './arena.ts';
import { arenaDomainId, arenaEventNames, cancelArenaOrderCodec, placeArenaOrderCodec, seedArenaCodec } from './commands.ts';
import { ArenaSimulation } from './simulation.ts';

export const arenaDomain: DomainDescriptor = {
  id: arenaDomainId,
  name: Arena.domainName,
  formatVersion: 1,
  commands: [seedArenaCodec, placeArenaOrderCodec, cancelArenaOrderCodec],
  eventNames: arenaEventNames,
  create: (port) => new Arena(port),
  simulation: () => new ArenaSimulation(),
};

export { Arena, houseUserId, poolUserId } from './arena.ts';
export * from './commands.ts';
