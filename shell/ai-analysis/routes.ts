/**
 * The AI analysis routes of the API specification:
 *
 *   POST /api/v1/ai_trading_agent/prompt-assets        {prompt, user_id} -> assets[] {symbol, probability, explanation}
 *   POST /api/v1/ai_trading_agent/analyze-url-assets   {url, assets[]}   -> the URL analysis
 *
 * Both need an API key with the read permission; user_id must be the caller's own (403 USER_MISMATCH).
 * Every answer says which analyzer answered ("embedded" or "model").
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import { promptCharsMax, promptAssetsMax } from './prompt-analyzer.ts';
import { contentTypes, relationships } from './url-analyzer.ts';
import { urlAssetsMax, urlCharsMax, type AiAnalysis } from './analyzer.ts';

// The API specification lists both routes in its "Prediction markets, pricing, trading" table.
const tags = ['Prediction markets, pricing, trading'];
const analyzerSchema = Type.Union([Type.Literal('embedded'), Type.Literal('model')]);
const directionSchema = Type.Union([Type.Literal('positive'), Type.Literal('negative'), Type.Literal('neutral')]);
const unit = Type.Number({ minimum: 0, maximum: 1 });

const promptResponse = Type.Object(
  {
    assets: Type.Array(Type.Object({ symbol: Type.String(), probability: unit, explanation: Type.String() }, { additionalProperties: false }), { maxItems: promptAssetsMax }),
    analyzer: analyzerSchema,
  },
  { additionalProperties: false },
);

const urlResponse = Type.Object(
  {
    headline: Type.String(),
    url_summary: Type.String(),
    content_type: Type.Union(contentTypes.map((value) => Type.Literal(value))),
    overall_market_impact: directionSchema,
    asset_analyses: Type.Array(
      Type.Object(
        {
          symbol: Type.String(),
          name: Type.String(),
          relevance_score: unit,
          relationship: Type.Union(relationships.map((value) => Type.Literal(value))),
          impact_direction: directionSchema,
          confidence: unit,
          analysis: Type.String(),
          key_points: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
      { maxItems: urlAssetsMax },
    ),
    url: Type.String(),
    analyzer: analyzerSchema,
  },
  { additionalProperties: false },
);

export function aiAnalysisRoutes(service: AiAnalysis): Route[] {
  return [
    declareRoute({
      method: 'POST',
      path: '/api/v1/ai_trading_agent/prompt-assets',
      name: 'analyze_prompt_assets',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['USER_MISMATCH'],
      body: Type.Object(
        {
          prompt: Type.String({ minLength: 1, maxLength: promptCharsMax }),
          user_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
        },
        { additionalProperties: false },
      ),
      response: promptResponse,
      summary: `Assets a free-text prompt is about (at most ${promptAssetsMax}), each with a calibrated probability and the matched terms; prompt at most ${promptCharsMax} characters`,
      handler: async (request) => {
        const { prompt, user_id: userId } = request.body;
        if (userId !== request.principal!.userId) throw new ApiError(403, 'USER_MISMATCH', 'body.user_id: must be your own user id');
        if (prompt.trim() === '') throw new ApiError(422, 'VALIDATION_FAILED', 'body.prompt: must not be blank');
        return { body: await service.analyzePrompt(prompt) };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/ai_trading_agent/analyze-url-assets',
      name: 'analyze_url_assets',
      tags,
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['UNKNOWN_ASSET', 'TOO_MANY_ASSETS', 'INVALID_URL', 'URL_REFUSED', 'UNSUPPORTED_CONTENT_TYPE', 'UPSTREAM_UNREACHABLE', 'UPSTREAM_STATUS', 'UPSTREAM_TOO_LARGE', 'UPSTREAM_REDIRECTS', 'UPSTREAM_TIMEOUT', 'BUSY'],
      body: Type.Object(
        {
          url: Type.String({ minLength: 1, maxLength: urlCharsMax }),
          assets: Type.Array(Type.String({ minLength: 1, maxLength: 12 }), { minItems: 1, maxItems: urlAssetsMax }),
        },
        { additionalProperties: false },
      ),
      response: urlResponse,
      summary: `Fetches a page and analyses it for up to ${urlAssetsMax} assets: headline, extractive summary, content type, overall impact, and per asset relevance (the specification's bands), relationship, direction, confidence, analysis and key points`,
      handler: async (request) => ({ body: await service.analyzeUrl(request.body.url, request.body.assets) }),
    }),
  ];
}
