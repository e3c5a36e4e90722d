/**
 * The cancel switch (the dead-man's switch of market makers) as a domain: its descriptor
 * (engine/domains/index.ts lists it). The shell's route POST /api/v1/exchange/cancel-all-after journals
 * its command; the runtime's RunTimers fire it.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { armCancelSwitchCodec, CancelSwitchEventType, cancelSwitchDomainId } from './commands.ts';
import { CancelSwitches } from './cancel-switch.ts';
import { CancelSwitchSimulation } from './simulation.ts';

export const cancelSwitchDomain: DomainDescriptor = {
  id: cancelSwitchDomainId,
  name: CancelSwitches.domainName,
  formatVersion: 1,
  commands: [armCancelSwitchCodec],
  eventNames: { [CancelSwitchEventType.armed]: 'CancelSwitchArmed', [CancelSwitchEventType.disarmed]: 'CancelSwitchDisarmed', [CancelSwitchEventType.fired]: 'CancelSwitchFired' },
  create: (port) => new CancelSwitches(port),
  simulation: () => new CancelSwitchSimulation(),
};

export { CancelSwitches, cancelSwitchesOf } from './cancel-switch.ts';
export * from './commands.ts';
