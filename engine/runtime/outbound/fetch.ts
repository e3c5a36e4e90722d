/**
 * The guarded outbound fetch: every HTTP request the project makes to another server goes through here
 * (the `http` price source now; URL analysis and due-diligence probes of the shell later), so that a URL
 * someone else chose can never make the server reach into its own network.
 *
 * A request is refused before any byte is sent when its URL is not http: or https:, carries credentials, is
 * longer than `outboundUrlCharsMax`, or when ANY address its host resolves to is not public (loopback,
 * private, link-local, shared, documentation, benchmarking, multicast, reserved; IPv6 unique-local,
 * link-local, multicast, documentation, NAT64, and IPv4-mapped or -compatible forms of the IPv4 ranges).
 * The host is resolved here, once, and the connection is made to the address that was checked: the request
 * gets a `lookup` that answers only that address, so a DNS answer that changes between the check and the
 * connect (DNS rebinding) changes nothing. Redirects are followed here, at most `outboundRedirectsMax`,
 * and every hop's URL and addresses are checked again. One deadline covers resolution, every hop and the
 * body; a body larger than the caller's cap aborts the transfer.
 *
 * `allowPrivate` (OUTBOUND_ALLOW_PRIVATE=1) lets loopback and private addresses through: it exists so that
 * tests can serve answers from 127.0.0.1, and must never be set in production.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';

/** Longest URL accepted (each hop of a redirect chain too). */
export const outboundUrlCharsMax = 2048;
/** Redirects followed at most; one more is refused. */
export const outboundRedirectsMax = 5;
/** Longest deadline a caller may set for a whole request (resolution, every hop and the body). */
export const outboundTimeoutMsMax = 60_000;
/** Largest body cap a caller may set, in bytes. */
export const outboundBytesCeiling = 16 * 1024 * 1024;
/** Body cap when the caller sets none, in bytes. */
export const outboundBytesDefault = 1024 * 1024;
/** Addresses a host may resolve to at most; more are refused rather than checked without bound. */
export const outboundAddressesMax = 32;

export type OutboundRefusal =
  | 'invalid_url'
  | 'url_too_long'
  | 'scheme_not_allowed'
  | 'credentials_in_url'
  | 'address_not_public'
  | 'too_many_addresses'
  | 'too_many_redirects'
  | 'redirect_without_location'
  | 'not_json'
  | 'invalid_json';

export class OutboundError extends Error {}

/** The request was refused by a rule of this module (never a network failure). */
export class OutboundRefusedError extends OutboundError {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(`outbound request refused (${reason}): ${message}`);
    this.name = 'OutboundRefusedError';
  }
}

export class OutboundTimeoutError extends OutboundError {
  constructor(readonly timeoutMs: number) {
    super(`outbound request took longer than ${timeoutMs} ms`);
    this.name = 'OutboundTimeoutError';
  }
}

export class OutboundTooLargeError extends OutboundError {
  constructor(readonly bytesMax: number) {
    super(`outbound response is larger than ${bytesMax} bytes`);
    this.name = 'OutboundTooLargeError';
  }
}

/** The last hop answered with a status that is neither success nor a redirect. */
export class OutboundHttpError extends OutboundError {
  constructor(readonly status: number) {
    super(`outbound request answered HTTP ${status}`);
    this.name = 'OutboundHttpError';
  }
}

