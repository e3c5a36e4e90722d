/** A codec declared by its fields writes them in declared order, reads them back, and knows what fits. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { field, fieldCodec, type FieldReader, type FieldWriter } from './domain.ts';

interface Sample {
  userId: number;
  key: string;
  amounts: number[];
  tags: string[];
}

const codec = fieldCodec<Sample>(42_001, 'Sample', { userId: field.integer, key: field.string(8), amounts: field.integers(3), tags: field.strings(2, 4) });

test('fields are written in declared order and read back to the same body', () => {
  const written: Array<[string, unknown]> = [];
  const writer: FieldWriter = {
    integer: (value) => void written.push(['integer', value]),
    string: (value) => void written.push(['string', value]),
    integers: (values) => void written.push(['integers', [...values]]),
    strings: (values) => void written.push(['strings', [...values]]),
  };
  const body: Sample = { userId: 7, key: 'abc', amounts: [1, 2], tags: ['x'] };
  assert.equal(codec.fieldCount, 4);
  assert.equal(codec.isEncodable(body), true);
  codec.write(writer, body);
  assert.deepEqual(written, [['integer', 7], ['string', 'abc'], ['integers', [1, 2]], ['strings', ['x']]]);
  let index = 0;
  const asked: string[] = [];
  const next = (what: string) => {
    asked.push(what);
    return written[index++]![1];
  };
  const reader: FieldReader = {
    integer: (what) => next(what) as number,
    string: (what) => next(what) as string,
    integers: (what) => next(what) as number[],
    strings: (what) => next(what) as string[],
  };
  assert.deepEqual(codec.read(reader, 1), body);
  assert.deepEqual(asked, ['userId', 'key', 'amounts', 'tags']);
});

test('a body outside the bounds is not encodable', () => {
  const good: Sample = { userId: 1, key: 'k', amounts: [], tags: [] };
  for (const bad of [
    { ...good, userId: 1.5 },
    { ...good, key: 'too long key' },
    { ...good, key: 'tab\there' },
    { ...good, amounts: [1, 2, 3, 4] },
    { ...good, amounts: [Number.MAX_SAFE_INTEGER + 2] },
    { ...good, tags: ['a', 'b', 'c'] },
    { ...good, tags: ['long!'] },
  ]) {
    assert.equal(codec.isEncodable(bad as Sample), false, JSON.stringify(bad));
  }
  assert.equal(codec.isEncodable(good), true);
});
