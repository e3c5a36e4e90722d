/** The clone tools' settings, read from the environment when the module is made (a bad value stops the start). */
import { flag, integer, type SettingsEnv } from '../config.ts';

export interface CloneToolsSettings {
  /** CLONE_TOOLS_DATA_FILE: a JSON file of wallets and protocols (data.ts); empty serves the fictional sample. */
  readonly dataFile: string;
  /** CLONE_TOOLS_SOLANA_DOWN: 1 marks the Solana wallet source down (the board falls back to pool buy pressure). */
  readonly solanaDown: boolean;
  /** CLONE_TOOLS_SAMPLE_SEED: the seed of the sample dataset. */
  readonly sampleSeed: number;
}

export function cloneToolsSettings(env: SettingsEnv): CloneToolsSettings {
  return { dataFile: env['CLONE_TOOLS_DATA_FILE'] ?? '', solanaDown: flag(env, 'CLONE_TOOLS_SOLANA_DOWN'), sampleSeed: integer(env, 'CLONE_TOOLS_SAMPLE_SEED', 1, 0, 2 ** 31 - 1) };
}