/** The host did not resolve, or the connection failed or broke. */
export class OutboundNetworkError extends OutboundError {
  constructor(message: string) {
    super(`outbound request failed: ${message}`);
    this.name = 'OutboundNetworkError';
  }
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

export interface OutboundOptions {
  /** Deadline of the whole request, 1 to `outboundTimeoutMsMax` ms. */
  readonly timeoutMs: number;
  /** Body cap in bytes, 1 to `outboundBytesCeiling` (default `outboundBytesDefault`). */
  readonly bytesMax?: number;
  /** Redirects followed at most, 0 to `outboundRedirectsMax` (default `outboundRedirectsMax`). */
  readonly redirectsMax?: number;
  /** Require a JSON content type (application/json or application/…+json) on the answer. */
  readonly expectJson?: boolean;
  /** Loopback and private addresses pass (OUTBOUND_ALLOW_PRIVATE=1): for tests only, never in production. */
  readonly allowPrivate?: boolean;
  /**
   * Addresses that pass although they are not public. Tests use it to allow exactly 127.0.0.1 and see every
   * other address refused; production code leaves it unset.
   */
  readonly allowAddress?: (address: string) => boolean;
  /** Resolves a host name to all its addresses (default: the system resolver). Tests map names to 127.0.0.1. */
  readonly resolve?: (hostname: string) => Promise<readonly ResolvedAddress[]>;
  /** Aborts the request (its reason is what the request rejects with). */
  readonly signal?: AbortSignal;
  /** GET (the default) or POST. */
  readonly method?: 'GET' | 'POST';
  /**
   * A request body (POST). A request with a body follows no redirect: a 3xx answer is refused as
   * `too_many_redirects`, since a redirect would either drop the body or send it to a place the caller
   * never named.
   */
  readonly body?: string;
  /** Extra request headers (a content type, an authorization); they cannot replace the user agent. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

// --- address classification -------------------------------------------------------------------------

/** IPv4 ranges that are not public: [first address as an unsigned 32-bit integer, prefix length, name]. */
const ipv4Blocked: ReadonlyArray<readonly [number, number, string]> = [
  [0x00000000, 8, '0.0.0.0/8 (this network)'],
  [0x0a000000, 8, '10.0.0.0/8 (private)'],
  [0x64400000, 10, '100.64.0.0/10 (shared address space)'],
  [0x7f000000, 8, '127.0.0.0/8 (loopback)'],
  [0xa9fe0000, 16, '169.254.0.0/16 (link-local)'],
  [0xac100000, 12, '172.16.0.0/12 (private)'],
  [0xc0000000, 24, '192.0.0.0/24 (protocol assignments)'],
  [0xc0000200, 24, '192.0.2.0/24 (documentation)'],
  [0xc0a80000, 16, '192.168.0.0/16 (private)'],
  [0xc6120000, 15, '198.18.0.0/15 (benchmarking)'],
  [0xc6336400, 24, '198.51.100.0/24 (documentation)'],
  [0xcb007100, 24, '203.0.113.0/24 (documentation)'],
  [0xe0000000, 4, '224.0.0.0/4 (multicast)'],
  [0xf0000000, 4, '240.0.0.0/4 (reserved, with 255.255.255.255 broadcast)'],
];

/** IPv6 ranges that are not public: [the prefix's bytes, prefix length, name]. */
const ipv6Blocked: ReadonlyArray<readonly [readonly number[], number, string]> = [
  [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96, '64:ff9b::/96 (NAT64)'],
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, '100::/64 (discard)'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, '2001:db8::/32 (documentation)'],
  [[0xfc], 7, 'fc00::/7 (unique local)'],
  [[0xfe, 0x80], 10, 'fe80::/10 (link-local)'],
  [[0xfe, 0xc0], 10, 'fec0::/10 (site-local, deprecated)'],
  [[0xff], 8, 'ff00::/8 (multicast)'],
];

function ipv4Number(text: string): number | null {
  if (!isIPv4(text)) return null;
  const parts = text.split('.').map(Number);
  return (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0);
}

/** The 16 bytes of an IPv6 address (an embedded dotted IPv4 tail and a zone index are allowed). */
function ipv6Bytes(text: string): number[] | null {
  const zone = text.indexOf('%');
  let body = zone >= 0 ? text.slice(0, zone) : text;
  if (!isIPv6(body)) return null;
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4Number(tail);
    if (v4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = body.split('::');
  const head = halves[0] === '' || halves[0] === undefined ? [] : halves[0].split(':');
  const rest = halves.length > 1 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const groups = halves.length > 1 ? [...head, ...new Array<string>(8 - head.length - rest.length).fill('0'), ...rest] : head;
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const group of groups) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return bytes;
}

function matchesPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const index = bit >> 3;
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Range(value: number): string | null {
  for (const [base, bits, name] of ipv4Blocked) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === base) return name;
  }
  return null;
}

/**
 * The name of the non-public range an IP address (v4 or v6, as resolvers and Node's URL parser write
 * them) lies in, or null when it is public. Anything that is not an IP address is `not an IP address`:
 * refused like a private one.
 */
