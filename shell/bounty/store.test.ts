/** The owed rule: verified, non-duplicate reports with no payment record; duplicates and unverified ones owe nothing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { totalsOf, type ReportRow } from './store.ts';

const row = (fields: Partial<ReportRow>): ReportRow => ({
  id: 1, user_id: 1, title: 't', description: 'd', severity: 'low', url: null, created_ms: 0, verified: 0, amount_atoms: null, duplicate: 0, paid_atoms: null, payment_reference: null, paid_ms: null, ...fields,
});

test('owed = verified, non-duplicate, unpaid', () => {
  const totals = totalsOf([
    row({ verified: 1, amount_atoms: 100 }),
    row({ verified: 1, amount_atoms: 50, paid_atoms: 50, payment_reference: 'r', paid_ms: 1 }),
    row({ verified: 1, amount_atoms: 70, duplicate: 1 }),
    row({ verified: 0 }),
  ]);
  assert.deepEqual(totals, { verifiedCount: 2, verifiedAtoms: 150, paidCount: 1, paidAtoms: 50, owedCount: 1, owedAtoms: 100 });
});
