/**
 * The rewards domain: its descriptor (engine/domains/index.ts lists it). The shell's rewards module
 * (shell/rewards) configures it, funds the bounty account and serves the rewards and bounty routes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { RewardsEventType, configurePayoutsCodec, configureRewardsCodec, payBountyCodec, rewardsDomainId } from './commands.ts';
import { Rewards } from './rewards.ts';
import { RewardsSimulation } from './simulation.ts';

export const rewardsDomain: DomainDescriptor = {
  id: rewardsDomainId,
  name: Rewards.domainName,
  formatVersion: 1,
  commands: [configureRewardsCodec, payBountyCodec, configurePayoutsCodec],
  eventNames: {
    [RewardsEventType.configured]: 'RewardsConfigured',
    [RewardsEventType.accrued]: 'RewardsAccrued',
    [RewardsEventType.bountyPaid]: 'BountyPaid',
    [RewardsEventType.payoutsConfigured]: 'PayoutsConfigured',
    [RewardsEventType.paid]: 'RewardsPaid',
  },
  create: (port) => new Rewards(port),
  simulation: () => new RewardsSimulation(),
};

export { Rewards, bountyUserId, rewardsOf } from './rewards.ts';
export * from './commands.ts';
