/**
 * Sign-In with Ethereum (EIP-4361; README "Sign-In with Ethereum"): nonces the server hands out, and the
 * checks of a signed message before its wallet gets a session. A message must be well formed, name this
 * service's domain and chain id, carry a nonce this server issued and nobody has used, be issued recently
 * and not be expired or not yet valid, and be signed by its own address (an EOA's personal_sign,
 * recovered with viem). Nonces are kept in the identity database (table siwe_nonces), so a restart between
 * handing one out and signing in with it loses nothing; using one deletes it, in one statement, so it
 * cannot serve twice, not even to two sign-ins racing.
 */
import { randomBytes } from 'node:crypto';
import { isAddress, recoverMessageAddress, type Hex } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { ApiError } from '../http/errors.ts';
import type { Db } from '../store/database.ts';
import type { AuthSettings } from './settings.ts';

/** Nonces outstanding at once; past this the one nearest its expiry is dropped (each is good for a few minutes only). */
export const siweNoncesMax = 100_000;
/** How far a message's issued-at may be ahead of the server's clock (clients' clocks drift). */
export const siweClockSkewMs = 60_000;
/** The longest message accepted (EIP-4361 messages are a few hundred bytes; resources lists add some). */
export const siweMessageLengthMax = 4096;

export class SiweNonces {
  private readonly insert;
  private readonly live;
  private readonly use;
  private readonly forgetExpired;
  private readonly dropOldest;
  /** Rows in the table: counted once at start, then kept from each statement's changes (this process alone writes them). */
  private count: number;

  constructor(
    db: Db,
    private readonly ttlMs: number,
    private readonly clock: () => number,
  ) {
    this.insert = db.prepare('INSERT INTO siwe_nonces (nonce, expires_at_ms) VALUES (?, ?)');
    this.live = db.prepare('SELECT 1 FROM siwe_nonces WHERE nonce = ? AND expires_at_ms > ?');
    this.use = db.prepare('DELETE FROM siwe_nonces WHERE nonce = ? AND expires_at_ms > ?');
    this.forgetExpired = db.prepare('DELETE FROM siwe_nonces WHERE expires_at_ms <= ?');
    this.dropOldest = db.prepare('DELETE FROM siwe_nonces WHERE nonce = (SELECT nonce FROM siwe_nonces ORDER BY expires_at_ms LIMIT 1)');
    this.count = (db.prepare('SELECT COUNT(*) AS count FROM siwe_nonces').get() as { count: number }).count;
  }

  /** A new nonce (32 hex digits: EIP-4361 asks for at least 8 alphanumerics) and its expiry. */
  issue(): { nonce: string; expiresAtMs: number } {
    const nowMs = this.clock();
    this.count -= this.forgetExpired.run(nowMs).changes;
    if (this.count >= siweNoncesMax) this.count -= this.dropOldest.run().changes;
    const nonce = randomBytes(16).toString('hex');
    const expiresAtMs = nowMs + this.ttlMs;
    this.insert.run(nonce, expiresAtMs);
    this.count++;
    return { nonce, expiresAtMs };
  }

  /** Whether `nonce` was issued, is unexpired and unused. */
  has(nonce: string): boolean {
    return this.live.get(nonce, this.clock()) !== undefined;
  }

  /** Uses `nonce` up; false when it is not (or no longer) there. */
  take(nonce: string): boolean {
    const taken = this.use.run(nonce, this.clock()).changes === 1;
    if (taken) this.count--;
    return taken;
  }

  /** Nonces stored, expired ones not yet forgotten included. */
  get size(): number {
    return this.count;
  }
}

/**
 * The address (lower case) that signed a valid message for `domain`, once its nonce is used up. Throws
 * ApiError 422 for a malformed message and 401 for one that does not sign this service in now.
 */
export async function verifySiweSignIn(
  nonces: SiweNonces,
  settings: Pick<AuthSettings, 'siweChainId' | 'siweNonceTtlMs'>,
  domain: string,
  message: string,
  signature: string,
  nowMs: number,
): Promise<string> {
  const fields = parseSiweMessage(message);
  const { address, chainId, nonce, issuedAt } = fields;
  if (
    address === undefined ||
    !isAddress(address) ||
    fields.domain === undefined ||
    fields.uri === undefined ||
    fields.version !== '1' ||
    chainId === undefined ||
    !Number.isSafeInteger(chainId) ||
    nonce === undefined ||
    issuedAt === undefined ||
    Number.isNaN(issuedAt.getTime())
  ) {
    throw new ApiError(422, 'SIWE_MESSAGE_INVALID', 'body.message: not an EIP-4361 message with address, domain, uri, version 1, chain id, nonce and issued-at');
  }
  if (fields.domain !== domain) throw new ApiError(401, 'SIWE_DOMAIN_MISMATCH', `the message is for ${fields.domain}, not ${domain}`);
  if (chainId !== settings.siweChainId) throw new ApiError(401, 'SIWE_CHAIN_MISMATCH', `the message names chain ${chainId}; this service signs in on chain ${settings.siweChainId}`);
  if (issuedAt.getTime() > nowMs + siweClockSkewMs || issuedAt.getTime() < nowMs - settings.siweNonceTtlMs) {
    throw new ApiError(401, 'SIWE_MESSAGE_EXPIRED', 'the message was not issued within the nonce lifetime');
  }
  const expires = fields.expirationTime;
  if (expires !== undefined && !(expires.getTime() > nowMs)) throw new ApiError(401, 'SIWE_MESSAGE_EXPIRED', 'the message has expired');
  const notBefore = fields.notBefore;
  if (notBefore !== undefined && !(notBefore.getTime() <= nowMs)) throw new ApiError(401, 'SIWE_MESSAGE_NOT_YET_VALID', 'the message is not valid yet');
  if (!nonces.has(nonce)) throw new ApiError(401, 'SIWE_NONCE_UNKNOWN', 'the nonce was not issued by this service, has expired or was already used');
  let signer: string;
  try {
    signer = await recoverMessageAddress({ message, signature: signature as Hex });
  } catch {
    throw new ApiError(401, 'SIWE_SIGNATURE_INVALID', 'the signature cannot be recovered');
  }
  if (signer.toLowerCase() !== address.toLowerCase()) throw new ApiError(401, 'SIWE_SIGNATURE_INVALID', 'the message was not signed by its address');
  // Checked again after the await: two sign-ins with one nonce may both have got this far.
  if (!nonces.take(nonce)) throw new ApiError(401, 'SIWE_NONCE_UNKNOWN', 'the nonce was not issued by this service, has expired or was already used');
  return address.toLowerCase();
}
