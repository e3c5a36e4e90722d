/**
 * The movers tournament's shell module: the durable view, the routes on it, and at start a journaled
 * ConfigureMovers when the journaled round length differs from MOVERS_ROUND_MS (the first one opens round 1).
 */
import { Result, resultCode } from '../../engine/core/results.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { MoversCommandType, type ConfigureMovers } from '../../engine/domains/movers/commands.ts';
import { moversOf } from '../../engine/domains/movers/movers.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import type { ShellModule } from '../shell-module.ts';
import { moversRoutes } from './routes.ts';
import { moversSettings } from './settings.ts';
import { MoversView } from './view.ts';

export const moversModule: ShellModule = {
  name: 'movers',
  create(context) {
    const settings = moversSettings(context.config.env);
    const engine = context.durable.engine;
    const view = new MoversView(engine);
    const start = async (): Promise<void> => {
      if (moversOf(engine).roundMs === settings.roundMs) return;
      const body: ConfigureMovers = { roundMs: settings.roundMs };
      await new Promise<void>((resolve, reject) => {
        context.durable.enqueue(domainCommand(MoversCommandType.configure, body), (outcome) => {
          if (outcome.error !== null) return reject(outcome.error);
          if (outcome.result !== Result.ok) return reject(new Error(`ConfigureMovers was refused: ${resultCode(outcome.result)}`));
          resolve();
        });
      });
      // The configuration set the module's timer (the round's end).
      context.timers.poke();
    };
    return {
      routes: moversRoutes({ context, view, assets: loadOracleAssets() }),
      onDurable: (batch) => view.onBatch(batch),
      start,
    };
  },
};
