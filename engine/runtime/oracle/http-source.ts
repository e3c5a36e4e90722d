/**
 * The `http` price source (PRICE_FEED=http): each poll GETs PRICE_HTTP_URL through the guarded outbound
 * fetch (public addresses only unless OUTBOUND_ALLOW_PRIVATE=1, redirects re-checked, PRICE_HTTP_TIMEOUT_MS
 * for the whole request, at most `httpPricesBytesMax` bytes, a JSON content type required) and expects
 *
 *   {"prices": {"BTC": "97000.12", "ETH": 3012.5, ...}}
 *
 * Values are decimal strings or numbers (a number is read through its shortest decimal form), positive,
 * with at most 8 decimals, converted exactly to priceE8. Keys are matched to the oracle's assets in any
 * case; other keys are ignored (counted in `symbolsIgnored`); a listed asset with a bad value is skipped
 * (counted in `valuesSkipped`) while the other prices of the answer still count. An answer without a
 * `prices` object, with more than `httpPricesEntriesMax` entries, or a failed request (refused, timed out,
 * too large, not 2xx, not JSON) rejects the poll: the oracle logs it, and the prices it did not bring age
 * into `stale`. The source knows no history (history() is null): the journal's daily closes start with the
 * first polled day.
 */
import { outboundFetchJson } from '../outbound/fetch.ts';
import { toPriceE8, type DailyCloses, type OracleAsset, type PriceSource, type SourcePrice } from './source.ts';

/** Largest answer read, in bytes. */
export const httpPricesBytesMax = 256 * 1024;
/** Entries of the `prices` object at most; a larger answer is refused whole. */
export const httpPricesEntriesMax = 1000;

export interface HttpSourceOptions {
  readonly url: string;
  readonly timeoutMs: number;
  /** OUTBOUND_ALLOW_PRIVATE: tests only. */
  readonly allowPrivate: boolean;
}

export class HttpSource implements PriceSource {
  readonly name = 'http';
  /** Keys of answers that are not assets of the list, and values of listed assets that were not prices. */
  symbolsIgnored = 0;
  valuesSkipped = 0;
  private readonly bySymbol = new Map<string, string>();
  /** Aborts the poll in flight when the source closes. */
  private readonly closing = new AbortController();

  constructor(
    assets: readonly OracleAsset[],
    private readonly options: HttpSourceOptions,
  ) {
    for (const asset of assets) this.bySymbol.set(asset.symbol, asset.symbol);
  }

  history(): DailyCloses | null {
    return null;
  }

  resume(): void {}

  async poll(): Promise<SourcePrice[]> {
    const answer = await outboundFetchJson(this.options.url, {
      timeoutMs: this.options.timeoutMs,
      bytesMax: httpPricesBytesMax,
      allowPrivate: this.options.allowPrivate,
      signal: this.closing.signal,
    });
    return this.read(answer);
  }

  /** The prices of one answer; throws when it has not the expected shape. */
  private read(answer: unknown): SourcePrice[] {
    const prices = answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? (answer as Record<string, unknown>)['prices'] : undefined;
    if (prices === null || typeof prices !== 'object' || Array.isArray(prices)) throw new Error('the answer has no "prices" object');
    const entries = Object.entries(prices as Record<string, unknown>);
    if (entries.length > httpPricesEntriesMax) throw new Error(`the answer has more than ${httpPricesEntriesMax} prices`);
    const result: SourcePrice[] = [];
    const seen = new Set<string>();
    for (const [key, value] of entries) {
      const symbol = this.bySymbol.get(key.toUpperCase());
      if (symbol === undefined || seen.has(symbol)) {
        this.symbolsIgnored++;
        continue;
      }
      const priceE8 = toPriceE8(value);
      if (priceE8 === null) {
        this.valuesSkipped++;
        continue;
      }
      seen.add(symbol);
      result.push({ symbol, priceE8 });
    }
    return result;
  }

  close(): void {
    this.closing.abort(new Error('the http price source is closed'));
  }
}
