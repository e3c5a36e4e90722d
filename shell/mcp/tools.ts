/**
 * MCP tools made from the route table: one tool per public route (not admin, not the discovery documents,
 * which are resources), named as the route (its operationId), described by its summary and what it needs,
 * with an input schema merging the path parameters, the query's properties and the body's properties, and
 * the route's response schema as output schema. A call runs the route in-process (RouteTable.runByName),
 * so it passes the same credentials, rate limit, validation and handler as the REST request would.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, LocalCaller, Route, RouteAnswer, RouteTable } from '../http/route-table.ts';

/** The discovery documents: offered as resources (resources.ts), not as tools. */
export const discoveryRouteNames: readonly string[] = ['get_openapi_document', 'get_llms_txt', 'get_skill_md', 'get_agent_card', 'get_asyncapi_document'];

/**
 * Operational routes that are not tools: Prometheus metrics are for a scraper, text an agent has no use
 * for (the health and readiness probes stay tools: an agent may ask whether the service is up).
 */
export const operationalRouteNames: readonly string[] = ['get_metrics'];

type Part = 'path' | 'query' | 'body';

/**
 * The argument names a route's path, query and body share, and which part such an argument goes to; the
 * other part's property of that name is left out of the tool. Any other shared name stops the server at
 * start, so that a new route cannot make one argument mean two things silently.
 */
const sharedNames: Readonly<Record<string, Readonly<Record<string, Part>>>> = {
  // The path names the market; the order body shared with /api/v1/clob/orders (which has no path) may name
  // one too, and this route ignores it.
  tp_clob_place_order: { symbol: 'path' },
};

interface ObjectSchema {
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: readonly string[];
  readonly additionalProperties?: unknown;
  readonly type?: unknown;
}

export interface RouteTool {
  readonly route: Route;
  readonly tool: Tool;
  /** Which part of the request each argument goes to. */
  readonly parts: ReadonlyMap<string, Part>;
  readonly pathNames: readonly string[];
  /** Whether the structured result is the body wrapped as `{result: body}` (bodies that are not objects). */
  readonly wrapsResult: boolean;
}

function pathNamesOf(route: Route): string[] {
  // The router's rule for a parameter segment (as the OpenAPI document reads it).
  return [...route.path.matchAll(/\{([a-z_][a-z0-9_]*)\}/gi)].map((match) => match[1]!);
}

