/**
 * Who is calling, and may they: the one place that turns request headers into a principal for a route's
 * auth kind, checks the key's permission and counts the request against its rate limit.
 * `none` needs nothing; `admin` needs X-API-Key equal to ADMIN_API_KEY; `bearer` a full access token in
 * `Authorization: Bearer …`; `key` an API key in X-API-Key; `bearer_or_key` either.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.ts';
import { remoteAddressHeader, type AuthKind, type RateLimitClass } from '../http/route-table.ts';
import type { Tokens } from './tokens.ts';
import type { ApiKeys, Permission, Tier } from './api-keys.ts';
import { anonymousGeneralPerMinute, credentialAttemptsPerMinute, generalPerMinute, ordersPerMinute, type RateLimiter } from './rate-limit.ts';

export interface Principal {
  readonly userId: number;
  /** The API key used, or 0 for a bearer session. */
  readonly keyId: number;
  readonly permissions: readonly Permission[];
  readonly tier: Tier;
  /** An agent key's registered rate, used for every class instead of the tier's limits. */
  readonly requestsPerMinute: number | null;
}

const adminPrincipal: Principal = { userId: 0, keyId: 0, permissions: ['read', 'trade'], tier: 'ADMIN', requestsPerMinute: null };

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export interface Access {
  readonly auth: AuthKind;
  readonly permission?: Permission;
  readonly rateLimit: RateLimitClass;
  /** Requests this call counts as (a batch counts each order). */
  readonly weight: number;
}

export class Authenticator {
  constructor(
    private readonly tokens: Tokens,
    private readonly keys: ApiKeys,
    private readonly limiter: RateLimiter,
    private readonly adminApiKey: string,
  ) {}

  /**
   * The principal (null for `none`) and the rate-limit headers to send; throws ApiError 401/403/429.
   * Async only when a bearer token must be verified.
   */
  authenticate(access: Access, header: (name: string) => string): Result | Promise<Result> {
    switch (access.auth) {
      case 'none':
        return this.limitAddress(access, header(remoteAddressHeader));
      case 'admin':
        return { principal: this.admin(header), headers: {} };
      case 'key':
        return this.limit(access, this.key(header('x-api-key'), access));
      case 'bearer':
        return this.bearer(header('authorization')).then((principal) => this.limit(access, principal));
      case 'bearer_or_key': {
        const key = header('x-api-key');
        if (key !== '') return this.limit(access, this.key(key, access));
        return this.bearer(header('authorization')).then((principal) => this.limit(access, principal));
      }
    }
  }

  private admin(header: (name: string) => string): Principal {
    if (this.adminApiKey === '') throw new ApiError(404, 'NOT_FOUND', 'admin routes are disabled (ADMIN_API_KEY is not set)');
    const key = header('x-api-key');
    if (key === '') throw new ApiError(401, 'UNAUTHENTICATED', 'X-API-Key header required');
    if (!sameText(key, this.adminApiKey)) throw new ApiError(403, 'FORBIDDEN', 'this key may not use admin routes');
    return adminPrincipal;
  }

  private key(apiKey: string, access: Access): Principal {
    if (apiKey === '') throw new ApiError(401, 'UNAUTHENTICATED', 'X-API-Key header required');
    const key = this.keys.find(apiKey);
    if (key === null) throw new ApiError(401, 'INVALID_API_KEY', 'the API key is unknown or revoked');
    if (access.permission !== undefined && !key.permissions.includes(access.permission)) {
      throw new ApiError(403, 'PERMISSION_DENIED', `this key lacks the ${access.permission} permission`);
    }
    return { userId: key.userId, keyId: key.id, permissions: key.permissions, tier: key.tier, requestsPerMinute: key.requestsPerMinute };
  }

  private async bearer(authorization: string): Promise<Principal> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match === null) throw new ApiError(401, 'UNAUTHENTICATED', 'Authorization: Bearer <access token> or X-API-Key required');
    const userId = await this.tokens.verifyAccess(match[1]!);
    return { userId, keyId: 0, permissions: ['read', 'trade'], tier: 'STANDARD', requestsPerMinute: null };
  }

  /** Routes without credentials count per client address (a login or code attempt at the stricter limit). */
  private limitAddress(access: Access, address: string): Result {
    if (access.rateLimit === 'none') return { principal: null, headers: {} };
    const limit = access.rateLimit === 'credentials' ? credentialAttemptsPerMinute : anonymousGeneralPerMinute;
    const decision = this.limiter.take(`address:${address}`, access.rateLimit, limit, access.weight);
    if (!decision.allowed) throw new ApiError(429, 'RATE_LIMITED', `rate limit of ${limit} per minute from this address exceeded`, decision.headers);
    return { principal: null, headers: decision.headers };
  }

  private limit(access: Access, principal: Principal): Result {
    if (access.rateLimit === 'none') return { principal, headers: {} };
    const perMinute = access.rateLimit === 'orders' ? ordersPerMinute : generalPerMinute;
    const subject = principal.keyId !== 0 ? `key:${principal.keyId}` : `user:${principal.userId}`;
    const limit = principal.requestsPerMinute ?? perMinute[principal.tier];
    const decision = this.limiter.take(subject, access.rateLimit, limit, access.weight);
    if (!decision.allowed) throw new ApiError(429, 'RATE_LIMITED', `rate limit of ${decision.headers['X-RateLimit-Limit']} per minute exceeded`, decision.headers);
    return { principal, headers: decision.headers };
  }
}

export interface Result {
  readonly principal: Principal | null;
  readonly headers: Record<string, string>;
}
