/**
 * bench:engine:ab: this checkout's engine against another commit's, on the same streams, measured in
 * turns in one invocation. This two-core VM is shared and its speed moves by tens of per cent from one
 * minute to the next, so two figures from two invocations of bench:engine compare the moments more than
 * the builds; here each round times the current build and then the baseline (or the reverse, alternating),
 * each in a fresh process, and the report gives the median of every side and their ratio.
 *
 *   npm run bench:engine:ab -- --baseline DIR [--resting 1000,10000,1000000] [--mix exchange|simple]
 *                                [--rounds 5] [--runs 3] [--commands 3000000] [--json]
 *
 * DIR is a checkout of the other commit (e.g. `git worktree add /tmp/base OLD`, or
 * `git archive OLD | tar -x -C /tmp/base`); nothing needs installing there. Both sides are esbuild bundles
 * of bench/engine-ab-runner.ts with the same settings, the baseline's with every file of engine/ taken
 * from DIR: the stream generator (bench/streams.ts) is this checkout's on both sides. Each side checks
 * its timed runs against its own oracle; the report says whether both oracles gave the same result codes
 * and state hash, i.e. whether the two engines did the same work.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { hugePagesEnv, mallocHugePages, transparentHugePages } from './huge-pages.ts';
import { fmtInt, log, positiveInteger, root } from './lib.ts';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    resting: { type: 'string', default: '1000,10000,1000000' },
    mix: { type: 'string', default: 'exchange' },
    rounds: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    commands: { type: 'string', default: '3000000' },
    json: { type: 'boolean', default: false },
  },
});
if (values.baseline === undefined || !existsSync(join(values.baseline, 'engine', 'core', 'engine.ts'))) {
  console.error('usage: npm run bench:engine:ab -- --baseline DIR (a checkout of another commit, with engine/core/engine.ts)');
  process.exit(2);
}
if (values.mix !== 'exchange' && values.mix !== 'simple') {
  console.error('--mix is exchange or simple');
  process.exit(2);
}
const baselineDir = resolve(values.baseline);
const restingCounts = values.resting.split(',').map((text) => positiveInteger('--resting', text));
const rounds = positiveInteger('--rounds', values.rounds);
const runs = positiveInteger('--runs', values.runs);
const commands = positiveInteger('--commands', values.commands);

/** Resolves every import of a file under this checkout's engine/ to the same file under DIR's. */
function engineFrom(dir: string): Plugin {
  const ours = join(root, 'engine') + '/';
  return {
    name: 'engine-from-baseline',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, (args) => {
        // Imports made inside DIR stay in DIR (its engine's own files); those of this checkout's files
        // that reach into engine/ go to DIR's copy, unless DIR has no such file (a helper the bench uses
        // that came later, such as engine/runtime/memory.ts: its engine does not use it either); the rest
        // resolve as usual.
        if (args.importer.startsWith(dir + '/')) return undefined;
        const path = resolve(args.resolveDir, args.path);
        if (!path.startsWith(ours)) return undefined;
        const theirs = join(dir, 'engine', path.slice(ours.length));
        return existsSync(theirs) ? { path: theirs } : undefined;
      });
    },
  };
}

/** The bundles sit two folders down, as the sources do, so the engine finds ../../fixtures in this checkout. */
async function bundle(outfile: string, plugins: Plugin[]): Promise<void> {
  await build({
    entryPoints: [join(root, 'bench', 'engine-ab-runner.ts')],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    plugins,
  });
}

interface RunnerOutput {
  opsPerS: number[];
  fingerprint: string;
  mismatches: number;
}

/** Both sides' runners start with huge pages for their large buffers where the machine allows it (bench/huge-pages.ts). */
const runnerEnv = hugePagesEnv();

function runSide(bundlePath: string, resting: number): RunnerOutput {
  const output = execFileSync(
    process.execPath,
    [bundlePath, '--resting', String(resting), '--mix', values.mix!, '--runs', String(runs), '--commands', String(commands)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20, env: runnerEnv },
  );
  return JSON.parse(output.trim().split('\n').at(-1)!) as RunnerOutput;
}

