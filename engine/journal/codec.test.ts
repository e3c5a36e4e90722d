/** Frames round-trip every command kind; torn, corrupt and oversized frames are told apart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { Encoder } from '@msgpack/msgpack';
import type { Command } from '../core/commands.ts';
import { noSlot } from '../core/order-store.ts';
import { Engine } from '../core/engine.ts';
import { CommandGenerator } from '../core/sim/generator.ts';
import { loadMarkets } from '../runtime/markets.ts';
import {
  FrameDecoder,
  FrameEncoder,
  FrameStatus,
  JournalFormatError,
  decodeSegmentHeader,
  encodeSegmentHeader,
  frameBytesMax,
  journalFormatVersion,
} from './codec.ts';

const markets = loadMarkets();

function generated(count: number): Command[] {
  const engine = new Engine({ markets });
  const generator = new CommandGenerator({ seed: 5, markets, oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot } });
  const commands = generator.fundingCommands();
  while (commands.length < count) {
    const command = generator.next();
    engine.apply(command);
    commands.push(command);
  }
  return commands;
}

test('every generated command survives encode and decode unchanged', () => {
  const commands = generated(20_000);
  const encoder = new FrameEncoder(64);
  for (const command of commands) assert.ok(encoder.append(command) > 0);
  assert.equal(encoder.frames, commands.length);
  const decoder = new FrameDecoder(encoder.bytes());
  const decoded: Command[] = [];
  for (let command = decoder.next(); command !== null; command = decoder.next()) decoded.push(command);
  assert.equal(decoder.status, FrameStatus.ok);
  assert.deepEqual(decoded, commands);
  const kinds = new Set(decoded.map((command) => command.kind));
  assert.equal(kinds.size, 8, 'all eight command kinds were encoded');
});

test('a torn tail is incomplete; a flipped byte is corrupt; the offset stops before the bad frame', () => {
  const commands = generated(100);
  const encoder = new FrameEncoder();
  for (const command of commands) encoder.append(command);
  const whole = Buffer.from(encoder.bytes());

  const torn = whole.subarray(0, whole.length - 3);
  const tornDecoder = new FrameDecoder(torn);
  let count = 0;
  while (tornDecoder.next() !== null) count++;
  assert.equal(count, commands.length - 1);
  assert.equal(tornDecoder.status, FrameStatus.incomplete);

  const flipped = Buffer.from(whole);
  flipped[Math.floor(whole.length / 2)]! ^= 0x40;
  const flippedDecoder = new FrameDecoder(flipped);
  count = 0;
  while (flippedDecoder.next() !== null) count++;
  assert.ok(count < commands.length);
  assert.equal(flippedDecoder.status, FrameStatus.corrupt);
  assert.ok(flippedDecoder.offset < Math.floor(whole.length / 2));
});

test('lengths are checked before anything is allocated; frames with valid CRC but bad content are corrupt', () => {
  const huge = Buffer.alloc(16);
  huge.writeUInt32LE(frameBytesMax + 1, 0);
  const decoder = new FrameDecoder(huge);
  assert.equal(decoder.next(), null);
  assert.equal(decoder.status, FrameStatus.corrupt);
  assert.match(decoder.problem, /frame length/);

  const payload = new Encoder().encode([99, 1, 1]);
  const frame = Buffer.alloc(8 + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  frame.set(payload, 8);
  const unknown = new FrameDecoder(frame);
  assert.equal(unknown.next(), null);
  assert.equal(unknown.status, FrameStatus.corrupt);
  assert.match(unknown.problem, /unknown command kind 99/);
});

test('an oversized command is refused by the encoder, not grown', () => {
  const encoder = new FrameEncoder();
  const orders = Array.from({ length: 200 }, (_, index) => ({
    orderId: index + 1, userId: 1, mode: 0 as const, pairId: 1, side: 0 as const, orderType: 0 as const, timeInForce: 0 as const,
    priceTicks: 1, stopPriceTicks: 0, quantityLots: 1, postOnly: false, selfTradePrevention: 0 as const, clientOrderId: 'x'.repeat(200),
  }));
  assert.equal(encoder.append({ kind: 7, seq: 1, ts: 1, orders }), -1);
  assert.equal(encoder.length, 0);
});

test('segment headers carry the format version and first seq', () => {
  assert.equal(decodeSegmentHeader(encodeSegmentHeader(12345), 'x'), 12345);
  const newer = encodeSegmentHeader(1);
  newer.writeUInt16LE(journalFormatVersion + 1, 4);
  assert.throws(() => decodeSegmentHeader(newer, 'seg'), (error: unknown) => error instanceof JournalFormatError && /format version 2/.test(error.message));
  assert.throws(() => decodeSegmentHeader(Buffer.from('not a journal at all'), 'seg'), /bad magic/);
});
