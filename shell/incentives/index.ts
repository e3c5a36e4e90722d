/**
 * The incentives module of the shell: the durable view, the routes on it, /ws/incentives, and the setup at
 * start (INCENTIVES_AUTO_SETUP, on by default): each pool's reward account is topped up to
 * INCENTIVES_REWARD_FUND_TOKENS of its token and the airdrop account to INCENTIVES_AIRDROP_FUND_TOKENS of
 * each airdrop token, by journaled Deposits, then the catalogue of fixtures/incentives.json is journaled
 * (ConfigureIncentives) when it is not yet. These decisions read the live engine (what is already
 * journaled), never answers to clients.
 */
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { domainUserId } from '../../engine/core/limits.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { IncentivesCommandType, airdropAccountIndex, encodeCatalogue, incentivesDomainId, poolRewardAccountIndex } from '../../engine/domains/incentives/commands.ts';
import { incentivesOf } from '../../engine/domains/incentives/incentives.ts';
import type { ShellContext } from '../context.ts';
import type { ShellModule } from '../shell-module.ts';
import { loadIncentives } from './fixture.ts';
import { incentivesRoutes } from './routes.ts';
import { incentivesSettings } from './settings.ts';
import { IncentivesStream } from './stream.ts';
import { IncentivesView } from './view.ts';

/** Submits one command and resolves once it is durable; a refusal or failure rejects, naming the command. */
async function submit(context: ShellContext, command: Command, what: string): Promise<void> {
  const submission = await context.durable.submit(command);
  if (submission.result !== Result.ok) throw new Error(`${what} was refused: ${resultCode(submission.result)}`);
}

export const incentivesModule: ShellModule = {
  name: 'incentives',
  create(context) {
    const settings = incentivesSettings(context.config.env);
    const fixture = loadIncentives(context.markets);
    const engine = context.durable.engine;
    const view = new IncentivesView(context.markets);
    const stream = new IncentivesStream({
      view,
      markets: context.markets,
      chains: context.funding.chains,
      depositSecret: context.funding.depositSecret,
      backpressureBytes: context.config.wsBackpressureBytes,
      connectionsMax: context.config.wsConnectionsMax,
    });

    /** Tops a domain account up to `tokens` whole tokens of the asset with a journaled Deposit. */
    const topUp = async (index: number, assetId: number, tokens: number, what: string): Promise<void> => {
      const asset = context.markets.assetById(assetId)!;
      const userId = domainUserId(incentivesDomainId, index);
      const account = engine.ledger.find(userId, 0);
      const balance = account === noAccount ? 0 : engine.ledger.availableAtoms(account, asset.index);
      const wanted = tokens * 10 ** asset.decimals;
      if (balance >= wanted) return;
      await submit(context, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId, amountAtoms: wanted - balance }, what);
    };

    const start = async (): Promise<void> => {
      if (!settings.autoSetup) return;
      const module = incentivesOf(engine);
      if (module === undefined) throw new Error('the engine has no incentives module');
      const catalogue = fixture.catalogue;
      // Funding only before the catalogue is journaled: a restart never funds twice.
      if (!module.isConfigured) {
        if (settings.rewardFundTokens > 0) {
          for (const pool of catalogue.pools) await topUp(poolRewardAccountIndex(pool.poolId), pool.assetId, settings.rewardFundTokens, `the reward deposit of pool ${pool.poolId}`);
        }
        if (settings.airdropFundTokens > 0) {
          for (const assetId of new Set(catalogue.airdrops.map((airdrop) => airdrop.assetId))) await topUp(airdropAccountIndex, assetId, settings.airdropFundTokens, 'the airdrop deposit');
        }
        await submit(context, domainCommand(IncentivesCommandType.configure, encodeCatalogue(catalogue)), 'ConfigureIncentives');
        context.log('incentives_configured', { pools: catalogue.pools.length, airdrops: catalogue.airdrops.length, boosts: catalogue.boosts.length });
      }
    };

    return {
      routes: incentivesRoutes({ context, view, fixture }),
      streams: [stream.stream],
      onDurable: (batch) => view.onBatch(batch),
      start,
    };
  },
};
