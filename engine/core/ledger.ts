/**
 * The ledger: every balance the engine owns. An account is a (user, mode) pair; each holds, per asset,
 * an available and a held amount in atoms. Money moves only through the methods here, and every method
 * keeps the asset's total over all accounts unchanged except deposit and withdraw, which move `supply`.
 *
 * Accounts 0 and 1 are the fee accounts of live and paper mode (user id 0 is reserved for them).
 * Storage is two flat Float64Arrays indexed `account × assetCount + asset`, grown by doubling.
 */
import { safeIntegerMax } from './limits.ts';
import type { Mode } from './commands.ts';
import { assert } from './assert.ts';
import { IntMap, missing } from './int-map.ts';
import { grownFloat64, grownInt32, grownUint8 } from './typed-arrays.ts';

export const feeUserId = 0;
export const noAccount = -1;
/**
 * Account keys (user id × 2 + mode) below this are found by indexing an array, without hashing: user ids
 * are issued in sequence, so nearly every key is small. The array grows to the largest such key opened,
 * at most 16 MiB; larger keys go to a hash map.
 */
const directKeysMax = 1 << 22;

/** Whether a key is found in the array; `(key >>> 0) === key` only for whole numbers from 0 to 2^32 - 1. */
function isDirectKey(key: number): boolean {
  return (key >>> 0) === key && key < directKeysMax;
}

export class Ledger {
  readonly assetCount: number;
  private available: Float64Array;
  private held: Float64Array;
  private accountUsers: Float64Array;
  private accountModes: Uint8Array;
  /** Account by key for keys below `directKeysMax` (`noAccount` where none is open). */
  private accountByDirectKey = new Int32Array(64).fill(noAccount);
  /** Account by key for the keys at or above `directKeysMax`. */
  private readonly accountByKey = new IntMap(16);
  private capacity: number;
  /** Sum over all accounts of available + held, per asset. Changes only by deposit and withdraw. */
  readonly supply: Float64Array;
  accountCount = 0;

  constructor(assetCount: number, private readonly accountsMax: number) {
    this.assetCount = assetCount;
    this.capacity = 64;
    this.available = new Float64Array(this.capacity * assetCount);
    this.held = new Float64Array(this.capacity * assetCount);
    this.accountUsers = new Float64Array(this.capacity);
    this.accountModes = new Uint8Array(this.capacity);
    this.supply = new Float64Array(assetCount);
    this.openAccount(feeUserId, 0);
    this.openAccount(feeUserId, 1);
  }

  static key(userId: number, mode: Mode): number {
    return userId * 2 + mode;
  }

  /** The account of (user, mode), or `noAccount`. */
  find(userId: number, mode: Mode): number {
    const key = userId * 2 + mode;
    if (isDirectKey(key)) return key < this.accountByDirectKey.length ? this.accountByDirectKey[key]! : noAccount;
    const account = this.accountByKey.get(key);
    return account === missing ? noAccount : account;
  }

  feeAccount(mode: Mode): number {
    return mode;
  }

  /** The account of (user, mode), opened if new; `noAccount` when the ledger is full. */
  findOrOpen(userId: number, mode: Mode): number {
    const existing = this.find(userId, mode);
    if (existing !== noAccount) return existing;
    if (this.accountCount >= this.accountsMax) return noAccount;
    return this.openAccount(userId, mode);
  }

  /** Re-creates an account with its balances (snapshot restore); supply is restored separately. */
  restoreAccount(userId: number, mode: Mode, available: ArrayLike<number>, held: ArrayLike<number>): number {
    const account = this.find(userId, mode);
    const restored = account === noAccount ? this.openAccount(userId, mode) : account;
    for (let asset = 0; asset < this.assetCount; asset++) {
      this.available[restored * this.assetCount + asset] = available[asset]!;
      this.held[restored * this.assetCount + asset] = held[asset]!;
    }
    return restored;
  }

