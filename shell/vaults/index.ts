/**
 * The strategy vaults' shell module: the durable view, the routes, /ws/vault/nav, and at start the
 * journaled setup: ConfigureVaults when the journaled strategy period differs from VAULT_STRATEGY_MS,
 * then a CreateVault (live mode, no owner) for each vault of fixtures/vaults.json not created yet.
 */
import type { Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { VaultsCommandType, type CreateVault } from '../../engine/domains/vaults/commands.ts';
import { vaultsOf } from '../../engine/domains/vaults/vaults.ts';
import type { ShellModule } from '../shell-module.ts';
import { loadVaultFixture } from './fixture.ts';
import { vaultRoutes } from './routes.ts';
import { vaultSettings } from './settings.ts';
import { VaultNavStream } from './stream.ts';
import { VaultsView } from './view.ts';

export const vaultsModule: ShellModule = {
  name: 'vaults',
  create(context) {
    const settings = vaultSettings(context.config.env);
    const metas = loadVaultFixture(context.markets);
    const engine = context.durable.engine;
    const view = new VaultsView(engine);
    const stream = new VaultNavStream({
      view,
      metas,
      markets: context.markets,
      clock: context.clock,
      backpressureBytes: context.config.wsBackpressureBytes,
      connectionsMax: context.config.wsConnectionsMax,
    });
    let heartbeat: ReturnType<typeof setInterval> | null = null;

    const submit = async (command: Command, what: string): Promise<void> => {
      const submission = await context.durable.submit(command);
      if (submission.result !== Result.ok) throw new Error(`${what} was refused: ${resultCode(submission.result)}`);
    };

    const start = async (): Promise<void> => {
      const vaults = vaultsOf(engine);
      if (vaults.strategyMs !== settings.strategyMs) await submit(domainCommand(VaultsCommandType.configure, { strategyMs: settings.strategyMs }), 'ConfigureVaults');
      for (const meta of metas) {
        if (vaults.bySlug(meta.slug) !== undefined) continue;
        const body: CreateVault = { slug: meta.slug, strategy: meta.strategy, pairIds: meta.pairs.map((pair) => pair.id), mode: 0, ownerUserId: 0 };
        await submit(domainCommand(VaultsCommandType.create, body), `CreateVault ${meta.slug}`);
      }
      // The configuration set the strategies' timer.
      context.timers.poke();
      heartbeat = setInterval(() => stream.heartbeat(), settings.heartbeatMs);
      heartbeat.unref();
    };

    return {
      routes: vaultRoutes({ context, view, metas }),
      streams: [stream.stream],
      onDurable: (batch) => view.onBatch(batch),
      start,
      close: () => {
        if (heartbeat !== null) clearInterval(heartbeat);
      },
    };
  },
};
