/**
 * The passive-income estimate (a ShellModule of one route):
 *
 *   GET /api/v1/passive-income/estimate   what holding and staking PLAT and PRED earns from the revenue share (estimate.ts)
 *
 * Keyless, 60 requests a minute per client address (the `calculator` rate class, with the X-RateLimit-*
 * headers). The fee rate is the engine's taker fee, the share REWARDS_SHARE_BPS (the one the rewards
 * domain is configured with), the tokens and their supplies fixtures/platform-tokens.json. The three
 * holdings parameters are each token's `<symbol>_holdings` and `staked_plat_holdings`: the revenue share
 * counts staked tokens as the staker's, and PLAT is the staking programme's token (two of its three pools),
 * so staked PLAT has a parameter of its own while `pred_holdings` covers PRED held or staked. Each is 0 to
 * its token's total supply, and the parameters of one token together too. Amounts are decimal strings of
 * at most 8 decimals; a value past its bound is 422 naming the limit.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { declareRoute } from '../http/route-table.ts';
import { rewardsSettings } from '../rewards/settings.ts';
import { loadPlatformTokens } from '../rewards/tokens.ts';
import type { ShellModule } from '../shell-module.ts';
import { estimate, holdingsFor, targetMonthlyUsdMax, tokenHoldings, volumeFor, volumeUsdMax, type EstimateInput } from './estimate.ts';

/** Tokens whose staked amount is a parameter of its own (`staked_<symbol>_holdings`), right after the token's. */
const stakedParameterSymbols: readonly string[] = ['PLAT'];

const decimal = /^[0-9]{1,13}(\.[0-9]{1,8})?$/;
const round2 = (value: number): string => value.toFixed(2);
/** A decimal that passed `decimal` in units of 10^-8, exactly: bounds are checked on it, not on a float. */
const unitsE8 = (text: string): bigint => {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * 100_000_000n + BigInt(fraction.padEnd(8, '0'));
};

