/**
 * The authentication settings (README "Settings"): the receive window of signed requests, the issuer and
 * audience of access tokens, and what a Sign-In with Ethereum message must name. Read once at start from
 * the configuration's environment.
 */
import { integer, type SettingsEnv } from '../config.ts';

export interface AuthSettings {
  /** How far X-Timestamp may be from the server's clock, either way (API_SIGNATURE_WINDOW_MS). */
  readonly signatureWindowMs: number;
  /** The `iss` of access tokens, checked on every verification (JWT_ISSUER). */
  readonly jwtIssuer: string;
  /** The `aud` of access tokens, checked on every verification (JWT_AUDIENCE). */
  readonly jwtAudience: string;
  /** The domain (RFC 3986 authority) a SIWE message must name; '' means the request's Host header (SIWE_DOMAIN). */
  readonly siweDomain: string;
  /** The EIP-155 chain id a SIWE message must name (SIWE_CHAIN_ID). */
  readonly siweChainId: number;
  /** How long a SIWE nonce stays usable, and the oldest issued-at a message may have (SIWE_NONCE_TTL_MS). */
  readonly siweNonceTtlMs: number;
}

/** Names: printable ASCII without spaces, as JWT claims and authorities are compared byte for byte. */
const namePattern = /^[\x21-\x7e]{1,200}$/;

function name(env: SettingsEnv, key: string, fallback: string): string {
  const text = (env[key] ?? '').trim();
  if (text === '') return fallback;
  if (!namePattern.test(text)) throw new Error(`${key} must be 1..200 printable characters without spaces`);
  return text;
}

export function authSettings(env: SettingsEnv): AuthSettings {
  return {
    signatureWindowMs: integer(env, 'API_SIGNATURE_WINDOW_MS', 5000, 1000, 60_000),
    jwtIssuer: name(env, 'JWT_ISSUER', 'trading-platform'),
    jwtAudience: name(env, 'JWT_AUDIENCE', 'trading-platform-api'),
    siweDomain: name(env, 'SIWE_DOMAIN', ''),
    siweChainId: integer(env, 'SIWE_CHAIN_ID', 1, 1, Number.MAX_SAFE_INTEGER),
    siweNonceTtlMs: integer(env, 'SIWE_NONCE_TTL_MS', 5 * 60_000, 10_000, 3600_000),
  };
}

export const defaultAuthSettings: AuthSettings = authSettings({});
