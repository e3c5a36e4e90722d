/**
 * Every maximum the engine enforces, in one place. Going over a limit is an expected refusal with a
 * result code (see results.ts), never growth. Settings that are policy rather than capacity (fees, the
 * market protection band) live beside them in `EngineSettings`, so a deployment can change them without
 * touching code.
 */

/** The largest integer a `number` holds exactly; every money, price and quantity stays at or below it. */
export const safeIntegerMax = Number.MAX_SAFE_INTEGER;

export interface EngineLimits {
  /** Orders in one batch placement (API specification: at most 10 per request). */
  readonly batchOrdersMax: number;
  /** Order ids in one batch cancel. */
  readonly batchCancelMax: number;
  /** Live orders (resting or pending stops) one account may hold across all books. */
  readonly openOrdersPerAccountMax: number;
  /** Live orders across the whole engine: the capacity of the order store. */
  readonly ordersMax: number;
  /** Resting orders in one book (one pair in one mode). */
  readonly bookOrdersMax: number;
  /** Distinct price levels on one side of one book. */
  readonly priceLevelsPerSideMax: number;
  /** Untriggered stop orders in one book. */
  readonly stopOrdersPerBookMax: number;
  /** Accounts (user × mode) the ledger holds. */
  readonly accountsMax: number;
  /** Characters in a client order id. */
  readonly clientOrderIdLengthMax: number;
  /** Active TWAPs one account (user × mode) may run. */
  readonly twapsPerAccountMax: number;
  /** Active TWAPs across the whole engine: each costs a slice per interval and a row in every snapshot. */
  readonly twapsMax: number;
}

export const defaultLimits: EngineLimits = {
  batchOrdersMax: 10,
  batchCancelMax: 100,
  openOrdersPerAccountMax: 200_000,
  ordersMax: 8_000_000,
  bookOrdersMax: 4_000_000,
  // Levels are kept in a sorted array with the best at the end; a new level far from the top shifts the
  // levels above it, so this bound also bounds the worst insertion (bench:engine, deep ladders).
  priceLevelsPerSideMax: 100_000,
  stopOrdersPerBookMax: 100_000,
  accountsMax: 4_000_000,
  clientOrderIdLengthMax: 64,
  twapsPerAccountMax: 20,
  twapsMax: 10_000,
};

export interface EngineSettings {
  /** Taker fee in basis points of quote notional, rounded up to the quote atom (API specification: 10). */
  readonly takerFeeBps: number;
  /** Maker fee in basis points (API specification: 0; rebates are paused, so never negative). */
  readonly makerFeeBps: number;
  /**
   * Protection band of market and stop-market orders, in basis points from the best opposite price at
   * the moment they sweep. Liquidity beyond it is not taken; the remainder expires.
   */
  readonly marketBandBps: number;
  /**
   * A venue's levels are removed when its last quote is older than this, in journaled time: a worker that
   * died or a chain that stalled must not leave prices in the book that nobody stands behind.
   */
  readonly venueQuoteLifetimeMs: number;
}

export const defaultSettings: EngineSettings = {
  takerFeeBps: 10,
  makerFeeBps: 0,
  marketBandBps: 500,
  venueQuoteLifetimeMs: 30_000,
};

/** Basis points in one whole. */
export const bpsDenominator = 10_000;

/**
 * Characters in the destination address of a withdrawal (WithdrawTo). The longest address the shell's
 * chains use is a 44-character Solana key; the rest leaves room for a chain whose addresses are longer
 * without letting a command carry an unbounded string into the journal.
 */
export const withdrawAddressCharsMax = 64;
/** Characters in the client's reference (idempotency key) of a withdrawal; empty when it gave none. */
export const withdrawReferenceCharsMax = 64;
/**
 * The highest destination chain id a withdrawal may name. Chain ids are small numbers from the shell's
 * chain table (1 ethereum to 4 solana today); the bound keeps each to one byte wherever it is stored.
 */
export const withdrawChainIdMax = 255;

/**
 * Outside venues (AMM pools) quoting one pair, levels per side in one quote, and the largest pool id. A
 * worker quotes a pool over a few percent of price in tens of levels; the bounds keep a quote within a
 * journal frame and the merged level lists short enough to rebuild on every quote.
 */
export const venuesPerPairMax = 16;
export const venueLevelsPerSideMax = 64;
export const venuePoolIdMax = 65_535;

/**
 * User ids the shell may use are below this; the ledger's own accounts live above it (fee accounts are user
 * 0; the venue accounts through which outside fills settle are `venueUserId`).
 */
export const userIdMax = 2 ** 48 - 1;
export const venueUserId = 2 ** 48;

/** Accounts one domain may own (its escrow and pools), numbered 0 .. domainAccountsMax - 1. */
export const domainAccountsMax = 2 ** 20;

/**
 * The user id of a domain's own account `index` (an escrow holding a market's collateral, a pool, a
 * vault's treasury): above every client id and the venue id, one block of `domainAccountsMax` per domain
 * id (1..999), so the ledger key (user id x 2 + mode) stays a safe integer. Money reaches and leaves these
 * accounts only through the port's ledger moves, so the ledger's conservation holds for them as for users.
 */
export function domainUserId(domainId: number, index: number): number {
  if (!Number.isInteger(domainId) || domainId < 1 || domainId > 999) throw new Error(`domain id ${domainId} is outside 1..999`);
  if (!Number.isInteger(index) || index < 0 || index >= domainAccountsMax) throw new Error(`domain account ${index} is outside 0..${domainAccountsMax - 1}`);
  return venueUserId + domainId * domainAccountsMax + index;
}

/**
 * Whether `userId` is a domain's own account. Deposits may fund one (a house treasury that seeds pools is
 * funded by a journaled Deposit, as any money enters the ledger); withdrawals may not, and orders only when
 * the domain places them through the port (a vault trading its pool), never as a client's command.
 */
export function isDomainUserId(userId: number): boolean {
  return Number.isSafeInteger(userId) && userId >= venueUserId + domainAccountsMax && userId < venueUserId + 1000 * domainAccountsMax;
}

/** Assets one paper account may be opened with. */
export const paperFundingAssetsMax = 32;

/** Characters accepted in one decimal input (a string or a number's shortest form). */
export const decimalInputLengthMax = 40;

/**
 * A TWAP's schedule: a slice every 1 second to 1 hour, over at most 7 days, in at most 1000 slices
 * (slices = ceil(duration / interval)). The floor keeps the runtime's timer (which looks every ~100 ms)
 * well inside an interval; the slice bound bounds a TWAP's list of child orders.
 */
export const twapIntervalMsMin = 1_000;
export const twapIntervalMsMax = 3_600_000;
export const twapDurationMsMax = 7 * 24 * 3_600_000;
export const twapSlicesMax = 1_000;

/** Orders in one scale order: a ladder needs two rungs; fifty keeps one command within a journal frame. */
export const scaleOrdersMin = 2;
export const scaleOrdersMax = 50;
