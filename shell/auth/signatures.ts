/**
 * Signed requests (README "Signed requests"): a key marked `signed` must send X-Timestamp (Unix ms) and
 * X-Signature, the hex HMAC-SHA256 under the key's secret of the canonical string
 *
 *   timestamp "\n" METHOD "\n" path "\n" query "\n" body
 *
 * where query is the raw query string as sent (without "?") and body the exact bytes sent (empty for
 * routes that take no body). A timestamp further than the receive window from the server's clock is
 * refused, and so is a signature already accepted while it could still be within the window: a captured
 * request cannot be sent again.
 *
 * The same string signs the other ways in: an MCP request (the HTTP POST, GET or DELETE to /mcp/v1, as
 * sent) and a private stream's subscribe frame, whose method is SUBSCRIBE and path the stream's, with an
 * empty query and body (`subscribeParts`). One guard serves them all, so a signature is used once anywhere.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.ts';

/** What a signature covers, as the request carried it. */
export interface SignedParts {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  /** The body's bytes; null when the route read none. */
  readonly rawBody: Buffer | null;
}

/** The signature headers ('' when absent). */
export interface SignatureHeaders {
  readonly timestamp: string;
  readonly signature: string;
}

/**
 * Signatures remembered at once. A signature is remembered for twice the window (the longest it could
 * still pass the timestamp check), so this bounds signed requests per such span; past it they wait.
 */
export const rememberedSignaturesMax = 500_000;
const timestampPattern = /^[0-9]{1,16}$/;
const signaturePattern = /^[0-9a-fA-F]{64}$/;
const emptyBody = Buffer.alloc(0);

/** What a subscribe frame's signature covers on the stream at `path`: `timestamp\nSUBSCRIBE\n<path>\n\n`. */
export function subscribeParts(path: string): SignedParts {
  return { method: 'SUBSCRIBE', path, rawQuery: '', rawBody: null };
}

/** The hex HMAC-SHA256 of a request's canonical string (clients compute the same). */
export function signatureOf(secret: Buffer | string, timestamp: string, parts: SignedParts): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}\n${parts.method}\n${parts.path}\n${parts.rawQuery}\n`)
    .update(parts.rawBody ?? emptyBody)
    .digest('hex');
}

export class SignatureGuard {
  /** Accepted signatures (lower-case hex) -> when they may be forgotten; insertion order is time order. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly clock: () => number,
  ) {}

  /** How many signatures are remembered now. */
  get remembered(): number {
    return this.seen.size;
  }

  /** Throws ApiError 401 unless the request carries a fresh, correct signature not seen before. */
  check(hmacKey: Buffer, headers: SignatureHeaders, parts: SignedParts | null): void {
    if (headers.timestamp === '' || headers.signature === '' || parts === null) {
      throw new ApiError(
        401,
        'SIGNATURE_REQUIRED',
        'this API key is signed: send X-Timestamp and X-Signature (on the private stream: timestamp and signature in the subscribe frame; README "Signed requests")',
      );
    }
    if (!timestampPattern.test(headers.timestamp)) throw new ApiError(401, 'TIMESTAMP_OUTSIDE_WINDOW', 'X-Timestamp must be Unix time in milliseconds');
    const nowMs = this.clock();
    if (Math.abs(nowMs - Number(headers.timestamp)) > this.windowMs) {
      throw new ApiError(401, 'TIMESTAMP_OUTSIDE_WINDOW', `X-Timestamp is more than ${this.windowMs} ms from the server's time (${nowMs})`);
    }
    if (!signaturePattern.test(headers.signature)) throw new ApiError(401, 'SIGNATURE_INVALID', 'X-Signature must be 64 hex digits (HMAC-SHA256)');
    const expected = Buffer.from(signatureOf(hmacKey, headers.timestamp, parts), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(headers.signature, 'hex'))) {
      throw new ApiError(401, 'SIGNATURE_INVALID', 'X-Signature does not match the canonical string signed with the API secret');
    }
    const seenKey = headers.signature.toLowerCase();
    this.forget(nowMs);
    if (this.seen.has(seenKey)) throw new ApiError(401, 'SIGNATURE_REPLAYED', 'this signature was already used; sign each request anew');
    if (this.seen.size >= rememberedSignaturesMax) {
      throw new ApiError(503, 'BUSY', 'too many signed requests in the receive window; retry shortly', { 'Retry-After': '1' });
    }
    this.seen.set(seenKey, nowMs + 2 * this.windowMs);
  }

  /** Drops the signatures that can no longer pass the timestamp check. */
  private forget(nowMs: number): void {
    for (const [signature, untilMs] of this.seen) {
      if (untilMs > nowMs) return;
      this.seen.delete(signature);
    }
  }
}
