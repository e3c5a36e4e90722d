/**
 * Reading a journal back: segments in seq order, frames in each, with seq continuity checked across the
 * whole journal. A segment's frames end at its file's end or at a zero frame header followed by nothing but
 * zeros (the writer keeps a synced segment filled with zeros ahead of its frames: segments.ts). A torn
 * tail (the last frame of the last segment cut short or half written by a crash, with nothing but zeros
 * after it) is cut off when the caller allows it; any other bad frame or gap stops with an error that
 * names the segment, the byte offset and the seq.
 */
import { closeSync, fstatSync, openSync, readSync, truncateSync } from 'node:fs';
import type { Command } from '../core/commands.ts';
import { FrameDecoder, FrameStatus, decodeSegmentHeader, frameBytesMax, frameHeaderBytes, segmentFormatVersion, segmentHeaderBytes } from './codec.ts';
import { listSegments, type SegmentFile } from './segments.ts';

export class JournalCorruptError extends Error {
  constructor(
    message: string,
    readonly segment: string,
    readonly offset: number,
    readonly seq: number,
  ) {
    super(message);
    this.name = 'JournalCorruptError';
  }
}

export interface ReadOptions {
  /** Frames up to and including this seq are skipped (a snapshot covers them). */
  readonly afterSeq?: number;
  /** Stop after this seq. */
  readonly toSeq?: number;
  /** Cut a torn tail off the last segment (recovery); otherwise a torn tail ends reading quietly. */
  readonly truncateTornTail?: boolean;
  /** Told about a torn tail. */
  readonly onTornTail?: (segment: string, offset: number, problem: string) => void;
  /** Told about each segment as reading starts it (progress). */
  readonly onSegment?: (segment: SegmentFile, bytes: number) => void;
}

export interface ReadSummary {
  /** Seq of the last frame read (or `afterSeq` when none was). */
  lastSeq: number;
  commands: number;
  bytes: number;
  /** The last segment and the byte length of its valid part, for a writer that continues it. */
  lastSegment: SegmentFile | null;
  lastSegmentBytes: number;
  /** The format version in the last segment's header (0 when there is none). */
  lastSegmentFormatVersion: number;
}

/**
 * Bytes read from a segment at a time, into one buffer reused for every chunk. Reading a whole segment
 * (up to 64 MiB) at once left its bytes to fall out of the caches long before the frames were decoded: on
 * the replay of a generated journal, the first touch of each frame (its CRC) was an eighth of the time.
 * A chunk is decoded right after the kernel has copied it in, while it is still cached. Chosen with the
 * replay of a 1 M-command generated journal (esbuild bundles of scripts/replay.ts, five runs each in
 * turns, medians): whole segment 280 k events/s; chunks of 64 KiB 321 k, 256 KiB 326 k, 1 MiB 331 k,
 * 4 MiB 328 k.
 */
const chunkBytes = 1 << 20;

/** Whether every byte of the file from `from` to `end` is zero (read in pieces into `scratch`). */
function zerosFrom(fd: number, from: number, end: number, scratch: Buffer): boolean {
  for (let at = from; at < end; ) {
    const count = readSync(fd, scratch, 0, Math.min(scratch.length, end - at), at);
    if (count === 0) return true;
    for (let index = 0; index < count; index++) if (scratch[index] !== 0) return false;
    at += count;
  }
  return true;
}

/**
 * Reads every frame after `afterSeq` from a journal directory (or one segment file) and hands it on with
 * the format version of its segment (the rules it was written under: see journal/rules.ts).
 */
