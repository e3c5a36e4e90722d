/**
 * The MCP server at /mcp/v1: MCP's Streamable HTTP transport, on the SDK's web-standard transport and
 * low-level `Server`, bridged to uWS (http-bridge.ts).
 *
 * Sessions: an initialize request without `Mcp-Session-Id` opens one (its own Server and transport, its id
 * from node:crypto); later requests name it; DELETE ends it. At most MCP_SESSIONS_MAX are open (a new one
 * beyond is refused with 503; MCP_SESSIONS_PER_ADDRESS from one client address, 429), and a session that has sent no request for MCP_SESSION_IDLE_MS (none being
 * answered) is closed, its standing GET stream with it. The Host and Origin headers are checked before anything else (DNS-rebinding protection:
 * 403), so a web page cannot reach a local server through a name it controls.
 *
 * Credentials travel on each HTTP request, as on REST. A signed API key signs each HTTP request to /mcp/v1
 * (X-Timestamp and X-Signature over the request as sent: README "Signed requests"); it is checked here,
 * before the transport reads the request, and a refusal is answered 401 with the REST error shape as the
 * JSON-RPC error's data.
 */
import { randomUUID } from 'node:crypto';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { LocalCaller, RouteTable } from '../http/route-table.ts';
import { ApiError } from '../http/errors.ts';
import type { Log } from '../log.ts';
import { authInfoOf, buildCatalogue, serveCatalogue, type Catalogue } from './catalogue.ts';
import { bridgeRequest, type BridgedRequest } from './http-bridge.ts';
import { mcpSettings, type McpSettings } from './settings.ts';
import type { SettingsEnv } from '../config.ts';

export const mcpPath = '/mcp/v1';
/** The version the server reports at initialize: the platform API's (the OpenAPI document's info.version). */
export const serverVersion = '0.1.0';

interface Session {
  /** The client address that opened it (sessions are also bounded per address). */
  readonly address: string;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeenMs: number;
  /** Requests of the session still being answered (POST answers until streamed): a session never expires under one. */
  open: number;
}

/**
 * A JSON-RPC error answer for refusals made before the transport sees the request; `data` carries the
 * REST error shape where there is one (a credential refusal).
 */
function refusal(status: number, message: string, headers: Record<string, string> = {}, data?: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message, ...(data === undefined ? {} : { data }) }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** The host name of a Host header (`localhost:8080` -> `localhost`, `[::1]:80` -> `[::1]`), lower case. */
function hostName(host: string): string {
  const text = host.trim().toLowerCase();
  if (text.startsWith('[')) return text.slice(0, text.indexOf(']') + 1);
  const colon = text.indexOf(':');
  return colon === -1 ? text : text.slice(0, colon);
}

