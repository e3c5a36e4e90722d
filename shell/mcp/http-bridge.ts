/**
 * uWS to web standards and back, for the SDK's web-standard transport: a web `Request` made from the uWS
 * request (method, headers, URL, the body read within BODY_BYTES_MAX), and the web `Response` written back
 * through uWS: status and headers, then the body at once (JSON) or chunk by chunk as it comes (SSE),
 * waiting for the socket to drain when uWS reports backpressure, and cancelling the stream when the client
 * goes away.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { LocalCaller } from '../http/route-table.ts';

/**
 * A request for the MCP service: the web Request, and the caller its headers and socket name, with what a
 * signed key's signature covers (the request as sent).
 */
export interface BridgedRequest {
  readonly request: Request;
  readonly caller: LocalCaller;
}

/** Response headers uWS writes itself (it frames the body: length or chunked encoding). */
const framingHeaders = new Set(['content-length', 'transfer-encoding', 'connection']);

/** Reason phrases of the statuses the transport and this service answer (the web Response carries none). */
const reasons: Readonly<Record<number, string>> = {
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** One bridged request: whether the client is still there, and how to wake a writer waiting on the socket. */
class Bridge {
  aborted = false;
  private readonly abort = new AbortController();
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly onError: (error: unknown) => void,
  ) {
    res.onAborted(() => {
      this.aborted = true;
      this.abort.abort();
      void this.reader?.cancel().catch(() => {});
      this.wake?.();
    });
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** A plain answer made here (body too large, unreadable headers), as JSON-RPC error text. */
  refuse(status: number, message: string): void {
    void this.send(new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), { status, headers: { 'Content-Type': 'application/json' } }));
  }

  private head(response: Response): void {
    this.res.writeStatus(`${response.status} ${response.statusText || (reasons[response.status] ?? 'Status')}`);
    response.headers.forEach((value, key) => {
      if (!framingHeaders.has(key)) this.res.writeHeader(key, value);
    });
  }

  /** Writes the response: at once, or streamed for SSE. */
  async send(response: Response): Promise<void> {
    try {
      const body = response.body;
      const streams = body !== null && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
      if (!streams) {
        const bytes = body === null ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer());
        if (this.aborted) return;
        this.res.cork(() => {
          this.head(response);
          this.res.end(bytes);
        });
        return;
      }
      const reader = body.getReader();
      this.reader = reader;
      if (this.aborted) {
        await reader.cancel();
        return;
      }
      // An empty write sends the status and headers now: a client waits for them before it reads events.
      this.res.cork(() => {
        this.head(response);
        this.res.write('');
      });
      for (;;) {
        const next = await reader.read();
        if (this.aborted) return;
        if (next.done) {
          this.res.cork(() => this.res.end());
          return;
        }
        let drained = true;
        this.res.cork(() => {
          drained = this.res.write(next.value);
        });
        if (!drained) await this.drain();
        if (this.aborted) return;
      }
    } catch (error) {
      this.onError(error);
      if (!this.aborted) this.res.cork(() => this.res.close());
    }
  }

  /** Resolves when uWS can take more (or the client has gone). */
  private drain(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.res.onWritable(() => {
        this.wake = null;
        resolve();
        return true;
      });
    });
  }
}

/** A Host header fit for a URL; anything else is read as localhost (the Host check reads the header itself). */
function urlHost(host: string): string {
  return /^[a-z0-9.\-]+(:[0-9]+)?$|^\[[0-9a-f:.]+\](:[0-9]+)?$/i.test(host) ? host : 'localhost';
}

/**
 * Serves one uWS request through `handle`. uWS's request object is valid only during this call, so
 * everything is read from it first; the body (POST) arrives later through onData.
 */
export function bridgeRequest(res: HttpResponse, req: HttpRequest, bodyBytesMax: number, handle: (request: BridgedRequest) => Promise<Response>, onError: (error: unknown) => void): void {
  const bridge = new Bridge(res, onError);
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const query = req.getQuery() ?? '';
  const path = req.getUrl();
  const headers = new Headers();
  try {
    req.forEach((key, value) => headers.append(key, value));
  } catch {
    return bridge.refuse(400, 'Bad Request: unreadable headers');
  }
  const host = headers.get('host') ?? '';
  const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
  const url = `http://${urlHost(host)}${path}${query === '' ? '' : `?${query}`}`;
  const run = (bytes: Buffer | null): void => {
    // A signed key's signature covers this request as sent: method, path, raw query and the body's bytes.
    const caller: LocalCaller = {
      apiKey: headers.get('x-api-key') ?? '',
      authorization: headers.get('authorization') ?? '',
      remoteAddress,
      host,
      idempotencyKey: headers.get('idempotency-key') ?? '',
      timestamp: headers.get('x-timestamp') ?? '',
      signature: headers.get('x-signature') ?? '',
      signedParts: { method, path, rawQuery: query, rawBody: bytes },
    };
    const request = new Request(url, { method, headers, body: bytes === null ? undefined : bytes.toString('utf8'), signal: bridge.signal });
    handle({ request, caller }).then(
      (response) => bridge.send(response),
      (error: unknown) => {
        onError(error);
        bridge.refuse(500, 'Internal error');
      },
    );
  };
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE') return run(null);
  let chunks: Buffer[] | null = [];
  let size = 0;
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (size > bodyBytesMax) {
      chunks = null;
      if (isLast) bridge.refuse(413, `request body over ${bodyBytesMax} bytes`);
      return;
    }
    if (chunks === null) return;
    // uWS reuses the chunk's memory after this call: copy it.
    chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) run(Buffer.concat(chunks, size));
  });
}
