/**
 * engine/amm is pure like the engine core: no clock, no randomness of its own, no timers, no async and no
 * I/O, so a quote or a simulated flow depends only on the pool state, the options and the seed passed in.
 * This reads its sources (tests excepted) and refuses what would break it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ammRoot = fileURLToPath(new URL('.', import.meta.url));
const forbidden: Array<[RegExp, string]> = [
  [/\bDate\b/, 'Date'],
  [/Math\.random/, 'Math.random'],
  [/performance\.now/, 'performance.now'],
  [/\bset(Timeout|Interval|Immediate)\b/, 'timers'],
  [/\basync\b|\bawait\b|\bPromise\b/, 'async'],
  [/\bprocess\./, 'process'],
  [/from ['"]node:|require\(/, 'node modules (I/O)'],
  [/from ['"]\.\.\/(runtime|journal)\/|from ['"]\.\.\/\.\.\/shell\//, 'imports from the layers above'],
];

test('engine/amm uses no clock, randomness of its own, timers, async or I/O', () => {
  const files = readdirSync(ammRoot).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts')).map((name) => join(ammRoot, name));
  assert.ok(files.length >= 8);
  const breaches: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '').replace(/\/\*\*.*$/, '');
      for (const [pattern, what] of forbidden) if (pattern.test(code)) breaches.push(`${file}:${index + 1}: ${what}: ${line.trim()}`);
    });
  }
  assert.deepEqual(breaches, []);
});
