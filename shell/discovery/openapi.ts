/**
 * The OpenAPI document, generated from the route table: every route with its summary, path parameters,
 * query and body schemas, security and the error shape. Nothing is written by hand, so it cannot drift
 * from what the server does.
 */
import type { Route, RouteTable } from '../http/route-table.ts';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } },
};

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
  }
}

function operation(route: Route): Record<string, unknown> {
  const parameters: Array<Record<string, unknown>> = [];
  for (const match of route.path.matchAll(/\{([a-z_]+)\}/g)) {
    parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  const query = route.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    parameters.push({ name, in: 'query', required: query?.required?.includes(name) ?? false, schema });
  }
  const errors = { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  return {
    summary: route.summary,
    operationId: `${route.method.toLowerCase()}_${route.path.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }),
    security: security(route),
    ...(route.rateLimit === 'none' ? {} : { 'x-rate-limit-class': route.rateLimit }),
    ...(route.permission === undefined ? {} : { 'x-permission': route.permission }),
    responses: {
      '200': { description: 'ok', content: { 'application/json': { schema: route.response ?? { type: 'object' } } } },
      '4XX': errors,
      '5XX': errors,
    },
  };
}

export function openApiDocument(table: RouteTable): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of table.routes) {
    if (route.auth === 'admin') continue;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Trading and prediction platform', version: '0.1.0' },
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
