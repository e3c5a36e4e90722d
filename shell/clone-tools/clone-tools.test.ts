/**
 * The clone tools on a real server with the embedded sample: every route answers its documented shape
 * with `source: "sample"` on outside data, wallets without a closed trade score 50 unqualified, limits out
 * of range are 422 naming the limit, our platform is a protocol with source "platform", and the docs of
 * each tool (served or not) come from the route declarations; an unknown tool is 404.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { call } from '../http/test-client.ts';

test('the clone tools over HTTP with the sample dataset', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'clone-tools-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '1000' });
  const server = await startServer(config, silentLog);
  try {
    const signals = await call(server, 'GET', '/api/v1/clones/fomo-radar/signals?limit=200');
    assert.equal(signals.status, 200);
    assert.equal(signals.json['source'], 'sample');
    assert.equal(signals.json['fallback'], null);
    assert.ok(signals.json['signals'].length > 0);
    for (const row of signals.json['signals']) {
      assert.ok(['new_position', 'add', 'exit', 'orphan_sell'].includes(row['conviction_kind']));
      assert.match(row['wallet_label'], /^Sample wallet .*\(fictional\)$/);
    }
    const exits = await call(server, 'GET', '/api/v1/clones/fomo-radar/signals?filter=exits&chain=solana');
    assert.ok(exits.json['signals'].every((row: { conviction_kind: string }) => row.conviction_kind === 'exit'));

    const traders = await call(server, 'GET', '/api/v1/clones/fomo-radar/traders?limit=100');
    assert.equal(traders.status, 200);
    assert.equal(traders.json['source'], 'sample');
    const unproven = traders.json['traders'].filter((row: { closed_trades: number }) => row.closed_trades === 0);
    assert.ok(unproven.length > 0, 'the sample has wallets with no closed trade');
    for (const row of unproven) assert.deepEqual([row.score, row.qualified], [50, false]);

    const tooMany = await call(server, 'GET', '/api/v1/clones/fomo-radar/signals?limit=201');
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.json['error']['message'], /query\.limit: must be 1 to 200/);
    assert.match((await call(server, 'GET', '/api/v1/clones/fomo-radar/traders?limit=0')).json['error']['message'], /query\.limit: must be 1 to 100/);
    assert.equal((await call(server, 'GET', '/api/v1/clones/fomo-radar/traders?chain=ethereum')).status, 422);

    const rankings = await call(server, 'GET', '/api/v1/clones/protocol-revenue/rankings?metric=revenue&window=7d');
    assert.equal(rankings.status, 200);
    assert.equal(rankings.json['source'], 'sample');
    const platform = rankings.json['protocols'].find((row: { slug: string }) => row.slug === 'this-platform');
    assert.equal(platform['source'], 'platform');
    const values = rankings.json['protocols'].map((row: { value_usd: string }) => Number(row.value_usd));
    assert.deepEqual(values, [...values].sort((a: number, b: number) => b - a));
    assert.match((await call(server, 'GET', '/api/v1/clones/protocol-revenue/rankings?limit=501')).json['error']['message'], /1 to 500/);
    const searched = await call(server, 'GET', '/api/v1/clones/protocol-revenue/rankings?q=lend');
    assert.ok(searched.json['protocols'].length > 0);
    for (const row of searched.json['protocols']) assert.match(row['name'], /Lend/);

    const one = await call(server, 'GET', '/api/v1/clones/protocol-revenue/protocols/sample-protocol-3');
    assert.equal(one.status, 200);
    assert.equal(one.json['daily'].length, 60);
    assert.deepEqual(Object.keys(one.json['totals']['fees']).sort(), ['24h', '30d', '7d', 'all']);
    const own = await call(server, 'GET', '/api/v1/clones/protocol-revenue/protocols/this-platform');
    assert.equal(own.json['source'], 'platform');
    assert.equal((await call(server, 'GET', '/api/v1/clones/protocol-revenue/protocols/nope')).status, 404);

    const docs = await call(server, 'GET', '/api/v1/clones/fomo-radar/docs');
    assert.equal(docs.json['status'], 'served');
    const signalsDoc = docs.json['routes'].find((route: { name: string }) => route.name === 'get_fomo_radar_signals');
    assert.deepEqual(signalsDoc['parameters'].find((param: { name: string }) => param.name === 'limit'), {
      name: 'limit',
      in: 'query',
      type: 'integer',
      required: false,
      minimum: 1,
      maximum: 200,
      default: 40,
      description: 'signals to return',
    });
    assert.ok(docs.json['rules'].some((rule: string) => rule.includes('exactly 50')));
    for (const name of ['memecoin-terminal', 'social-pulse', 'stable-pools']) {
      const unserved = await call(server, 'GET', `/api/v1/clones/${name}/docs`);
      assert.equal(unserved.json['status'], 'not_served');
      assert.deepEqual(unserved.json['routes'], []);
      assert.match(unserved.json['description'], /Not served yet/);
    }
    assert.equal((await call(server, 'GET', '/api/v1/clones/protocol-revenue/docs')).json['routes'].length, 2);
    assert.equal((await call(server, 'GET', '/api/v1/clones/nope/docs')).status, 404);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