function median(samples: readonly number[]): number {
  const sorted = samples.slice().sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

const currentBundle = join(root, 'dist', 'bench', 'engine-ab-current.mjs');
const baselineBundle = join(root, 'dist', 'bench', 'engine-ab-baseline.mjs');
await bundle(currentBundle, []);
await bundle(baselineBundle, [engineFrom(baselineDir)]);
log(`bench:engine:ab - ${values.mix === 'simple' ? 'simple' : 'exchange-core'} mix, ${fmtInt(commands)} commands a run, ${runs} runs a side a round, ${rounds} rounds`);
log(`current: ${root} (${commitOf(root)}), baseline: ${baselineDir} (${commitOf(baselineDir)}); transparent huge pages ${transparentHugePages()}, runners with ${mallocHugePages(runnerEnv) ? 'glibc.malloc.hugetlb=1' : '4 KiB pages for malloc'}`);

interface Row {
  resting: number;
  current: number;
  baseline: number;
  ratio: number;
  /** The best single timed run of each side: what each build does when the machine leaves it alone. */
  currentBest: number;
  baselineBest: number;
  bestRatio: number;
  sameWork: boolean;
  mismatches: number;
}
const rows: Row[] = [];
for (const resting of restingCounts) {
  const samples = { current: [] as number[], baseline: [] as number[] };
  const best = { current: 0, baseline: 0 };
  const fingerprints = new Set<string>();
  let mismatches = 0;
  for (let round = 0; round < rounds; round++) {
    // Alternate which side goes first, so neither always runs right after the other.
    const order = round % 2 === 0 ? (['current', 'baseline'] as const) : (['baseline', 'current'] as const);
    for (const side of order) {
      const result = runSide(side === 'current' ? currentBundle : baselineBundle, resting);
      samples[side].push(median(result.opsPerS));
      best[side] = Math.max(best[side], ...result.opsPerS);
      fingerprints.add(result.fingerprint);
      mismatches += result.mismatches;
    }
  }
  const current = median(samples.current);
  const baseline = median(samples.baseline);
  rows.push({
    resting,
    current,
    baseline,
    ratio: current / baseline,
    currentBest: best.current,
    baselineBest: best.baseline,
    bestRatio: best.current / best.baseline,
    sameWork: fingerprints.size === 1,
    mismatches,
  });
  log(`  ${fmtInt(resting)} resting: current ${samples.current.map((rate) => fmtInt(rate)).join(' / ')}; baseline ${samples.baseline.map((rate) => fmtInt(rate)).join(' / ')} ops/s`);
}

log('');
log('medians of the rounds (each round: the median of the runs of its process); best: the fastest single run');
log('resting      current ops/s   baseline ops/s   ratio    current best   baseline best   ratio   same work');
for (const row of rows) {
  log(
    `${fmtInt(row.resting).padStart(9)}  ${fmtInt(row.current).padStart(15)}  ${fmtInt(row.baseline).padStart(15)}  ${row.ratio.toFixed(2).padStart(5)}  ` +
      `${fmtInt(row.currentBest).padStart(14)}  ${fmtInt(row.baselineBest).padStart(14)}  ${row.bestRatio.toFixed(2).padStart(6)}   ` +
      `${row.sameWork ? 'yes' : 'NO: the engines gave different results or hashes'}${row.mismatches > 0 ? `, ${row.mismatches} results differed from the oracle` : ''}`,
  );
}
if (values.json) {
  console.log(JSON.stringify({ mix: values.mix, commands, runs, rounds, rows: rows.map((row) => ({
        ...row,
        current: Math.round(row.current),
        baseline: Math.round(row.baseline),
        ratio: Number(row.ratio.toFixed(3)),
        currentBest: Math.round(row.currentBest),
        baselineBest: Math.round(row.baselineBest),
        bestRatio: Number(row.bestRatio.toFixed(3)),
      })) }));
}
