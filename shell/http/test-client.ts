/** A small JSON client for the shell's tests: one request per connection, the status, headers and body. */
import type { RunningServer } from '../server.ts';

export interface JsonResponse {
  status: number;
  headers: Headers;
  // Tests read arbitrary fields of the answers they check.
  json: Record<string, any>;
}

export async function call(server: RunningServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    headers: { connection: 'close', 'content-type': 'application/json', ...headers },
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, any> };
}
