/**
 * API keys: a fixed prefix and 32 random bytes (base64url), with a separate secret. The key is stored only
 * as a SHA-256 digest (it is random, so a fast digest is as strong as a slow one) and shown in full once,
 * at creation; listings show a masked form. Each key has permissions (`read`, `trade`) and a tier that sets
 * its rate limits.
 *
 * A key may be `signed`: its requests must then carry an HMAC made with the secret (authenticator.ts), so
 * the server must be able to recover the secret. It is therefore also kept sealed (AES-256-GCM under the
 * deployment's named secret `api-key-seal`, with the key's id as associated data so that a sealed secret
 * cannot be moved to another row), besides its digest; it is never returned after creation. Keys created
 * before sealing existed have no sealed secret and cannot become signed.
 */
import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { namedSecret, type Db } from '../store/database.ts';
import { tiers, type Permission, type Principal, type Tier } from './access.ts';

export const userKeyPrefix = 'tpk_';
/** Keys issued to self-registered AI agents (API specification: prefix mcp_). */
export const agentKeyPrefix = 'mcp_';
export const secretPrefix = 'tps_';
// Tiers and permissions are access words (access.ts); the key screens import them from here.
export { tiers, type Permission, type Tier };
/** Keys one user may hold at once. */
export const keysPerUserMax = 50;

export interface ApiKeyRecord {
  id: number;
  userId: number;
  name: string;
  masked: string;
  permissions: Permission[];
  tier: Tier;
  createdAt: string;
  /** An agent key's registered rate, which replaces the tier's limits; null for user keys. */
  requestsPerMinute: number | null;
  /** Whether requests with this key must be signed. */
  signed: boolean;
  /** The secret's bytes, the HMAC key of signed requests; null for unsigned keys (they never need it). */
  hmacKey: Buffer | null;
  /** Who a request with this key is, made once per record rather than once per request. */
  principal: Principal;
}

interface Row {
  id: number;
  user_id: number;
  name: string;
  masked: string;
  permissions: string;
  tier: string;
  created_at: string;
  requests_per_minute: number | null;
  signed: number;
  secret_sealed: Buffer | null;
}

function digest(text: string): string {
  return hash('sha256', text, 'hex');
}

/** Agent keys are the ones with a registered rate (only /mcp/v1/register issues those). */
function principalOf(id: number, userId: number, permissions: Permission[], tier: Tier, requestsPerMinute: number | null): Principal {
  return { userId, keyId: id, permissions, tier, requestsPerMinute, via: requestsPerMinute === null ? 'key' : 'agent' };
}

const sealIvBytes = 12;
const sealTagBytes = 16;

/** The secret sealed for row `id`: IV, tag, ciphertext. */
function seal(sealKey: Uint8Array, id: number, secret: string): Buffer {
  const iv = randomBytes(sealIvBytes);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  cipher.setAAD(Buffer.from(`api_key:${id}`));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** The secret of row `id`; throws when the blob was not sealed for that row with this deployment's key. */
function unseal(sealKey: Uint8Array, id: number, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', sealKey, sealed.subarray(0, sealIvBytes));
  decipher.setAAD(Buffer.from(`api_key:${id}`));
  decipher.setAuthTag(sealed.subarray(sealIvBytes, sealIvBytes + sealTagBytes));
  return Buffer.concat([decipher.update(sealed.subarray(sealIvBytes + sealTagBytes)), decipher.final()]);
}

function record(row: Row, sealKey: Uint8Array): ApiKeyRecord {
  const permissions = row.permissions.split(',').filter((value) => value !== '') as Permission[];
  const tier = row.tier as Tier;
  const signed = row.signed === 1;
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    masked: row.masked,
    permissions,
    tier,
    createdAt: row.created_at,
    requestsPerMinute: row.requests_per_minute,
    signed,
    hmacKey: signed && row.secret_sealed !== null ? unseal(sealKey, row.id, row.secret_sealed) : null,
    principal: principalOf(row.id, row.user_id, permissions, tier, row.requests_per_minute),
  };
}

const cachedKeysMax = 100_000;

export class ApiKeys {
  private readonly insert;
  private readonly byHash;
  private readonly byUser;
  private readonly countByUser;
  private readonly revokeStatement;
  private readonly updateStatement;
  private readonly byId;
  private readonly tierStatement;
  private readonly anyById;
  private readonly sealStatement;
  private readonly signedStatement;
  /** The key that seals secrets at rest (the database's named secret `api-key-seal`). */
  private readonly sealKey: Uint8Array;
  /**
   * Live keys by their plaintext, so that a request costs one map lookup: no digest and no query (the
   * digest alone was a few percent of an order's time in bench:http). Only keys that were presented and
   * found are here, for as long as the process runs, which is as long as a request's own copy of the header
   * could be anyway; the table stores digests only. Emptied on every change of any key.
   */
  private readonly cache = new Map<string, ApiKeyRecord>();

