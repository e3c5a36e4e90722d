/**
 * The OpenAPI document, generated from the route table: every public route with its summary, path
 * parameters, query and body schemas, success schema and content type, the error responses it can answer,
 * its security exactly as the authenticator enforces it, its rate-limit class and headers and its
 * permission. Nothing is written by hand per route, so it cannot drift from what the server does. Admin
 * routes are operated, not offered, so they appear in no discovery document.
 *
 * Rules the generator applies (README "Discovery documents"):
 * - Tags: a route's own tags; a route without tags gets its area's tag from the first segment of its path
 *   after `/api/v1`, `/api/v2` or the root (`areaTags`). Every tag has a top-level description
 *   (`tagDescriptions`); a test fails for one without.
 * - Errors: 400/413 when the route takes a body, 401 when it needs a credential, 403 when a key needs a
 *   permission, 404 when the path names something or a declared code says NOT_FOUND, 422 when anything is
 *   validated, 429 when the route is rate-limited, 503 (BUSY) when it is too and is not a discovery document
 *   (those answer from memory; the others may wait on the engine or the read models), and one `4XX` entry naming the route's other
 *   declared codes (their statuses, 409 or 422 or a capacity 429, are the domain's; see its section of the
 *   README).
 */
import type { Route, RouteTable } from '../http/route-table.ts';

export const serviceTitle = 'Trading and prediction platform';
export const serviceSummary =
  'A token exchange with a deterministic order book (limit, market, IOC and stop orders, TWAP and scale orders, live or paper), ' +
  'prediction markets, perpetual prediction epochs, the BLUE vs RED arena, event cards, strategy vaults, bots, games and incentives, ' +
  'with JWT sessions, two-factor login, API keys and agent self-registration.';
