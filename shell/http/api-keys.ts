/**
 * API key management (API specification): create (plaintext shown once), list (masked), revoke, rename and change
 * permissions or whether the key signs its requests, plus both /auth/api-key flows: a bearer session and
 * key_name, or email, password and key_name in one call (which also returns session tokens). Self-service
 * keys are STANDARD tier. A `signed` key must sign every request (README "Signed requests").
 */
import { ApiError } from './errors.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { keyView, keysPerUserMax, type Permission } from '../auth/api-keys.ts';
import { decoyHash, verifyPassword } from '../auth/passwords.ts';
import { Type } from '@sinclair/typebox';
import { apiKeySchema, closed, createdApiKeyFields, objectUnion, tokenFields, userIdField } from './schemas.ts';

const tags = ['API keys'];
const createdKeySchema = closed(createdApiKeyFields);

const keyName = { type: 'string', minLength: 1, maxLength: 64 };
const permissions = { type: 'array', minItems: 1, maxItems: 2, uniqueItems: true, items: { enum: ['read', 'trade'] } };
const keyId = { type: 'string', pattern: '^[0-9]{1,15}$' };
const signed = { type: 'boolean', description: 'whether requests with the key must carry X-Timestamp and X-Signature (default false)' };

export function apiKeyRoutes(context: ShellContext): Route[] {
  const { keys, tokens, db } = context.identity;
  const findByEmail = db.prepare('SELECT id, password_hash FROM users WHERE email = ?');
  const create = (userId: number, name: string, granted: Permission[], signedKey: boolean) => {
    if (keys.count(userId) >= keysPerUserMax) throw new ApiError(429, 'TOO_MANY_API_KEYS', `at most ${keysPerUserMax} keys per account`);
    const created = keys.create(userId, name, granted, 'STANDARD', null, signedKey);
    return { ...keyView(created.record), api_key: created.apiKey, api_secret: created.apiSecret };
  };
  const idOf = (text: string | undefined): number => Number(text);
  return [
    {
      method: 'POST',
      name: 'create_api_key',
      path: '/api/v1/api-keys',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      status: 201,
      errors: ['TOO_MANY_API_KEYS'],
      summary: 'Create an API key; the key and its secret are returned once',
      response: createdKeySchema,
      body: { type: 'object', additionalProperties: false, properties: { key_name: keyName, name: keyName, permissions, signed } },
      handler: (request) => {
        const body = request.body as { key_name?: string; name?: string; permissions?: Permission[]; signed?: boolean };
        return { status: 201, body: create(request.principal!.userId, body.key_name ?? body.name ?? 'default', body.permissions ?? ['read', 'trade'], body.signed ?? false) };
      },
    },
    {
      method: 'GET',
      name: 'list_api_keys',
      path: '/api/v1/api-keys',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: 'List API keys, masked',
      response: closed({ api_keys: Type.Array(apiKeySchema) }),
      handler: (request) => ({ body: { api_keys: keys.list(request.principal!.userId).map(keyView) } }),
    },
    {
      method: 'DELETE',
      name: 'revoke_api_key',
      path: '/api/v1/api-keys/{key_id}',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: ['API_KEY_NOT_FOUND'],
      summary: 'Revoke an API key',
      response: closed({ revoked: Type.Literal(true), api_key_id: Type.Integer({ minimum: 1 }) }),
      handler: (request) => {
        if (!keys.revoke(request.principal!.userId, idOf(request.params['key_id']))) throw new ApiError(404, 'API_KEY_NOT_FOUND', 'no such API key');
        return { body: { revoked: true, api_key_id: idOf(request.params['key_id']) } };
      },
    },
    {
      method: 'PATCH',
      name: 'update_api_key',
      path: '/api/v1/api-keys/{key_id}',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: ['API_KEY_NOT_FOUND', 'API_KEY_NOT_SEALED'],
      summary: 'Rename an API key, change its permissions, or make it require signed requests (or not)',
      response: apiKeySchema,
      body: { type: 'object', additionalProperties: false, minProperties: 1, properties: { key_name: keyName, name: keyName, permissions, signed } },
      handler: (request) => {
        const userId = request.principal!.userId;
        const id = idOf(request.params['key_id']);
        const key = keys.get(userId, id);
        if (key === null) throw new ApiError(404, 'API_KEY_NOT_FOUND', 'no such API key');
        const body = request.body as { key_name?: string; name?: string; permissions?: Permission[]; signed?: boolean };
        // Checked before any change, so that a refused request changes nothing.
        if (body.signed !== undefined && body.signed !== key.signed && !keys.setSigned(userId, id, body.signed)) {
          throw new ApiError(409, 'API_KEY_NOT_SEALED', 'this key was made before secrets were kept for signing; create a new signed key');
        }
        keys.update(userId, id, body.key_name ?? body.name ?? key.name, body.permissions ?? key.permissions);
        return { body: keyView(keys.get(userId, id)!) };
      },
    },
    {
      method: 'POST',
      name: 'get_api_key_with_password',
      path: '/auth/api-key',
      auth: 'none',
      rateLimit: 'credentials',
      tags,
      status: 201,
      errors: ['UNAUTHENTICATED', 'INVALID_TOKEN', 'INVALID_CREDENTIALS', 'TWO_FACTOR_REQUIRED', 'TOO_MANY_API_KEYS'],
      summary: 'Create an API key with a bearer session and key_name, or in one call with email, password and key_name',
      response: objectUnion([
        createdKeySchema,
        closed(
          { ...createdApiKeyFields, ...tokenFields, user_id: userIdField },
          { description: 'the one-call flow (email and password) also returns session tokens' },
        ),
      ]),
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['key_name'],
        properties: { key_name: keyName, email: { type: 'string', maxLength: 254 }, password: { type: 'string', maxLength: 128 }, permissions, signed },
      },
      handler: async (request) => {
        const body = request.body as { key_name: string; email?: string; password?: string; permissions?: Permission[]; signed?: boolean };
        const granted = body.permissions ?? ['read', 'trade'];
        const signedKey = body.signed ?? false;
        const bearer = /^Bearer\s+(\S+)$/i.exec(request.header('authorization'));
        if (bearer !== null) return { status: 201, body: create(await tokens.verifyAccess(bearer[1]!), body.key_name, granted, signedKey) };
        if (body.email === undefined || body.password === undefined) {
          throw new ApiError(401, 'UNAUTHENTICATED', 'send a bearer token, or email and password with key_name');
        }
        const user = findByEmail.get(body.email) as { id: number; password_hash: string } | undefined;
        const valid = await verifyPassword(body.password, user?.password_hash ?? decoyHash);
        if (user === undefined || !valid) throw new ApiError(401, 'INVALID_CREDENTIALS', 'email or password is wrong');
        if (context.identity.twoFactor.enabled(user.id)) {
          throw new ApiError(403, 'TWO_FACTOR_REQUIRED', 'this account uses 2FA: log in, verify, then create the key with the bearer token');
        }
        return { status: 201, body: { ...create(user.id, body.key_name, granted, signedKey), ...(await tokens.issue(user.id)), user_id: user.id } };
      },
    },
  ];
}
