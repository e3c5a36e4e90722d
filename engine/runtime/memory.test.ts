import { test } from 'node:test';
import assert from 'node:assert/strict';
import { glibcVersion, recordsByteOffset, recordsByteOffsetFor } from './memory.ts';

test('the records start 48 bytes in on Linux with glibc, at 0 elsewhere', () => {
  assert.equal(recordsByteOffsetFor('linux', '2.36'), 48);
  assert.equal(recordsByteOffsetFor('linux', '2.17'), 48);
  assert.equal(recordsByteOffsetFor('linux', undefined), 0, 'musl or another C library');
  assert.equal(recordsByteOffsetFor('linux', ''), 0);
  assert.equal(recordsByteOffsetFor('darwin', undefined), 0);
  assert.equal(recordsByteOffsetFor('win32', undefined), 0);
});

test('this process: the offset follows its C library', () => {
  assert.equal(recordsByteOffset(), recordsByteOffsetFor(process.platform, glibcVersion()));
  if (process.platform === 'linux') assert.equal(glibcVersion() === undefined, !('glibcVersionRuntime' in (process.report.getReport() as { header: object }).header));
});
