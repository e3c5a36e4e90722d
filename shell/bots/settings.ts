/**
 * The bots module's settings (README "Settings"), read from the server's environment when the module is
 * made: BOTS_STRATEGY_MS (the strategy period, journaled by ConfigureBots), BOTS_WALLET_FAULT (the next N
 * wallet generations fail: a fault switch for tests and drills), BOTS_BACKTEST_QUEUE_MAX and
 * BOTS_BACKTEST_RUNS_PER_USER (the backtest queue's bounds), BOTS_BACKTEST_PAUSED (1: the queue takes runs
 * but starts none, so they wait queued and count against the bounds until a start without it: a switch
 * for drills and for tests of the bounds that must not race the worker).
 */
import { flag, integer, type SettingsEnv } from '../config.ts';
import { strategyMsMax } from '../../engine/domains/bots/commands.ts';

export interface BotsSettings {
  readonly strategyMs: number;
  readonly walletFault: number;
  readonly backtestQueueMax: number;
  readonly backtestRunsPerUser: number;
  readonly backtestPaused: boolean;
}

export function botsSettings(env: SettingsEnv): BotsSettings {
  const strategyMs = integer(env, 'BOTS_STRATEGY_MS', 60_000, 0, strategyMsMax);
  if (strategyMs !== 0 && strategyMs < 1_000) throw new Error('BOTS_STRATEGY_MS must be 0 (stopped) or 1000 to 86400000');
  return {
    strategyMs,
    walletFault: integer(env, 'BOTS_WALLET_FAULT', 0, 0, 1_000_000),
    backtestQueueMax: integer(env, 'BOTS_BACKTEST_QUEUE_MAX', 32, 1, 10_000),
    backtestRunsPerUser: integer(env, 'BOTS_BACKTEST_RUNS_PER_USER', 3, 1, 1_000),
    backtestPaused: flag(env, 'BOTS_BACKTEST_PAUSED'),
  };
}
