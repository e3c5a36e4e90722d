/**
 * The route table: one declarative entry per endpoint (method, path, auth, rate-limit class, schemas,
 * summary, handler). From it the server builds its router and ajv validators; later it also yields the
 * OpenAPI document and the MCP tools. Adding an endpoint is one entry and one handler.
 *
 * Request handling, in order: match the path (404 unknown, 405 wrong method), read the body within the
 * size limit (413), parse JSON (400), validate query and body (422 naming the field and the rule), check
 * credentials, run the handler, and write the reply corked. Every error has the shape
 * `{"error":{"code","message"}}`; an unexpected exception is logged and answered 500 with no details.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, errorBody } from './errors.ts';
import { Router } from './router.ts';
import type { Log } from '../log.ts';
import type { Authenticator, Principal, Result as AuthResult } from '../auth/authenticator.ts';
import type { Permission } from '../auth/api-keys.ts';
import { SequencerBusyError, SequencerClosedError } from '../../engine/runtime/sequencer.ts';

export type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT';
export type AuthKind = 'none' | 'admin' | 'bearer' | 'key' | 'bearer_or_key';
/**
 * `general` and `orders` count per key (or per user for bearer sessions), per client address on routes
 * without credentials; `credentials` counts sign-ups, logins, refreshes and code checks per address.
 */
export type RateLimitClass = 'none' | 'general' | 'orders' | 'credentials';
export type JsonSchema = Record<string, unknown>;

export interface RequestContext {
  readonly method: Method;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** The caller, for routes that need one (null for `none`). */
  readonly principal: Principal | null;
  /** One of the request headers the shell reads (`readHeaders`); '' for any other or when absent. */
  header(name: string): string;
}

/** A JSON reply; with `contentType`, `body` is text sent as it is (llms.txt). */
export type Reply = { status?: number; headers?: Record<string, string> } & ({ body: unknown; contentType?: undefined } | { body: string; contentType: string });

export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly auth: AuthKind;
  /** What an API key must be allowed to do (bearer sessions may do everything). */
  readonly permission?: Permission;
  readonly rateLimit: RateLimitClass;
  /** Requests this call counts as against its rate limit (default 1; a batch counts each order). */
  readonly weight?: (body: unknown) => number;
  readonly summary: string;
  readonly query?: JsonSchema;
  readonly body?: JsonSchema;
  readonly response?: JsonSchema;
  readonly handler: (context: RequestContext) => Reply | Promise<Reply>;
}

interface CompiledRoute {
  readonly route: Route;
  readonly validateQuery: ValidateFunction | null;
  readonly validateBody: ValidateFunction | null;
}

export interface DispatchOptions {
  readonly bodyBytesMax: number;
  readonly authenticator: Authenticator;
  readonly log: Log;
}

/** The request headers handlers and the authenticator may read. */
const readHeaders = ['x-api-key', 'authorization', 'host'] as const;
/** The client's address, offered through `header()` to the rate limiter of routes without credentials. */
export const remoteAddressHeader = ':remote-address';

const Ajv = AjvModule as unknown as typeof AjvModule.default;

/** `field: rule` for the first validation error, e.g. `body.quantity: must be string`. */
function describe(where: string, errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (first === undefined) return `${where}: invalid`;
  const missing = first.keyword === 'required' ? `.${String(first.params['missingProperty'])}` : '';
  const extra = first.keyword === 'additionalProperties' ? `.${String(first.params['additionalProperty'])}` : '';
  const field = `${where}${first.instancePath.replaceAll('/', '.')}${missing}${extra}`;
  return `${field}: ${first.message ?? first.keyword}`;
}

function encode(reply: Reply): string {
  return reply.contentType === undefined ? JSON.stringify(reply.body) : reply.body;
}

function parseQuery(text: string): Record<string, string> {
  const query: Record<string, string> = {};
  if (text === '') return query;
  for (const [key, value] of new URLSearchParams(text)) query[key] = value;
  return query;
}

