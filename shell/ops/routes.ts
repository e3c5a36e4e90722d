/**
 * The operations routes:
 *
 *   GET /health    alive: 200 {"status":"ok"} whenever the process answers
 *   GET /ready     200 when every readiness check passes, else 503 with the same body listing the checks
 *   GET /metrics   Prometheus text (METRICS_TOKEN as a bearer token when set)
 *
 * None needs an account or counts against a rate limit: load balancers and scrapers call them often, and a
 * probe refused for its rate would take a healthy server out of service.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import { sameText } from '../auth/authenticator.ts';
import type { ReadinessCheck } from './readiness.ts';

export const opsTag = 'Operations';
export const opsTagDescription = 'Probes and metrics for operators: liveness, readiness with its checks, and Prometheus metrics.';
/** What /metrics answers: Prometheus' text exposition format, version 0.0.4. */
export const metricsContentType = 'text/plain; version=0.0.4; charset=utf-8';

export interface OpsRoutesOptions {
  readonly checks: () => ReadinessCheck[];
  readonly metricsText: () => Promise<string>;
  /** Bearer token /metrics needs; '' leaves it open. */
  readonly metricsToken: string;
}

const healthSchema = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });
export const readinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    /** The names of the checks that failed (empty when ready). */
    failing: Type.Array(Type.String()),
    checks: Type.Array(Type.Object({ name: Type.String(), ok: Type.Boolean(), detail: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export function opsRoutes(options: OpsRoutesOptions): Route[] {
  const common = { method: 'GET', auth: 'none', rateLimit: 'none', tags: [opsTag] } as const;
  return [
    declareRoute({
      ...common,
      name: 'get_health',
      path: '/health',
      // The one refusal a probe path has: another method than GET (the route table's 405).
      errors: ['METHOD_NOT_ALLOWED'],
      summary: 'Liveness: answers {"status":"ok"} whenever the process serves requests',
      response: healthSchema,
      handler: () => ({ body: { status: 'ok' } }),
    }),
    declareRoute({
      ...common,
      name: 'get_readiness',
      path: '/ready',
      errors: ['METHOD_NOT_ALLOWED', 'NOT_READY'],
      summary:
        'Readiness: 200 when the journal takes commands, recovery is done, every AMM worker quotes and the read models are caught up; otherwise 503 NOT_READY, whose body also carries the checks and the failing ones',
      response: readinessSchema,
      handler: () => {
        const checks = options.checks();
        const failing = checks.filter((check) => !check.ok).map((check) => check.name);
        if (failing.length === 0) return { body: { status: 'ready', failing, checks } };
        // The error shape of every refusal, with the checks beside it for the operator.
        const error = { code: 'NOT_READY', message: `not ready: ${failing.join(', ')}` };
        return { status: 503, body: { error, status: 'not_ready', failing, checks } };
      },
    }),
    declareRoute({
      ...common,
      name: 'get_metrics',
      path: '/metrics',
      contentType: metricsContentType,
      errors: ['UNAUTHENTICATED'],
      summary: 'Prometheus metrics (text exposition format); needs Authorization: Bearer <METRICS_TOKEN> when that setting is set',
      handler: async (request) => {
        if (options.metricsToken !== '' && !sameText(request.header('authorization'), `Bearer ${options.metricsToken}`)) {
          throw new ApiError(401, 'UNAUTHENTICATED', 'metrics need Authorization: Bearer <METRICS_TOKEN>');
        }
        return { text: await options.metricsText(), contentType: metricsContentType };
      },
    }),
  ];
}