/** The API's version (API specification): the document's info.version. */
export const apiVersion = '0.1.0';
/** The service is not open source: a private licence, named as an SPDX LicenseRef. */
export const license = { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' };

/** Where the other discovery documents are served (paths from the server's root). */
export const discoveryPaths = {
  openapi: '/openapi-public.json',
  asyncapi: '/asyncapi.json',
  llms: '/llms.txt',
  skill: '/.well-known/skills/default/SKILL.md',
  agentCard: '/.well-known/agent-card.json',
  mcp: '/mcp/v1',
} as const;

/** The tag of a route declared without tags, by the first segment of its path (see the file's comment). */
export const areaTags: Readonly<Record<string, string>> = {
  auth: 'Auth',
  'api-keys': 'API keys',
  mcp: 'Agents',
  agents: 'Agents',
  account: 'Account',
  funding: 'Funding',
  exchange: 'Exchange',
  clob: 'Exchange',
};
/** The tag of a route whose area is not in `areaTags` (the documents served at the root). */
export const defaultTag = 'Discovery';

/**
 * Descriptions of the shared areas' tags and of the domains built before modules described their own; a
 * new module declares its tags' descriptions in its instance (`tags`). A tag a route uses that neither
 * describes fails the discovery test.
 */
export const tagDescriptions: Readonly<Record<string, string>> = {
  Auth: 'Sign-up, login, token refresh and two-factor authentication.',
  'API keys': 'API keys: create (the secret shown once), list, change permissions, revoke; and the one-call key flow with email and password.',
  Agents: 'Agent self-registration (an `mcp_` key with its own rate) and the MCP endpoint.',
  Account: 'Balances and the portfolio.',
  Funding: 'Deposit addresses, the withdrawal whitelist and withdrawals.',
  Admin: 'Operator routes (admin key only); not part of the public document.',
  Exchange:
    'The token exchange: pairs, books (own and hybrid with AMM pools), orders (limit, market, IOC, stop, batch, amend), TWAP and scale orders, trades, tickers and candles.',
  Discovery: 'Documents that describe the service: this OpenAPI document, the AsyncAPI document of the streams, llms.txt, SKILL.md and the agent card.',
  'Prediction markets, pricing, trading':
    'The price oracle (prices, history, MACD), multi-asset prediction markets with binary books and winner-takes-all pools, and AI analysis of prompts and pages.',
  'Perpetual prediction markets': 'Pari-mutuel up/down epochs on an asset, staked in PRED.',
  Arena: 'BLUE vs RED: team share books around each team’s NAV, epochs, headlines and the house market maker.',
  'Event cards': 'Index baskets of assets bought and sold as cards, with perpetual long and short positions, funding and liquidation.',
  'Strategy vaults': 'Public strategy vaults with shares and NAV, the AI fund, and private paper vaults.',
  Bots: 'Trading bots, clones of bots and agents, and backtests.',
  Games: 'Trading streaks, duels between two traders and tournaments.',
  'Movers tournament': 'Pick the day’s biggest movers: rounds, entries and the leaderboard.',
  'Clone tools': 'Read-only tools over wallets and protocols: the FOMO radar and protocol revenue rankings.',
  Rewards: 'Revenue share for PLAT and PRED holders and the caller’s rewards.',
  'Bug bounty': 'Bug reports, their verification and payouts.',
  Incentives: 'Bot tiers and fee discounts, staking pools, leaderboards and airdrops.',
  Boosts: 'Time-limited boosts of rewards and their eligibility.',
  'Passive income': 'Estimates of passive income from holdings or volume.',
  Promo: 'Promotions and their status.',
};

/** A tag's description: the shared list's, or the one its module declared (ModuleInstance.tags). */
export function tagDescriptionOf(table: RouteTable, tag: string): string | undefined {
  return tagDescriptions[tag] ?? table.tagDescription(tag);
}

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', description: 'a stable machine-readable code, e.g. VALIDATION_FAILED' }, message: { type: 'string' } },
    },
  },
};

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current one-minute window for this caller and rate-limit class.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the current window ends, in Unix seconds.', schema: { type: 'integer' } },
};
const rateLimitHeaderRefs = Object.fromEntries(Object.keys(rateLimitHeaders).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

export function isPublic(route: Route): boolean {
  return route.auth !== 'admin';
}

/** The route's tags: its own, or its area's by the rule above. */
export function tagsOf(route: Route): readonly string[] {
  if (route.tags !== undefined && route.tags.length > 0) return route.tags;
  const segments = route.path.split('/').filter((segment) => segment !== '');
  const area = /^v[0-9]+$/.test(segments[1] ?? '') && segments[0] === 'api' ? segments[2] : segments[0];
  return [areaTags[area ?? ''] ?? defaultTag];
}

/** The security requirements of a route, exactly as the authenticator (and a handler's own check) enforces them. */
export function securityOf(route: Route): Array<Record<string, string[]>> {
  if (route.credential !== undefined) return [{ [route.credential]: [] }];
  switch (route.auth) {
    case 'none':
      return [];
    case 'admin':
    case 'key':
      return [{ apiKey: [] }];
    case 'bearer':
      return [{ bearer: [] }];
    case 'bearer_or_key':
      return [{ bearer: [] }, { apiKey: [] }];
    case 'optional':
      // An empty requirement object: anonymous calls are allowed too.
      return [{}, { bearer: [] }, { apiKey: [] }];
  }
}

function parameters(route: Route): Array<Record<string, unknown>> {
  const list: Array<Record<string, unknown>> = [];
  // The router's rule for a parameter segment, so that every `{name}` it matches is declared.
  for (const match of route.path.matchAll(/\{([a-z_][a-z0-9_]*)\}/gi)) {
    list.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  const query = route.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    list.push({ name, in: 'query', required: query?.required?.includes(name) ?? false, schema });
  }
  return list;
}

/**
 * A schema with every `anyOf` that has an empty (match-anything) member replaced by `{}`, which means the
 * same: linters flag such an `anyOf` as illogical, and TypeBox writes one for `Union([Unknown(), ...])`.
 */
export function simplified(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(simplified);
  if (typeof schema !== 'object' || schema === null) return schema;
  const entries = Object.entries(schema as Record<string, unknown>);
  const anyOf = (schema as { anyOf?: unknown }).anyOf;
  if (Array.isArray(anyOf) && anyOf.some((member) => typeof member === 'object' && member !== null && Object.keys(member).length === 0)) {
    return Object.fromEntries(entries.filter(([key]) => key !== 'anyOf' && key !== 'type').map(([key, value]) => [key, simplified(value)]));
  }
  return Object.fromEntries(entries.map(([key, value]) => [key, simplified(value)]));
}

function errorResponse(description: string, headers = false): Record<string, unknown> {
  return {
    description,
    ...(headers ? { headers: rateLimitHeaderRefs } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** The error responses a route can answer (the rules are in the file's comment). */
function errorResponses(route: Route): Record<string, unknown> {
  const codes = route.errors ?? [];
  const notFound = codes.filter((code) => code.endsWith('NOT_FOUND'));
  const others = codes.filter((code) => !code.endsWith('NOT_FOUND') && code !== 'VALIDATION_FAILED' && code !== 'NOT_READY');
  const limited = route.rateLimit !== 'none';
  const validated = route.query !== undefined || route.body !== undefined || route.path.includes('{') || codes.includes('VALIDATION_FAILED');
  const responses: Record<string, unknown> = {};
  if (route.body !== undefined) responses['400'] = { $ref: '#/components/responses/MalformedJson' };
  if (route.credential !== undefined || route.auth !== 'none') responses['401'] = { $ref: '#/components/responses/Unauthenticated' };
  if (route.permission !== undefined && route.auth !== 'bearer') responses['403'] = { $ref: '#/components/responses/PermissionDenied' };
  if (route.path.includes('{') || notFound.length > 0) {
    const named = notFound.length > 0 ? ` (${notFound.join(', ')})` : '';
    responses['404'] = errorResponse(`Not found: what the path or body names does not exist${named}.`, limited);
  }
  if (route.body !== undefined) responses['413'] = { $ref: '#/components/responses/BodyTooLarge' };
  if (validated) responses['422'] = errorResponse('VALIDATION_FAILED: the message names the field and the rule it broke (or an amount off its grid).', limited);
  if (limited) responses['429'] = { $ref: '#/components/responses/RateLimited' };
  if (others.length > 0) responses['4XX'] = errorResponse(`Another refusal of this route, one of: ${others.join(', ')}.`, limited);
  // The discovery documents answer from memory: they never wait for the engine or the read models.
  if (limited && !tagsOf(route).includes(defaultTag)) responses['503'] = { $ref: '#/components/responses/Busy' };
  // The readiness probe's refusal: a 503 whose body carries its checks beside the error.
  if (codes.includes('NOT_READY')) responses['503'] = errorResponse('NOT_READY: a readiness check failed; the body also lists `checks` and the `failing` ones.', limited);
  return responses;
}

function operation(route: Route, taken: Set<string>): Record<string, unknown> {
  if (taken.has(route.name)) throw new Error(`two routes are named ${route.name}`);
  taken.add(route.name);
  const declared = parameters(route);
  const success = String(route.status ?? 200);
  const contentType = route.contentType ?? 'application/json';
  const schema = route.contentType !== undefined ? { type: 'string' } : simplified(route.response ?? { type: 'object' });
  return {
    summary: route.summary,
    operationId: route.name,
    tags: [...tagsOf(route)],
    ...(declared.length > 0 ? { parameters: declared } : {}),
    ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }),
    security: securityOf(route),
    'x-rate-limit-class': route.rateLimit,
    ...(route.errors === undefined ? {} : { 'x-error-codes': [...route.errors] }),
    ...(route.permission === undefined ? {} : { 'x-permission': route.permission }),
    responses: {
      [success]: {
        description: 'Success.',
        ...(route.rateLimit === 'none' ? {} : { headers: rateLimitHeaderRefs }),
        content: { [contentType]: { schema } },
      },
      ...errorResponses(route),
    },
  };
}

export interface OpenApiOptions {
  /** The servers' URL: PUBLIC_BASE_URL, or `/` (the origin the document was fetched from). */
  readonly serverUrl: string;
}

export function openApiDocument(table: RouteTable, options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const taken = new Set<string>();
  const used = new Set<string>();
  for (const route of table.routes.filter(isPublic)) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, taken);
    for (const tag of tagsOf(route)) used.add(tag);
  }
  const tags = [...used].map((name) => {
    const description = tagDescriptionOf(table, name);
    return description === undefined ? { name } : { name, description };
  });
  return {
    openapi: '3.1.0',
    info: {
      title: serviceTitle,
      summary: serviceSummary,
      description:
        'Every route of the service but the operators\' ones. Bodies are JSON; amounts, prices and quantities are accepted as numbers or decimal ' +
        'strings and returned as decimal strings; timestamps are ISO 8601 UTC; every error is {"error":{"code","message"}}. ' +
        `The WebSocket streams are described by the AsyncAPI document at ${discoveryPaths.asyncapi}; a guide for agents is at ${discoveryPaths.llms} and ${discoveryPaths.skill}.`,
      version: apiVersion,
      license,
    },
    externalDocs: { description: 'The WebSocket streams (AsyncAPI 3.0)', url: discoveryPaths.asyncapi },
    'x-asyncapi': discoveryPaths.asyncapi,
    servers: [{ url: options.serverUrl, description: options.serverUrl === '/' ? 'The origin this document was fetched from.' : 'The public origin of the service.' }],
    tags,
    paths,
    components: {
      schemas: { Error: errorSchema },
      headers: rateLimitHeaders,
      responses: {
        MalformedJson: errorResponse('MALFORMED_JSON: the body is not valid JSON.'),
        Unauthenticated: errorResponse('UNAUTHENTICATED (or an invalid, expired or revoked credential): the route needs the credential its security names.'),
        PermissionDenied: errorResponse('PERMISSION_DENIED: the API key lacks the permission the route needs (x-permission).'),
        BodyTooLarge: errorResponse('BODY_TOO_LARGE: the body is over BODY_BYTES_MAX.'),
        RateLimited: errorResponse('RATE_LIMITED: the caller used up its rate limit for the window (see X-RateLimit-Reset), or a capacity limit of the route was reached.', true),
        Busy: {
          description: 'BUSY: the engine\'s queue or the read models are saturated; retry after Retry-After seconds (UNAVAILABLE while the server shuts down).',
          headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A user API key (POST /api/v1/api-keys, POST /auth/api-key) or an agent key (POST /mcp/v1/register).' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from POST /auth/register, /auth/login, /auth/refresh or /auth/2fa/verify.' },
        limitedBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The short-lived limited token POST /auth/login answers when 2FA is on; only POST /auth/2fa/verify takes it.',
        },
      },
    },
  };
}
