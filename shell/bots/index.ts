/**
 * The bots shell module: the catalogue of source bots (fixtures/bots.json), the clone and backtest routes,
 * the strategy runtime fed by durable batches, the backtest queue and its worker thread, and at start the
 * journaled strategy period (a ConfigureBots when the engine's differs from BOTS_STRATEGY_MS).
 */
import { domainCommand } from '../../engine/core/domain.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { BotsCommandType, type ConfigureBots } from '../../engine/domains/bots/commands.ts';
import { botsOf } from '../../engine/domains/bots/bots.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import type { ShellModule } from '../shell-module.ts';
import { Backtests } from './backtests.ts';
import { loadCatalogue } from './catalogue.ts';
import { botsRoutes } from './routes.ts';
import { StrategyRunner } from './runner.ts';
import { botsSettings } from './settings.ts';
import { BotsStore } from './store.ts';
import { WalletGenerator } from './wallets.ts';

export const botsModule: ShellModule = {
  name: 'bots',
  create(context) {
    const settings = botsSettings(context.config.env);
    const catalogue = loadCatalogue(undefined, new Set(loadOracleAssets().map((asset) => asset.symbol)));
    const store = new BotsStore(context.config.dataDir);
    const runner = new StrategyRunner(context, catalogue);
    const backtests = new Backtests(store, { queueMax: settings.backtestQueueMax, clock: context.clock, log: context.log, paused: settings.backtestPaused });
    const wallets = new WalletGenerator(settings.walletFault);

    const start = async (): Promise<void> => {
      backtests.start();
      if (botsOf(context.durable.engine).strategyMs === settings.strategyMs) return;
      const body: ConfigureBots = { strategyMs: settings.strategyMs };
      await new Promise<void>((resolve, reject) =>
        context.durable.enqueue(domainCommand(BotsCommandType.configure, body), (outcome) => {
          if (outcome.error !== null) return reject(outcome.error);
          if (outcome.result !== Result.ok) return reject(new Error(`ConfigureBots was refused: ${resultCode(outcome.result)}`));
          resolve();
        }),
      );
      // The new period moved the strategy clock.
      context.timers.poke();
    };

    return {
      routes: botsRoutes({ context, catalogue, store, wallets, runner, backtests, backtestRunsPerUser: settings.backtestRunsPerUser }),
      onDurable: (batch) => runner.onBatch(batch),
      start,
      close: async () => {
        await backtests.close();
        store.close();
      },
    };
  },
};
