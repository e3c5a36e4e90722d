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
 * Versions: 1 has command kinds 1 to 8; 2 adds kind 9 (WithdrawTo); 3 adds kinds 10 (QuoteVenue), 11
 * (OpenPaperAccount) and 12 (ExpireVenues); 4 adds kinds 13 (StartTwap), 14 (CancelTwap), 15 (RunTimers)
 * and 16 (PlaceScale); 5 adds kind 17, the envelope of every domain command:
 * `[17, seq, ts, type, domain format version, ...fields]`, whose fields the domain's own codec writes and
 * reads (engine/domains/index.ts finds it by type), so a domain added later needs no new journal version.
 * None changes an older kind; 6 changes a rule, not the format (a post-only buy's hold, journal/rules.ts). So
 * this build reads segments of every version and writes version 6. A segment's frames are all of its header's version:
 * a writer never continues an older segment with frames of a newer kind (see SegmentWriter.resume).
 *
 * Decoding checks lengths and limits before it allocates: a length beyond `frameBytesMax` is refused as
 * corrupt, never read.
 */
import { JournalFormatError } from './codec-error.ts';
import { crc32 } from './crc32.ts';
import { PositionalReader, PositionalWriter } from './msgpack-positional.ts';
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
import { defaultLimits, scaleOrdersMax, venueLevelsPerSideMax } from '../core/limits.ts';
import type { FieldReader, FieldWriter } from '../core/domain.ts';
import { domainCodecOf, domainOfType } from '../domains/index.ts';

/** Items a journaled batch may carry: the engine refuses more, but the format leaves room. */
const batchItemsMax = Math.max(defaultLimits.batchOrdersMax, defaultLimits.batchCancelMax) * 4;
/** Orders a scale order may carry in a frame: the engine refuses more, the format leaves room. */
const scaleItemsMax = scaleOrdersMax * 4;
/** Levels a venue quote's side may carry in a frame: the engine refuses more, the format leaves room. */
const venueLevelsMax = venueLevelsPerSideMax * 4;

/** The version this build writes; it reads every version from `journalFormatVersionOldest` up to it. */
export const journalFormatVersion = 6;
export const journalFormatVersionOldest = 1;
export const segmentMagic = 0x4c4a5054; // "TPJL" read as a little-endian u32
export const segmentHeaderBytes = 16;
export const frameHeaderBytes = 8;
/** The largest payload a frame may carry; a batch of 10 orders with long client ids needs about 1 KiB. */
export const frameBytesMax = 16 * 1024;
const stringCharsMax = 256;

export { JournalFormatError };

// ---------------------------------------------------------------------------------------------------
// Commands as positional arrays.

const orderFieldCount = 13;

/** Whether every number of an order is a safe integer: only such commands can be journaled. */
function orderIsEncodable(order: OrderRequest): boolean {
  return (
    Number.isSafeInteger(order.orderId) &&
    Number.isSafeInteger(order.userId) &&
    Number.isSafeInteger(order.mode) &&
    Number.isSafeInteger(order.pairId) &&
    Number.isSafeInteger(order.side) &&
    Number.isSafeInteger(order.orderType) &&
    Number.isSafeInteger(order.timeInForce) &&
    Number.isSafeInteger(order.priceTicks) &&
    Number.isSafeInteger(order.stopPriceTicks) &&
    Number.isSafeInteger(order.quantityLots) &&
    Number.isSafeInteger(order.selfTradePrevention) &&
    typeof order.postOnly === 'boolean' &&
    typeof order.clientOrderId === 'string' &&
    order.clientOrderId.length <= stringCharsMax
  );
}

/**
 * Whether a string can be journaled: short, and well-formed UTF-16. A lone surrogate would be written as
 * U+FFFD and so read back as a different string; a withdrawal's reference that changed on replay could
 * no longer be matched to the client's retry.
 */
function stringIsEncodable(value: string): boolean {
  if (typeof value !== 'string' || value.length > stringCharsMax) return false;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = value.charCodeAt(index + 1);
    if (unit > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return false;
    index++;
  }
  return true;
}

/** Whether a command fits the journal format (safe integers, short strings, bounded lists). */
export function commandIsEncodable(command: Command): boolean {
  if (!Number.isSafeInteger(command.seq) || !Number.isSafeInteger(command.ts)) return false;
  switch (command.kind) {
    case CommandKind.placeOrder:
      return orderIsEncodable(command);
    case CommandKind.cancelOrder:
      return (
        Number.isSafeInteger(command.userId) &&
        Number.isSafeInteger(command.mode) &&
        Number.isSafeInteger(command.orderId) &&
        typeof command.clientOrderId === 'string' &&
        command.clientOrderId.length <= stringCharsMax
      );
    case CommandKind.cancelAll:
      return Number.isSafeInteger(command.userId) && Number.isSafeInteger(command.mode) && Number.isSafeInteger(command.pairId);
    case CommandKind.amendOrder:
      return (
        Number.isSafeInteger(command.userId) &&
        Number.isSafeInteger(command.mode) &&
        Number.isSafeInteger(command.orderId) &&
        Number.isSafeInteger(command.priceTicks) &&
        Number.isSafeInteger(command.quantityLots)
      );
    case CommandKind.deposit:
    case CommandKind.withdraw:
      return (
        Number.isSafeInteger(command.userId) &&
        Number.isSafeInteger(command.mode) &&
        Number.isSafeInteger(command.assetId) &&
        Number.isSafeInteger(command.amountAtoms)
      );
    case CommandKind.placeBatch:
      return Array.isArray(command.orders) && command.orders.length <= batchItemsMax && command.orders.every(orderIsEncodable);
    case CommandKind.cancelBatch:
      return (
        Number.isSafeInteger(command.userId) &&
        Number.isSafeInteger(command.mode) &&
        Array.isArray(command.orderIds) &&
        command.orderIds.length <= batchItemsMax &&
        command.orderIds.every((id) => Number.isSafeInteger(id))
      );
    case CommandKind.withdrawTo:
      return (
        Number.isSafeInteger(command.userId) &&
        Number.isSafeInteger(command.assetId) &&
        Number.isSafeInteger(command.amountAtoms) &&
        Number.isSafeInteger(command.chainId) &&
        stringIsEncodable(command.address) &&
        stringIsEncodable(command.reference)
      );
    case CommandKind.quoteVenue:
      return (
        Number.isSafeInteger(command.pairId) &&
        Number.isSafeInteger(command.poolId) &&
        Number.isSafeInteger(command.chainId) &&
        Number.isSafeInteger(command.version) &&
        integerList(command.bidPriceTicks, venueLevelsMax) &&
        integerList(command.bidLots, venueLevelsMax) &&
        integerList(command.askPriceTicks, venueLevelsMax) &&
        integerList(command.askLots, venueLevelsMax)
      );
    case CommandKind.openPaperAccount:
      return Number.isSafeInteger(command.userId) && integerList(command.assetIds, batchItemsMax) && integerList(command.amountsAtoms, batchItemsMax);
    case CommandKind.expireVenues:
    case CommandKind.runTimers:
      return true;
    case CommandKind.startTwap:
      return (
        Number.isSafeInteger(command.twapId) &&
        Number.isSafeInteger(command.userId) &&
        Number.isSafeInteger(command.mode) &&
        Number.isSafeInteger(command.pairId) &&
        Number.isSafeInteger(command.side) &&
        Number.isSafeInteger(command.quantityLots) &&
        Number.isSafeInteger(command.limitPriceTicks) &&
        Number.isSafeInteger(command.durationMs) &&
        Number.isSafeInteger(command.intervalMs)
      );
    case CommandKind.cancelTwap:
      return Number.isSafeInteger(command.userId) && Number.isSafeInteger(command.mode) && Number.isSafeInteger(command.twapId);
    case CommandKind.placeScale:
      return Number.isSafeInteger(command.scaleId) && Array.isArray(command.orders) && command.orders.length <= scaleItemsMax && command.orders.every(orderIsEncodable);
    case CommandKind.domain: {
      const codec = Number.isSafeInteger(command.type) ? domainCodecOf(command.type) : undefined;
      return codec !== undefined && codec.isEncodable(command.body);
    }
    default:
      return false;
  }
}

/** Whether a list is an array of at most `countMax` safe integers. */
function integerList(values: unknown, countMax: number): boolean {
  return Array.isArray(values) && values.length <= countMax && values.every((value) => Number.isSafeInteger(value));
}

function writeIntegers(writer: PositionalWriter, values: readonly number[]): void {
  writer.arrayHeader(values.length);
  for (const value of values) writer.integer(value);
}

function readIntegers(reader: PositionalReader, what: string, countMax: number): number[] {
  const count = reader.arrayHeader(what);
  if (count > countMax) throw new JournalFormatError(`frame: ${what} has ${count} entries, at most ${countMax}`);
  const values: number[] = [];
  for (let index = 0; index < count; index++) values.push(reader.integer(what));
  return values;
}

/** The journal's positional writer as the domains' codecs see it. */
class DomainFieldWriter implements FieldWriter {
  writer!: PositionalWriter;

  integer(value: number): void {
    this.writer.integer(value);
  }

  string(value: string): void {
    this.writer.string(value);
  }

  integers(values: readonly number[]): void {
    writeIntegers(this.writer, values);
  }

  strings(values: readonly string[]): void {
    this.writer.arrayHeader(values.length);
    for (const value of values) this.writer.string(value);
  }
}

/** The journal's positional reader as the domains' codecs see it; strings never beyond the format's cap. */
class DomainFieldReader implements FieldReader {
  reader!: PositionalReader;

  integer(what: string): number {
    return this.reader.integer(what);
  }

  string(what: string, charsMax: number): string {
    return this.reader.string(what, Math.min(charsMax, stringCharsMax));
  }

  integers(what: string, countMax: number): number[] {
    return readIntegers(this.reader, what, countMax);
  }

  strings(what: string, countMax: number, charsMax: number): string[] {
    const count = this.reader.arrayHeader(what);
    if (count > countMax) throw new JournalFormatError(`frame: ${what} has ${count} entries, at most ${countMax}`);
    const values: string[] = [];
    for (let index = 0; index < count; index++) values.push(this.string(what, charsMax));
    return values;
  }
}

const domainFieldWriter = new DomainFieldWriter();
const domainFieldReader = new DomainFieldReader();

/** Whether a string fits the journal: for the domains' codecs (short and well-formed UTF-16). */
export function journalStringFits(value: unknown, charsMax: number): boolean {
  return typeof value === 'string' && value.length <= charsMax && stringIsEncodable(value);
}

function writeOrder(writer: PositionalWriter, order: OrderRequest): void {
  writer.integer(order.orderId);
  writer.integer(order.userId);
  writer.integer(order.mode);
  writer.integer(order.pairId);
  writer.integer(order.side);
  writer.integer(order.orderType);
  writer.integer(order.timeInForce);
  writer.integer(order.priceTicks);
  writer.integer(order.stopPriceTicks);
  writer.integer(order.quantityLots);
  writer.integer(order.postOnly ? 1 : 0);
  writer.integer(order.selfTradePrevention);
  writer.string(order.clientOrderId);
}

/** The array header and the three leading fields every command shares. */
function writeHead(writer: PositionalWriter, fieldCount: number, command: Command): void {
  writer.arrayHeader(fieldCount);
  writer.integer(command.kind);
  writer.integer(command.seq);
  writer.integer(command.ts);
}

/** Writes a command (already checked by commandIsEncodable) as `[kind, seq, ts, ...fields]`. */
export function writeCommand(writer: PositionalWriter, command: Command): void {
  switch (command.kind) {
    case CommandKind.placeOrder:
      writeHead(writer, 3 + orderFieldCount, command);
      writeOrder(writer, command);
      return;
    case CommandKind.cancelOrder:
      writeHead(writer, 7, command);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.integer(command.orderId);
      writer.string(command.clientOrderId);
      return;
    case CommandKind.cancelAll:
      writeHead(writer, 6, command);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.integer(command.pairId);
      return;
    case CommandKind.amendOrder:
      writeHead(writer, 8, command);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.integer(command.orderId);
      writer.integer(command.priceTicks);
      writer.integer(command.quantityLots);
      return;
    case CommandKind.deposit:
    case CommandKind.withdraw:
      writeHead(writer, 7, command);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.integer(command.assetId);
      writer.integer(command.amountAtoms);
      return;
    case CommandKind.placeBatch:
      writeHead(writer, 4, command);
      writeOrders(writer, command.orders);
      return;
    case CommandKind.cancelBatch:
      writeHead(writer, 6, command);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.arrayHeader(command.orderIds.length);
      for (const orderId of command.orderIds) writer.integer(orderId);
      return;
    case CommandKind.withdrawTo:
      writeHead(writer, 9, command);
      writer.integer(command.userId);
      writer.integer(command.assetId);
      writer.integer(command.amountAtoms);
      writer.integer(command.chainId);
      writer.string(command.address);
      writer.string(command.reference);
      return;
    case CommandKind.quoteVenue:
      writeHead(writer, 11, command);
      writer.integer(command.pairId);
      writer.integer(command.poolId);
      writer.integer(command.chainId);
      writer.integer(command.version);
      writeIntegers(writer, command.bidPriceTicks);
      writeIntegers(writer, command.bidLots);
      writeIntegers(writer, command.askPriceTicks);
      writeIntegers(writer, command.askLots);
      return;
    case CommandKind.openPaperAccount:
      writeHead(writer, 6, command);
      writer.integer(command.userId);
      writeIntegers(writer, command.assetIds);
      writeIntegers(writer, command.amountsAtoms);
      return;
    case CommandKind.expireVenues:
    case CommandKind.runTimers:
      writeHead(writer, 3, command);
      return;
    case CommandKind.startTwap:
      writeHead(writer, 12, command);
      writer.integer(command.twapId);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.integer(command.pairId);
      writer.integer(command.side);
      writer.integer(command.quantityLots);
      writer.integer(command.limitPriceTicks);
      writer.integer(command.durationMs);
      writer.integer(command.intervalMs);
      return;
    case CommandKind.cancelTwap:
      writeHead(writer, 6, command);
      writer.integer(command.userId);
      writer.integer(command.mode);
      writer.integer(command.twapId);
      return;
    case CommandKind.placeScale:
      writeHead(writer, 5, command);
      writer.integer(command.scaleId);
      writeOrders(writer, command.orders);
      return;
    case CommandKind.domain: {
      const domain = domainOfType(command.type)!;
      const codec = domainCodecOf(command.type)!;
      writeHead(writer, 5 + codec.fieldCount, command);
      writer.integer(command.type);
      writer.integer(domain.formatVersion);
      domainFieldWriter.writer = writer;
      codec.write(domainFieldWriter, command.body);
      return;
    }
  }
}

/** A list of orders (batches, scale orders): each a positional array of `orderFieldCount` fields. */
function writeOrders(writer: PositionalWriter, orders: readonly OrderRequest[]): void {
  writer.arrayHeader(orders.length);
  for (const order of orders) {
    writer.arrayHeader(orderFieldCount);
    writeOrder(writer, order);
  }
}

function readOrders(reader: PositionalReader, what: string, countMax: number): OrderRequest[] {
  const count = reader.arrayHeader(what);
  if (count > countMax) throw new JournalFormatError(`frame: ${what} of ${count} orders`);
  const orders: OrderRequest[] = [];
  for (let index = 0; index < count; index++) {
    expectLength(reader.arrayHeader(what), orderFieldCount, what);
    orders.push(readOrder(reader));
  }
  return orders;
}

function readOrder(reader: PositionalReader): OrderRequest {
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
    clientOrderId: reader.string('clientOrderId', stringCharsMax),
  };
}

