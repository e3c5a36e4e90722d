/** The movers tournament's settings, read from the environment when the module is made (a bad value stops the start). */
import { integer, type SettingsEnv } from '../config.ts';
import { roundMsMax, roundMsMin } from '../../engine/domains/movers/commands.ts';

export interface MoversSettings {
  /** MOVERS_ROUND_MS: the length of a round; journaled by a ConfigureMovers at start when it changes. */
  readonly roundMs: number;
}

export const defaultRoundMs = 86_400_000;

export function moversSettings(env: SettingsEnv): MoversSettings {
  return { roundMs: integer(env, 'MOVERS_ROUND_MS', defaultRoundMs, roundMsMin, roundMsMax) };
}
