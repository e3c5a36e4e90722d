/**
 * The `file` and `http` price feeds on a real server: PRICE_FEED=file with a temporary CSV (its latest row
 * answered with source `file`, its daily closes seeded as the history, the journal replaying to the same
 * state), and PRICE_FEED=http against a local server on 127.0.0.1 with OUTBOUND_ALLOW_PRIVATE=1 (answered
 * with source `http`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/core/engine.ts';
import { Result } from '../../engine/core/results.ts';
import { stateHash } from '../../engine/core/state-hash.ts';
import { readJournal } from '../../engine/journal/reader.ts';
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

const msPerDay = 86_400_000;

async function apiKey(server: RunningServer): Promise<Record<string, string>> {
  const registered = await call(server, 'POST', '/auth/register', { email: 'feeds@example.com', password: 'correct horse', username: 'feeds' });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  return { 'x-api-key': key.json['api_key'] };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('PRICE_FEED=file: the file\'s latest price with source "file", its daily closes as the history', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'feed-file-'));
  const nowMs = Date.now();
  const today = Math.floor(nowMs / msPerDay);
  const date = (day: number): string => new Date(day * msPerDay).toISOString().slice(0, 10);
  const path = join(dataDir, 'prices.csv');
  writeFileSync(
    path,
    [
      'timestamp,symbol,price',
      `${date(today - 3)}T12:00:00Z,BTC,90000`,
      `${date(today - 2)}T12:00:00Z,BTC,91000.5`,
      `${date(today - 2)}T12:00:00Z,NOPE,1`,
      `${nowMs - 1000},BTC,97000.12345678`,
      `${nowMs - 1000},ETH,3000`,
      // Far in the future: never reached while the test runs.
      `${nowMs + 30 * msPerDay},BTC,1`,
    ].join('\n'),
  );
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_FEED: 'file', PRICE_FILE: path });
  const server = await startServer(config, silentLog);
  let closed = false;
  try {
    const key = await apiKey(server);
    await until('a tick from the file', async () => (await call(server, 'GET', '/api/v1/prices/ETH', undefined, key)).json['source'] === 'file');
    const btc = await call(server, 'GET', '/api/v1/prices/BTC', undefined, key);
    assert.equal(btc.status, 200);
    assert.equal(btc.json['source'], 'file');
    assert.equal(btc.json['price'], '97000.12345678');
    assert.equal(btc.json['stale'], false);
    const history = await call(server, 'GET', '/api/v1/prices/BTC/history?days=10', undefined, key);
    assert.equal(history.status, 200);
    const closes = new Map((history.json['history'] as Array<{ date: string; close: string }>).map((row) => [row.date, row.close]));
    assert.equal(closes.get(date(today - 3)), '90000');
    assert.equal(closes.get(date(today - 2)), '91000.5');
    assert.equal(history.json['history'][0].date, date(today - 3), 'the history starts with the file');

    await server.close();
    closed = true;
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), stateHash(server.context.durable.engine));
  } finally {
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('PRICE_FEED=http: prices polled from a local server with OUTBOUND_ALLOW_PRIVATE=1, source "http"', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'feed-http-'));
  let polls = 0;
  const feed = http.createServer((_request, response) => {
    polls++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ prices: { BTC: '12345.6789', eth: 2500.25, NOPE: '1' } }));
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/prices`;
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AMM_CHAINS: '',
    PRICE_TICK_MS: '100',
    PRICE_FEED: 'http',
    PRICE_HTTP_URL: url,
    OUTBOUND_ALLOW_PRIVATE: '1',
  });
  const server = await startServer(config, silentLog);
  try {
    const key = await apiKey(server);
    await until('a tick from the feed', async () => (await call(server, 'GET', '/api/v1/prices/BTC', undefined, key)).json['source'] === 'http');
    const btc = await call(server, 'GET', '/api/v1/prices/BTC', undefined, key);
    assert.equal(btc.json['price'], '12345.6789');
    assert.equal(btc.json['stale'], false);
    const eth = await call(server, 'GET', '/api/v1/prices/ETH', undefined, key);
    assert.equal(eth.json['source'], 'http');
    assert.equal(eth.json['price'], '2500.25');
    assert.ok(polls >= 1);
  } finally {
    await server.close();
    feed.closeAllConnections();
    feed.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
