/**
 * The read models' worker thread: takes packed durable batches from the main thread and writes them with
 * the ReadModelWriter on a connection of its own. After the messages already waiting are written it
 * answers with how many messages it has taken and which seq the committed tables cover; it commits then
 * only when a query waits (the shared flag) or `commitIntervalMs` have passed since its last commit, and
 * otherwise on a timer within that interval (commit-policy.ts). The main thread sends the next message only
 * after that answer, with every batch that became durable meanwhile, so under load one message holds many
 * batches and one transaction many messages. SQLite's statements, the largest part of the read models'
 * cost, so leave the thread that answers orders; and the thread runs below it (READ_MODELS_PRIORITY, by
 * default the SCHED_IDLE policy), so that when both want a core the order thread gets it (thread-priority.ts).
 *
 * Messages in: `{ type: 'batch', batch }`, `{ type: 'commit' }` (a query waits for rows already written)
 * and `{ type: 'close' }`; out: `{ type: 'applied', seq, received }` after the messages waiting are
 * handled and after each timed commit, and `{ type: 'closed', seq }` once the last commit is done and the
 * database closed. An exception here is a bug: it ends the thread, and the main thread stops the process
 * (read-models.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { PackedBatchView, type PackedBatch } from '../../engine/runtime/packed-batch.ts';
import { commitWaitMs } from './commit-policy.ts';
import { openReadModelDatabase } from './schema.ts';
import { ReadModelWriter } from './writer.ts';
import { lowerThreadPriority, type ThreadPriority } from '../thread-priority.ts';

export interface ReadModelWorkerInput {
  readonly dataDir: string;
  readonly marketsPath: string;
  /** How the thread runs, set before its first statement (thread-priority.ts). */
  readonly priority: ThreadPriority;
  /** One Int32 the main thread holds at 1 while any query waits for rows, else 0. */
  readonly queryWaiting: SharedArrayBuffer;
  /** Longest written rows wait for their commit while no query waits (commit-policy.ts). */
  readonly commitIntervalMs: number;
}

export type ToReadModelWorker = { readonly type: 'batch'; readonly batch: PackedBatch } | { readonly type: 'commit' } | { readonly type: 'close' };
export type FromReadModelWorker =
  /** `received`: messages taken so far; `seq`: the last command the committed tables cover. */
  { readonly type: 'applied'; readonly seq: number; readonly received: number } | { readonly type: 'closed'; readonly seq: number };

const port = parentPort!;
const input = workerData as ReadModelWorkerInput;
lowerThreadPriority(input.priority);
const queryWaiting = new Int32Array(input.queryWaiting);
const db = openReadModelDatabase(input.dataDir);
const writer = new ReadModelWriter(db, loadMarkets(input.marketsPath));
let received = 0;
let settleScheduled = false;
let lastCommitMs = performance.now();
let commitTimer: NodeJS.Timeout | null = null;
let closed = false;

function post(message: FromReadModelWorker): void {
  port.postMessage(message);
}

function commitNow(): void {
  writer.commit();
  lastCommitMs = performance.now();
  if (commitTimer !== null) clearTimeout(commitTimer);
  commitTimer = null;
}

/** After the messages waiting: commit if a query waits or the interval is up, else leave it to the timer; then answer. */
function settle(): void {
  settleScheduled = false;
  if (closed) return;
  const waitMs = commitWaitMs(Atomics.load(queryWaiting, 0) !== 0, lastCommitMs, performance.now(), input.commitIntervalMs);
  if (waitMs === 0) commitNow();
  else if (writer.uncommitted && commitTimer === null) commitTimer = setTimeout(onCommitTimer, waitMs);
  post({ type: 'applied', seq: writer.committedSeq, received });
}

function onCommitTimer(): void {
  commitTimer = null;
  if (closed || !writer.uncommitted) return;
  commitNow();
  post({ type: 'applied', seq: writer.committedSeq, received });
}

port.on('message', (message: ToReadModelWorker) => {
  if (message.type !== 'close') {
    if (message.type === 'batch') writer.applyBatch(new PackedBatchView(message.batch));
    received++;
    // The check phase comes after every message already waiting has been handled: they share one answer.
    if (!settleScheduled) {
      settleScheduled = true;
      setImmediate(settle);
    }
    return;
  }
  closed = true;
  if (commitTimer !== null) clearTimeout(commitTimer);
  const seq = writer.commit();
  db.close();
  post({ type: 'closed', seq });
  port.close();
});
