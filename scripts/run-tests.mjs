// Runs every *.test.ts under the project's source folders with node:test, through tsx.
// Node 20's --test takes no globs, so the file list is gathered here (one way to find tests).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['engine', 'shell', 'bench', 'scripts'];
const files = [];
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.test.ts')) files.push(path);
  }
}
for (const root of roots) walk(root);
files.sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const extra = process.argv.slice(2);
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...extra, ...files], { stdio: 'inherit' });
// The failover test needs nats-server; without it the test only notes so, and this summary says it again
// (.ci/run installs it and sets REQUIRE_NATS=1, which turns the note into a failure).
if (spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.log('# nats-server missing: apt-get install -y nats-server (the replication failover test did not run)');
}
process.exit(result.status ?? 1);
