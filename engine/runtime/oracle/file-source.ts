/**
 * The `file` price source (PRICE_FEED=file): timestamped prices read once, at start, from PRICE_FILE.
 *
 * Formats (told apart by the first character that is not white space: `[` is JSON, anything else CSV):
 * - CSV with the header line `timestamp,symbol,price`, then one row per line (blank lines ignored, a field
 *   may be wrapped in double quotes, spaces around fields ignored);
 * - a JSON array of `{"timestamp", "symbol", "price"}` objects.
 * `timestamp` is ISO 8601 in UTC or with an offset (`2026-03-01T14:30:00Z`, `…:00.250+01:00`; a date alone,
 * `2026-03-01`, is that day's 00:00 UTC; a date and time without a zone is refused, since it would depend on
 * the machine's zone) or epoch milliseconds (digits; in JSON also a number). `symbol` is matched to the
 * oracle's assets in any case. `price` is a decimal string (in JSON also a number, read through its
 * shortest decimal form), positive, with at most 8 decimals, converted exactly to priceE8.
 *
 * Every row is checked: a row whose symbol is not an asset of the list is skipped and counted; a malformed
 * row (wrong field count, bad timestamp, bad price, empty symbol) refuses the whole file, and the error names
 * the lines (CSV, the header is line 1) or entries (JSON, from 0) at fault. Rows need not be sorted: each
 * asset's rows are ordered by time, rows of equal time in file order (the later one wins).
 *
 * - history(symbol, beforeDay, days): the close of a UTC day is the last row of that day; a day without a
 *   row closes at the previous close; days before the asset's first row have no close (the answer starts
 *   at the asset's first day, or is null when it has no row before beforeDay).
 * - poll(nowMs): for each asset, its latest row at or before nowMs, unless that row was already given.
 *   The first poll thus gives the latest past row of every asset, then rows play as the clock reaches
 *   them; after the last row nothing more comes and the prices age into `stale`.
 *
 * Replay (PRICE_FILE_REPLAY=1, `replayFromMs` = the server's start): the file's last UTC day (the day of
 * its latest row) is what plays, and the days before it are the history. Every row is shifted by the same
 * amount, replayFromMs − (the time of the first row on that last day), so that row plays at the server's
 * start, the later rows keep their spacing after it, and the earlier rows become the past whose daily
 * closes (counted on the shifted timeline) seed the history. Each start shifts anew: a restarted server
 * plays the last day again from its new start.
 */
import { readFileSync, statSync } from 'node:fs';
import { msPerDay, toPriceE8, type DailyCloses, type OracleAsset, type PriceSource, type SourcePrice } from './source.ts';

/** Largest price file read, in bytes. */
export const priceFileBytesMax = 64 * 1024 * 1024;
/** Rows (lines after the header, or entries) a price file may have at most, skipped ones included. */
export const priceFileRowsMax = 1_000_000;
/** Malformed rows named in the error at most (the count covers them all). */
export const priceFileErrorsListedMax = 20;
/** Unknown symbols named in the load report at most. */
export const unknownSymbolsListedMax = 20;
/** Latest timestamp accepted: 9999-12-31T23:59:59.999Z. */
export const timestampMsMax = 253_402_300_799_999;
/** Longest symbol field; longer ones are malformed rather than unknown. */
export const symbolFieldCharsMax = 32;

const csvHeader = 'timestamp,symbol,price';
const epochPattern = /^[0-9]{1,15}$/;
const isoPattern = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,3}))?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$/;
const symbolPattern = /^[\x21-\x7e]+$/;

/**
 * A timestamp as epoch milliseconds, or null when malformed: epoch milliseconds (digits, or an integer
 * number) or ISO 8601 as described above, with the calendar checked (no 30 February).
 */
export function parseTimestampMs(input: unknown): number | null {
  if (typeof input === 'number') return Number.isSafeInteger(input) && input >= 0 && input <= timestampMsMax ? input : null;
  if (typeof input !== 'string') return null;
  if (epochPattern.test(input)) {
    const ms = Number(input);
    return ms <= timestampMsMax ? ms : null;
  }
  const match = isoPattern.exec(input);
  if (match === null) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const hasTime = match[4] !== undefined;
  const [hour, minute, second] = [Number(match[4] ?? 0), Number(match[5] ?? 0), Number(match[6] ?? 0)];
  const milli = Number((match[7] ?? '').padEnd(3, '0'));
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (hasTime && match[8] === undefined) return null;
  const dayStart = Date.UTC(year, month - 1, day);
  if (new Date(dayStart).getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  const zone = match[8];
  if (zone !== undefined && zone !== 'Z') {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMins = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const ms = dayStart + ((hour * 60 + minute) * 60 + second) * 1000 + milli - offsetMinutes * 60_000;
  return ms >= 0 && ms <= timestampMsMax ? ms : null;
}

/** One asset's rows, in time order. */
interface Series {
  readonly timesMs: number[];
  readonly pricesE8: number[];
  /** Index of the row the last poll reached (−1: none yet) and of the last row given. */
  reached: number;
  given: number;
}

interface RawRow {
  readonly timeMs: number;
  readonly priceE8: number;
  readonly order: number;
}

/** What a price file held, before any replay shift. */
export interface PriceFileContents {
  /** Each listed asset's rows with a row in the file: times (ms) and prices, in time order. */
  readonly series: ReadonlyMap<string, { readonly timesMs: readonly number[]; readonly pricesE8: readonly number[] }>;
  readonly rows: number;
  /** Rows skipped because their symbol is not an asset of the list. */
  readonly rowsSkipped: number;
  /** The unknown symbols (at most `unknownSymbolsListedMax`), in order of first appearance. */
  readonly unknownSymbols: readonly string[];
}

/** Thrown for a file that cannot be used; the message names the file and the rows at fault. */
export class PriceFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PriceFileError';
  }
}

