import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changePercent, dateOfDay, formatPriceE8 } from './records.ts';

test('prices are exact decimal strings with trailing zeros trimmed', () => {
  assert.equal(formatPriceE8(9_700_012_000_000), '97000.12');
  assert.equal(formatPriceE8(1), '0.00000001');
  assert.equal(formatPriceE8(100_000_000), '1');
  assert.equal(formatPriceE8(123_456_789_012_345), '1234567.89012345');
});

test('change_24h is a percentage with two decimals, rounded half away from zero', () => {
  assert.equal(changePercent(110, 100), '10.00');
  assert.equal(changePercent(90, 100), '-10.00');
  assert.equal(changePercent(100_005, 100_000), '0.01');
  assert.equal(changePercent(99_995, 100_000), '-0.01');
  assert.equal(changePercent(100_004, 100_000), '0.00');
  assert.equal(changePercent(99_996, 100_000), '0.00');
  assert.equal(changePercent(300, 100), '200.00');
  assert.equal(changePercent(5, 0), null);
});

test('days are UTC dates', () => {
  assert.equal(dateOfDay(0), '1970-01-01');
  assert.equal(dateOfDay(20_000), '2024-10-04');
});
