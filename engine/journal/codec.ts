/**
 * Journal frames and segment headers.
 *
 * A frame is `u32 payload length | u32 CRC32 of the payload | payload`, little-endian, where the payload
 * is the msgpack encoding of one command as a positional array: `[kind, seq, ts, ...fields]` in the
 * fixed field order of its kind (below). Arrays keep frames small and fast to decode; the order of the
 * fields is part of the format, so changing it means a new `journalFormatVersion`.
 *
 * A segment file starts with a 16-byte header: the magic `TPJL`, a u16 format version, a u16 of zero and
 * the u64 sequence number of the segment's first frame.
 *
 * Decoding checks lengths and limits before it allocates: a length beyond `frameBytesMax` is refused as
 * corrupt, never read.
 */
import { crc32 } from 'node:zlib';
import { Decoder, Encoder } from '@msgpack/msgpack';
import {
  CommandKind,
  type Command,
  type Mode,
  type OrderRequest,
  type OrderType,
  type SelfTradePrevention,
  type Side,
  type TimeInForce,
} from '../core/commands.ts';
import { defaultLimits } from '../core/limits.ts';

export const journalFormatVersion = 1;
export const segmentMagic = 0x4c4a5054; // "TPJL" read as a little-endian u32
export const segmentHeaderBytes = 16;
export const frameHeaderBytes = 8;
/** The largest payload a frame may carry; a batch of 10 orders with long client ids needs about 1 KiB. */
export const frameBytesMax = 16 * 1024;
const stringCharsMax = 256;

export class JournalFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JournalFormatError';
  }
}

// ---------------------------------------------------------------------------------------------------
// Commands as positional arrays.

function orderFields(order: OrderRequest): unknown[] {
  return [
    order.orderId,
    order.userId,
    order.mode,
    order.pairId,
    order.side,
    order.orderType,
    order.timeInForce,
    order.priceTicks,
    order.stopPriceTicks,
    order.quantityLots,
    order.postOnly ? 1 : 0,
    order.selfTradePrevention,
    order.clientOrderId,
  ];
}

export function commandToArray(command: Command): unknown[] {
  switch (command.kind) {
    case CommandKind.placeOrder:
      return [command.kind, command.seq, command.ts, ...orderFields(command)];
    case CommandKind.cancelOrder:
      return [command.kind, command.seq, command.ts, command.userId, command.mode, command.orderId, command.clientOrderId];
    case CommandKind.cancelAll:
      return [command.kind, command.seq, command.ts, command.userId, command.mode, command.pairId];
    case CommandKind.amendOrder:
      return [command.kind, command.seq, command.ts, command.userId, command.mode, command.orderId, command.priceTicks, command.quantityLots];
    case CommandKind.deposit:
    case CommandKind.withdraw:
      return [command.kind, command.seq, command.ts, command.userId, command.mode, command.assetId, command.amountAtoms];
    case CommandKind.placeBatch:
      return [command.kind, command.seq, command.ts, command.orders.map(orderFields)];
    case CommandKind.cancelBatch:
      return [command.kind, command.seq, command.ts, command.userId, command.mode, command.orderIds];
  }
}

/** Reads positional fields with type checks; any mismatch is a format error naming the field. */
class FieldReader {
  index = 0;
  constructor(
    private readonly values: readonly unknown[],
    private readonly what: string,
  ) {}

  integer(name: string): number {
    const value = this.values[this.index++];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new JournalFormatError(`${this.what}: ${name} is not an integer`);
    return value;
  }

  string(name: string): string {
    const value = this.values[this.index++];
    if (typeof value !== 'string' || value.length > stringCharsMax) throw new JournalFormatError(`${this.what}: ${name} is not a short string`);
    return value;
  }

  array(name: string, lengthMax: number): unknown[] {
    const value = this.values[this.index++];
    if (!Array.isArray(value) || value.length > lengthMax) throw new JournalFormatError(`${this.what}: ${name} is not a list of at most ${lengthMax}`);
    return value;
  }

