import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StateHasher, WordRecorder } from './state-hasher.ts';
import { Prng } from './sim/generator.ts';

/** Values of every path `number` takes: small, past 2^32, negative, beyond safe integers, fractions. */
function sampleValues(seed: number, count: number): Float64Array {
  const random = new Prng(seed);
  const values = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    const roll = random.next();
    if (roll < 0.5) values[index] = random.int(0, 1_000_000);
    else if (roll < 0.65) values[index] = random.int(0, 2 ** 31) * 2 ** 20 + random.int(0, 1_000_000);
    else if (roll < 0.8) values[index] = -random.int(1, 2 ** 40);
    else if (roll < 0.9) values[index] = 2 ** 32 - random.int(0, 3);
    else if (roll < 0.95) values[index] = random.int(0, 1_000) + 0.5;
    else values[index] = 2 ** 60 + random.int(0, 1_000) * 2 ** 10;
  }
  return values;
}

test('numbers adds the same words as number on each value in turn', () => {
  for (const seed of [1, 2, 3]) {
    const values = sampleValues(seed, 5_000);
    const one = new StateHasher();
    const run = new StateHasher();
    one.string('start');
    run.string('start');
    for (let from = 0; from < values.length; ) {
      const length = Math.min(values.length - from, 1 + (from % 23));
      for (let index = from; index < from + length; index++) one.number(values[index]!);
      run.numbers(values.subarray(from, from + length), length);
      from += length;
      one.string('x');
      run.string('x');
    }
    assert.equal(run.digest(), one.digest(), `seed ${seed}`);
    // A recorder records the same words either way.
    const recordedOne = new WordRecorder();
    const recordedRun = new WordRecorder();
    for (const value of values) recordedOne.number(value);
    recordedRun.numbers(values, values.length);
    assert.deepEqual(recordedRun.recorded, recordedOne.recorded);
    // Only `count` values are added.
    const partial = new StateHasher();
    partial.numbers(values, 10);
    const first10 = new StateHasher();
    for (let index = 0; index < 10; index++) first10.number(values[index]!);
    assert.equal(partial.digest(), first10.digest());
    assert.notEqual(partial.digest(), run.digest());
  }
});
