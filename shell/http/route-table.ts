/**
 * The route table: one declarative entry per endpoint (method, path, auth, rate-limit class, schemas,
 * summary, handler). From it the server builds its router and ajv validators; it also yields the OpenAPI
 * document and llms.txt. Adding an endpoint is one entry and one handler.
 *
 * Request handling, in order: match the path (404 unknown, 405 wrong method), read the body within the
 * size limit (413), parse JSON (400), check credentials and count the request against its rate limit
 * (401/403/429), validate query and body (422 naming the field and the rule), run the handler, and write
 * the reply corked. Every error has the shape `{"error":{"code","message"}}`; an unexpected exception is
 * logged and answered 500 with no details.
 *
 * Each request is one `HttpExchange` object: its state and its steps are fields and methods rather than
 * closures, because this path runs for every order a market maker sends (bench:http profiles showed the
 * closures and header objects made per request as a large share of the thread's time).
 *
 * `runByName` runs a route in-process (the MCP server's tool calls): a `LocalExchange` takes the place of
 * uWS, and the credentials, rate limit, validation, handler and error mapping are the same steps as over
 * HTTP (`checkAndHandle`, `errorAnswer`, the one Authenticator), so a tool cannot do what REST refuses.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Static, TSchema } from '@sinclair/typebox';
import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, errorBody } from './errors.ts';
import { Router } from './router.ts';
import type { Log } from '../log.ts';
import type { Authenticator, Credentials } from '../auth/authenticator.ts';
import type { SignedParts } from '../auth/signatures.ts';
import type { AuthKind, HandlerCredential, Permission, Principal, RateLimitClass } from '../auth/access.ts';
import { RateFigures } from '../auth/rate-limit.ts';
import { SequencerBusyError, SequencerClosedError } from '../../engine/runtime/sequencer.ts';
import { ReadModelsBusyError } from '../read-models/read-models.ts';

export type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT';
// A route's auth kind and rate-limit class are access words (auth/access.ts), named here for routes.
export type { AuthKind, RateLimitClass };
export type JsonSchema = Record<string, unknown>;

export interface RequestContext {
  readonly method: Method;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters; a key given more than once holds its last value here (see `queryAll`). */
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** Every value of a query key, in order (`?assets=BTC&assets=ETH`); empty when absent. */
  queryAll(name: string): string[];
  /** The caller, for routes that need one (null for `none`). */
  readonly principal: Principal | null;
  /** One of the request headers the shell reads (x-api-key, authorization, host, idempotency-key, if-none-match); '' for any other or when absent. */
  header(name: string): string;
  /** The client's address on routes limited per address (no credentials and a rate limit), for handler quotas; '' on others. */
  readonly remoteAddress: string;
  /** Answers a handler that returned `later` (the first answer counts). */
  reply(reply: Reply): void;
  /** Answers a handler that returned `later` with an error, as a thrown one would be answered. */
  fail(error: unknown): void;
}

/**
 * What a handler returns when it will answer through `reply` or `fail` itself, from a callback: the order
 * routes answer from the sequencer's durable callback, and a promise per order cost more than the order's
 * own work there.
 */
export const later: unique symbol = Symbol('later');
export type Later = typeof later;

interface ReplyBase {
  status?: number;
  headers?: Record<string, string>;
}

/** One server-sent event: its name, its data (sent as JSON) and an optional id. */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
  readonly id?: string;
}

/**
 * What a handler answers: `body`, encoded with JSON.stringify; `json`, JSON the handler encoded itself (the
 * order paths build their records as text); `text` with its content type (llms.txt); or `events`, a stream
 * of server-sent events (`text/event-stream`) written as they come, ended when the iterable ends. A client
 * that goes away ends the iterable early (its `return` is called), so a producer can stop its work.
 */
export type Reply =
  | (ReplyBase & { body: unknown })
  | (ReplyBase & { json: string })
  | (ReplyBase & { text: string; contentType: string })
  | (ReplyBase & { events: AsyncIterable<SseEvent> });

