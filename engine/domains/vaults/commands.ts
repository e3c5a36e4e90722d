/**
 * The strategy vaults' commands, events, result codes and limits (domain id 6: numbers 6000..6999).
 *
 * A vault is a pool of one pair's quote asset (USDC) and base asset, held in its own ledger account
 * domainUserId(6, vault id), run by a deterministic strategy that trades through the exchange's order path.
 * Holders own the vault's shares, which are this domain's own numbers (not ledger assets). Share math
 * follows ERC-4626 with a virtual offset (see `sharesForDeposit`): rounding always favours the vault.
 */
import type { DomainCommandCodec, FieldReader, FieldWriter } from '../../core/domain.ts';
import type { Mode } from '../../core/commands.ts';
import { domainResult } from '../../core/results.ts';

export const vaultsDomainId = 6;

// Limits (a named maximum for everything).
/** Vaults in all: the platform's few, the AI fund and users' paper vaults. */
export const vaultsMax = 1_000;
/** A vault's slug: 1 to 32 of a-z, 0-9 and -. */
export const slugCharsMax = 32;
/** Holders one vault counts at most. */
export const holdersPerVaultMax = 10_000;
/** An idempotency key: 1 to 64 printable ASCII characters. */
export const idempotencyKeyCharsMax = 64;
/** Idempotency keys remembered in all; the oldest is forgotten first. */
export const idempotencyKeysMax = 100_000;
/** One deposit or withdrawal: 1 to 10^9 units of the quote asset (USDC's 6 decimals: 1 USDC .. 10^9 USDC). */
export const amountAtomsMin = 1_000_000;
export const amountAtomsMax = 1_000_000_000_000_000;
/** Shares one vault may count in all (a safe integer, with room for the product in `sharesForDeposit`). */
export const sharesMax = 2 ** 52;
/** How often strategies run, in journaled time: 1 s .. 1 day. */
export const strategyMsMin = 1_000;
export const strategyMsMax = 86_400_000;
/** The ERC-4626 virtual offset that guards the first deposit against the share-inflation attack. */
export const virtualShares = 1_000;
export const virtualAssets = 1;
/** Pairs one vault trades (a basket's assets), all quoted in the same asset. */
export const basketPairsMax = 4;
/** Prices a trend or momentum strategy remembers (one per strategy run). */
export const priceMemoryMax = 32;
/** The trend strategy's moving-average window and the momentum strategy's look-back, in strategy runs. */
export const trendWindow = 5;
export const momentumLookback = 3;
/** A rebalance trades at most this share of NAV per run, and skips gaps below `rebalanceMinBps` of NAV. */
export const rebalanceClipBps = 1_000;
export const rebalanceMinBps = 100;
/** How far from the oracle price a strategy's IOC limit reaches (the slippage it accepts). */
export const strategySlippageBps = 100;
/** How far an unwind's IOC sells reach below the oracle price to raise a withdrawal's cash. */
export const unwindSlippageBps = 500;
/**
 * The market-making vault's quotes: one post-only GTC bid and one ask per pair, `quoteHalfSpreadBps` each
 * side of the oracle price, shifted down (up) by up to `quoteHalfSpreadBps` as the vault holds more (less)
 * than half its NAV in the base, each at most `quoteSizeBps` of NAV (the bid within 95 % of the free cash,
 * the ask within the free base). `quotesPerPairMax` live quotes per pair at most: every run cancels the
 * previous ones before it quotes again.
 */
export const quoteHalfSpreadBps = 20;
export const quoteSizeBps = 1_000;
export const quotesPerPairMax = 2;
/** The NAV history the engine keeps per vault: the last revaluation of each hour, 400 days of them. */
export const navSampleMs = 3_600_000;
export const navHistoryMax = 24 * 400;

/** The strategies: a deterministic rule giving the share of NAV to hold in the base asset. */
export const Strategy = { marketMaking: 0, trend: 1, momentum: 2, basket: 3 } as const;
export type Strategy = (typeof Strategy)[keyof typeof Strategy];
export const strategyNames = ['market_making', 'trend', 'momentum', 'basket'] as const;

