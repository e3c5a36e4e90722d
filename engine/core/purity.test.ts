/**
 * The engine core, its domains and the pool math (engine/amm) are pure: no clock, no randomness, no
 * timers, no async and no I/O, so the same journal always gives the same state and a quote depends only on
 * the pool, the options and the seed passed in. This reads their sources (tests excluded) and refuses the
 * constructs that would break that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const engineRoot = fileURLToPath(new URL('..', import.meta.url));
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
/** engine/core may not use the pool math either: the engine only sees the levels quotes carry. */
const coreOnly: Array<[RegExp, string]> = [[/from ['"]\.\.\/amm\//, 'imports of the pool math into the core']];

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path);
  }
  return files;
}

test('engine/core, engine/domains and engine/amm use no clock, randomness, timers, async or I/O', () => {
  const core = [...sources(join(engineRoot, 'core')), ...sources(join(engineRoot, 'domains'))];
  const amm = sources(join(engineRoot, 'amm'));
  assert.ok(core.length > 5 && amm.length >= 8);
  const breaches: string[] = [];
  for (const file of [...core, ...amm]) {
    const rules = core.includes(file) ? [...forbidden, ...coreOnly] : forbidden;
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '').replace(/\/\*\*.*$/, '');
      for (const [pattern, what] of rules) {
        if (pattern.test(code)) breaches.push(`${file}:${index + 1}: ${what}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(breaches, []);
});
