/** Frames round-trip every command kind; torn, corrupt and oversized frames are told apart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { Encoder, decode } from '@msgpack/msgpack';
import { CommandKind, type Command, type OrderRequest, type PlaceScale, type StartTwap, type WithdrawTo } from '../core/commands.ts';
import { withdrawAddressCharsMax, withdrawReferenceCharsMax } from '../core/limits.ts';
import { noSlot } from '../core/order-store.ts';
import { Engine } from '../core/engine.ts';
import { CommandGenerator } from '../core/sim/generator.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';
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
  segmentFormatVersion,
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
    case 9:
      return [9, command.seq, command.ts, command.userId, command.assetId, command.amountAtoms, command.chainId, command.address, command.reference];
    case 10:
      return [10, command.seq, command.ts, command.pairId, command.poolId, command.chainId, command.version, command.bidPriceTicks, command.bidLots, command.askPriceTicks, command.askLots];
    case 11:
      return [11, command.seq, command.ts, command.userId, command.assetIds, command.amountsAtoms];
    case 12:
      return [12, command.seq, command.ts];
    case 13:
      return [13, command.seq, command.ts, command.twapId, command.userId, command.mode, command.pairId, command.side, command.quantityLots, command.limitPriceTicks, command.durationMs, command.intervalMs];
    case 14:
      return [14, command.seq, command.ts, command.userId, command.mode, command.twapId];
    case 15:
      return [15, command.seq, command.ts];
    case 16:
      return [16, command.seq, command.ts, command.scaleId, command.orders.map(order)];
    case 17:
      // A domain command: its fields as its codec documents them (only the prices domain so far).
      return [17, command.seq, command.ts, command.type, 1, ...Object.values(command.body as Record<string, unknown>)];
  }
}

function generated(count: number): Command[] {
  const engine = new Engine({ markets, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 5, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
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
  assert.equal(kinds.size, Object.keys(CommandKind).length, 'every command kind was encoded');
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

/** Encodes and decodes commands through frames; the decoder must stop cleanly after them. */
function roundTrip(commands: Command[]): Command[] {
  const encoder = new FrameEncoder();
  for (const command of commands) assert.ok(encoder.append(command) > 0);
  const decoder = new FrameDecoder(encoder.bytes());
  const decoded: Command[] = [];
  for (let command = decoder.next(); command !== null; command = decoder.next()) decoded.push(command);
  assert.equal(decoder.status, FrameStatus.ok, decoder.problem);
  return decoded;
}

function withdrawTo(fields: Partial<WithdrawTo>): WithdrawTo {
  return { kind: CommandKind.withdrawTo, seq: 7, ts: 1_767_225_600_123, userId: 3, assetId: 2, amountAtoms: 2 ** 53 - 1, chainId: 4, address: '0xabc', reference: '', ...fields };
}

test('a withdrawal to an address round-trips, with strings at the engine s limits and at the format s', () => {
  const commands = [
    withdrawTo({}),
    withdrawTo({ chainId: 255, address: 'A'.repeat(withdrawAddressCharsMax), reference: 'r'.repeat(withdrawReferenceCharsMax) }),
    // Non-ASCII of two, three and four UTF-8 bytes (the last a surrogate pair, two UTF-16 units).
    withdrawTo({ address: 'é'.repeat(withdrawAddressCharsMax), reference: '出金'.repeat(withdrawReferenceCharsMax / 2) }),
    withdrawTo({ address: '💸'.repeat(withdrawAddressCharsMax / 2), reference: `ref-é-出-💸` }),
    // The format leaves room above the engine's limits (256 UTF-16 units), so a command the engine would
    // refuse by its own code is still journaled faithfully when asked.
    withdrawTo({ address: '出'.repeat(256), reference: '💸'.repeat(128) }),
  ];
  assert.deepEqual(roundTrip(commands), commands);
  const encoder = new FrameEncoder();
  encoder.append(commands[0]!);
  assert.deepEqual(decode(encoder.bytes().subarray(8)), [9, 7, 1_767_225_600_123, 3, 2, 2 ** 53 - 1, 4, '0xabc', '']);
});

