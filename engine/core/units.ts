/**
 * Units: assets with fixed decimals, pairs with tick and lot sizes, and the one exact converter between
 * decimal inputs (strings or numbers) and the integers the engine works in.
 *
 * The engine never sees a fraction. A price is an integer count of ticks, a quantity an integer count of
 * lots, money an integer count of atoms (10^-decimals of an asset). The converter here runs at every edge;
 * it never goes through a float product, so "0.1" is exactly one tick of 0.1, not 0.1000000000000000055.
 */
import { decimalInputLengthMax, safeIntegerMax } from './limits.ts';
import { Result, type ResultCode } from './results.ts';

/** A decimal step (tick size, lot size or one atom) as mantissa × 10^-scale, both exact. */
export interface Step {
  readonly mantissa: bigint;
  readonly scale: number;
}

export interface Asset {
  /** Stable id used in commands and journals. */
  readonly id: number;
  /** Dense index into ledger arrays. */
  readonly index: number;
  readonly symbol: string;
  /** Ledger decimals: one atom is 10^-decimals of the asset. */
  readonly decimals: number;
  readonly atom: Step;
}

export interface Pair {
  /** Stable id used in commands and journals. */
  readonly id: number;
  /** Dense index into the engine's book tables. */
  readonly index: number;
  /** `BASE/QUOTE`. */
  readonly name: string;
  /** The base token's slug, lower case, as used in `/api/v1/exchange/{symbol}`. */
  readonly slug: string;
  readonly base: Asset;
  readonly quote: Asset;
  readonly tick: Step;
  readonly lot: Step;
  /** Quote atoms of one tick of price times one lot of quantity: notional = ticks × lots × this. */
  readonly quoteAtomsPerTickLot: number;
  /** Base atoms in one lot. */
  readonly baseAtomsPerLot: number;
  readonly priceTicksMax: number;
  readonly quantityLotsMax: number;
}

/** What the converter gives back: `code` is `Result.ok` and `value` the integer, or a refusal code. */
export interface Conversion {
  code: ResultCode;
  value: number;
}

interface ParsedDecimal {
  negative: boolean;
  /** Digits without the point. */
  mantissa: bigint;
  /** Count of digits after the point (may be negative after an exponent). */
  scale: number;
}

const plainDecimal = /^(-?)(\d+)(?:\.(\d+))?$/;
const numberForm = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * Reads a decimal string (digits, an optional point with digits after it, an optional leading minus) or a
 * finite number. Exponents are accepted only from numbers, whose shortest form may use them (1e-7).
 */
function parseDecimal(input: unknown): ParsedDecimal | null {
  let text: string;
  let form: RegExp;
  if (typeof input === 'string') {
    text = input;
    form = plainDecimal;
  } else if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    text = String(input);
    form = numberForm;
  } else {
    return null;
  }
  if (text.length === 0 || text.length > decimalInputLengthMax) return null;
  const match = form.exec(text);
  if (match === null) return null;
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  if (!Number.isInteger(exponent) || Math.abs(exponent) > 400) return null;
  return {
    negative: match[1] === '-',
    mantissa: BigInt(whole + fraction),
    scale: fraction.length - exponent,
  };
}

const bigSafeMax = BigInt(safeIntegerMax);
const powersOfTen: bigint[] = [];
function pow10(exponent: number): bigint {
  let cached = powersOfTen[exponent];
  if (cached === undefined) {
    cached = 10n ** BigInt(exponent);
    powersOfTen[exponent] = cached;
  }
  return cached;
}

/** Parses a step such as "0.01" once, at configuration time. Throws: configuration errors are bugs. */
export function parseStep(text: string): Step {
  const parsed = parseDecimal(text);
  if (parsed === null || parsed.negative || parsed.mantissa === 0n) {
    throw new Error(`invalid step ${JSON.stringify(text)}`);
  }
  let { mantissa, scale } = parsed;
  while (scale > 0 && mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale -= 1;
  }
  if (scale < 0) {
    mantissa *= pow10(-scale);
    scale = 0;
  }
  return { mantissa, scale };
}

/**
 * Converts a decimal input into an integer count of `step`s. Refuses, with a result code and never a
 * throw: a malformed input, a negative value, zero unless `allowZero`, a value off the step's grid
 * (`offGridCode`), and a count beyond the safe-integer range.
 */
