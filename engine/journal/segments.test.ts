/**
 * Zeros ahead of the frames (segments.ts): a synced segment is kept filled with zeros past its last frame,
 * batches overwrite them, the reader takes the zeros as the segment's end, a crash inside the last batch
 * is a torn tail, and anything else past a zero header is corruption.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandKind, type Command, type Deposit } from '../core/commands.ts';
import { FrameEncoder, segmentHeaderBytes } from './codec.ts';
import { JournalCorruptError, readJournal } from './reader.ts';
import { listSegments, SegmentWriter } from './segments.ts';

const zeroAhead = 64 * 1024;

function deposit(seq: number): Deposit {
  return { kind: CommandKind.deposit, seq, ts: 1_767_225_600_000 + seq, userId: 1 + (seq % 31), mode: 0, assetId: 1, amountAtoms: 1_000 + seq };
}

/** One batch of `count` deposits from `firstSeq`, encoded as the sequencer encodes a batch. */
function batch(firstSeq: number, count: number): Uint8Array {
  const encoder = new FrameEncoder(1 << 20);
  for (let seq = firstSeq; seq < firstSeq + count; seq++) encoder.append(deposit(seq));
  return encoder.bytes().slice();
}

/** Appends batches of `perBatch` deposits through the asynchronous path, one at a time as the sequencer does. */
async function appendAll(writer: SegmentWriter, firstSeq: number, batches: number, perBatch: number): Promise<void> {
  for (let index = 0; index < batches; index++) {
    const seq = firstSeq + index * perBatch;
    await new Promise<void>((resolve, reject) => writer.append(batch(seq, perBatch), seq, (error) => (error === null ? resolve() : reject(error))));
  }
}

/** Waits for the writer to finish the zeros it writes in the pause after the last batch. */
async function quiet(writer: SegmentWriter): Promise<void> {
  for (let waited = 0; writer.busy; waited++) {
    assert.ok(waited < 2000, 'the writer went quiet');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A synced segment of `batches` batches of `perBatch` deposits, its zeros written: where its frames end. */
async function oneSegment(dir: string, batches: number, perBatch: number): Promise<{ framesEnd: number; path: string }> {
  const writer = new SegmentWriter(dir, 'sync', 64 << 20, zeroAhead);
  await appendAll(writer, 1, batches, perBatch);
  await quiet(writer);
  return { framesEnd: readAll(dir).summary.lastSegmentBytes, path: listSegments(dir)[0]!.path };
}

function readAll(dir: string, options: Parameters<typeof readJournal>[2] = {}): { seqs: number[]; summary: ReturnType<typeof readJournal> } {
  const seqs: number[] = [];
  const summary = readJournal(dir, (command: Command) => seqs.push(command.seq), options);
  return { seqs, summary };
}

function withDir(body: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'segments-test-'));
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'batches overwrite zeros kept ahead of them; the reader stops at the zeros without calling them torn',
  withDir(async (dir) => {
    const writer = new SegmentWriter(dir, 'sync', 64 << 20, zeroAhead);
    await appendAll(writer, 1, 40, 50);
    assert.equal(writer.zeroWrites, 0, 'no zeros between batches written back to back');
    await quiet(writer);
    const [segment] = listSegments(dir);
    const size = statSync(segment!.path).size;
    const torn: string[] = [];
    const { seqs, summary } = readAll(dir, { truncateTornTail: true, onTornTail: (name) => torn.push(name) });
    assert.deepEqual(seqs, Array.from({ length: 2000 }, (_, index) => index + 1));
    assert.ok(size > summary.lastSegmentBytes, 'zeros lie past the frames');
    assert.ok(size - summary.lastSegmentBytes <= zeroAhead, 'no more than the zeros ahead');
    assert.ok(writer.zeroWrites >= 1);
    assert.deepEqual(torn, []);
    assert.equal(statSync(segment!.path).size, size, 'the zeros are not cut off as a torn tail');
    const bytes = readFileSync(segment!.path);
    assert.ok(bytes.subarray(summary.lastSegmentBytes).every((byte) => byte === 0));
    // The next batches land on those zeros: the file does not grow.
    await appendAll(writer, 2001, 2, 50);
    assert.equal(statSync(segment!.path).size, size);
    assert.equal(readAll(dir).seqs.length, 2100);
    await quiet(writer);
    writer.close();
    assert.equal(statSync(segment!.path).size, readAll(dir).summary.lastSegmentBytes, 'a closed segment is cut to its frames');
  }),
);

