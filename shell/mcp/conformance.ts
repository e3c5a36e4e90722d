/**
 * The MCP conformance suite (@modelcontextprotocol/conformance) against a server of our own:
 *
 *   npm run conformance                           every server scenario, checked against conformance-baseline.yaml
 *   npm run conformance -- --scenario tools-list  one scenario
 *
 * A server is started on a free port with a temporary DATA_DIR and the suite's fixture resource
 * (MCP_CONFORMANCE_FIXTURES=1: test://static-text, which resources-read-text reads), the suite's command
 * line runs against http://localhost:<port>/mcp/v1, and its exit status is this script's: non-zero on a
 * failure that is not in the baseline, or on a baseline entry that now passes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';

const cli = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
export const baselinePath = fileURLToPath(new URL('./conformance-baseline.yaml', import.meta.url));

export interface ConformanceRun {
  /** The command line's exit status. */
  readonly status: number;
  /** Per scenario run: whether every check of it succeeded. */
  readonly passed: ReadonlyMap<string, boolean>;
  readonly output: string;
}

/** Runs the suite's command line with `args` against a fresh server; `echo` prints its output as it comes. */
export async function runConformance(args: readonly string[], echo = false): Promise<ConformanceRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-results-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, MCP_CONFORMANCE_FIXTURES: '1' }), silentLog);
  try {
    // The DNS-rebinding scenario needs a loopback name in the URL: it sends that name as Host and expects it served.
    const url = `http://localhost:${server.port}/mcp/v1`;
    let output = '';
    // Spawned, not run synchronously: the server answers from this process's event loop meanwhile.
    const status = await new Promise<number>((done, fail) => {
      const child = spawn(process.execPath, [cli, 'server', '--url', url, '-o', outputDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      const collect = (chunk: Buffer): void => {
        output += chunk.toString();
        if (echo) process.stdout.write(chunk);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      child.on('error', fail);
      child.on('close', (code) => done(code ?? 1));
    });
    const passed = new Map<string, boolean>();
    for (const entry of readdirSync(outputDir)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$/.exec(entry)?.[1];
      if (scenario === undefined) continue;
      const checks = JSON.parse(readFileSync(join(outputDir, entry, 'checks.json'), 'utf8')) as Array<{ status: string }>;
      passed.set(scenario, checks.length > 0 && checks.every((check) => check.status === 'SUCCESS' || check.status === 'INFO'));
    }
    return { status, passed, output };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(outputDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scenario = args.includes('--scenario');
  const run = await runConformance(scenario ? args : ['--suite', 'all', '--expected-failures', baselinePath, ...args], true);
  process.exit(run.status);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
