/**
 * Replays a journal into a fresh engine and reports how fast, and the final state hash:
 *   npm run replay -- <data dir | journal dir | segment file> [--from-snapshot] [--to-seq N]
 * A progress bar goes to stderr; the last stdout line is
 *   events=<N> seconds=<S> events_per_s=<R> state_hash=<H>
 * where events counts the journaled commands replayed and seconds covers reading, decoding and applying.
 * With --from-snapshot (a data dir), the newest valid snapshot is loaded first and only the tail replayed.
 */
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from '../engine/core/commands.ts';
import { Engine } from '../engine/core/engine.ts';
import { Result, resultCode, type ResultCode } from '../engine/core/results.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import { readJournal } from '../engine/journal/reader.ts';
import { useRulesOf } from '../engine/journal/rules.ts';
import { listSegments, type SegmentFile } from '../engine/journal/segments.ts';
import { loadNewestSnapshot } from '../engine/journal/snapshot-file.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { platformDomains } from '../engine/domains/index.ts';
import { recordsByteOffset } from '../engine/runtime/memory.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'from-snapshot': { type: 'boolean', default: false },
    'to-seq': { type: 'string' },
  },
});
const source = positionals[0];
const toSeq = values['to-seq'] === undefined ? undefined : Number(values['to-seq']);
if (source === undefined || !existsSync(source) || (toSeq !== undefined && !Number.isSafeInteger(toSeq))) {
  console.error('usage: npm run replay -- <data dir | journal dir | segment file> [--from-snapshot] [--to-seq N]');
  process.exit(2);
}

let segments: SegmentFile[];
let snapshotDir: string | null = null;
if (statSync(source).isFile()) {
  const name = basename(source);
  segments = [{ path: source, name, firstSeq: Number(name.slice(0, 20)) }];
} else if (existsSync(join(source, 'journal'))) {
  segments = listSegments(join(source, 'journal'));
  snapshotDir = join(source, 'snapshots');
} else {
  segments = listSegments(source);
  snapshotDir = join(dirname(source), 'snapshots');
}
if (segments.length === 0) {
  console.error(`no journal segments in ${source}`);
  process.exit(2);
}

const markets = loadMarkets();
// The order records on cache-line boundaries as the server lays them out (engine/runtime/memory.ts); asked
// before the clock starts, since finding the C library's version takes a few milliseconds.
const recordsOffset = recordsByteOffset();
const started = process.hrtime.bigint();
const makeEngine = (): Engine => new Engine({ markets, domains: platformDomains, recordsByteOffset: recordsOffset });
let engine = makeEngine();
let afterSeq = 0;
if (values['from-snapshot']) {
  if (snapshotDir === null) {
    console.error('--from-snapshot needs a data directory');
    process.exit(2);
  }
  const loaded = loadNewestSnapshot(snapshotDir, makeEngine, (path, reason) => console.error(`skipped ${path}: ${reason}`));
  if (loaded === null) {
    console.error(`no valid snapshot in ${snapshotDir}`);
    process.exit(2);
  }
  engine = loaded.engine;
  afterSeq = loaded.seq;
  console.error(`snapshot ${loaded.path} covers seq ${loaded.seq}`);
}

const totalBytes = segments.reduce((sum, segment) => sum + statSync(segment.path).size, 0);
let doneBytes = 0;
const barWidth = 30;
function progress(segment: SegmentFile | null, bytes: number): void {
  const fraction = totalBytes === 0 ? 1 : doneBytes / totalBytes;
  const filled = Math.round(fraction * barWidth);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${segment?.name ?? ''}`);
  doneBytes += bytes;
}

// Commands are applied in runs (`Engine.applyRun`, which reads ahead on a large book), each run under
// the rules of the segments its commands came from.
const runMax = 256;
const run: Command[] = [];
const runResults = new Uint16Array(runMax);
let runFormatVersion = 0;
let diverged = 0;
function applyPending(): void {
  useRulesOf(engine, runFormatVersion);
  engine.applyRun(run, runResults, 0, run.length);
  for (let index = 0; index < run.length; index++) {
    const result = runResults[index]!;
    if (result !== Result.ok && diverged++ === 0) {
      console.error(`\nseq ${run[index]!.seq}: ${resultCode(result as ResultCode)} on replay of a journaled command`);
    }
  }
  run.length = 0;
}
const summary = readJournal(
  segments,
  (command, formatVersion) => {
    if (run.length === runMax || (run.length > 0 && formatVersion !== runFormatVersion)) applyPending();
    runFormatVersion = formatVersion;
    run.push(command);
  },
  {
    afterSeq,
    ...(toSeq === undefined ? {} : { toSeq }),
    onSegment: (segment, bytes) => progress(segment, bytes),
    onTornTail: (segment, offset, problem) => console.error(`\ntorn tail in ${segment} at ${offset}: ${problem} (not modified)`),
  },
);
if (run.length > 0) applyPending();
progress(null, 0);
process.stderr.write('\n');
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const hash = stateHash(engine);
if (diverged > 0) console.error(`${diverged} journaled commands were refused on replay: the journal and this build disagree`);
console.log(`from_seq=${afterSeq + 1} last_seq=${summary.lastSeq} segments=${segments.length} bytes=${summary.bytes}`);
console.log(`events=${summary.commands} seconds=${seconds.toFixed(3)} events_per_s=${Math.round(summary.commands / seconds)} state_hash=${hash}`);
process.exit(diverged > 0 ? 1 : 0);
