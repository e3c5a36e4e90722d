/**
 * The rewards module: the durable rewards view and the revenue-share route, and at start the journaled
 * setup the settings ask for: the bounty account (domainUserId(11, 0)) topped up to
 * REWARDS_BOUNTY_FUND_USDC by a core Deposit, then a ConfigureRewards when the journaled configuration
 * differs from REWARDS_ACCRUAL_MS, REWARDS_SHARE_BPS and the platform tokens, and a ConfigurePayouts
 * when the journaled payout interval differs from REWARDS_PAYOUT_MS.
 */
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { RewardsCommandType, rewardsAssetSymbol, type ConfigurePayouts, type ConfigureRewards } from '../../engine/domains/rewards/commands.ts';
import { bountyUserId, rewardsOf } from '../../engine/domains/rewards/rewards.ts';
import type { ShellContext } from '../context.ts';
import type { ShellModule } from '../shell-module.ts';
import { rewardsRoutes } from './routes.ts';
import { rewardsSettings } from './settings.ts';
import { loadPlatformTokens } from './tokens.ts';
import { RewardsView } from './view.ts';

/** Submits one command and resolves once it is durable; a refusal or failure rejects, naming the command. */
export function submitDurable(context: ShellContext, command: Command, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    context.durable.enqueue(command, (outcome) => {
      if (outcome.error !== null) return reject(outcome.error);
      if (outcome.result !== Result.ok) return reject(new Error(`${what} was refused: ${resultCode(outcome.result)}`));
      resolve();
    });
  });
}

export const rewardsModule: ShellModule = {
  name: 'rewards',
  create(context) {
    const settings = rewardsSettings(context.config.env);
    const usdc = context.markets.assetBySymbol(rewardsAssetSymbol);
    if (usdc === undefined) throw new Error(`the rewards module needs the ${rewardsAssetSymbol} asset`);
    const tokens = loadPlatformTokens(context.markets);
    const engine = context.durable.engine;
    const view = new RewardsView(engine);
    const start = async (): Promise<void> => {
      const ledger = engine.ledger;
      const fundAtoms = settings.bountyFundUsdc * 10 ** usdc.decimals;
      const account = ledger.find(bountyUserId, 0);
      const balance = account === noAccount ? 0 : ledger.availableAtoms(account, usdc.index);
      if (balance < fundAtoms) {
        await submitDurable(context, { kind: CommandKind.deposit, seq: 0, ts: 0, userId: bountyUserId, mode: 0, assetId: usdc.id, amountAtoms: fundAtoms - balance }, 'the bounty fund deposit');
      }
      const rewards = rewardsOf(engine);
      const wanted: ConfigureRewards = { intervalMs: settings.accrualMs, shareBps: settings.shareBps, tokenAssetIds: tokens.map((token) => token.asset.id) };
      if (rewards.intervalMs !== wanted.intervalMs || rewards.shareBps !== wanted.shareBps || rewards.tokenAssetIds.join() !== wanted.tokenAssetIds.join()) {
        await submitDurable(context, domainCommand(RewardsCommandType.configure, wanted), 'ConfigureRewards');
        // The configuration set the module's accrual timer.
        context.timers.poke();
      }
      if (rewards.payoutIntervalMs !== settings.payoutMs) {
        await submitDurable(context, domainCommand(RewardsCommandType.configurePayouts, { intervalMs: settings.payoutMs } satisfies ConfigurePayouts), 'ConfigurePayouts');
        context.timers.poke();
      }
    };
    return { routes: rewardsRoutes(context, view, tokens, usdc), onDurable: (batch) => view.onBatch(batch), start };
  },
};
