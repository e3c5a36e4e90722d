/**
 * Simulated settlement transaction hashes: `sim-` and a UUID (version-4 form), as the API specification gives paper and
 * embedded-default settlements. They are derived from what the journal already holds (a domain and an id
 * such as a withdrawal's seq or a fill's trade id), never drawn at random, so a replay shows the same hash
 * and nothing extra needs journaling. Pure integer mixing (murmur3's finalizer over 32-bit lanes): the
 * engine reads no clock and draws no random number.
 */

/** What a hash settles; part of the input, so two kinds of record with the same id get different hashes. */
export const SimHashDomain = { withdrawal: 1, ammFill: 2, paperFill: 3 } as const;
export type SimHashDomain = (typeof SimHashDomain)[keyof typeof SimHashDomain];

function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** `sim-xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` for `id` (a non-negative safe integer) in `domain`. */
export function simTxHash(domain: SimHashDomain, id: number): string {
  const low = id >>> 0;
  const high = Math.floor(id / 0x1_0000_0000) >>> 0;
  const words: number[] = [];
  let state = mix32(domain * 0x9e3779b9 + 0x7f4a7c15);
  for (let lane = 0; lane < 4; lane++) {
    state = mix32(state ^ mix32(low + lane * 0x632be5ab));
    state = mix32(state ^ mix32(high + lane * 0x85157af5));
    words.push(state);
  }
  const w1 = ((words[1]! & 0xffff0fff) | 0x00004000) >>> 0;
  const w2 = ((words[2]! & 0x3fffffff) | 0x80000000) >>> 0;
  const text = hex8(words[0]!) + hex8(w1) + hex8(w2) + hex8(words[3]!);
  return `sim-${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

/** The settlement hash of an AMM or paper fill, derived from its trade id and mode where it is shown. */
export function ammFillTxHash(fill: { readonly mode: number; readonly tradeId: number }): string {
  return simTxHash(fill.mode === 0 ? SimHashDomain.ammFill : SimHashDomain.paperFill, fill.tradeId);
}
