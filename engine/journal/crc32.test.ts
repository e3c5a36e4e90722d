import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32 } from './crc32.ts';
import { Prng } from '../core/sim/generator.ts';

test('crc32 of a range equals zlib on the same bytes, on both sides of the length where it hands over to zlib', () => {
  const random = new Prng(2);
  const bytes = new Uint8Array(70_000);
  for (let index = 0; index < bytes.length; index++) bytes[index] = random.int(0, 255);
  for (const length of [0, 1, 200, 255, 256, 257, 1_000, 65_537]) {
    for (const start of [0, 3, 4_099]) {
      assert.equal(crc32(bytes, start, start + length), zlibCrc32(bytes.subarray(start, start + length)), `${length} bytes from ${start}`);
    }
  }
  assert.equal(crc32(bytes), zlibCrc32(bytes));
});

test('crc32 equals zlib on random inputs of every small length', () => {
  const random = new Prng(1);
  assert.equal(crc32(new Uint8Array(0)), 0);
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  for (let length = 1; length < 600; length++) {
    const bytes = new Uint8Array(length);
    for (let index = 0; index < length; index++) bytes[index] = random.int(0, 255);
    assert.equal(crc32(bytes), zlibCrc32(bytes));
  }
});
