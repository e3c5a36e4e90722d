/**
 * Session tokens. Access tokens are short-lived JWTs (HS256, jose) naming the user, with a unique id
 * (`jti`), the deployment's issuer and audience (`iss`, `aud`: settings, checked on every verification)
 * and their session's family (`fam`); refresh tokens are opaque random strings, stored hashed, that
 * rotate on every use. Each login starts a family; presenting a refresh token that was already used means
 * it leaked, so the whole family is revoked: its refresh tokens, and at once every access token issued
 * to it (the family joins a revocation set that every bearer verification checks, for as long as an
 * access token of the family could still be unexpired; the set is kept in the database so a restart
 * keeps it).
 * The signing secret is made on first start and kept in the database.
 */
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { namedSecret, type Db } from '../store/database.ts';
import { ApiError } from '../http/errors.ts';
import { defaultAuthSettings, type AuthSettings } from './settings.ts';

export const accessTokenSeconds = 15 * 60;
export const refreshTokenMs = 30 * 24 * 3600 * 1000;
export const limitedTokenSeconds = 5 * 60;

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

export class Tokens {
  private readonly secret: Uint8Array;
  private readonly issuer: string;
  private readonly audience: string;
  /** Revoked families -> when their last access token expires (then they are forgotten). */
  private readonly revoked = new Map<string, number>();
  private readonly insertRevoked;
  private readonly deleteRevoked;

  constructor(
    private readonly db: Db,
    private readonly clock: () => number,
    settings: Pick<AuthSettings, 'jwtIssuer' | 'jwtAudience'> = defaultAuthSettings,
  ) {
    this.secret = namedSecret(db, 'jwt');
    this.issuer = settings.jwtIssuer;
    this.audience = settings.jwtAudience;
    this.insertRevoked = db.prepare('INSERT OR REPLACE INTO revoked_token_families (family, until_ms) VALUES (?, ?)');
    this.deleteRevoked = db.prepare('DELETE FROM revoked_token_families WHERE until_ms <= ?');
    this.deleteRevoked.run(clock());
    for (const row of db.prepare('SELECT family, until_ms FROM revoked_token_families ORDER BY until_ms').all() as { family: string; until_ms: number }[]) {
      this.revoked.set(row.family, row.until_ms);
    }
  }

  /** A signed JWT of `scope` for the user, valid for `seconds`. */
  private sign(userId: number, scope: string, seconds: number, family: string | null): Promise<string> {
    const nowSeconds = Math.floor(this.clock() / 1000);
    return new SignJWT(family === null ? { scope } : { scope, fam: family })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setJti(randomUUID())
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + seconds)
      .sign(this.secret);
  }

  async issue(userId: number, family = randomBytes(16).toString('hex')): Promise<TokenPair> {
    const access = await this.sign(userId, 'full', accessTokenSeconds, family);
    const refresh = 'rt_' + randomBytes(32).toString('base64url');
    this.db
      .prepare('INSERT INTO refresh_tokens (token_hash, user_id, family, expires_at_ms) VALUES (?, ?, ?, ?)')
      .run(sha256(refresh), userId, family, this.clock() + refreshTokenMs);
    return { access_token: access, refresh_token: refresh, token_type: 'bearer', expires_in: accessTokenSeconds };
  }

  /**
   * The limited token a login on a 2FA account gets: good for five minutes and only for /auth/2fa/verify
   * (its scope is not `full`, so every other route refuses it).
   */
  issueLimited(userId: number): Promise<string> {
    return this.sign(userId, '2fa', limitedTokenSeconds, null);
  }

  /** The user of a valid full access token; throws 401 otherwise. */
  verifyAccess(token: string): Promise<number> {
    return this.verifyScope(token, 'full');
  }

  /** The user of a valid limited (2FA) token; throws 401 otherwise. */
  verifyLimited(token: string): Promise<number> {
    return this.verifyScope(token, '2fa');
  }

  private async verifyScope(token: string, scope: string): Promise<number> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        audience: this.audience,
        requiredClaims: ['jti', 'iat', 'exp', 'sub'],
        currentDate: new Date(this.clock()),
      }));
    } catch {
      throw new ApiError(401, 'INVALID_TOKEN', scope === 'full' ? 'the access token is invalid or expired' : 'the 2FA token is invalid or expired');
    }
    const userId = Number(payload.sub);
    if (payload['scope'] !== scope || !Number.isSafeInteger(userId) || userId < 1) {
      throw new ApiError(401, 'INVALID_TOKEN', scope === 'full' ? 'the access token is invalid or expired' : 'the 2FA token is invalid or expired');
    }
    const family = payload['fam'];
    if (typeof family === 'string' && this.isRevoked(family)) throw new ApiError(401, 'TOKEN_REVOKED', 'this session was revoked (a refresh token was reused)');
    return userId;
  }

  /** Whether a family is revoked; forgets the families whose access tokens have all expired. */
  private isRevoked(family: string): boolean {
    if (this.revoked.size === 0) return false;
    const nowMs = this.clock();
    for (const [revokedFamily, untilMs] of this.revoked) {
      if (untilMs > nowMs) break;
      this.revoked.delete(revokedFamily);
    }
    return this.revoked.has(family);
  }

  /** Exchanges a refresh token for a new pair; a reused token revokes its family and its access tokens. */
  async rotate(refreshToken: string): Promise<TokenPair> {
    const hash = sha256(refreshToken);
    const row = this.db.prepare('SELECT user_id, family, expires_at_ms, used, revoked FROM refresh_tokens WHERE token_hash = ?').get(hash) as
      | { user_id: number; family: string; expires_at_ms: number; used: number; revoked: number }
      | undefined;
    if (row === undefined || row.revoked === 1 || row.expires_at_ms <= this.clock()) {
      throw new ApiError(401, 'INVALID_REFRESH_TOKEN', 'the refresh token is invalid or expired');
    }
    if (row.used === 1) {
      this.revokeFamily(row.family);
      throw new ApiError(401, 'REFRESH_TOKEN_REUSED', 'this refresh token was already used; its session is revoked');
    }
    this.db.prepare('UPDATE refresh_tokens SET used = 1 WHERE token_hash = ?').run(hash);
    return this.issue(row.user_id, row.family);
  }

  /** Revokes a family's refresh tokens, and its access tokens until the last of them has expired. */
  private revokeFamily(family: string): void {
    const nowMs = this.clock();
    // An access token issued now lives accessTokenSeconds; one second more covers the rounding of iat.
    const untilMs = nowMs + (accessTokenSeconds + 1) * 1000;
    this.db.transaction(() => {
      this.db.prepare('UPDATE refresh_tokens SET revoked = 1 WHERE family = ?').run(family);
      this.deleteRevoked.run(nowMs);
      this.insertRevoked.run(family, untilMs);
    })();
    // Re-inserted last, so the map stays in expiry order (every entry's expiry is its insertion time plus the same span).
    this.revoked.delete(family);
    this.revoked.set(family, untilMs);
  }
}