export class McpService {
  private readonly sessions = new Map<string, Session>();
  /** Sessions being initialized (counted against the maximum until they are registered or dropped). */
  private pending = 0;
  /** Sessions open or being initialized, per client address. */
  private readonly perAddress = new Map<string, number>();
  private readonly catalogue: Catalogue;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly table: RouteTable,
    private readonly settings: McpSettings,
    private readonly clock: () => number,
    private readonly log: Log,
  ) {
    this.catalogue = buildCatalogue(table, settings.conformanceFixtures);
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(60_000, Math.max(1000, Math.floor(settings.sessionIdleMs / 2))));
    this.sweeper.unref();
  }

  get toolCount(): number {
    return this.catalogue.tools.length;
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  /** Serves /mcp/v1 on `app` (GET, POST and DELETE; the transport answers other methods 405). */
  mount(app: TemplatedApp, bodyBytesMax: number): void {
    const onError = (error: unknown): void => this.log('mcp_request_failed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    app.any(mcpPath, (res, req) => bridgeRequest(res, req, bodyBytesMax, (request) => this.handle(request), onError));
  }

  /** Whether the Host and Origin headers are ones this server answers to. */
  private foreignHeaders(request: Request): string | null {
    const allowedHosts = this.settings.allowedHosts;
    const host = request.headers.get('host') ?? '';
    if (!allowedHosts.includes('*') && !allowedHosts.includes(hostName(host))) return `Host ${host} is not allowed`;
    const origin = request.headers.get('origin');
    if (origin === null) return null;
    const allowedOrigins = this.settings.allowedOrigins;
    if (allowedOrigins.includes('*') || allowedOrigins.includes(origin.toLowerCase())) return null;
    if (allowedOrigins.length === 0) {
      let originHost: string;
      try {
        originHost = new URL(origin).hostname.toLowerCase();
      } catch {
        return `Origin ${origin} is not allowed`;
      }
      // URL gives IPv6 hosts in brackets, as the Host header writes them.
      if (allowedHosts.includes('*') || allowedHosts.includes(originHost)) return null;
    }
    return `Origin ${origin} is not allowed`;
  }

  private async handle(bridged: BridgedRequest): Promise<Response> {
    const request = bridged.request;
    const foreign = this.foreignHeaders(request);
    if (foreign !== null) return refusal(403, `Forbidden: ${foreign}`);
    if (this.closed) return refusal(503, 'the server is shutting down');
    const caller = this.signed(bridged.caller);
    if (caller instanceof ApiError) return refusal(caller.status, `${caller.code}: ${caller.message}`, caller.headers ?? {}, { error: { code: caller.code, message: caller.message } });
    const options = { authInfo: authInfoOf(caller) };
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId);
      // As the transport answers an unknown session: the client must initialize again.
      if (session === undefined) return refusal(404, 'Session not found');
      return this.within(session, request.method === 'POST', () => session.transport.handleRequest(request, options));
    }
    if (request.method !== 'POST') return refusal(400, 'Bad Request: Mcp-Session-Id header is required');
    if (this.sessions.size + this.pending >= this.settings.sessionsMax) {
      return refusal(503, `too many MCP sessions are open (MCP_SESSIONS_MAX ${this.settings.sessionsMax}); try again later`, { 'Retry-After': '60' });
    }
    const address = bridged.caller.remoteAddress;
    if ((this.perAddress.get(address) ?? 0) >= this.settings.sessionsPerAddressMax) {
      return refusal(429, `too many MCP sessions from this address (MCP_SESSIONS_PER_ADDRESS ${this.settings.sessionsPerAddressMax}); end one with DELETE or let one expire`);
    }
    return this.open(request, address, options);
  }

  /**
   * The caller of a request, once a signed key's signature over this HTTP request has been checked (once
   * per request, however many tool calls it carries: they then run with `signatureVerified`); the refusal
   * when it fails. Requests with any other credential, or none, pass unchanged.
   */
  private signed(caller: LocalCaller): LocalCaller | ApiError {
    try {
      return this.table.authenticator.verifySignature(caller) ? { ...caller, signatureVerified: true } : caller;
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
  }

  private countAddress(address: string, change: number): void {
    const count = (this.perAddress.get(address) ?? 0) + change;
    if (count === 0) this.perAddress.delete(address);
    else this.perAddress.set(address, count);
  }

  /** A new session's server and transport; kept only when the request was a valid initialize. */
  private async open(request: Request, address: string, options: { authInfo: ReturnType<typeof authInfoOf> }): Promise<Response> {
    const server = serveCatalogue(this.catalogue, serverVersion);
    let registered: Session | null = null;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        registered = { address, server, transport, lastSeenMs: this.clock(), open: 0 };
        this.sessions.set(id, registered);
      },
      onsessionclosed: (id) => this.drop(id),
    });
    this.pending++;
    this.countAddress(address, 1);
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, options);
      const session = registered as Session | null;
      if (session === null) {
        this.countAddress(address, -1);
        await server.close();
        return response;
      }
      return this.track(session, response);
    } catch (error) {
      const id = transport.sessionId;
      if (id !== undefined && this.sessions.has(id)) this.drop(id);
      else {
        this.countAddress(address, -1);
        await server.close();
      }
      throw error;
    } finally {
      this.pending--;
    }
  }

  /**
   * Runs one request of a known session, counting it open until its answer ends: for a POST, until its SSE
   * answer has streamed. The standing GET stream is not counted, so a client that only listens still
   * expires when it sends nothing for MCP_SESSION_IDLE_MS.
   */
  private async within(session: Session, tracks: boolean, handle: () => Promise<Response>): Promise<Response> {
    session.lastSeenMs = this.clock();
    session.open++;
    let response: Response;
    try {
      response = await handle();
    } catch (error) {
      session.open--;
      throw error;
    }
    session.open--;
    return tracks ? this.track(session, response) : response;
  }

  /** Keeps a session counted open while its SSE answer streams, by answering with a wrapped stream. */
  private track(session: Session, response: Response): Response {
    session.lastSeenMs = this.clock();
    const body = response.body;
    if (body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response;
    session.open++;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      session.open--;
      session.lastSeenMs = this.clock();
    };
    // The bridge reads the body through this wrapper: its end or cancellation (the client went away) ends the count.
    const reader = body.getReader();
    const wrapped = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const next = await reader.read();
          if (next.done) {
            end();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel: async (reason) => {
        end();
        await reader.cancel(reason);
      },
    });
    return new Response(wrapped, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  private drop(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    this.countAddress(session.address, -1);
    void session.server.close().catch((error: unknown) => this.log('mcp_session_close_failed', { session: id, error: String(error) }));
  }

  /** Closes the sessions idle for longer than the setting, with nothing open. */
  expireIdle(): void {
    const before = this.clock() - this.settings.sessionIdleMs;
    for (const [id, session] of this.sessions) {
      if (session.open === 0 && session.lastSeenMs < before) this.drop(id);
    }
  }

  /** Builds the service from the final table and serves it on `app`: what the server calls. */
  static mount(app: TemplatedApp, table: RouteTable, env: SettingsEnv, bodyBytesMax: number, clock: () => number, log: Log): McpService {
    const service = new McpService(table, mcpSettings(env), clock, log);
    service.mount(app, bodyBytesMax);
    log('mcp_mounted', { path: mcpPath, tools: service.toolCount });
    return service;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    this.perAddress.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => {})));
  }
}