export function readJournal(source: string | SegmentFile[], onCommand: (command: Command, formatVersion: number) => void, options: ReadOptions = {}): ReadSummary {
  const segments = typeof source === 'string' ? listSegments(source) : source;
  const afterSeq = options.afterSeq ?? 0;
  const toSeq = options.toSeq ?? Number.MAX_SAFE_INTEGER;
  const summary: ReadSummary = { lastSeq: afterSeq, commands: 0, bytes: 0, lastSegment: null, lastSegmentBytes: 0, lastSegmentFormatVersion: 0 };
  // A frame cut by a chunk's end is carried to the next chunk's start, so a chunk holds a whole frame.
  const buffer = Buffer.allocUnsafe(Math.max(chunkBytes, 2 * (frameHeaderBytes + frameBytesMax)));
  const scratch = Buffer.allocUnsafe(64 * 1024);
  let expected = -1;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const isLast = index === segments.length - 1;
    // A segment wholly covered by the snapshot is skipped unread, when the next one starts early enough.
    const next = segments[index + 1];
    if (next !== undefined && next.firstSeq <= afterSeq + 1) continue;
    const fd = openSync(segment.path, 'r');
    try {
      const fileBytes = fstatSync(fd).size;
      options.onSegment?.(segment, fileBytes);
      const headerBytes = readSync(fd, buffer, 0, Math.min(segmentHeaderBytes, fileBytes), 0);
      const header = buffer.subarray(0, headerBytes);
      const firstSeq = decodeSegmentHeader(header, segment.name);
      if (firstSeq !== segment.firstSeq) {
        throw new JournalCorruptError(`${segment.name}: header says first seq ${firstSeq}`, segment.name, 0, firstSeq);
      }
      summary.lastSegment = segment;
      summary.lastSegmentBytes = fileBytes;
      const formatVersion = segmentFormatVersion(header, segment.name);
      summary.lastSegmentFormatVersion = formatVersion;
      // The file offset of buffer[0], and how many bytes of a cut frame the buffer starts with.
      let chunkStart = segmentHeaderBytes;
      let carried = 0;
      for (;;) {
        const readBytes = readSync(fd, buffer, carried, buffer.length - carried, chunkStart + carried);
        const chunkEnd = chunkStart + carried + readBytes;
        const atEnd = chunkEnd >= fileBytes || readBytes === 0;
        const decoder = new FrameDecoder(buffer.subarray(0, carried + readBytes), 0);
        let frameStart = 0;
        for (;;) {
          // Frames the snapshot covers are stepped over without building their commands.
          let seq = afterSeq > 0 && (expected === -1 || expected <= afterSeq) ? decoder.skip(afterSeq) : -1;
          const command = seq === -1 ? decoder.next() : null;
          if (command !== null) seq = command.seq;
          else if (seq === -1) break;
          if (expected === -1) {
            if (seq > afterSeq + 1) {
              const at = chunkStart + frameStart;
              throw new JournalCorruptError(`${segment.name}@${at}: journal starts at seq ${seq}, expected ${afterSeq + 1} or earlier`, segment.name, at, seq);
            }
          } else if (seq !== expected) {
            const at = chunkStart + frameStart;
            throw new JournalCorruptError(`${segment.name}@${at}: seq ${seq} where ${expected} was expected`, segment.name, at, seq);
          }
          expected = seq + 1;
          if (command !== null && seq > afterSeq) {
            if (seq > toSeq) return summary;
            onCommand(command, formatVersion);
            summary.lastSeq = seq;
            summary.commands++;
            summary.bytes += decoder.offset - frameStart;
          }
          frameStart = decoder.offset;
        }
        if (decoder.status === FrameStatus.ok && atEnd) break;
        if (decoder.status === FrameStatus.ok || (decoder.status === FrameStatus.incomplete && !atEnd)) {
          // The chunk ended between frames or inside one: carry the cut frame over and read on.
          carried = carried + readBytes - decoder.offset;
          buffer.copyWithin(0, decoder.offset, decoder.offset + carried);
          chunkStart += decoder.offset;
          continue;
        }
        const stoppedAt = chunkStart + decoder.offset;
        // Nothing but zeros from here on: the zeros the writer keeps ahead of the frames, not a frame.
        if (zerosFrom(fd, stoppedAt, fileBytes, scratch)) {
          summary.lastSegmentBytes = stoppedAt;
          break;
        }
        const tornTail =
          isLast &&
          (decoder.status === FrameStatus.incomplete || (decoder.badFrameEnd !== -1 && zerosFrom(fd, chunkStart + decoder.badFrameEnd, fileBytes, scratch)));
        if (!tornTail) {
          throw new JournalCorruptError(
            `${segment.name}@${stoppedAt}: ${decoder.problem} after seq ${expected === -1 ? afterSeq : expected - 1}`,
            segment.name,
            stoppedAt,
            expected === -1 ? afterSeq + 1 : expected,
          );
        }
        options.onTornTail?.(segment.name, stoppedAt, decoder.problem);
        if (options.truncateTornTail) truncateSync(segment.path, stoppedAt);
        summary.lastSegmentBytes = stoppedAt;
        break;
      }
    } finally {
      closeSync(fd);
    }
  }
  return summary;
}
