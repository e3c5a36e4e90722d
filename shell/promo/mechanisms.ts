/**
 * The platform's earning mechanisms as the promo status shows them: each is one entry, a name, what
 * counts as its payment, and a test of a durable engine event for it. The promo view records the time of
 * the first durable event each test accepts; a mechanism is active once it has one. Adding a mechanism
 * (a domain's staking, airdrops, arena bonus) is one line here.
 */
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import { RewardsEventType, type RewardsAccrued } from '../../engine/domains/rewards/commands.ts';

export interface EarningMechanism {
  readonly name: string;
  /** What counts as paid, for the answer. */
  readonly paidWhen: string;
  paidBy(event: EngineEvent): boolean;
}

const domainEventOf = (event: EngineEvent, type: number): unknown => (event.kind === EventKind.domain && event.type === type ? event.body : undefined);

export const earningMechanisms: readonly EarningMechanism[] = [
  {
    name: 'revenue_share',
    paidWhen: 'an accrual credits holders of PLAT or PRED with pending rewards (RewardsAccrued with a positive amount)',
    paidBy: (event) => ((domainEventOf(event, RewardsEventType.accrued) as RewardsAccrued | undefined)?.distributedAtoms ?? 0) > 0,
  },
  { name: 'bug_bounty', paidWhen: 'a bounty is paid to a reporter (BountyPaid)', paidBy: (event) => domainEventOf(event, RewardsEventType.bountyPaid) !== undefined },
];
