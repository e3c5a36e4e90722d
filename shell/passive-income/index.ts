/**
 * The passive-income estimate (a ShellModule of one route):
 *
 *   GET /api/v1/passive-income/estimate   what holding PLAT and PRED earns from the revenue share (estimate.ts)
 *
 * Keyless, 60 requests a minute per client address (the `calculator` rate class, with the X-RateLimit-*
 * headers). The fee rate is the engine's taker fee, the share REWARDS_SHARE_BPS (the one the rewards
 * domain is configured with), the tokens and their supplies fixtures/platform-tokens.json. Amounts are
 * numbers or decimal strings of at most 8 decimals; a value past its bound is 422 naming the limit.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { declareRoute } from '../http/route-table.ts';
import { rewardsSettings } from '../rewards/settings.ts';
import { loadPlatformTokens } from '../rewards/tokens.ts';
import type { ShellModule } from '../shell-module.ts';
import { estimate, holdingsFor, targetMonthlyUsdMax, volumeFor, volumeUsdMax, type EstimateInput } from './estimate.ts';

const decimal = /^[0-9]{1,13}(\.[0-9]{1,8})?$/;
const round2 = (value: number): string => value.toFixed(2);

function amount(query: Readonly<Record<string, string | undefined>>, name: string, max: number, required: boolean): number | undefined {
  const text = query[name];
  if (text === undefined) {
    if (required) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: required with this solve mode`);
    return undefined;
  }
  if (!decimal.test(text)) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be a decimal number of at most 8 decimals`);
  const value = Number(text);
  if (value > max) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be 0 to ${max} (the limit), got ${text}`);
  return value;
}

export const passiveIncomeModule: ShellModule = {
  name: 'passive-income',
  create(context) {
    const shareBps = rewardsSettings(context.config.env).shareBps;
    const tokens = loadPlatformTokens(context.markets);
    const holdingNames = tokens.map((token) => `${token.asset.symbol.toLowerCase()}_holdings`);
    const query = Type.Object(
      {
        daily_volume_usd: Type.Optional(Type.String({ maxLength: 30, description: `the platform's daily volume in USD, 0 to ${volumeUsdMax} (required unless solve=volume)` })),
        ...Object.fromEntries(tokens.map((token, index) => [holdingNames[index]!, Type.Optional(Type.String({ maxLength: 30, description: `${token.asset.symbol} held, 0 to its total supply ${token.totalSupply} (default 0)` }))])),
        solve: Type.Optional(Type.Union([Type.Literal('estimate'), Type.Literal('holdings'), Type.Literal('volume')], { description: 'estimate (default), holdings or volume' })),
        target_monthly_usd: Type.Optional(Type.String({ maxLength: 30, description: `monthly income to reach, > 0 and <= ${targetMonthlyUsdMax} (required with solve holdings or volume)` })),
      },
      { additionalProperties: false },
    );
    const route = declareRoute({
      method: 'GET',
      path: '/api/v1/passive-income/estimate',
      name: 'estimate_passive_income',
      tags: ['Rewards'],
      auth: 'none',
      rateLimit: 'calculator',
      status: 200,
      errors: [],
      query,
      response: Type.Object({
        solve: Type.String(),
        assumptions: Type.Object({ taker_fee_bps: Type.Integer(), share_bps: Type.Integer(), tokens: Type.Array(Type.Object({ symbol: Type.String(), total_supply: Type.String() })), formula: Type.String() }),
        daily_volume_usd: Type.Union([Type.String(), Type.Null()]),
        holdings: Type.Record(Type.String(), Type.String()),
        estimate: Type.Union([Type.Object({ daily_usd: Type.String(), monthly_usd: Type.String(), yearly_usd: Type.String() }), Type.Null()]),
        solution: Type.Union([Type.Unknown(), Type.Null()]),
      }),
      summary:
        `Passive income from the revenue share: daily = daily_volume_usd × taker fee × share × mean over tokens of (holdings / total supply); ${holdingNames.join(', ')}; ` +
        'solve estimate|holdings|volume with target_monthly_usd; 60 requests a minute per address',
      handler: (request) => {
        const solve = request.query.solve ?? 'estimate';
        const target = amount(request.query, 'target_monthly_usd', targetMonthlyUsdMax, solve !== 'estimate');
        if (target !== undefined && target <= 0) throw new ApiError(422, 'VALIDATION_FAILED', 'query.target_monthly_usd: must be more than 0');
        const volume = amount(request.query, 'daily_volume_usd', volumeUsdMax, solve !== 'volume') ?? 0;
        const holdings = tokens.map((token, index) => amount(request.query, holdingNames[index]!, token.totalSupply, false) ?? 0);
        const input: EstimateInput = {
          dailyVolumeUsd: volume,
          takerFeeBps: context.durable.engine.settings.takerFeeBps,
          shareBps,
          tokens: tokens.map((token, index) => ({ symbol: token.asset.symbol, totalSupply: token.totalSupply, holdings: holdings[index]! })),
        };
        const result = estimate(input);
        let solution: unknown = null;
        if (solve === 'holdings') {
          solution = { target_monthly_usd: round2(target!), holdings_alone: holdingsFor(input, target!).map((row) => ({ symbol: row.symbol, holdings: row.holdings === null ? null : row.holdings.toFixed(8), reachable: row.reachable })) };
        } else if (solve === 'volume') {
          const solved = volumeFor(input, target!);
          solution = { target_monthly_usd: round2(target!), daily_volume_usd: solved.dailyVolumeUsd === null ? null : round2(solved.dailyVolumeUsd), reachable: solved.reachable };
        }
        return {
          body: {
            solve,
            assumptions: {
              taker_fee_bps: input.takerFeeBps,
              share_bps: shareBps,
              tokens: tokens.map((token) => ({ symbol: token.asset.symbol, total_supply: String(token.totalSupply) })),
              formula: 'daily_usd = daily_volume_usd * taker_fee_bps / 10000 * share_bps / 10000 * sum(holdings_t / total_supply_t) / tokens',
            },
            daily_volume_usd: solve === 'volume' && request.query.daily_volume_usd === undefined ? null : round2(volume),
            holdings: Object.fromEntries(holdingNames.map((name, index) => [name, String(holdings[index])])),
            estimate: solve === 'volume' && request.query.daily_volume_usd === undefined ? null : { daily_usd: round2(result.daily), monthly_usd: round2(result.monthly), yearly_usd: round2(result.yearly) },
            solution,
          },
        };
      },
    });
    return { routes: [route] };
  },
};
