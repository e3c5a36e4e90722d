/** Simulated transaction hashes: the specification's form, the same for the same input, distinct across inputs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimHashDomain, simTxHash } from './sim-hash.ts';

test('sim- hashes are UUID-shaped, deterministic and distinct per domain and id', () => {
  const seen = new Set<string>();
  const ids = new Set([65_535, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER]);
  for (let id = 0; id < 20_000; id++) ids.add(id);
  for (const domain of Object.values(SimHashDomain)) {
    for (const id of ids) {
      const hash = simTxHash(domain, id);
      assert.match(hash, /^sim-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(simTxHash(domain, id), hash);
      assert.ok(!seen.has(hash), `${domain}/${id} collides`);
      seen.add(hash);
    }
  }
  assert.equal(seen.size, ids.size * Object.values(SimHashDomain).length);
});
