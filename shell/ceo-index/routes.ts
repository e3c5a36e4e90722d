/**
 * The CEO AI expertise index's routes (no auth; general rate limit per address):
 *
 *   GET  /api/v1/ceo-ai-leaderboard                  published rows ranked (sector, limit)
 *   GET  /api/v1/ceo-ai-leaderboard/export.json      every published row; strong ETag, If-None-Match -> 304
 *   GET  /api/v1/ceo-ai-leaderboard/methodology      rubric, anchors, weights, penalty rules, invariants (data)
 *   GET  /api/v1/ceo-ai-leaderboard/profile/{slug}   one published row; 404 unknown
 *   POST /api/v1/ceo-ai-leaderboard/score?wait=N     {url}: 200 result within wait seconds, else 202 pending
 *   GET  /api/v1/ceo-ai-leaderboard/score/status     ?url=: 200 result, 202 pending, 422/502 failed, 503 busy
 *   GET  /api/v1/ceo-ai-leaderboard/score/stream     ?url=: SSE progress then result (starts a scoring if none)
 *
 * The board is the dataset's (board.ts); a scoring's result answers its caller and is cached for its URL,
 * but never joins the board (a page about a person is not reviewed evidence).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { ShellContext } from '../context.ts';
import { Quota, quotaHeaders, type QuotaFigures } from '../auth/quota.ts';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Reply, type RequestContext, type Route, type SseEvent } from '../http/route-table.ts';
import { etagMatches, type Board, type PersonRow } from './board.ts';
import type { CeoDataset } from './dataset.ts';
import { currentRubricVersion, dimensionKeys, dimensionLabels, dimensionPointsMax, penaltyKeys, penaltyPointsMax, publishConfidenceMin, rubrics, tiers } from './formulas.ts';
import { normaliseUrl, type Job, type ScoringQueue } from './queue.ts';
import { anchors, evidenceMax, evidencePerDimensionMax } from './rubric.ts';
import { modelAdjustMax } from './scorer.ts';
import { waitSMax, type CeoIndexSettings } from './settings.ts';

const tags = ['CEO AI expertise index'];
const base = '/api/v1/ceo-ai-leaderboard';
export const limitMin = 10;
export const limitMax = 100;
export const limitDefault = 50;
const urlCharsMax = 2048;

// --- response schemas --------------------------------------------------------------------------------

const nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);
const points = (max: number) => Type.Integer({ minimum: 0, maximum: max });
const dimensionsSchema = Type.Object(Object.fromEntries(dimensionKeys.map((key) => [key, points(dimensionPointsMax)])), { description: 'the nine dimensions, 0..20 each' });
const penaltiesSchema = Type.Object(Object.fromEntries(penaltyKeys.map((key) => [key, points(penaltyPointsMax)])));
const evidenceSchema = Type.Object({ claim: Type.String(), source_url: Type.String(), verified: Type.Boolean(), verified_at: nullable(Type.String()) });
export const personSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  title: Type.String(),
  company: Type.String(),
  sector: Type.Union([Type.Literal('crypto'), Type.Literal('general')]),
  rank: nullable(Type.Integer({ minimum: 1, description: 'place on the whole board; null for a scoring result (not on the board)' })),
  rubric_version: Type.Integer({ minimum: 2, maximum: currentRubricVersion }),
  dimensions: dimensionsSchema,
  dimension_labels: Type.Object(Object.fromEntries(dimensionKeys.map((key) => [key, Type.String()]))),
  weighted_score: points(100),
  penalties: penaltiesSchema,
  penalty_evidence: Type.Array(Type.Object({ penalty: Type.String(), claim: Type.String(), source_url: nullable(Type.String()) })),
  penalties_dropped: Type.Array(Type.Object({ penalty: Type.String(), points: Type.Integer(), reason: Type.String() }), { description: 'stated penalties that do not count: no cited source' }),
  score: points(100),
  tier: Type.String(),
  tier_label: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  rationale: Type.String(),
  evidence: Type.Array(evidenceSchema),
  metadata: Type.Object({}, { additionalProperties: true }),
  passes: Type.Array(Type.String()),
  source: Type.Union([Type.Literal('sample'), Type.Literal('file'), Type.Literal('scored')]),
  profile_url: Type.String(),
  wikipedia_title: nullable(Type.String()),
  scored_at: Type.String(),
});
const boardHead = {
  index: Type.Literal('ceo_ai_expertise'),
  rubric_version: Type.Integer(),
  source: Type.Union([Type.Literal('sample'), Type.Literal('file')]),
  count: Type.Integer(),
};
const leaderboardResponse = Type.Object({ ...boardHead, sector: Type.String(), limit: Type.Integer(), total: Type.Integer(), people: Type.Array(personSchema) });
const exportResponse = Type.Object({ ...boardHead, publish_confidence_min: Type.Number(), unpublished_count: Type.Integer(), people: Type.Array(personSchema) });
const methodologyResponse = Type.Object({}, { additionalProperties: true, description: 'rubric, anchors, weights, penalty rules, tiers, invariants, scoring rules and limits' });
const pendingResponse = Type.Object({
  status: Type.Literal('pending'),
  url: Type.String(),
  events: Type.Array(Type.String(), { description: 'progress so far: queued, fetching, extracting, identified, scoring' }),
  status_url: Type.String(),
  stream_url: Type.String(),
});
const scoreResponse = Type.Union([Type.Object({ status: Type.Literal('done'), url: Type.String(), cached: Type.Boolean(), result: personSchema }), pendingResponse]);

// --- helpers -----------------------------------------------------------------------------------------

function limitOf(text: string | undefined): number {
  if (text === undefined) return limitDefault;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < limitMin || value > limitMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.limit: must be ${limitMin} to ${limitMax}, got ${text}`);
  return value;
}

function waitOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0 || value > waitSMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.wait: must be 0 to ${waitSMax} seconds, got ${text}`);
  return value;
}

function pending(url: string, job: Job): { status: 'pending'; url: string; events: string[]; status_url: string; stream_url: string } {
  const query = `url=${encodeURIComponent(url)}`;
  return { status: 'pending', url, events: job.events.map((event) => event.event), status_url: `${base}/score/status?${query}`, stream_url: `${base}/score/stream?${query}` };
}

function done(url: string, row: PersonRow, cached: boolean) {
  return { status: 'done' as const, url, cached, result: row };
}

/** Resolves after `ms`, or at once for 0; the timer is cleared when the job ends first. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  if (ms <= 0) return Promise.race([promise, Promise.resolve(null)]);
  return new Promise<T | null>((resolve, reject) => {
    const timer = setTimeout(() => resolve(null), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export interface CeoRoutesOptions {
  readonly context: ShellContext;
  readonly dataset: CeoDataset;
  readonly board: Board;
  readonly queue: ScoringQueue;
  readonly settings: CeoIndexSettings;
  /** Whether the model provider is configured (the methodology says so). */
  readonly modelConfigured: boolean;
}

