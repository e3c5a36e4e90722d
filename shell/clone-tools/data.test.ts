/**
 * The data adapter: a CLONE_TOOLS_DATA_FILE of the documented shape loads (labelled "file", trades sorted,
 * days numbered), a malformed entry stops the start naming it, and the sample names every wallet and
 * protocol as sample data and is the same for the same seed and time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileData, SampleData, parseData } from './data.ts';

test('a data file loads in the documented shape; a malformed entry is named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clone-data-'));
  try {
    const path = join(dir, 'data.json');
    writeFileSync(
      path,
      JSON.stringify({
        wallets: [
          { address: 'FileWalletA', label: 'File wallet A', chain: 'solana', trades: [{ token: 'X', side: 'sell', amount_usd: '20', time: '2026-01-02T00:00:00Z' }, { token: 'X', side: 'buy', amount_usd: 10, time: '2026-01-01T00:00:00Z' }] },
        ],
        protocols: [{ slug: 'file-dex', name: 'File Dex', chain: 'base', category: 'dex', daily: [{ date: '2026-01-01', fees_usd: '5.5', revenue_usd: 1 }] }],
      }),
    );
    const data = new FileData(path);
    assert.equal(data.source, 'file');
    assert.deepEqual(data.wallets('solana')[0]!.trades.map((trade) => trade.side), ['buy', 'sell']);
    assert.deepEqual(data.wallets('robinhood'), []);
    assert.deepEqual(data.protocols()[0]!.daily, [{ day: Date.parse('2026-01-01T00:00:00Z') / 86_400_000, feesUsd: 5.5, revenueUsd: 1 }]);
    assert.throws(() => parseData({ wallets: [{ address: 'A', label: 'a', chain: 'solana', trades: [{ token: 'X', side: 'hold', amount_usd: 1, time: '2026-01-01T00:00:00Z' }] }] }, 'f'), /f: wallets\[0\]\.trades\[0\]\.side: must be buy or sell/);
    assert.throws(() => parseData({ protocols: [{ slug: 'Bad Slug', name: 'n', chain: 'c', category: 'c', daily: [] }] }, 'f'), /protocols\[0\]\.slug/);
    assert.throws(() => parseData({ wallets: [{ address: 'A', label: 'a', chain: 'solana', trades: [{ token: 'X', side: 'buy', amount_usd: 1, time: '2026-01-01T00:00:00' }] }] }, 'f'), /time: must be ISO 8601 with a zone/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the sample is labelled as sample data and seeded', () => {
  const nowMs = 1_767_225_600_000;
  const sample = new SampleData(3, nowMs);
  assert.equal(sample.source, 'sample');
  for (const wallet of [...sample.wallets('solana'), ...sample.wallets('robinhood')]) assert.match(wallet.label, /^Sample wallet .*\(fictional\)$/);
  for (const protocol of sample.protocols()) assert.match(protocol.name, /^Sample Protocol /);
  assert.deepEqual(new SampleData(3, nowMs).protocols(), sample.protocols());
  assert.notDeepEqual(new SampleData(4, nowMs).protocols(), sample.protocols());
});
