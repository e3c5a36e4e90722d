/**
 * Two-factor routes (API specification): setup returns a secret and provisioning URI; enable needs a valid first
 * code; verify exchanges the limited token a 2FA login gets for full tokens; disable needs a current code;
 * status says whether it is on.
 */
import { ApiError } from './errors.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { Type } from '@sinclair/typebox';
import { closed, tokenFields, userIdField } from './schemas.ts';

const tags = ['Auth'];
const enabledSchema = closed({ enabled: Type.Boolean({ description: 'whether 2FA is on now' }) });

const code = { type: 'object', additionalProperties: false, required: ['code'], properties: { code: { type: 'string', pattern: '^[0-9]{6}$' } } };

export function twoFactorRoutes(context: ShellContext): Route[] {
  const { twoFactor, tokens } = context.identity;
  const wrongCode = () => new ApiError(401, 'INVALID_2FA_CODE', 'the code is wrong, expired or already used');
  return [
    {
      method: 'POST',
      name: 'setup_two_factor',
      path: '/auth/2fa/setup',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: ['TWO_FACTOR_ENABLED'],
      summary: 'Start 2FA setup: a TOTP secret and its otpauth:// provisioning URI',
      response: closed({
        secret: Type.String({ description: 'the TOTP secret, base32' }),
        provisioning_uri: Type.String({ description: 'otpauth:// URI for an authenticator app' }),
        otpauth_url: Type.String({ description: 'the same URI' }),
      }),
      handler: (request) => {
        const setup = twoFactor.setup(request.principal!.userId);
        if (setup === null) throw new ApiError(409, 'TWO_FACTOR_ENABLED', '2FA is already enabled');
        return { body: { secret: setup.secret, provisioning_uri: setup.uri, otpauth_url: setup.uri } };
      },
    },
    {
      method: 'POST',
      name: 'enable_two_factor',
      path: '/auth/2fa/enable',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: ['INVALID_2FA_CODE'],
      summary: 'Enable 2FA with a valid first code for the secret from setup',
      response: enabledSchema,
      body: code,
      handler: (request) => {
        if (!twoFactor.enable(request.principal!.userId, (request.body as { code: string }).code)) throw wrongCode();
        return { body: { enabled: true } };
      },
    },
    {
      method: 'POST',
      name: 'verify_two_factor',
      path: '/auth/2fa/verify',
      auth: 'none',
      credential: 'limitedBearer',
      rateLimit: 'credentials',
      tags,
      errors: ['UNAUTHENTICATED', 'INVALID_TOKEN', 'INVALID_2FA_CODE'],
      summary: 'Exchange the limited token of a 2FA login and a valid code for an access and a refresh token',
      response: closed({ ...tokenFields, user_id: userIdField }),
      body: code,
      handler: async (request) => {
        const bearer = /^Bearer\s+(\S+)$/i.exec(request.header('authorization'));
        if (bearer === null) throw new ApiError(401, 'UNAUTHENTICATED', 'Authorization: Bearer <limited token from login> required');
        const userId = await tokens.verifyLimited(bearer[1]!);
        if (!twoFactor.accept(userId, (request.body as { code: string }).code)) throw wrongCode();
        return { body: { ...(await tokens.issue(userId)), user_id: userId } };
      },
    },
    {
      method: 'POST',
      name: 'disable_two_factor',
      path: '/auth/2fa/disable',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: ['INVALID_2FA_CODE'],
      summary: 'Disable 2FA with a current code',
      response: enabledSchema,
      body: code,
      handler: (request) => {
        if (!twoFactor.disable(request.principal!.userId, (request.body as { code: string }).code)) throw wrongCode();
        return { body: { enabled: false } };
      },
    },
    {
      method: 'GET',
      name: 'get_two_factor_status',
      path: '/auth/2fa/status',
      auth: 'bearer',
      rateLimit: 'general',
      tags,
      errors: [],
      summary: 'Whether 2FA is enabled',
      response: enabledSchema,
      handler: (request) => ({ body: { enabled: twoFactor.enabled(request.principal!.userId) } }),
    },
  ];
}
