/**
 * Snapshot files: the engine's state (core/snapshot.ts) msgpack-encoded, with the seq it covers and its
 * state hash. Layout: magic `TPSN`, u16 format version, u16 zero, u32 CRC32 of the payload, u32 payload
 * length, then the payload. Written atomically: a temporary file is written and fsynced, renamed into
 * place, and the directory fsynced.
 *
 * Loading tries the newest file first; a file whose CRC, shape or recomputed state hash is wrong is
 * skipped (and reported) for the next older one.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Decoder, Encoder } from '@msgpack/msgpack';
import type { Engine } from '../core/engine.ts';
import { completeSnapshot, restoreSnapshot, snapshotCopyTransfers, takeSnapshotCopy, type EngineSnapshot, type OrderColumns, type SnapshotCopy } from '../core/snapshot.ts';
import { recordBytes, recordsBuffer } from '../core/order-store.ts';
import { snapshotStateHash, stateHash, stateHashRestWords } from '../core/state-hash.ts';
import { fileNamesIn, syncDirectory } from './segments.ts';

const snapshotMagic = 0x4e535054; // "TPSN" as a little-endian u32
const snapshotFormatVersion = 1;
const headerBytes = 16;

export interface SnapshotFile {
  readonly path: string;
  readonly seq: number;
}

export function snapshotName(seq: number): string {
  return `snapshot-${String(seq).padStart(20, '0')}.snap`;
}

export function listSnapshots(dir: string): SnapshotFile[] {
  return fileNamesIn(dir)
    .filter((name) => /^snapshot-\d{20}\.snap$/.test(name))
    .map((name) => ({ path: join(dir, name), seq: Number(name.slice(9, 29)) }))
    .sort((a, b) => b.seq - a.seq);
}

/** What a snapshot file holds: the state of `seq`, plain data (typed arrays, arrays, objects, strings). */
export interface SnapshotPayload {
  seq: number;
  stateHash: string;
  state: EngineSnapshot;
}

/**
 * What the engine's thread must take at a snapshot's point: a copy of the state (sharing no memory with
 * the engine; its orders as a copy of the order records, `takeSnapshotCopy`) and the words its state hash
 * ends with. The orders' columns, the hash (`finishSnapshot`), the encoding and the write can follow later
 * or on another thread: a structured clone of this gives the same hash and bytes, and `takenTransfers`
 * lists the buffers a postMessage can hand over instead of copying.
 */
export interface TakenSnapshot {
  seq: number;
  copy: SnapshotCopy;
  restWords: number[];
  defaultTakerFeeBps: number;
}

/**
 * Takes the snapshot of `seq` to be finished elsewhere, its orders as a copy of the records; `spare` is the
 * records buffer of an earlier one, reused when large enough (`takenRecords`).
 */
export function takeSnapshotAt(engine: Engine, seq: number, spare: ArrayBuffer | null = null): TakenSnapshot {
  return taken(engine, seq, true, spare);
}

function taken(engine: Engine, seq: number, copyRecords: boolean, spare: ArrayBuffer | null): TakenSnapshot {
  return { seq, copy: takeSnapshotCopy(engine, copyRecords, spare), restWords: stateHashRestWords(engine), defaultTakerFeeBps: engine.settings.takerFeeBps };
}

/** The copied records' buffer of a taken snapshot (null when its orders were taken as columns): once the snapshot is finished, the spare of the next. */
export function takenRecords(taken: TakenSnapshot): ArrayBuffer | null {
  const orders = taken.copy.orders;
  return 'store' in orders ? orders.store.records : null;
}

/** The bytes of order records a taken snapshot copied (0 when its orders were taken as columns). */
export function takenRecordsBytes(taken: TakenSnapshot): number {
  const orders = taken.copy.orders;
  return 'store' in orders ? orders.store.slots * recordBytes : 0;
}

/**
 * The records buffer to hand back once a taken snapshot is finished (null when its orders were taken as
 * columns): its own while it leaves room for the book to grow as it did since the snapshot before
 * (`previousBytes` of records then; 0 if unknown) and at least a sixteenth more; else a larger one,
 * prepared here with its pages written, with room for as much growth again and an eighth, so that the
 * engine's thread copies the next snapshot into a buffer that fits and is paged in.
 */
