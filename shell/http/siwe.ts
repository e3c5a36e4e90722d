/**
 * Sign-In with Ethereum routes (README "Sign-In with Ethereum"): GET /wallet/siwe/nonce hands out a
 * single-use nonce with the domain and chain id a message must name; POST /wallet/siwe takes the signed
 * EIP-4361 message and answers the same session tokens as a login. A wallet's account is made on its first
 * sign-in and found by its address afterwards (table wallet_users); such an account has no password (its
 * email is a random placeholder nobody can log in with), and one with 2FA gets the limited token as a
 * login would.
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { declareRoute, type Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { authSettings } from '../auth/settings.ts';
import { SiweNonces, siweMessageLengthMax, verifySiweSignIn } from '../auth/siwe.ts';
import { ApiError } from './errors.ts';
import { closed, objectUnion, timestamp, tokenFields, userIdField } from './schemas.ts';

const tags = ['Auth'];
const addressField = Type.String({ pattern: '^0x[0-9a-f]{40}$', description: "the wallet's address, lower case" });
/** What no password hash can match (verifyPassword needs the scrypt form), so a wallet account cannot log in by password. */
const noPassword = '!wallet';

export function siweRoutes(context: ShellContext): Route[] {
  const settings = authSettings(context.config.env);
  const { db, tokens, twoFactor } = context.identity;
  const nonces = new SiweNonces(db, settings.siweNonceTtlMs, context.clock);
  const findWallet = db.prepare('SELECT user_id FROM wallet_users WHERE address = ?');
  const insertUser = db.prepare('INSERT INTO users (email, username, password_hash, created_at) VALUES (?, ?, ?, ?)');
  const insertWallet = db.prepare('INSERT INTO wallet_users (address, user_id, created_at) VALUES (?, ?, ?)');
  /** The wallet's user, made on its first sign-in (the username is the address, longer than registration allows). */
  const userOf = (address: string): { userId: number; created: boolean } => {
    const found = findWallet.get(address) as { user_id: number } | undefined;
    if (found !== undefined) return { userId: found.user_id, created: false };
    const createdAt = new Date(context.clock()).toISOString();
    return db.transaction(() => {
      const userId = Number(insertUser.run(`wallet-${randomBytes(12).toString('hex')}@siwe.invalid`, address, noPassword, createdAt).lastInsertRowid);
      insertWallet.run(address, userId, createdAt);
      return { userId, created: true };
    })();
  };
  const domainOf = (host: string): string => {
    const domain = settings.siweDomain !== '' ? settings.siweDomain : host.toLowerCase();
    if (domain === '') throw new ApiError(401, 'SIWE_DOMAIN_MISMATCH', 'no Host header, and SIWE_DOMAIN is not set');
    return domain;
  };
  return [
    declareRoute({
      method: 'GET',
      name: 'siwe_nonce',
      path: '/wallet/siwe/nonce',
      auth: 'none',
      rateLimit: 'general',
      tags,
      errors: ['SIWE_DOMAIN_MISMATCH'],
      summary: 'A single-use nonce for a Sign-In with Ethereum message, with the domain and chain id the message must name',
      response: closed({
        nonce: Type.String({ pattern: '^[0-9a-f]{32}$' }),
        domain: Type.String({ description: "the message's domain (SIWE_DOMAIN, else the request's Host)" }),
        chain_id: Type.Integer({ minimum: 1, description: "the message's chain id (SIWE_CHAIN_ID)" }),
        issued_at: timestamp("the server's time, for the message's Issued At"),
        expires_at: timestamp('after this the nonce is refused; a message must also be issued after it was handed out'),
      }),
      handler: (request) => {
        const domain = domainOf(request.header('host'));
        const { nonce, expiresAtMs } = nonces.issue();
        return {
          body: { nonce, domain, chain_id: settings.siweChainId, issued_at: new Date(context.clock()).toISOString(), expires_at: new Date(expiresAtMs).toISOString() },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      name: 'siwe_sign_in',
      path: '/wallet/siwe',
      auth: 'none',
      rateLimit: 'credentials',
      tags,
      errors: [
        'SIWE_MESSAGE_INVALID',
        'SIWE_DOMAIN_MISMATCH',
        'SIWE_CHAIN_MISMATCH',
        'SIWE_MESSAGE_EXPIRED',
        'SIWE_MESSAGE_NOT_YET_VALID',
        'SIWE_NONCE_UNKNOWN',
        'SIWE_SIGNATURE_INVALID',
      ],
      summary: 'Sign in with an Ethereum wallet (EIP-4361 message and its personal_sign signature); returns the same tokens as a login',
      body: Type.Object(
        {
          message: Type.String({ minLength: 1, maxLength: siweMessageLengthMax, description: 'the EIP-4361 message as signed' }),
          signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$', description: "the wallet's 65-byte signature of the message (EIP-191 personal_sign), hex" }),
        },
        { additionalProperties: false },
      ),
      response: objectUnion([
        closed({ ...tokenFields, requires_2fa: Type.Literal(false), user_id: userIdField, address: addressField, new_user: Type.Boolean({ description: 'whether this sign-in made the account' }) }),
        closed(
          {
            requires_2fa: Type.Literal(true),
            access_token: Type.String({ description: 'a limited token (5 minutes) that only POST /auth/2fa/verify accepts' }),
            token_type: Type.Literal('bearer'),
            user_id: userIdField,
            address: addressField,
            new_user: Type.Literal(false),
          },
          { description: 'an account with 2FA: verify a code to get full tokens' },
        ),
      ]),
      handler: async (request) => {
        const address = await verifySiweSignIn(nonces, settings, domainOf(request.header('host')), request.body.message, request.body.signature, context.clock());
        const { userId, created } = userOf(address);
        if (twoFactor.enabled(userId)) {
          return { body: { requires_2fa: true, access_token: await tokens.issueLimited(userId), token_type: 'bearer', user_id: userId, address, new_user: false } };
        }
        return { body: { ...(await tokens.issue(userId)), requires_2fa: false, user_id: userId, address, new_user: created } };
      },
    }),
  ];
}
