/**
 * /ws/incentives/{wallet_address}: one topic per wallet owner (the user behind a bot wallet or one of their
 * deposit addresses), subscribed on connect (channel `incentives`), snapshot first, then sequenced
 * messages from durable batches only:
 * - `earnings_update` {bot_id, token, new_earnings, total_earnings} when a payout reaches the user: a
 *   staking claim (RewardsClaimed), an airdrop claim (AirdropClaimed), and whatever other source joins
 *   the view's `earningsSources`;
 * - `tier_change` {bot_id, old_tier, new_tier, new_benefits{fee_discount, reward_multiplier}} for each of
 *   the user's bots when their account's tier changes on a fill (TierChanged).
 * An unknown wallet is refused at the upgrade (404).
 */
import type { Chains } from '../funding/chains.ts';
import { depositAddress } from '../funding/chains.ts';
import { ApiError } from '../http/errors.ts';
import { TopicStream, type StreamMessage } from '../ws/topic-stream.ts';
import { formatAtoms, type Markets } from '../../engine/core/units.ts';
import { tiers, type TierChanged } from '../../engine/domains/incentives/commands.ts';
import type { Earning, IncentivesView } from './view.ts';
import { normalizeWallet } from './routes.ts';

export const incentivesChannels = ['incentives'] as const;

export interface IncentivesStreamOptions {
  readonly view: IncentivesView;
  readonly markets: Markets;
  readonly chains: Chains;
  readonly depositSecret: Uint8Array;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
}

interface Route {
  readonly wallet: string;
  readonly userId: number;
}

const benefits = (tier: number) => ({ fee_discount: tiers[tier]!.discountBps, reward_multiplier: tiers[tier]!.rewardMultiplierPct / 100 });

export class IncentivesStream {
  readonly stream: TopicStream<Route>;
  /** Deposit addresses of the users the view knows, computed once per user. */
  private readonly ownerByAddress = new Map<string, number>();
  private readonly mapped = new Set<number>();

  constructor(private readonly options: IncentivesStreamOptions) {
    this.stream = new TopicStream<Route>({
      path: '/ws/incentives/:wallet_address',
      channels: incentivesChannels,
      backpressureBytes: options.backpressureBytes,
      connectionsMax: options.connectionsMax,
      route: (parameters) => this.route(parameters[0] ?? ''),
      topicOf: (route) => ({ key: `user:${route.userId}`, fields: { wallet: route.wallet } }),
      snapshot: (route) => this.snapshot(route),
      initialTopics: (route) => [{ channel: 'incentives', choice: { key: `user:${route.userId}`, fields: { wallet: route.wallet } } }],
    });
    options.view.listener = {
      onEarning: (earning, total) => this.earning(earning, total),
      onTierChanged: (change) => this.tierChanged(change),
    };
  }

  /** The wallet's owner: a bot wallet, or a deposit address of a user the view knows. */
  ownerOf(wallet: string): number | undefined {
    const normalized = normalizeWallet(decodeURIComponent(wallet));
    if (normalized === null) return undefined;
    const view = this.options.view;
    const bot = view.botByWallet.get(normalized);
    if (bot !== undefined) return bot.userId;
    for (const userId of [...view.knownUsers, ...[...view.bots.values()].map((record) => record.userId)]) {
      if (this.mapped.has(userId)) continue;
      this.mapped.add(userId);
      for (const chain of this.options.chains.all) this.ownerByAddress.set(depositAddress(this.options.depositSecret, userId, chain), userId);
    }
    return this.ownerByAddress.get(normalized);
  }

  private route(wallet: string): Route {
    const userId = this.ownerOf(wallet);
    if (userId === undefined) throw new ApiError(404, 'WALLET_NOT_FOUND', 'no bot or known account has this wallet address');
    return { wallet, userId };
  }

  private botsOf(userId: number) {
    return [...this.options.view.bots.values()].filter((bot) => bot.userId === userId);
  }

  private snapshot(route: Route): StreamMessage {
    const view = this.options.view;
    const tier = view.tierByUser.get(route.userId) ?? 0;
    return {
      type: 'snapshot',
      wallet: route.wallet,
      bots: this.botsOf(route.userId).map((bot) => ({ bot_id: bot.botId, name: bot.name, tier: tiers[tier]!.name, benefits: benefits(tier) })),
      total_earnings: formatAtoms(view.earningsOf(route.userId), this.options.markets.assetBySymbol('PLAT')!),
    };
  }

  private earning(earning: Earning, totalAtoms: number): void {
    const asset = this.options.markets.assetById(earning.assetId)!;
    this.stream.publish(`user:${earning.userId}`, {
      type: 'earnings_update',
      bot_id: earning.botId ?? this.botsOf(earning.userId)[0]?.botId ?? null,
      token: asset.symbol,
      new_earnings: formatAtoms(earning.amountAtoms, asset),
      total_earnings: formatAtoms(totalAtoms, asset),
    });
  }

  private tierChanged(change: TierChanged): void {
    for (const bot of this.botsOf(change.userId)) {
      this.stream.publish(`user:${change.userId}`, {
        type: 'tier_change',
        bot_id: bot.botId,
        old_tier: tiers[change.oldTier]!.name,
        new_tier: tiers[change.newTier]!.name,
        new_benefits: benefits(change.newTier),
      });
    }
  }
}
