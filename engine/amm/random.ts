/**
 * Seeded randomness for the pool simulations (the worker's 'sim' external flow) and the tests. Nothing in
 * engine/amm draws randomness of its own: a caller passes a `RandomSource`, and the same seed replays the
 * same flow.
 */

/** Uniform doubles in [0, 1). The engine's sfc32 generator (engine/core/sim) fits this shape as it is. */
export interface RandomSource {
  next(): number;
}

/** sfc32 seeded from one 32-bit integer: small, fast and statistically sound for simulations. */
export function seededRandom(seed: number): RandomSource {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const nextUint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // The first outputs of a fresh sfc32 state are correlated with the seed; discard them.
  for (let round = 0; round < 16; round++) nextUint32();
  return { next: () => nextUint32() / 4294967296 };
}

/** Uniform integer in [low, high]. */
export function randomInteger(random: RandomSource, low: number, high: number): number {
  return low + Math.floor(random.next() * (high - low + 1));
}

/** Uniform bigint in [0, 2^bits). */
export function randomBits(random: RandomSource, bits: number): bigint {
  let value = 0n;
  let remaining = bits;
  while (remaining > 0) {
    const take = Math.min(32, remaining);
    value = (value << BigInt(take)) | BigInt(Math.floor(random.next() * 2 ** take));
    remaining -= take;
  }
  return value;
}

/** Uniform bigint in [low, high]. */
export function randomBigintBetween(random: RandomSource, low: bigint, high: bigint): bigint {
  const span = high - low + 1n;
  const bits = span.toString(2).length + 16;
  return low + (randomBits(random, bits) % span);
}