/** The methodology as data: everything a reader needs to recompute and judge a row. */
export function methodologyOf(options: Pick<CeoRoutesOptions, 'dataset' | 'board' | 'settings' | 'modelConfigured'>): Record<string, unknown> {
  const { dataset, board, settings } = options;
  return {
    index: 'ceo_ai_expertise',
    rubric_version: currentRubricVersion,
    source: dataset.source,
    data: dataset.source === 'sample' ? 'SAMPLE dataset of fictional people: no row describes a real person; evidence addresses are on sample.invalid and never resolve' : `dataset file ${dataset.origin}`,
    published: board.rows.length,
    unpublished: board.unpublishedCount,
    dimensions: dimensionKeys.map((key) => ({
      key,
      label: dimensionLabels[key],
      group: rubrics[4].find((part) => part.dimensions.includes(key))!.group,
      points_min: 0,
      points_max: dimensionPointsMax,
    })),
    rubrics: Object.fromEntries(
      Object.entries(rubrics).map(([version, parts]) => [
        version,
        {
          parts: parts.map((part) => ({ group: part.group, weight: part.weight, dimensions: part.dimensions, denominator: dimensionPointsMax * part.dimensions.length })),
          formula: `weighted_score = round_half_up(${parts.map((part) => `${part.weight} * (${part.dimensions.join(' + ')}) / ${dimensionPointsMax * part.dimensions.length}`).join(' + ')})`,
        },
      ]),
    ),
    rounding: 'half up, in exact integer arithmetic: the parts are brought to one common denominator and floor((2n + d) / 2d) is taken',
    score: 'score = max(0, weighted_score - bought_popularity - capital_without_competence)',
    penalties: {
      keys: penaltyKeys,
      points_min: 0,
      points_max: penaltyPointsMax,
      rule: 'a stated penalty counts only when penalty_evidence has an entry for it with a cited source_url (an http(s) URL); otherwise it counts 0 and is listed in penalties_dropped with reason no_cited_source',
      scoring: 'a scoring of a profile page never assigns penalties: a page about a person is not a cited source about them',
    },
    tiers: tiers.map((tier) => ({ tier: tier.tier, label: tier.label, min_score: tier.minScore })),
    ranking: 'score descending, then name ascending (code-point order); rank 1..n over the whole board; a sector list keeps the board rank',
    publish_confidence_min: publishConfidenceMin,
    invariants: [
      'every dimension is an integer 0..20 and every penalty an integer 0..10',
      'weighted_score is recomputed from dimensions by the formula of the row\'s rubric_version (2, 3 or 4)',
      'score = max(0, weighted_score - bought_popularity - capital_without_competence) with the penalties as served',
      'every served penalty above 0 has a penalty_evidence entry with a source_url',
      'tier is the highest tier whose min_score the score reaches',
      'rows are ordered by score descending then name ascending, ranks 1..n without gaps',
      `every published row has confidence >= ${publishConfidenceMin}`,
      'source is sample or file on the board, scored for a scoring result',
    ],
    scoring: {
      steps: ['queued', 'fetching', 'extracting', 'identified', 'scoring', 'result | error'],
      identification:
        'a JSON-LD Person with name and an executive or founder jobTitle; else og:title, <title> or <h1> written as "Name - Role at Company" / "Name, Role" / "Name | Role"; else a sentence "Name is the Role of Company" or "Name, Role of Company". Role words: CEO, chief executive (officer), founder, co-founder, president, chair, managing director, CTO, chief technology officer, chief scientist, chief AI officer. No name and role: 422 NOT_IDENTIFIED',
      anchors,
      anchor_rule: 'each anchor phrase earns its points once per page, in the first sentence of the main text holding it (word boundaries; a trailing * matches any word ending); a dimension is the sum of its anchors, capped at 20',
      evidence: `the matched sentences, at most ${evidencePerDimensionMax} per dimension and ${evidenceMax} in all, with the page URL as source_url, verified true and verified_at the scoring time`,
      confidence:
        'hundredths: 20 for a name and role, +10 with a company, +10 when identified from JSON-LD or og:title, +4 per matched anchor up to +40, +10 when the main text has 1 500 characters or more; at most 0.95',
      sector: 'crypto when the main text names crypto terms (crypto, blockchain, bitcoin, ethereum, defi, web3, on-chain, stablecoin, tokenomics, validator) at least 3 times, else general',
      model: options.modelConfigured
        ? `the model provider refines each dimension by at most ${modelAdjustMax} points from the same evidence; metadata.scorer says embedded or model`
        : 'no model provider configured: the keyword rubric alone (metadata.scorer embedded), deterministic',
      source: 'scored',
      limits: {
        scorings_per_address_per_hour: settings.scoresPerHour,
        cache_seconds: Math.floor(settings.cacheMs / 1000),
        failure_cache_seconds: Math.floor(settings.failureMs / 1000),
        workers: settings.workersMax,
        queue_max: settings.queueMax,
        wait_default_seconds: settings.waitDefaultS,
        wait_max_seconds: waitSMax,
      },
    },
  };
}

