/**
 * The project's import graph, read from the sources by madge: no circles, and layers that point one way.
 *
 * - No file reaches itself through its imports, type-only imports included: a circle of types still ties
 *   the files together (neither can be read, moved or tested without the other). Shared types go to a
 *   leaf file that both sides import (engine/core/domain-module.ts, shell/auth/access.ts and the like).
 * - engine/core imports nothing outside engine/core; engine/domains imports only engine/core and
 *   engine/domains; nothing under engine/ imports shell/. Tests are exempt from the first two (they load
 *   markets from engine/runtime and the domain list), not from the third.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The part of madge's result this test reads (the package ships no type declarations). */
interface ImportGraph {
  circular(): string[][];
  obj(): Record<string, string[]>;
  warnings(): { skipped: string[] };
}
type Madge = (paths: string[], config: Record<string, unknown>) => Promise<ImportGraph>;

const madge = createRequire(import.meta.url)('madge') as Madge;
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const roots = ['engine', 'shell', 'scripts', 'bench'];

let graph: Promise<ImportGraph> | undefined;

/** Reads the graph once, when the first test asks (a failure then belongs to that test). */
function importGraph(): Promise<ImportGraph> {
  graph ??= madge(
    roots.map((root) => join(projectRoot, root)),
    { baseDir: projectRoot, fileExtensions: ['ts'] },
  );
  return graph;
}

test('the import graph covers the sources and resolves every project import', async () => {
  const result = await importGraph();
  const files = Object.keys(result.obj());
  // A graph that failed to parse would find no circles either: check it holds the files and their imports.
  assert.ok(files.length > 150, `only ${files.length} files in the graph`);
  assert.ok(result.obj()['engine/core/engine.ts']?.includes('engine/core/engine-state.ts'), 'engine.ts imports not read');
  assert.ok(result.obj()['shell/server.ts']?.includes('shell/modules.ts'), 'shell/server.ts imports not read');
  assert.deepEqual(result.warnings().skipped, []);
});

test('no import circles in engine, shell, scripts and bench', async () => {
  const circles = (await importGraph()).circular().map((circle) => circle.join(' > '));
  assert.deepEqual(circles, []);
});

test('layers import one way: core from core, domains from core and domains, the engine never from the shell', async () => {
  const breaches: string[] = [];
  for (const [file, imports] of Object.entries((await importGraph()).obj())) {
    const isTest = file.endsWith('.test.ts');
    for (const imported of imports) {
      if (file.startsWith('engine/') && imported.startsWith('shell/')) breaches.push(`${file} -> ${imported}`);
      if (isTest) continue;
      if (file.startsWith('engine/core/') && !imported.startsWith('engine/core/')) breaches.push(`${file} -> ${imported}`);
      if (file.startsWith('engine/domains/') && !imported.startsWith('engine/core/') && !imported.startsWith('engine/domains/')) {
        breaches.push(`${file} -> ${imported}`);
      }
    }
  }
  assert.deepEqual(breaches, []);
});
