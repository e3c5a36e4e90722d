/** createPriceSource makes each of the three sources, and a file it cannot use stops it with the reason. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOracleAssets } from './assets.ts';
import { createPriceSource, type PriceSourceSettings } from './sources.ts';
import { SimSource } from './sim-source.ts';
import { FileSource } from './file-source.ts';
import { HttpSource } from './http-source.ts';

const assets = loadOracleAssets();
const dir = mkdtempSync(join(tmpdir(), 'sources-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('each PRICE_FEED makes its source; a malformed file is refused with its line', () => {
  const good = join(dir, 'good.csv');
  writeFileSync(good, 'timestamp,symbol,price\n2026-01-01,BTC,1\n');
  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, 'timestamp,symbol,price\n2026-01-01,BTC,1\n2026-01-01,ETH,one\n');
  const events: string[] = [];
  const settings: PriceSourceSettings = {
    seed: 1,
    tickMs: 1000,
    filePath: good,
    replayFromMs: undefined,
    url: 'https://prices.example.com/v1',
    timeoutMs: 1000,
    allowPrivate: false,
    log: (event) => events.push(event),
  };
  const sim = createPriceSource('sim', settings, assets);
  const file = createPriceSource('file', settings, assets);
  const http = createPriceSource('http', settings, assets);
  assert.ok(sim instanceof SimSource && sim.name === 'sim');
  assert.ok(file instanceof FileSource && file.name === 'file');
  assert.ok(http instanceof HttpSource && http.name === 'http');
  assert.deepEqual(events, ['price_file_loaded']);
  assert.throws(() => createPriceSource('file', { ...settings, filePath: bad }, assets), /1 malformed row: line 3: price/);
  for (const source of [sim, file, http]) source.close();
});
