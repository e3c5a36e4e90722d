import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IntMap, missing } from './int-map.ts';
import { Prng } from './sim/generator.ts';

test('IntMap agrees with Map over random sets and deletes, through growth and wrap-around', () => {
  const random = new Prng(3);
  const map = new IntMap(4);
  const reference = new Map<number, number>();
  const keys: number[] = [];
  for (let step = 0; step < 200_000; step++) {
    const roll = random.next();
    if (roll < 0.5 || keys.length === 0) {
      // Sequential ids, sparse ids and ids beyond 2^32 all occur.
      const key = random.chance(0.5) ? step : random.chance(0.5) ? random.int(0, 1000) : 2 ** 40 + random.int(0, 1 << 20);
      const value = random.int(0, 1 << 30);
      map.set(key, value);
      if (!reference.has(key)) keys.push(key);
      reference.set(key, value);
    } else if (roll < 0.8) {
      const index = random.int(0, keys.length - 1);
      const key = keys[index]!;
      keys[index] = keys[keys.length - 1]!;
      keys.pop();
      assert.equal(map.delete(key), reference.delete(key));
    } else {
      const key = random.chance(0.5) && keys.length > 0 ? keys[random.int(0, keys.length - 1)]! : random.int(0, 400_000);
      assert.equal(map.get(key), reference.get(key) ?? missing);
    }
    assert.equal(map.size, reference.size);
  }
  for (const [key, value] of reference) assert.equal(map.get(key), value);
  let visited = 0;
  map.forEach((key, value) => {
    assert.equal(reference.get(key), value);
    visited++;
  });
  assert.equal(visited, reference.size);
  assert.equal(map.delete(-5), false);
  assert.equal(map.get(-5), missing);
});