export function spareAfter(taken: TakenSnapshot, previousBytes = 0): ArrayBuffer | null {
  const orders = taken.copy.orders;
  if (!('store' in orders)) return null;
  const bytes = takenRecordsBytes(taken);
  const growth = previousBytes > 0 && bytes > previousBytes ? bytes - previousBytes : 0;
  if (orders.store.records.byteLength - bytes >= Math.max(bytes / 16, growth)) return orders.store.records;
  try {
    return recordsBuffer(bytes, true, Math.max(bytes, growth) / 8 + growth);
  } catch {
    return orders.store.records; // no memory for a larger one now: the next snapshot allocates if it must
  }
}

/** The buffers of a taken snapshot that a postMessage may transfer (the taken snapshot is then the receiver's). */
export function takenTransfers(taken: TakenSnapshot): ArrayBuffer[] {
  return snapshotCopyTransfers(taken.copy);
}

/** The payload of a taken snapshot: its state hash, the same as `stateHash` of the engine when taken. */
export function finishSnapshot(taken: TakenSnapshot): SnapshotPayload {
  const state = completeSnapshot(taken.copy);
  return { seq: taken.seq, stateHash: snapshotStateHash(state, taken.restWords, taken.defaultTakerFeeBps), state };
}

/** The engine's current state as the snapshot of `seq`, not yet encoded. */
export function snapshotPayload(engine: Engine, seq: number): SnapshotPayload {
  // Finished here at once: the columns are read from the engine, with no copy of the records in between.
  return finishSnapshot(taken(engine, seq, false, null));
}

/** A snapshot file's bytes: header and msgpack body. */
export function encodeSnapshotPayload(payload: SnapshotPayload): Buffer {
  const body = new Encoder({ initialBufferSize: 1 << 20 }).encode(payload);
  const header = Buffer.alloc(headerBytes);
  header.writeUInt32LE(snapshotMagic, 0);
  header.writeUInt16LE(snapshotFormatVersion, 4);
  header.writeUInt32LE(crc32(body), 8);
  header.writeUInt32LE(body.length, 12);
  return Buffer.concat([header, body]);
}

/** Encodes the engine's current state as the snapshot of `seq`; the bytes can be written later. */
export function encodeSnapshot(engine: Engine, seq: number): { bytes: Buffer; stateHash: string } {
  const payload = snapshotPayload(engine, seq);
  return { bytes: encodeSnapshotPayload(payload), stateHash: payload.stateHash };
}

/** Writes snapshot bytes atomically; returns the final path. */
export function writeSnapshotFile(dir: string, seq: number, bytes: Uint8Array): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, snapshotName(seq));
  const temporary = path + '.tmp';
  const fd = openSync(temporary, 'w');
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  syncDirectory(dir);
  return path;
}

function copyAligned<T>(bytes: unknown, make: (buffer: ArrayBuffer) => T, name: string): T {
  if (!(bytes instanceof Uint8Array)) throw new Error(`snapshot field ${name} is not binary`);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return make(copy.buffer);
}

const f64 = (value: unknown, name: string): Float64Array => copyAligned(value, (buffer) => new Float64Array(buffer), name);
const i32 = (value: unknown, name: string): Int32Array => copyAligned(value, (buffer) => new Int32Array(buffer), name);
const u8 = (value: unknown, name: string): Uint8Array => copyAligned(value, (buffer) => new Uint8Array(buffer), name);
const u16 = (value: unknown, name: string): Uint16Array => copyAligned(value, (buffer) => new Uint16Array(buffer), name);