test(
  'a writer resumed after a crash continues at the end of the frames, over the zeros',
  withDir(async (dir) => {
    const first = new SegmentWriter(dir, 'sync', 64 << 20, zeroAhead);
    await appendAll(first, 1, 10, 30);
    await quiet(first);
    // A crash: the first writer is never closed, so its zeros stay.
    const before = readAll(dir, { truncateTornTail: true });
    const segment = before.summary.lastSegment!;
    const resumed = new SegmentWriter(dir, 'sync', 64 << 20, zeroAhead);
    resumed.resume(segment.path, before.summary.lastSegmentBytes, before.summary.lastSegmentFormatVersion, segment.firstSeq);
    await appendAll(resumed, 301, 10, 30);
    await quiet(resumed);
    const { seqs } = readAll(dir);
    assert.deepEqual(seqs, Array.from({ length: 600 }, (_, index) => index + 1));
    resumed.close();
    assert.equal(readAll(dir).seqs.length, 600);
  }),
);

test(
  'rolling to a new segment cuts the old one to its frames; every frame is read across the roll',
  withDir(async (dir) => {
    const writer = new SegmentWriter(dir, 'sync', 96 * 1024, zeroAhead);
    await appendAll(writer, 1, 100, 60);
    await quiet(writer);
    const segments = listSegments(dir);
    assert.ok(segments.length >= 2, 'the writer rolled');
    for (const segment of segments.slice(0, -1)) {
      const size = statSync(segment.path).size;
      assert.ok(size <= 96 * 1024);
      const alone = readJournal([segment], () => {}, { afterSeq: segment.firstSeq - 1 });
      assert.equal(alone.lastSegmentBytes, size, `${segment.name} ends with its last frame`);
    }
    assert.deepEqual(readAll(dir).seqs, Array.from({ length: 6000 }, (_, index) => index + 1));
    writer.close();
  }),
);

test(
  'a last batch torn inside the zeros is cut off as a torn tail; the zeros after it go with it',
  withDir(async (dir) => {
    const { framesEnd, path } = await oneSegment(dir, 5, 20);
    // The last frame's final bytes never reached the disk: they read as the zeros they would have replaced.
    const bytes = readFileSync(path);
    bytes.fill(0, framesEnd - 4, framesEnd);
    writeFileSync(path, bytes);
    const told: number[] = [];
    const { seqs, summary } = readAll(dir, { truncateTornTail: true, onTornTail: (_segment, offset) => told.push(offset) });
    assert.deepEqual(seqs, Array.from({ length: 99 }, (_, index) => index + 1));
    assert.equal(told.length, 1);
    assert.equal(statSync(path).size, told[0]);
    assert.equal(summary.lastSegmentBytes, told[0]);
  }),
);

test(
  'anything but zeros after a zero frame header, or after a bad frame, is corruption, not an end',
  withDir(async (dir) => {
    const { framesEnd, path } = await oneSegment(dir, 3, 20);
    const clean = readFileSync(path);

    const stray = Buffer.from(clean);
    stray[framesEnd + 1000] = 7;
    writeFileSync(path, stray);
    assert.throws(() => readAll(dir, { truncateTornTail: true }), (error: unknown) => error instanceof JournalCorruptError && error.offset === framesEnd && error.seq === 61);
    assert.equal(statSync(path).size, clean.length, 'nothing was cut');

    // A flipped byte in the first frame, with good frames after it: corruption at that frame.
    const flipped = Buffer.from(clean);
    flipped[segmentHeaderBytes + 10]! ^= 0xff;
    writeFileSync(path, flipped);
    assert.throws(() => readAll(dir, { truncateTornTail: true }), (error: unknown) => error instanceof JournalCorruptError && error.offset === segmentHeaderBytes && error.seq === 1);
  }),
);

test(
  'a segment of frames only (written without zeros ahead) reads as before',
  withDir(async (dir) => {
    const writer = new SegmentWriter(dir, 'sync', 64 << 20, 0);
    await appendAll(writer, 1, 4, 25);
    await quiet(writer);
    const { seqs, summary } = readAll(dir);
    assert.equal(seqs.length, 100);
    assert.equal(summary.lastSegmentBytes, statSync(listSegments(dir)[0]!.path).size);
    assert.equal(writer.zeroWrites, 0);
    writer.close();
  }),
);