/** Reads a request body up to `limit` bytes; copies chunks (uWS reuses their memory). */
function readBody(res: HttpResponse, limit: number, done: (body: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.onData((chunk, isLast) => {
    if (!over) {
      size += chunk.byteLength;
      if (size > limit) over = true;
      else chunks.push(Buffer.from(Buffer.from(chunk)));
    }
    if (isLast) done(over ? null : Buffer.concat(chunks, size));
  });
}

export class RouteTable {
  private readonly router = new Router<CompiledRoute>();
  private readonly ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: true });
  readonly routes: Route[] = [];

  add(routes: readonly Route[]): void {
    for (const route of routes) {
      this.routes.push(route);
      this.router.add(route.method, route.path, {
        route,
        validateQuery: route.query === undefined ? null : this.ajv.compile(route.query),
        validateBody: route.body === undefined ? null : this.ajv.compile(route.body),
      });
    }
  }

  /** Serves every route of the table on `app`. */
  mount(app: TemplatedApp, options: DispatchOptions): void {
    app.any('/*', (res, req) => this.dispatch(res, req, options));
  }

  private dispatch(res: HttpResponse, req: HttpRequest, options: DispatchOptions): void {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const method = req.getCaseSensitiveMethod().toUpperCase() as Method;
    const path = req.getUrl();
    const queryText = req.getQuery() ?? '';
    // uWS request data is gone after this call returns: read the few headers the shell uses, now.
    const headers: Record<string, string> = {};
    for (const name of readHeaders) headers[name] = req.getHeader(name);
    const send = (status: number, body: string, extra: Record<string, string> = {}, contentType = 'application/json'): void => {
      if (aborted) return;
      res.cork(() => {
        res.writeStatus(statusLine(status));
        res.writeHeader('Content-Type', contentType);
        for (const [key, value] of Object.entries(extra)) res.writeHeader(key, value);
        res.end(body);
      });
    };
    const fail = (error: unknown): void => {
      if (error instanceof ApiError) return send(error.status, errorBody(error.code, error.message), error.headers);
      if (error instanceof SequencerBusyError) return send(503, errorBody('BUSY', error.message), { 'Retry-After': '1' });
      if (error instanceof SequencerClosedError) return send(503, errorBody('UNAVAILABLE', error.message));
      options.log('http_handler_error', { method, path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      send(500, errorBody('INTERNAL_ERROR', 'internal error'));
    };

    const match = this.router.match(method, path);
    if (match.route === null) {
      if (match.allowed.length > 0) {
        return send(405, errorBody('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`), { Allow: match.allowed.join(', ') });
      }
      return send(404, errorBody('NOT_FOUND', `no route for ${method} ${path}`));
    }
    const compiled = match.route;
    const route = compiled.route;
    if (route.auth === 'none' && route.rateLimit !== 'none') headers[remoteAddressHeader] = Buffer.from(res.getRemoteAddressAsText()).toString();
    const header = (name: string): string => headers[name.toLowerCase()] ?? '';
    // Credentials and the rate limit come first, so that a caller without a key learns nothing about the
    // body's rules and malformed requests still count against the limit; then validation, then the handler.
    const run = (body: unknown): void => {
      const respond = (auth: AuthResult): void => {
        const withLimits = (extra: Record<string, string> | undefined): Record<string, string> => ({ ...auth.headers, ...extra });
        const failWithLimits = (error: unknown): void =>
          fail(error instanceof ApiError ? new ApiError(error.status, error.code, error.message, withLimits(error.headers)) : error);
        let reply: Reply | Promise<Reply>;
        try {
          const query = parseQuery(queryText);
          if (compiled.validateQuery !== null && !compiled.validateQuery(query)) {
            throw new ApiError(422, 'VALIDATION_FAILED', describe('query', compiled.validateQuery.errors));
          }
          if (compiled.validateBody !== null && !compiled.validateBody(body)) {
            throw new ApiError(422, 'VALIDATION_FAILED', describe('body', compiled.validateBody.errors));
          }
          reply = route.handler({ method, path, params: match.params, query, body, principal: auth.principal, header });
        } catch (error) {
          return failWithLimits(error);
        }
        const answer = (value: Reply): void => send(value.status ?? 200, encode(value), withLimits(value.headers), value.contentType);
        if (reply instanceof Promise) reply.then(answer, failWithLimits);
        else answer(reply);
      };
      try {
        const weight = Math.max(1, route.weight?.(body) ?? 1);
        const access = { auth: route.auth, rateLimit: route.rateLimit, weight, ...(route.permission === undefined ? {} : { permission: route.permission }) };
        const auth = options.authenticator.authenticate(access, header);
        if (auth instanceof Promise) auth.then(respond, fail);
        else respond(auth);
      } catch (error) {
        fail(error);
      }
    };
    if (method === 'GET' || route.body === undefined) {
      run(undefined);
      return;
    }
    readBody(res, options.bodyBytesMax, (bytes) => {
      if (bytes === null) return send(413, errorBody('BODY_TOO_LARGE', `request body over ${options.bodyBytesMax} bytes`));
      let body: unknown;
      try {
        body = bytes.length === 0 ? {} : JSON.parse(bytes.toString('utf8'));
      } catch {
        return send(400, errorBody('MALFORMED_JSON', 'request body is not valid JSON'));
      }
      run(body);
    });
  }
}

const reasons: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

function statusLine(status: number): string {
  return `${status} ${reasons[status] ?? 'Status'}`;
}
