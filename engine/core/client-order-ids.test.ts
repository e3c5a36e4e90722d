import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientOrderIds } from './client-order-ids.ts';
import { noSlot } from './order-store.ts';
import { Prng } from './sim/generator.ts';

test('ClientOrderIds agrees with one map of joined keys: per account, across accounts, after deletes', () => {
  const random = new Prng(5);
  const ids = new ClientOrderIds();
  const reference = new Map<string, number>();
  // Ids that would collide if account and id were joined without care ("1" + "2:x" vs "12" + ":x").
  const names = ['a', 'b', ':x', '2:x', '', 'k1r0n1x7', 'ü'];
  for (let step = 0; step < 20_000; step++) {
    const account = random.int(0, 40);
    const name = names[random.int(1, names.length - 1)]! + String(random.int(0, 20));
    const key = `${account}\u0000${name}`;
    const roll = random.next();
    if (roll < 0.4 && !reference.has(key)) {
      ids.add(account, name, step);
      reference.set(key, step);
    } else if (roll < 0.7) {
      ids.delete(account, name);
      reference.delete(key);
    } else {
      assert.equal(ids.get(account, name), reference.get(key) ?? noSlot, `get ${key} at step ${step}`);
      assert.equal(ids.has(account, name), reference.has(key));
    }
    assert.equal(ids.size, reference.size);
  }
  for (const [key, slot] of reference) {
    const [account, name] = key.split('\u0000') as [string, string];
    assert.equal(ids.get(Number(account), name), slot);
  }
  // An account past any added, and one that never had a client id: nothing there, and deleting is a no-op.
  assert.equal(ids.get(10_000, 'a1'), noSlot);
  ids.delete(10_000, 'a1');
  assert.equal(ids.size, reference.size);
});
