/**
 * The prediction markets module of the shell: the durable markets view, the routes on it, and the two
 * streams (/ws/markets/{market_id}/orderbook/{asset} and the legacy /ws/orderbook/{contract_address}). The
 * engine's markets domain does the rest (its timers run through the runtime's RunTimers like every
 * domain's). The streams' prices come from a prices view of this module's own, fed with the same durable
 * batches, so this module needs nothing from the prices module.
 */
import type { ShellModule } from '../shell-module.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { PricesView } from '../prices/view.ts';
import { MarketsView } from './view.ts';
import { marketsRoutes } from './routes.ts';
import { MarketsStream } from './stream.ts';

export const marketsModule: ShellModule = {
  name: 'markets',
  create(context) {
    const { config, durable } = context;
    const view = new MarketsView(durable.engine);
    const prices = new PricesView(durable.engine);
    const stream = new MarketsStream({
      view,
      prices,
      tokenOf: (market) => context.markets.assetById(market.tokenAssetId)!,
      backpressureBytes: config.wsBackpressureBytes,
      connectionsMax: config.wsConnectionsMax,
    });
    return {
      routes: marketsRoutes({ context, view, assets: loadOracleAssets() }),
      streams: stream.streams,
      onDurable: (batch) => {
        prices.onBatch(batch);
        view.onBatch(batch);
        stream.onBatch(batch);
      },
    };
  },
};

export { MarketsView } from './view.ts';
