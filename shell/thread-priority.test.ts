import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultMarketsPath, loadMarkets } from '../engine/runtime/markets.ts';
import { ReadModels } from './read-models/read-models.ts';
import { loadConfig } from './config.ts';
import { lowNice, lowerThreadPriority, schedIdle, threadId, threadScheduling, type ThreadPriority } from './thread-priority.ts';

/** Linux's number for the normal policy, SCHED_OTHER. */
const schedOther = 0;

/** Each thread of this process with its nice value and policy. */
function threads(): Map<number, { nice: number; policy: number }> {
  const all = new Map<number, { nice: number; policy: number }>();
  for (const name of readdirSync('/proc/self/task')) {
    const scheduling = threadScheduling(Number(name));
    if (scheduling !== null) all.set(Number(name), scheduling);
  }
  return all;
}

test('the main thread names itself: its thread id is the process id, at the normal policy and nice 0', () => {
  assert.equal(threadId(), process.pid);
  assert.deepEqual(threadScheduling(process.pid), { nice: 0, policy: schedOther });
});

test('READ_MODELS_PRIORITY: idle by default, one of idle, low, normal, anything else stops the start', () => {
  assert.equal(loadConfig({}).readModelsPriority, 'idle');
  for (const priority of ['idle', 'low', 'normal'] as const) assert.equal(loadConfig({ READ_MODELS_PRIORITY: priority }).readModelsPriority, priority);
  for (const bad of ['', 'IDLE', 'nice', '19']) assert.throws(() => loadConfig({ READ_MODELS_PRIORITY: bad }), /READ_MODELS_PRIORITY must be idle, low, normal/);
});

test('`normal` changes nothing', () => {
  assert.equal(lowerThreadPriority('normal'), 'normal');
  assert.deepEqual(threadScheduling(process.pid), { nice: 0, policy: schedOther });
});

/** Starts read models whose worker runs at `priority`; returns the scheduling of the one thread that moved, once it has. */
async function workerScheduling(priority: ThreadPriority): Promise<{ nice: number; policy: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'thread-priority-'));
  const before = threads();
  const readModels = new ReadModels({ dataDir, markets: loadMarkets(defaultMarketsPath), marketsPath: defaultMarketsPath, workerPriority: priority });
  try {
    readModels.finishReplay(0);
    // The worker lowers itself as its module starts; wait for it (a few hundred ms from the sources).
    let moved: Array<{ nice: number; policy: number }> = [];
    for (let waited = 0; waited < 20_000; waited += 50) {
      await sleep(50);
      moved = [...threads()].filter(([tid, scheduling]) => !before.has(tid) && scheduling.nice === lowNice).map(([, scheduling]) => scheduling);
      if (moved.length > 0 && (priority !== 'idle' || moved[0]!.policy === schedIdle)) break;
    }
    assert.equal(moved.length, 1, `exactly one new thread, the worker, runs at nice ${lowNice}`);
    const after = threads();
    for (const [tid, scheduling] of before) if (after.has(tid)) assert.deepEqual(after.get(tid), scheduling, `thread ${tid} kept its priority`);
    assert.deepEqual(after.get(process.pid), { nice: 0, policy: schedOther }, 'the order thread keeps its priority');
    return moved[0]!;
  } finally {
    await readModels.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test("the read models' worker at `low` runs at nice 19 and the normal policy; no other thread moves", async () => {
  assert.deepEqual(await workerScheduling('low'), { nice: lowNice, policy: schedOther });
});

test("the read models' worker at `idle` runs at SCHED_IDLE; no other thread moves", async () => {
  assert.deepEqual(await workerScheduling('idle'), { nice: lowNice, policy: schedIdle });
});
