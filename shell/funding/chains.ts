/**
 * The chains deposits come from and withdrawals go to (fixtures/chains.json): their stable ids, address
 * formats and the assets each carries; address checks; and each user's deposit address per chain.
 *
 * Deposit addresses are derived, not stored: HMAC-SHA256 of `deposit:<user id>:<chain id>` under a secret
 * kept in the identity database, so a user always gets the same address on a chain and nobody can guess
 * another user's. In the embedded default no chain watches them: funds arrive through the admin credit,
 * which stands in for the chain watcher's deposit command.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Markets, Asset } from '../../engine/core/units.ts';

export type ChainFamily = 'evm' | 'solana';

export interface Chain {
  readonly id: number;
  readonly name: string;
  readonly family: ChainFamily;
  /** Assets that may be withdrawn to this chain. */
  readonly assets: readonly Asset[];
}

export const defaultChainsPath = fileURLToPath(new URL('../../fixtures/chains.json', import.meta.url));

export interface Chains {
  readonly all: readonly Chain[];
  byName(name: string): Chain | undefined;
  byId(id: number): Chain | undefined;
}

export function loadChains(markets: Markets, path: string = defaultChainsPath): Chains {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { chains: Array<{ id: number; name: string; family: string; assets: string[] }> };
  const all: Chain[] = parsed.chains.map((raw) => {
    if (!Number.isInteger(raw.id) || raw.id < 1 || raw.id > 255) throw new Error(`chain ${raw.name}: id must be 1..255`);
    if (raw.family !== 'evm' && raw.family !== 'solana') throw new Error(`chain ${raw.name}: unknown family ${raw.family}`);
    const assets = raw.assets.map((symbol) => {
      const asset = markets.assetBySymbol(symbol);
      if (asset === undefined) throw new Error(`chain ${raw.name}: unknown asset ${symbol}`);
      return asset;
    });
    return { id: raw.id, name: raw.name.toLowerCase(), family: raw.family, assets };
  });
  const byName = new Map(all.map((chain) => [chain.name, chain]));
  const byId = new Map(all.map((chain) => [chain.id, chain]));
  if (byName.size !== all.length || byId.size !== all.length) throw new Error('chains: duplicate name or id');
  return { all, byName: (name) => byName.get(name.toLowerCase()), byId: (id) => byId.get(id) };
}

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const base58Digit = new Map([...base58Alphabet].map((char, index) => [char, index]));

/** Base58 (Bitcoin alphabet, as Solana uses it) of some bytes; leading zero bytes become leading '1's. */
export function base58(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = '';
  while (value > 0n) {
    text = base58Alphabet[Number(value % 58n)]! + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = '1' + text;
  }
  return text;
}

/** The bytes a base58 string stands for, or null when it has a character outside the alphabet. */
export function fromBase58(text: string): Uint8Array | null {
  let value = 0n;
  for (const char of text) {
    const digit = base58Digit.get(char);
    if (digit === undefined) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/**
 * The address in the form it is stored and compared, or null when it is not an address of the chain:
 * EVM addresses are `0x` and 40 hex digits, kept in lower case (EVM addresses are case-insensitive; the
 * mixed-case checksum is a display form); Solana addresses are the base58 form of 32 bytes, case-sensitive.
 */
export function normalizeAddress(chain: Chain, address: string): string | null {
  if (chain.family === 'evm') return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : null;
  if (address.length < 32 || address.length > 44) return null;
  const bytes = fromBase58(address);
  return bytes !== null && bytes.length === 32 ? address : null;
}

/** The user's deposit address on a chain (see the file comment). */
export function depositAddress(secret: Uint8Array, userId: number, chain: Chain): string {
  const digest = createHmac('sha256', secret).update(`deposit:${userId}:${chain.id}`).digest();
  return chain.family === 'evm' ? `0x${digest.subarray(0, 20).toString('hex')}` : base58(digest);
}
