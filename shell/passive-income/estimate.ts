/**
 * The passive-income estimate, on the revenue-share rule (engine/domains/rewards/commands.ts): at each
 * accrual `s` (REWARDS_SHARE_BPS / 10 000) of the live taker fees is split equally between the T platform
 * tokens, and each token's part pro rata to holdings. Assuming all of a day's volume V (USD) pays the
 * taker fee f (10 bps: 0.001) and the token's whole supply S_t is held by users, a holder of h_t of each
 * token earns per day
 *
 *   daily = V × f × s × Σ_t (h_t / S_t) / T,   monthly = 30 × daily,   yearly = 365 × daily.
 *
 * Solving for holdings gives, per token, the holding of that token alone that reaches a monthly target:
 * h_t = target × T × S_t / (30 × V × f × s) (reachable when at most S_t). Solving for volume gives
 * V = target × T / (30 × f × s × Σ_t (h_t / S_t)) (reachable when at most 1 000 000 000). Both are null
 * when the divisor is zero (no volume, no share or no holdings).
 */

export const volumeUsdMax = 1_000_000_000;
export const targetMonthlyUsdMax = 1_000_000_000;
export const daysPerMonth = 30;
export const daysPerYear = 365;

export interface TokenHolding {
  readonly symbol: string;
  readonly totalSupply: number;
  readonly holdings: number;
}

export interface EstimateInput {
  readonly dailyVolumeUsd: number;
  readonly takerFeeBps: number;
  readonly shareBps: number;
  readonly tokens: readonly TokenHolding[];
}

const rate = (input: EstimateInput): number => (input.takerFeeBps / 10_000) * (input.shareBps / 10_000);
const holdingShare = (input: EstimateInput): number => input.tokens.reduce((sum, token) => sum + token.holdings / token.totalSupply, 0) / input.tokens.length;

export function estimate(input: EstimateInput): { daily: number; monthly: number; yearly: number } {
  const daily = input.dailyVolumeUsd * rate(input) * holdingShare(input);
  return { daily, monthly: daily * daysPerMonth, yearly: daily * daysPerYear };
}

export function holdingsFor(input: EstimateInput, targetMonthlyUsd: number): Array<{ symbol: string; holdings: number | null; reachable: boolean }> {
  const perDay = input.dailyVolumeUsd * rate(input);
  return input.tokens.map((token) => {
    if (perDay === 0) return { symbol: token.symbol, holdings: null, reachable: false };
    const holdings = (targetMonthlyUsd * input.tokens.length * token.totalSupply) / (daysPerMonth * perDay);
    return { symbol: token.symbol, holdings, reachable: holdings <= token.totalSupply };
  });
}

export function volumeFor(input: EstimateInput, targetMonthlyUsd: number): { dailyVolumeUsd: number | null; reachable: boolean } {
  const perVolume = rate(input) * holdingShare(input) * daysPerMonth;
  if (perVolume === 0) return { dailyVolumeUsd: null, reachable: false };
  const volume = targetMonthlyUsd / perVolume;
  return { dailyVolumeUsd: volume, reachable: volume <= volumeUsdMax };
}
