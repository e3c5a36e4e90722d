/**
 * The event cards' arithmetic, exact in integers: the index of a basket, bull units and proceeds, fees,
 * perpetual P&L, funding, maintenance margin and liquidation prices, and the position ids. Products that
 * may pass 2^53 are taken in BigInt and rounded once at the end, always in the house's favour (what a
 * user receives rounds down, what a user pays rounds up), so that no rounding can create money.
 * The module (event-cards.ts) and the shell's view use the same functions, so the figures a client sees
 * are the ones the engine settles with.
 */
import { assert } from '../../core/assert.ts';
import { PerpSide, fundingKE8, fundingRateMaxE8, indexScale, maintenanceBps, rateScale, takerFeeBps, unitsScale, weightsTotalBps } from './commands.ts';

const big = BigInt;

function floorDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return quotient * denominator !== numerator && numerator < 0n !== denominator < 0n ? quotient - 1n : quotient;
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return -floorDiv(-numerator, denominator);
}

function safe(value: bigint): number {
  assert(value >= big(Number.MIN_SAFE_INTEGER) && value <= big(Number.MAX_SAFE_INTEGER), 'event cards arithmetic left the safe-integer range');
  return Number(value);
}

/**
 * The index of a card: base × Σ(w_i × p_i / p_i0) / 10 000, floored once. Computed over a common
 * denominator (the product of the reference prices), so the sum is exact before the single floor.
 */
export function cardIndexE8(baseIndexE8: number, weightsBps: readonly number[], referencePricesE8: readonly number[], pricesE8: readonly number[]): number {
  let denominator = 1n;
  for (const reference of referencePricesE8) denominator *= big(reference);
  let numerator = 0n;
  for (let index = 0; index < weightsBps.length; index++) {
    numerator += (big(weightsBps[index]!) * big(pricesE8[index]!) * denominator) / big(referencePricesE8[index]!);
  }
  return safe((big(baseIndexE8) * numerator) / (big(weightsTotalBps) * denominator));
}

/** The taker fee of a notional: ceil(notional × 10 / 10 000) atoms. */
export function takerFeeAtoms(notionalAtoms: number): number {
  return safe(ceilDiv(big(notionalAtoms) * big(takerFeeBps), 10_000n));
}

/** Units (10^-6) an amount buys at an index: floor(amount × 10^8 / index) (amount atoms are 10^-6 USDC). */
export function unitsFor(amountAtoms: number, indexE8: number): number {
  return safe((big(amountAtoms) * big(indexScale)) / big(indexE8));
}

/** What units are worth at an index, in USDC atoms, floored. */
export function valueOfUnits(unitsE6: number, indexE8: number): number {
  return safe((big(unitsE6) * big(indexE8)) / big(indexScale));
}

/** Units a fraction (parts per million) of a position sells: all of them at 10^6, else floored. */
export function unitsOfFraction(unitsE6: number, fractionPpm: number): number {
  return fractionPpm === unitsScale ? unitsE6 : safe((big(unitsE6) * big(fractionPpm)) / big(unitsScale));
}

/** The cost basis left after selling `soldE6` of `unitsE6` units that cost `costAtoms`. */
export function remainingCost(costAtoms: number, unitsE6: number, soldE6: number): number {
  if (soldE6 === unitsE6) return 0;
  return costAtoms - safe((big(costAtoms) * big(soldE6)) / big(unitsE6));
}

/**
 * A perpetual's P&L at `markE8`: notional × (mark − entry) / entry for a long, the opposite for a short,
 * floored (a gain rounds down, a loss rounds up).
 */
export function perpPnlAtoms(side: PerpSide, notionalAtoms: number, entryIndexE8: number, markE8: number): number {
  const move = side === PerpSide.long ? big(markE8) - big(entryIndexE8) : big(entryIndexE8) - big(markE8);
  return safe(floorDiv(big(notionalAtoms) * move, big(entryIndexE8)));
}

/**
 * Funding a position owes since it opened: notional × (the side's cumulative index now − at entry) / 10^8,
 * rounded up (positive: the position pays the house; negative: the house pays it).
 */
export function fundingOwedAtoms(notionalAtoms: number, entryFundingE8: number, nowFundingE8: number): number {
  return safe(ceilDiv(big(notionalAtoms) * (big(nowFundingE8) - big(entryFundingE8)), big(rateScale)));
}

