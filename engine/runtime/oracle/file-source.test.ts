/**
 * The `file` source on small files in a temporary directory: both formats, exact prices, the checks (unknown
 * symbols skipped and counted, malformed rows refused with their lines, the row limit), daily closes carried
 * over gap days, polls that give each row once as the clock reaches it, and the replay shift.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOracleAssets } from './assets.ts';
import { FileSource, PriceFileError, parsePriceFile, parseTimestampMs, priceFileRowsMax } from './file-source.ts';
import { msPerDay } from './source.ts';

const assets = loadOracleAssets();
const dir = mkdtempSync(join(tmpdir(), 'price-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function file(text: string, extension = 'csv'): string {
  const path = join(dir, `prices-${files++}.${extension}`);
  writeFileSync(path, text);
  return path;
}

const day = 20_500; // 2026-02-16
const iso = (dayNumber: number, time = '00:00:00'): string => `${new Date(dayNumber * msPerDay).toISOString().slice(0, 10)}T${time}Z`;

test('timestamps: ISO 8601 with a zone, a date alone, or epoch milliseconds; nothing ambiguous', () => {
  assert.equal(parseTimestampMs('2026-03-01T14:30:00Z'), Date.UTC(2026, 2, 1, 14, 30));
  assert.equal(parseTimestampMs('2026-03-01T14:30:00.25+01:00'), Date.UTC(2026, 2, 1, 13, 30, 0, 250));
  assert.equal(parseTimestampMs('2026-03-01T14:30-02:30'), Date.UTC(2026, 2, 1, 17, 0));
  assert.equal(parseTimestampMs('2026-03-01'), Date.UTC(2026, 2, 1));
  assert.equal(parseTimestampMs('1772375400000'), 1_772_375_400_000);
  assert.equal(parseTimestampMs(1_772_375_400_000), 1_772_375_400_000);
  for (const bad of ['2026-03-01T14:30:00', '2026-02-30', '2026-13-01', '2026-03-01T24:00:00Z', '2026-3-1', '1.5', '-5', 'yesterday', '', 1.5, -1, null]) {
    assert.equal(parseTimestampMs(bad), null, String(bad));
  }
});

test('CSV and JSON give the same exact prices; unknown symbols are skipped and counted', () => {
  const csv = file(
    [
      'timestamp,symbol,price',
      `${iso(day, '10:00:00')},BTC,97000.12`,
      `${iso(day, '11:00:00')},eth,"3000.00000001"`,
      `${iso(day, '12:00:00')},NOPE,1`,
      '',
      `${(day + 1) * msPerDay},BTC,0.1`,
      '',
    ].join('\r\n'),
  );
  const json = file(
    JSON.stringify([
      { timestamp: iso(day, '10:00:00'), symbol: 'BTC', price: '97000.12' },
      { timestamp: iso(day, '11:00:00'), symbol: 'ETH', price: '3000.00000001' },
      { timestamp: iso(day, '12:00:00'), symbol: 'NOPE', price: 1 },
      { timestamp: (day + 1) * msPerDay, symbol: 'BTC', price: 0.1 },
    ]),
    'json',
  );
  const logged: Array<Record<string, unknown>> = [];
  const fromCsv = new FileSource(csv, assets, { log: (_event, fields) => logged.push(fields) });
  const fromJson = new FileSource(json, assets);
  for (const source of [fromCsv, fromJson]) {
    assert.equal(source.rows, 4);
    assert.equal(source.rowsSkipped, 1);
    assert.deepEqual(source.unknownSymbols, ['NOPE']);
    assert.deepEqual(source.poll((day + 2) * msPerDay), [
      { symbol: 'BTC', priceE8: 10_000_000 },
      { symbol: 'ETH', priceE8: 300_000_000_001 },
    ]);
  }
  assert.equal(logged[0]!['rows_skipped'], 1);
});

test('malformed rows refuse the file, naming their lines or entries', () => {
  const csv = file(
    [
      'timestamp,symbol,price',
      `${iso(day)},BTC,97000.12`,
      `${iso(day)},BTC,97000.123456789`,
      `2026-02-16T10:00:00,BTC,1`,
      `${iso(day)},BTC`,
      `${iso(day)},,1`,
      `${iso(day)},NOPE,-3`,
      `${iso(day)},ETH,0`,
    ].join('\n'),
  );
  assert.throws(
    () => new FileSource(csv, assets),
    (error: unknown) => {
      assert.ok(error instanceof PriceFileError);
      assert.match(error.message, /6 malformed rows/);
      for (const line of [3, 4, 5, 6, 7, 8]) assert.match(error.message, new RegExp(`line ${line}: `));
      assert.doesNotMatch(error.message, /line 2:/);
      return true;
    },
  );
  const json = file(JSON.stringify([{ timestamp: iso(day), symbol: 'BTC', price: '1' }, { timestamp: iso(day), symbol: 'BTC', price: 'x' }, 7]), 'json');
  assert.throws(() => new FileSource(json, assets), /2 malformed rows: entry 1: price .* \| entry 2: /);
  assert.throws(() => new FileSource(file('time,symbol,price\n1,BTC,1\n'), assets), /line 1 must be the header/);
  assert.throws(() => new FileSource(file('[{"timestamp": 1,'), assets), /not valid JSON/);
  assert.throws(() => new FileSource(file('timestamp,symbol,price\n1,NOPE,1\n'), assets), /no row prices an asset .*NOPE/);
  assert.throws(() => new FileSource(join(dir, 'absent.csv'), assets), /cannot be read/);
});

test('a file past the row limit is refused', () => {
  const symbols = new Set(['BTC']);
  const text = `timestamp,symbol,price\n${'1,BTC,1\n'.repeat(priceFileRowsMax + 1)}`;
  assert.throws(() => parsePriceFile(text, symbols), /more than 1000000 rows/);
  const json = `[${new Array(priceFileRowsMax + 1).fill('{"timestamp":1,"symbol":"BTC","price":"1"}').join(',')}]`;
  assert.throws(() => parsePriceFile(json, symbols), /more than 1000000 rows/);
});

test('daily closes: the last row of each day, carried over gap days, none before the first row', () => {
  const path = file(
    [
      'timestamp,symbol,price',
      // Out of order on purpose: rows are sorted by time, equal times in file order.
      `${iso(day + 3, '09:00:00')},BTC,130`,
      `${iso(day, '09:00:00')},BTC,100`,
      `${iso(day, '18:00:00')},BTC,101`,
      `${iso(day + 1, '23:59:59')},BTC,110`,
      `${iso(day + 1, '23:59:59')},BTC,111`,
      `${iso(day + 5, '00:00:00')},BTC,150`,
    ].join('\n'),
  );
  const source = new FileSource(path, assets);
  const e8 = 100_000_000;
  assert.deepEqual(source.history('BTC', day + 5, 10), { firstDay: day, closesE8: [101 * e8, 111 * e8, 111 * e8, 130 * e8, 130 * e8] });
  assert.deepEqual(source.history('BTC', day + 5, 2), { firstDay: day + 3, closesE8: [130 * e8, 130 * e8] });
  assert.deepEqual(source.history('BTC', day + 7, 3), { firstDay: day + 4, closesE8: [130 * e8, 150 * e8, 150 * e8] });
  assert.equal(source.history('BTC', day, 10), null, 'nothing before the first row');
  assert.equal(source.history('ETH', day + 5, 10), null, 'an asset without rows');
  assert.equal(source.history('BTC', day + 5, 0), null);
});

test('polls give each asset its latest row at or before now, once', () => {
  const path = file(
    JSON.stringify([
      { timestamp: iso(day, '10:00:00'), symbol: 'BTC', price: '1' },
      { timestamp: iso(day, '10:00:01'), symbol: 'BTC', price: '2' },
      { timestamp: iso(day, '10:00:05'), symbol: 'BTC', price: '3' },
      { timestamp: iso(day, '10:00:03'), symbol: 'ETH', price: '4' },
    ]),
    'json',
  );
  const source = new FileSource(path, assets);
  const at = (time: string): number => Date.parse(iso(day, time));
  assert.deepEqual(source.poll(at('09:59:59')), []);
  assert.deepEqual(source.poll(at('10:00:02')), [{ symbol: 'BTC', priceE8: 200_000_000 }]);
  assert.deepEqual(source.poll(at('10:00:02')), [], 'nothing new');
  assert.deepEqual(source.poll(at('10:00:04')), [{ symbol: 'ETH', priceE8: 400_000_000 }]);
  assert.deepEqual(source.poll(at('10:00:05')), [{ symbol: 'BTC', priceE8: 300_000_000 }]);
  assert.deepEqual(source.poll(at('23:00:00')), [], 'after the last row nothing more comes');
  // The same file polled on another schedule gives the same prices at the same times.
  const again = new FileSource(path, assets);
  assert.deepEqual(again.poll(at('10:00:05')), [
    { symbol: 'BTC', priceE8: 300_000_000 },
    { symbol: 'ETH', priceE8: 400_000_000 },
  ]);
});

test('replay: the first row of the file\'s last day plays at the start, earlier days become the history', () => {
  const path = file(
    [
      'timestamp,symbol,price',
      `${iso(day - 2, '12:00:00')},BTC,100`,
      `${iso(day - 1, '12:00:00')},BTC,110`,
      `${iso(day, '06:00:00')},ETH,50`,
      `${iso(day, '06:00:10')},BTC,120`,
      `${iso(day, '06:00:20')},BTC,121`,
    ].join('\n'),
  );
  const startMs = Date.parse('2026-11-25T08:30:00.500Z');
  const source = new FileSource(path, assets, { replayFromMs: startMs });
  assert.equal(source.shiftMs, startMs - Date.parse(iso(day, '06:00:00')));
  const startDay = Math.floor(startMs / msPerDay);
  const e8 = 100_000_000;
  // The history rows moved by the same shift: 08:30:00.5 − 06:00 = 2.5 h later, still on their own days.
  assert.deepEqual(source.history('BTC', startDay, 5), { firstDay: startDay - 2, closesE8: [100 * e8, 110 * e8] });
  assert.deepEqual(source.poll(startMs - 1), [{ symbol: 'BTC', priceE8: 110 * e8 }], 'before the start: the past');
  assert.deepEqual(source.poll(startMs), [{ symbol: 'ETH', priceE8: 50 * e8 }], 'the first row of the last day at the start');
  assert.deepEqual(source.poll(startMs + 10_000), [{ symbol: 'BTC', priceE8: 120 * e8 }]);
  assert.deepEqual(source.poll(startMs + 19_999), []);
  assert.deepEqual(source.poll(startMs + 20_000), [{ symbol: 'BTC', priceE8: 121 * e8 }]);
  const plain = new FileSource(path, assets);
  assert.equal(plain.shiftMs, 0);
});