function expectLength(actual: number, expected: number, what: string): void {
  if (actual !== expected) throw new JournalFormatError(`frame: ${what} has ${actual} fields, expected ${expected}`);
}

/** Reads one command from a frame payload; throws JournalFormatError naming what is wrong. */
export function readCommand(reader: PositionalReader): Command {
  const length = reader.arrayHeader('command');
  if (length < 3) throw new JournalFormatError('frame: command array too short');
  const kind = reader.integer('kind');
  const seq = reader.integer('seq');
  const ts = reader.integer('ts');
  let command: Command;
  switch (kind) {
    case CommandKind.placeOrder:
      expectLength(length, 3 + orderFieldCount, 'placeOrder');
      // Written out field by field: an object spread here costs more than the rest of the decode.
      command = {
        kind,
        seq,
        ts,
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
        clientOrderId: reader.string('clientOrderId', stringCharsMax),
      };
      break;
    case CommandKind.cancelOrder:
      expectLength(length, 7, 'cancelOrder');
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, orderId: reader.integer('orderId'), clientOrderId: reader.string('clientOrderId', stringCharsMax) };
      break;
    case CommandKind.cancelAll:
      expectLength(length, 6, 'cancelAll');
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, pairId: reader.integer('pairId') };
      break;
    case CommandKind.amendOrder:
      expectLength(length, 8, 'amendOrder');
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
      expectLength(length, 7, 'deposit or withdraw');
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, assetId: reader.integer('assetId'), amountAtoms: reader.integer('amountAtoms') };
      break;
    case CommandKind.placeBatch:
      expectLength(length, 4, 'placeBatch');
      command = { kind, seq, ts, orders: readOrders(reader, 'batch order', batchItemsMax) };
      break;
    case CommandKind.cancelBatch: {
      expectLength(length, 6, 'cancelBatch');
      const userId = reader.integer('userId');
      const mode = reader.integer('mode') as Mode;
      const count = reader.arrayHeader('orderIds');
      if (count > batchItemsMax) throw new JournalFormatError(`frame: batch of ${count} order ids`);
      const orderIds: number[] = [];
      for (let index = 0; index < count; index++) orderIds.push(reader.integer('orderId'));
      command = { kind, seq, ts, userId, mode, orderIds };
      break;
    }
    case CommandKind.withdrawTo:
      expectLength(length, 9, 'withdrawTo');
      command = {
        kind,
        seq,
        ts,
        userId: reader.integer('userId'),
        assetId: reader.integer('assetId'),
        amountAtoms: reader.integer('amountAtoms'),
        chainId: reader.integer('chainId'),
        address: reader.string('address', stringCharsMax),
        reference: reader.string('reference', stringCharsMax),
      };
      break;
    case CommandKind.quoteVenue:
      expectLength(length, 11, 'quoteVenue');
      command = {
        kind,
        seq,
        ts,
        pairId: reader.integer('pairId'),
        poolId: reader.integer('poolId'),
        chainId: reader.integer('chainId'),
        version: reader.integer('version'),
        bidPriceTicks: readIntegers(reader, 'bidPriceTicks', venueLevelsMax),
        bidLots: readIntegers(reader, 'bidLots', venueLevelsMax),
        askPriceTicks: readIntegers(reader, 'askPriceTicks', venueLevelsMax),
        askLots: readIntegers(reader, 'askLots', venueLevelsMax),
      };
      break;
    case CommandKind.openPaperAccount:
      expectLength(length, 6, 'openPaperAccount');
      command = {
        kind,
        seq,
        ts,
        userId: reader.integer('userId'),
        assetIds: readIntegers(reader, 'assetIds', batchItemsMax),
        amountsAtoms: readIntegers(reader, 'amountsAtoms', batchItemsMax),
      };
      break;
    case CommandKind.expireVenues:
      expectLength(length, 3, 'expireVenues');
      command = { kind, seq, ts };
      break;
    case CommandKind.runTimers:
      expectLength(length, 3, 'runTimers');
      command = { kind, seq, ts };
      break;
    case CommandKind.startTwap:
      expectLength(length, 12, 'startTwap');
      command = {
        kind,
        seq,
        ts,
        twapId: reader.integer('twapId'),
        userId: reader.integer('userId'),
        mode: reader.integer('mode') as Mode,
        pairId: reader.integer('pairId'),
        side: reader.integer('side') as Side,
        quantityLots: reader.integer('quantityLots'),
        limitPriceTicks: reader.integer('limitPriceTicks'),
        durationMs: reader.integer('durationMs'),
        intervalMs: reader.integer('intervalMs'),
      };
      break;
    case CommandKind.cancelTwap:
      expectLength(length, 6, 'cancelTwap');
      command = { kind, seq, ts, userId: reader.integer('userId'), mode: reader.integer('mode') as Mode, twapId: reader.integer('twapId') };
      break;
    case CommandKind.placeScale:
      expectLength(length, 5, 'placeScale');
      command = { kind, seq, ts, scaleId: reader.integer('scaleId'), orders: readOrders(reader, 'scale order', scaleItemsMax) };
      break;
    case CommandKind.domain: {
      if (length < 5) throw new JournalFormatError('frame: domain command array too short');
      const type = reader.integer('type');
      const version = reader.integer('domain format version');
      const domain = domainOfType(type);
      const codec = domainCodecOf(type);
      if (domain === undefined || codec === undefined) throw new JournalFormatError(`frame: unknown domain command type ${type}`);
      if (version < 1 || version > domain.formatVersion) {
        throw new JournalFormatError(`frame: ${domain.name} format version ${version}; this build reads up to ${domain.formatVersion}`);
      }
      expectLength(length, 5 + codec.fieldCount, codec.name);
      domainFieldReader.reader = reader;
      command = { kind, seq, ts, type, body: codec.read(domainFieldReader, version) };
      break;
    }
    default:
      throw new JournalFormatError(`frame: unknown command kind ${kind}`);
  }
  if (!reader.atEnd()) throw new JournalFormatError('frame: bytes after the command');
  return command;
}

