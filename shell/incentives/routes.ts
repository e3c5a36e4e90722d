/**
 * The incentives' routes (README "Incentives" documents every payload):
 *
 *   POST /api/v2/incentives/bots/register                 registers a bot for the caller's account
 *   GET  /api/v2/incentives/bots/{bot_id}/tier            the bot's tier from its owner's 30-day volume
 *   GET  /api/v2/incentives/staking/pools                 pools (public)
 *   POST /api/v2/incentives/staking/stake                 {pool_id, wallet, amount, lockup_days?}
 *   POST /api/v2/incentives/staking/unstake               {pool_id, amount}
 *   POST /api/v2/incentives/staking/rewards/claim         {pool_id?}
 *   GET  /api/v2/incentives/staking/user/{wallet}/summary the caller's positions (the wallet must be theirs)
 *   GET  /api/v2/incentives/leaderboards                  ?period&metric&limit (public)
 *   GET  /api/v2/incentives/airdrops                      campaigns, and the caller's eligibility
 *   POST /api/v2/incentives/airdrops/{airdrop_id}/claim   pays once
 *   GET  /api/v2/games/boosts/available                   boosts (public)
 *   POST /api/v2/games/boosts/{boost_id}/activate         Idempotency-Key header carried into the command
 *
 * Writes go through the sequencer and answer once durable, from the command's own events; reads come from
 * the durable view. Amounts are decimal strings of the token at the edge.
 */
import { Type } from '@sinclair/typebox';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { amountToAtoms, formatAtoms, type Asset } from '../../engine/core/units.ts';
import {
  BoostKind,
  IncentivesCommandType,
  IncentivesEventType,
  IncentivesResult,
  boostKindNames,
  descriptionCharsMax,
  botNameCharsMax,
  requestKeyCharsMax,
  strategyCharsMax,
  tiers,
  type AirdropClaimed,
  type BoostActivated,
  type BotRegistered,
  type RewardsClaimed,
  type Staked,
  type Unstaked,
} from '../../engine/domains/incentives/commands.ts';
import type { ShellContext } from '../context.ts';
import { depositAddress, fromBase58 } from '../funding/chains.ts';
import { ApiError, engineRefusal } from '../http/errors.ts';
import { isoTime } from '../http/order-json.ts';
import { declareRoute, type Route } from '../http/route-table.ts';
import type { IncentivesFixture } from './fixture.ts';
import { Metric, type IncentivesView, type MetricName, type Period } from './view.ts';

const tags = ['Incentives'];
const boostTags = ['Boosts'];
export const leaderboardLimitMin = 10;
export const leaderboardLimitMax = 100;

const Amount = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()]);
const RegisterBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: botNameCharsMax }),
    wallet_address: Type.String({ minLength: 1, maxLength: 64 }),
    strategy_type: Type.String({ minLength: 1, maxLength: strategyCharsMax, pattern: '^[\\x20-\\x7e]*$' }),
    description: Type.Optional(Type.String({ maxLength: descriptionCharsMax, pattern: '^[\\x20-\\x7e]*$' })),
  },
  { additionalProperties: false },
);
const StakeBody = Type.Object(
  { pool_id: Type.Integer({ minimum: 1 }), wallet: Type.String({ minLength: 1, maxLength: 64 }), amount: Amount, lockup_days: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false },
);
const UnstakeBody = Type.Object({ pool_id: Type.Integer({ minimum: 1 }), amount: Amount }, { additionalProperties: false });
const ClaimBody = Type.Object({ pool_id: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false });
const LeaderboardQuery = Type.Object(
  {
    period: Type.Optional(Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly'), Type.Literal('all_time')])),
    metric: Type.Optional(Type.Union([Type.Literal('volume'), Type.Literal('trades'), Type.Literal('earnings'), Type.Literal('pnl')])),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })),
  },
  { additionalProperties: false },
);

const TierResponse = Type.Object({
  bot_id: Type.Integer(),
  current_tier: Type.String(),
  next_tier: Type.Union([Type.String(), Type.Null()]),
  current_volume: Type.String(),
  volume_required: Type.Union([Type.String(), Type.Null()]),
  progress_percent: Type.Number(),
  fee_discount: Type.Object({ bps: Type.Integer(), taker_fee_bps: Type.Integer() }),
  reward_multiplier: Type.Number(),
});
const PoolResponse = Type.Object({
  pool_id: Type.Integer(),
  name: Type.String(),
  token: Type.String(),
  apy: Type.String(),
  min_stake: Type.String(),
  max_stake: Type.String(),
  lockup_options: Type.Array(Type.Integer()),
  capacity: Type.String(),
  total_staked: Type.String(),
});
const PositionResponse = Type.Object({
  pool_id: Type.Integer(),
  token: Type.String(),
  staked: Type.String(),
  pending_rewards: Type.String(),
  claimed_rewards: Type.String(),
  unlock_time: Type.String(),
});

