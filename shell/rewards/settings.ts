/** The rewards module's settings, read from the environment when the module is made (a bad value stops the start). */
import { integer, type SettingsEnv } from '../config.ts';
import { accrualIntervalMsMax, accrualIntervalMsMin, shareBpsMax } from '../../engine/domains/rewards/commands.ts';

export interface RewardsSettings {
  /** REWARDS_ACCRUAL_MS: journaled time between two revenue-share accruals. */
  readonly accrualMs: number;
  /** REWARDS_SHARE_BPS: the share of the live taker fees that accrues to PLAT and PRED holders. */
  readonly shareBps: number;
  /** REWARDS_PAYOUT_MS: journaled time between two payouts of pending revenue-share rewards (0: none). */
  readonly payoutMs: number;
  /** REWARDS_BOUNTY_FUND_USDC: the bounty account is topped up to this many whole USDC at start (a journaled deposit). */
  readonly bountyFundUsdc: number;
}

export function rewardsSettings(env: SettingsEnv): RewardsSettings {
  return {
    accrualMs: integer(env, 'REWARDS_ACCRUAL_MS', 3_600_000, accrualIntervalMsMin, accrualIntervalMsMax),
    shareBps: integer(env, 'REWARDS_SHARE_BPS', 2_000, 0, shareBpsMax),
    payoutMs: payoutInterval(env),
    bountyFundUsdc: integer(env, 'REWARDS_BOUNTY_FUND_USDC', 100_000, 0, 1_000_000_000),
  };
}

/** REWARDS_PAYOUT_MS: 0 (no payouts) or an interval in the accrual's bounds; a day by default. */
function payoutInterval(env: SettingsEnv): number {
  if (env['REWARDS_PAYOUT_MS'] === '0') return 0;
  return integer(env, 'REWARDS_PAYOUT_MS', 86_400_000, accrualIntervalMsMin, accrualIntervalMsMax);
}
