/**
 * The prices module of the shell: the durable prices view, the routes on it, and the oracle that journals
 * prices from the source PRICE_FEED names. Exchange-listed assets follow the mid of their hybrid book
 * (quoted in USDC) under the `sim` feed.
 */
import type { ShellModule } from '../shell-module.ts';
import type { ShellContext } from '../context.ts';
import { Oracle } from '../../engine/runtime/oracle/oracle.ts';
import { priceScale } from '../../engine/runtime/oracle/source.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { createPriceSource } from '../../engine/runtime/oracle/sources.ts';
import { PricesView } from './view.ts';
import { pricesRoutes } from './routes.ts';

/** The hybrid-book mid of `symbol`/USDC in price units (10^-8 USD), or 0 without a two-sided book. */
function bookMid(context: ShellContext, symbol: string): number {
  const pair = context.markets.pairBySymbol(symbol);
  if (pair === undefined || pair.quote.symbol !== 'USDC') return 0;
  const bid = context.marketData.hybridBest(pair, 0);
  const ask = context.marketData.hybridBest(pair, 1);
  if (bid < 0 || ask < 0) return 0;
  // ticks × tick size, in USD at 10^-8: (bid + ask) / 2 × mantissa × 10^(8 − scale).
  const tick = pair.tick;
  const units = ((bid + ask) * Number(tick.mantissa) * priceScale) / 2 / 10 ** tick.scale;
  return Math.round(units);
}

export const pricesModule: ShellModule = {
  name: 'prices',
  create(context) {
    const { config } = context;
    const assets = loadOracleAssets();
    const view = new PricesView(context.durable.engine);
    const source = createPriceSource(
      config.priceFeed,
      {
        seed: config.priceSeed,
        tickMs: config.priceTickMs,
        filePath: config.priceFile,
        replayFromMs: config.priceFileReplay ? context.clock() : undefined,
        url: config.priceHttpUrl,
        timeoutMs: config.priceHttpTimeoutMs,
        allowPrivate: config.outboundAllowPrivate,
        log: context.log,
      },
      assets,
    );
    const oracle = new Oracle({
      durable: context.durable,
      source,
      assets,
      clock: context.clock,
      log: context.log,
      tickMs: config.priceTickMs,
      historyDays: config.priceHistoryDays,
      ...(config.priceFeed === 'sim' ? { bookMid: (symbol: string) => bookMid(context, symbol) } : {}),
    });
    return {
      routes: pricesRoutes({ view, assets, clock: context.clock, staleMs: config.priceStaleMs }),
      onDurable: (batch) => view.onBatch(batch),
      start: () => oracle.start(),
      stop: () => oracle.stop(),
    };
  },
};