// ---------------------------------------------------------------------------------------------------
// Frames.

/** Encodes commands into frames appended to a byte buffer that is reused batch after batch. */
export class FrameEncoder {
  private readonly writer: PositionalWriter;
  frames = 0;

  constructor(initialBytes = 1 << 20) {
    this.writer = new PositionalWriter(new Uint8Array(initialBytes));
  }

  get length(): number {
    return this.writer.offset;
  }

  /**
   * Appends one command's frame; returns its size in bytes, -1 if the payload is over the limit, or -2
   * if the command does not fit the format (a number that is not a safe integer, a string too long).
   */
  append(command: Command): number {
    if (!commandIsEncodable(command)) return -2;
    const writer = this.writer;
    const start = writer.offset;
    writer.ensure(frameHeaderBytes);
    writer.offset += frameHeaderBytes;
    writeCommand(writer, command);
    const length = writer.offset - start - frameHeaderBytes;
    if (length > frameBytesMax) {
      writer.offset = start;
      return -1;
    }
    const bytes = writer.bytes;
    const checksum = crc32(bytes, start + frameHeaderBytes, writer.offset);
    bytes[start] = length & 0xff;
    bytes[start + 1] = (length >>> 8) & 0xff;
    bytes[start + 2] = (length >>> 16) & 0xff;
    bytes[start + 3] = length >>> 24;
    bytes[start + 4] = checksum & 0xff;
    bytes[start + 5] = (checksum >>> 8) & 0xff;
    bytes[start + 6] = (checksum >>> 16) & 0xff;
    bytes[start + 7] = checksum >>> 24;
    this.frames++;
    return length + frameHeaderBytes;
  }