export const VaultsCommandType = { configure: 6001, create: 6002, deposit: 6003, withdraw: 6004, unwind: 6005 } as const;
export const VaultsEventType = { configured: 6001, created: 6002, deposited: 6003, withdrawn: 6004, traded: 6005, nav: 6006, navSampled: 6007 } as const;

/** How often strategies run (journaled, so replay needs no environment). */
export interface ConfigureVaults {
  strategyMs: number;
}

/**
 * A new vault (id = the previous id + 1) trading the pairs `pairIds` in `mode` (one pair for market making
 * and trend, one to `basketPairsMax` distinct pairs with one quote asset for momentum and basket). `ownerUserId` 0 makes a public
 * vault; a user id makes that user's own vault (a paper vault), which only its owner may deposit into.
 */
export interface CreateVault {
  slug: string;
  strategy: Strategy;
  pairIds: number[];
  mode: Mode;
  ownerUserId: number;
}

/** `amountAtoms` of the vault's quote asset from the user's account into the vault, for shares. */
export interface DepositToVault {
  vaultId: number;
  userId: number;
  amountAtoms: number;
  idempotencyKey: string;
}

/**
 * A withdrawal: exactly one of `shares` (burn these shares, paid their value rounded down) and
 * `amountAtoms` (receive this amount, burning the shares it is worth rounded up) is positive.
 */
export interface WithdrawFromVault {
  vaultId: number;
  userId: number;
  shares: number;
  amountAtoms: number;
  idempotencyKey: string;
}

/** Sells the vault's base with IOC orders until its free cash reaches `cashAtoms` (or the book runs dry). */
export interface UnwindVault {
  vaultId: number;
  cashAtoms: number;
}

export interface VaultCreated {
  vaultId: number;
  slug: string;
  strategy: Strategy;
  pairIds: number[];
  mode: Mode;
  ownerUserId: number;
  accountUserId: number;
}

/** A deposit or a withdrawal, with the holder's and the vault's figures after it. */
export interface VaultFlow {
  vaultId: number;
  userId: number;
  idempotencyKey: string;
  amountAtoms: number;
  shares: number;
  holderShares: number;
  holderCostAtoms: number;
  totalShares: number;
  navAtoms: number;
}

/**
 * A strategy's or an unwind's IOC order and how it filled, or one fill of a market-making quote by a taker
 * (then `filledLots` and `filledNotionalAtoms` are that fill's, and `quote` is true); side 0 buy, 1 sell.
 */
export interface VaultTraded {
  vaultId: number;
  pairId: number;
  orderId: number;
  side: number;
  filledLots: number;
  filledNotionalAtoms: number;
  baseAtoms: number;
  unwind: boolean;
  quote: boolean;
}

/**
 * A point of the vault's NAV history (kept in the engine's state): at a strategy run, the series' point of
 * the hour (`atMs` / `navSampleMs`) is added, or `replaced` when the hour has one already.
 */
export interface VaultNavSampled {
  vaultId: number;
  atMs: number;
  navAtoms: number;
  totalShares: number;
  replaced: boolean;
}

/** A revaluation: NAV = cash + each pair's base at its oracle price, in quote atoms (lists by the vault's pairs). */
export interface VaultNav {
  vaultId: number;
  atMs: number;
  navAtoms: number;
  cashAtoms: number;
  baseAtoms: number[];
  pricesE8: number[];
  totalShares: number;
}

