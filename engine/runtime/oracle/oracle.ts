/**
 * The price oracle's runtime side: it polls one price source (PRICE_FEED: sim, file or http) and journals
 * what it answers as PostPriceTicks commands, so that the engine and every domain read prices only from
 * the journal and replay needs no source.
 *
 * - On start, every asset of the list that the journal has never priced gets its daily history from the
 *   source (SeedPriceHistory, `historyDays` closes before today), then the source resumes from the last
 *   journaled prices, so a restarted `sim` walk continues where the journal left it.
 * - Every `tickMs` it polls the source. A poll that is still running (an HTTP source waiting on the
 *   network) makes the oracle skip the beat: the sequencer never waits on a source. A failed poll is
 *   logged and counted; the prices it did not bring simply age, and the shell reports a price older than
 *   the stale limit as `stale` rather than freezing it silently.
 * - With `bookMid` (the `sim` feed), an asset traded on the exchange against USDC follows the mid of its
 *   hybrid book whenever the book has both sides: that price is journaled with source `book`.
 */
import { domainCommand } from '../../core/domain.ts';
import { Result, resultCode } from '../../core/results.ts';
import {
  PricesCommandType,
  PriceSource as JournaledSource,
  isPriceE8,
  msPerDay,
  type PostPriceTicks,
  type PriceSource as JournaledSourceCode,
  type SeedPriceHistory,
} from '../../domains/prices/commands.ts';
import { pricesOf } from '../../domains/index.ts';
import type { DurableEngine } from '../durable-engine.ts';
import type { OracleAsset, PriceSource, SourcePrice } from './source.ts';

export interface OracleOptions {
  readonly durable: DurableEngine;
  readonly source: PriceSource;
  readonly assets: readonly OracleAsset[];
  /** The runtime clock, the one the sequencer stamps commands with. */
  readonly clock: () => number;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
  /** How often the source is polled (PRICE_TICK_MS). */
  readonly tickMs: number;
  /** Daily closes asked of the source for an asset the journal has never priced. */
  readonly historyDays: number;
  /** The hybrid-book mid of an exchange-listed asset in price units, or 0 when its book has no mid. */
  readonly bookMid?: (symbol: string) => number;
}

const sourceCodes: Record<PriceSource['name'], JournaledSourceCode> = {
  sim: JournaledSource.sim,
  file: JournaledSource.file,
  http: JournaledSource.http,
};

export class Oracle {
  /** Polls that brought prices, polls that failed, beats skipped because a poll was still running. */
  polls = 0;
  pollsFailed = 0;
  beatsSkipped = 0;
  ticksJournaled = 0;
  private interval: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;
  private readonly symbols: ReadonlySet<string>;

  constructor(private readonly options: OracleOptions) {
    this.symbols = new Set(options.assets.map((asset) => asset.symbol));
  }

  /** Seeds the histories the journal lacks, resumes the source, and starts polling. */
  async start(): Promise<void> {
    await this.seedHistories();
    const prices = pricesOf(this.options.durable.engine);
    const last = new Map<string, number>();
    for (const asset of this.options.assets) {
      const price = prices.priceE8(asset.symbol);
      if (price > 0) last.set(asset.symbol, price);
    }
    this.options.source.resume(last);
    if (this.stopped) return;
    this.interval = setInterval(() => this.beat(), this.options.tickMs);
    this.interval.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.interval !== null) clearInterval(this.interval);
    this.interval = null;
    this.options.source.close();
  }

  /** One poll now (also what each beat does); resolves when its prices are journaled. */
  async pollOnce(): Promise<void> {
    if (this.polling) {
      this.beatsSkipped++;
      return;
    }
    this.polling = true;
    try {
      const nowMs = this.options.clock();
      const answered = await this.options.source.poll(nowMs);
      this.polls++;
      await this.journal(answered);
    } catch (error) {
      this.pollsFailed++;
      // Closing the source aborts the poll in flight; that is no failure worth a log line.
      if (this.stopped) return;
      this.options.log('oracle_poll_failed', { source: this.options.source.name, error: error instanceof Error ? error.message : String(error) });
    } finally {
      this.polling = false;
    }
  }

  private beat(): void {
    if (!this.stopped) void this.pollOnce();
  }

  private async seedHistories(): Promise<void> {
    const { durable, source, historyDays, clock } = this.options;
    const today = Math.floor(clock() / msPerDay);
    for (const asset of this.options.assets) {
      if (this.stopped) return;
      if (pricesOf(durable.engine).asset(asset.symbol) !== undefined) continue;
      const history = source.history(asset.symbol, today, historyDays);
      if (history === null || history.closesE8.length === 0) continue;
      const body: SeedPriceHistory = {
        source: sourceCodes[source.name],
        symbol: asset.symbol,
        firstDay: history.firstDay,
        closesE8: [...history.closesE8],
      };
      const outcome = await durable.submit(domainCommand(PricesCommandType.seedPriceHistory, body));
      if (outcome.result !== Result.ok) this.options.log('oracle_history_refused', { symbol: asset.symbol, result: resultCode(outcome.result) });
    }
  }

  /** Journals the prices of listed assets, the book mids replacing the source where there are any. */
  private async journal(answered: readonly SourcePrice[]): Promise<void> {
    const fromSource: PostPriceTicks = { source: sourceCodes[this.options.source.name], symbols: [], pricesE8: [] };
    const fromBook: PostPriceTicks = { source: JournaledSource.book, symbols: [], pricesE8: [] };
    const seen = new Set<string>();
    const bookMid = this.options.bookMid;
    for (const { symbol, priceE8 } of answered) {
      if (!this.symbols.has(symbol) || seen.has(symbol) || !isPriceE8(priceE8)) continue;
      seen.add(symbol);
      const mid = bookMid === undefined ? 0 : bookMid(symbol);
      const target = isPriceE8(mid) ? fromBook : fromSource;
      target.symbols.push(symbol);
      target.pricesE8.push(target === fromBook ? mid : priceE8);
    }
    for (const body of [fromSource, fromBook]) {
      if (body.symbols.length === 0 || this.stopped) continue;
      const outcome = await this.options.durable.submit(domainCommand(PricesCommandType.postPriceTicks, body));
      if (outcome.result === Result.ok) this.ticksJournaled += body.symbols.length;
      else this.options.log('oracle_ticks_refused', { result: resultCode(outcome.result) });
    }
  }
}