export function ceoIndexRoutes(options: CeoRoutesOptions): Route[] {
  const { context, board, queue, settings } = options;
  const quota = new Quota(settings.scoresPerHour, 3_600_000, context.clock);
  const methodology = JSON.stringify(methodologyOf(options));
  const urlQuery = Type.Object({ url: Type.String({ minLength: 1, maxLength: urlCharsMax, description: 'the profile page (absolute http(s) URL)' }) }, { additionalProperties: false });

  /**
   * A URL's job: its cached result or failure when known, the job under way, or a new one (counted against
   * the caller's hourly quota; a full queue refuses before counting).
   */
  function jobFor(request: RequestContext, url: string): { row: PersonRow; figures: null } | { job: Job; figures: QuotaFigures | null } {
    const known = queue.lookup(url);
    if (known?.state === 'done') return { row: known.row, figures: null };
    if (known?.state === 'pending') return { job: known.job, figures: null };
    // A remembered failure (not identified, unreachable) is answered again rather than fetched again; a
    // remembered busy refusal is not a verdict on the URL, so it is retried.
    if (known?.state === 'failed' && known.error.code !== 'BUSY') throw known.error;
    if (queue.full()) throw queue.busy(url);
    const figures = quota.take(request.remoteAddress === '' ? 'unknown' : request.remoteAddress, 'scorings');
    return { job: queue.submit(url), figures };
  }

  const headersOf = (figures: QuotaFigures | null): Record<string, string> | undefined => (figures === null ? undefined : quotaHeaders(figures));

  return [
    declareRoute({
      method: 'GET',
      path: base,
      name: 'get_ceo_ai_leaderboard',
      tags,
      auth: 'none',
      rateLimit: 'general',
      query: Type.Object(
        {
          sector: Type.Optional(Type.Union([Type.Literal('crypto'), Type.Literal('general')])),
          limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `${limitMin} to ${limitMax}, default ${limitDefault}` })),
        },
        { additionalProperties: false },
      ),
      response: leaderboardResponse,
      summary: `Published CEOs ranked by score (then name), optionally one sector; limit ${limitMin} to ${limitMax} (default ${limitDefault}). Rows carry their board rank`,
      handler: (request): Reply => {
        const limit = limitOf(request.query.limit);
        const sector = request.query.sector;
        const rows = sector === undefined ? board.rows : board.rows.filter((row) => row.sector === sector);
        const people = rows.slice(0, limit);
        return { body: { index: 'ceo_ai_expertise', rubric_version: currentRubricVersion, source: board.source, sector: sector ?? 'all', limit, total: rows.length, count: people.length, people } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/export.json`,
      name: 'export_ceo_ai_leaderboard',
      tags,
      auth: 'none',
      rateLimit: 'general',
      response: exportResponse,
      summary: 'Every published row with dimensions, weighted_score, penalties, evidence and metadata, for re-verification (npm run verify:ceo). Strong ETag; If-None-Match answers 304',
      handler: (request): Reply => {
        const headers = { ETag: board.etag, 'Cache-Control': 'no-cache' };
        if (etagMatches(request.header('if-none-match'), board.etag)) return { status: 304, text: '', contentType: 'application/json', headers };
        return { json: board.exportJson, headers };
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/methodology`,
      name: 'get_ceo_ai_methodology',
      tags,
      auth: 'none',
      rateLimit: 'general',
      response: methodologyResponse,
      summary: 'The rubric as data: dimensions and groups, weights and formula of each rubric version, rounding, penalty rules, tiers, ranking, publish threshold, invariants, and the scoring rules (anchors, identification, confidence)',
      handler: (): Reply => ({ json: methodology }),
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/profile/{slug}`,
      name: 'get_ceo_ai_profile',
      tags,
      auth: 'none',
      rateLimit: 'general',
      errors: ['CEO_NOT_FOUND'],
      response: personSchema,
      summary: 'One published person by slug; 404 CEO_NOT_FOUND for an unknown or unpublished slug',
      handler: (request): Reply => {
        const row = board.bySlug.get(request.params['slug'] ?? '');
        if (row === undefined) throw new ApiError(404, 'CEO_NOT_FOUND', `no published person with slug ${request.params['slug'] ?? ''}`);
        return { body: row };
      },
    }),
    declareRoute({
      method: 'POST',
      path: `${base}/score`,
      name: 'score_ceo_ai_profile',
      tags,
      auth: 'none',
      rateLimit: 'general',
      errors: ['NOT_IDENTIFIED', 'URL_REFUSED', 'NOT_HTML', 'FETCH_FAILED', 'BUSY', 'RATE_LIMITED'],
      query: Type.Object({ wait: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: `seconds to wait for the result, 0 to ${waitSMax} (default ${settings.waitDefaultS})` })) }, { additionalProperties: false }),
      body: urlQuery,
      response: scoreResponse,
      summary:
        `Score a profile page: fetched, person identified (422 NOT_IDENTIFIED), nine dimensions by the keyword rubric. 200 with the result when done within wait seconds, else 202 pending. ` +
        `${settings.scoresPerHour} new scorings per address per hour (cache hits do not count); results cached per URL; 503 BUSY when the queue is full`,
      handler: async (request): Promise<Reply> => {
        const waitS = waitOf(request.query.wait, settings.waitDefaultS);
        const url = normaliseUrl(request.body.url);
        const found = jobFor(request, url);
        const headers = headersOf(found.figures);
        if ('row' in found) return { body: done(url, found.row, true), ...(headers === undefined ? {} : { headers }) };
        const outcome = found.job.outcome ?? (await within(found.job.done, waitS * 1000));
        if (outcome === null) return { status: 202, body: pending(url, found.job), ...(headers === undefined ? {} : { headers }) };
        if (!outcome.ok) throw outcome.error;
        return { body: done(url, outcome.row, false), ...(headers === undefined ? {} : { headers }) };
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/score/status`,
      name: 'get_ceo_ai_score_status',
      tags,
      auth: 'none',
      rateLimit: 'general',
      errors: ['NOT_IDENTIFIED', 'URL_REFUSED', 'NOT_HTML', 'FETCH_FAILED', 'BUSY', 'SCORE_NOT_FOUND'],
      query: urlQuery,
      response: scoreResponse,
      summary: 'A URL\'s scoring: 200 with the result, 202 pending, 422 NOT_IDENTIFIED (or another failure), 503 BUSY when its submission found the queue full; 404 SCORE_NOT_FOUND when never submitted',
      handler: (request): Reply => {
        const url = normaliseUrl(request.query.url);
        const known = queue.lookup(url);
        if (known === null) throw new ApiError(404, 'SCORE_NOT_FOUND', 'no scoring of this URL is known; POST it to score it');
        if (known.state === 'done') return { body: done(url, known.row, true) };
        if (known.state === 'pending') return { status: 202, body: pending(url, known.job) };
        throw known.error;
      },
    }),
    declareRoute({
      method: 'GET',
      path: `${base}/score/stream`,
      name: 'stream_ceo_ai_score',
      tags,
      contentType: 'text/event-stream',
      auth: 'none',
      rateLimit: 'general',
      errors: ['BUSY', 'RATE_LIMITED'],
      query: urlQuery,
      summary:
        'Server-sent events of a URL\'s scoring: queued, fetching, extracting, identified, scoring, then result (the person row) or error ({error:{code,message}}). ' +
        'Joins the scoring under way, answers a cached result at once, or starts a new one (counted like a POST)',
      handler: (request): Reply => {
        const url = normaliseUrl(request.query.url);
        const found = jobFor(request, url);
        const headers = headersOf(found.figures);
        const events: AsyncIterable<SseEvent> =
          'row' in found
            ? (async function* cached(): AsyncGenerator<SseEvent> {
                yield { event: 'result', data: found.row, id: '1' };
              })()
            : found.job.stream();
        return { events, ...(headers === undefined ? {} : { headers }) };
      },
    }),
  ];
}
