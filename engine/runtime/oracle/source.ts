/**
 * Price sources: where the oracle's prices come from before they enter the engine as journaled commands.
 * The runtime's oracle (oracle.ts) polls one source, chosen by PRICE_FEED, and journals what it answers;
 * the engine and every domain read prices only from the journal, so replay needs no source.
 *
 * Prices are integers at one fixed scale for every asset: `priceE8` = price in USD × 10^8 (a BTC price of
 * 97 000.12 is 9 700 012 000 000, well inside the safe-integer range). Days are UTC day numbers:
 * floor(ms / 86 400 000).
 */
import { newConversion, parseStep, toSteps } from '../../core/units.ts';
import { Result } from '../../core/results.ts';
import { isPriceE8 } from '../../domains/prices/commands.ts';

/** Price units per 1 USD: every oracle price is an integer count of 10^-8 USD. */
export const priceScale = 100_000_000;
export const msPerDay = 86_400_000;

/** One price unit, 10^-8 USD, as a step of the project's exact decimal converter. */
const priceUnit = parseStep('0.00000001');

/**
 * A price from outside (a decimal string, or a number read through its shortest decimal form) as priceE8,
 * exactly, through the project's decimal converter: null when it is malformed, not positive, has more
 * than 8 decimals, or lies beyond the prices domain's range.
 */
export function toPriceE8(input: unknown): number | null {
  const conversion = toSteps(input, priceUnit, false, Result.tooManyDecimals, newConversion());
  return conversion.code === Result.ok && isPriceE8(conversion.value) ? conversion.value : null;
}

export type AssetType = 'crypto' | 'stock';

/** One asset the oracle prices (fixtures/oracle-assets.json). */
export interface OracleAsset {
  /** Upper-case symbol, 1 to 12 of [A-Z0-9]. */
  readonly symbol: string;
  readonly assetType: AssetType;
  /** Where a `sim` walk starts when nothing is journaled yet, in price units (× 10^8). */
  readonly startPriceE8: number;
  /** Geometric Brownian motion parameters of the `sim` source, per year (365 days). */
  readonly driftAnnual: number;
  readonly volatilityAnnual: number;
}

/** A price a source gives for one asset. */
export interface SourcePrice {
  readonly symbol: string;
  readonly priceE8: number;
}

/** Closes of whole UTC days, oldest first: `closesE8[i]` is the close of day `firstDay + i`. */
export interface DailyCloses {
  readonly firstDay: number;
  readonly closesE8: readonly number[];
}

export interface PriceSource {
  /** `sim`, `file` or `http`: journaled with every tick so that a reader knows where a price came from. */
  readonly name: 'sim' | 'file' | 'http';
  /**
   * Daily closes of `symbol` for the `days` whole UTC days before `beforeDay` (so the last is day
   * beforeDay − 1), or fewer when the source knows fewer, or null when it knows none. Called once per asset
   * on the first start (the runtime journals the answer); deterministic for `sim` (from the seed).
   */
  history(symbol: string, beforeDay: number, days: number): DailyCloses | null;
  /**
   * Tells the source where each asset stands (the engine's last journaled price) before the first poll, so
   * that a restarted `sim` walk continues from where the journal left it rather than jumping back.
   */
  resume(lastPricesE8: ReadonlyMap<string, number>): void;
  /**
   * The prices at runtime time `nowMs` (assets without a new price may be left out). May be async (`http`);
   * the oracle never waits for it on the sequencer's path. Throws or rejects on a failure the oracle logs.
   */
  poll(nowMs: number): readonly SourcePrice[] | Promise<readonly SourcePrice[]>;
  /** Releases timers or sockets; the oracle calls it on shutdown. */
  close(): void;
}
