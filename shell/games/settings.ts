/**
 * The games' settings, read from the environment when the module is made (README's settings table):
 * the fixture path, the reward account's funding at start, the duel fee and how long a challenge waits.
 */
import { integer } from '../config.ts';
import type { SettingsEnv } from '../config.ts';
import { Result } from '../../engine/core/results.ts';
import { amountToAtoms, type Asset } from '../../engine/core/units.ts';
import { duelAcceptMsMax, duelFeeBpsMax } from '../../engine/domains/games/commands.ts';
import { defaultGamesPath } from './fixture.ts';

export interface GamesSettings {
  readonly fixturePath: string;
  /** The reward account is topped up to this at start by a journaled Deposit (0: never funded). */
  readonly rewardFundAtoms: number;
  readonly duelFeeBps: number;
  readonly duelAcceptMs: number;
}

export function gamesFixturePath(env: SettingsEnv): string {
  const path = env['GAMES_FIXTURE'];
  return path === undefined || path === '' ? defaultGamesPath : path;
}

export function loadGamesSettings(env: SettingsEnv, asset: Asset): GamesSettings {
  const fund = env['GAMES_REWARD_FUND'] ?? '1000';
  const atoms = amountToAtoms(fund, asset);
  if (fund.trim() !== '0' && atoms.code !== Result.ok) throw new Error(`GAMES_REWARD_FUND must be an amount of ${asset.symbol} with at most ${asset.decimals} decimals`);
  return {
    fixturePath: gamesFixturePath(env),
    rewardFundAtoms: fund.trim() === '0' ? 0 : atoms.value,
    duelFeeBps: integer(env, 'GAMES_DUEL_FEE_BPS', 200, 0, duelFeeBpsMax),
    duelAcceptMs: integer(env, 'GAMES_DUEL_ACCEPT_HOURS', 24, 1, duelAcceptMsMax / 3_600_000) * 3_600_000,
  };
}
