/**
 * The CORS policy of CORS_ORIGINS: an allowed origin's answers carry Access-Control-Allow-Origin (its
 * own origin, never `*`) and expose the rate-limit headers; a preflight from it is told the path's
 * methods, the request headers the API reads and how long to keep the answer. Every answer carries
 * `Vary: Origin`, since what it holds depends on the Origin header (a shared cache must not mix them). An
 * origin not listed gets no Access-Control-* header at all, so the browser refuses the page the answer.
 */
import type { CorsPolicy } from '../http/route-table.ts';

/** The request headers the API reads (credentials, bodies, idempotent writes, conditional reads). */
export const corsAllowedHeaders = 'X-API-Key, Authorization, Content-Type, Idempotency-Key, If-None-Match';
/** The answer headers a page may read beyond the safelisted ones. */
export const corsExposedHeaders = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag';

const varyOnly: Readonly<Record<string, string>> = Object.freeze({ Vary: 'Origin' });

/** The policy for `origins`, or null (no CORS headers) when the list is empty. */
export function corsPolicy(origins: readonly string[], maxAgeS: number): CorsPolicy | null {
  if (origins.length === 0) return null;
  // Made once per origin: an answer only looks its headers up.
  const answers = new Map<string, Readonly<Record<string, string>>>(
    origins.map((origin) => [origin, Object.freeze({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': corsExposedHeaders, Vary: 'Origin' })]),
  );
  return {
    answerHeaders: (origin) => answers.get(origin) ?? varyOnly,
    preflightHeaders: (origin, methods) => {
      if (!answers.has(origin)) return null;
      return {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
        'Access-Control-Allow-Headers': corsAllowedHeaders,
        'Access-Control-Max-Age': String(maxAgeS),
        Vary: 'Origin',
      };
    },
  };
}
