/**
 * The state digest's hasher: two independent 32-bit multiply-xor lanes over a stream of numbers and
 * strings (a 64-bit result as 16 hex digits). Not cryptographic, but cheap enough for every snapshot and
 * every replay. A leaf file: domain modules hash their state with it (domain-module.ts) without importing
 * the engine, whose whole-state hash is state-hash.ts.
 */
const twoTo32 = 4294967296;

/** The low lane after the word `word` (an unsigned 32-bit integer). */
function lowLane(low: number, word: number): number {
  const mixed = Math.imul(low ^ word, 0x01000193);
  return (mixed << 13) | (mixed >>> 19);
}

/** The high lane after the word `word` (an unsigned 32-bit integer). */
function highLane(high: number, word: number): number {
  const mixed = Math.imul(high + word, 0x5bd1e995);
  return mixed ^ (mixed >>> 15);
}

export class StateHasher {
  private low = 0x9e3779b9;
  private high = 0x85ebca6b;
  private count = 0;

  /** Adds a number (integer or not) exactly: safe integers by their two 32-bit halves. */
  number(value: number): void {
    // Most fields are small non-negative integers: their halves are the value and 0 (the same words as below).
    if (value >>> 0 === value) {
      this.word(value);
      this.word(0);
      return;
    }
    if (Number.isSafeInteger(value)) {
      const negative = value < 0;
      const magnitude = negative ? -value : value;
      this.word(magnitude % twoTo32);
      this.word(Math.floor(magnitude / twoTo32) + (negative ? 0x200000 : 0));
    } else {
      this.string(String(value));
    }
  }

  /**
   * Adds `values[0]` to `values[count - 1]`, the same words as `number` on each in turn, with the two lanes
   * kept in locals over the run (a call and the fields' loads and stores per word made a million orders'
   * hash about twice as slow).
   */
  numbers(values: Float64Array, count: number): void {
    let low = this.low;
    let high = this.high;
    let words = this.count;
    for (let index = 0; index < count; index++) {
      const value = values[index]!;
      let first: number;
      let second: number;
      if (value >>> 0 === value) {
        first = value;
        second = 0;
      } else if (Number.isSafeInteger(value)) {
        const negative = value < 0;
        const magnitude = negative ? -value : value;
        first = magnitude % twoTo32;
        second = Math.floor(magnitude / twoTo32) + (negative ? 0x200000 : 0);
      } else {
        this.low = low;
        this.high = high;
        this.count = words;
        this.string(String(value));
        low = this.low;
        high = this.high;
        words = this.count;
        continue;
      }
      low = lowLane(lowLane(low, first), second);
      high = highLane(highLane(high, first), second);
      words += 2;
    }
    this.low = low;
    this.high = high;
    this.count = words;
  }

  string(value: string): void {
    this.word(value.length);
    for (let index = 0; index < value.length; index++) this.word(value.charCodeAt(index));
  }

  /** Adds words recorded by a `WordRecorder`, as if their numbers and strings were added here. */
  words(words: ArrayLike<number>): void {
    for (let index = 0; index < words.length; index++) this.word(words[index]!);
  }

  protected word(value: number): void {
    this.count++;
    this.low = lowLane(this.low, value >>> 0);
    this.high = highLane(this.high, value >>> 0);
  }

  digest(): string {
    let low = this.low ^ this.count;
    let high = this.high ^ Math.imul(this.count, 0x27d4eb2f);
    low = Math.imul(low ^ (low >>> 16), 0x85ebca6b);
    low = Math.imul(low ^ (low >>> 13), 0xc2b2ae35);
    low ^= low >>> 16;
    high = Math.imul(high ^ (high >>> 16), 0x7feb352d);
    high = Math.imul(high ^ (high >>> 15), 0x846ca68b);
    high ^= high >>> 16;
    return (high >>> 0).toString(16).padStart(8, '0') + ((low ^ high) >>> 0).toString(16).padStart(8, '0');
  }
}

/** A hasher that only records the words it is given, to be added to a `StateHasher` later (`words`). */
export class WordRecorder extends StateHasher {
  readonly recorded: number[] = [];

  protected override word(value: number): void {
    this.recorded.push(value >>> 0);
  }

  override numbers(values: Float64Array, count: number): void {
    for (let index = 0; index < count; index++) this.number(values[index]!);
  }
}