  end(): void {
    if (this.index !== this.values.length) throw new JournalFormatError(`${this.what}: ${this.values.length} fields, expected ${this.index}`);
  }
}

function readOrder(reader: FieldReader): OrderRequest {
  return {
    orderId: reader.integer('orderId'),
    userId: reader.integer('userId'),
    mode: reader.integer('mode') as Mode,
    pairId: reader.integer('pairId'),
    side: reader.integer('side') as Side,
    orderType: reader.integer('orderType') as OrderType,
    timeInForce: reader.integer('timeInForce') as TimeInForce,
    priceTicks: reader.integer('priceTicks'),
    stopPriceTicks: reader.integer('stopPriceTicks'),
    quantityLots: reader.integer('quantityLots'),
    postOnly: reader.integer('postOnly') === 1,
    selfTradePrevention: reader.integer('selfTradePrevention') as SelfTradePrevention,
    clientOrderId: reader.string('clientOrderId'),
  };
}

export function arrayToCommand(value: unknown): Command {
  if (!Array.isArray(value) || value.length < 3) throw new JournalFormatError('frame: not a command array');
  const reader = new FieldReader(value, 'frame');
  const kind = reader.integer('kind');
  const seq = reader.integer('seq');
  const ts = reader.integer('ts');
  let command: Command;
  switch (kind) {
    case CommandKind.placeOrder:
      command = { kind, seq, ts, ...readOrder(reader) };
      break;
    case CommandKind.cancelOrder:
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, orderId: reader.integer('orderId'), clientOrderId: reader.string('clientOrderId') };
      break;
    case CommandKind.cancelAll:
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, pairId: reader.integer('pairId') };
      break;
    case CommandKind.amendOrder:
      command = {
        kind,
        seq,
        ts,
        userId: reader.integer('userId'),
        mode: reader.integer('mode') as Mode,
        orderId: reader.integer('orderId'),
        priceTicks: reader.integer('priceTicks'),
        quantityLots: reader.integer('quantityLots'),
      };
      break;
    case CommandKind.deposit:
    case CommandKind.withdraw:
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, assetId: reader.integer('assetId'), amountAtoms: reader.integer('amountAtoms') };
      break;
    case CommandKind.placeBatch: {
      const rows = reader.array('orders', defaultLimits.batchOrdersMax * 4);
      const orders = rows.map((row) => {
        if (!Array.isArray(row)) throw new JournalFormatError('frame: batch order is not an array');
        const orderReader = new FieldReader(row, 'batch order');
        const order = readOrder(orderReader);
        orderReader.end();
        return order;
      });
      command = { kind, seq, ts, orders };
      break;
    }
    case CommandKind.cancelBatch: {
      const userId = reader.integer('userId');
      const mode = reader.integer('mode') as Mode;
      const ids = reader.array('orderIds', defaultLimits.batchCancelMax * 4);
      const orderIds = ids.map((id) => {
        if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new JournalFormatError('frame: order id is not an integer');
        return id;
      });
      command = { kind, seq, ts, userId, mode, orderIds };
      break;
    }
    default:
      throw new JournalFormatError(`frame: unknown command kind ${kind}`);
  }
  reader.end();
  return command;
}

// ---------------------------------------------------------------------------------------------------
// Frames.

/** Encodes commands into frames appended to a growing byte buffer that is reused batch after batch. */
export class FrameEncoder {
  private readonly encoder = new Encoder({ initialBufferSize: 4096 });
  private buffer: Buffer;
  length = 0;
  frames = 0;

