/**
 * Before a node opens its journal it makes the journal a prefix of the stream. A leader writes a batch
 * locally and publishes it at the same time, so a leader killed between the two can leave frames on its
 * disk that the stream never stored (no client was told of them: acknowledgements wait for both), and the
 * next leader has since written other frames at those seqs. Those local frames are cut off here; the node
 * then takes the stream's frames for those seqs like any other follower.
 *
 * Only frames after the newest snapshot are compared: a snapshot is written once its commands are
 * acknowledged, which (with acknowledgement `jetstream`) means they are in the stream. A snapshot ahead
 * of the stream (possible with acknowledgement `local`) cannot be cut back and stops the start.
 */
import { readFileSync, truncateSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { FrameDecoder, FrameStatus, segmentHeaderBytes } from '../../journal/codec.ts';
import { listSegments } from '../../journal/segments.ts';
import { listSnapshots } from '../../journal/snapshot-file.ts';
import type { JournalStream, StreamBatch } from './journal-stream.ts';

interface LocalFrame {
  readonly seq: number;
  readonly segment: string;
  readonly start: number;
  readonly bytes: Uint8Array;
}

/** The local journal's frames after `afterSeq`, with where each starts (a torn tail ends the list). */
function localFrames(journalDir: string, afterSeq: number): LocalFrame[] {
  const segments = listSegments(journalDir);
  const frames: LocalFrame[] = [];
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const next = segments[index + 1];
    if (next !== undefined && next.firstSeq <= afterSeq + 1) continue;
    const bytes = readFileSync(segment.path);
    const decoder = new FrameDecoder(bytes, segmentHeaderBytes);
    let start = decoder.offset;
    for (let command = decoder.next(); command !== null; command = decoder.next()) {
      if (command.seq > afterSeq) frames.push({ seq: command.seq, segment: segment.path, start, bytes: bytes.subarray(start, decoder.offset) });
      start = decoder.offset;
    }
  }
  return frames;
}

/** Walks the stream's frames in seq order from a given seq. */
class StreamFrames {
  private batch: StreamBatch | null = null;
  private decoder: FrameDecoder | null = null;

  constructor(
    private readonly stream: JournalStream,
    private streamSeq: number,
    private readonly tail: number,
  ) {}

  /** The frame bytes of `seq` in the stream, or null when the stream ends before it. */
  async frameOf(seq: number): Promise<Uint8Array | null> {
    for (;;) {
      if (this.batch === null || this.decoder === null) {
        if (this.streamSeq > this.tail) return null;
        this.batch = await this.stream.batchAt(this.streamSeq++);
        if (this.batch === null) return null;
        this.decoder = new FrameDecoder(this.batch.frames, 0);
      }
      const start = this.decoder.offset;
      const command = this.decoder.next();
      if (command === null) {
        if (this.decoder.status !== FrameStatus.ok) throw new Error(`journal stream message ${this.batch.streamSeq}: ${this.decoder.problem}`);
        this.batch = null;
        continue;
      }
      if (command.seq < seq) continue;
      if (command.seq > seq) return null;
      return this.batch.frames.subarray(start, this.decoder.offset);
    }
  }
}

/**
 * Cuts the local journal back to the longest prefix the stream holds. Returns the first seq cut off, or
 * null when nothing was.
 */
export async function reconcileJournal(dataDir: string, stream: JournalStream, log: (event: string, fields: Record<string, unknown>) => void): Promise<number | null> {
  const journalDir = join(dataDir, 'journal');
  const snapshotSeq = listSnapshots(join(dataDir, 'snapshots'))[0]?.seq ?? 0;
  const frames = localFrames(journalDir, snapshotSeq);
  const tail = await stream.tail();
  const last = tail === 0 ? null : await stream.batchAt(tail);
  const streamLastSeq = last?.lastSeq ?? 0;
  if (snapshotSeq > streamLastSeq) {
    throw new Error(`this node's snapshot at seq ${snapshotSeq} is ahead of the journal stream (last seq ${streamLastSeq}): it holds commands that were never replicated; rebuild its data directory from the stream`);
  }
  if (frames.length === 0) return null;
  const walker = new StreamFrames(stream, await stream.streamSeqOf(frames[0]!.seq), tail);
  let cut: LocalFrame | null = null;
  for (const frame of frames) {
    const theirs = await walker.frameOf(frame.seq);
    if (theirs === null || Buffer.compare(Buffer.from(theirs.buffer, theirs.byteOffset, theirs.length), Buffer.from(frame.bytes.buffer, frame.bytes.byteOffset, frame.bytes.length)) !== 0) {
      cut = frame;
      break;
    }
  }
  if (cut === null) return null;
  truncateSync(cut.segment, cut.start);
  for (const segment of listSegments(journalDir)) {
    if (segment.path !== cut.segment && segment.firstSeq > cut.seq) unlinkSync(segment.path);
  }
  log('journal_cut_to_stream', { from_seq: cut.seq, local_last_seq: frames[frames.length - 1]!.seq, stream_last_seq: streamLastSeq });
  return cut.seq;
}
