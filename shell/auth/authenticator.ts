/**
 * Who is calling, and may they: the one place that turns request headers into a principal for a route's
 * auth kind, checks the key's permission and counts the request against its rate limit.
 * `none` needs nothing; `admin` needs X-API-Key equal to ADMIN_API_KEY; `bearer` a full access token in
 * `Authorization: Bearer …`; `key` an API key in X-API-Key; `bearer_or_key` either; `optional` either when
 * the request carries one and nothing otherwise. The `calculator` class counts per client address whatever
 * the credentials. A key marked `signed` must also carry a valid, fresh, unused signature (signatures.ts)
 * over the HTTP request, the MCP request that carries a tool call, or a private stream's subscribe frame;
 * other keys cost what they always did: one map lookup.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.ts';
import type { AuthKind, Permission, Principal, RateLimitClass } from './access.ts';
import type { Tokens } from './tokens.ts';
import type { ApiKeys } from './api-keys.ts';
import { SignatureGuard, type SignedParts } from './signatures.ts';
import { defaultAuthSettings } from './settings.ts';
import { anonymousGeneralPerMinute, calculatorPerMinute, credentialAttemptsPerMinute, generalPerMinute, ordersPerMinute, type RateFigures, type RateLimiter } from './rate-limit.ts';

const sessionPermissions: readonly Permission[] = ['read', 'trade'];
const adminPrincipal: Principal = { userId: 0, keyId: 0, permissions: sessionPermissions, tier: 'ADMIN', requestsPerMinute: null, via: 'key' };

/** Compares two secrets in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What a route asks of its caller: the auth kind, the key permission and the rate-limit class. */
export interface AccessRule {
  readonly auth: AuthKind;
  readonly permission?: Permission;
  readonly rateLimit: RateLimitClass;
}

/** The credentials a request carries: header values ('' when absent) and the client's address. */
export interface Credentials {
  readonly apiKey: string;
  readonly authorization: string;
  /** Read only for routes limited per address ('' otherwise). */
  readonly remoteAddress: string;
  /** X-Timestamp and X-Signature ('' or absent when not sent), read only for signed keys. */
  readonly timestamp?: string;
  readonly signature?: string;
  /**
   * What a signature covers: the HTTP request as sent, or a stream's subscribe (method SUBSCRIBE and the
   * stream's path). Absent, a signed key is refused: nothing was signed.
   */
  readonly signedParts?: SignedParts;
  /**
   * Set by a transport that checked the signature of the request carrying these credentials itself
   * (`verifySignature`): the MCP service checks each HTTP request once, however many tool calls it
   * carries, and its in-process calls then need no signature of their own.
   */
  readonly signatureVerified?: boolean;
}

export class Authenticator {
  constructor(
    private readonly tokens: Tokens,
    private readonly keys: ApiKeys,
    private readonly limiter: RateLimiter,
    private readonly adminApiKey: string,
    private readonly signatures: SignatureGuard = new SignatureGuard(defaultAuthSettings.signatureWindowMs, Date.now),
  ) {}

  /**
   * The principal (null for `none`) after counting `weight` requests against the caller's limit; the
   * figures for the X-RateLimit-* headers go into `figures` (left clear when the route is not limited).
   * Throws ApiError 401/403/429. Async only when a bearer token must be verified.
   */
  authenticate(rule: AccessRule, weight: number, credentials: Credentials, figures: RateFigures): Principal | null | Promise<Principal> {
    if (rule.rateLimit === 'calculator') {
      this.limitAddress(rule.rateLimit, weight, credentials.remoteAddress, figures);
      return this.authenticate({ ...rule, rateLimit: 'none' }, weight, credentials, figures);
    }
    switch (rule.auth) {
      case 'optional':
        if (credentials.apiKey === '' && credentials.authorization === '') {
          this.limitAddress(rule.rateLimit, weight, credentials.remoteAddress, figures);
          return null;
        }
        return this.authenticate({ ...rule, auth: 'bearer_or_key' }, weight, credentials, figures);
      case 'none':
        this.limitAddress(rule.rateLimit, weight, credentials.remoteAddress, figures);
        return null;
      case 'admin':
        return this.admin(credentials.apiKey);
      case 'key':
        return this.limit(rule.rateLimit, weight, this.key(credentials, rule.permission), figures);
      case 'bearer':
        return this.bearer(credentials.authorization).then((principal) => this.limit(rule.rateLimit, weight, principal, figures));
      case 'bearer_or_key':
        if (credentials.apiKey !== '') return this.limit(rule.rateLimit, weight, this.key(credentials, rule.permission), figures);
        return this.bearer(credentials.authorization).then((principal) => this.limit(rule.rateLimit, weight, principal, figures));
    }
  }