test('a withdrawal to an address over the format s limits or with malformed text cannot be journaled', () => {
  const encoder = new FrameEncoder();
  assert.equal(encoder.append(withdrawTo({ address: 'a'.repeat(257) })), -2);
  assert.equal(encoder.append(withdrawTo({ reference: 'a'.repeat(257) })), -2);
  assert.equal(encoder.append(withdrawTo({ reference: '💸'.repeat(128) + 'x' })), -2);
  assert.equal(encoder.append(withdrawTo({ chainId: 1.5 })), -2);
  assert.equal(encoder.append(withdrawTo({ amountAtoms: 2 ** 53 })), -2);
  // A lone surrogate would come back as U+FFFD, a different reference: refused rather than changed.
  assert.equal(encoder.append(withdrawTo({ reference: 'ref-\ud800' })), -2);
  assert.equal(encoder.append(withdrawTo({ address: '\udc00abc' })), -2);
  assert.equal(encoder.length, 0);

  // A frame written by another encoder with an overlong string is refused by the decoder.
  const payload = new Encoder().encode([9, 1, 1, 3, 2, 5, 1, 'a'.repeat(257), '']);
  const frame = Buffer.alloc(8 + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  frame.set(payload, 8);
  const decoder = new FrameDecoder(frame);
  assert.equal(decoder.next(), null);
  assert.equal(decoder.status, FrameStatus.corrupt);
  assert.match(decoder.problem, /address is too long/);

  const short = new Encoder().encode([9, 1, 1, 3, 2, 5, 1, 'a']);
  const shortFrame = Buffer.alloc(8 + short.length);
  shortFrame.writeUInt32LE(short.length, 0);
  shortFrame.writeUInt32LE(crc32(short), 4);
  shortFrame.set(short, 8);
  const shortDecoder = new FrameDecoder(shortFrame);
  assert.equal(shortDecoder.next(), null);
  assert.match(shortDecoder.problem, /withdrawTo has 8 fields, expected 9/);
});

test('segment headers carry the format version and first seq; versions 1 to 6 are read, newer refused', () => {
  assert.equal(journalFormatVersion, 6);
  assert.equal(decodeSegmentHeader(encodeSegmentHeader(12345), 'x'), 12345);
  assert.equal(segmentFormatVersion(encodeSegmentHeader(12345), 'x'), 6);
  for (const version of [1, 2, 3, 4, 5]) {
    assert.equal(decodeSegmentHeader(encodeSegmentHeader(678, version), 'x'), 678);
    assert.equal(segmentFormatVersion(encodeSegmentHeader(678, version), 'x'), version);
  }
  for (const version of [0, 7]) {
    assert.throws(
      () => decodeSegmentHeader(encodeSegmentHeader(1, version), 'seg'),
      (error: unknown) => error instanceof JournalFormatError && new RegExp(`seg: journal format version ${version}; this build reads version 6`).test(error.message),
    );
  }
  assert.throws(() => decodeSegmentHeader(Buffer.from('not a journal at all'), 'seg'), /bad magic/);
});

test('TWAP, timer and scale commands round-trip with numbers at their edges, positionally', () => {
  const twap: StartTwap = {
    kind: CommandKind.startTwap, seq: 9, ts: 1_767_225_600_000, twapId: 2 ** 53 - 1, userId: 2 ** 48 - 1, mode: 1, pairId: 3, side: 1,
    quantityLots: 123_456_789, limitPriceTicks: 0, durationMs: 7 * 24 * 3_600_000, intervalMs: 1_000,
  };
  const order = (orderId: number, priceTicks: number): OrderRequest => ({
    orderId, userId: 4, mode: 0, pairId: 1, side: 0, orderType: 0, timeInForce: 0, priceTicks, stopPriceTicks: 0, quantityLots: 7, postOnly: false, selfTradePrevention: 0, clientOrderId: '',
  });
  const scale: PlaceScale = { kind: CommandKind.placeScale, seq: 12, ts: 5, scaleId: 77, orders: Array.from({ length: 50 }, (_, index) => order(1000 + index, 300_000 - index)) };
  const commands: Command[] = [
    twap,
    { ...twap, seq: 10, limitPriceTicks: 299_999, mode: 0, side: 0 },
    { kind: CommandKind.cancelTwap, seq: 11, ts: 3, userId: 4, mode: 1, twapId: 5 },
    { kind: CommandKind.runTimers, seq: 12, ts: 4 },
    scale,
  ];
  assert.deepEqual(roundTrip(commands), commands);
  const encoder = new FrameEncoder();
  for (const command of commands) encoder.append(command);
  const bytes = Buffer.from(encoder.bytes());
  let offset = 0;
  for (const command of commands) {
    const length = bytes.readUInt32LE(offset);
    assert.deepEqual(decode(bytes.subarray(offset + 8, offset + 8 + length)), commandAsArray(command));
    offset += 8 + length;
  }
  assert.equal(new FrameEncoder().append({ ...twap, intervalMs: 0.5 }), -2);
  assert.equal(new FrameEncoder().append({ ...scale, orders: Array.from({ length: 201 }, (_, index) => order(index + 1, 1)) }), -2);
});
