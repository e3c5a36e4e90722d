/**
 * The AI due-diligence routes (README "AI due diligence"):
 *
 *   GET  /api/v1/ai-due-diligence           ?website=&fresh=1: the domain's assessment (cached unless fresh)
 *   POST /api/v1/ai-due-diligence           {website, fresh?}: the same
 *   GET  /api/v1/ai-due-diligence/stream    ?website=&fresh=1: SSE, one `probe` event per probe, then `result` or `error`
 *   GET  /api/v1/ai-due-diligence/result    ?website=: the latest saved assessment; 404 when none
 *   GET  /api/v1/ai-due-diligence/history   ?domains=a.com,b.com: each domain's past assessments, newest first
 *
 * The first three need no credential (auth `optional`): without one they count against the client
 * address's hourly quota (DD_ANONYMOUS_PER_HOUR, 5), with an API key or a bearer session against the
 * user's (DD_KEYED_PER_HOUR, 120). Only new assessments count: a cached answer, or joining an assessment
 * of the same domain under way, does not. Over the quota: 429 RATE_LIMITED with Retry-After and the
 * X-RateLimit-* headers, which every answer of these routes carries with the quota's figures.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { ShellContext } from '../context.ts';
import { Quota, quotaHeaders, type QuotaFigures } from '../auth/quota.ts';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Reply, type RequestContext, type Route, type SseEvent } from '../http/route-table.ts';
import { parseWebsite, websiteCharsMax, type Assessor, type Run, type Website } from './assessor.ts';
import { probeNames, probeOutcomes } from './probes.ts';
import { classifications, dimensionKeys, dimensionPointsMax } from './rubric.ts';
import type { Assessment, AssessmentStore } from './store.ts';
import type { DueDiligenceSettings } from './settings.ts';

const tags = ['AI due diligence'];
export const base = '/api/v1/ai-due-diligence';
/** Domains one history request may name at most. */
export const historyDomainsMax = 10;
const hourMs = 3_600_000;

// --- schemas ---------------------------------------------------------------------------------------

const nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);
const literals = (values: readonly string[]): TSchema => Type.Union(values.map((value) => Type.Literal(value)));
const probeSchema = Type.Object({
  probe: literals(probeNames),
  label: Type.String(),
  url: Type.String(),
  outcome: literals(probeOutcomes),
  evidence: Type.Object({
    status: nullable(Type.Integer()),
    content_type: nullable(Type.String()),
    excerpt: nullable(Type.String()),
    fields: Type.Object({}, { additionalProperties: true, description: 'what the probe read: document fields, links, rules' }),
  }),
  duration_ms: Type.Integer({ minimum: 0 }),
});
const classificationSchema = literals(classifications.map((band) => band.classification));
const dimensionSchema = Type.Object({
  key: literals(dimensionKeys),
  label: Type.String(),
  score: Type.Integer({ minimum: 0, maximum: dimensionPointsMax }),
  max: Type.Integer(),
  points_uncapped: Type.Integer({ minimum: 0 }),
  findings: Type.Array(Type.Object({ rule: Type.String(), probe: literals(probeNames), finding: Type.String(), points: Type.Integer({ minimum: 1 }) })),
});
export const assessmentSchema = Type.Object({
  domain: Type.String(),
  website: Type.String({ description: 'the origin probed' }),
  assessed_at: Type.String(),
  rubric_version: Type.Integer(),
  score: Type.Integer({ minimum: 0, maximum: 40 }),
  max_score: Type.Literal(40),
  classification: classificationSchema,
  dimensions: Type.Array(dimensionSchema),
  probes: Type.Array(probeSchema),
  cached: Type.Boolean({ description: 'true when answered from the saved assessment without probing' }),
});
const historySchema = Type.Object({
  domains: Type.Array(
    Type.Object({
      domain: Type.String(),
      count: Type.Integer(),
      assessments: Type.Array(
        Type.Object({
          assessed_at: Type.String(),
          score: Type.Integer({ minimum: 0, maximum: 40 }),
          classification: classificationSchema,
          dimensions: Type.Object(Object.fromEntries(dimensionKeys.map((key) => [key, Type.Integer({ minimum: 0, maximum: dimensionPointsMax })]))),
        }),
      ),
    }),
  ),
});
const websiteField = Type.String({ minLength: 1, maxLength: websiteCharsMax, description: 'an http(s) URL or a bare domain (https assumed); only its origin is probed' });

