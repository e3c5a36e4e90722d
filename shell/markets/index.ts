/**
 * The prediction markets module of the shell: the durable markets view and the routes on it. The engine's
 * markets domain does the rest (its timers run through the runtime's RunTimers like every domain's).
 */
import type { ShellModule } from '../shell-module.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { MarketsView } from './view.ts';
import { marketsRoutes } from './routes.ts';

export const marketsModule: ShellModule = {
  name: 'markets',
  create(context) {
    const view = new MarketsView(context.durable.engine);
    return {
      routes: marketsRoutes({ context, view, assets: loadOracleAssets() }),
      onDurable: (batch) => view.onBatch(batch),
    };
  },
};

export { MarketsView } from './view.ts';
