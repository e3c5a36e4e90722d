/**
 * The AI analysis service behind the two routes: the embedded analyzers (prompt-analyzer.ts,
 * url-analyzer.ts), the page fetch through the guarded outbound fetch with its refusals mapped to API
 * errors, a bound on URL analyses in flight, and the optional model provider.
 *
 * Fetch errors become (README, "AI analysis"): a URL the fetch rules refuse (bad scheme, credentials, a
 * private or otherwise non-public address, also after a redirect) 422 URL_REFUSED naming the rule; a
 * malformed or over-long URL 400 INVALID_URL; too many redirects 502 UPSTREAM_REDIRECTS; a page over the
 * size cap 502 UPSTREAM_TOO_LARGE; the deadline 504 UPSTREAM_TIMEOUT; a non-2xx answer 502 UPSTREAM_STATUS;
 * no connection 502 UPSTREAM_UNREACHABLE; a media type other than HTML, text or JSON 422
 * UNSUPPORTED_CONTENT_TYPE.
 *
 * With a provider (LLM_* settings), the model is shown the page's headline, summary and first sentences
 * with the embedded analysis and may answer, per asset, a rewritten analysis text and a relevance score,
 * which is clamped into the band the embedded rule chose (a model may refine, never re-band). For a
 * prompt it may rewrite the explanations and move a probability by at most `modelProbabilityShift`. Any
 * provider failure, or an answer that is not the JSON asked for, leaves the embedded answer; responses say
 * `"analyzer": "model"` only when the model's answer was used.
 */
import {
  OutboundError,
  OutboundHttpError,
  OutboundNetworkError,
  OutboundRefusedError,
  OutboundTimeoutError,
  OutboundTooLargeError,
  outboundFetch,
  type OutboundOptions,
} from '../../engine/runtime/outbound/fetch.ts';
import { ApiError } from '../http/errors.ts';
import { ProviderError, type ChatProvider } from '../llm/provider.ts';
import type { AssetProfile } from './profiles.ts';
import { PromptAnalyzer, promptProbabilityMin, type PromptAsset } from './prompt-analyzer.ts';
import { UrlAnalyzer, relevanceBands, type UrlAnalysis } from './url-analyzer.ts';
import { pageKindOf, readPage } from './page.ts';

/** Assets one URL analysis may name at most. */
export const urlAssetsMax = 20;
/** Longest URL accepted (the outbound fetch's own limit). */
export const urlCharsMax = 2048;
/** How far a model may move a prompt probability. */
export const modelProbabilityShift = 0.1;
/** Characters of page text shown to a model at most. */
const modelPageCharsMax = 6_000;
/** Characters of one analysis or explanation a model may write. */
const modelTextCharsMax = 1_000;

export type AnalyzerName = 'embedded' | 'model';

export interface AiAnalysisOptions {
  readonly profiles: readonly AssetProfile[];
  readonly provider: ChatProvider | null;
  readonly fetchTimeoutMs: number;
  readonly pageBytesMax: number;
  readonly concurrentMax: number;
  readonly allowPrivate: boolean;
  /** Extra outbound options (tests: a resolver, allowed addresses); production leaves it unset. */
  readonly outbound?: Partial<Pick<OutboundOptions, 'allowAddress' | 'resolve'>>;
}

/** The API error a failed page fetch is answered with. */
export function fetchFailure(error: unknown): ApiError {
  if (error instanceof OutboundRefusedError) {
    switch (error.reason) {
      case 'invalid_url':
      case 'url_too_long':
        return new ApiError(400, 'INVALID_URL', `body.url: ${error.message}`);
      case 'too_many_redirects':
      case 'redirect_without_location':
        return new ApiError(502, 'UPSTREAM_REDIRECTS', error.message);
      default:
        return new ApiError(422, 'URL_REFUSED', `body.url: ${error.message}`);
    }
  }
  if (error instanceof OutboundTooLargeError) return new ApiError(502, 'UPSTREAM_TOO_LARGE', error.message);
  if (error instanceof OutboundTimeoutError) return new ApiError(504, 'UPSTREAM_TIMEOUT', error.message);
  if (error instanceof OutboundHttpError) return new ApiError(502, 'UPSTREAM_STATUS', error.message);
  if (error instanceof OutboundNetworkError || error instanceof OutboundError) return new ApiError(502, 'UPSTREAM_UNREACHABLE', error.message);
  throw error;
}

/** The first JSON object in a model's answer (models like to wrap JSON in prose or code fences). */
function jsonObject(text: string): Record<string, unknown> {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new ProviderError('model provider: the answer holds no JSON object');
  try {
    const value = JSON.parse(text.slice(start, end + 1)) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new ProviderError('model provider: the answer is not valid JSON');
  }
}

/** The model's entries of `assets`, by symbol (anything malformed is left out). */
function modelEntries(answer: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const entries = new Map<string, Record<string, unknown>>();
  const assets = answer['assets'];
  if (!Array.isArray(assets)) throw new ProviderError('model provider: the answer has no assets array');
  for (const entry of assets) {
    if (entry !== null && typeof entry === 'object' && typeof (entry as Record<string, unknown>)['symbol'] === 'string') {
      entries.set(String((entry as Record<string, unknown>)['symbol']).toUpperCase(), entry as Record<string, unknown>);
    }
  }
  return entries;
}

