/**
 * Journal segments on disk: files under `<dir>` named by the seq of their first frame
 * (`00000000000000000001.seg`), each a segment header followed by frames. The writer appends whole
 * batches and rolls to a new file when a batch would take the open one past `segmentBytesMax`; a new file
 * is made durable (file and directory synced) before frames are written into it.
 */
import { closeSync, constants, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { write } from 'node:fs';
import { join } from 'node:path';
import { encodeSegmentHeader, journalFormatVersion, segmentHeaderBytes } from './codec.ts';

export const segmentSuffix = '.seg';
export const defaultSegmentBytesMax = 64 * 1024 * 1024;

export function segmentName(firstSeq: number): string {
  return String(firstSeq).padStart(20, '0') + segmentSuffix;
}

export interface SegmentFile {
  readonly path: string;
  readonly name: string;
  readonly firstSeq: number;
}

/** Segment files of a directory, oldest first. Files with other names are ignored. */
export function listSegments(dir: string): SegmentFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d{20}\.seg$/.test(name))
    .map((name) => ({ path: join(dir, name), name, firstSeq: Number(name.slice(0, 20)) }))
    .sort((a, b) => a.firstSeq - b.firstSeq);
}

/** Fsyncs a directory so that a file created or renamed in it survives a crash. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export type SyncMode = 'sync' | 'none';

/**
 * In sync mode segments are opened with O_DSYNC: each write returns once its data is on stable storage,
 * as a write followed by fdatasync would, but in one system call and so in one trip to libuv's thread
 * pool per batch instead of two (bench:journal's acknowledgement latency).
 */
function openFlags(syncMode: SyncMode, create: boolean): number {
  const sync = syncMode === 'sync' ? constants.O_DSYNC : 0;
  return (create ? constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL : constants.O_RDWR) | sync;
}

export class SegmentWriter {
  private fd = -1;
  private segmentBytes = 0;
  /** Bytes written to all segments by this writer. */
  bytesWritten = 0;

  constructor(
    private readonly dir: string,
    private readonly syncMode: SyncMode,
    private readonly segmentBytesMax = defaultSegmentBytesMax,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /**
   * Continues an existing segment (after recovery) at its current end, or starts none: the first batch
   * then opens a new one. A segment's header names the format of all its frames, so a segment of an older
   * format version is continued only while it holds no frame (its header is rewritten to this version);
   * one with frames is left as it is and the next batch starts a new segment.
   */
  resume(path: string, sizeBytes: number, formatVersion: number, firstSeq: number): void {
    this.close();
    if (formatVersion !== journalFormatVersion && sizeBytes > segmentHeaderBytes) return;
    this.fd = openSync(path, openFlags(this.syncMode, false));
    this.segmentBytes = sizeBytes;
    if (formatVersion !== journalFormatVersion) {
      const header = encodeSegmentHeader(firstSeq);
      writeSync(this.fd, header, 0, header.length, 0);
    }
  }

  /** Opens the segment a batch starting at `firstSeq` goes to, rolling if it would not fit. */
  private target(firstSeq: number, batchBytes: number): number {
    if (this.fd !== -1 && this.segmentBytes + batchBytes <= this.segmentBytesMax) return this.fd;
    if (this.fd !== -1 && this.segmentBytes === segmentHeaderBytes) return this.fd;
    this.close();
    const path = join(this.dir, segmentName(firstSeq));
    const fd = openSync(path, openFlags(this.syncMode, true), 0o644);
    const header = encodeSegmentHeader(firstSeq);
    writeSync(fd, header, 0, header.length, 0);
    if (this.syncMode === 'sync') syncDirectory(this.dir);
    this.fd = fd;
    this.segmentBytes = header.length;
    return fd;
  }

  /** Appends a batch; in sync mode it is on disk when this returns (O_DSYNC). */
  appendSync(bytes: Uint8Array, firstSeq: number): void {
    const fd = this.target(firstSeq, bytes.length);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, this.segmentBytes + written);
    this.segmentBytes += bytes.length;
    this.bytesWritten += bytes.length;
  }

  /**
   * Appends a batch without blocking the thread: the (O_DSYNC) write runs on libuv's pool. The caller must
   * not touch `bytes` until `done` is called, and must not start another append before then.
   */
  append(bytes: Uint8Array, firstSeq: number, done: (error: Error | null) => void): void {
    let fd: number;
    try {
      fd = this.target(firstSeq, bytes.length);
    } catch (error) {
      done(error as Error);
      return;
    }
    const position = this.segmentBytes;
    this.segmentBytes += bytes.length;
    this.bytesWritten += bytes.length;
    let written = 0;
    const writeRest = (): void => {
      write(fd, bytes, written, bytes.length - written, position + written, (error, count) => {
        if (error) return done(error);
        written += count;
        if (written < bytes.length) return writeRest();
        done(null);
      });
    };
    writeRest();
  }

  close(): void {
    if (this.fd === -1) return;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = -1;
    this.segmentBytes = 0;
  }
}
