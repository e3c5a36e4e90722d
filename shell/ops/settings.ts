/**
 * The operations module's settings, read from the environment when the module is made (README's settings
 * table):
 * - METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise);
 *   when empty, /metrics is open and must be kept off the public network (bind HOST to a private address
 *   or block the path at the proxy).
 * - CORS_ORIGINS: origins browsers may call the API from, comma-separated (`https://app.example.com`);
 *   empty sends no CORS headers at all.
 * - CORS_MAX_AGE_S: how long a browser may keep a preflight's answer (default 600 s).
 * - READY_READ_MODEL_LAG_MAX: commands the read models may be behind the journal for /ready (default 10 000).
 */
import { integer, type SettingsEnv } from '../config.ts';

/** Origins CORS_ORIGINS may list at most (a named limit, like every count). */
export const corsOriginsMax = 64;

export interface OpsSettings {
  readonly metricsToken: string;
  readonly corsOrigins: readonly string[];
  readonly corsMaxAgeS: number;
  readonly readyReadModelLagMax: number;
}

/** CORS_ORIGINS as a list of exact origins (scheme, host and port, nothing else); throws naming a bad one. */
export function parseCorsOrigins(text: string): string[] {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  if (origins.length > corsOriginsMax) throw new Error(`CORS_ORIGINS lists more than ${corsOriginsMax} origins`);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    // A browser's Origin header is the serialized origin, so only that form can ever match.
    if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://app.example.com (scheme and host, lower case, no path)`);
    }
  }
  return origins;
}

export function opsSettings(env: SettingsEnv): OpsSettings {
  return {
    metricsToken: env['METRICS_TOKEN'] ?? '',
    corsOrigins: parseCorsOrigins(env['CORS_ORIGINS'] ?? ''),
    corsMaxAgeS: integer(env, 'CORS_MAX_AGE_S', 600, 0, 86_400),
    readyReadModelLagMax: integer(env, 'READY_READ_MODEL_LAG_MAX', 10_000, 0, 1_000_000),
  };
}
