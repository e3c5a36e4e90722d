/**
 * The withdrawal whitelist (API specification: "Withdrawal address"): addresses a user adds, each cooling for 24
 * hours before it may receive a withdrawal. Once a user has whitelisted any address, every withdrawal must
 * go to a whitelisted address that has finished cooling; removing one takes effect at once. Kept in the
 * identity database, since it is a security setting of the account, not engine state.
 */
import type { Db } from '../store/database.ts';
import type { Chain, Chains } from './chains.ts';

export const coolingMs = 24 * 3_600_000;
/** Addresses one user may whitelist. */
export const addressesPerUserMax = 50;
export const labelCharsMax = 64;

export interface WhitelistedAddress {
  readonly chain: Chain;
  readonly address: string;
  readonly label: string;
  readonly createdAtMs: number;
  readonly usableAtMs: number;
}

/** Whether a withdrawal may go to a destination: `open` when the user has no whitelist at all. */
export type DestinationCheck = { readonly kind: 'open' } | { readonly kind: 'usable' } | { readonly kind: 'cooling'; readonly usableAtMs: number } | { readonly kind: 'not_whitelisted' };

interface Row {
  chain_id: number;
  address: string;
  label: string;
  created_at_ms: number;
  usable_at_ms: number;
}

export type AddResult = { readonly added: WhitelistedAddress } | { readonly refused: 'duplicate' | 'full' };

export class WithdrawalAddresses {
  private readonly insert;
  private readonly byUser;
  private readonly countByUser;
  private readonly one;
  private readonly remove;

  constructor(
    db: Db,
    private readonly chains: Chains,
    private readonly clock: () => number,
  ) {
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO withdrawal_addresses (user_id, chain_id, address, label, created_at_ms, usable_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.byUser = db.prepare('SELECT * FROM withdrawal_addresses WHERE user_id = ? ORDER BY created_at_ms, chain_id, address');
    this.countByUser = db.prepare('SELECT count(*) FROM withdrawal_addresses WHERE user_id = ?').pluck();
    this.one = db.prepare('SELECT * FROM withdrawal_addresses WHERE user_id = ? AND chain_id = ? AND address = ?');
    this.remove = db.prepare('DELETE FROM withdrawal_addresses WHERE user_id = ? AND chain_id = ? AND address = ?');
  }

  /** Adds a normalized address; it cools from now. */
  add(userId: number, chain: Chain, address: string, label: string): AddResult {
    if ((this.countByUser.get(userId) as number) >= addressesPerUserMax) return { refused: 'full' };
    const now = this.clock();
    if (this.insert.run(userId, chain.id, address, label, now, now + coolingMs).changes === 0) return { refused: 'duplicate' };
    return { added: { chain, address, label, createdAtMs: now, usableAtMs: now + coolingMs } };
  }

  list(userId: number): WhitelistedAddress[] {
    return (this.byUser.all(userId) as Row[]).map((row) => this.record(row));
  }

  /** Removes an address at once; false when it was not whitelisted. */
  delete(userId: number, chain: Chain, address: string): boolean {
    return this.remove.run(userId, chain.id, address).changes === 1;
  }

  check(userId: number, chain: Chain, address: string): DestinationCheck {
    const row = this.one.get(userId, chain.id, address) as Row | undefined;
    if (row === undefined) return (this.countByUser.get(userId) as number) === 0 ? { kind: 'open' } : { kind: 'not_whitelisted' };
    return row.usable_at_ms <= this.clock() ? { kind: 'usable' } : { kind: 'cooling', usableAtMs: row.usable_at_ms };
  }

  private record(row: Row): WhitelistedAddress {
    return { chain: this.chains.byId(row.chain_id)!, address: row.address, label: row.label, createdAtMs: row.created_at_ms, usableAtMs: row.usable_at_ms };
  }
}