  /** Forgets the frames after byte `length` (a command the engine refused after it was encoded). */
  truncate(length: number, frames: number): void {
    this.writer.offset = length;
    this.frames = frames;
  }

  /** The encoded frames so far (a view: valid until the next append or reset). */
  bytes(): Uint8Array {
    return this.writer.bytes.subarray(0, this.writer.offset);
  }

  reset(): void {
    this.writer.offset = 0;
    this.frames = 0;
  }
}

export const FrameStatus = { ok: 0, incomplete: 1, corrupt: 2 } as const;
export type FrameStatus = (typeof FrameStatus)[keyof typeof FrameStatus];

/** Reads frames one by one out of a byte range; `status` says why reading stopped. */
/** The little-endian 32-bit word at `at` (a frame header's length or CRC), as a signed integer. */
function int32At(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

export class FrameDecoder {
  offset = 0;
  status: FrameStatus = FrameStatus.ok;
  problem = '';
  /** Where the frame that stopped decoding would end, when its length could be read; else -1. */
  badFrameEnd = -1;

  private readonly reader: PositionalReader;

  constructor(private readonly bytes: Uint8Array, start = 0) {
    this.offset = start;
    this.reader = new PositionalReader(bytes, start, start);
  }

  /** The next command, or null at the end of the bytes (status ok), at a torn frame or at a bad one. */
  next(): Command | null {
    const bytes = this.bytes;
    const at = this.offset;
    if (at === bytes.length) return null;
    if (at + frameHeaderBytes > bytes.length) return this.stop(FrameStatus.incomplete, 'torn frame header');
    const length = int32At(bytes, at);
    const expectedCrc = int32At(bytes, at + 4) >>> 0;
    if (length <= 0 || length > frameBytesMax) return this.stop(FrameStatus.corrupt, `frame length ${length >>> 0} outside 1..${frameBytesMax}`);
    const end = at + frameHeaderBytes + length;
    if (end > bytes.length) return this.stop(FrameStatus.incomplete, 'torn frame payload');
    this.badFrameEnd = end;
    if (crc32(bytes, at + frameHeaderBytes, end) !== expectedCrc) return this.stop(FrameStatus.corrupt, 'CRC mismatch');
    let command: Command;
    try {
      this.reader.reset(at + frameHeaderBytes, end);
      command = readCommand(this.reader);
    } catch (error) {
      return this.stop(FrameStatus.corrupt, error instanceof Error ? error.message : String(error));
    }
    this.offset = end;
    this.badFrameEnd = -1;
    return command;
  }

  /**
   * Steps over the next frame, CRC-checked but its command not decoded, when its seq is at most
   * `throughSeq` (a frame that a snapshot covers); returns that seq. Returns -1 and stays where it is
   * otherwise (the end of the bytes, a later frame, a torn or bad one: `next` then says which).
   */
  skip(throughSeq: number): number {
    const bytes = this.bytes;
    const at = this.offset;
    if (at + frameHeaderBytes > bytes.length) return -1;
    const length = int32At(bytes, at);
    const expectedCrc = int32At(bytes, at + 4) >>> 0;
    if (length <= 0 || length > frameBytesMax) return -1;
    const end = at + frameHeaderBytes + length;
    if (end > bytes.length || crc32(bytes, at + frameHeaderBytes, end) !== expectedCrc) return -1;
    let seq: number;
    try {
      this.reader.reset(at + frameHeaderBytes, end);
      if (this.reader.arrayHeader('command') < 3) return -1;
      this.reader.integer('kind');
      seq = this.reader.integer('seq');
    } catch {
      return -1;
    }
    if (seq > throughSeq) return -1;
    this.offset = end;
    return seq;
  }

  private stop(status: FrameStatus, problem: string): null {
    this.status = status;
    this.problem = problem;
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Segment headers.

/** A segment header; `version` is this build's unless a test rebuilds an older segment. */
export function encodeSegmentHeader(firstSeq: number, version = journalFormatVersion): Buffer {
  const header = Buffer.alloc(segmentHeaderBytes);
  header.writeUInt32LE(segmentMagic, 0);
  header.writeUInt16LE(version, 4);
  header.writeUInt16LE(0, 6);
  header.writeBigUInt64LE(BigInt(firstSeq), 8);
  return header;
}

/** The first seq of a segment; throws a format error naming the problem for a foreign or newer file. */
export function decodeSegmentHeader(bytes: Uint8Array, name: string): number {
  segmentFormatVersion(bytes, name);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, segmentHeaderBytes);
  const firstSeq = Number(view.readBigUInt64LE(8));
  if (!Number.isSafeInteger(firstSeq) || firstSeq < 1) throw new JournalFormatError(`${name}: bad first seq`);
  return firstSeq;
}

/** The format version of a segment, one this build reads; throws a format error otherwise. */
export function segmentFormatVersion(bytes: Uint8Array, name: string): number {
  if (bytes.length < segmentHeaderBytes) throw new JournalFormatError(`${name}: shorter than a segment header`);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, segmentHeaderBytes);
  if (view.readUInt32LE(0) !== segmentMagic) throw new JournalFormatError(`${name}: not a journal segment (bad magic)`);
  const version = view.readUInt16LE(4);
  if (version < journalFormatVersionOldest || version > journalFormatVersion) {
    throw new JournalFormatError(`${name}: journal format version ${version}; this build reads version ${journalFormatVersion}`);
  }
  return version;
}
