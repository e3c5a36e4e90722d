/**
 * Prints an exchange stream, one message per line: a quick way to watch /ws/exchange/{symbol}.
 *
 *   npm run stream -- eth [orderbook,trades,prices,market] [--url ws://127.0.0.1:8080] [--msgpack]
 */
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { decode, encode } from '@msgpack/msgpack';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { url: { type: 'string', default: `ws://127.0.0.1:${process.env['PORT'] ?? '8080'}` }, msgpack: { type: 'boolean', default: false } },
});
const symbol = positionals[0] ?? 'eth';
const channels = (positionals[1] ?? 'orderbook,trades').split(',');
const socket = new WebSocket(`${values.url}/ws/exchange/${symbol}${values.msgpack ? '?encoding=msgpack' : ''}`);
socket.on('open', () => {
  for (const channel of channels) {
    const request = { action: 'subscribe', channel };
    socket.send(values.msgpack ? encode(request) : JSON.stringify(request));
  }
});
socket.on('message', (data: Buffer, isBinary: boolean) => {
  console.log(isBinary ? JSON.stringify(decode(data)) : data.toString('utf8'));
});
socket.on('unexpected-response', (_request, response) => {
  console.error(`the server refused the stream: HTTP ${response.statusCode}`);
  process.exit(1);
});
socket.on('error', (error) => {
  console.error(error.message);
  process.exit(1);
});
socket.on('close', (code) => {
  console.error(`closed (${code})`);
  process.exit(0);
});
