/**
 * The words of access control that the route table, the authenticator, the API keys and the rate limiter
 * all speak: who a caller is (Principal), what a key may do (Permission), its tier, how a route
 * authenticates (AuthKind) and which rate limit it counts against (RateLimitClass). A leaf file, so that
 * those four can name each other's terms without importing each other.
 */

export const tiers = ['STANDARD', 'PREMIUM', 'MARKET_MAKER', 'ADMIN'] as const;
export type Tier = (typeof tiers)[number];
export type Permission = 'read' | 'trade';

/**
 * `optional` reads credentials when the request carries them (as `bearer_or_key`: a bad one is refused) and
 * otherwise serves the caller anonymously (principal null, limited per address as `none`): public reads that
 * add the caller's own rows when they know who asks.
 */
export type AuthKind = 'none' | 'admin' | 'bearer' | 'key' | 'bearer_or_key' | 'optional';
/**
 * `general` and `orders` count per key (or per user for bearer sessions), per client address on routes
 * without credentials; `credentials` counts sign-ups, logins, refreshes and code checks per address;
 * `calculator` counts per client address always (keyed or not), at its own lower limit: public calculators
 * that anyone may call but none should hammer.
 */
export type RateLimitClass = 'none' | 'general' | 'orders' | 'credentials' | 'calculator';
/**
 * A credential a handler checks itself, beyond its auth kind: `limitedBearer` is the short-lived token a
 * login with 2FA on answers, which only POST /auth/2fa/verify takes (its auth kind is `none`, since the
 * authenticator accepts full access tokens only). Declared on the route so discovery documents show it.
 */
export type HandlerCredential = 'limitedBearer';

export interface Principal {
  readonly userId: number;
  /** The API key used, or 0 for a bearer session. */
  readonly keyId: number;
  readonly permissions: readonly Permission[];
  readonly tier: Tier;
  /** An agent key's registered rate, used for every class instead of the tier's limits. */
  readonly requestsPerMinute: number | null;
  /** How the caller authenticated: a login session, a user's API key, or an agent's `mcp_` key. */
  readonly via: 'session' | 'key' | 'agent';
}