/** Maintenance margin at the mark: ceil(5 % × notional × mark / entry). */
export function maintenanceAtoms(notionalAtoms: number, entryIndexE8: number, markE8: number): number {
  return safe(ceilDiv(big(notionalAtoms) * big(markE8) * big(maintenanceBps), big(entryIndexE8) * 10_000n));
}

/** Equity of a perpetual at the mark: margin + P&L − funding owed. */
export function perpEquityAtoms(side: PerpSide, marginAtoms: number, notionalAtoms: number, entryIndexE8: number, markE8: number, fundingAtoms: number): number {
  return marginAtoms + perpPnlAtoms(side, notionalAtoms, entryIndexE8, markE8) - fundingAtoms;
}

/** Whether a perpetual is liquidated at the mark: its equity is below the maintenance margin. */
export function isLiquidatable(side: PerpSide, marginAtoms: number, notionalAtoms: number, entryIndexE8: number, markE8: number, fundingAtoms: number): boolean {
  return perpEquityAtoms(side, marginAtoms, notionalAtoms, entryIndexE8, markE8, fundingAtoms) < maintenanceAtoms(notionalAtoms, entryIndexE8, markE8);
}

/**
 * The index at which equity meets the maintenance margin, with the funding owed so far (a figure for
 * clients, rounded to the index unit; the engine decides with `isLiquidatable`):
 * long: entry × (N − M + F) / (0.95 N); short: entry × (M + N − F) / (1.05 N). 0 when a long cannot be
 * liquidated at any positive index.
 */
export function liquidationIndexE8(side: PerpSide, marginAtoms: number, notionalAtoms: number, entryIndexE8: number, fundingAtoms: number): number {
  const notional = big(notionalAtoms);
  if (side === PerpSide.long) {
    const numerator = notional - big(marginAtoms) + big(fundingAtoms);
    if (numerator <= 0n) return 0;
    return safe(ceilDiv(big(entryIndexE8) * numerator * 10_000n, notional * big(10_000 - maintenanceBps)));
  }
  const numerator = big(marginAtoms) + notional - big(fundingAtoms);
  if (numerator <= 0n) return 0;
  return safe(floorDiv(big(entryIndexE8) * numerator * 10_000n, notional * big(10_000 + maintenanceBps)));
}

/** The funding rate of one interval: clamp(k × (L − S) / (L + S), ±max), truncated toward zero; 0 without open interest. */
export function fundingRateE8(openInterestLongAtoms: number, openInterestShortAtoms: number): number {
  const total = openInterestLongAtoms + openInterestShortAtoms;
  if (total === 0) return 0;
  const raw = Number((big(fundingKE8) * (big(openInterestLongAtoms) - big(openInterestShortAtoms))) / big(total));
  return Math.max(-fundingRateMaxE8, Math.min(fundingRateMaxE8, raw));
}

function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const hex8 = (value: number): string => (value >>> 0).toString(16).padStart(8, '0');

/** What a derived UUID names: a position, or the simulated settlement of a paper buy. */
export const CardUuidKind = { position: 1, paperSettlement: 2 } as const;
export type CardUuidKind = (typeof CardUuidKind)[keyof typeof CardUuidKind];

/**
 * A version-4-form UUID derived from a position number (journaled state), never drawn at random, so a
 * replay names every position alike. Event cards' own salt keeps these apart from the exchange's `sim-`
 * hashes of the same numbers.
 */
export function cardUuid(kind: CardUuidKind, positionNo: number): string {
  const low = positionNo >>> 0;
  const high = Math.floor(positionNo / 0x1_0000_0000) >>> 0;
  const words: number[] = [];
  let state = mix32(0xec5ca7d5 ^ Math.imul(kind, 0x9e3779b9));
  for (let lane = 0; lane < 4; lane++) {
    state = mix32(state ^ mix32(low + lane * 0x632be5ab));
    state = mix32(state ^ mix32(high + lane * 0x85157af5));
    words.push(state);
  }
  const w1 = ((words[1]! & 0xffff0fff) | 0x00004000) >>> 0;
  const w2 = ((words[2]! & 0x3fffffff) | 0x80000000) >>> 0;
  const text = hex8(words[0]!) + hex8(w1) + hex8(w2) + hex8(words[3]!);
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}