function authText(route: Route): string {
  const permission = route.permission === undefined ? '' : ` with the ${route.permission} permission`;
  switch (route.auth) {
    case 'none':
      return 'No credentials needed.';
    case 'optional':
      return 'Credentials optional (X-API-Key or Authorization: Bearer on the MCP connection); anonymous calls are served too.';
    case 'key':
      return `Needs credentials: an X-API-Key header${permission} on the MCP connection.`;
    case 'bearer':
      return 'Needs credentials: Authorization: Bearer <access token> on the MCP connection.';
    case 'bearer_or_key':
      return `Needs credentials: X-API-Key${permission} or Authorization: Bearer on the MCP connection.`;
    case 'admin':
      return 'Operator only.';
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `schema` describes an object at its top (MCP's output schemas must). */
function isObjectSchema(schema: JsonSchema | undefined): boolean {
  return schema !== undefined && schema['type'] === 'object';
}

/** The tool of one route; throws when its path, query and body share a name not listed in `sharedNames`. */
export function routeTool(route: Route): RouteTool {
  const name = route.name;
  if (name === undefined) throw new Error(`${route.method} ${route.path} has no name, so it cannot be an MCP tool`);
  const query = (route.query ?? {}) as ObjectSchema;
  const body = (route.body ?? {}) as ObjectSchema;
  const pathNames = pathNamesOf(route);
  const shared = sharedNames[name] ?? {};
  const parts = new Map<string, Part>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const offer = (part: Part, property: string, schema: JsonSchema, isRequired: boolean): void => {
    const previous = parts.get(property);
    const chosen = shared[property];
    if (previous !== undefined && chosen === undefined) {
      throw new Error(`MCP tool ${name}: argument ${property} is both a ${previous} and a ${part} name; list which wins in shell/mcp/tools.ts`);
    }
    if (chosen !== undefined && chosen !== part) return;
    parts.set(property, part);
    properties[property] = schema;
    if (isRequired) required.push(property);
  };
  for (const property of pathNames) offer('path', property, { type: 'string', description: `Path parameter of ${route.path}` }, true);
  for (const [property, schema] of Object.entries(query.properties ?? {})) offer('query', property, schema, query.required?.includes(property) ?? false);
  for (const [property, schema] of Object.entries(body.properties ?? {})) offer('body', property, schema, body.required?.includes(property) ?? false);
  // Closed when every part is: REST refuses unknown query and body fields of routes that close them.
  const closed = (route.query === undefined || query.additionalProperties === false) && (route.body === undefined || body.additionalProperties === false);
  const inputSchema = { type: 'object' as const, properties, ...(required.length > 0 ? { required } : {}), ...(closed ? { additionalProperties: false } : {}) };
  const response = route.response;
  const wrapsResult = response !== undefined && !isObjectSchema(response);
  const outputSchema = response === undefined ? undefined : wrapsResult ? { type: 'object' as const, properties: { result: response }, required: ['result'] } : (response as Tool['outputSchema']);
  const readOnly = route.method === 'GET';
  const tool: Tool = {
    name,
    description: `${route.summary.replace(/\.$/, '')}. ${authText(route)} (${route.method} ${route.path})`,
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: route.method === 'DELETE',
      idempotentHint: readOnly || route.method === 'DELETE' || route.method === 'PUT',
      openWorldHint: false,
    },
    _meta: {
      auth: route.auth,
      ...(route.permission === undefined ? {} : { permission: route.permission }),
      rate_limit: route.rateLimit,
      http: `${route.method} ${route.path}`,
    },
  };
  return { route, tool, parts, pathNames, wrapsResult };
}

/** The tools of every public route of the table, in the table's order. */
export function routeTools(table: RouteTable): RouteTool[] {
  const excluded = new Set([...discoveryRouteNames, ...operationalRouteNames]);
  // Event streams are not tools: a tool answers once (their events are a REST client's to follow).
  return table.routes
    .filter((route) => route.auth !== 'admin' && !excluded.has(route.name ?? '') && !(route.contentType ?? '').startsWith('text/event-stream'))
    .map(routeTool);
}

/**
 * A query or path value as a URL would carry it: text. Numbers and booleans become their text, so that an
 * agent writing `limit: 10` is understood; anything else goes on as JSON text and meets the route's own
 * validation (after the credentials, as over HTTP).
 */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * Sets an own property even for a name like `__proto__` (which plain assignment would take as the
 * object's prototype), so the route's schema sees every argument as REST's parsed JSON would show it.
 */
function put(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Runs the tool's route with the call's arguments and turns its answer into a tool result. */
export async function callRouteTool(table: RouteTable, routeTool: RouteTool, args: Record<string, unknown>, caller: LocalCaller): Promise<CallToolResult> {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  // A missing path parameter is an empty segment, which no route answers as anything but a refusal.
  for (const name of routeTool.pathNames) params[name] = '';
  for (const [name, value] of Object.entries(args)) {
    const part = routeTool.parts.get(name) ?? (routeTool.route.body === undefined ? 'query' : 'body');
    if (part === 'path') put(params, name, asText(value));
    else if (part === 'query') put(query, name, asText(value));
    else put(body, name, value);
  }
  const answer = await table.runByName(routeTool.tool.name, { params, query, body }, caller);
  return toolResult(routeTool, answer);
}

/**
 * 2xx: the JSON body as structured content (wrapped as `{result: ...}` where it is not an object) and as
 * text. 4xx/5xx: `isError` with the error shape `{"error":{"code","message"}}` as text, and as structured
 * content for tools without an output schema (clients check structured content against the output schema
 * even on errors). `_meta.http_status` keeps the REST status either way.
 */
export function toolResult(routeTool: RouteTool, answer: RouteAnswer): CallToolResult {
  const content = [{ type: 'text' as const, text: answer.text }];
  const _meta = { http_status: answer.status };
  const isJson = answer.contentType.startsWith('application/json') && answer.text !== '';
  const parsed: unknown = isJson ? JSON.parse(answer.text) : undefined;
  if (answer.status < 200 || answer.status >= 300) {
    const structured = routeTool.tool.outputSchema === undefined && isPlainObject(parsed) ? { structuredContent: parsed } : {};
    return { isError: true, content, ...structured, _meta };
  }
  if (!isJson) return { content, _meta };
  const structuredContent = routeTool.wrapsResult || !isPlainObject(parsed) ? { result: parsed } : parsed;
  return { content, structuredContent, _meta };
}
