/**
 * Redocly's lint, with the repository's redocly.yaml (its recommended rules), of the documents a started
 * server serves: /openapi-public.json and /asyncapi.json must have 0 errors and 0 warnings. Also the fact
 * redocly.yaml leans on to turn no-ambiguous-paths off: no vault is named like a literal segment beside
 * `{vault}` under /api/v1/vaults/, so those paths never compete for a request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

/** Lints one file; redocly exits non-zero on errors, so its report is read either way. */
async function lint(file: string): Promise<LintReport> {
  const args = ['lint', file, '--format=json', `--config=${join(root, 'redocly.yaml')}`];
  const output = await run(join(root, 'node_modules/.bin/redocly'), args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  return JSON.parse(output.stdout) as LintReport;
}

function problems(report: LintReport): string[] {
  return report.problems.map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
}

test('redocly lint of the served OpenAPI and AsyncAPI documents: 0 errors, 0 warnings', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lint-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
  try {
    for (const path of ['/openapi-public.json', '/asyncapi.json']) {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
      assert.equal(response.status, 200);
      const file = join(dataDir, path.slice(1));
      writeFileSync(file, await response.text());
      const report = await lint(file);
      assert.deepEqual(problems(report), [], `${path}: no problems`);
      assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
    }

    const literals = new Set(
      server.table.routes
        .map((route) => /^\/api\/v1\/vaults\/([^/{]+)\/\{/.exec(route.path)?.[1])
        .filter((segment): segment is string => segment !== undefined),
    );
    assert.ok(literals.has('performance'), 'the literal segment the ambiguity is about');
    const vaults = await call(server, 'GET', '/api/v1/vaults/list');
    assert.equal(vaults.status, 200);
    const slugs = (vaults.json['vaults'] as Array<{ slug: string }>).map((vault) => vault.slug);
    assert.ok(slugs.length > 0);
    for (const slug of slugs) assert.ok(!literals.has(slug), `vault ${slug} is not named like a literal path segment`);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