/** Rebuilds the typed arrays that msgpack carried as raw bytes. */
function reviveState(raw: Record<string, unknown>): EngineSnapshot {
  const orders = raw['orders'] as Record<string, unknown>;
  const columns: OrderColumns = {
    orderId: f64(orders['orderId'], 'orderId'),
    userId: f64(orders['userId'], 'userId'),
    context: i32(orders['context'], 'context'),
    side: u8(orders['side'], 'side'),
    orderType: u8(orders['orderType'], 'orderType'),
    timeInForce: u8(orders['timeInForce'], 'timeInForce'),
    selfTradePrevention: u8(orders['selfTradePrevention'], 'selfTradePrevention'),
    postOnly: u8(orders['postOnly'], 'postOnly'),
    status: u8(orders['status'], 'status'),
    priceTicks: f64(orders['priceTicks'], 'priceTicks'),
    stopPriceTicks: f64(orders['stopPriceTicks'], 'stopPriceTicks'),
    holdPriceTicks: f64(orders['holdPriceTicks'], 'holdPriceTicks'),
    quantityLots: f64(orders['quantityLots'], 'quantityLots'),
    filledLots: f64(orders['filledLots'], 'filledLots'),
    filledNotionalAtoms: f64(orders['filledNotionalAtoms'], 'filledNotionalAtoms'),
    takerNotionalAtoms: f64(orders['takerNotionalAtoms'], 'takerNotionalAtoms'),
    makerNotionalAtoms: f64(orders['makerNotionalAtoms'], 'makerNotionalAtoms'),
    heldAtoms: f64(orders['heldAtoms'], 'heldAtoms'),
    restingLots: f64(orders['restingLots'], 'restingLots'),
    clientOrderId: orders['clientOrderId'] as string[],
    // Absent before snapshot version 4 (every order then paid the engine's taker rate).
    ...(orders['takerFeeBps'] === undefined ? {} : { takerFeeBps: u16(orders['takerFeeBps'], 'takerFeeBps') }),
  };
  const count = columns.orderId.length;
  for (const [name, column] of Object.entries(columns)) {
    if ((column as { length: number }).length !== count) throw new Error(`snapshot column ${name} has the wrong length`);
  }
  const quotes = raw['venueQuotes'] as Record<string, unknown> | undefined;
  const levels = raw['venueLevels'] as Record<string, unknown> | undefined;
  const venues: Pick<EngineSnapshot, 'venueQuotes' | 'venueLevels'> = {};
  if (quotes !== undefined && levels !== undefined) {
    venues.venueQuotes = {
      pairIndex: i32(quotes['pairIndex'], 'venueQuotes.pairIndex'),
      poolId: i32(quotes['poolId'], 'venueQuotes.poolId'),
      chainId: i32(quotes['chainId'], 'venueQuotes.chainId'),
      version: f64(quotes['version'], 'venueQuotes.version'),
      quotedAtMs: f64(quotes['quotedAtMs'], 'venueQuotes.quotedAtMs'),
    };
    venues.venueLevels = {
      pairIndex: i32(levels['pairIndex'], 'venueLevels.pairIndex'),
      side: u8(levels['side'], 'venueLevels.side'),
      priceTicks: f64(levels['priceTicks'], 'venueLevels.priceTicks'),
      lots: f64(levels['lots'], 'venueLevels.lots'),
      poolId: i32(levels['poolId'], 'venueLevels.poolId'),
    };
    for (const group of [venues.venueQuotes, venues.venueLevels]) {
      const lengths = new Set(Object.values(group).map((column) => column.length));
      if (lengths.size > 1) throw new Error('snapshot venue columns have different lengths');
    }
  }
  const fees = raw['accountTakerFees'] as Record<string, unknown> | undefined;
  const accountTakerFees: Pick<EngineSnapshot, 'accountTakerFees'> = {};
  if (fees !== undefined) {
    accountTakerFees.accountTakerFees = { userId: f64(fees['userId'], 'accountTakerFees.userId'), mode: u8(fees['mode'], 'accountTakerFees.mode'), bps: u16(fees['bps'], 'accountTakerFees.bps') };
    const lengths = new Set(Object.values(accountTakerFees.accountTakerFees).map((column) => column.length));
    if (lengths.size > 1) throw new Error('snapshot account fee columns have different lengths');
  }
  const lastScaleId = raw['lastScaleId'];
  const domains = raw['domains'];
  if (lastScaleId !== undefined && !Number.isSafeInteger(lastScaleId)) throw new Error('snapshot lastScaleId is not an integer');
  if (domains !== undefined && (typeof domains !== 'object' || domains === null)) throw new Error('snapshot domains are not a map');
  return {
    ...venues,
    ...accountTakerFees,
    ...(lastScaleId === undefined ? {} : { lastScaleId: lastScaleId as number }),
    ...(domains === undefined ? {} : { domains: domains as Record<string, unknown> }),
    version: raw['version'] as number,
    pairIds: raw['pairIds'] as number[],
    assetIds: raw['assetIds'] as number[],
    lastOrderId: raw['lastOrderId'] as number,
    lastTradeId: raw['lastTradeId'] as number,
    lastPriceTicks: f64(raw['lastPriceTicks'], 'lastPriceTicks'),
    accountUsers: f64(raw['accountUsers'], 'accountUsers'),
    accountModes: u8(raw['accountModes'], 'accountModes'),
    available: f64(raw['available'], 'available'),
    held: f64(raw['held'], 'held'),
    supply: f64(raw['supply'], 'supply'),
    orders: columns,
  };
}