function invalid(field: string, rule: string): never {
  throw new ApiError(422, 'VALIDATION_FAILED', `${field}: ${rule}`);
}

/** HTTP status of an incentives refusal (core refusals go through engineRefusal). */
function refusal(result: ResultCode): ApiError {
  const error = (status: number) => new ApiError(status, resultCode(result), resultMessage(result));
  switch (result) {
    case IncentivesResult.poolNotFound:
    case IncentivesResult.airdropNotFound:
    case IncentivesResult.boostNotFound:
      return error(404);
    case IncentivesResult.walletTaken:
    case IncentivesResult.airdropClaimed:
    case IncentivesResult.boostActive:
    case IncentivesResult.stakeLocked:
    case IncentivesResult.poolFull:
    case IncentivesResult.nothingToClaim:
    case IncentivesResult.rewardsUnfunded:
    case IncentivesResult.airdropUnfunded:
    case IncentivesResult.tooManyBots:
      return error(409);
    case IncentivesResult.airdropIneligible:
    case IncentivesResult.boostIneligible:
      return error(403);
    case IncentivesResult.airdropEnded:
      return error(410);
    case IncentivesResult.notConfigured:
      return error(503);
    default:
      return engineRefusal(result);
  }
}

/** Whether a wallet address is well formed: EVM 0x and 40 hex digits, or Solana base58 of 32 to 44 characters (32 bytes). */
export function walletFormat(address: string): 'evm' | 'solana' | null {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'evm';
  if (address.length >= 32 && address.length <= 44 && fromBase58(address)?.length === 32) return 'solana';
  return null;
}

/** The stored form: EVM lower case, Solana as given. */
export function normalizeWallet(address: string): string | null {
  const format = walletFormat(address);
  return format === null ? null : format === 'evm' ? address.toLowerCase() : address;
}

function eventsOf<Body>(events: readonly EngineEvent[], type: number): Body[] {
  return events.filter((event) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: Body }).body);
}

export interface IncentivesRoutesOptions {
  readonly context: ShellContext;
  readonly view: IncentivesView;
  readonly fixture: IncentivesFixture;
}

