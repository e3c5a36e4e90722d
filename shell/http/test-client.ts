/**
 * A small JSON client for the shell's tests: one request per connection, the status, headers and body.
 *
 * Every success it sees is checked against the route's declared response schema: a test that calls a
 * route through `call` fails when the handler answers a shape its declaration does not promise, so the
 * OpenAPI document and the MCP tools' output schemas cannot drift from what the server sends.
 */
import AjvModule, { type ValidateFunction } from 'ajv';
import type { RunningServer } from '../server.ts';
import type { Route } from './route-table.ts';
import { Router } from './router.ts';

export interface JsonResponse {
  status: number;
  headers: Headers;
  // Tests read arbitrary fields of the answers they check.
  json: Record<string, any>;
}

const Ajv = AjvModule as unknown as typeof AjvModule.default;

interface Checked {
  readonly route: Route;
  validate: ValidateFunction | null | undefined;
}

/**
 * The string formats the declared schemas use, checked for real (ajv alone only warns that it does not
 * know them): RFC 3339 date-times as the API writes them, and UUIDs.
 */
export const schemaFormats = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

/** Per server: its routes by path, and each route's compiled response schema (compiled when first needed). */
const checkers = new WeakMap<RunningServer, { router: Router<Checked>; ajv: InstanceType<typeof Ajv> }>();

function checkerOf(server: RunningServer): { router: Router<Checked>; ajv: InstanceType<typeof Ajv> } {
  let checker = checkers.get(server);
  if (checker === undefined) {
    const router = new Router<Checked>();
    for (const route of server.table.routes) router.add(route.method, route.path, { route, validate: undefined });
    checker = { router, ajv: new Ajv({ allErrors: true, strict: false, formats: schemaFormats }) };
    checkers.set(server, checker);
  }
  return checker;
}

/**
 * Throws when a 2xx JSON answer does not match the route's declared response schema (routes that declare
 * none are not checked here; the discovery tests require every public route to declare one).
 */
export function checkResponse(server: RunningServer, method: string, path: string, status: number, body: unknown): void {
  if (status < 200 || status >= 300) return;
  const checker = checkerOf(server);
  const match = checker.router.match(method, path.split('?')[0]!);
  const checked = match.route;
  if (checked === null || checked.route.response === undefined) return;
  checked.validate ??= checker.ajv.compile(checked.route.response);
  if (!checked.validate(body)) {
    const errors = checker.ajv.errorsText(checked.validate.errors, { dataVar: 'response' });
    throw new Error(`${method} ${path} (${checked.route.name ?? checked.route.path}) answered ${status} outside its declared response schema: ${errors}`);
  }
}

export async function call(server: RunningServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    headers: { connection: 'close', 'content-type': 'application/json', ...headers },
  });
  const json = (await response.json()) as Record<string, any>;
  checkResponse(server, method, path, response.status, json);
  return { status: response.status, headers: response.headers, json };
}