/**
 * Reads one snapshot file into `engine` (fresh) and checks the state hash; returns the seq it covers.
 * Throws with the reason when the file is not a valid snapshot.
 */
export function loadSnapshotFile(path: string, engine: Engine): { seq: number; stateHash: string } {
  const bytes = readFileSync(path);
  if (bytes.length < headerBytes || bytes.readUInt32LE(0) !== snapshotMagic) throw new Error(`${path}: not a snapshot`);
  const version = bytes.readUInt16LE(4);
  if (version !== snapshotFormatVersion) throw new Error(`${path}: snapshot format version ${version}, this build reads ${snapshotFormatVersion}`);
  const length = bytes.readUInt32LE(12);
  if (length !== bytes.length - headerBytes) throw new Error(`${path}: truncated snapshot`);
  const body = bytes.subarray(headerBytes);
  if (crc32(body) !== bytes.readUInt32LE(8)) throw new Error(`${path}: snapshot CRC mismatch`);
  const payload = new Decoder().decode(body) as { seq: unknown; stateHash: unknown; state: unknown };
  if (typeof payload.seq !== 'number' || typeof payload.stateHash !== 'string' || typeof payload.state !== 'object' || payload.state === null) {
    throw new Error(`${path}: malformed snapshot`);
  }
  restoreSnapshot(engine, reviveState(payload.state as Record<string, unknown>));
  const hash = stateHash(engine);
  if (hash !== payload.stateHash) throw new Error(`${path}: state hash ${hash} does not match the recorded ${payload.stateHash}`);
  return { seq: payload.seq, stateHash: hash };
}

/**
 * Loads the newest valid snapshot into an engine made by `makeEngine`; invalid ones are reported through
 * `onSkipped` and passed over. Returns null when no snapshot is valid.
 */
export function loadNewestSnapshot(
  dir: string,
  makeEngine: () => Engine,
  onSkipped: (path: string, reason: string) => void,
  seqMax = Number.MAX_SAFE_INTEGER,
): { engine: Engine; seq: number; stateHash: string; path: string } | null {
  for (const file of listSnapshots(dir)) {
    if (file.seq > seqMax) continue;
    const engine = makeEngine();
    try {
      const loaded = loadSnapshotFile(file.path, engine);
      if (loaded.seq !== file.seq) throw new Error(`${file.path}: covers seq ${loaded.seq}, not the ${file.seq} its name says`);
      return { engine, ...loaded, path: file.path };
    } catch (error) {
      onSkipped(file.path, error instanceof Error ? error.message : String(error));
    }
  }
  return null;
}

/**
 * Removes the temporary files of snapshots whose write never finished (the process stopped between
 * writing and renaming): they are never loaded, and at a million orders each is a hundred MB. Returns
 * the names removed.
 */
export function removeUnfinishedSnapshots(dir: string): string[] {
  const unfinished = fileNamesIn(dir).filter((name) => /^snapshot-\d{20}\.snap\.tmp$/.test(name));
  for (const name of unfinished) unlinkSync(join(dir, name));
  return unfinished;
}

/** Removes snapshots older than the newest `keep`. */
export function pruneSnapshots(dir: string, keep: number): void {
  for (const file of listSnapshots(dir).slice(keep)) unlinkSync(file.path);
}
