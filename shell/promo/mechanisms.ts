/**
 * The platform's earning mechanisms as the promo status shows them: each is one entry, a name, what
 * counts as its payment, and a test of a durable engine event for it. The promo view records the time of
 * the first durable event each test accepts; a mechanism is active once it has one. Adding a mechanism
 * (a domain's staking, airdrops, arena bonus) is one line here.
 */
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import { RewardsEventType, type RewardsPaid } from '../../engine/domains/rewards/commands.ts';
import { ArenaEventType, type EpochResolved } from '../../engine/domains/arena/commands.ts';
import { gamesEarningsOf, type EarningsReason } from '../../engine/domains/games/index.ts';
import { IncentivesEventType, type AirdropClaimed, type RewardsClaimed } from '../../engine/domains/incentives/commands.ts';

export interface EarningMechanism {
  readonly name: string;
  /** What counts as paid, for the answer. */
  readonly paidWhen: string;
  paidBy(event: EngineEvent): boolean;
}

const domainEventOf = (event: EngineEvent, type: number): unknown => (event.kind === EventKind.domain && event.type === type ? event.body : undefined);

/** A games payout of one reason (streak reward, duel win, tournament prize). */
const gamesPaid = (reason: EarningsReason) => (event: EngineEvent): boolean => {
  const earning = gamesEarningsOf(event);
  return earning !== null && earning.reason === reason && earning.amountAtoms > 0;
};

export const earningMechanisms: readonly EarningMechanism[] = [
  {
    // Accrual (RewardsAccrued) only records entitlements; money reaches a holder at a payout, a ledger
    // move from the fee account that RewardsPaid records.
    name: 'revenue_share',
    paidWhen: 'a payout moves pending revenue-share rewards from the fee account to holders (RewardsPaid with paidAtoms > 0)',
    paidBy: (event) => ((domainEventOf(event, RewardsEventType.paid) as RewardsPaid | undefined)?.paidAtoms ?? 0) > 0,
  },
  { name: 'bug_bounty', paidWhen: 'a bounty is paid to a reporter (BountyPaid)', paidBy: (event) => domainEventOf(event, RewardsEventType.bountyPaid) !== undefined },
  {
    name: 'arena_bonus',
    paidWhen: "an arena epoch pays the winning team's holders a bonus from the fee pool (EpochResolved with paidAtoms > 0)",
    paidBy: (event) => ((domainEventOf(event, ArenaEventType.epochResolved) as EpochResolved | undefined)?.paidAtoms ?? 0) > 0,
  },
  { name: 'streak_rewards', paidWhen: 'a streak milestone reward is paid (EarningsPaid, reason streak)', paidBy: gamesPaid('streak') },
  { name: 'duels', paidWhen: 'a duel pays its winner (EarningsPaid, reason duel)', paidBy: gamesPaid('duel') },
  { name: 'tournaments', paidWhen: 'a tournament pays a prize (EarningsPaid, reason tournament)', paidBy: gamesPaid('tournament') },
  {
    name: 'staking',
    paidWhen: 'a staker claims rewards (RewardsClaimed with a positive amount)',
    paidBy: (event) => ((domainEventOf(event, IncentivesEventType.rewardsClaimed) as RewardsClaimed | undefined)?.amountAtoms ?? 0) > 0,
  },
  {
    name: 'airdrops',
    paidWhen: 'an airdrop is claimed (AirdropClaimed with a positive amount)',
    paidBy: (event) => ((domainEventOf(event, IncentivesEventType.airdropClaimed) as AirdropClaimed | undefined)?.amountAtoms ?? 0) > 0,
  },
];