/** One event in the text/event-stream format (data is one line of JSON, so it needs no splitting). */
export function sseFrame(event: SseEvent): string {
  const id = event.id === undefined ? '' : `id: ${event.id.replace(/[\r\n]/g, '')}\n`;
  return `${id}event: ${event.event.replace(/[\r\n]/g, '')}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export interface Route {
  readonly method: Method;
  readonly path: string;
  /** The operation's name: its OpenAPI operationId and its MCP tool name (`get_price_history`), unique. */
  readonly name: string;
  /** The API specification section(s) the route belongs to, as OpenAPI tags. */
  readonly tags?: readonly string[];
  /** The status of a success (200 unless said). */
  readonly status?: number;
  /** The error codes the route may answer beyond the shared ones (auth, rate limit, validation). */
  readonly errors?: readonly string[];
  readonly auth: AuthKind;
  /** A credential the handler checks itself (auth `none`): discovery documents declare it as the route's security. */
  readonly credential?: HandlerCredential;
  /** The content type of a success when it is not JSON (a `text` reply: llms.txt, SKILL.md). */
  readonly contentType?: string;
  /** What an API key must be allowed to do (bearer sessions may do everything). */
  readonly permission?: Permission;
  readonly rateLimit: RateLimitClass;
  /** Requests this call counts as against its rate limit (default 1; a batch counts each order). */
  readonly weight?: (body: unknown) => number;
  readonly summary: string;
  readonly query?: JsonSchema;
  readonly body?: JsonSchema;
  readonly response?: JsonSchema;
  readonly handler: (context: RequestContext) => Reply | Promise<Reply> | Later;
}

/**
 * Cross-origin rules (CORS_ORIGINS, read by shell/ops): the headers an answer carries for a request's
 * Origin header, and those of a preflight. The policy keeps its answers made up front, so that an answer
 * costs a lookup and no allocation.
 */
export interface CorsPolicy {
  /** Headers for an answer to a request whose Origin is `origin` ('' when it sent none). */
  answerHeaders(origin: string): Readonly<Record<string, string>>;
  /** Headers for a preflight from `origin` on a path serving `methods`: none (null) for an origin not allowed. */
  preflightHeaders(origin: string, methods: readonly string[]): Readonly<Record<string, string>> | null;
}

/** Told of each answer to a route it observes: the status and the milliseconds since the request arrived. */
export type RouteObserver = (status: number, elapsedMs: number) => void;

interface CompiledRoute {
  readonly route: Route;
  /** Set by `RouteTable.observe` (the operations metrics of the order routes); null for most routes. */
  observer: RouteObserver | null;
  readonly validateQuery: ValidateFunction | null;
  readonly validateBody: ValidateFunction | null;
  /** Whether the client's address must be read: routes without credentials are limited per address. */
  readonly limitsAddress: boolean;
}

export interface DispatchOptions {
  readonly bodyBytesMax: number;
  readonly authenticator: Authenticator;
  readonly log: Log;
}

const Ajv = AjvModule as unknown as typeof AjvModule.default;
const jsonType = 'application/json';
const noParams: Readonly<Record<string, string>> = Object.freeze({});
const noQuery: Readonly<Record<string, string>> = Object.freeze({});

/** `field: rule` for the first validation error, e.g. `body.quantity: must be string`. */
function describe(where: string, errors: ErrorObject[] | null | undefined, data: unknown): string {
  const first = errors?.[0];
  if (first === undefined) return `${where}: invalid`;
  const missing = first.keyword === 'required' ? `.${String(first.params['missingProperty'])}` : '';
  const extra = first.keyword === 'additionalProperties' ? `.${String(first.params['additionalProperty'])}` : '';
  const field = `${where}${first.instancePath.replaceAll('/', '.')}${missing}${extra}`;
  return `${field}: ${numberForString(first, data) ?? first.message ?? first.keyword}`;
}

/**
 * The rule for a JSON number sent where a string is required, said so that the client sees what to send.
 * A number such as 1e400 has become Infinity in parsing, which even a field taking numbers (an amount
 * as a string or a number) refuses, and "must be string" alone would not explain why.
 */
function numberForString(error: ErrorObject, data: unknown): string | null {
  if (error.keyword !== 'type' || !String(error.params['type']).split(',').includes('string')) return null;
  let value = data;
  for (const segment of error.instancePath.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return null;
    value = (value as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  if (typeof value !== 'number') return null;
  if (!Number.isFinite(value)) return 'must be a decimal string, e.g. "1.5": the number sent is beyond what a JSON number holds';
  return 'must be a string, not a number; write decimals as strings, e.g. "1.5"';
}

function parseQuery(text: string): Record<string, string> {
  if (text === '') return noQuery;
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text)) query[key] = value;
  return query;
}

const reasons: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  304: 'Not Modified',
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
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};
/** Status lines by status, made once. */
const statusLines = new Map(Object.entries(reasons).map(([status, reason]) => [Number(status), `${status} ${reason}`]));

function statusLine(status: number): string {
  return statusLines.get(status) ?? `${status} Status`;
}

/** An error's answer: ApiError as declared, busy and closed engines 503, anything else a logged 500. */
function errorAnswer(error: unknown, table: RouteTable, method: string, path: string): { status: number; payload: string; headers?: Record<string, string> } {
  if (error instanceof ApiError) return { status: error.status, payload: errorBody(error.code, error.message), headers: error.headers };
  if (error instanceof SequencerBusyError || error instanceof ReadModelsBusyError) {
    return { status: 503, payload: errorBody('BUSY', error.message), headers: { 'Retry-After': '1' } };
  }
  if (error instanceof SequencerClosedError) return { status: 503, payload: errorBody('UNAVAILABLE', error.message) };
  table.log('http_handler_error', { method, path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return { status: 500, payload: errorBody('INTERNAL_ERROR', 'internal error') };
}

/** Validates the query and body against the route's schemas (422 naming the field), then runs the handler. */
function checkAndHandle(compiled: CompiledRoute, request: RequestContext): Reply | Promise<Reply> | Later {
  if (compiled.validateQuery !== null && !compiled.validateQuery(request.query)) {
    throw new ApiError(422, 'VALIDATION_FAILED', describe('query', compiled.validateQuery.errors, request.query));
  }
  if (compiled.validateBody !== null && !compiled.validateBody(request.body)) {
    throw new ApiError(422, 'VALIDATION_FAILED', describe('body', compiled.validateBody.errors, request.body));
  }
  return compiled.route.handler(request);
}

/**
 * One request from its arrival to its answer. uWS's request object is valid only during the handler call,
 * so the few headers the shell reads are copied here at once; the response object stays valid until it is
 * answered or the client goes away (`aborted`).
 */
class HttpExchange implements RequestContext, Credentials, SignedParts {
  readonly method: Method;
  readonly path: string;
  private readonly queryText: string;
  readonly apiKey: string;
  readonly authorization: string;
  /** X-Timestamp and X-Signature, which signed API keys send (auth/signatures.ts). */
  readonly timestamp: string;
  readonly signature: string;
  /** The body's bytes as sent, kept only when the request is signed (the signature covers them). */
  rawBody: Buffer | null = null;
  readonly signedParts: SignedParts = this;
  private readonly host: string;
  /** A client-supplied key that makes a write idempotent (vault deposits and withdrawals). */
  private readonly idempotencyKey: string;
  /** A conditional GET's validator (the CEO index export answers 304 when it matches). */
  private readonly ifNoneMatch: string;
  /** The Origin header, read only when the table has a CORS policy. */
  readonly origin: string;
  /** When the request arrived (performance.now()), taken only for an observed route. */
  arrivalMs = 0;
  remoteAddress = '';
  params: Readonly<Record<string, string>> = noParams;
  query: Readonly<Record<string, string>> = noQuery;
  body: unknown = undefined;
  principal: Principal | null = null;
  compiled: CompiledRoute | null = null;
  aborted = false;
  answered = false;
  readonly figures = new RateFigures();
  private status = 200;
  private payload = '';
  private contentType = jsonType;
  private extraHeaders: Record<string, string> | undefined = undefined;
  /** The cork callback, made once per exchange (uWS needs a function; a closure per answer would be waste). */
  private readonly writeCorked = (): void => this.write();

  constructor(
    private readonly table: RouteTable,
    readonly res: HttpResponse,
    req: HttpRequest,
  ) {
    this.method = req.getCaseSensitiveMethod().toUpperCase() as Method;
    this.path = req.getUrl();
    this.queryText = req.getQuery() ?? '';
    this.apiKey = req.getHeader('x-api-key');
    this.authorization = req.getHeader('authorization');
    // One header lookup for unsigned requests (bench:http's path); the timestamp only matters with a signature.
    this.signature = req.getHeader('x-signature');
    this.timestamp = this.signature === '' ? '' : req.getHeader('x-timestamp');
    this.host = req.getHeader('host');
    this.idempotencyKey = req.getHeader('idempotency-key');
    this.ifNoneMatch = req.getHeader('if-none-match');
    this.origin = table.cors === null ? '' : req.getHeader('origin');
    res.onAborted(() => {
      this.aborted = true;
    });
  }

  /** The query string as sent, without "?" (a signature covers it). */
  get rawQuery(): string {
    return this.queryText;
  }

  header(name: string): string {
    switch (name.toLowerCase()) {
      case 'x-api-key':
        return this.apiKey;
      case 'authorization':
        return this.authorization;
      case 'host':
        return this.host;
      case 'idempotency-key':
        return this.idempotencyKey;
      case 'if-none-match':
        return this.ifNoneMatch;
      default:
        return '';
    }
  }

  /** Sends one answer (later calls are ignored); nothing is written once the client has gone. */
  respond(status: number, payload: string, contentType = jsonType, extraHeaders?: Record<string, string>): void {
    if (this.answered) return;
    this.answered = true;
    const observer = this.compiled?.observer;
    if (observer != null) observer(status, performance.now() - this.arrivalMs);
    if (this.aborted) return;
    this.status = status;
    this.payload = payload;
    this.contentType = contentType;
    this.extraHeaders = extraHeaders;
    this.res.cork(this.writeCorked);
  }

  reply(reply: Reply): void {
    const status = reply.status ?? 200;
    if ('json' in reply) return this.respond(status, reply.json, jsonType, reply.headers);
    if ('text' in reply) return this.respond(status, reply.text, reply.contentType, reply.headers);
    if ('events' in reply) return void this.streamEvents(status, reply.events, reply.headers);
    this.respond(status, JSON.stringify(reply.body), jsonType, reply.headers);
  }

  /**
   * Writes the head at once, then each event as the producer yields it, corked; ends the response when
   * the producer ends. A producer that throws ends the stream with an `error` event carrying the error
   * shape (the head is already sent, so the status cannot change any more).
   */
  private async streamEvents(status: number, events: AsyncIterable<SseEvent>, headers: Record<string, string> | undefined): Promise<void> {
    if (this.answered) return;
    this.answered = true;
    if (this.aborted) return;
    const res = this.res;
    res.cork(() => {
      res.writeStatus(statusLine(status));
      res.writeHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.writeHeader('Cache-Control', 'no-cache');
      this.writeCorsHeaders();
      this.writeRateHeaders(headers);
      if (headers !== undefined) for (const key in headers) res.writeHeader(key, headers[key]!);
      // uWS sends the head with the first write; an empty comment line makes clients see the stream open.
      res.write(':\n\n');
    });
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await iterator.next();
        if (this.aborted) break;
        if (next.done === true) break;
        res.cork(() => res.write(sseFrame(next.value)));
      }
    } catch (error) {
      if (!this.aborted) {
        const body = error instanceof ApiError ? { error: { code: error.code, message: error.message } } : { error: { code: 'INTERNAL_ERROR', message: 'internal error' } };
        if (!(error instanceof ApiError)) this.table.log('http_stream_error', { path: this.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        res.cork(() => res.write(sseFrame({ event: 'error', data: body })));
      }
    } finally {
      if (this.aborted) await iterator.return?.();
      else res.cork(() => res.end());
    }
  }

  fail(error: unknown): void {
    const answer = errorAnswer(error, this.table, this.method, this.path);
    this.respond(answer.status, answer.payload, jsonType, answer.headers);
  }

  queryAll(name: string): string[] {
    if (this.queryText === '') return [];
    return new URLSearchParams(this.queryText).getAll(name);
  }

  /** After credentials: validate, then run the handler. */
  run(): void {
    const compiled = this.compiled!;
    let reply: Reply | Promise<Reply> | Later;
    try {
      this.query = parseQuery(this.queryText);
      reply = checkAndHandle(compiled, this);
    } catch (error) {
      return this.fail(error);
    }
    if (reply === later) return;
    if (reply instanceof Promise) reply.then(this.table.replyTo(this), this.table.failTo(this));
    else this.reply(reply);
  }

  /** An OPTIONS request on a path that serves `methods`: 204 with Allow, and the CORS preflight headers for an allowed origin. */
  preflight(methods: readonly string[]): void {
    if (this.answered || this.aborted) return;
    this.answered = true;
    const cors = this.table.cors?.preflightHeaders(this.origin, methods) ?? null;
    const res = this.res;
    res.cork(() => {
      res.writeStatus(statusLine(204));
      res.writeHeader('Allow', [...methods, 'OPTIONS'].join(', '));
      if (cors !== null) for (const key in cors) res.writeHeader(key, cors[key]!);
      res.end();
    });
  }

  private writeCorsHeaders(): void {
    const cors = this.table.cors;
    if (cors === null) return;
    const headers = cors.answerHeaders(this.origin);
    for (const key in headers) this.res.writeHeader(key, headers[key]!);
  }

  /** The route's rate-limit figures, unless the handler answers with figures of its own (a quota's). */
  private writeRateHeaders(extra?: Record<string, string>): void {
    const figures = this.figures;
    if (figures.limit > 0 && extra?.['X-RateLimit-Limit'] === undefined) {
      this.res.writeHeader('X-RateLimit-Limit', String(figures.limit));
      this.res.writeHeader('X-RateLimit-Remaining', String(figures.remaining));
      this.res.writeHeader('X-RateLimit-Reset', String(figures.resetS));
    }
  }

  private write(): void {
    const res = this.res;
    res.writeStatus(statusLine(this.status));
    res.writeHeader('Content-Type', this.contentType);
    this.writeCorsHeaders();
    const extra = this.extraHeaders;
    this.writeRateHeaders(extra);
    if (extra !== undefined) for (const key in extra) res.writeHeader(key, extra[key]!);
    res.end(this.payload);
  }
}

/** A route's arguments for an in-process run: path parameters, query values (text, as a URL carries them) and the JSON body. */
export interface RouteInput {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** The JSON body; ignored for routes that declare none (as REST ignores it). */
  readonly body: unknown;
}

/** Who runs a route in-process: the credentials its HTTP request carried, its Host and Idempotency-Key headers. */
export interface LocalCaller extends Credentials {
  readonly host: string;
  readonly idempotencyKey: string;
}

/** What an in-process run answers: what REST would have sent (status, headers, content type and text). */
export interface RouteAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
  readonly text: string;
}

/**
 * An in-process request: the same steps as `HttpExchange` from credentials on, with the answer collected
 * into a `RouteAnswer` instead of written to a socket. Only the MCP server's tool calls make these, so
 * clarity matters more here than allocations.
 */
class LocalExchange implements RequestContext {
  readonly method: Method;
  readonly path: string;
  readonly body: unknown;
  principal: Principal | null = null;
  readonly figures = new RateFigures();
  /** When the call began (performance.now()), taken only for an observed route, as over HTTP. */
  private readonly arrivalMs: number;
  private answered = false;
  private settle: (answer: RouteAnswer) => void = () => {};
  readonly answer = new Promise<RouteAnswer>((resolve) => {
    this.settle = resolve;
  });

  constructor(
    private readonly table: RouteTable,
    readonly compiled: CompiledRoute,
    readonly params: Readonly<Record<string, string>>,
    readonly query: Readonly<Record<string, string>>,
    body: unknown,
    private readonly caller: LocalCaller,
  ) {
    const route = compiled.route;
    this.method = route.method;
    this.path = route.path.replace(/\{([a-z_][a-z0-9_]*)\}/gi, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    // As over HTTP: a route without a body schema never reads one; one with a schema gets {} when none is sent.
    this.body = route.body === undefined ? undefined : (body ?? {});
    this.arrivalMs = compiled.observer === null ? 0 : performance.now();
  }

  /** The caller's address (handlers that count their own quotas per address read it). */
  get remoteAddress(): string {
    return this.caller.remoteAddress;
  }

  header(name: string): string {
    switch (name.toLowerCase()) {
      case 'x-api-key':
        return this.caller.apiKey;
      case 'authorization':
        return this.caller.authorization;
      case 'host':
        return this.caller.host;
      case 'idempotency-key':
        return this.caller.idempotencyKey;
      default:
        return '';
    }
  }

  queryAll(name: string): string[] {
    const value = this.query[name];
    return value === undefined ? [] : [value];
  }

  private respond(status: number, text: string, contentType: string, extra: Record<string, string> | undefined): void {
    if (this.answered) return;
    this.answered = true;
    // An order placed through an MCP tool is an order all the same: the metrics count and time it as REST's.
    const observer = this.compiled.observer;
    if (observer !== null) observer(status, performance.now() - this.arrivalMs);
    const headers: Record<string, string> = {};
    if (this.figures.limit > 0) {
      headers['X-RateLimit-Limit'] = String(this.figures.limit);
      headers['X-RateLimit-Remaining'] = String(this.figures.remaining);
      headers['X-RateLimit-Reset'] = String(this.figures.resetS);
    }
    Object.assign(headers, extra);
    this.settle({ status, headers, contentType, text });
  }

  reply(reply: Reply): void {
    const status = reply.status ?? 200;
    if ('json' in reply) return this.respond(status, reply.json, jsonType, reply.headers);
    if ('text' in reply) return this.respond(status, reply.text, reply.contentType, reply.headers);
    if ('events' in reply) return void this.collectEvents(status, reply.events, reply.headers);
    this.respond(status, JSON.stringify(reply.body), jsonType, reply.headers);
  }

  /** An event stream run in-process: every event, in the text/event-stream form, once the producer ends. */
  private async collectEvents(status: number, events: AsyncIterable<SseEvent>, headers: Record<string, string> | undefined): Promise<void> {
    let text = '';
    try {
      for await (const event of events) text += sseFrame(event);
    } catch (error) {
      const body = error instanceof ApiError ? { error: { code: error.code, message: error.message } } : { error: { code: 'INTERNAL_ERROR', message: 'internal error' } };
      text += sseFrame({ event: 'error', data: body });
    }
    this.respond(status, text, 'text/event-stream; charset=utf-8', headers);
  }

  fail(error: unknown): void {
    const answer = errorAnswer(error, this.table, this.method, this.path);
    this.respond(answer.status, answer.payload, jsonType, answer.headers);
  }

  /** Credentials and rate limit, then validation and the handler: the order of `RouteTable.authenticate`. */
  async run(authenticator: Authenticator): Promise<void> {
    const route = this.compiled.route;
    try {
      const weight = route.weight === undefined ? 1 : Math.max(1, route.weight(this.body));
      this.principal = await authenticator.authenticate(route, weight, this.caller, this.figures);
      const reply = checkAndHandle(this.compiled, this);
      if (reply !== later) this.reply(await reply);
    } catch (error) {
      this.fail(error);
    }
  }
}

export class RouteTable {
  private readonly router = new Router<CompiledRoute>();
  private readonly ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: true });
  readonly routes: Route[] = [];
  /** Tag descriptions the modules declared (the OpenAPI document's top-level tags). */
  private readonly tagTexts = new Map<string, string>();
  /** Named routes by name, for in-process runs. */
  private readonly named = new Map<string, CompiledRoute>();
  private options: DispatchOptions | null = null;
  private readonly compiledRoutes: CompiledRoute[] = [];
  /** The cross-origin rules answers follow; null: no CORS headers at all. */
  cors: CorsPolicy | null = null;

  add(routes: readonly Route[]): void {
    for (const route of routes) {
      this.routes.push(route);
      const compiled: CompiledRoute = {
        route,
        observer: null,
        validateQuery: route.query === undefined ? null : this.ajv.compile(route.query),
        validateBody: route.body === undefined ? null : this.ajv.compile(route.body),
        limitsAddress: ((route.auth === 'none' || route.auth === 'optional') && route.rateLimit !== 'none') || route.rateLimit === 'calculator',
      };
      this.router.add(route.method, route.path, compiled);
      this.compiledRoutes.push(compiled);
      if (route.name !== undefined) this.named.set(route.name, compiled);
    }
  }

  /** Sets the cross-origin rules (null: none). OPTIONS is answered either way, for the paths the table serves. */
  useCors(policy: CorsPolicy | null): void {
    this.cors = policy;
  }

  /**
   * Observes the answers of the routes `choose` gives an observer (the operations metrics): each is told
   * its status and the time from the request's arrival to its answer (durable, for writes), over HTTP and
   * in-process alike (MCP tool calls: from the call's start, after the MCP transport's own work).
   */
  observe(choose: (route: Route) => RouteObserver | null): void {
    for (const compiled of this.compiledRoutes) compiled.observer = choose(compiled.route);
  }

  /** Adds descriptions of tags; a tag described twice must be described the same way. */
  describeTags(descriptions: Readonly<Record<string, string>>): void {
    for (const [tag, description] of Object.entries(descriptions)) {
      const known = this.tagTexts.get(tag);
      if (known !== undefined && known !== description) throw new Error(`tag ${tag} is described twice, differently`);
      this.tagTexts.set(tag, description);
    }
  }

  /** The description of a tag a module declared, if any. */
  tagDescription(tag: string): string | undefined {
    return this.tagTexts.get(tag);
  }

  /**
   * Runs the route named `name` in-process, as if its HTTP request had arrived with these arguments and
   * credentials: the same authentication, rate limit, validation, handler and error shapes as REST (the
   * body-size limit and JSON parsing belong to the caller's own transport). Answers once the handler has
   * answered, durably for writes. Needs the table mounted (its authenticator and log).
   */
  runByName(name: string, input: RouteInput, caller: LocalCaller): Promise<RouteAnswer> {
    const compiled = this.named.get(name);
    if (compiled === undefined) throw new Error(`no route is named ${name}`);
    const exchange = new LocalExchange(this, compiled, input.params, input.query, input.body, caller);
    void exchange.run(this.options!.authenticator);
    return exchange.answer;
  }

  /**
   * The authenticator the mounted table checks credentials with, for a transport that runs routes
   * in-process and must check its own requests first (the MCP service: a signed key's signature).
   */
  get authenticator(): Authenticator {
    if (this.options === null) throw new Error('the route table is not mounted');
    return this.options.authenticator;
  }

  /** Serves every route of the table on `app`. */
  mount(app: TemplatedApp, options: DispatchOptions): void {
    this.options = options;
    app.any('/*', (res, req) => this.dispatch(new HttpExchange(this, res, req)));
  }

  log(event: string, fields: Record<string, unknown>): void {
    this.options!.log(event, fields);
  }

  /** Continuations of a handler's promise (two small closures for the requests that answer later). */
  replyTo(exchange: HttpExchange): (reply: Reply) => void {
    return (reply) => exchange.reply(reply);
  }

  failTo(exchange: HttpExchange): (error: unknown) => void {
    return (error) => exchange.fail(error);
  }

  private dispatch(exchange: HttpExchange): void {
    const match = this.router.match(exchange.method, exchange.path);
    if (match.route === null) {
      if (match.allowed.length > 0) {
        // No route declares OPTIONS: it is answered here, before a 405, for every path the table serves.
        if ((exchange.method as string) === 'OPTIONS') return exchange.preflight(match.allowed);
        return exchange.respond(405, errorBody('METHOD_NOT_ALLOWED', `${exchange.method} is not allowed on ${exchange.path}`), jsonType, {
          Allow: match.allowed.join(', '),
        });
      }
      return exchange.respond(404, errorBody('NOT_FOUND', `no route for ${exchange.method} ${exchange.path}`));
    }
    const compiled = match.route;
    if (compiled.observer !== null) exchange.arrivalMs = performance.now();
    exchange.compiled = compiled;
    exchange.params = match.params;
    if (compiled.limitsAddress) exchange.remoteAddress = Buffer.from(exchange.res.getRemoteAddressAsText()).toString();
    if (exchange.method === 'GET' || compiled.route.body === undefined) return this.authenticate(exchange);
    this.readBody(exchange);
  }

  /**
   * Reads the body within the limit, then parses it. A body that arrives in one chunk (nearly all of them)
   * is decoded straight from uWS's buffer; one in several chunks is copied, since uWS reuses their memory.
   */
  private readBody(exchange: HttpExchange): void {
    const limit = this.options!.bodyBytesMax;
    let chunks: Buffer[] | null = null;
    let size = 0;
    exchange.res.onData((chunk, isLast) => {
      size += chunk.byteLength;
      if (size > limit) {
        chunks = null;
        if (isLast) exchange.respond(413, errorBody('BODY_TOO_LARGE', `request body over ${limit} bytes`));
        return;
      }
      if (!isLast) {
        (chunks ??= []).push(Buffer.from(Buffer.from(chunk)));
        return;
      }
      const bytes = chunks === null ? Buffer.from(chunk) : Buffer.concat([...chunks, Buffer.from(chunk)], size);
      // A signed request's signature covers the exact bytes; uWS reuses a lone chunk's memory, hence the copy.
      if (exchange.signature !== '') exchange.rawBody = chunks === null ? Buffer.from(bytes) : bytes;
      this.parseBody(exchange, bytes.toString('utf8'));
    });
  }

  private parseBody(exchange: HttpExchange, text: string): void {
    try {
      exchange.body = text.length === 0 ? {} : JSON.parse(text);
    } catch {
      return exchange.respond(400, errorBody('MALFORMED_JSON', 'request body is not valid JSON'));
    }
    this.authenticate(exchange);
  }

  /**
   * Credentials and the rate limit come before validation, so that a caller without a key learns nothing
   * about the body's rules and malformed requests still count against the limit.
   */
  private authenticate(exchange: HttpExchange): void {
    const route = exchange.compiled!.route;
    let principal: Principal | null | Promise<Principal>;
    try {
      const weight = route.weight === undefined ? 1 : Math.max(1, route.weight(exchange.body));
      principal = this.options!.authenticator.authenticate(route, weight, exchange, exchange.figures);
    } catch (error) {
      return exchange.fail(error);
    }
    if (principal instanceof Promise) {
      principal.then(
        (found) => {
          exchange.principal = found;
          exchange.run();
        },
        this.failTo(exchange),
      );
      return;
    }
    exchange.principal = principal;
    exchange.run();
  }
}

/** A request whose query and body have passed their TypeBox schemas, typed by them. */
export interface TypedRequest<Query, Body> extends RequestContext {
  readonly query: Query & Readonly<Record<string, string>>;
  readonly body: Body;
}

/**
 * Declares a route whose schemas are TypeBox declarations: one declaration is both the JSON Schema that
 * ajv compiles (and that the OpenAPI document and the MCP tool list show) and the static type the
 * handler reads, so a handler needs no casts of its query or body.
 */
export function declareRoute<Query extends TSchema = TSchema, Body extends TSchema = TSchema>(
  declaration: Omit<Route, 'query' | 'body' | 'handler'> & {
    readonly name: string;
    readonly tags: readonly string[];
    readonly query?: Query;
    readonly body?: Body;
    readonly handler: (request: TypedRequest<Static<Query>, Static<Body>>) => Reply | Promise<Reply> | Later;
  },
): Route {
  return declaration as unknown as Route;
}
