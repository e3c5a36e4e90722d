/**
 * The AI analysis' settings, read from the environment when the module is made (README's settings table):
 * - AI_ANALYSIS_FETCH_TIMEOUT_MS: deadline of one page fetch, redirects and body included (default 10 000).
 * - AI_ANALYSIS_PAGE_BYTES_MAX: largest page read, in bytes (default 2 MiB); a larger one is answered 502
 *   UPSTREAM_TOO_LARGE.
 * - AI_ANALYSIS_CONCURRENT_MAX: URL analyses in flight at most (default 4); one more is answered 503 BUSY.
 * - AI_ANALYSIS_PROFILES_FILE: the asset profiles (default fixtures/asset-profiles.json).
 * OUTBOUND_ALLOW_PRIVATE (the outbound fetch's, tests only) and the LLM_* provider settings apply as well.
 */
import { integer, type SettingsEnv } from '../config.ts';
import { defaultAssetProfilesPath } from './profiles.ts';

export interface AiAnalysisSettings {
  readonly fetchTimeoutMs: number;
  readonly pageBytesMax: number;
  readonly concurrentMax: number;
  readonly profilesPath: string;
}

export function aiAnalysisSettings(env: SettingsEnv): AiAnalysisSettings {
  return {
    fetchTimeoutMs: integer(env, 'AI_ANALYSIS_FETCH_TIMEOUT_MS', 10_000, 1_000, 60_000),
    pageBytesMax: integer(env, 'AI_ANALYSIS_PAGE_BYTES_MAX', 2 * 1024 * 1024, 1024, 16 * 1024 * 1024),
    concurrentMax: integer(env, 'AI_ANALYSIS_CONCURRENT_MAX', 4, 1, 64),
    profilesPath: env['AI_ANALYSIS_PROFILES_FILE'] || defaultAssetProfilesPath,
  };
}
