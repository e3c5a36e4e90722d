/**
 * What every stream does with frames the same way: send a message in the connection's encoding (JSON text
 * or msgpack binary), answer an error in the API's error shape, read a client frame into an object, and
 * count the bytes its sockets have not sent yet; and the socket settings every stream mounts with.
 */
import uWS, { type WebSocket } from 'uWebSockets.js';
import { decode, encode } from '@msgpack/msgpack';

export type Encoding = 'json' | 'msgpack';

/** Largest client frame a stream reads (subscribe and unsubscribe frames are far smaller). */
export const clientMessageBytesMax = 4096;

/**
 * The uWS socket settings of every stream: no compression, small client frames, a connection closed when
 * its unsent bytes pass `backpressureBytes` (a slow reader never holds the server's memory), pings.
 */
export function streamSocketOptions(backpressureBytes: number) {
  return {
    compression: uWS.DISABLED,
    maxPayloadLength: clientMessageBytesMax,
    maxBackpressure: backpressureBytes,
    closeOnBackpressureLimit: 1,
    idleTimeout: 120,
    sendPingsAutomatically: true,
  } as const;
}

/** Sends `message` in the connection's encoding. */
export function sendFrame(ws: WebSocket<{ readonly encoding: Encoding }>, message: object): void {
  if (ws.getUserData().encoding === 'msgpack') ws.send(encode(message), true);
  else ws.send(JSON.stringify(message), false);
}

/** Answers a client frame with `{"type":"error","error":{code,message}}`. */
export function refuseFrame(ws: WebSocket<{ readonly encoding: Encoding }>, code: string, message: string): void {
  sendFrame(ws, { type: 'error', error: { code, message } });
}

/** A client frame read as an object, or the refusal to answer it with. */
export type ClientFrame = { readonly ok: true; readonly message: Record<string, unknown> } | { readonly ok: false; readonly code: string; readonly reason: string };

/** Decodes a client frame (msgpack when binary, JSON text otherwise); only an object is a request. */
export function readClientFrame(data: ArrayBuffer, isBinary: boolean): ClientFrame {
  let request: unknown;
  try {
    request = isBinary ? decode(new Uint8Array(data)) : JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return { ok: false, code: isBinary ? 'MALFORMED_MSGPACK' : 'MALFORMED_JSON', reason: 'message is not valid' };
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return { ok: false, code: 'VALIDATION_FAILED', reason: 'message: must be an object' };
  return { ok: true, message: request as Record<string, unknown> };
}

/** Bytes written to these sockets that the kernel has not taken yet (the metrics' send backlog). */
export function backlogBytes(sockets: Iterable<WebSocket<unknown>>): number {
  let bytes = 0;
  for (const ws of sockets) bytes += ws.getBufferedAmount();
  return bytes;
}