  constructor(
    private readonly db: Db,
    private readonly clock: () => number,
  ) {
    this.insert = db.prepare(
      'INSERT INTO api_keys (user_id, name, key_hash, secret_hash, masked, permissions, tier, created_at, requests_per_minute) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.byHash = db.prepare('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL');
    this.byUser = db.prepare('SELECT * FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY id');
    this.countByUser = db.prepare('SELECT COUNT(*) AS count FROM api_keys WHERE user_id = ? AND revoked_at IS NULL');
    this.revokeStatement = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL');
    this.updateStatement = db.prepare('UPDATE api_keys SET name = ?, permissions = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL');
    this.byId = db.prepare('SELECT * FROM api_keys WHERE id = ? AND user_id = ? AND revoked_at IS NULL');
    this.tierStatement = db.prepare('UPDATE api_keys SET tier = ? WHERE id = ? AND revoked_at IS NULL');
    this.anyById = db.prepare('SELECT * FROM api_keys WHERE id = ? AND revoked_at IS NULL');
    this.sealStatement = db.prepare('UPDATE api_keys SET secret_sealed = ?, signed = ? WHERE id = ?');
    this.signedStatement = db.prepare('UPDATE api_keys SET signed = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND secret_sealed IS NOT NULL');
    this.sealKey = namedSecret(db, 'api-key-seal');
  }

  count(userId: number): number {
    return (this.countByUser.get(userId) as { count: number }).count;
  }

  create(
    userId: number,
    name: string,
    permissions: Permission[],
    tier: Tier,
    agent: { requestsPerMinute: number } | null = null,
    signed = false,
  ): { record: ApiKeyRecord; apiKey: string; apiSecret: string } {
    const apiKey = (agent === null ? userKeyPrefix : agentKeyPrefix) + randomBytes(32).toString('base64url');
    const requestsPerMinute = agent?.requestsPerMinute ?? null;
    const apiSecret = secretPrefix + randomBytes(32).toString('base64url');
    const masked = `${apiKey.slice(0, 8)}…${apiKey.slice(-4)}`;
    const createdAt = new Date(this.clock()).toISOString();
    // The row's id is the sealed secret's associated data, so the seal is written once the row exists.
    const id = this.db.transaction(() => {
      const inserted = Number(
        this.insert.run(userId, name, digest(apiKey), digest(apiSecret), masked, permissions.join(','), tier, createdAt, requestsPerMinute).lastInsertRowid,
      );
      this.sealStatement.run(seal(this.sealKey, inserted, apiSecret), signed ? 1 : 0, inserted);
      return inserted;
    })();
    const principal = principalOf(id, userId, permissions, tier, requestsPerMinute);
    const hmacKey = signed ? Buffer.from(apiSecret, 'utf8') : null;
    return { record: { id, userId, name, masked, permissions, tier, createdAt, requestsPerMinute, signed, hmacKey, principal }, apiKey, apiSecret };
  }

  /** The live key with this plaintext, or null. */
  find(apiKey: string): ApiKeyRecord | null {
    const cached = this.cache.get(apiKey);
    if (cached !== undefined) return cached;
    const row = this.byHash.get(digest(apiKey)) as Row | undefined;
    if (row === undefined) return null;
    if (this.cache.size >= cachedKeysMax) this.cache.clear();
    const found = record(row, this.sealKey);
    this.cache.set(apiKey, found);
    return found;
  }

  list(userId: number): ApiKeyRecord[] {
    return (this.byUser.all(userId) as Row[]).map((row) => record(row, this.sealKey));
  }

  get(userId: number, id: number): ApiKeyRecord | null {
    const row = this.byId.get(id, userId) as Row | undefined;
    return row === undefined ? null : record(row, this.sealKey);
  }

  revoke(userId: number, id: number): boolean {
    this.cache.clear();
    return this.revokeStatement.run(new Date(this.clock()).toISOString(), id, userId).changes === 1;
  }

  update(userId: number, id: number, name: string, permissions: Permission[]): boolean {
    this.cache.clear();
    return this.updateStatement.run(name, permissions.join(','), id, userId).changes === 1;
  }

  /**
   * Marks a key signed or unsigned; false when there is no live key `id` of the user, or when it has no
   * sealed secret (made before sealing existed) and so could never be verified.
   */
  setSigned(userId: number, id: number, signed: boolean): boolean {
    this.cache.clear();
    return this.signedStatement.run(signed ? 1 : 0, id, userId).changes === 1;
  }

  /** Sets a key's tier (an administrator's decision); returns the key, or null if there is no live key `id`. */
  setTier(id: number, tier: Tier): ApiKeyRecord | null {
    this.cache.clear();
    if (this.tierStatement.run(tier, id).changes !== 1) return null;
    return record(this.anyById.get(id) as Row, this.sealKey);
  }
}

/** How a key is shown after creation: never the plaintext. */
export function keyView(key: ApiKeyRecord): Record<string, unknown> {
  return { api_key_id: key.id, key_name: key.name, api_key: key.masked, permissions: key.permissions, tier: key.tier, signed: key.signed, created_at: key.createdAt };
}
