import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger, noAccount } from './ledger.ts';

test('Ledger finds accounts by small user ids (array), large ones (hash map) and never by a malformed id', () => {
  const ledger = new Ledger(2, 100);
  const small = ledger.findOrOpen(7, 0);
  const smallPaper = ledger.findOrOpen(7, 1);
  // 2^21 and above: keys (user × 2 + mode) past the array's limit; a domain's users sit far higher.
  const large = ledger.findOrOpen(2 ** 21, 0);
  const huge = ledger.findOrOpen(2 ** 45 + 3, 1);
  // One that makes the array grow well past its first length.
  const grown = ledger.findOrOpen(100_000, 0);
  assert.deepEqual(new Set([small, smallPaper, large, huge, grown]).size, 5);
  assert.equal(ledger.find(7, 0), small);
  assert.equal(ledger.find(7, 1), smallPaper);
  assert.equal(ledger.find(2 ** 21, 0), large);
  assert.equal(ledger.find(2 ** 45 + 3, 1), huge);
  assert.equal(ledger.find(100_000, 0), grown);
  assert.equal(ledger.findOrOpen(7, 0), small, 'opened once');
  for (const [userId, mode] of [[8, 0], [2 ** 21, 1], [2 ** 45 + 3, 0], [100_001, 0], [3.5, 0], [-7, 0], [Number.NaN, 0], [2 ** 40, 0]] as const) {
    assert.equal(ledger.find(userId, mode), noAccount, `no account for (${userId}, ${mode})`);
  }
  assert.equal(ledger.userOf(huge), 2 ** 45 + 3);
  assert.equal(ledger.modeOf(huge), 1);
});