export function incentivesRoutes(options: IncentivesRoutesOptions): Route[] {
  const { context, view, fixture } = options;
  const markets = context.markets;
  const usdc = markets.assetBySymbol('USDC')!;
  const assetOf = (assetId: number): Asset => markets.assetById(assetId)!;
  const takerFeeBps = context.durable.engine.settings.takerFeeBps;

  /** Whether `wallet` is the user's: one of their deposit addresses or registered bot wallets. */
  const ownsWallet = (userId: number, wallet: string): boolean => {
    const normalized = normalizeWallet(wallet);
    if (normalized === null) return false;
    if (view.botByWallet.get(normalized)?.userId === userId) return true;
    return context.funding.chains.all.some((chain) => depositAddress(context.funding.depositSecret, userId, chain) === normalized);
  };

  const submit = async (type: number, body: object): Promise<{ events: EngineEvent[]; ts: number }> => {
    const submission = await context.durable.submit(domainCommand(type, body));
    if (submission.result !== Result.ok) throw refusal(submission.result);
    return { events: submission.events, ts: submission.ts };
  };

  const poolOf = (poolId: number) => view.pools.find((pool) => pool.poolId === poolId) ?? (() => {
    throw new ApiError(404, 'POOL_NOT_FOUND', `no staking pool ${poolId}`);
  })();

  const amountOf = (field: string, value: unknown, asset: Asset): number => {
    const converted = amountToAtoms(value, asset);
    if (converted.code !== Result.ok) invalid(`body.${field}`, `${resultMessage(converted.code)} (${asset.symbol}, at most ${asset.decimals} decimals)`);
    return converted.value;
  };

  const positionRecord = (position: ReturnType<IncentivesView['positionsOf']>[number], nowMs: number) => {
    const pool = poolOf(position.poolId);
    const asset = assetOf(pool.assetId);
    return {
      pool_id: position.poolId,
      token: asset.symbol,
      staked: formatAtoms(position.stakedAtoms, asset),
      pending_rewards: formatAtoms(view.pendingAt(position, nowMs), asset),
      claimed_rewards: formatAtoms(position.claimedAtoms, asset),
      unlock_time: isoTime(position.unlockMs),
    };
  };

  const boostRecord = (boostId: number) => {
    const boost = view.boosts.find((candidate) => candidate.boostId === boostId)!;
    const asset = assetOf(boost.costAssetId);
    return {
      boost_id: boost.boostId,
      name: fixture.boostNames.get(boost.boostId) ?? `Boost ${boost.boostId}`,
      kind: boostKindNames[boost.kind],
      ...(boost.kind === BoostKind.stakingApy ? { multiplier: boost.value / 100 } : { fee_discount_bps: boost.value }),
      duration_seconds: boost.durationMs / 1000,
      cost: formatAtoms(boost.costAtoms, asset),
      cost_token: asset.symbol,
      min_tier: tiers[boost.minTier]!.name,
    };
  };

  return [
    declareRoute({
      method: 'POST',
      path: '/api/v2/incentives/bots/register',
      name: 'register_bot',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'general',
      status: 201,
      errors: ['INVALID_WALLET', 'BOT_WALLET_TAKEN', 'TOO_MANY_BOTS'],
      body: RegisterBody,
      response: Type.Object({ bot_id: Type.Integer(), wallet_address: Type.String(), chain_family: Type.String(), name: Type.String(), strategy_type: Type.String(), registered_at: Type.String() }),
      summary: "Registers a trading bot for the caller's account: wallet_address is EVM (0x + 40 hex) or Solana (base58, 32 bytes); a wallet already registered is 409",
      handler: async (request) => {
        const wallet = normalizeWallet(request.body.wallet_address);
        if (wallet === null) throw new ApiError(422, 'INVALID_WALLET', 'body.wallet_address: an EVM address (0x and 40 hex digits) or a Solana address (base58 of 32 bytes, 32 to 44 characters)');
        const userId = request.principal!.userId;
        const { events, ts } = await submit(IncentivesCommandType.registerBot, {
          userId,
          wallet,
          name: request.body.name,
          strategyType: request.body.strategy_type,
          description: request.body.description ?? '',
        });
        const [registered] = eventsOf<BotRegistered>(events, IncentivesEventType.botRegistered);
        return {
          status: 201,
          body: { bot_id: registered!.botId, wallet_address: wallet, chain_family: walletFormat(wallet)!, name: registered!.name, strategy_type: registered!.strategyType, registered_at: isoTime(ts) },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/incentives/bots/{bot_id}/tier',
      name: 'get_bot_tier',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['BOT_NOT_FOUND'],
      response: TierResponse,
      summary: "The bot's tier from its owner's 30-day traded notional (USDC, from real fills): next tier, progress, the taker fee discount and the reward multiplier",
      handler: (request) => {
        const botId = Number(request.params['bot_id']);
        const bot = Number.isSafeInteger(botId) ? view.bots.get(botId) : undefined;
        if (bot === undefined) throw new ApiError(404, 'BOT_NOT_FOUND', `no bot ${request.params['bot_id']}`);
        const { volumeAtoms, tier } = view.tierVolume(bot.userId, Math.max(view.lastMs, context.clock()));
        const current = tiers[tier]!;
        const next = tiers[tier + 1];
        const progress = next === undefined ? 100 : Math.min(100, Math.floor(((volumeAtoms - current.volumeAtoms) * 10_000) / (next.volumeAtoms - current.volumeAtoms)) / 100);
        return {
          body: {
            bot_id: bot.botId,
            current_tier: current.name,
            next_tier: next?.name ?? null,
            current_volume: formatAtoms(volumeAtoms, usdc),
            volume_required: next === undefined ? null : formatAtoms(next.volumeAtoms, usdc),
            progress_percent: Math.max(0, progress),
            fee_discount: { bps: current.discountBps, taker_fee_bps: Math.max(0, takerFeeBps - current.discountBps) },
            reward_multiplier: current.rewardMultiplierPct / 100,
          },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/incentives/staking/pools',
      name: 'list_staking_pools',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: Type.Object({ pools: Type.Array(PoolResponse) }),
      summary: 'Staking pools: token, APY (percent), minimum and maximum stake, lockup options (days; 0 is none), capacity and total staked',
      handler: () => ({
        body: {
          pools: view.pools.map((pool) => {
            const asset = assetOf(pool.assetId);
            return {
              pool_id: pool.poolId,
              name: fixture.poolNames.get(pool.poolId) ?? `Pool ${pool.poolId}`,
              token: asset.symbol,
              apy: (pool.apyBps / 100).toFixed(2),
              min_stake: formatAtoms(pool.minStakeAtoms, asset),
              max_stake: formatAtoms(pool.maxStakeAtoms, asset),
              lockup_options: pool.lockupDays,
              capacity: formatAtoms(pool.capacityAtoms, asset),
              total_staked: formatAtoms(view.poolTotals.get(pool.poolId) ?? 0, asset),
            };
          }),
        },
      }),
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/incentives/staking/stake',
      name: 'stake',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['POOL_NOT_FOUND', 'WALLET_NOT_OWNED', 'INVALID_STAKE', 'POOL_FULL', 'INSUFFICIENT_BALANCE'],
      body: StakeBody,
      response: Type.Object({ pool_id: Type.Integer(), amount: Type.String(), lockup_days: Type.Integer(), unlock_time: Type.String(), staked: Type.String(), total_staked: Type.String() }),
      summary: "Stakes tokens from the caller's balance into a pool; wallet must be one of the caller's deposit addresses or bot wallets; lockup_days one of the pool's options (default its first)",
      handler: async (request) => {
        const userId = request.principal!.userId;
        const pool = poolOf(request.body.pool_id);
        if (!ownsWallet(userId, request.body.wallet)) throw new ApiError(403, 'WALLET_NOT_OWNED', 'body.wallet: not one of your deposit addresses or bot wallets');
        const asset = assetOf(pool.assetId);
        const lockupDays = request.body.lockup_days ?? pool.lockupDays[0]!;
        if (!pool.lockupDays.includes(lockupDays)) invalid('body.lockup_days', `one of ${pool.lockupDays.join(', ')}`);
        const amountAtoms = amountOf('amount', request.body.amount, asset);
        const { events } = await submit(IncentivesCommandType.stake, { userId, poolId: pool.poolId, amountAtoms, lockupDays });
        const [staked] = eventsOf<Staked>(events, IncentivesEventType.staked);
        return {
          status: 201,
          body: {
            pool_id: pool.poolId,
            amount: formatAtoms(staked!.amountAtoms, asset),
            lockup_days: staked!.lockupDays,
            unlock_time: isoTime(staked!.unlockMs),
            staked: formatAtoms(staked!.positionAtoms, asset),
            total_staked: formatAtoms(staked!.poolTotalAtoms, asset),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/incentives/staking/unstake',
      name: 'unstake',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: ['POOL_NOT_FOUND', 'STAKE_LOCKED', 'INVALID_UNSTAKE'],
      body: UnstakeBody,
      response: Type.Object({ pool_id: Type.Integer(), amount: Type.String(), staked: Type.String(), total_staked: Type.String() }),
      summary: 'Unstakes tokens back to the caller\'s balance; refused (409 STAKE_LOCKED) before the position\'s unlock time',
      handler: async (request) => {
        const userId = request.principal!.userId;
        const pool = poolOf(request.body.pool_id);
        const asset = assetOf(pool.assetId);
        const amountAtoms = amountOf('amount', request.body.amount, asset);
        const { events } = await submit(IncentivesCommandType.unstake, { userId, poolId: pool.poolId, amountAtoms });
        const [unstaked] = eventsOf<Unstaked>(events, IncentivesEventType.unstaked);
        return { body: { pool_id: pool.poolId, amount: formatAtoms(unstaked!.amountAtoms, asset), staked: formatAtoms(unstaked!.positionAtoms, asset), total_staked: formatAtoms(unstaked!.poolTotalAtoms, asset) } };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/incentives/staking/rewards/claim',
      name: 'claim_staking_rewards',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: ['POOL_NOT_FOUND', 'NOTHING_TO_CLAIM', 'REWARDS_UNFUNDED'],
      body: ClaimBody,
      response: Type.Object({ claims: Type.Array(Type.Object({ pool_id: Type.Integer(), token: Type.String(), amount: Type.String(), claimed_total: Type.String() })) }),
      summary: "Pays pending rewards of one pool (pool_id) or of all the caller's pools from the pools' reward accounts; a pool whose reward account holds less says so (409 REWARDS_UNFUNDED) and nothing is paid",
      handler: async (request) => {
        const userId = request.principal!.userId;
        const poolId = request.body.pool_id ?? 0;
        if (poolId !== 0) poolOf(poolId);
        const { events } = await submit(IncentivesCommandType.claimRewards, { userId, poolId });
        return {
          body: {
            claims: eventsOf<RewardsClaimed>(events, IncentivesEventType.rewardsClaimed).map((claim) => {
              const asset = assetOf(claim.assetId);
              return { pool_id: claim.poolId, token: asset.symbol, amount: formatAtoms(claim.amountAtoms, asset), claimed_total: formatAtoms(claim.claimedTotalAtoms, asset) };
            }),
          },
        };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/incentives/staking/user/{wallet}/summary',
      name: 'get_staking_summary',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['WALLET_NOT_OWNED'],
      response: Type.Object({ wallet: Type.String(), positions: Type.Array(PositionResponse) }),
      summary: "Per pool: staked, pending rewards (as of now), claimed rewards and unlock time of the wallet's owner (the caller: one of their deposit addresses or bot wallets)",
      handler: (request) => {
        const userId = request.principal!.userId;
        const wallet = request.params['wallet'] ?? '';
        if (!ownsWallet(userId, wallet)) throw new ApiError(403, 'WALLET_NOT_OWNED', 'wallet: not one of your deposit addresses or bot wallets');
        const nowMs = Math.max(view.lastMs, context.clock());
        return { body: { wallet, positions: view.positionsOf(userId).map((position) => positionRecord(position, nowMs)) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/incentives/leaderboards',
      name: 'get_leaderboard',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      query: LeaderboardQuery,
      response: Type.Object({ period: Type.String(), metric: Type.String(), limit: Type.Integer(), entries: Type.Array(Type.Object({ rank: Type.Integer(), user_id: Type.Integer(), value: Type.String() })) }),
      summary: 'Top users by volume (USDC), trades, earnings (token units) or realised pnl (USDC, average cost) over daily, weekly, monthly or all_time; limit 10 to 100 (default 10); ties by user id',
      handler: (request) => {
        const period = (request.query.period ?? 'weekly') as Period;
        const metricName = (request.query.metric ?? 'volume') as MetricName;
        const limit = request.query.limit === undefined ? leaderboardLimitMin : Number(request.query.limit);
        if (!Number.isSafeInteger(limit) || limit < leaderboardLimitMin || limit > leaderboardLimitMax) invalid('query.limit', `must be an integer from ${leaderboardLimitMin} to ${leaderboardLimitMax}`);
        const metric = Metric[metricName];
        const rows = view.leaderboard(metric, period, limit, Math.max(view.lastMs, context.clock()));
        const format = (value: number): string => (metric === Metric.trades ? String(value) : formatAtoms(value, usdc));
        return { body: { period, metric: metricName, limit, entries: rows.map((row, index) => ({ rank: index + 1, user_id: row.userId, value: format(row.value) })) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/incentives/airdrops',
      name: 'list_airdrops',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: Type.Object({
        airdrops: Type.Array(
          Type.Object({
            airdrop_id: Type.Integer(),
            name: Type.String(),
            token: Type.String(),
            amount: Type.String(),
            rule: Type.Object({ min_volume_usdc: Type.String(), window_start: Type.String(), window_end: Type.String() }),
            claim_end: Type.String(),
            status: Type.String(),
            your_volume: Type.String(),
            eligible: Type.Boolean(),
            claimed: Type.Boolean(),
            claimable_amount: Type.String(),
          }),
        ),
      }),
      summary: "Airdrop campaigns with their rule (traded at least min_volume_usdc in the window) and the caller's volume, eligibility, claim state and claimable amount",
      handler: (request) => {
        const userId = request.principal!.userId;
        const nowMs = Math.max(view.lastMs, context.clock());
        return {
          body: {
            airdrops: view.airdrops.map((airdrop) => {
              const asset = assetOf(airdrop.assetId);
              const volume = view.volumeBetween(userId, airdrop.windowStartMs, airdrop.windowEndMs);
              const eligible = volume >= Math.max(1, airdrop.minVolumeAtoms);
              const claimed = view.airdropClaims.has(`${userId}:${airdrop.airdropId}`);
              const status = nowMs >= airdrop.claimEndMs ? 'ended' : nowMs < airdrop.windowStartMs ? 'upcoming' : 'active';
              return {
                airdrop_id: airdrop.airdropId,
                name: fixture.airdropNames.get(airdrop.airdropId) ?? `Airdrop ${airdrop.airdropId}`,
                token: asset.symbol,
                amount: formatAtoms(airdrop.amountAtoms, asset),
                rule: { min_volume_usdc: formatAtoms(airdrop.minVolumeAtoms, usdc), window_start: isoTime(airdrop.windowStartMs), window_end: isoTime(airdrop.windowEndMs) },
                claim_end: isoTime(airdrop.claimEndMs),
                status,
                your_volume: formatAtoms(volume, usdc),
                eligible,
                claimed,
                claimable_amount: formatAtoms(eligible && !claimed && status !== 'ended' ? airdrop.amountAtoms : 0, asset),
              };
            }),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/incentives/airdrops/{airdrop_id}/claim',
      name: 'claim_airdrop',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: ['AIRDROP_NOT_FOUND', 'AIRDROP_ALREADY_CLAIMED', 'AIRDROP_INELIGIBLE', 'AIRDROP_ENDED', 'AIRDROP_UNFUNDED'],
      response: Type.Object({ airdrop_id: Type.Integer(), token: Type.String(), amount: Type.String(), claimed_at: Type.String() }),
      summary: 'Claims an airdrop once: 409 when already claimed, 403 when the caller is not eligible, 410 when the claim period has ended',
      handler: async (request) => {
        const airdropId = Number(request.params['airdrop_id']);
        if (!Number.isSafeInteger(airdropId) || !view.airdrops.some((airdrop) => airdrop.airdropId === airdropId)) {
          throw new ApiError(404, 'AIRDROP_NOT_FOUND', `no airdrop ${request.params['airdrop_id']}`);
        }
        const { events, ts } = await submit(IncentivesCommandType.claimAirdrop, { userId: request.principal!.userId, airdropId });
        const [claimed] = eventsOf<AirdropClaimed>(events, IncentivesEventType.airdropClaimed);
        const asset = assetOf(claimed!.assetId);
        return { body: { airdrop_id: airdropId, token: asset.symbol, amount: formatAtoms(claimed!.amountAtoms, asset), claimed_at: isoTime(ts) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/games/boosts/available',
      name: 'list_boosts',
      tags: boostTags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: Type.Object({ boosts: Type.Array(Type.Object({}, { additionalProperties: true })) }),
      summary: 'Boosts: kind (staking_apy multiplier or fee_discount bps), duration, cost and the minimum bot tier; one active per kind per account',
      handler: () => ({ body: { boosts: view.boosts.map((boost) => boostRecord(boost.boostId)) } }),
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/games/boosts/{boost_id}/activate',
      name: 'activate_boost',
      tags: boostTags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 200,
      errors: ['BOOST_NOT_FOUND', 'BOOST_INELIGIBLE', 'BOOST_ALREADY_ACTIVE', 'IDEMPOTENCY_KEY_REQUIRED', 'INSUFFICIENT_BALANCE'],
      response: Type.Object({ boost_id: Type.Integer(), kind: Type.String(), expires_at: Type.String(), idempotency_key: Type.String(), cost: Type.String(), replayed: Type.Boolean() }),
      summary: 'Activates a boost for the caller; the Idempotency-Key header (1 to 64 printable characters) is carried into the command: the same key again answers the first activation and changes nothing',
      handler: async (request) => {
        const boostId = Number(request.params['boost_id']);
        const boost = Number.isSafeInteger(boostId) ? view.boosts.find((candidate) => candidate.boostId === boostId) : undefined;
        if (boost === undefined) throw new ApiError(404, 'BOOST_NOT_FOUND', `no boost ${request.params['boost_id']}`);
        const key = request.header('idempotency-key');
        if (key === '' || key.length > requestKeyCharsMax || !/^[\x20-\x7e]+$/.test(key)) {
          throw new ApiError(422, 'IDEMPOTENCY_KEY_REQUIRED', `header Idempotency-Key: 1 to ${requestKeyCharsMax} printable characters`);
        }
        const userId = request.principal!.userId;
        const { events } = await submit(IncentivesCommandType.activateBoost, { userId, boostId, requestKey: key });
        const [activated] = eventsOf<BoostActivated>(events, IncentivesEventType.boostActivated);
        // No event: the key was used before; answer with that first activation (durable, so in the view).
        const record = activated ?? view.activations.get(`${userId}:${key}`);
        if (record === undefined) throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for an activation that is no longer known');
        const asset = assetOf(boost.costAssetId);
        return {
          body: {
            boost_id: record.boostId,
            kind: boostKindNames[record.kind],
            expires_at: isoTime(record.expiresMs),
            idempotency_key: key,
            cost: formatAtoms(record.costAtoms, asset),
            replayed: activated === undefined,
          },
        };
      },
    }),
  ];
}
