/**
 * How the price routes write prices: decimal strings, never floats. A price is its integer count of
 * 10^-8 USD written exactly with trailing zeros trimmed; change_24h is a percentage with two decimals,
 * rounded half away from zero; times are ISO 8601 UTC; dates YYYY-MM-DD.
 */
import { msPerDay, priceScale } from '../../engine/runtime/oracle/source.ts';

const scaleDigits = 8;

/** `9700012000000` → `"97000.12"`. */
export function formatPriceE8(priceE8: number): string {
  const whole = Math.floor(priceE8 / priceScale);
  const fraction = String(priceE8 - whole * priceScale).padStart(scaleDigits, '0').replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

/** (price − reference) / reference as a percentage with two decimals, or null without a reference. */
export function changePercent(priceE8: number, referenceE8: number): string | null {
  if (referenceE8 <= 0) return null;
  const difference = BigInt(priceE8 - referenceE8) * 10_000n;
  const reference = BigInt(referenceE8);
  const negative = difference < 0n;
  const magnitude = negative ? -difference : difference;
  // Hundredths of a percent, rounded half away from zero.
  const hundredths = (magnitude * 2n + reference) / (reference * 2n);
  const text = `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
  return negative && hundredths !== 0n ? `-${text}` : text;
}

export function dateOfDay(day: number): string {
  return new Date(day * msPerDay).toISOString().slice(0, 10);
}
