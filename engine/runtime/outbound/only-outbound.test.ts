/**
 * Every outbound HTTP request goes through engine/runtime/outbound/: this reads the sources of shell/ and
 * engine/ (tests excluded) and refuses any other file that calls fetch, http(s).request or http(s).get,
 * or imports node:http, node:https or undici, which would bypass the address checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
const outboundDir = fileURLToPath(new URL('.', import.meta.url)).replace(/[\\/]$/, '');

/**
 * Files that may make requests although they are not tests: the tests' own HTTP client and the cluster
 * tests' reader of a node's GET /leader, which only call servers under test on 127.0.0.1.
 */
const allowed = new Set([join('shell', 'http', 'test-client.ts'), join('shell', 'cluster', 'test-kit.ts')]);

const forbidden: Array<[RegExp, string]> = [
  [/(?<![\w$.])fetch\(/, 'fetch('],
  [/\bhttps?\.(request|get)\(/, 'http(s).request( or http(s).get('],
  [/from ['"](node:)?https?['"]|require\(['"](node:)?https?['"]\)/, 'an import of node:http or node:https'],
  [/from ['"]undici['"]/, 'an import of undici'],
];

function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && path !== outboundDir) files.push(...sources(path));
    } else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !/\.test\.(ts|mts|mjs|js)$/.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

test('no file of shell/ or engine/ outside engine/runtime/outbound/ makes outbound requests', () => {
  const files = [...sources(join(projectRoot, 'shell')), ...sources(join(projectRoot, 'engine'))];
  assert.ok(files.length > 50, 'the scan sees the sources');
  const offenders: string[] = [];
  for (const file of files) {
    const name = relative(projectRoot, file);
    if (allowed.has(name)) continue;
    const text = readFileSync(file, 'utf8');
    for (const [pattern, what] of forbidden) {
      if (pattern.test(text)) offenders.push(`${name.split(sep).join('/')}: ${what}`);
    }
  }
  assert.deepEqual(offenders, [], 'outbound requests go through engine/runtime/outbound/fetch.ts');
});

test('the scan would see a request written elsewhere', () => {
  const samples = ["await fetch('https://example.com')", 'http.request(url, cb)', "https.get('x')", "import http from 'node:http';", "import { request } from 'undici';"];
  for (const sample of samples) assert.ok(forbidden.some(([pattern]) => pattern.test(sample)), sample);
  assert.ok(!forbidden.some(([pattern]) => pattern.test('await outboundFetch(url, options)')));
  assert.ok(!forbidden.some(([pattern]) => pattern.test("import type { HttpRequest } from 'uWebSockets.js';")));
});