export const VaultsResult = {
  invalidConfiguration: domainResult(vaultsDomainId, 6001, 'INVALID_VAULT_CONFIGURATION', `strategy_ms must be ${strategyMsMin} to ${strategyMsMax}`),
  invalidVault: domainResult(vaultsDomainId, 6002, 'INVALID_VAULT', `a new slug of 1 to 32 of a-z, 0-9 and -, a known strategy, its pairs (one, or up to ${basketPairsMax} distinct ones with one quote for momentum and basket), a mode, and an owner 0 or a user`),
  vaultNotFound: domainResult(vaultsDomainId, 6003, 'VAULT_NOT_FOUND', 'no vault has this id (or it is another user’s own vault)'),
  invalidAmount: domainResult(vaultsDomainId, 6004, 'INVALID_VAULT_AMOUNT', `an amount of ${amountAtomsMin} to ${amountAtomsMax} atoms, or a positive whole number of shares, one of the two`),
  duplicateKey: domainResult(vaultsDomainId, 6005, 'DUPLICATE_IDEMPOTENCY_KEY', 'this idempotency key was used already; the first result stands'),
  invalidKey: domainResult(vaultsDomainId, 6006, 'INVALID_IDEMPOTENCY_KEY', `1 to ${idempotencyKeyCharsMax} printable ASCII characters`),
  insufficientShares: domainResult(vaultsDomainId, 6007, 'INSUFFICIENT_VAULT_SHARES', 'the withdrawal needs more shares than the holder has'),
  illiquid: domainResult(vaultsDomainId, 6008, 'VAULT_ILLIQUID', 'the vault’s free cash cannot pay this withdrawal'),
  unpriced: domainResult(vaultsDomainId, 6009, 'VAULT_UNPRICED', 'the oracle has no price for the vault’s base asset yet'),
  tooSmall: domainResult(vaultsDomainId, 6010, 'VAULT_AMOUNT_TOO_SMALL', 'the amount is worth no whole share (or no atom)'),
  full: domainResult(vaultsDomainId, 6011, 'VAULT_FULL', `a vault counts at most ${holdersPerVaultMax} holders and ${sharesMax} shares; the platform at most ${vaultsMax} vaults`),
  insufficientBalance: domainResult(vaultsDomainId, 6012, 'VAULT_INSUFFICIENT_BALANCE', 'the account lacks the amount'),
} as const;

export function isSlug(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= slugCharsMax && /^[a-z0-9-]+$/.test(value);
}

export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= idempotencyKeyCharsMax && /^[\x21-\x7e]+$/.test(value);
}

/** What the journal format takes as a string here: printable ASCII within `max` (the rules are stricter). */
function fits(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length <= max && /^[\x20-\x7e]*$/.test(value);
}

const integers = (...values: unknown[]): boolean => values.every((value) => Number.isSafeInteger(value));

export const configureVaultsCodec: DomainCommandCodec<ConfigureVaults> = {
  type: VaultsCommandType.configure,
  name: 'ConfigureVaults',
  fieldCount: 1,
  isEncodable: (body) => integers(body.strategyMs),
  write(writer: FieldWriter, body) {
    writer.integer(body.strategyMs);
  },
  read: (reader: FieldReader) => ({ strategyMs: reader.integer('strategyMs') }),
};

export const createVaultCodec: DomainCommandCodec<CreateVault> = {
  type: VaultsCommandType.create,
  name: 'CreateVault',
  fieldCount: 5,
  isEncodable: (body) =>
    fits(body.slug, slugCharsMax) && integers(body.strategy, body.mode, body.ownerUserId) && Array.isArray(body.pairIds) && body.pairIds.length <= basketPairsMax && integers(...body.pairIds),
  write(writer: FieldWriter, body) {
    writer.string(body.slug);
    writer.integer(body.strategy);
    writer.integers(body.pairIds);
    writer.integer(body.mode);
    writer.integer(body.ownerUserId);
  },
  read: (reader: FieldReader) => ({
    slug: reader.string('slug', slugCharsMax),
    strategy: reader.integer('strategy') as Strategy,
    pairIds: reader.integers('pairIds', basketPairsMax),
    mode: reader.integer('mode') as Mode,
    ownerUserId: reader.integer('ownerUserId'),
  }),
};

export const depositToVaultCodec: DomainCommandCodec<DepositToVault> = {
  type: VaultsCommandType.deposit,
  name: 'DepositToVault',
  fieldCount: 4,
  isEncodable: (body) => integers(body.vaultId, body.userId, body.amountAtoms) && fits(body.idempotencyKey, idempotencyKeyCharsMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.vaultId);
    writer.integer(body.userId);
    writer.integer(body.amountAtoms);
    writer.string(body.idempotencyKey);
  },
  read: (reader: FieldReader) => ({
    vaultId: reader.integer('vaultId'),
    userId: reader.integer('userId'),
    amountAtoms: reader.integer('amountAtoms'),
    idempotencyKey: reader.string('idempotencyKey', idempotencyKeyCharsMax),
  }),
};

