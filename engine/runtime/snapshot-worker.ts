/**
 * The snapshot writer's worker thread (DurableEngine with `startWorker`): takes the snapshots that the
 * engine's thread took (engine/journal/snapshot-file.ts, `takeSnapshotAt`: the state's copy, its orders a
 * copy of the order records' bytes, and the words its hash ends with), walks the copied books into the
 * orders' columns, computes the state hash over them, encodes it, and writes it atomically once the
 * commands it covers are durable, then prunes the older files. The engine's thread keeps only what must be
 * done at the snapshot's point (the copies); the walk over the orders, the hash, the msgpack encoding, the
 * CRC and the file's write and fsync, which grow with the state (hundreds of ms each at a million resting
 * orders), no longer hold up its orders.
 *
 * Messages in: `{ type: 'snapshot', taken, durable }` (a snapshot whose seq is not yet durable is
 * encoded at once and written on `{ type: 'durable' }`), `{ type: 'reserve', bytes }` (prepare a records
 * buffer for a book of that size, recovered at start). Out: `{ type: 'spare', records }` (the copied
 * order records' buffer, transferred back once the orders' columns are built, for the next snapshot to copy
 * into; a larger one when the book would outgrow it at its pace; or the reserved one), then
 * `{ type: 'written', seq, path, bytes }` or `{ type: 'failed', seq, message }` (the journal still holds
 * everything; the next snapshot tries again).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { recordsBuffer } from '../core/order-store.ts';
import { encodeSnapshotPayload, finishSnapshot, pruneSnapshots, spareAfter, takenRecordsBytes, writeSnapshotFile, type TakenSnapshot } from '../journal/snapshot-file.ts';

export interface SnapshotWorkerInput {
  readonly dir: string;
  /** Snapshot files kept. */
  readonly kept: number;
}

export type ToSnapshotWorker =
  | { readonly type: 'snapshot'; readonly taken: TakenSnapshot; readonly durable: boolean }
  | { readonly type: 'durable' }
  | { readonly type: 'reserve'; readonly bytes: number };
export type FromSnapshotWorker =
  | { readonly type: 'spare'; readonly records: ArrayBuffer; readonly reserved?: true }
  | { readonly type: 'written'; readonly seq: number; readonly path: string; readonly bytes: number }
  | { readonly type: 'failed'; readonly seq: number; readonly message: string };

const port = parentPort!;
const input = workerData as SnapshotWorkerInput;
let held: { seq: number; bytes: Buffer } | null = null;
/** The order records' bytes the last snapshot copied: how fast the book grows, for the buffer handed back. */
let lastRecordsBytes = 0;

function write(seq: number, bytes: Buffer): void {
  try {
    const path = writeSnapshotFile(input.dir, seq, bytes);
    pruneSnapshots(input.dir, input.kept);
    port.postMessage({ type: 'written', seq, path, bytes: bytes.length } satisfies FromSnapshotWorker);
  } catch (error) {
    port.postMessage({ type: 'failed', seq, message: error instanceof Error ? error.message : String(error) } satisfies FromSnapshotWorker);
  }
}

port.on('message', (message: ToSnapshotWorker) => {
  if (message.type === 'durable') {
    if (held !== null) write(held.seq, held.bytes);
    held = null;
    return;
  }
  if (message.type === 'reserve') {
    let records: ArrayBuffer;
    try {
      records = recordsBuffer(message.bytes, true);
      lastRecordsBytes = message.bytes;
    } catch {
      return; // no memory for it now: the first snapshot allocates its own
    }
    port.postMessage({ type: 'spare', records, reserved: true } satisfies FromSnapshotWorker, [records]);
    return;
  }
  let bytes: Buffer;
  try {
    const payload = finishSnapshot(message.taken);
    // The copied records are read: hand their buffer back for the next snapshot to copy into (a larger
    // one, pages written here, when the book would outgrow it at the pace it grew).
    const records = spareAfter(message.taken, lastRecordsBytes);
    lastRecordsBytes = takenRecordsBytes(message.taken);
    if (records !== null) port.postMessage({ type: 'spare', records } satisfies FromSnapshotWorker, [records]);
    bytes = encodeSnapshotPayload(payload);
  } catch (error) {
    port.postMessage({ type: 'failed', seq: message.taken.seq, message: error instanceof Error ? error.message : String(error) } satisfies FromSnapshotWorker);
    return;
  }
  if (message.durable) write(message.taken.seq, bytes);
  else held = { seq: message.taken.seq, bytes };
});
