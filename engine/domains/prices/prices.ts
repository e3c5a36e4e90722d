/**
 * The price oracle's state in the engine: for each asset the last journaled price, its source and time,
 * its daily closes, and the hourly prices of the last day (for change_24h). Prices enter only through
 * journaled commands (PostPriceTicks from the runtime's oracle, SeedPriceHistory once per asset on the
 * first start), so every domain reads prices deterministically and replay needs no oracle.
 *
 * Rules:
 * - a tick sets the asset's price; the daily close of the tick's UTC day becomes that price (the last tick
 *   of a day is its close); days without a tick between two ticks close at the previous close (carried
 *   forward), so the closes stay one per calendar day; at most `closesKeptMax` closes are kept;
 * - a history is accepted once per asset, before its first price, and ends before the command's day; the
 *   asset's price is then its last close, timed at the end of that day;
 * - change_24h compares the price with a reference: the last price of the hour 24 hours before the latest
 *   tick's hour; when no tick is that old, the close of the day before the latest tick's day; when there is
 *   none either, the oldest price of the last 24 hours.
 */
import { assert } from '../../core/assert.ts';
import type { Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import type { DomainPort } from '../../core/port.ts';
import type { ResultCode } from '../../core/results.ts';
import { Result } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';
import {
  PricesCommandType,
  PricesEventType,
  PricesResult,
  closesKeptMax,
  hourRingSize,
  msPerDay,
  msPerHour,
  priceAssetsMax,
  validHistory,
  validTicks,
  type PostPriceTicks,
  type PriceHistorySeeded,
  type PriceSource,
  type PricesTicked,
  type SeedPriceHistory,
} from './commands.ts';

/** One priced asset. */
export class AssetPrice {
  priceE8 = 0;
  source: PriceSource = 0;
  updatedMs = 0;
  /** Day of `closesE8[0]`; the closes run one per day from there. */
  firstDay = 0;
  readonly closesE8: number[] = [];
  /** The last price of each of the last hours, at slot hour % hourRingSize; -1 hours are empty slots. */
  readonly ringHours: number[] = new Array<number>(hourRingSize).fill(-1);
  readonly ringPricesE8: number[] = new Array<number>(hourRingSize).fill(0);

  constructor(readonly symbol: string) {}

  get lastDay(): number {
    return this.firstDay + this.closesE8.length - 1;
  }

  /** The close of `day`, or 0 when the asset has none. */
  closeOf(day: number): number {
    const index = day - this.firstDay;
    return index >= 0 && index < this.closesE8.length ? this.closesE8[index]! : 0;
  }
}

/** The fields of an asset in snapshots and in the hash (its arrays follow). */
interface AssetRow {
  symbol: string;
  priceE8: number;
  source: number;
  updatedMs: number;
  firstDay: number;
  closesE8: number[];
  ringHours: number[];
  ringPricesE8: number[];
}

export interface PricesSnapshot {
  assets: AssetRow[];
}

export class Prices implements DomainModule {
  static readonly domainName = 'prices';
  readonly name = Prices.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [PricesCommandType.postPriceTicks, PricesCommandType.seedPriceHistory];
  /** Assets in the order they were first priced (journal order: the same on every replay). */
  private readonly assets = new Map<string, AssetPrice>();
  private readonly tickListeners: Array<(symbols: readonly string[], nowMs: number) => void> = [];

  constructor(private readonly port: DomainPort) {}

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the prices module gets domain commands only');
    switch (command.type) {
      case PricesCommandType.postPriceTicks:
        return this.postTicks(command.body as PostPriceTicks);
      case PricesCommandType.seedPriceHistory:
        return this.seedHistory(command.body as SeedPriceHistory);
      default:
        return Result.unknownCommand;
    }
  }

  // Queries (read by the shell and by other domains through the port).

  /** The asset's state, or undefined when the oracle never priced it. */
  asset(symbol: string): AssetPrice | undefined {
    return this.assets.get(symbol);
  }

  /** The latest price in units of 10^-8 USD, or 0 when the asset has none. */
  priceE8(symbol: string): number {
    return this.assets.get(symbol)?.priceE8 ?? 0;
  }

  /** Priced symbols, in the order they were first priced. */
  symbols(): string[] {
    return [...this.assets.keys()];
  }

  /** The reference price change_24h compares with (see the rules above); 0 when there is none. */
  referenceE8(asset: AssetPrice): number {
    const hour = Math.floor(asset.updatedMs / msPerHour);
    const dayAgo = hour - 24;
    const exact = dayAgo % hourRingSize;
    if (asset.ringHours[exact] === dayAgo) return asset.ringPricesE8[exact]!;
    const previousClose = asset.closeOf(Math.floor(asset.updatedMs / msPerDay) - 1);
    if (previousClose > 0) return previousClose;
    let oldestHour = Number.MAX_SAFE_INTEGER;
    let oldestPrice = 0;
    for (let slot = 0; slot < hourRingSize; slot++) {
      const slotHour = asset.ringHours[slot]!;
      if (slotHour >= dayAgo && slotHour < oldestHour) {
        oldestHour = slotHour;
        oldestPrice = asset.ringPricesE8[slot]!;
      }
    }
    return oldestPrice;
  }

  /** The last `days` daily closes, oldest first, ending with the latest close. */
  closes(symbol: string, days: number): { firstDay: number; closesE8: number[] } | undefined {
    const asset = this.assets.get(symbol);
    if (asset === undefined || asset.closesE8.length === 0) return undefined;
    const count = Math.min(days, asset.closesE8.length);
    const start = asset.closesE8.length - count;
    return { firstDay: asset.firstDay + start, closesE8: asset.closesE8.slice(start) };
  }

  // Commands.

  private postTicks(body: PostPriceTicks): ResultCode {
    if (!validTicks(body)) return PricesResult.invalidTicks;
    let fresh = 0;
    for (const symbol of body.symbols) if (!this.assets.has(symbol)) fresh++;
    if (this.assets.size + fresh > priceAssetsMax) return PricesResult.tooManyAssets;
    const nowMs = this.port.commandTimeMs();
    for (let index = 0; index < body.symbols.length; index++) {
      const symbol = body.symbols[index]!;
      let asset = this.assets.get(symbol);
      if (asset === undefined) {
        asset = new AssetPrice(symbol);
        this.assets.set(symbol, asset);
      }
      this.tick(asset, body.source, body.pricesE8[index]!, nowMs);
    }
    const event: PricesTicked = { source: body.source, symbols: [...body.symbols], pricesE8: [...body.pricesE8], timestampMs: nowMs };
    this.port.emit(domainEvent(PricesEventType.pricesTicked, event));
    for (const listener of this.tickListeners) listener(body.symbols, nowMs);
    return Result.ok;
  }

  /**
   * Calls `listener` after every accepted PostPriceTicks, with the symbols it priced and its time, inside
   * the same command: a domain that must act at a journaled price (a liquidation, a market waiting for
   * its first price) registers here when it is created, so the action replays at the same tick. The
   * listener runs after the prices are set and the PricesTicked event is emitted; the tick cannot be
   * refused any more, so the listener must not fail. Listeners run in registration order (the domain
   * list's order).
   */
  onTicked(listener: (symbols: readonly string[], nowMs: number) => void): void {
    this.tickListeners.push(listener);
  }

  private tick(asset: AssetPrice, source: PriceSource, priceE8: number, nowMs: number): void {
    asset.priceE8 = priceE8;
    asset.source = source;
    asset.updatedMs = nowMs;
    const hour = Math.floor(nowMs / msPerHour);
    asset.ringHours[hour % hourRingSize] = hour;
    asset.ringPricesE8[hour % hourRingSize] = priceE8;
    const day = Math.floor(nowMs / msPerDay);
    const closes = asset.closesE8;
    if (closes.length === 0) {
      asset.firstDay = day;
      closes.push(priceE8);
      return;
    }
    const lastDay = asset.lastDay;
    // A journaled time never goes back, but a history may end on the tick's day at the latest.
    if (day < lastDay) return;
    if (day === lastDay) {
      closes[closes.length - 1] = priceE8;
      return;
    }
    const carried = closes[closes.length - 1]!;
    const missing = day - lastDay - 1;
    if (missing >= closesKeptMax) {
      // A gap longer than the whole window (the runtime was down for years): only carried closes remain.
      closes.length = 0;
      asset.firstDay = day - closesKeptMax + 1;
      for (let index = 1; index < closesKeptMax; index++) closes.push(carried);
    } else {
      for (let index = 0; index < missing; index++) closes.push(carried);
    }
    closes.push(priceE8);
    this.trim(asset);
  }

  private trim(asset: AssetPrice): void {
    const excess = asset.closesE8.length - closesKeptMax;
    if (excess <= 0) return;
    asset.closesE8.splice(0, excess);
    asset.firstDay += excess;
  }

  private seedHistory(body: SeedPriceHistory): ResultCode {
    const nowMs = this.port.commandTimeMs();
    if (!validHistory(body, Math.floor(nowMs / msPerDay))) return PricesResult.invalidHistory;
    if (this.assets.has(body.symbol)) return PricesResult.historyExists;
    if (this.assets.size + 1 > priceAssetsMax) return PricesResult.tooManyAssets;
    const asset = new AssetPrice(body.symbol);
    asset.firstDay = body.firstDay;
    asset.closesE8.push(...body.closesE8);
    this.trim(asset);
    asset.priceE8 = body.closesE8[body.closesE8.length - 1]!;
    asset.source = body.source;
    asset.updatedMs = (asset.lastDay + 1) * msPerDay - 1;
    this.assets.set(body.symbol, asset);
    const event: PriceHistorySeeded = { source: body.source, symbol: body.symbol, firstDay: body.firstDay, closesE8: [...body.closesE8] };
    this.port.emit(domainEvent(PricesEventType.priceHistorySeeded, event));
    return Result.ok;
  }

  // Timers: none; prices move only on ticks.

  nextTimerMs(): number {
    return noTimerMs;
  }

  runTimers(): void {}

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    if (this.assets.size === 0) return;
    hasher.number(-11);
    hasher.number(this.assets.size);
    for (const asset of this.assets.values()) {
      hasher.string(asset.symbol);
      hasher.number(asset.priceE8);
      hasher.number(asset.source);
      hasher.number(asset.updatedMs);
      hasher.number(asset.firstDay);
      hasher.number(asset.closesE8.length);
      for (const close of asset.closesE8) hasher.number(close);
      for (let slot = 0; slot < hourRingSize; slot++) {
        hasher.number(asset.ringHours[slot]!);
        hasher.number(asset.ringPricesE8[slot]!);
      }
    }
  }

  snapshot(): PricesSnapshot | null {
    if (this.assets.size === 0) return null;
    const assets: AssetRow[] = [];
    for (const asset of this.assets.values()) {
      assets.push({
        symbol: asset.symbol,
        priceE8: asset.priceE8,
        source: asset.source,
        updatedMs: asset.updatedMs,
        firstDay: asset.firstDay,
        closesE8: [...asset.closesE8],
        ringHours: [...asset.ringHours],
        ringPricesE8: [...asset.ringPricesE8],
      });
    }
    return { assets };
  }

  restore(state: unknown): void {
    assert(this.assets.size === 0, 'restore needs fresh prices');
    const data = state as Partial<PricesSnapshot> | null;
    if (data === null || typeof data !== 'object' || !Array.isArray(data.assets) || data.assets.length > priceAssetsMax) {
      throw new Error('prices snapshot: malformed');
    }
    for (const row of data.assets as unknown[]) {
      const fields = row as Partial<AssetRow>;
      const integers = [fields.priceE8, fields.source, fields.updatedMs, fields.firstDay];
      if (
        typeof fields.symbol !== 'string' ||
        this.assets.has(fields.symbol) ||
        !integers.every((value) => Number.isSafeInteger(value)) ||
        !Array.isArray(fields.closesE8) ||
        fields.closesE8.length > closesKeptMax ||
        !fields.closesE8.every((value) => Number.isSafeInteger(value)) ||
        !Array.isArray(fields.ringHours) ||
        !Array.isArray(fields.ringPricesE8) ||
        fields.ringHours.length !== hourRingSize ||
        fields.ringPricesE8.length !== hourRingSize
      ) {
        throw new Error('prices snapshot: malformed asset');
      }
      const asset = new AssetPrice(fields.symbol);
      asset.priceE8 = fields.priceE8!;
      asset.source = fields.source as PriceSource;
      asset.updatedMs = fields.updatedMs!;
      asset.firstDay = fields.firstDay!;
      asset.closesE8.push(...fields.closesE8);
      for (let slot = 0; slot < hourRingSize; slot++) {
        asset.ringHours[slot] = fields.ringHours[slot] as number;
        asset.ringPricesE8[slot] = fields.ringPricesE8[slot] as number;
      }
      this.assets.set(asset.symbol, asset);
    }
  }
}
