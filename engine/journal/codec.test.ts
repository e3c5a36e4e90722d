/** Frames round-trip every command kind; torn, corrupt and oversized frames are told apart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { Encoder, decode } from '@msgpack/msgpack';
import type { Command, OrderRequest } from '../core/commands.ts';
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

/** The positional array of a command, written out independently of the codec. */
function commandAsArray(command: Command): unknown[] {
  const order = (o: OrderRequest): unknown[] => [o.orderId, o.userId, o.mode, o.pairId, o.side, o.orderType, o.timeInForce, o.priceTicks, o.stopPriceTicks, o.quantityLots, o.postOnly ? 1 : 0, o.selfTradePrevention, o.clientOrderId];
  switch (command.kind) {
    case 1:
      return [1, command.seq, command.ts, ...order(command)];
    case 2:
      return [2, command.seq, command.ts, command.userId, command.mode, command.orderId, command.clientOrderId];
    case 3:
      return [3, command.seq, command.ts, command.userId, command.mode, command.pairId];
    case 4:
      return [4, command.seq, command.ts, command.userId, command.mode, command.orderId, command.priceTicks, command.quantityLots];
    case 5:
    case 6:
      return [command.kind, command.seq, command.ts, command.userId, command.mode, command.assetId, command.amountAtoms];
    case 7:
      return [7, command.seq, command.ts, command.orders.map(order)];
    case 8:
      return [8, command.seq, command.ts, command.userId, command.mode, command.orderIds];
  }
}

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
  // The frame is written with the library's encoder: this reader reads standard msgpack.
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  frame.set(payload, 8);
  const unknown = new FrameDecoder(frame);
  assert.equal(unknown.next(), null);
  assert.equal(unknown.status, FrameStatus.corrupt);
  assert.match(unknown.problem, /unknown command kind 99/);
});

test('frames are standard msgpack both ways: the library decodes ours and we decode the library s', () => {
  const commands = generated(3000);
  const encoder = new FrameEncoder();
  const libraryEncoder = new Encoder();
  const libraryFrames: Buffer[] = [];
  for (const command of commands) {
    encoder.append(command);
    const payload = libraryEncoder.encode(commandAsArray(command));
    const frame = Buffer.alloc(8 + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    frame.writeUInt32LE(crc32(payload), 4);
    frame.set(payload, 8);
    libraryFrames.push(frame);
  }
  const ours = Buffer.from(encoder.bytes());
  let offset = 0;
  for (const command of commands) {
    const length = ours.readUInt32LE(offset);
    assert.deepEqual(decode(ours.subarray(offset + 8, offset + 8 + length)), commandAsArray(command));
    offset += 8 + length;
  }
  const decoder = new FrameDecoder(Buffer.concat(libraryFrames));
  const decoded: Command[] = [];
  for (let command = decoder.next(); command !== null; command = decoder.next()) decoded.push(command);
  assert.equal(decoder.status, FrameStatus.ok, decoder.problem);
  assert.deepEqual(decoded, commands);
});

test('a command with a number that is not a safe integer cannot be journaled', () => {
  const encoder = new FrameEncoder();
  assert.equal(encoder.append({ kind: 2, seq: 1, ts: 1, userId: 1.5, mode: 0, orderId: 3, clientOrderId: '' }), -2);
  assert.equal(encoder.append({ kind: 5, seq: 1, ts: 1, userId: 1, mode: 0, assetId: 1, amountAtoms: 2 ** 60 }), -2);
  assert.equal(encoder.length, 0);
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
