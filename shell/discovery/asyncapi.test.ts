/**
 * The AsyncAPI document against the real server: every WebSocket pattern the server mounts (recorded by
 * wrapping uWS's app as the server makes it) is a described channel with the protocol's client frames and
 * server messages, operations point at their channel's messages, and what the reachable streams really
 * send as they open (exchange, arena, vault NAV) matches the declared payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import uWS from 'uWebSockets.js';
import WebSocket from 'ws';
import AjvModule from 'ajv';
import { schemaFormats } from '../http/test-client.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { asyncApiDocument, streamAddress } from './asyncapi.ts';

const Ajv = AjvModule as unknown as typeof AjvModule.default;

interface Message {
  name: string;
  payload: { properties: { type?: { const: string }; action?: { const: string } } };
}
interface Channel {
  address: string;
  messages?: Record<string, Message>;
  'x-undescribed'?: boolean;
}
interface Document {
  asyncapi: string;
  info: { version: string };
  servers: { public: { host: string; protocol: string; pathname?: string } };
  channels: Record<string, Channel>;
  operations: Record<string, { action: string; channel: { $ref: string }; messages: Array<{ $ref: string }> }>;
}

/** The uWS patterns the server mounts, recorded as it mounts them. */
const mounted: string[] = [];
const makeApp = uWS.App;
(uWS as { App: typeof uWS.App }).App = (options?: uWS.AppOptions) => {
  // uWS reads an options argument that is there at all, so none is passed when none was given.
  const app = options === undefined ? makeApp() : makeApp(options);
  const ws = app.ws.bind(app);
  app.ws = (pattern, behavior) => {
    mounted.push(String(pattern));
    return ws(pattern, behavior);
  };
  return app;
};

/** Opens `path`, sends `frames`, and gathers messages until `count` have arrived. */
function firstMessages(port: number, path: string, frames: readonly unknown[], count: number): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    const received: Array<Record<string, unknown>> = [];
    socket.on('open', () => {
      for (const frame of frames) socket.send(JSON.stringify(frame));
    });
    socket.on('message', (data) => {
      received.push(JSON.parse(String(data)) as Record<string, unknown>);
      if (received.length === count) {
        socket.close();
        resolve(received);
      }
    });
    socket.on('error', reject);
  });
}

test('GET /asyncapi.json describes every mounted stream, and the streams send what it says', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'asyncapi-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/asyncapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const document = (await response.json()) as Document;
    assert.equal(document.asyncapi, '3.0.0');
    assert.equal(document.info.version, '0.1.0');
    assert.deepEqual(document.servers.public, { host: `127.0.0.1:${server.port}`, protocol: 'ws', description: "The service's WebSocket origin." });

    assert.ok(mounted.length >= 6, 'the server mounts its streams');
    const channels = Object.values(document.channels);
    assert.deepEqual(channels.map((channel) => channel.address).sort(), mounted.map(streamAddress).sort(), 'one channel per mounted stream');
    for (const address of ['/ws/exchange/{symbol}', '/ws/markets/{market_id}/orderbook/{asset}', '/ws/orderbook/{contract_address}', '/ws/arena', '/ws/vault/nav', '/ws/incentives/{wallet_address}']) {
      assert.ok(channels.some((channel) => channel.address === address), address);
    }
    for (const channel of channels) {
      assert.equal(channel['x-undescribed'], undefined, `${channel.address} is described in streamCatalogue`);
      const names = Object.keys(channel.messages ?? {});
      for (const name of ['subscribe', 'unsubscribe', 'ping', 'subscribed', 'unsubscribed', 'pong', 'error']) assert.ok(names.includes(name), `${channel.address}: ${name}`);
      assert.ok(names.length > 7, `${channel.address}: its own messages`);
    }
    for (const [id, operation] of Object.entries(document.operations)) {
      const channelId = operation.channel.$ref.replace('#/channels/', '');
      assert.ok(document.channels[channelId] !== undefined, `${id}: its channel`);
      for (const message of operation.messages) {
        const [, , channelOfMessage, , name] = message.$ref.split('/');
        assert.equal(channelOfMessage, channelId, `${id}: messages of its own channel`);
        assert.ok(document.channels[channelId]!.messages![name!] !== undefined, `${id}: ${message.$ref}`);
      }
    }

    // What the streams send as they open matches the declared payload of the message of that type.
    const ajv = new Ajv({ allErrors: true, strict: false, formats: schemaFormats });
    const check = (address: string, messages: Array<Record<string, unknown>>) => {
      const channel = channels.find((candidate) => candidate.address === address)!;
      for (const message of messages) {
        const declared = Object.values(channel.messages!).find((candidate) => candidate.payload.properties.type?.const === message['type']);
        assert.ok(declared !== undefined, `${address}: message type ${String(message['type'])} is declared`);
        const validate = ajv.compile(declared.payload);
        assert.ok(validate(message), `${address} ${String(message['type'])}: ${ajv.errorsText(validate.errors)}`);
      }
    };
    const exchange = await firstMessages(server.port, '/ws/exchange/BTC', [{ action: 'subscribe', channel: 'orderbook' }, { action: 'subscribe', channel: 'hybrid_bbo' }, { action: 'ping' }, { action: 'subscribe', channel: 'nope' }], 6);
    assert.deepEqual(exchange.map((message) => message['type']), ['subscribed', 'orderbook_update', 'subscribed', 'hybrid_bbo', 'pong', 'error']);
    check('/ws/exchange/{symbol}', exchange);
    // The arena opens subscribed to seven topics, four of which have a snapshot once it is seeded.
    const arena = await firstMessages(server.port, '/ws/arena', [], 11);
    check('/ws/arena', arena);
    const vaults = await firstMessages(server.port, '/ws/vault/nav', [{ action: 'ping' }], 3);
    assert.deepEqual(vaults.map((message) => message['type']), ['subscribed', 'snapshot', 'pong']);
    check('/ws/vault/nav', vaults);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a public base URL makes a wss server with its path; an unknown stream is marked undescribed', () => {
  const document = asyncApiDocument({ baseUrl: 'https://example.com/trading', streamPatterns: ['/ws/arena', '/ws/new/:thing'] }) as unknown as Document;
  assert.deepEqual(document.servers.public, { host: 'example.com', protocol: 'wss', pathname: '/trading', description: "The service's WebSocket origin." });
  const undescribed = Object.values(document.channels).filter((channel) => channel['x-undescribed'] === true);
  assert.deepEqual(undescribed.map((channel) => channel.address), ['/ws/new/{thing}']);
});
