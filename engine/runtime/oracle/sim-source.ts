/**
 * The `sim` price source: a seeded geometric Brownian motion per asset,
 *   S ← S × exp((μ − σ²/2)·Δt + σ·√Δt·Z),  Δt = tickMs / (365 days),  Z ~ N(0, 1) (Box–Muller on sfc32),
 * with μ and σ the asset's annual drift and volatility from the fixture. Stocks walk around the clock too
 * (trading hours are not modelled). Prices are rounded to whole 10^-8 USD, never below 1.
 *
 * Determinism: the walk lives on a fixed grid of steps, step n at time n × tickMs. Each asset draws its
 * normals from its own stream, seeded by (seed, symbol, the grid step the walk started at), one draw per
 * step in order, so the same seed started at the same time gives the same price at every step however often
 * it is polled. A gap longer than `catchUpStepsMax` steps (a restart after a long stop) is crossed in one
 * exact combined step (a sum of n normal steps is one normal step of n × Δt).
 *
 * History: `history(symbol, beforeDay, days)` walks backward from the asset's start price at day
 * beforeDay − 1 with daily steps from a stream seeded by (seed, symbol, beforeDay), so the history of a
 * (seed, day) is fixed and ends at the fixture's start price.
 */
import { seededRandom, type RandomSource } from '../../amm/random.ts';
import { msPerDay, type DailyCloses, type OracleAsset, type PriceSource, type SourcePrice } from './source.ts';

export const catchUpStepsMax = 10_000;
const msPerYear = 365 * msPerDay;

/** FNV-1a of a string mixed with numbers: the seed of one asset's stream. */
function streamSeed(seed: number, symbol: string, salt: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let index = 0; index < symbol.length; index++) hash = Math.imul(hash ^ symbol.charCodeAt(index), 0x01000193);
  hash = Math.imul(hash ^ (salt >>> 0), 0x01000193);
  hash = Math.imul(hash ^ Math.floor(salt / 4294967296), 0x01000193);
  return hash >>> 0;
}

/** A standard normal draw (Box–Muller; one of the pair, so that one step is always one draw). */
function normal(random: RandomSource): number {
  const u1 = 1 - random.next();
  const u2 = random.next();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

function step(price: number, asset: OracleAsset, dtYears: number, z: number): number {
  const sigma = asset.volatilityAnnual;
  return price * Math.exp((asset.driftAnnual - (sigma * sigma) / 2) * dtYears + sigma * Math.sqrt(dtYears) * z);
}

interface Walk {
  readonly asset: OracleAsset;
  price: number;
  step: number;
  random: RandomSource | null;
}

export interface SimSourceOptions {
  readonly seed: number;
  /** Grid step of the walk (the oracle's tick). */
  readonly tickMs: number;
}

export class SimSource implements PriceSource {
  readonly name = 'sim';
  private readonly walks = new Map<string, Walk>();
  private readonly historyEnd = new Map<string, number>();

  constructor(
    private readonly assets: readonly OracleAsset[],
    private readonly options: SimSourceOptions,
  ) {
    for (const asset of assets) this.walks.set(asset.symbol, { asset, price: asset.startPriceE8, step: -1, random: null });
  }

  history(symbol: string, beforeDay: number, days: number): DailyCloses | null {
    const walk = this.walks.get(symbol);
    if (walk === undefined || days <= 0) return null;
    const random = seededRandom(streamSeed(this.options.seed, symbol, beforeDay));
    const closes = new Array<number>(days);
    let price = walk.asset.startPriceE8;
    closes[days - 1] = price;
    for (let index = days - 2; index >= 0; index--) {
      // One day back: the inverse of a forward daily step.
      price = price / (step(price, walk.asset, 1 / 365, normal(random)) / price);
      closes[index] = Math.max(1, Math.round(price));
    }
    this.historyEnd.set(symbol, closes[days - 1]!);
    return { firstDay: beforeDay - days, closesE8: closes };
  }

  resume(lastPricesE8: ReadonlyMap<string, number>): void {
    for (const walk of this.walks.values()) {
      walk.price = lastPricesE8.get(walk.asset.symbol) ?? this.historyEnd.get(walk.asset.symbol) ?? walk.asset.startPriceE8;
      walk.step = -1;
      walk.random = null;
    }
  }

  poll(nowMs: number): SourcePrice[] {
    const target = Math.floor(nowMs / this.options.tickMs);
    const dtYears = this.options.tickMs / msPerYear;
    const prices: SourcePrice[] = [];
    for (const walk of this.walks.values()) {
      if (walk.random === null) {
        walk.step = target;
        walk.random = seededRandom(streamSeed(this.options.seed, walk.asset.symbol, target));
        prices.push({ symbol: walk.asset.symbol, priceE8: Math.max(1, Math.round(walk.price)) });
        continue;
      }
      const steps = target - walk.step;
      if (steps <= 0) continue;
      if (steps > catchUpStepsMax) {
        walk.price = step(walk.price, walk.asset, steps * dtYears, normal(walk.random));
      } else {
        for (let index = 0; index < steps; index++) walk.price = step(walk.price, walk.asset, dtYears, normal(walk.random));
      }
      walk.price = Math.max(1, walk.price);
      walk.step = target;
      prices.push({ symbol: walk.asset.symbol, priceE8: Math.max(1, Math.round(walk.price)) });
    }
    return prices;
  }

  close(): void {}
}
