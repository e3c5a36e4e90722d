/**
 * The reader takes a segment in chunks (reader.ts): frames cut by a chunk's end are read whole, a torn
 * tail is found at its file offset, and corruption in a later chunk names the file offset of its frame.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandKind, type Command, type Deposit } from '../core/commands.ts';
import { FrameEncoder, frameHeaderBytes, segmentHeaderBytes } from './codec.ts';
import { JournalCorruptError, readJournal } from './reader.ts';
import { listSegments, SegmentWriter } from './segments.ts';

/** Commands enough for several chunks (about 4.4 MB), with frame sizes that vary so boundaries cut frames anywhere. */
const commandCount = 150_000;

function deposit(seq: number): Deposit {
  // Amounts of 1 to 9 digits give frames of different lengths.
  return { kind: CommandKind.deposit, seq, ts: 1_767_225_600_000 + seq, userId: 1 + (seq % 97), mode: 0, assetId: 1, amountAtoms: (seq * 7919) % 10 ** (1 + (seq % 9)) + 1 };
}

/** Writes the commands into one segment; returns the directory and each frame's file offset. */
function writeJournal(): { dir: string; offsets: number[] } {
  const dir = mkdtempSync(join(tmpdir(), 'reader-test-'));
  const writer = new SegmentWriter(dir, 'none');
  const encoder = new FrameEncoder(8 << 20);
  const offsets: number[] = [];
  let at = segmentHeaderBytes;
  for (let seq = 1; seq <= commandCount; seq++) {
    offsets.push(at);
    at += encoder.append(deposit(seq));
  }
  writer.appendSync(encoder.bytes(), 1);
  writer.close();
  return { dir, offsets };
}

test('every frame of a multi-chunk segment is read once, in order, equal to what was written', () => {
  const { dir } = writeJournal();
  try {
    const read: Command[] = [];
    const summary = readJournal(dir, (command) => read.push(command));
    assert.equal(summary.commands, commandCount);
    assert.equal(summary.lastSeq, commandCount);
    const segment = listSegments(dir)[0]!;
    assert.ok(statSync(segment.path).size > 3 << 20, 'the segment spans several chunks');
    assert.equal(summary.lastSegmentBytes, statSync(segment.path).size);
    for (let index = 0; index < commandCount; index++) assert.deepEqual(read[index], deposit(index + 1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reading after a seq and up to a seq takes exactly that range across chunks', () => {
  const { dir } = writeJournal();
  try {
    const seqs: number[] = [];
    const summary = readJournal(dir, (command) => seqs.push(command.seq), { afterSeq: 31_000, toSeq: 137_777 });
    assert.equal(seqs.length, 137_777 - 31_000);
    assert.equal(seqs[0], 31_001);
    assert.equal(seqs.at(-1), 137_777);
    assert.equal(summary.lastSeq, 137_777);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a torn last frame is reported at its file offset and cut off when asked', () => {
  const { dir } = writeJournal();
  try {
    const path = listSegments(dir)[0]!.path;
    const whole = statSync(path).size;
    // Half of one more frame: a length and CRC, then fewer bytes than the length says.
    const torn = new Uint8Array(frameHeaderBytes + 3);
    torn[0] = 40;
    appendFileSync(path, torn);
    const told: Array<[string, number]> = [];
    const summary = readJournal(dir, () => {}, { truncateTornTail: true, onTornTail: (segment, offset) => told.push([segment, offset]) });
    assert.equal(summary.commands, commandCount);
    assert.deepEqual(told, [[listSegments(dir)[0]!.name, whole]]);
    assert.equal(summary.lastSegmentBytes, whole);
    assert.equal(statSync(path).size, whole);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flipped byte in a later chunk stops reading with the file offset and seq of its frame', () => {
  const { dir, offsets } = writeJournal();
  try {
    const path = listSegments(dir)[0]!.path;
    const bytes = readFileSync(path);
    // A frame well past the first chunk (1 MiB): its payload's first byte.
    const seq = 120_001;
    const frameAt = offsets[seq - 1]!;
    assert.ok(frameAt > 2 << 20);
    bytes[frameAt + frameHeaderBytes] = bytes[frameAt + frameHeaderBytes]! ^ 0xff;
    writeFileSync(path, bytes);
    let last = 0;
    assert.throws(
      () => readJournal(dir, (command) => (last = command.seq)),
      (error: unknown) => error instanceof JournalCorruptError && error.offset === frameAt && error.seq === seq && /CRC mismatch/.test(error.message),
    );
    assert.equal(last, seq - 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('frames a snapshot covers are stepped over unbuilt, yet a flipped byte among them still stops reading', () => {
  const { dir, offsets } = writeJournal();
  try {
    const seqs: number[] = [];
    const summary = readJournal(dir, (command) => seqs.push(command.seq), { afterSeq: 120_000 });
    assert.equal(summary.commands, commandCount - 120_000);
    assert.equal(seqs[0], 120_001);
    assert.deepEqual(seqs.slice(0, 3), [120_001, 120_002, 120_003]);
    const path = listSegments(dir)[0]!.path;
    const bytes = readFileSync(path);
    const seq = 90_001;
    const frameAt = offsets[seq - 1]!;
    bytes[frameAt + frameHeaderBytes + 2] = bytes[frameAt + frameHeaderBytes + 2]! ^ 0x01;
    writeFileSync(path, bytes);
    assert.throws(
      () => readJournal(dir, () => assert.fail('nothing after the snapshot is reached'), { afterSeq: 120_000 }),
      (error: unknown) => error instanceof JournalCorruptError && error.offset === frameAt && error.seq === seq && /CRC mismatch/.test(error.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
