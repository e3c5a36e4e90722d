/**
 * One scoring of a profile page: fetch it through the guarded outbound fetch, extract its metadata and
 * main text, identify the person (or refuse 422 NOT_IDENTIFIED), score the nine dimensions by the rubric
 * (rubric.ts), and build a person row of the current rubric with `"source": "scored"`. The optional model
 * provider may then refine the dimension points, by at most `modelAdjustMax` each way per dimension and only
 * from the same evidence; the row says which answered (`metadata.scorer`: `embedded` or `model`) and the
 * scoring is deterministic without it. Each step reports progress: fetching, extracting, identified,
 * scoring (the queue reports `queued` before and the result or error after).
 *
 * A scoring never assigns penalties: a penalty needs a cited source about the person, which a profile page
 * about themselves is not; penalties are a reviewer's, in the dataset.
 */
import { OutboundError, OutboundHttpError, OutboundRefusedError, outboundFetch } from '../../engine/runtime/outbound/fetch.ts';
import { ApiError } from '../http/errors.ts';
import type { ChatProvider } from '../llm/provider.ts';
import { ProviderError } from '../llm/provider.ts';
import { rowOf, type PersonRow } from './board.ts';
import { identify, pageText, type Identity } from './extract.ts';
import { currentRubricVersion, dimensionKeys, dimensionPointsMax, type DimensionKey, type Dimensions } from './formulas.ts';
import { confidenceHundredths, evidenceOf, scoreSentences, sectorOf } from './rubric.ts';

/** Points the model may move one dimension away from the rubric's, each way. */
export const modelAdjustMax = 5;
/** Evidence sentences shown to the model at most. */
const modelEvidenceMax = 24;

export interface ScorerOptions {
  /** Deadline of the page fetch (resolution, redirects and body). */
  readonly fetchTimeoutMs: number;
  readonly fetchBytesMax: number;
  /** OUTBOUND_ALLOW_PRIVATE: tests serve their pages from 127.0.0.1. */
  readonly allowPrivate: boolean;
  readonly clock: () => number;
  readonly provider: ChatProvider | null;
}

export type Progress = (step: 'fetching' | 'extracting' | 'identified' | 'scoring', data: Record<string, unknown>) => void;

/** The slug of a scored person: their name in lower-case words joined by hyphens. */
export function slugOf(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'person'
  );
}

async function fetchPage(url: string, options: ScorerOptions, signal?: AbortSignal): Promise<{ url: string; html: string }> {
  try {
    const response = await outboundFetch(url, { timeoutMs: options.fetchTimeoutMs, bytesMax: options.fetchBytesMax, allowPrivate: options.allowPrivate, ...(signal === undefined ? {} : { signal }) });
    const type = String(response.headers['content-type'] ?? '');
    if (!/^(text\/html|application\/xhtml\+xml)\b/i.test(type)) throw new ApiError(422, 'NOT_HTML', `the page answered ${type === '' ? 'no content type' : type}, not HTML`);
    return { url: response.url, html: response.body.toString('utf8') };
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw new ApiError(422, 'URL_REFUSED', error.message);
    if (error instanceof OutboundHttpError) throw new ApiError(502, 'FETCH_FAILED', `the page answered HTTP ${error.status}`);
    // Timeouts, oversized pages and network failures: the page could not be read, which is the other side's doing.
    if (error instanceof OutboundError) throw new ApiError(502, 'FETCH_FAILED', error.message);
    throw error;
  }
}

/**
 * The model's refinement: it sees the identity, the rubric's points and the evidence sentences, and answers
 * `{"dimensions": {...}}`; each value is kept within `modelAdjustMax` of the rubric's and within 0..20.
 */