export function nonPublicRange(address: string): string | null {
  const v4 = ipv4Number(address);
  if (v4 !== null) return ipv4Range(v4);
  const bytes = ipv6Bytes(address);
  if (bytes === null) return 'not an IP address';
  const firstTen = bytes.slice(0, 10).every((byte) => byte === 0);
  const embedded = (((bytes[12]! << 24) | (bytes[13]! << 16) | (bytes[14]! << 8) | bytes[15]!) >>> 0);
  if (firstTen && bytes[10] === 0xff && bytes[11] === 0xff) {
    const range = ipv4Range(embedded);
    return range === null ? null : `IPv4-mapped ${range}`;
  }
  if (firstTen && bytes[10] === 0 && bytes[11] === 0) {
    if (embedded === 0) return ':: (unspecified)';
    if (embedded === 1) return '::1 (loopback)';
    // ::a.b.c.d (IPv4-compatible, deprecated) is judged by its IPv4 address, like the mapped form.
    const range = ipv4Range(embedded);
    return range === null ? null : `IPv4-compatible ${range}`;
  }
  // ::ffff:0:a.b.c.d (IPv4-translated) is judged by its IPv4 address as well.
  if (bytes.slice(0, 8).every((byte) => byte === 0) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0) {
    const range = ipv4Range(embedded);
    return range === null ? null : `IPv4-translated ${range}`;
  }
  for (const [prefix, bits, name] of ipv6Blocked) if (matchesPrefix(bytes, prefix, bits)) return name;
  return null;
}

// --- one request ----------------------------------------------------------------------------------

interface Guard {
  readonly allowPrivate: boolean;
  readonly allowAddress: ((address: string) => boolean) | undefined;
  readonly resolve: (hostname: string) => Promise<readonly ResolvedAddress[]>;
}

async function systemResolve(hostname: string): Promise<readonly ResolvedAddress[]> {
  return dnsLookup(hostname, { all: true, verbatim: true });
}

/** Checks a URL's form: scheme, credentials and length. */
function checkedUrl(text: string, base?: URL): URL {
  if (text.length > outboundUrlCharsMax) throw new OutboundRefusedError('url_too_long', `a URL is at most ${outboundUrlCharsMax} characters`);
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new OutboundRefusedError('invalid_url', 'not a valid absolute URL');
  }
  if (url.href.length > outboundUrlCharsMax) throw new OutboundRefusedError('url_too_long', `a URL is at most ${outboundUrlCharsMax} characters`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError('scheme_not_allowed', `only http: and https: are allowed, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new OutboundRefusedError('credentials_in_url', 'a URL may not carry a user name or password');
  return url;
}

/** Resolves the URL's host (or takes its literal address) and checks every address; answers the one to connect to. */
async function checkedAddress(url: URL, guard: Guard): Promise<ResolvedAddress> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  let addresses: readonly ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await guard.resolve(host);
    } catch (error) {
      throw new OutboundNetworkError(`${host} did not resolve (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (addresses.length === 0) throw new OutboundNetworkError(`${host} resolved to no address`);
  if (addresses.length > outboundAddressesMax) throw new OutboundRefusedError('too_many_addresses', `${host} resolved to more than ${outboundAddressesMax} addresses`);
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range === null || guard.allowPrivate) continue;
    if (guard.allowAddress !== undefined && guard.allowAddress(address)) continue;
    throw new OutboundRefusedError('address_not_public', `${host} resolves to ${address} in ${range}`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: isIP(first.address) };
}

/** A lookup that answers only the checked address, whatever the host name: the connection is pinned to it. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

interface Hop {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One hop: connects to the pinned address, and reads the body unless the answer is a redirect or an error. */
function requestHop(url: URL, pinned: ResolvedAddress, options: OutboundOptions, bytesMax: number, signal: AbortSignal): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: options.method ?? 'GET',
      agent: false,
      lookup: pinnedLookup(pinned),
      headers: {
        accept: options.expectJson === true ? 'application/json' : '*/*',
        ...options.headers,
        'user-agent': 'trading-platform-outbound/1',
        ...(body === undefined ? {} : { 'content-length': String(body.length) }),
      },
    });
    const finish = (error: unknown, hop?: Hop): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error !== null) {
        request.destroy();
        reject(error);
      } else {
        resolve(hop!);
      }
    };
    const onAbort = (): void => finish(signal.reason);
    signal.addEventListener('abort', onAbort);
    request.on('error', (error) => finish(signal.aborted ? signal.reason : new OutboundNetworkError(error.message)));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (redirectStatuses.has(status) || status < 200 || status > 299) {
        // Redirects and errors are judged by their status alone; their bodies are never read.
        finish(null, { status, headers: response.headers, body: Buffer.alloc(0) });
        request.destroy();
        return;
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > bytesMax) {
        finish(new OutboundTooLargeError(bytesMax));
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > bytesMax) finish(new OutboundTooLargeError(bytesMax));
        else chunks.push(chunk);
      });
      response.on('end', () => finish(null, { status, headers: response.headers, body: Buffer.concat(chunks, bytes) }));
      response.on('error', (error) => finish(signal.aborted ? signal.reason : new OutboundNetworkError(error.message)));
      response.on('aborted', () => finish(signal.aborted ? signal.reason : new OutboundNetworkError('the response was cut short')));
    });
    if (signal.aborted) finish(signal.reason);
    else request.end(body);
  });
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function boundedInteger(value: number, low: number, high: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < low || value > high) throw new RangeError(`${name} must be an integer in ${low}..${high}`);
  return value;
}

