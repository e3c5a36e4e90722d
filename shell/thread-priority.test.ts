import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultMarketsPath, loadMarkets } from '../engine/runtime/markets.ts';
import { ReadModels } from './read-models/read-models.ts';
import { lowerThreadPriority, niceMax, threadId } from './thread-priority.ts';

/** Each thread of this process and its nice value, from /proc/self/task/<tid>/stat (field 19). */
function niceByThread(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const name of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${name}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nice.set(Number(name), Number(fields[16]));
  }
  return nice;
}

test('the main thread names itself: its thread id is the process id', () => {
  assert.equal(threadId(), process.pid);
});

test('a nice value outside 0..19 is refused before anything changes', () => {
  const before = niceByThread().get(process.pid);
  for (const bad of [-1, niceMax + 1, 2.5, Number.NaN]) assert.throws(() => lowerThreadPriority(bad), RangeError);
  assert.equal(lowerThreadPriority(0), before, 'nice 0 leaves the thread as it is');
  assert.equal(niceByThread().get(process.pid), before);
});

test("the read models' worker runs at the nice value it is given, and no other thread of the process moves", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'thread-priority-'));
  const before = niceByThread();
  assert.equal(before.get(process.pid), 0, 'the test process runs at nice 0');
  const readModels = new ReadModels({ dataDir, markets: loadMarkets(defaultMarketsPath), marketsPath: defaultMarketsPath, workerNice: 7 });
  try {
    readModels.finishReplay(0);
    // The worker lowers itself as its module starts; wait for it (a few hundred ms from the sources).
    let lowered: number[] = [];
    for (let waited = 0; waited < 20_000 && lowered.length === 0; waited += 50) {
      await sleep(50);
      lowered = [...niceByThread()].filter(([tid, nice]) => !before.has(tid) && nice === 7).map(([tid]) => tid);
    }
    assert.equal(lowered.length, 1, 'exactly one new thread, the worker, runs at nice 7');
    const after = niceByThread();
    for (const [tid, nice] of before) if (after.has(tid)) assert.equal(after.get(tid), nice, `thread ${tid} kept its nice value`);
    assert.equal(after.get(process.pid), 0, 'the order thread keeps its priority');
  } finally {
    await readModels.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
