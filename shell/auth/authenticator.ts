/**
 * Who is calling: the one place that turns request headers into a principal for a route's auth kind.
 * `none` needs nothing; `admin` needs X-API-Key equal to ADMIN_API_KEY; `bearer` needs a valid full access
 * token in `Authorization: Bearer …`.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.ts';
import type { AuthKind } from '../http/route-table.ts';
import type { Tokens } from './tokens.ts';

export interface Principal {
  readonly userId: number;
}

const admin: Principal = { userId: 0 };

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export class Authenticator {
  constructor(
    private readonly tokens: Tokens,
    private readonly adminApiKey: string,
  ) {}

  authenticate(auth: AuthKind, header: (name: string) => string): Principal | null | Promise<Principal> {
    switch (auth) {
      case 'none':
        return null;
      case 'admin': {
        if (this.adminApiKey === '') throw new ApiError(404, 'NOT_FOUND', 'admin routes are disabled (ADMIN_API_KEY is not set)');
        const key = header('x-api-key');
        if (key === '') throw new ApiError(401, 'UNAUTHENTICATED', 'X-API-Key header required');
        if (!sameText(key, this.adminApiKey)) throw new ApiError(403, 'FORBIDDEN', 'this key may not use admin routes');
        return admin;
      }
      case 'bearer': {
        const match = /^Bearer\s+(\S+)$/i.exec(header('authorization'));
        if (match === null) throw new ApiError(401, 'UNAUTHENTICATED', 'Authorization: Bearer <access token> required');
        return this.tokens.verifyAccess(match[1]!).then((userId) => ({ userId }));
      }
    }
  }
}
