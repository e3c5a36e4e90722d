/**
 * The vaults' settings, read from the environment when the module is made (README, settings table).
 */
import { integer, type SettingsEnv } from '../config.ts';
import { strategyMsMax, strategyMsMin } from '../../engine/domains/vaults/commands.ts';

export interface VaultSettings {
  /** How often the strategies run, in journaled time (journaled by ConfigureVaults when it changes). */
  readonly strategyMs: number;
  /** How often /ws/vault/nav sends a heartbeat. */
  readonly heartbeatMs: number;
}

export function vaultSettings(env: SettingsEnv): VaultSettings {
  return {
    strategyMs: integer(env, 'VAULT_STRATEGY_MS', 60_000, strategyMsMin, strategyMsMax),
    heartbeatMs: integer(env, 'VAULT_NAV_HEARTBEAT_MS', 15_000, 1_000, 3_600_000),
  };
}
