/**
 * Password hashes with scrypt (node:crypto), run on libuv's pool so that hashing never blocks the event
 * loop. Stored as `scrypt$N$r$p$salt$hash` (base64), so the cost can rise later without breaking old hashes.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const cost = { N: 16384, r: 8, p: 1 };
const keyBytes = 32;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keyBytes, { N, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost.N, cost.r, cost.p);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(N), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A stored hash to check against when the account does not exist, so both paths take as long. */
export const decoyHash = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
