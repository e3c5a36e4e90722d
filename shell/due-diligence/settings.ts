/** The AI due-diligence assessor's settings, read from the environment when the module is made (a bad value stops the start). */
import { flag, integer, type SettingsEnv } from '../config.ts';
import { outboundBytesCeiling, outboundTimeoutMsMax } from '../../engine/runtime/outbound/fetch.ts';

export interface DueDiligenceSettings {
  /** DD_ANONYMOUS_PER_HOUR: new assessments one client address may start per hour without credentials. */
  readonly anonymousPerHour: number;
  /** DD_KEYED_PER_HOUR: new assessments one user may start per hour with an API key or a bearer session. */
  readonly keyedPerHour: number;
  /** DD_CACHE_MS: how long a domain's last assessment is answered without probing again (unless `fresh`). */
  readonly cacheMs: number;
  /** DD_HISTORY_PER_DOMAIN: past assessments kept per domain (the oldest are deleted past it). */
  readonly historyPerDomain: number;
  /** DD_STORED_MAX: assessments kept in all (the oldest are deleted past it). */
  readonly storedMax: number;
  /** DD_RUNNING_MAX: assessments that may run at once; another new one is answered 503 BUSY. */
  readonly runningMax: number;
  /** DD_PROBE_CONCURRENCY: probes of one assessment that run at once. */
  readonly probeConcurrency: number;
  /** DD_PROBE_TIMEOUT_MS and DD_PROBE_BYTES_MAX: each probe request's deadline and size cap. */
  readonly probeTimeoutMs: number;
  readonly probeBytesMax: number;
  /** DD_ASSESSMENT_TIMEOUT_MS: the deadline of a whole assessment; probes still running then end with `error`. */
  readonly assessmentTimeoutMs: number;
  /** OUTBOUND_ALLOW_PRIVATE (the shared setting): tests assess fixture sites and the platform on 127.0.0.1. */
  readonly allowPrivate: boolean;
}

export function dueDiligenceSettings(env: SettingsEnv): DueDiligenceSettings {
  return {
    anonymousPerHour: integer(env, 'DD_ANONYMOUS_PER_HOUR', 5, 1, 100_000),
    keyedPerHour: integer(env, 'DD_KEYED_PER_HOUR', 120, 1, 100_000),
    cacheMs: integer(env, 'DD_CACHE_MS', 86_400_000, 0, 30 * 86_400_000),
    historyPerDomain: integer(env, 'DD_HISTORY_PER_DOMAIN', 20, 1, 1_000),
    storedMax: integer(env, 'DD_STORED_MAX', 100_000, 100, 10_000_000),
    runningMax: integer(env, 'DD_RUNNING_MAX', 8, 1, 256),
    probeConcurrency: integer(env, 'DD_PROBE_CONCURRENCY', 4, 1, 16),
    probeTimeoutMs: integer(env, 'DD_PROBE_TIMEOUT_MS', 8_000, 100, outboundTimeoutMsMax),
    probeBytesMax: integer(env, 'DD_PROBE_BYTES_MAX', 2 * 1024 * 1024, 1024, outboundBytesCeiling),
    assessmentTimeoutMs: integer(env, 'DD_ASSESSMENT_TIMEOUT_MS', 30_000, 1_000, 300_000),
    allowPrivate: flag(env, 'OUTBOUND_ALLOW_PRIVATE'),
  };
}
