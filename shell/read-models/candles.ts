/**
 * OHLC candles of live trades, gathered in memory between two of the writer's writes (writer.ts) and
 * written once per (pair, interval, bucket) instead of once per trade: a span of a few milliseconds to
 * 100 ms touches one bucket of each interval per pair (two where a minute turns), so about six upserts per
 * pair stand for all its trades. Buckets are aligned to the Unix epoch, so days start at 00:00 UTC.
 */
export const candleIntervals = [
  { name: '1m', ms: 60_000 },
  { name: '5m', ms: 300_000 },
  { name: '15m', ms: 900_000 },
  { name: '1h', ms: 3_600_000 },
  { name: '4h', ms: 14_400_000 },
  { name: '1d', ms: 86_400_000 },
] as const;
export type CandleIntervalName = (typeof candleIntervals)[number]['name'];

const noBucket = -1;

/** One bucket being filled; reused from write to write. */
export class Candle {
  pairId = 0;
  intervalMs = 0;
  openTimeMs = noBucket;
  openTicks = 0;
  highTicks = 0;
  lowTicks = 0;
  closeTicks = 0;
  volumeLots = 0;
  quoteVolumeAtoms = 0;
  trades = 0;

  start(openTimeMs: number, priceTicks: number): void {
    this.openTimeMs = openTimeMs;
    this.openTicks = priceTicks;
    this.highTicks = priceTicks;
    this.lowTicks = priceTicks;
    this.volumeLots = 0;
    this.quoteVolumeAtoms = 0;
    this.trades = 0;
  }
}

/** The open candles of every pair and interval; `write` stores one (merging it with what is stored). */
export class CandleBuckets {
  private readonly candles: Candle[] = [];

  constructor(
    pairIds: readonly number[],
    private readonly write: (candle: Candle) => void,
  ) {
    for (const pairId of pairIds) {
      for (const interval of candleIntervals) {
        const candle = new Candle();
        candle.pairId = pairId;
        candle.intervalMs = interval.ms;
        this.candles.push(candle);
      }
    }
  }

  /** Adds a trade of the pair at `pairIndex` to its bucket of every interval. */
  add(pairIndex: number, tsMs: number, priceTicks: number, lots: number, notionalAtoms: number): void {
    const first = pairIndex * candleIntervals.length;
    for (let index = first; index < first + candleIntervals.length; index++) {
      const candle = this.candles[index]!;
      const openTimeMs = tsMs - (tsMs % candle.intervalMs);
      if (candle.openTimeMs !== openTimeMs) {
        if (candle.openTimeMs !== noBucket) this.write(candle);
        candle.start(openTimeMs, priceTicks);
      }
      if (priceTicks > candle.highTicks) candle.highTicks = priceTicks;
      if (priceTicks < candle.lowTicks) candle.lowTicks = priceTicks;
      candle.closeTicks = priceTicks;
      candle.volumeLots += lots;
      candle.quoteVolumeAtoms += notionalAtoms;
      candle.trades++;
    }
  }

  /** Writes every candle that has trades and empties them all (each of the writer's writes). */
  flush(): void {
    for (const candle of this.candles) {
      if (candle.openTimeMs === noBucket) continue;
      this.write(candle);
      candle.openTimeMs = noBucket;
    }
  }
}
