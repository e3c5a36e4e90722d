/**
 * Session tokens. Access tokens are short-lived JWTs (HS256, jose) naming the user; refresh tokens are
 * opaque random strings, stored hashed, that rotate on every use. Each login starts a family; presenting
 * a refresh token that was already used means it leaked, so the whole family is revoked.
 * The signing secret is made on first start and kept in the database.
 */
import { hash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { namedSecret, type Db } from '../store/database.ts';
import { ApiError } from '../http/errors.ts';

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

  constructor(
    private readonly db: Db,
    private readonly clock: () => number,
  ) {
    this.secret = namedSecret(db, 'jwt');
  }

  async issue(userId: number, family = randomBytes(16).toString('hex')): Promise<TokenPair> {
    const nowSeconds = Math.floor(this.clock() / 1000);
    const access = await new SignJWT({ scope: 'full' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + accessTokenSeconds)
      .sign(this.secret);
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
  async issueLimited(userId: number): Promise<string> {
    const nowSeconds = Math.floor(this.clock() / 1000);
    return new SignJWT({ scope: '2fa' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + limitedTokenSeconds)
      .sign(this.secret);
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
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: ['HS256'], currentDate: new Date(this.clock()) });
      const userId = Number(payload.sub);
      if (payload['scope'] !== scope || !Number.isSafeInteger(userId) || userId < 1) throw new Error('scope');
      return userId;
    } catch {
      throw new ApiError(401, 'INVALID_TOKEN', scope === 'full' ? 'the access token is invalid or expired' : 'the 2FA token is invalid or expired');
    }
  }

  /** Exchanges a refresh token for a new pair; a reused token revokes its family. */
  async rotate(refreshToken: string): Promise<TokenPair> {
    const hash = sha256(refreshToken);
    const row = this.db.prepare('SELECT user_id, family, expires_at_ms, used, revoked FROM refresh_tokens WHERE token_hash = ?').get(hash) as
      | { user_id: number; family: string; expires_at_ms: number; used: number; revoked: number }
      | undefined;
    if (row === undefined || row.revoked === 1 || row.expires_at_ms <= this.clock()) {
      throw new ApiError(401, 'INVALID_REFRESH_TOKEN', 'the refresh token is invalid or expired');
    }
    if (row.used === 1) {
      this.db.prepare('UPDATE refresh_tokens SET revoked = 1 WHERE family = ?').run(row.family);
      throw new ApiError(401, 'REFRESH_TOKEN_REUSED', 'this refresh token was already used; its session is revoked');
    }
    this.db.prepare('UPDATE refresh_tokens SET used = 1 WHERE token_hash = ?').run(hash);
    return this.issue(row.user_id, row.family);
  }
}