export function toSteps(input: unknown, step: Step, allowZero: boolean, offGridCode: ResultCode, out: Conversion): Conversion {
  out.value = 0;
  const parsed = parseDecimal(input);
  if (parsed === null) {
    out.code = Result.invalidNumber;
    return out;
  }
  if (parsed.mantissa === 0n) {
    out.code = allowZero ? Result.ok : Result.zeroValue;
    return out;
  }
  if (parsed.negative) {
    out.code = Result.negativeValue;
    return out;
  }
  // value / step = (m × 10^-s) / (n × 10^-t) = m × 10^(t-s) / n
  const shift = step.scale - parsed.scale;
  const numerator = shift >= 0 ? parsed.mantissa * pow10(shift) : parsed.mantissa;
  const denominator = shift >= 0 ? step.mantissa : step.mantissa * pow10(-shift);
  if (numerator % denominator !== 0n) {
    out.code = offGridCode;
    return out;
  }
  const steps = numerator / denominator;
  if (steps > bigSafeMax) {
    out.code = Result.valueTooLarge;
    return out;
  }
  out.code = Result.ok;
  out.value = Number(steps);
  return out;
}

export function newConversion(): Conversion {
  return { code: Result.ok, value: 0 };
}

/** Price input → ticks of the pair (zero refused). */
export function priceToTicks(input: unknown, pair: Pair, out: Conversion = newConversion()): Conversion {
  toSteps(input, pair.tick, false, Result.offTick, out);
  if (out.code === Result.ok && out.value > pair.priceTicksMax) out.code = Result.priceOutOfRange;
  return out;
}

/** Quantity input → lots of the pair (zero refused). */
export function quantityToLots(input: unknown, pair: Pair, out: Conversion = newConversion()): Conversion {
  toSteps(input, pair.lot, false, Result.offLot, out);
  if (out.code === Result.ok && out.value > pair.quantityLotsMax) out.code = Result.quantityOutOfRange;
  return out;
}

/** Amount input → atoms of the asset (zero refused). */
export function amountToAtoms(input: unknown, asset: Asset, out: Conversion = newConversion()): Conversion {
  return toSteps(input, asset.atom, false, Result.tooManyDecimals, out);
}

/**
 * An integer count of steps as a decimal string with exactly the step's decimals ("1234.50"). A BigInt
 * count is for sums that may pass the safe-integer range (the depth totals of GET /venues).
 */
export function formatSteps(count: number | bigint, step: Step): string {
  const negative = count < 0;
  const magnitude = negative ? -count : count;
  // Steps of one unit of their last decimal (0.01, 0.0001, one atom) are nearly all of them; their digits
  // are the count's own, with no BigInt product (which cost a microsecond per field in bench:http).
  const digits = step.mantissa === 1n ? String(magnitude) : (BigInt(magnitude) * step.mantissa).toString();
  if (step.scale === 0) return negative ? '-' + digits : digits;
  const padded = digits.padStart(step.scale + 1, '0');
  const cut = padded.length - step.scale;
  const text = padded.slice(0, cut) + '.' + padded.slice(cut);
  return negative ? '-' + text : text;
}

export function formatPrice(ticks: number, pair: Pair): string {
  return formatSteps(ticks, pair.tick);
}

export function formatQuantity(lots: number, pair: Pair): string {
  return formatSteps(lots, pair.lot);
}

export function formatAtoms(atoms: number, asset: Asset): string {
  return formatSteps(atoms, asset.atom);
}

/**
 * `a × b` when the product stays a safe integer, else -1. Callers refuse with NOTIONAL_TOO_LARGE; the
 * check divides rather than multiplies so that it cannot itself lose precision.
 */
export function safeProduct(a: number, b: number): number {
  if (a !== 0 && b > Math.floor(safeIntegerMax / a)) return -1;
  return a * b;
}

// ---------------------------------------------------------------------------------------------------
// Market configuration (assets and pairs), given as parsed JSON by the caller: core does no I/O.

export interface MarketConfigInput {
  readonly assets: ReadonlyArray<{ id: number; symbol: string; decimals: number }>;
  readonly pairs: ReadonlyArray<{
    id: number;
    base: string;
    quote: string;
    tick_size: string;
    lot_size: string;
    max_price: string;
    max_quantity: string;
  }>;
}

export interface Markets {
  readonly assets: readonly Asset[];
  readonly pairs: readonly Pair[];
  assetById(id: number): Asset | undefined;
  assetBySymbol(symbol: string): Asset | undefined;
  pairById(id: number): Pair | undefined;
  /** By slug (`eth`) or name (`ETH/USDC`), case-insensitive. */
  pairBySymbol(symbol: string): Pair | undefined;
}

function exactInteger(value: bigint, what: string): number {
  if (value < 1n || value > bigSafeMax) throw new Error(`${what} is not a positive safe integer`);
  return Number(value);
}