export const withdrawFromVaultCodec: DomainCommandCodec<WithdrawFromVault> = {
  type: VaultsCommandType.withdraw,
  name: 'WithdrawFromVault',
  fieldCount: 5,
  isEncodable: (body) => integers(body.vaultId, body.userId, body.shares, body.amountAtoms) && fits(body.idempotencyKey, idempotencyKeyCharsMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.vaultId);
    writer.integer(body.userId);
    writer.integer(body.shares);
    writer.integer(body.amountAtoms);
    writer.string(body.idempotencyKey);
  },
  read: (reader: FieldReader) => ({
    vaultId: reader.integer('vaultId'),
    userId: reader.integer('userId'),
    shares: reader.integer('shares'),
    amountAtoms: reader.integer('amountAtoms'),
    idempotencyKey: reader.string('idempotencyKey', idempotencyKeyCharsMax),
  }),
};

export const unwindVaultCodec: DomainCommandCodec<UnwindVault> = {
  type: VaultsCommandType.unwind,
  name: 'UnwindVault',
  fieldCount: 2,
  isEncodable: (body) => integers(body.vaultId, body.cashAtoms),
  write(writer: FieldWriter, body) {
    writer.integer(body.vaultId);
    writer.integer(body.cashAtoms);
  },
  read: (reader: FieldReader) => ({ vaultId: reader.integer('vaultId'), cashAtoms: reader.integer('cashAtoms') }),
};

// Share math (ERC-4626 with a virtual offset): with V virtual shares and A virtual atoms, a deposit of `a`
// into a vault of NAV `n` and `s` shares mints floor(a × (s + V) / (n + A)) shares; burning `k` shares pays
// floor(k × (n + A) / (s + V)); receiving `a` burns ceil(a × (s + V) / (n + A)). A first depositor's
// donation to inflate the share price would have to outweigh V virtual shares' claim on it, which makes
// the attack cost the attacker about V times what it takes from the victim.

/** Shares minted for a deposit of `amountAtoms` (rounded down). */
export function sharesForDeposit(amountAtoms: number, totalShares: number, navAtoms: number): number {
  return Number((BigInt(amountAtoms) * BigInt(totalShares + virtualShares)) / BigInt(navAtoms + virtualAssets));
}

/** Atoms paid for burning `shares` (rounded down). */
export function assetsForShares(shares: number, totalShares: number, navAtoms: number): number {
  return Number((BigInt(shares) * BigInt(navAtoms + virtualAssets)) / BigInt(totalShares + virtualShares));
}

/** Shares burned to pay out `amountAtoms` (rounded up). */
export function sharesForWithdrawal(amountAtoms: number, totalShares: number, navAtoms: number): number {
  const numerator = BigInt(amountAtoms) * BigInt(totalShares + virtualShares);
  const denominator = BigInt(navAtoms + virtualAssets);
  return Number((numerator + denominator - 1n) / denominator);
}

/**
 * Quote atoms worth `baseAtoms` at an oracle price of `priceE8` (10^-8 USD per whole base unit, the quote
 * taken as 1 USD), rounded down.
 */
export function baseValueAtoms(baseAtoms: number, priceE8: number, baseDecimals: number, quoteDecimals: number): number {
  return Number((BigInt(baseAtoms) * BigInt(priceE8) * 10n ** BigInt(quoteDecimals)) / (100_000_000n * 10n ** BigInt(baseDecimals)));
}

/** Base atoms worth `valueAtoms` of the quote at `priceE8`, rounded down. */
export function baseAtomsForValue(valueAtoms: number, priceE8: number, baseDecimals: number, quoteDecimals: number): number {
  return Number((BigInt(valueAtoms) * 100_000_000n * 10n ** BigInt(baseDecimals)) / (BigInt(priceE8) * 10n ** BigInt(quoteDecimals)));
}