function amount(query: Readonly<Record<string, string | undefined>>, name: string, max: number, required: boolean): number | undefined {
  const text = query[name];
  if (text === undefined) {
    if (required) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: required with this solve mode`);
    return undefined;
  }
  if (!decimal.test(text)) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be a decimal number of at most 8 decimals`);
  if (unitsE8(text) > BigInt(max) * 100_000_000n) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be 0 to ${max} (the limit), got ${text}`);
  return Number(text);
}

export const passiveIncomeModule: ShellModule = {
  name: 'passive-income',
  create(context) {
    const shareBps = rewardsSettings(context.config.env).shareBps;
    const tokens = loadPlatformTokens(context.markets);
    const parameters = tokens.flatMap((token) => {
      const symbol = token.asset.symbol;
      const held = { name: `${symbol.toLowerCase()}_holdings`, symbol, totalSupply: token.totalSupply, what: `${symbol} held in the account${stakedParameterSymbols.includes(symbol) ? '' : ' or staked'}` };
      if (!stakedParameterSymbols.includes(symbol)) return [held];
      return [held, { name: `staked_${symbol.toLowerCase()}_holdings`, symbol, totalSupply: token.totalSupply, what: `${symbol} staked in the staking pools` }];
    });
    const holdingNames = parameters.map((parameter) => parameter.name);
    const query = Type.Object(
      {
        daily_volume_usd: Type.Optional(Type.String({ maxLength: 30, description: `the platform's daily volume in USD, 0 to ${volumeUsdMax} (required unless solve=volume)` })),
        ...Object.fromEntries(
          parameters.map((parameter) => [
            parameter.name,
            Type.Optional(Type.String({ maxLength: 30, description: `${parameter.what}, 0 to ${parameter.symbol}'s total supply ${parameter.totalSupply} (default 0)` })),
          ]),
        ),
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
        assumptions: Type.Object({
          taker_fee_bps: Type.Integer(),
          share_bps: Type.Integer(),
          tokens: Type.Array(Type.Object({ symbol: Type.String(), total_supply: Type.String() })),
          parameters: Type.Array(Type.Object({ name: Type.String(), token: Type.String(), max: Type.String(), counts: Type.String() })),
          formula: Type.String(),
        }),
        daily_volume_usd: Type.Union([Type.String(), Type.Null()]),
        holdings: Type.Record(Type.String(), Type.String()),
        estimate: Type.Union([Type.Object({ daily_usd: Type.String(), monthly_usd: Type.String(), yearly_usd: Type.String() }), Type.Null()]),
        solution: Type.Union([Type.Unknown(), Type.Null()]),
      }),
      summary:
        `Passive income from the revenue share: daily = daily_volume_usd × taker fee × share × mean over tokens of (holding / total supply), a token's holding the sum of its parameters (${holdingNames.join(', ')}); ` +
        'solve estimate|holdings|volume with target_monthly_usd; 60 requests a minute per address',
      handler: (request) => {
        const solve = request.query.solve ?? 'estimate';
        const target = amount(request.query, 'target_monthly_usd', targetMonthlyUsdMax, solve !== 'estimate');
        if (target !== undefined && target <= 0) throw new ApiError(422, 'VALIDATION_FAILED', 'query.target_monthly_usd: must be more than 0');
        const volume = amount(request.query, 'daily_volume_usd', volumeUsdMax, solve !== 'volume') ?? 0;
        const holdings = parameters.map((parameter) => amount(request.query, parameter.name, parameter.totalSupply, false) ?? 0);
        const input: EstimateInput = {
          dailyVolumeUsd: volume,
          takerFeeBps: context.durable.engine.settings.takerFeeBps,
          shareBps,
          parameters: parameters.map((parameter, index) => ({ name: parameter.name, symbol: parameter.symbol, totalSupply: parameter.totalSupply, holdings: holdings[index]! })),
        };
        // A token's parameters together hold at most its supply (PLAT held and staked are the same PLAT).
        for (const token of tokenHoldings(input.parameters)) {
          const names = parameters.filter((parameter) => parameter.symbol === token.symbol).map((parameter) => parameter.name);
          const total = names.reduce((sum, name) => sum + unitsE8(request.query[name] ?? '0'), 0n);
          if (total <= BigInt(token.totalSupply) * 100_000_000n) continue;
          throw new ApiError(422, 'VALIDATION_FAILED', `query.${names[names.length - 1]}: ${names.join(' + ')} must be at most ${token.symbol}'s total supply ${token.totalSupply} (the limit)`);
        }
        const result = estimate(input);
        let solution: unknown = null;
        if (solve === 'holdings') {
          solution = {
            target_monthly_usd: round2(target!),
            holdings_alone: holdingsFor(input, target!).map((row) => ({ parameter: row.parameter, symbol: row.symbol, holdings: row.holdings === null ? null : row.holdings.toFixed(8), reachable: row.reachable })),
          };
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
              parameters: parameters.map((parameter) => ({ name: parameter.name, token: parameter.symbol, max: String(parameter.totalSupply), counts: parameter.what })),
              formula: formula(parameters),
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

/** The estimate's formula in the parameters' names, as the answer states it. */
function formula(parameters: ReadonlyArray<{ name: string; symbol: string }>): string {
  const tokens = tokenHoldings(parameters.map((parameter) => ({ ...parameter, totalSupply: 1, holdings: 0 })));
  const terms = tokens.map((token) => {
    const names = parameters.filter((parameter) => parameter.symbol === token.symbol).map((parameter) => parameter.name);
    return `${names.length > 1 ? `(${names.join(' + ')})` : names[0]} / total_supply_${token.symbol}`;
  });
  return `daily_usd = daily_volume_usd * taker_fee_bps / 10000 * share_bps / 10000 * (${terms.join(' + ')}) / ${tokens.length}; monthly_usd = 30 * daily_usd; yearly_usd = 365 * daily_usd`;
}
