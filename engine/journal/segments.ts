/**
 * Journal segments on disk: files under `<dir>` named by the seq of their first frame
 * (`00000000000000000001.seg`), each a segment header followed by frames. The writer appends whole
 * batches and rolls to a new file when a batch would take the open one past `segmentBytesMax`; a new file
 * is made durable (file and directory synced) before frames are written into it.
 *
 * In sync mode the writer fills the open segment with zeros ahead of its last frame while it has nothing
 * else to write (`zeroAheadBytes` ahead, `zeroPieceBytes` at a time), so that a batch overwrites bytes the
 * file already has instead of growing it: a synced write that grows a file must also commit the file's
 * new size to the filesystem's journal, one that overwrites syncs its data only. Under a load that keeps
 * it writing batches back to back it writes no zeros, and batches grow the file as they would without
 * them. The reader takes a zero frame header followed by nothing but zeros as the end of a segment's
 * frames (reader.ts); a segment is cut to its frames when it is closed.
 */
import { closeSync, constants, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { write } from 'node:fs';
import { join } from 'node:path';
import { encodeSegmentHeader, journalFormatVersion, segmentHeaderBytes } from './codec.ts';

export const segmentSuffix = '.seg';
export const defaultSegmentBytesMax = 64 * 1024 * 1024;

/**
 * How far ahead of its last frame a synced segment is filled with zeros, and how much one write of zeros
 * takes. A batch that arrives while a piece is being written waits for the disk behind it, so pieces are
 * small: on this project's development machine (ext4 on a virtual disk) a synced 64 KiB write took
 * 0.3-0.4 ms at the median and 0.6 ms at p99, about as long as a synced batch. What the zeros save is in
 * bench/README.md (bench:journal).
 */
export const defaultZeroAheadBytes = 1024 * 1024;
export const zeroPieceBytes = 64 * 1024;

export function segmentName(firstSeq: number): string {
  return String(firstSeq).padStart(20, '0') + segmentSuffix;
}

export interface SegmentFile {
  readonly path: string;
  readonly name: string;
  readonly firstSeq: number;
}

/** The names in a directory; none when it cannot be read (not made yet). */
export function fileNamesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Segment files of a directory, oldest first. Files with other names are ignored. */
export function listSegments(dir: string): SegmentFile[] {
  return fileNamesIn(dir)
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
  /** The open segment's size on disk: its frames, then zeros up to here (sync mode). */
  private fileBytes = 0;
  /** Whether a batch's write is on libuv's pool. */
  private writing = false;
  /** Whether a look for a pause to write zeros in is scheduled. */
  private idleCheck = false;
  /** Whether a piece of zeros ahead of the frames is on libuv's pool. */
  private zeroing = false;
  /** An append waiting for that piece: it would reach past the zeros, or roll to a new segment. */
  private waiting: (() => void) | null = null;
  /**
   * Set when a write of zeros failed (a full disk, say): the writer writes no more zeros, and batches grow
   * the file as they would without them (a batch's own write reports its own errors).
   */
  private zeroFailed = false;
  /** A close that came while zeros were being written: the descriptor is closed when they are. */
  private closeAfterZeroing = false;
  private zeros: Buffer | null = null;
  /** Pieces of zeros written (tests and bench:journal count them). */
  zeroWrites = 0;

  /** Whether a batch or a piece of zeros is being written, or a pause is being waited for to write zeros in. */
  get busy(): boolean {
    return this.writing || this.zeroing || this.idleCheck;
  }

  constructor(
    private readonly dir: string,
    private readonly syncMode: SyncMode,
    private readonly segmentBytesMax = defaultSegmentBytesMax,
    private readonly zeroAheadBytes = syncMode === 'sync' ? defaultZeroAheadBytes : 0,
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
    // The reader has checked that whatever lies past the frames is zeros (reader.ts).
    this.fileBytes = Math.max(sizeBytes, fstatSync(this.fd).size);
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
    this.fileBytes = header.length;
    return fd;
  }

  /** Appends a batch; in sync mode it is on disk when this returns (O_DSYNC). */
  appendSync(bytes: Uint8Array, firstSeq: number): void {
    if (this.zeroing) throw new Error('appendSync while zeros are being written ahead (a writer uses append or appendSync, not both)');
    const fd = this.target(firstSeq, bytes.length);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, this.segmentBytes + written);
    this.segmentBytes += bytes.length;
    this.bytesWritten += bytes.length;
    this.fileBytes = Math.max(this.fileBytes, this.segmentBytes);
  }

  /**
   * Appends a batch without blocking the thread: the (O_DSYNC) write runs on libuv's pool. The caller must
   * not touch `bytes` until `done` is called, and must not start another append before then. When `done`
   * returns without a next append, the writer uses the pause to write zeros ahead.
   */
  append(bytes: Uint8Array, firstSeq: number, done: (error: Error | null) => void): void {
    // While zeros are being written ahead, a batch goes on only if it lands wholly before them in this
    // segment; one that would reach them, or roll (closing this segment), waits for them.
    if (this.zeroing && !(this.fd !== -1 && this.segmentBytes + bytes.length <= Math.min(this.fileBytes, this.segmentBytesMax))) {
      this.waiting = () => this.append(bytes, firstSeq, done);
      return;
    }
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
    this.fileBytes = Math.max(this.fileBytes, this.segmentBytes);
    this.writing = true;
    let written = 0;
    const writeRest = (): void => {
      write(fd, bytes, written, bytes.length - written, position + written, (error, count) => {
        if (!error) written += count;
        if (!error && written < bytes.length) return writeRest();
        this.writing = false;
        done(error);
        if (!error && !this.writing) this.zeroWhenIdle();
      });
    };
    writeRest();
  }

  /**
   * After a batch, once the event loop has had its turn without another: starts filling zeros again when
   * less than half of `zeroAheadBytes` is left past the frames (the pieces then go on up to all of it).
   */
  private zeroWhenIdle(): void {
    if (this.idleCheck || this.zeroAheadBytes <= 0 || this.zeroFailed) return;
    if (this.fileBytes - this.segmentBytes >= this.zeroAheadBytes / 2) return;
    this.idleCheck = true;
    setImmediate(() => {
      this.idleCheck = false;
      if (!this.writing && this.fileBytes - this.segmentBytes < this.zeroAheadBytes / 2) this.zeroAhead();
    });
  }

  /** The next piece of zeros, while the open segment's zeros reach less than `zeroAheadBytes` past its frames. */
  private zeroRange(): { start: number; length: number } | null {
    if (this.zeroAheadBytes <= 0 || this.zeroFailed || this.fd === -1) return null;
    const start = this.fileBytes;
    const length = Math.min(zeroPieceBytes, this.segmentBytes + this.zeroAheadBytes - start, this.segmentBytesMax - start);
    return length > 0 ? { start, length } : null;
  }

  /** Writes zeros past the frames on libuv's pool, a piece at a time, for as long as no batch comes. */
  private zeroAhead(): void {
    if (this.zeroing) return;
    const range = this.zeroRange();
    if (range === null) return;
    const fd = this.fd;
    const zeros = (this.zeros ??= Buffer.alloc(zeroPieceBytes));
    this.zeroing = true;
    let written = 0;
    const writeRest = (): void => {
      write(fd, zeros, written, range.length - written, range.start + written, (error, count) => {
        if (!error) written += count;
        if (!error && written < range.length) return writeRest();
        this.zeroing = false;
        this.zeroWrites++;
        if (error) this.zeroFailed = true;
        else if (fd === this.fd) this.fileBytes = Math.max(this.fileBytes, range.start + range.length);
        if (this.closeAfterZeroing) {
          this.closeAfterZeroing = false;
          closeSync(fd);
        }
        const waiting = this.waiting;
        this.waiting = null;
        if (waiting !== null) waiting();
        else if (!this.writing) this.zeroAhead();
      });
    };
    writeRest();
  }

  /**
   * Syncs and closes the open segment, cut to its frames. Zeros still being written keep the descriptor
   * open until they are done (the segment then ends in zeros, which the reader takes as its end).
   */
  close(): void {
    if (this.fd === -1) return;
    if (this.zeroing) {
      fdatasyncSync(this.fd);
      this.closeAfterZeroing = true;
    } else {
      if (this.fileBytes > this.segmentBytes) ftruncateSync(this.fd, this.segmentBytes);
      fdatasyncSync(this.fd);
      closeSync(this.fd);
    }
    this.fd = -1;
    this.segmentBytes = 0;
    this.fileBytes = 0;
  }
}