  /**
   * Checks the signature of a request whose X-API-Key is a signed key (throws ApiError 401 as
   * `authenticate` would); true when it did, false when there was nothing to check (no key, an unknown
   * one, which the call itself refuses, or an unsigned one). For transports that run calls in-process.
   */
  verifySignature(credentials: Credentials): boolean {
    if (credentials.apiKey === '') return false;
    const key = this.keys.find(credentials.apiKey);
    if (key === null || !key.signed) return false;
    this.checkSignature(key.id, key.hmacKey, credentials);
    return true;
  }

  private checkSignature(keyId: number, hmacKey: Buffer | null, credentials: Credentials): void {
    if (hmacKey === null) throw new Error(`signed API key ${keyId} has no sealed secret`);
    this.signatures.check(hmacKey, { timestamp: credentials.timestamp ?? '', signature: credentials.signature ?? '' }, credentials.signedParts ?? null);
  }

  private admin(apiKey: string): Principal {
    if (this.adminApiKey === '') throw new ApiError(404, 'NOT_FOUND', 'admin routes are disabled (ADMIN_API_KEY is not set)');
    if (apiKey === '') throw new ApiError(401, 'UNAUTHENTICATED', 'X-API-Key header required');
    if (!sameText(apiKey, this.adminApiKey)) throw new ApiError(403, 'FORBIDDEN', 'this key may not use admin routes');
    return adminPrincipal;
  }

  private key(credentials: Credentials, permission: Permission | undefined): Principal {
    const apiKey = credentials.apiKey;
    if (apiKey === '') throw new ApiError(401, 'UNAUTHENTICATED', 'X-API-Key header required');
    const key = this.keys.find(apiKey);
    if (key === null) throw new ApiError(401, 'INVALID_API_KEY', 'the API key is unknown or revoked');
    if (key.signed && credentials.signatureVerified !== true) this.checkSignature(key.id, key.hmacKey, credentials);
    if (permission !== undefined && !key.permissions.includes(permission)) {
      throw new ApiError(403, 'PERMISSION_DENIED', `this key lacks the ${permission} permission`);
    }
    return key.principal;
  }

  private async bearer(authorization: string): Promise<Principal> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match === null) throw new ApiError(401, 'UNAUTHENTICATED', 'Authorization: Bearer <access token> or X-API-Key required');
    const userId = await this.tokens.verifyAccess(match[1]!);
    return { userId, keyId: 0, permissions: sessionPermissions, tier: 'STANDARD', requestsPerMinute: null, via: 'session' };
  }

  /** Routes without credentials count per client address (a login or code attempt at the stricter limit). */
  private limitAddress(rateLimit: RateLimitClass, weight: number, address: string, figures: RateFigures): void {
    if (rateLimit === 'none') return;
    const limit = rateLimit === 'credentials' ? credentialAttemptsPerMinute : rateLimit === 'calculator' ? calculatorPerMinute : anonymousGeneralPerMinute;
    if (!this.limiter.takeAddress(rateLimit, address, limit, weight, figures)) {
      throw new ApiError(429, 'RATE_LIMITED', `rate limit of ${limit} per minute from this address exceeded`);
    }
  }

  private limit(rateLimit: RateLimitClass, weight: number, principal: Principal, figures: RateFigures): Principal {
    if (rateLimit === 'none') return principal;
    const perMinute = rateLimit === 'orders' ? ordersPerMinute : generalPerMinute;
    const limit = principal.requestsPerMinute ?? perMinute[principal.tier];
    // Keys and users have separate id spaces: a session counts under its user's id negated.
    const subject = principal.keyId !== 0 ? principal.keyId : -principal.userId;
    if (!this.limiter.takeSubject(rateLimit, subject, limit, weight, figures)) {
      throw new ApiError(429, 'RATE_LIMITED', `rate limit of ${limit} per minute exceeded`);
    }
    return principal;
  }
}