  constructor(initialBytes = 1 << 20) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** Appends one command's frame; returns its size in bytes, or -1 if the payload is over the limit. */
  append(command: Command): number {
    const payload = this.encoder.encodeSharedRef(commandToArray(command));
    if (payload.length > frameBytesMax) return -1;
    const size = frameHeaderBytes + payload.length;
    if (this.length + size > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + size));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    const at = this.length;
    this.buffer.writeUInt32LE(payload.length, at);
    this.buffer.writeUInt32LE(crc32(payload), at + 4);
    this.buffer.set(payload, at + frameHeaderBytes);
    this.length += size;
    this.frames++;
    return size;
  }

  /** The encoded frames so far (a view: valid until the next append or reset). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
    this.frames = 0;
  }
}

export const FrameStatus = { ok: 0, incomplete: 1, corrupt: 2 } as const;
export type FrameStatus = (typeof FrameStatus)[keyof typeof FrameStatus];

/** Reads frames one by one out of a byte range; `status` says why reading stopped. */
export class FrameDecoder {
  private readonly decoder = new Decoder({
    maxStrLength: stringCharsMax * 4,
    maxBinLength: 0,
    maxArrayLength: 512,
    maxMapLength: 0,
    maxExtLength: 0,
  });
  offset = 0;
  status: FrameStatus = FrameStatus.ok;
  problem = '';
  /** Where the frame that stopped decoding would end, when its length could be read; else -1. */
  badFrameEnd = -1;

  constructor(private readonly bytes: Uint8Array, start = 0) {
    this.offset = start;
  }

  /** The next command, or null at the end of the bytes (status ok), at a torn frame or at a bad one. */
  next(): Command | null {
    const bytes = this.bytes;
    const at = this.offset;
    if (at === bytes.length) return null;
    if (at + frameHeaderBytes > bytes.length) return this.stop(FrameStatus.incomplete, 'torn frame header');
    const length = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
    const expectedCrc = (bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24)) >>> 0;
    if (length <= 0 || length > frameBytesMax) return this.stop(FrameStatus.corrupt, `frame length ${length >>> 0} outside 1..${frameBytesMax}`);
    const end = at + frameHeaderBytes + length;
    if (end > bytes.length) return this.stop(FrameStatus.incomplete, 'torn frame payload');
    const payload = bytes.subarray(at + frameHeaderBytes, end);
    this.badFrameEnd = end;
    if (crc32(payload) !== expectedCrc) return this.stop(FrameStatus.corrupt, 'CRC mismatch');
    let command: Command;
    try {
      command = arrayToCommand(this.decoder.decode(payload));
    } catch (error) {
      return this.stop(FrameStatus.corrupt, error instanceof Error ? error.message : String(error));
    }
    this.offset = end;
    this.badFrameEnd = -1;
    return command;
  }

  private stop(status: FrameStatus, problem: string): null {
    this.status = status;
    this.problem = problem;
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Segment headers.

export function encodeSegmentHeader(firstSeq: number): Buffer {
  const header = Buffer.alloc(segmentHeaderBytes);
  header.writeUInt32LE(segmentMagic, 0);
  header.writeUInt16LE(journalFormatVersion, 4);
  header.writeUInt16LE(0, 6);
  header.writeBigUInt64LE(BigInt(firstSeq), 8);
  return header;
}

/** The first seq of a segment; throws a format error naming the problem for a foreign or newer file. */
export function decodeSegmentHeader(bytes: Uint8Array, name: string): number {
  if (bytes.length < segmentHeaderBytes) throw new JournalFormatError(`${name}: shorter than a segment header`);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, segmentHeaderBytes);
  if (view.readUInt32LE(0) !== segmentMagic) throw new JournalFormatError(`${name}: not a journal segment (bad magic)`);
  const version = view.readUInt16LE(4);
  if (version !== journalFormatVersion) {
    throw new JournalFormatError(`${name}: journal format version ${version}; this build reads version ${journalFormatVersion}`);
  }
  const firstSeq = Number(view.readBigUInt64LE(8));
  if (!Number.isSafeInteger(firstSeq) || firstSeq < 1) throw new JournalFormatError(`${name}: bad first seq`);
  return firstSeq;
}