// --- handlers --------------------------------------------------------------------------------------

export interface DueDiligenceRoutesOptions {
  readonly context: ShellContext;
  readonly settings: DueDiligenceSettings;
  readonly store: AssessmentStore;
  readonly assessor: Assessor;
}

type Found = { readonly cached: Assessment; readonly figures: QuotaFigures } | { readonly run: Run; readonly figures: QuotaFigures };

export function dueDiligenceRoutes(options: DueDiligenceRoutesOptions): Route[] {
  const { context, settings, store, assessor } = options;
  const anonymous = new Quota(settings.anonymousPerHour, hourMs, context.clock);
  const keyed = new Quota(settings.keyedPerHour, hourMs, context.clock);

  /** The caller's quota and subject: the user with a credential, else the client address. */
  const quotaOf = (request: RequestContext): { quota: Quota; subject: string } =>
    request.principal !== null ? { quota: keyed, subject: `user:${request.principal.userId}` } : { quota: anonymous, subject: request.remoteAddress === '' ? 'unknown' : request.remoteAddress };

  /** The saved assessment when fresh enough (and not `fresh`), the run under way, or a new run counted against the quota. */
  function find(request: RequestContext, websiteText: string, fresh: boolean): Found {
    const website: Website = parseWebsite(websiteText, settings.allowPrivate);
    const { quota, subject } = quotaOf(request);
    if (!fresh) {
      const saved = store.latest(website.domain);
      if (saved !== null && context.clock() - saved.atMs < settings.cacheMs) return { cached: saved.assessment, figures: quota.peek(subject) };
    }
    const running = assessor.running(website.domain);
    if (running !== null) return { run: running, figures: quota.peek(subject) };
    // A full assessor refuses before counting: the caller did not get an assessment.
    if (assessor.full()) throw assessor.busy();
    const figures = quota.take(subject, 'assessments');
    return { run: assessor.start(website), figures };
  }

  async function answer(request: RequestContext, websiteText: string, fresh: boolean): Promise<Reply> {
    const found = find(request, websiteText, fresh);
    const headers = quotaHeaders(found.figures);
    if ('cached' in found) return { body: { ...found.cached, cached: true }, headers };
    const outcome = await found.run.done;
    if (!outcome.ok) throw outcome.error;
    return { body: { ...outcome.assessment, cached: false }, headers };
  }

  const freshQuery = Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')], { description: '1 re-assesses even when a saved assessment is fresh' }));
  const errors = ['WEBSITE_NOT_PUBLIC', 'SITE_UNREACHABLE', 'BUSY', 'RATE_LIMITED'];
  const limits = `No credential needed: ${settings.anonymousPerHour} new assessments per address per hour anonymously, ${settings.keyedPerHour} per user with an API key or bearer; cached answers do not count`;

  return [
    declareRoute({
      method: 'GET',
      path: base,
      name: 'assess_ai_due_diligence',
      tags,
      auth: 'optional',
      rateLimit: 'general',
      errors,
      query: Type.Object({ website: websiteField, fresh: freshQuery }, { additionalProperties: false }),
      response: assessmentSchema,
      summary:
        `Assess a website's AI readiness from live probes (home page, llms.txt, agent card, AI plugin, OpenAPI, MCP initialize, robots.txt, SKILL.md, AI endpoints): ` +
        `0-10 on each of four dimensions, 0-40 in all, and its classification. The saved assessment is answered (cached: true) unless fresh=1. ${limits}`,
      handler: (request) => answer(request, request.query.website, request.query.fresh === '1'),
    }),
    declareRoute({
      method: 'POST',
      path: base,
      name: 'submit_ai_due_diligence',
      tags,
      auth: 'optional',
      rateLimit: 'general',
      errors,
      body: Type.Object({ website: websiteField, fresh: Type.Optional(Type.Boolean({ description: 'true re-assesses even when a saved assessment is fresh' })) }, { additionalProperties: false }),
      response: assessmentSchema,
      summary: `Assess a website's AI readiness (as GET /api/v1/ai-due-diligence, the website in the body). ${limits}`,
      handler: (request) => answer(request, request.body.website, request.body.fresh === true),
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/stream`,
      name: 'stream_ai_due_diligence',
      tags,
      contentType: 'text/event-stream',
      auth: 'optional',
      rateLimit: 'general',
      errors,
      query: Type.Object({ website: websiteField, fresh: freshQuery }, { additionalProperties: false }),
      summary:
        `Server-sent events of an assessment: one probe event per probe as it completes, then result (the assessment) or error ({error:{code,message}}). ` +
        `A saved assessment is replayed (its probes, then result with cached: true); a run under way is joined. Counts like GET unless cached. ${limits}`,
      handler: (request): Reply => {
        const found = find(request, request.query.website, request.query.fresh === '1');
        const headers = quotaHeaders(found.figures);
        if (!('cached' in found)) return { events: found.run.stream(), headers };
        const assessment = found.cached;
        const replay = (async function* replay(): AsyncGenerator<SseEvent> {
          let id = 0;
          for (const probe of assessment.probes) yield { event: 'probe', data: probe, id: String(++id) };
          yield { event: 'result', data: { ...assessment, cached: true }, id: String(++id) };
        })();
        return { events: replay, headers };
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/result`,
      name: 'get_ai_due_diligence_result',
      tags,
      auth: 'none',
      rateLimit: 'general',
      errors: ['ASSESSMENT_NOT_FOUND'],
      query: Type.Object({ website: websiteField }, { additionalProperties: false }),
      response: assessmentSchema,
      summary: 'The latest saved assessment of a website\'s domain, whatever its age (cached: true); 404 ASSESSMENT_NOT_FOUND when it was never assessed. Never probes',
      handler: (request): Reply => {
        const website = parseWebsite(request.query.website, true);
        const saved = store.latest(website.domain);
        if (saved === null) throw new ApiError(404, 'ASSESSMENT_NOT_FOUND', `${website.domain} has not been assessed; GET ${base}?website=${website.domain} assesses it`);
        return { body: { ...saved.assessment, cached: true } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/history`,
      name: 'get_ai_due_diligence_history',
      tags,
      auth: 'none',
      rateLimit: 'general',
      query: Type.Object({ domains: Type.String({ minLength: 1, maxLength: 4096, description: `comma-separated domains (or URLs), at most ${historyDomainsMax}` }) }, { additionalProperties: false }),
      response: historySchema,
      summary: `Past assessments of up to ${historyDomainsMax} domains (comma-separated), newest first, at most ${settings.historyPerDomain} each: time, score, classification and dimension scores. Never probes`,
      handler: (request): Reply => {
        const names = request.query.domains
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '');
        if (names.length === 0) throw new ApiError(422, 'VALIDATION_FAILED', 'query.domains: name at least one domain');
        if (names.length > historyDomainsMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.domains: at most ${historyDomainsMax} domains, got ${names.length}`);
        const domains = [...new Set(names.map((name) => parseWebsite(name, true, 'query.domains').domain))];
        return {
          body: {
            domains: domains.map((domain) => {
              const assessments = store.history(domain, settings.historyPerDomain);
              return { domain, count: assessments.length, assessments };
            }),
          },
        };
      },
    }),
  ];
}
