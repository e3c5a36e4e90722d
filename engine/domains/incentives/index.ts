/**
 * Incentives as a domain: its descriptor (engine/domains/index.ts lists it). The shell's incentives module
 * (shell/incentives) journals the catalogue, funds the pools' reward accounts and the airdrop account, and
 * serves the routes and the /ws/incentives stream.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { IncentivesEventType, incentivesCodecs, incentivesDomainId } from './commands.ts';
import { Incentives } from './incentives.ts';
import { IncentivesSimulation } from './simulation.ts';

export const incentivesDomain: DomainDescriptor = {
  id: incentivesDomainId,
  name: Incentives.domainName,
  formatVersion: 1,
  commands: [...incentivesCodecs],
  eventNames: {
    [IncentivesEventType.configured]: 'IncentivesConfigured',
    [IncentivesEventType.botRegistered]: 'BotRegistered',
    [IncentivesEventType.tierChanged]: 'TierChanged',
    [IncentivesEventType.staked]: 'Staked',
    [IncentivesEventType.unstaked]: 'Unstaked',
    [IncentivesEventType.rewardsClaimed]: 'RewardsClaimed',
    [IncentivesEventType.airdropClaimed]: 'AirdropClaimed',
    [IncentivesEventType.boostActivated]: 'BoostActivated',
    [IncentivesEventType.boostExpired]: 'BoostExpired',
  },
  create: (port) => new Incentives(port),
  simulation: () => new IncentivesSimulation(),
};

export { Incentives, incentivesOf } from './incentives.ts';
export * from './commands.ts';