/** Number of `small` steps in one `large` step; throws unless it is a whole positive number. */
function stepsIn(large: Step, small: Step, what: string): bigint {
  // large / small = (L × 10^-a) / (S × 10^-b) = L × 10^(b-a) / S
  const shift = small.scale - large.scale;
  const numerator = shift >= 0 ? large.mantissa * pow10(shift) : large.mantissa;
  const denominator = shift >= 0 ? small.mantissa : small.mantissa * pow10(-shift);
  if (numerator % denominator !== 0n) throw new Error(`${what} is not a whole number of atoms`);
  return numerator / denominator;
}

/** Builds the asset and pair tables, checking that every pair's integer arithmetic is exact. */
export function buildMarkets(input: MarketConfigInput): Markets {
  const assets: Asset[] = [];
  const assetsBySymbol = new Map<string, Asset>();
  const assetsById = new Map<number, Asset>();
  for (const raw of input.assets) {
    if (!Number.isInteger(raw.id) || raw.id <= 0) throw new Error(`asset ${raw.symbol}: bad id`);
    if (!Number.isInteger(raw.decimals) || raw.decimals < 0 || raw.decimals > 12) {
      throw new Error(`asset ${raw.symbol}: decimals must be 0..12`);
    }
    const symbol = raw.symbol.toUpperCase();
    if (assetsBySymbol.has(symbol) || assetsById.has(raw.id)) throw new Error(`asset ${symbol}: duplicate`);
    const asset: Asset = {
      id: raw.id,
      index: assets.length,
      symbol,
      decimals: raw.decimals,
      atom: { mantissa: 1n, scale: raw.decimals },
    };
    assets.push(asset);
    assetsBySymbol.set(symbol, asset);
    assetsById.set(asset.id, asset);
  }

  const pairs: Pair[] = [];
  const pairsById = new Map<number, Pair>();
  const pairsBySymbol = new Map<string, Pair>();
  for (const raw of input.pairs) {
    const base = assetsBySymbol.get(raw.base.toUpperCase());
    const quote = assetsBySymbol.get(raw.quote.toUpperCase());
    const name = `${raw.base.toUpperCase()}/${raw.quote.toUpperCase()}`;
    if (base === undefined || quote === undefined) throw new Error(`pair ${name}: unknown asset`);
    if (!Number.isInteger(raw.id) || raw.id <= 0 || pairsById.has(raw.id)) throw new Error(`pair ${name}: bad id`);
    const tick = parseStep(raw.tick_size);
    const lot = parseStep(raw.lot_size);
    // One tick × one lot, in quote atoms: tick × lot × 10^quoteDecimals must be a whole number.
    const tickLot: Step = { mantissa: tick.mantissa * lot.mantissa, scale: tick.scale + lot.scale };
    const quoteAtomsPerTickLot = exactInteger(stepsIn(tickLot, quote.atom, `${name} tick × lot`), `${name} tick × lot`);
    const baseAtomsPerLot = exactInteger(stepsIn(lot, base.atom, `${name} lot`), `${name} lot`);
    const priceMax = toSteps(raw.max_price, tick, false, Result.offTick, newConversion());
    const quantityMax = toSteps(raw.max_quantity, lot, false, Result.offLot, newConversion());
    if (priceMax.code !== Result.ok || quantityMax.code !== Result.ok) throw new Error(`pair ${name}: bad maxima`);
    // The largest order must keep its notional, its fee hold and its base atoms exact.
    const notionalMax = safeProduct(safeProduct(priceMax.value, quantityMax.value), quoteAtomsPerTickLot);
    if (notionalMax < 0 || notionalMax * 2 > safeIntegerMax) throw new Error(`pair ${name}: maxima overflow`);
    if (safeProduct(quantityMax.value, baseAtomsPerLot) < 0) throw new Error(`pair ${name}: quantity overflow`);
    const pair: Pair = {
      id: raw.id,
      index: pairs.length,
      name,
      slug: base.symbol.toLowerCase(),
      base,
      quote,
      tick,
      lot,
      quoteAtomsPerTickLot,
      baseAtomsPerLot,
      priceTicksMax: priceMax.value,
      quantityLotsMax: quantityMax.value,
    };
    if (pairsBySymbol.has(pair.slug)) throw new Error(`pair ${name}: duplicate base slug`);
    pairs.push(pair);
    pairsById.set(pair.id, pair);
    pairsBySymbol.set(pair.slug, pair);
    pairsBySymbol.set(name.toLowerCase(), pair);
  }

  return {
    assets,
    pairs,
    assetById: (id) => assetsById.get(id),
    assetBySymbol: (symbol) => assetsBySymbol.get(symbol.toUpperCase()),
    pairById: (id) => pairsById.get(id),
    pairBySymbol: (symbol) => pairsBySymbol.get(symbol.toLowerCase()),
  };
}