function unquoted(field: string): string {
  const trimmed = field.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

/**
 * Parses a price file's text for the given asset symbols (upper case). Throws PriceFileError naming the
 * malformed rows; never returns a partly read file.
 */
export function parsePriceFile(text: string, symbols: ReadonlySet<string>, where = 'price file'): PriceFileContents {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const rowsBySymbol = new Map<string, RawRow[]>();
  const errors: string[] = [];
  let malformed = 0;
  let rows = 0;
  let rowsSkipped = 0;
  const unknown: string[] = [];
  const unknownSeen = new Set<string>();

  const take = (place: string, timestamp: unknown, symbol: unknown, price: unknown): void => {
    rows++;
    if (rows > priceFileRowsMax) throw new PriceFileError(`${where}: more than ${priceFileRowsMax} rows`);
    const problems: string[] = [];
    const timeMs = parseTimestampMs(timestamp);
    if (timeMs === null) problems.push('timestamp must be ISO 8601 with a zone (or a date alone) or epoch milliseconds');
    const name = typeof symbol === 'string' ? symbol.toUpperCase() : '';
    if (name.length === 0 || name.length > symbolFieldCharsMax || !symbolPattern.test(name)) problems.push(`symbol must be 1 to ${symbolFieldCharsMax} printable characters without spaces`);
    const priceE8 = toPriceE8(price);
    if (priceE8 === null) problems.push('price must be a positive decimal of at most 8 decimals');
    if (problems.length > 0) {
      malformed++;
      if (errors.length < priceFileErrorsListedMax) errors.push(`${place}: ${problems.join('; ')}`);
      return;
    }
    if (!symbols.has(name)) {
      rowsSkipped++;
      if (!unknownSeen.has(name)) {
        unknownSeen.add(name);
        if (unknown.length < unknownSymbolsListedMax) unknown.push(name);
      }
      return;
    }
    let list = rowsBySymbol.get(name);
    if (list === undefined) rowsBySymbol.set(name, (list = []));
    list.push({ timeMs: timeMs!, priceE8: priceE8!, order: rows });
  };

  if (body.trimStart().startsWith('[')) {
    let document: unknown;
    try {
      document = JSON.parse(body);
    } catch (error) {
      throw new PriceFileError(`${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!Array.isArray(document)) throw new PriceFileError(`${where}: a JSON price file is an array of {timestamp, symbol, price}`);
    if (document.length > priceFileRowsMax) throw new PriceFileError(`${where}: more than ${priceFileRowsMax} rows`);
    document.forEach((entry: unknown, index) => {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        take(`entry ${index}`, undefined, undefined, undefined);
        return;
      }
      const row = entry as Record<string, unknown>;
      take(`entry ${index}`, row['timestamp'], row['symbol'], row['price']);
    });
  } else {
    const lines = body.split('\n');
    if ((lines[0] ?? '').replace(/\r$/, '').trim() !== csvHeader) throw new PriceFileError(`${where}: line 1 must be the header ${csvHeader}`);
    if (lines.length - 1 > priceFileRowsMax) throw new PriceFileError(`${where}: more than ${priceFileRowsMax} rows`);
    for (let index = 1; index < lines.length; index++) {
      const line = lines[index]!.replace(/\r$/, '');
      if (line.trim() === '') continue;
      const fields = line.split(',');
      if (fields.length !== 3) {
        take(`line ${index + 1}`, undefined, undefined, undefined);
        continue;
      }
      take(`line ${index + 1}`, unquoted(fields[0]!), unquoted(fields[1]!), unquoted(fields[2]!));
    }
  }

  if (malformed > 0) throw new PriceFileError(`${where}: ${malformed} malformed row${malformed === 1 ? '' : 's'}: ${errors.join(' | ')}${malformed > errors.length ? ' | …' : ''}`);
  if (rowsBySymbol.size === 0) throw new PriceFileError(`${where}: no row prices an asset of the oracle's list${unknown.length > 0 ? ` (found ${unknown.join(', ')})` : ''}`);
  const series = new Map<string, { timesMs: number[]; pricesE8: number[] }>();
  for (const [symbol, list] of rowsBySymbol) {
    list.sort((a, b) => a.timeMs - b.timeMs || a.order - b.order);
    series.set(symbol, { timesMs: list.map((row) => row.timeMs), pricesE8: list.map((row) => row.priceE8) });
  }
  return { series, rows, rowsSkipped, unknownSymbols: unknown };
}

/**
 * The replay shift of a file: replayFromMs minus the time of the first row on the UTC day of the file's
 * latest row (see the module comment).
 */
export function replayShiftMs(contents: PriceFileContents, replayFromMs: number): number {
  let lastMs = -Infinity;
  for (const { timesMs } of contents.series.values()) lastMs = Math.max(lastMs, timesMs.at(-1)!);
  const lastDayStartMs = Math.floor(lastMs / msPerDay) * msPerDay;
  let firstOfLastDayMs = Infinity;
  for (const { timesMs } of contents.series.values()) {
    for (const timeMs of timesMs) {
      if (timeMs >= lastDayStartMs) {
        firstOfLastDayMs = Math.min(firstOfLastDayMs, timeMs);
        break;
      }
    }
  }
  return replayFromMs - firstOfLastDayMs;
}

export interface FileSourceOptions {
  /** PRICE_FILE_REPLAY: play the file's last day from this time (the server's start). */
  readonly replayFromMs?: number | undefined;
  /** Told once what the file held (rows, skipped rows, unknown symbols, the replay shift). */
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

export class FileSource implements PriceSource {
  readonly name = 'file';
  /** Rows read, and rows skipped for an unknown symbol. */
  readonly rows: number;
  readonly rowsSkipped: number;
  readonly unknownSymbols: readonly string[];
  /** What every row's time was moved by (0 without replay). */
  readonly shiftMs: number;
  private readonly series = new Map<string, Series>();

  constructor(path: string, assets: readonly OracleAsset[], options: FileSourceOptions = {}) {
    let size: number;
    try {
      size = statSync(path).size;
    } catch (error) {
      throw new PriceFileError(`PRICE_FILE ${path} cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    if (size > priceFileBytesMax) throw new PriceFileError(`PRICE_FILE ${path} is larger than ${priceFileBytesMax} bytes`);
    const contents = parsePriceFile(readFileSync(path, 'utf8'), new Set(assets.map((asset) => asset.symbol)), `PRICE_FILE ${path}`);
    this.rows = contents.rows;
    this.rowsSkipped = contents.rowsSkipped;
    this.unknownSymbols = contents.unknownSymbols;
    this.shiftMs = options.replayFromMs === undefined ? 0 : replayShiftMs(contents, options.replayFromMs);
    for (const [symbol, { timesMs, pricesE8 }] of contents.series) {
      this.series.set(symbol, { timesMs: timesMs.map((timeMs) => timeMs + this.shiftMs), pricesE8: [...pricesE8], reached: -1, given: -1 });
    }
    options.log?.('price_file_loaded', {
      path,
      rows: this.rows,
      rows_skipped: this.rowsSkipped,
      unknown_symbols: this.unknownSymbols,
      assets: this.series.size,
      shift_ms: this.shiftMs,
    });
  }

  history(symbol: string, beforeDay: number, days: number): DailyCloses | null {
    const series = this.series.get(symbol);
    if (series === undefined || days <= 0) return null;
    const { timesMs, pricesE8 } = series;
    const firstDataDay = Math.floor(timesMs[0]! / msPerDay);
    const firstDay = Math.max(beforeDay - days, firstDataDay);
    if (firstDay >= beforeDay) return null;
    const closesE8: number[] = [];
    let index = -1;
    for (let day = firstDay; day < beforeDay; day++) {
      const endMs = (day + 1) * msPerDay;
      while (index + 1 < timesMs.length && timesMs[index + 1]! < endMs) index++;
      // The first day has a row (firstDay is at or after the first row's day), so index is set from here on.
      closesE8.push(pricesE8[index]!);
    }
    return { firstDay, closesE8 };
  }

  /** The file is the truth: the journal's last prices change nothing (the first poll gives the latest past row). */
  resume(): void {}

  poll(nowMs: number): SourcePrice[] {
    const prices: SourcePrice[] = [];
    for (const [symbol, series] of this.series) {
      const { timesMs, pricesE8 } = series;
      while (series.reached + 1 < timesMs.length && timesMs[series.reached + 1]! <= nowMs) series.reached++;
      if (series.reached > series.given) {
        series.given = series.reached;
        prices.push({ symbol, priceE8: pricesE8[series.reached]! });
      }
    }
    return prices;
  }

  close(): void {}
}
