/**
 * The read models' worker thread: takes packed durable batches from the main thread, writes them with the
 * ReadModelWriter on a connection of its own, and commits once no message is waiting, then says which seq
 * the committed tables now cover. The main thread sends the next message only after that answer, with
 * every batch that became durable meanwhile, so under load one transaction holds many batches. SQLite's
 * statements, the largest part of the read models' cost, so leave the thread that answers orders; and the
 * thread runs at the nice value the main thread passes (READ_MODELS_NICE), so that when both want a core
 * the order thread gets it (thread-priority.ts).
 *
 * Messages in: `{ type: 'batch', batch }` and `{ type: 'close' }`; out: `{ type: 'applied', seq }` after
 * each commit and `{ type: 'closed', seq }` once the last commit is done and the database closed. An
 * exception here is a bug: it ends the thread, and the main thread stops the process (read-models.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { PackedBatchView, type PackedBatch } from '../../engine/runtime/packed-batch.ts';
import { openReadModelDatabase } from './schema.ts';
import { ReadModelWriter } from './writer.ts';
import { lowerThreadPriority } from '../thread-priority.ts';

export interface ReadModelWorkerInput {
  readonly dataDir: string;
  readonly marketsPath: string;
  /** Nice value the thread lowers itself to before its first statement (0: unchanged). */
  readonly nice: number;
}

export type ToReadModelWorker = { readonly type: 'batch'; readonly batch: PackedBatch } | { readonly type: 'close' };
export type FromReadModelWorker = { readonly type: 'applied'; readonly seq: number } | { readonly type: 'closed'; readonly seq: number };

const port = parentPort!;
const input = workerData as ReadModelWorkerInput;
if (input.nice > 0) lowerThreadPriority(input.nice);
const db = openReadModelDatabase(input.dataDir);
const writer = new ReadModelWriter(db, loadMarkets(input.marketsPath));
let commitScheduled = false;
let closed = false;

function post(message: FromReadModelWorker): void {
  port.postMessage(message);
}

function commit(): void {
  commitScheduled = false;
  if (closed) return;
  post({ type: 'applied', seq: writer.commit() });
}

port.on('message', (message: ToReadModelWorker) => {
  if (message.type === 'batch') {
    writer.applyBatch(new PackedBatchView(message.batch));
    // The check phase comes after every message already waiting has been handled: they share one commit.
    if (!commitScheduled) {
      commitScheduled = true;
      setImmediate(commit);
    }
    return;
  }
  closed = true;
  const seq = writer.commit();
  db.close();
  post({ type: 'closed', seq });
  port.close();
});