/**
 * GETs `target` (or POSTs `body` to it) under the rules above and answers the final 2xx response with its
 * whole body. Rejects with OutboundRefusedError (a rule refused it), OutboundTimeoutError,
 * OutboundTooLargeError, OutboundHttpError (a non-2xx final status) or OutboundNetworkError; with the
 * caller's abort reason when its signal aborts.
 */
export async function outboundFetch(target: string, options: OutboundOptions): Promise<OutboundResponse> {
  const timeoutMs = boundedInteger(options.timeoutMs, 1, outboundTimeoutMsMax, 'timeoutMs');
  const bytesMax = boundedInteger(options.bytesMax ?? outboundBytesDefault, 1, outboundBytesCeiling, 'bytesMax');
  const redirectsMax = options.body !== undefined ? 0 : boundedInteger(options.redirectsMax ?? outboundRedirectsMax, 0, outboundRedirectsMax, 'redirectsMax');
  const guard: Guard = { allowPrivate: options.allowPrivate === true, allowAddress: options.allowAddress, resolve: options.resolve ?? systemResolve };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new OutboundTimeoutError(timeoutMs)), timeoutMs);
  const outer = options.signal;
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  if (outer !== undefined) {
    if (outer.aborted) onOuterAbort();
    else outer.addEventListener('abort', onOuterAbort, { once: true });
  }
  try {
    let url = checkedUrl(target);
    for (let redirects = 0; ; redirects++) {
      const pinned = await untilAborted(checkedAddress(url, guard), controller.signal);
      const hop = await requestHop(url, pinned, options, bytesMax, controller.signal);
      if (!redirectStatuses.has(hop.status)) {
        if (hop.status < 200 || hop.status > 299) throw new OutboundHttpError(hop.status);
        if (options.expectJson === true && !isJsonType(hop.headers['content-type'])) {
          throw new OutboundRefusedError('not_json', `the answer's content type is ${hop.headers['content-type'] ?? 'missing'}, not JSON`);
        }
        return { url: url.href, status: hop.status, headers: hop.headers, body: hop.body };
      }
      const location = hop.headers.location;
      if (location === undefined || location === '') throw new OutboundRefusedError('redirect_without_location', `HTTP ${hop.status} without a Location`);
      if (redirects >= redirectsMax) throw new OutboundRefusedError('too_many_redirects', `more than ${redirectsMax} redirects`);
      url = checkedUrl(location, url);
    }
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

const jsonType = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && jsonType.test(contentType);
}

/** outboundFetch with a JSON content type required, and the body parsed (UTF-8). */
export async function outboundFetchJson(target: string, options: OutboundOptions): Promise<unknown> {
  const response = await outboundFetch(target, { ...options, expectJson: true });
  try {
    return JSON.parse(response.body.toString('utf8')) as unknown;
  } catch {
    throw new OutboundRefusedError('invalid_json', 'the answer is not valid JSON');
  }
}
