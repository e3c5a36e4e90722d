/** The CEO index's settings, read from the environment when the module is made (a bad value stops the start). */
import { flag, integer, type SettingsEnv } from '../config.ts';
import { outboundBytesCeiling, outboundTimeoutMsMax } from '../../engine/runtime/outbound/fetch.ts';

export interface CeoIndexSettings {
  /** CEO_INDEX_DATA_FILE: a JSON dataset of the sample's shape (dataset.ts); empty serves the fictional sample. */
  readonly dataFile: string;
  /** CEO_INDEX_SCORE_WORKERS: scorings that run at once. */
  readonly workersMax: number;
  /** CEO_INDEX_SCORE_QUEUE_MAX: scorings that may wait for a worker; past it 503 BUSY. */
  readonly queueMax: number;
  /** CEO_INDEX_SCORES_PER_HOUR: new scorings one client address may start per hour (cache hits do not count). */
  readonly scoresPerHour: number;
  /** CEO_INDEX_CACHE_MS: how long a scoring's result is served for its URL. */
  readonly cacheMs: number;
  /** CEO_INDEX_FAILURE_CACHE_MS: how long a failed scoring (not identified, unreachable) is remembered. */
  readonly failureMs: number;
  /** CEO_INDEX_CACHE_MAX: URLs whose results (and, apart, failures) are kept at most. */
  readonly cacheMax: number;
  /** CEO_INDEX_FETCH_TIMEOUT_MS and CEO_INDEX_FETCH_BYTES_MAX: the profile page fetch's deadline and size cap. */
  readonly fetchTimeoutMs: number;
  readonly fetchBytesMax: number;
  /** CEO_INDEX_WAIT_DEFAULT_S: the POST's `wait` when the query gives none. */
  readonly waitDefaultS: number;
  /** OUTBOUND_ALLOW_PRIVATE (the shared setting): tests fetch fixture pages from 127.0.0.1. */
  readonly allowPrivate: boolean;
}

/** The longest `wait` a POST may ask for, in seconds. */
export const waitSMax = 60;

export function ceoIndexSettings(env: SettingsEnv): CeoIndexSettings {
  return {
    dataFile: env['CEO_INDEX_DATA_FILE'] ?? '',
    workersMax: integer(env, 'CEO_INDEX_SCORE_WORKERS', 2, 1, 64),
    queueMax: integer(env, 'CEO_INDEX_SCORE_QUEUE_MAX', 16, 0, 10_000),
    scoresPerHour: integer(env, 'CEO_INDEX_SCORES_PER_HOUR', 3, 1, 100_000),
    cacheMs: integer(env, 'CEO_INDEX_CACHE_MS', 7 * 86_400_000, 1_000, 90 * 86_400_000),
    failureMs: integer(env, 'CEO_INDEX_FAILURE_CACHE_MS', 600_000, 0, 86_400_000),
    cacheMax: integer(env, 'CEO_INDEX_CACHE_MAX', 10_000, 1, 1_000_000),
    fetchTimeoutMs: integer(env, 'CEO_INDEX_FETCH_TIMEOUT_MS', 15_000, 100, outboundTimeoutMsMax),
    fetchBytesMax: integer(env, 'CEO_INDEX_FETCH_BYTES_MAX', 2 * 1024 * 1024, 1024, outboundBytesCeiling),
    waitDefaultS: integer(env, 'CEO_INDEX_WAIT_DEFAULT_S', 0, 0, waitSMax),
    allowPrivate: flag(env, 'OUTBOUND_ALLOW_PRIVATE'),
  };
}
