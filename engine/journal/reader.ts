/**
 * Reading a journal back: segments in seq order, frames in each, with seq continuity checked across the
 * whole journal. A torn tail (the last frame of the last segment cut short or half written by a crash) is
 * cut off when the caller allows it; any other bad frame or gap stops with an error that names the
 * segment, the byte offset and the seq.
 */
import { readFileSync, truncateSync } from 'node:fs';
import type { Command } from '../core/commands.ts';
import { FrameDecoder, FrameStatus, decodeSegmentHeader, segmentFormatVersion, segmentHeaderBytes } from './codec.ts';
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
 * Reads every frame after `afterSeq` from a journal directory (or one segment file) and hands it on with
 * the format version of its segment (the rules it was written under: see journal/rules.ts).
 */
export function readJournal(source: string | SegmentFile[], onCommand: (command: Command, formatVersion: number) => void, options: ReadOptions = {}): ReadSummary {
  const segments = typeof source === 'string' ? listSegments(source) : source;
  const afterSeq = options.afterSeq ?? 0;
  const toSeq = options.toSeq ?? Number.MAX_SAFE_INTEGER;
  const summary: ReadSummary = { lastSeq: afterSeq, commands: 0, bytes: 0, lastSegment: null, lastSegmentBytes: 0, lastSegmentFormatVersion: 0 };
  let expected = -1;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const isLast = index === segments.length - 1;
    // A segment wholly covered by the snapshot is skipped unread, when the next one starts early enough.
    const next = segments[index + 1];
    if (next !== undefined && next.firstSeq <= afterSeq + 1) continue;
    const bytes = readFileSync(segment.path);
    options.onSegment?.(segment, bytes.length);
    const firstSeq = decodeSegmentHeader(bytes, segment.name);
    if (firstSeq !== segment.firstSeq) {
      throw new JournalCorruptError(`${segment.name}: header says first seq ${firstSeq}`, segment.name, 0, firstSeq);
    }
    summary.lastSegment = segment;
    summary.lastSegmentBytes = bytes.length;
    const formatVersion = segmentFormatVersion(bytes, segment.name);
    summary.lastSegmentFormatVersion = formatVersion;
    const decoder = new FrameDecoder(bytes, segmentHeaderBytes);
    let frameStart = decoder.offset;
    for (let command = decoder.next(); command !== null; command = decoder.next()) {
      const seq = command.seq;
      if (expected === -1) {
        if (seq > afterSeq + 1) {
          throw new JournalCorruptError(`${segment.name}@${frameStart}: journal starts at seq ${seq}, expected ${afterSeq + 1} or earlier`, segment.name, frameStart, seq);
        }
      } else if (seq !== expected) {
        throw new JournalCorruptError(`${segment.name}@${frameStart}: seq ${seq} where ${expected} was expected`, segment.name, frameStart, seq);
      }
      expected = seq + 1;
      if (seq > afterSeq) {
        if (seq > toSeq) return summary;
        onCommand(command, formatVersion);
        summary.lastSeq = seq;
        summary.commands++;
        summary.bytes += decoder.offset - frameStart;
      }
      frameStart = decoder.offset;
    }
    if (decoder.status === FrameStatus.ok) continue;
    const tornTail =
      isLast && (decoder.status === FrameStatus.incomplete || (decoder.badFrameEnd !== -1 && decoder.badFrameEnd === bytes.length));
    if (!tornTail) {
      throw new JournalCorruptError(
        `${segment.name}@${decoder.offset}: ${decoder.problem} after seq ${expected === -1 ? afterSeq : expected - 1}`,
        segment.name,
        decoder.offset,
        expected === -1 ? afterSeq + 1 : expected,
      );
    }
    options.onTornTail?.(segment.name, decoder.offset, decoder.problem);
    if (options.truncateTornTail) truncateSync(segment.path, decoder.offset);
    summary.lastSegmentBytes = decoder.offset;
  }
  return summary;
}
