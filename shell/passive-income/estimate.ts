/**
 * The passive-income estimate, on the revenue-share rule (engine/domains/rewards/commands.ts): at each
 * accrual `s` (REWARDS_SHARE_BPS / 10 000) of the live taker fees is split equally between the T platform
 * tokens, and each token's part pro rata to holdings, where a user's holding of a token is what the
 * account holds plus what the user has staked of it in the incentives' staking pools. The estimate takes
 * three holdings parameters: `plat_holdings` (PLAT in the account), `staked_plat_holdings` (PLAT staked)
 * and `pred_holdings` (PRED, held or staked); a token's holding h_t is the sum of its parameters (PLAT:
 * plat_holdings + staked_plat_holdings). Assuming all of a day's volume V (USD) pays the taker fee f
 * (10 bps: 0.001) and the token's whole supply S_t is held or staked by users, the holder earns per day
 *
 *   daily = V × f × s × Σ_t (h_t / S_t) / T,   monthly = 30 × daily,   yearly = 365 × daily.
 *
 * Solving for holdings gives, per parameter, the holding in that parameter alone that reaches a monthly
 * target: h = target × T × S_t / (30 × V × f × s), t the parameter's token (reachable when at most S_t).
 * Solving for volume gives V = target × T / (30 × f × s × Σ_t (h_t / S_t)) (reachable when at most
 * 1 000 000 000). Both are null when the divisor is zero (no volume, no share or no holdings).
 */

export const volumeUsdMax = 1_000_000_000;
export const targetMonthlyUsdMax = 1_000_000_000;
export const daysPerMonth = 30;
export const daysPerYear = 365;

/** One holdings parameter: its query name, its token and that token's total supply (its bound), and the amount. */
export interface HoldingParameter {
  readonly name: string;
  readonly symbol: string;
  readonly totalSupply: number;
  readonly holdings: number;
}

export interface EstimateInput {
  readonly dailyVolumeUsd: number;
  readonly takerFeeBps: number;
  readonly shareBps: number;
  readonly parameters: readonly HoldingParameter[];
}

/** Each token's total supply and holding h_t (the sum of its parameters), in first-mention order. */
export function tokenHoldings(parameters: readonly HoldingParameter[]): Array<{ symbol: string; totalSupply: number; holdings: number }> {
  const tokens = new Map<string, { symbol: string; totalSupply: number; holdings: number }>();
  for (const parameter of parameters) {
    const token = tokens.get(parameter.symbol);
    if (token === undefined) tokens.set(parameter.symbol, { symbol: parameter.symbol, totalSupply: parameter.totalSupply, holdings: parameter.holdings });
    else token.holdings += parameter.holdings;
  }
  return [...tokens.values()];
}

const rate = (input: EstimateInput): number => (input.takerFeeBps / 10_000) * (input.shareBps / 10_000);
const tokenCount = (input: EstimateInput): number => new Set(input.parameters.map((parameter) => parameter.symbol)).size;
const holdingShare = (input: EstimateInput): number => {
  const tokens = tokenHoldings(input.parameters);
  return tokens.reduce((sum, token) => sum + token.holdings / token.totalSupply, 0) / tokens.length;
};

export function estimate(input: EstimateInput): { daily: number; monthly: number; yearly: number } {
  const daily = input.dailyVolumeUsd * rate(input) * holdingShare(input);
  return { daily, monthly: daily * daysPerMonth, yearly: daily * daysPerYear };
}

export function holdingsFor(input: EstimateInput, targetMonthlyUsd: number): Array<{ parameter: string; symbol: string; holdings: number | null; reachable: boolean }> {
  const perDay = input.dailyVolumeUsd * rate(input);
  const tokens = tokenCount(input);
  return input.parameters.map((parameter) => {
    if (perDay === 0) return { parameter: parameter.name, symbol: parameter.symbol, holdings: null, reachable: false };
    const holdings = (targetMonthlyUsd * tokens * parameter.totalSupply) / (daysPerMonth * perDay);
    return { parameter: parameter.name, symbol: parameter.symbol, holdings, reachable: holdings <= parameter.totalSupply };
  });
}

export function volumeFor(input: EstimateInput, targetMonthlyUsd: number): { dailyVolumeUsd: number | null; reachable: boolean } {
  const perVolume = rate(input) * holdingShare(input) * daysPerMonth;
  if (perVolume === 0) return { dailyVolumeUsd: null, reachable: false };
  const volume = targetMonthlyUsd / perVolume;
  return { dailyVolumeUsd: volume, reachable: volume <= volumeUsdMax };
}
