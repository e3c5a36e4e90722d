/**
 * A minimal msgpack writer and reader for the journal's positional command arrays: arrays, integers and
 * strings only, written straight into the batch buffer and read straight out of a segment, with no
 * intermediate objects. The bytes are standard msgpack (any msgpack library reads them, and this reader
 * reads what @msgpack/msgpack writes for the same arrays; codec.test.ts checks both ways). It exists
 * because the general library costs about 1.4 µs per frame in replay (bench:journal), several times the
 * engine's own work per command.
 */
import { JournalFormatError } from './codec-error.ts';

const twoTo32 = 4294967296;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

export class PositionalWriter {
  bytes: Uint8Array;
  offset = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** Room for `size` more bytes, growing the buffer by doubling (the caller bounds the total). */
  ensure(size: number): void {
    if (this.offset + size <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.offset + size));
    grown.set(this.bytes.subarray(0, this.offset));
    this.bytes = grown;
  }

  arrayHeader(length: number): void {
    this.ensure(5);
    const bytes = this.bytes;
    if (length < 16) {
      bytes[this.offset++] = 0x90 | length;
    } else if (length < 65536) {
      bytes[this.offset++] = 0xdc;
      bytes[this.offset++] = length >>> 8;
      bytes[this.offset++] = length & 0xff;
    } else {
      bytes[this.offset++] = 0xdd;
      this.u32(length);
    }
  }

  private u32(value: number): void {
    const bytes = this.bytes;
    bytes[this.offset++] = value >>> 24;
    bytes[this.offset++] = (value >>> 16) & 0xff;
    bytes[this.offset++] = (value >>> 8) & 0xff;
    bytes[this.offset++] = value & 0xff;
  }

  /** A safe integer (the caller has checked). */
  integer(value: number): void {
    this.ensure(9);
    const bytes = this.bytes;
    if (value >= 0) {
      if (value < 128) {
        bytes[this.offset++] = value;
      } else if (value < 256) {
        bytes[this.offset++] = 0xcc;
        bytes[this.offset++] = value;
      } else if (value < 65536) {
        bytes[this.offset++] = 0xcd;
        bytes[this.offset++] = value >>> 8;
        bytes[this.offset++] = value & 0xff;
      } else if (value < twoTo32) {
        bytes[this.offset++] = 0xce;
        this.u32(value);
      } else {
        bytes[this.offset++] = 0xcf;
        this.u32(Math.floor(value / twoTo32));
        this.u32(value >>> 0);
      }
    } else if (value >= -32) {
      bytes[this.offset++] = value & 0xff;
    } else if (value >= -2147483648) {
      bytes[this.offset++] = 0xd2;
      this.u32(value >>> 0);
    } else {
      // int64, two's complement of a safe negative integer.
      const magnitude = -value;
      let high = Math.floor(magnitude / twoTo32);
      let low = magnitude >>> 0;
      low = (~low + 1) >>> 0;
      high = (~high + (low === 0 ? 1 : 0)) >>> 0;
      bytes[this.offset++] = 0xd3;
      this.u32(high);
      this.u32(low);
    }
  }

  string(value: string): void {
    let ascii = true;
    for (let index = 0; index < value.length; index++) {
      if (value.charCodeAt(index) > 0x7f) {
        ascii = false;
        break;
      }
    }
    const encoded = ascii ? null : utf8Encoder.encode(value);
    const length = encoded === null ? value.length : encoded.length;
    this.ensure(5 + length);
    const bytes = this.bytes;
    if (length < 32) {
      bytes[this.offset++] = 0xa0 | length;
    } else if (length < 256) {
      bytes[this.offset++] = 0xd9;
      bytes[this.offset++] = length;
    } else if (length < 65536) {
      bytes[this.offset++] = 0xda;
      bytes[this.offset++] = length >>> 8;
      bytes[this.offset++] = length & 0xff;
    } else {
      bytes[this.offset++] = 0xdb;
      this.u32(length);
    }
    if (encoded === null) {
      for (let index = 0; index < length; index++) bytes[this.offset++] = value.charCodeAt(index);
    } else {
      bytes.set(encoded, this.offset);
      this.offset += length;
    }
  }
}

export class PositionalReader {
  offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private end: number,
  ) {
    this.offset = start;
  }

  private byte(): number {
    if (this.offset >= this.end) throw new JournalFormatError('frame: payload ends early');
    return this.bytes[this.offset++]!;
  }

  private u16(): number {
    return (this.byte() << 8) | this.byte();
  }

  private u32(): number {
    return ((this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte()) >>> 0;
  }

  arrayHeader(what: string): number {
    const head = this.byte();
    if ((head & 0xf0) === 0x90) return head & 0x0f;
    if (head === 0xdc) return this.u16();
    if (head === 0xdd) return this.u32();
    throw new JournalFormatError(`frame: ${what} is not an array`);
  }

  integer(what: string): number {
    const head = this.byte();
    if (head < 0x80) return head;
    if (head >= 0xe0) return head - 0x100;
    let value: number;
    switch (head) {
      case 0xcc:
        return this.byte();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf:
        value = this.u32() * twoTo32 + this.u32();
        break;
      case 0xd0:
        return (this.byte() << 24) >> 24;
      case 0xd1:
        return (this.u16() << 16) >> 16;
      case 0xd2:
        return this.u32() | 0;
      case 0xd3: {
        const high = this.u32() | 0;
        value = high * twoTo32 + this.u32();
        break;
      }
      default:
        throw new JournalFormatError(`frame: ${what} is not an integer`);
    }
    if (!Number.isSafeInteger(value)) throw new JournalFormatError(`frame: ${what} is beyond the safe integer range`);
    return value;
  }

  string(what: string, charsMax: number): string {
    const head = this.byte();
    let length: number;
    if ((head & 0xe0) === 0xa0) length = head & 0x1f;
    else if (head === 0xd9) length = this.byte();
    else if (head === 0xda) length = this.u16();
    else if (head === 0xdb) length = this.u32();
    else throw new JournalFormatError(`frame: ${what} is not a string`);
    if (length > charsMax * 4 || this.offset + length > this.end) throw new JournalFormatError(`frame: ${what} is too long`);
    const start = this.offset;
    this.offset += length;
    let ascii = true;
    for (let index = start; index < start + length; index++) {
      if (this.bytes[index]! > 0x7f) {
        ascii = false;
        break;
      }
    }
    let text: string;
    if (ascii) {
      text = '';
      for (let index = start; index < start + length; index++) text += String.fromCharCode(this.bytes[index]!);
    } else {
      try {
        text = utf8.decode(this.bytes.subarray(start, start + length));
      } catch {
        throw new JournalFormatError(`frame: ${what} is not UTF-8`);
      }
    }
    if (text.length > charsMax) throw new JournalFormatError(`frame: ${what} is too long`);
    return text;
  }

  /** Points the reader at another byte range of the same array. */
  reset(start: number, end: number): void {
    this.offset = start;
    this.end = end;
  }

  atEnd(): boolean {
    return this.offset === this.end;
  }
}
