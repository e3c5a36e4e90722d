/**
 * The revenue-share route:
 *
 *   GET /api/v1/rst/{token_address}/rewards   the caller's pending revenue-share rewards for a platform token
 *
 * The token is named by its address (fixtures/platform-tokens.json; any other is 404). Pending and paid
 * rewards come from the durable rewards view; holdings are the caller's live ledger balance of the token
 * (available + held), as the account routes show balances (staked tokens, which also earn, are shown by
 * the staking routes).
 */
import { Type } from '@sinclair/typebox';
import { noAccount } from '../../engine/core/ledger.ts';
import { formatAtoms, type Asset } from '../../engine/core/units.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import type { PlatformToken } from './tokens.ts';
import type { RewardsView } from './view.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

export function rewardsRoutes(context: ShellContext, view: RewardsView, tokens: readonly PlatformToken[], usdc: Asset): Route[] {
  return [
    declareRoute({
      method: 'GET',
      path: '/api/v1/rst/{token_address}/rewards',
      name: 'get_revenue_share_rewards',
      tags: ['Rewards'],
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['TOKEN_NOT_FOUND'],
      response: Type.Object({
        token: Type.String(),
        token_address: Type.String(),
        holdings: Type.String(),
        pending_rewards: Type.String(),
        paid_rewards: Type.String(),
        reward_asset: Type.String(),
        share_bps: Type.Integer(),
        accrual_interval_seconds: Type.Integer(),
        last_accrual_at: Type.Union([Type.String(), Type.Null()]),
        next_accrual_at: Type.Union([Type.String(), Type.Null()]),
        payout_interval_seconds: Type.Integer(),
        last_payout_at: Type.Union([Type.String(), Type.Null()]),
        next_payout_at: Type.Union([Type.String(), Type.Null()]),
      }),
      summary:
        'The caller\'s pending revenue-share rewards (USDC) for a platform token by its address (PLAT, PRED): at each accrual share_bps of the live taker fees, split equally between the tokens, ' +
        'accrues pro rata to holders\' ledger balances and stakes, and each payout moves pending to paid (USDC from the fee account); with the caller\'s holdings and the accrual and payout times',
      handler: (request) => {
        const address = request.params['token_address'] ?? '';
        const token = tokens.find((candidate) => candidate.address.toLowerCase() === address.toLowerCase());
        if (token === undefined) throw new ApiError(404, 'TOKEN_NOT_FOUND', `no platform token at address ${JSON.stringify(address)}`);
        const userId = request.principal!.userId;
        const ledger = context.durable.engine.ledger;
        const account = ledger.find(userId, 0);
        const holdings = account === noAccount ? 0 : ledger.availableAtoms(account, token.asset.index) + ledger.heldAtoms(account, token.asset.index);
        const now = context.clock();
        const next = view.nextAccrualMs(now);
        const nextPayout = view.nextPayoutMs(now);
        return {
          body: {
            token: token.asset.symbol,
            token_address: token.address,
            holdings: formatAtoms(holdings, token.asset),
            pending_rewards: formatAtoms(view.pendingAtoms(userId, token.asset.id), usdc),
            paid_rewards: formatAtoms(view.paidAtoms(userId, token.asset.id), usdc),
            reward_asset: usdc.symbol,
            share_bps: view.shareBps,
            accrual_interval_seconds: Math.floor(view.intervalMs / 1000),
            last_accrual_at: view.lastAccrualMs === 0 ? null : iso(view.lastAccrualMs),
            next_accrual_at: next === null ? null : iso(next),
            payout_interval_seconds: Math.floor(view.payoutIntervalMs / 1000),
            last_payout_at: view.lastPayoutMs === 0 ? null : iso(view.lastPayoutMs),
            next_payout_at: nextPayout === null ? null : iso(nextPayout),
          },
        };
      },
    }),
  ];
}
