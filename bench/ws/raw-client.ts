/**
 * A minimal WebSocket client (RFC 6455) over node:net, for bench:ws's subscribers: the handshake, masked
 * text frames out, unfragmented frames in, pongs to pings. It exists because the clients share a two-core
 * machine with the server they measure: with the `ws` package a client process spent about 20 µs of CPU
 * per message received (stream machinery, a Buffer per read, an event per frame), more than the server
 * spent sending it, so the figures described the clients more than the server. Here every socket reads
 * into one buffer shared by the process (net's `onread`), and frames are handed on as views of it.
 *
 * Not a general client: no fragmentation, no extensions, no TLS; a frame the server should not send (masked,
 * fragmented, reserved bits) closes the connection as a protocol error.
 */
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

export interface RawHandlers {
  onOpen(): void;
  /** `payload` is a view of a shared buffer, valid only during the call. */
  onMessage(payload: Buffer, receivedUs: number): void;
  /** Once: the server's close code, 1006 when the connection ended without a close frame. */
  onClose(code: number, reason: string): void;
}

const acceptGuid = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** One read buffer for every socket of the process: each read is handled before the next one is made. */
const readBuffer = Buffer.allocUnsafe(256 * 1024);
/** Handshake answers longer than this are refused. */
const handshakeBytesMax = 8192;
const opcodeText = 0x1;
const opcodeBinary = 0x2;
const opcodeClose = 0x8;
const opcodePing = 0x9;
const opcodePong = 0xa;
const headerEnd = Buffer.from('\r\n\r\n');

export class RawWebSocket {
  private readonly socket: net.Socket;
  private readonly key = randomBytes(16).toString('base64');
  private open = false;
  private closed = false;
  /** Bytes of an incomplete handshake answer or frame, kept from one read to the next. */
  private pending: Buffer | null = null;

  constructor(
    url: URL,
    private readonly handlers: RawHandlers,
    private readonly now: () => number,
  ) {
    this.socket = net.connect({
      host: url.hostname,
      port: Number(url.port),
      noDelay: true,
      onread: { buffer: readBuffer, callback: (bytes: number) => this.onRead(bytes) },
    });
    this.socket.on('connect', () => {
      this.socket.write(
        `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${this.key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    this.socket.on('error', (error) => this.finish(1006, String(error)));
    this.socket.on('close', () => this.finish(1006, 'connection ended'));
  }

  send(text: string): void {
    this.sendFrame(opcodeText, Buffer.from(text, 'utf8'));
  }

  terminate(): void {
    this.closed = true;
    this.socket.destroy();
  }

  /** A masked frame (client frames must be); payloads here are small. */
  private sendFrame(opcode: number, payload: Buffer): void {
    if (payload.length > 125) throw new Error('raw client frames carry at most 125 bytes');
    const frame = Buffer.allocUnsafe(6 + payload.length);
    frame[0] = 0x80 | opcode;
    frame[1] = 0x80 | payload.length;
    randomBytes(4).copy(frame, 2);
    for (let index = 0; index < payload.length; index++) frame[6 + index] = payload[index]! ^ frame[2 + (index & 3)]!;
    this.socket.write(frame);
  }

  private finish(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.handlers.onClose(code, reason);
  }

  private onRead(bytes: number): boolean {
    const receivedUs = this.now();
    let data = readBuffer.subarray(0, bytes);
    if (this.pending !== null) {
      data = Buffer.concat([this.pending, data]);
      this.pending = null;
    }
    let at = 0;
    if (!this.open) {
      at = this.handshake(data);
      if (at < 0) return true;
    }
    at = this.frames(data, at, receivedUs);
    // Copied: the shared buffer is overwritten by the next read of any socket.
    if (at < data.length && !this.closed) this.pending = Buffer.from(data.subarray(at));
    return true;
  }

  /** Reads the server's 101 answer; returns where frames start, or -1 when it is incomplete or refused. */
  private handshake(data: Buffer): number {
    const end = data.indexOf(headerEnd);
    if (end < 0) {
      if (data.length > handshakeBytesMax) this.finish(1002, 'handshake answer too long');
      else this.pending = Buffer.from(data);
      return -1;
    }
    const head = data.toString('latin1', 0, end);
    const expected = createHash('sha1').update(this.key + acceptGuid).digest('base64');
    const accept = /\r\nsec-websocket-accept:\s*(\S+)/i.exec(head)?.[1];
    if (!head.startsWith('HTTP/1.1 101') || accept !== expected) {
      this.finish(1002, `upgrade refused: ${data.toString('latin1', 0, Math.min(data.length, 300))}`);
      return -1;
    }
    this.open = true;
    this.handlers.onOpen();
    return end + headerEnd.length;
  }

  /** Handles every complete frame from `at`; returns where the first incomplete one starts. */
  private frames(data: Buffer, start: number, receivedUs: number): number {
    let at = start;
    while (at + 2 <= data.length && !this.closed) {
      const first = data[at]!;
      const second = data[at + 1]!;
      if ((first & 0xf0) !== 0x80 || (second & 0x80) !== 0) {
        this.finish(1002, 'fragmented, masked or extended frame from the server');
        return at;
      }
      let length = second & 0x7f;
      let header = 2;
      if (length === 126) {
        if (at + 4 > data.length) return at;
        length = data.readUInt16BE(at + 2);
        header = 4;
      } else if (length === 127) {
        if (at + 10 > data.length) return at;
        length = data.readUIntBE(at + 4, 6);
        header = 10;
      }
      if (at + header + length > data.length) return at;
      const payload = data.subarray(at + header, at + header + length);
      at += header + length;
      const opcode = first & 0x0f;
      if (opcode === opcodeText || opcode === opcodeBinary) this.handlers.onMessage(payload, receivedUs);
      else if (opcode === opcodePing) this.sendFrame(opcodePong, payload);
      else if (opcode === opcodeClose) this.finish(payload.length >= 2 ? payload.readUInt16BE(0) : 1005, payload.toString('utf8', 2));
      else if (opcode !== opcodePong) this.finish(1002, `unknown opcode ${opcode}`);
    }
    return at;
  }
}
