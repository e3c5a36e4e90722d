import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hugePagesRerunTunables, hugePagesTunable, mallocHugePages, rerunTunables, type HugePagesFacts } from './huge-pages.ts';

const linux: HugePagesFacts = { platform: 'linux', glibcVersion: '2.36', thpMode: 'madvise', env: {} };

test('a tool runs again with the tunable on Linux with glibc 2.35 or later and THP madvise or always', () => {
  assert.equal(hugePagesRerunTunables(linux), hugePagesTunable);
  assert.equal(hugePagesRerunTunables({ ...linux, thpMode: 'always' }), hugePagesTunable);
  assert.equal(hugePagesRerunTunables({ ...linux, glibcVersion: '2.35' }), hugePagesTunable);
  assert.equal(hugePagesRerunTunables({ ...linux, glibcVersion: '3.0' }), hugePagesTunable);
});

test('other tunables are kept, the huge-page one added after them', () => {
  assert.equal(hugePagesRerunTunables({ ...linux, env: { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' } }), `glibc.malloc.arena_max=2:${hugePagesTunable}`);
  assert.equal(hugePagesRerunTunables({ ...linux, env: { GLIBC_TUNABLES: '' } }), hugePagesTunable);
});

test('no run again where it cannot help, where it was turned off, or once the tunable is set', () => {
  assert.equal(hugePagesRerunTunables({ ...linux, platform: 'darwin', glibcVersion: undefined }), null);
  assert.equal(hugePagesRerunTunables({ ...linux, glibcVersion: undefined }), null, 'musl or another libc');
  assert.equal(hugePagesRerunTunables({ ...linux, glibcVersion: '2.34' }), null, 'glibc without the tunable');
  assert.equal(hugePagesRerunTunables({ ...linux, glibcVersion: '1.99' }), null);
  assert.equal(hugePagesRerunTunables({ ...linux, thpMode: 'never' }), null);
  assert.equal(hugePagesRerunTunables({ ...linux, thpMode: 'unknown' }), null);
  assert.equal(hugePagesRerunTunables({ ...linux, env: { HUGE_PAGES: 'off' } }), null);
  // Set by an earlier run (what stops a run from running itself again), or by the operator either way.
  assert.equal(hugePagesRerunTunables({ ...linux, env: { GLIBC_TUNABLES: hugePagesTunable } }), null);
  assert.equal(hugePagesRerunTunables({ ...linux, env: { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0' } }), null);
});

test('mallocHugePages reads the tunable among others', () => {
  assert.equal(mallocHugePages({}), false);
  assert.equal(mallocHugePages({ GLIBC_TUNABLES: `glibc.malloc.arena_max=2:${hugePagesTunable}` }), true);
  assert.equal(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }), false);
});

test('rerunWithHugePages: the run gets the tunable, its output and exit code come through, and it runs once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'huge-pages-'));
  try {
    const script = join(dir, 'tool.mts');
    const module = fileURLToPath(new URL('./huge-pages.ts', import.meta.url));
    writeFileSync(
      script,
      `import { rerunWithHugePages } from ${JSON.stringify(module)};\n` +
        `const rerun = rerunWithHugePages();\n` +
        `if (rerun !== null) process.exit(await rerun);\n` +
        `console.log('ran ' + (process.env.GLIBC_TUNABLES || '-') + ' ' + process.argv.slice(2).join(' '));\n` +
        `process.exit(7);\n`,
    );
    const run = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, ['--import', 'tsx', script, 'a', 'b'], { encoding: 'utf8', env: { ...process.env, ...env } });
    // Whether this machine applies the tunable (Linux, glibc 2.35 or later, THP not off) decides which line comes.
    const expected = rerunTunables({ GLIBC_TUNABLES: '' });
    const first = run({ GLIBC_TUNABLES: '' });
    assert.equal(first.status, 7, first.stderr);
    // One line: the tool's work ran once, in the run with the tunable where it applies, here otherwise.
    assert.equal(first.stdout, `ran ${expected ?? '-'} a b\n`);
    const off = run({ GLIBC_TUNABLES: '', HUGE_PAGES: 'off' });
    assert.equal(off.stdout, 'ran - a b\n');
    assert.equal(off.status, 7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
