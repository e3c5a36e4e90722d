/**
 * The OpenAPI document, generated from the route table: every public route with its summary, path
 * parameters, query and body schemas, security, rate-limit class, permission and the error shape. Nothing
 * is written by hand, so it cannot drift from what the server does. Admin routes are operated, not
 * offered, so they appear in no discovery document.
 */
import type { Route, RouteTable } from '../http/route-table.ts';

export const serviceTitle = 'Trading and prediction platform';
export const serviceSummary =
  'A token exchange with a deterministic order book (limit, market, IOC and stop orders, live or paper), accounts with JWT sessions, ' +
  'two-factor login, API keys and agent self-registration.';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } },
};

export function isPublic(route: Route): boolean {
  return route.auth !== 'admin';
}

function security(route: Route): Array<Record<string, string[]>> {
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

/**
 * `get_api_v1_exchange_by_symbol_bbo`. Two paths can spell the same id (`/api-keys` and `/api_keys`), so a
 * taken id gets a counter: OpenAPI requires operationIds to be unique.
 */
function operationId(route: Route, taken: Set<string>): string {
  if (route.name !== undefined) {
    if (taken.has(route.name)) throw new Error(`two routes are named ${route.name}`);
    taken.add(route.name);
    return route.name;
  }
  const words = route.path.replace(/\{([^}]+)\}/g, 'by_$1').replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_|_$/g, '');
  const base = `${route.method.toLowerCase()}_${words}`;
  let id = base;
  for (let count = 2; taken.has(id); count++) id = `${base}_${count}`;
  taken.add(id);
  return id;
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

function operation(route: Route, taken: Set<string>): Record<string, unknown> {
  const declared = parameters(route);
  const errors = { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  const success = route.status === undefined ? '2XX' : String(route.status);
  return {
    summary: route.summary,
    operationId: operationId(route, taken),
    ...(route.tags === undefined ? {} : { tags: [...route.tags] }),
    ...(declared.length > 0 ? { parameters: declared } : {}),
    ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }),
    security: security(route),
    'x-rate-limit-class': route.rateLimit,
    ...(route.errors === undefined ? {} : { 'x-error-codes': [...route.errors] }),
    ...(route.permission === undefined ? {} : { 'x-permission': route.permission }),
    responses: {
      // Successes are 200, 201 or 202: a declaration that names its status gets it, the older ones '2XX'.
      [success]: { description: 'ok', content: { 'application/json': { schema: route.response ?? { type: 'object' } } } },
      '4XX': errors,
      '5XX': errors,
    },
  };
}

export function openApiDocument(table: RouteTable): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const taken = new Set<string>();
  for (const route of table.routes.filter(isPublic)) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, taken);
  }
  return {
    openapi: '3.1.0',
    info: { title: serviceTitle, summary: serviceSummary, version: '0.1.0' },
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