async function refine(provider: ChatProvider, identity: Identity, dimensions: Dimensions, sentences: readonly string[], signal?: AbortSignal): Promise<Dimensions> {
  const prompt = [
    `Person: ${identity.name}, ${identity.title}${identity.company === '' ? '' : ` of ${identity.company}`}.`,
    `Rubric points (0-${dimensionPointsMax} each): ${JSON.stringify(dimensions)}.`,
    'Evidence sentences from their profile page:',
    ...sentences.slice(0, modelEvidenceMax).map((sentence, index) => `${index + 1}. ${sentence}`),
    `Answer only JSON {"dimensions": {<the same nine keys>: integer}} adjusting each by at most ${modelAdjustMax} points, using only this evidence.`,
  ].join('\n');
  const answer = await provider.complete([{ role: 'system', content: 'You review evidence of AI expertise. Answer JSON only.' }, { role: 'user', content: prompt }], signal);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new ProviderError('model provider: the answer is not JSON');
  }
  const proposed = (parsed as { dimensions?: Record<string, unknown> } | null)?.dimensions;
  if (typeof proposed !== 'object' || proposed === null) throw new ProviderError('model provider: no dimensions in the answer');
  const refined = {} as Record<DimensionKey, number>;
  for (const key of dimensionKeys) {
    const value = proposed[key];
    const base = dimensions[key];
    refined[key] = typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.min(dimensionPointsMax, base + modelAdjustMax, Math.max(base - modelAdjustMax, Math.round(value)))) : base;
  }
  return refined;
}

/** Scores the page at `url`; throws ApiError (422 NOT_IDENTIFIED, URL_REFUSED, NOT_HTML; 502 FETCH_FAILED). */
export async function scorePage(url: string, options: ScorerOptions, progress: Progress, signal?: AbortSignal): Promise<PersonRow> {
  progress('fetching', { url });
  const page = await fetchPage(url, options, signal);
  progress('extracting', { url: page.url, bytes: Buffer.byteLength(page.html) });
  const text = pageText(page.html, page.url);
  const identity = identify(text);
  if (identity === null) throw new ApiError(422, 'NOT_IDENTIFIED', 'no person with a name and an executive or founder role was found in the page metadata or text');
  progress('identified', { name: identity.name, title: identity.title, company: identity.company, identified_by: identity.identifiedBy });
  progress('scoring', { sentences: text.sentences.length, rubric_version: currentRubricVersion });
  const rubric = scoreSentences(text.sentences);
  const scoredAt = new Date(options.clock()).toISOString();
  let dimensions = rubric.dimensions;
  let scorer: 'embedded' | 'model' = 'embedded';
  let modelError: string | null = null;
  if (options.provider !== null) {
    try {
      dimensions = await refine(options.provider, identity, rubric.dimensions, [...new Set(rubric.matches.map((match) => match.sentence))], signal);
      scorer = 'model';
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      modelError = error.message;
    }
  }
  const confidence = confidenceHundredths(identity, rubric.matches, text.text.length) / 100;
  const matched = [...new Set(rubric.matches.map((match) => match.dimension))];
  const row = rowOf(
    {
      slug: slugOf(identity.name),
      name: identity.name,
      title: identity.title,
      company: identity.company,
      sector: sectorOf(text.text),
      rubric_version: currentRubricVersion,
      dimensions,
      penalties: { bought_popularity: 0, capital_without_competence: 0 },
      penalty_evidence: [],
      confidence,
      rationale:
        rubric.matches.length === 0
          ? 'Identified on the page, but the page shows no evidence for any dimension of the rubric.'
          : `Evidence on the page for ${matched.length} of 9 dimensions (${matched.join(', ')}) from ${rubric.matches.length} anchor terms; scored by the keyword rubric${scorer === 'model' ? ', refined by the model provider' : ''}.`,
      evidence: evidenceOf(rubric.matches, page.url, scoredAt),
      metadata: {
        scorer,
        model_error: modelError,
        identified_by: identity.identifiedBy,
        page_title: text.pageTitle,
        text_chars: text.text.length,
        sentences: text.sentences.length,
        matched_anchors: rubric.matches.map((match) => ({ dimension: match.dimension, phrase: match.phrase, points: match.points })),
        rubric_dimensions: rubric.dimensions,
      },
      passes: ['fetch', 'extract', 'identify', 'rubric', ...(scorer === 'model' ? ['model'] : [])],
      profile_url: page.url,
      wikipedia_title: null,
      scored_at: scoredAt,
    },
    'scored',
    null,
  );
  return row;
}