const modelText = (value: unknown, fallback: string): string => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, modelTextCharsMax) : fallback);
const clamp = (value: unknown, low: number, high: number, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(Math.min(high, Math.max(low, value)) * 1000) / 1000 : fallback;

export class AiAnalysis {
  readonly prompts: PromptAnalyzer;
  private readonly urls: UrlAnalyzer;
  private readonly profiles: ReadonlyMap<string, AssetProfile>;
  private inFlight = 0;

  constructor(private readonly options: AiAnalysisOptions) {
    this.prompts = new PromptAnalyzer(options.profiles);
    this.urls = new UrlAnalyzer(options.profiles);
    this.profiles = new Map(options.profiles.map((profile) => [profile.symbol, profile]));
  }

  /** The assets of a prompt, with the model's wording when a provider answers. */
  async analyzePrompt(prompt: string): Promise<{ assets: PromptAsset[]; analyzer: AnalyzerName }> {
    const assets = this.prompts.analyze(prompt);
    const provider = this.options.provider;
    if (provider === null || assets.length === 0) return { assets, analyzer: 'embedded' };
    try {
      const answer = await provider.complete([
        {
          role: 'system',
          content: `You refine an asset-relevance answer. Reply with JSON only: {"assets":[{"symbol":"...","probability":0.0,"explanation":"..."}]} for the same symbols. Keep each probability within ${modelProbabilityShift} of the given one; explain by the prompt's words.`,
        },
        { role: 'user', content: JSON.stringify({ prompt, assets }) },
      ]);
      const entries = modelEntries(jsonObject(answer));
      const refined = assets.map((asset) => {
        const entry = entries.get(asset.symbol);
        if (entry === undefined) return asset;
        const low = Math.max(promptProbabilityMin, asset.probability - modelProbabilityShift);
        const high = Math.min(1, asset.probability + modelProbabilityShift);
        return { symbol: asset.symbol, probability: clamp(entry['probability'], low, high, asset.probability), explanation: modelText(entry['explanation'], asset.explanation) };
      });
      refined.sort((a, b) => b.probability - a.probability || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
      return { assets: refined, analyzer: 'model' };
    } catch (error) {
      if (error instanceof ProviderError) return { assets, analyzer: 'embedded' };
      throw error;
    }
  }

  /** The profiles of the requested symbols (case-insensitive, first occurrence kept); 422 naming an unknown one. */
  profilesOf(symbols: readonly string[]): AssetProfile[] {
    const wanted = [...new Set(symbols.map((symbol) => symbol.trim().toUpperCase()))];
    if (wanted.length === 0) throw new ApiError(422, 'VALIDATION_FAILED', 'body.assets: name at least one asset');
    if (wanted.length > urlAssetsMax) throw new ApiError(422, 'TOO_MANY_ASSETS', `body.assets: at most ${urlAssetsMax} assets`);
    return wanted.map((symbol) => {
      const profile = this.profiles.get(symbol);
      if (profile === undefined) throw new ApiError(422, 'UNKNOWN_ASSET', `body.assets: unknown asset ${JSON.stringify(symbol)}`);
      return profile;
    });
  }

  /** Fetches `url` and analyses it for `symbols`. */
  async analyzeUrl(url: string, symbols: readonly string[]): Promise<UrlAnalysis & { analyzer: AnalyzerName }> {
    const requested = this.profilesOf(symbols);
    if (this.inFlight >= this.options.concurrentMax) throw new ApiError(503, 'BUSY', `at most ${this.options.concurrentMax} URL analyses at a time; retry shortly`);
    this.inFlight++;
    try {
      let response;
      try {
        response = await outboundFetch(url, {
          timeoutMs: this.options.fetchTimeoutMs,
          bytesMax: this.options.pageBytesMax,
          allowPrivate: this.options.allowPrivate,
          headers: { accept: 'text/html, application/xhtml+xml, text/plain;q=0.8, application/json;q=0.5' },
          ...this.options.outbound,
        });
      } catch (error) {
        throw fetchFailure(error);
      }
      const contentType = response.headers['content-type'];
      const kind = pageKindOf(contentType);
      if (kind === null) throw new ApiError(422, 'UNSUPPORTED_CONTENT_TYPE', `the page's content type is ${contentType ?? 'missing'}; HTML, text or JSON are read`);
      const page = readPage(kind, response.body.toString('utf8'));
      const embedded = this.urls.analyze(response.url, page, requested);
      const provider = this.options.provider;
      if (provider === null) return { ...embedded.analysis, analyzer: 'embedded' };
      try {
        const text = page.paragraphs.join('\n').slice(0, modelPageCharsMax);
        const answer = await provider.complete([
          {
            role: 'system',
            content:
              'You refine a market analysis of a web page for the listed assets. Reply with JSON only: {"assets":[{"symbol":"...","relevance_score":0.0,"analysis":"..."}]}. Keep each relevance_score within the band given for it; base the analysis on the page only.',
          },
          {
            role: 'user',
            content: JSON.stringify({
              headline: page.headline,
              page_text: text,
              assets: embedded.analysis.asset_analyses.map((analysis, index) => ({ ...analysis, band: relevanceBands[embedded.bands[index]!] })),
            }),
          },
        ]);
        const entries = modelEntries(jsonObject(answer));
        const assetAnalyses = embedded.analysis.asset_analyses.map((analysis, index) => {
          const entry = entries.get(analysis.symbol);
          if (entry === undefined) return analysis;
          const [low, high] = relevanceBands[embedded.bands[index]!];
          return { ...analysis, relevance_score: Math.round(clamp(entry['relevance_score'], low, high, analysis.relevance_score) * 100) / 100, analysis: modelText(entry['analysis'], analysis.analysis) };
        });
        return { ...embedded.analysis, asset_analyses: assetAnalyses, analyzer: 'model' };
      } catch (error) {
        if (error instanceof ProviderError) return { ...embedded.analysis, analyzer: 'embedded' };
        throw error;
      }
    } finally {
      this.inFlight--;
    }
  }
}