  private openAccount(userId: number, mode: Mode): number {
    if (this.accountCount === this.capacity) this.grow();
    const account = this.accountCount++;
    this.accountUsers[account] = userId;
    this.accountModes[account] = mode;
    const key = userId * 2 + mode;
    if (isDirectKey(key)) {
      let length = this.accountByDirectKey.length;
      while (length <= key) length *= 2;
      if (length !== this.accountByDirectKey.length) this.accountByDirectKey = grownInt32(this.accountByDirectKey, length, noAccount);
      this.accountByDirectKey[key] = account;
    } else {
      this.accountByKey.set(key, account);
    }
    return account;
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    this.available = grownFloat64(this.available, capacity * this.assetCount);
    this.held = grownFloat64(this.held, capacity * this.assetCount);
    this.accountUsers = grownFloat64(this.accountUsers, capacity);
    this.accountModes = grownUint8(this.accountModes, capacity);
    this.capacity = capacity;
  }

  userOf(account: number): number {
    return this.accountUsers[account]!;
  }

  modeOf(account: number): Mode {
    return this.accountModes[account] as Mode;
  }

  availableAtoms(account: number, asset: number): number {
    return this.available[account * this.assetCount + asset]!;
  }

  heldAtoms(account: number, asset: number): number {
    return this.held[account * this.assetCount + asset]!;
  }

  /** Whether `amount` more atoms of `asset` can exist without any sum leaving the safe range. */
  canMint(asset: number, amountAtoms: number): boolean {
    return this.supply[asset]! <= safeIntegerMax - amountAtoms;
  }

  deposit(account: number, asset: number, amountAtoms: number): void {
    this.supply[asset] = this.supply[asset]! + amountAtoms;
    const at = account * this.assetCount + asset;
    this.available[at] = this.available[at]! + amountAtoms;
  }

  withdraw(account: number, asset: number, amountAtoms: number): void {
    const at = account * this.assetCount + asset;
    assert(this.available[at]! >= amountAtoms, 'withdraw beyond available');
    this.available[at] = this.available[at]! - amountAtoms;
    this.supply[asset] = this.supply[asset]! - amountAtoms;
  }

  /** Moves atoms from available to held. The caller has checked that they are available. */
  hold(account: number, asset: number, amountAtoms: number): void {
    const at = account * this.assetCount + asset;
    assert(this.available[at]! >= amountAtoms, 'hold beyond available');
    this.available[at] = this.available[at]! - amountAtoms;
    this.held[at] = this.held[at]! + amountAtoms;
  }

  /** Moves atoms from held back to available. */
  release(account: number, asset: number, amountAtoms: number): void {
    const at = account * this.assetCount + asset;
    assert(this.held[at]! >= amountAtoms, 'release beyond held');
    this.held[at] = this.held[at]! - amountAtoms;
    this.available[at] = this.available[at]! + amountAtoms;
  }

  /** Pays `amountAtoms` out of `from`'s held into `to`'s available. */
  payFromHeld(from: number, to: number, asset: number, amountAtoms: number): void {
    const source = from * this.assetCount + asset;
    const target = to * this.assetCount + asset;
    assert(this.held[source]! >= amountAtoms, 'payment beyond held');
    this.held[source] = this.held[source]! - amountAtoms;
    this.available[target] = this.available[target]! + amountAtoms;
  }

  /** Pays `amountAtoms` out of `from`'s available into `to`'s available. */
  payFromAvailable(from: number, to: number, asset: number, amountAtoms: number): void {
    const source = from * this.assetCount + asset;
    const target = to * this.assetCount + asset;
    assert(this.available[source]! >= amountAtoms, 'payment beyond available');
    this.available[source] = this.available[source]! - amountAtoms;
    this.available[target] = this.available[target]! + amountAtoms;
  }

  /** Checks conservation and non-negativity over every account; returns a description of the first breach. */
  audit(): string | null {
    const sums = new Float64Array(this.assetCount);
    for (let account = 0; account < this.accountCount; account++) {
      for (let asset = 0; asset < this.assetCount; asset++) {
        const at = account * this.assetCount + asset;
        const available = this.available[at]!;
        const held = this.held[at]!;
        if (available < 0 || held < 0) return `account ${account} asset ${asset} is negative`;
        if (!Number.isSafeInteger(available) || !Number.isSafeInteger(held)) {
          return `account ${account} asset ${asset} is not an exact integer`;
        }
        sums[asset] = sums[asset]! + available + held;
      }
    }
    for (let asset = 0; asset < this.assetCount; asset++) {
      if (sums[asset] !== this.supply[asset]) return `asset ${asset}: accounts sum ${sums[asset]} but supply is ${this.supply[asset]}`;
    }
    return null;
  }
}
