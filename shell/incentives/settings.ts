/**
 * The incentives' settings, read from the environment when the module is made (README's settings table):
 * - INCENTIVES_AUTO_SETUP (0/1, default 1): at first start journal the catalogue and fund the accounts.
 * - INCENTIVES_REWARD_FUND_TOKENS: whole tokens each pool's reward account is topped up to by a journaled
 *   Deposit at start (default 1 000 000; 0 leaves them empty, and claims then answer REWARDS_UNFUNDED).
 * - INCENTIVES_AIRDROP_FUND_TOKENS: whole tokens of each airdrop token the airdrop account is topped up to
 *   (default 100 000).
 */
import { flag, integer, type SettingsEnv } from '../config.ts';

export interface IncentivesSettings {
  readonly autoSetup: boolean;
  readonly rewardFundTokens: number;
  readonly airdropFundTokens: number;
}

const tokensMax = 1_000_000_000;

export function incentivesSettings(env: SettingsEnv): IncentivesSettings {
  return {
    autoSetup: env['INCENTIVES_AUTO_SETUP'] === undefined || env['INCENTIVES_AUTO_SETUP'] === '' ? true : flag(env, 'INCENTIVES_AUTO_SETUP'),
    rewardFundTokens: integer(env, 'INCENTIVES_REWARD_FUND_TOKENS', 1_000_000, 0, tokensMax),
    airdropFundTokens: integer(env, 'INCENTIVES_AIRDROP_FUND_TOKENS', 100_000, 0, tokensMax),
  };
}
