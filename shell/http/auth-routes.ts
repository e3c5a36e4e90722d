/**
 * Registration, login and token refresh (the API specification's "Authentication and account"; /auth/refresh is this
 * project's, since the API specification gives token lifetimes and the refresh call no shape). Passwords are hashed with
 * scrypt; a wrong email and a wrong password answer alike, after the same work. The wallet sign-in routes
 * (siwe.ts) join these.
 */
import { ApiError } from './errors.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { decoyHash, hashPassword, verifyPassword } from '../auth/passwords.ts';
import { Type } from '@sinclair/typebox';
import { closed, objectUnion, tokenFields, tokenSchema, userIdField } from './schemas.ts';
import { siweRoutes } from './siwe.ts';

const tags = ['Auth'];

const email = { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' };
const password = { type: 'string', minLength: 8, maxLength: 128 };

export function authRoutes(context: ShellContext): Route[] {
  const { db, tokens } = context.identity;
  const findByEmail = db.prepare('SELECT id, password_hash FROM users WHERE email = ?');
  const insertUser = db.prepare('INSERT INTO users (email, username, password_hash, created_at) VALUES (?, ?, ?, ?)');
  const taken = db.prepare('SELECT email = ? COLLATE NOCASE AS same_email FROM users WHERE email = ? OR username = ? LIMIT 1');
  return [
    {
      method: 'POST',
      name: 'register',
      path: '/auth/register',
      auth: 'none',
      rateLimit: 'credentials',
      tags,
      status: 201,
      errors: ['EMAIL_TAKEN', 'USERNAME_TAKEN'],
      summary: 'Create an account; returns an access token, a refresh token and the user id',
      response: closed({ ...tokenFields, user_id: userIdField }),
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'password', 'username'],
        properties: { email, password, username: { type: 'string', minLength: 3, maxLength: 32, pattern: '^[A-Za-z0-9_.-]+$' } },
      },
      handler: async (request) => {
        const body = request.body as { email: string; password: string; username: string };
        const clash = taken.get(body.email, body.email, body.username) as { same_email: number } | undefined;
        if (clash !== undefined) {
          throw clash.same_email === 1
            ? new ApiError(409, 'EMAIL_TAKEN', 'an account with this email exists')
            : new ApiError(409, 'USERNAME_TAKEN', 'this username is taken');
        }
        const hash = await hashPassword(body.password);
        let userId: number;
        try {
          userId = Number(insertUser.run(body.email, body.username, hash, new Date(context.clock()).toISOString()).lastInsertRowid);
        } catch {
          // Two registrations raced for the same email or username between the check and the insert.
          throw new ApiError(409, 'EMAIL_TAKEN', 'an account with this email or username exists');
        }
        const pair = await tokens.issue(userId);
        return { status: 201, body: { ...pair, user_id: userId } };
      },
    },
    {
      method: 'POST',
      name: 'login',
      path: '/auth/login',
      auth: 'none',
      rateLimit: 'credentials',
      tags,
      errors: ['INVALID_CREDENTIALS'],
      summary: 'Log in with email and password; returns an access token (JWT) and a refresh token',
      response: objectUnion([
        closed({ ...tokenFields, requires_2fa: Type.Literal(false), user_id: userIdField }),
        closed(
          {
            requires_2fa: Type.Literal(true),
            access_token: Type.String({ description: 'a limited token (5 minutes) that only POST /auth/2fa/verify accepts' }),
            token_type: Type.Literal('bearer'),
            user_id: userIdField,
          },
          { description: 'an account with 2FA: verify a code to get full tokens' },
        ),
      ]),
      body: { type: 'object', additionalProperties: false, required: ['email', 'password'], properties: { email, password: { type: 'string', maxLength: 128 } } },
      handler: async (request) => {
        const body = request.body as { email: string; password: string };
        const user = findByEmail.get(body.email) as { id: number; password_hash: string } | undefined;
        const valid = await verifyPassword(body.password, user?.password_hash ?? decoyHash);
        if (user === undefined || !valid) throw new ApiError(401, 'INVALID_CREDENTIALS', 'email or password is wrong');
        if (context.identity.twoFactor.enabled(user.id)) {
          // Only /auth/2fa/verify accepts this token; it turns into full tokens with a valid code.
          return { body: { requires_2fa: true, access_token: await tokens.issueLimited(user.id), token_type: 'bearer', user_id: user.id } };
        }
        return { body: { ...(await tokens.issue(user.id)), requires_2fa: false, user_id: user.id } };
      },
    },
    {
      method: 'POST',
      name: 'refresh_session',
      path: '/auth/refresh',
      auth: 'none',
      rateLimit: 'credentials',
      tags,
      errors: ['INVALID_REFRESH_TOKEN', 'REFRESH_TOKEN_REUSED'],
      summary: 'Exchange a refresh token for a new access and refresh token (the old one stops working)',
      response: tokenSchema,
      body: { type: 'object', additionalProperties: false, required: ['refresh_token'], properties: { refresh_token: { type: 'string', minLength: 1, maxLength: 256 } } },
      handler: async (request) => ({ body: await tokens.rotate((request.body as { refresh_token: string }).refresh_token) }),
    },
    // Sign-In with Ethereum answers the same tokens as a login.
    ...siweRoutes(context),
  ];
}
