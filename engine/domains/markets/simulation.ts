/**
 * The markets' part of the seeded simulation: markets over a few of the assets the prices simulation ticks,
 * starting within seconds and lasting 1 to 5 minutes (in the exchange's stream a market command
 * comes every second or two of journaled time, so each market sees tens of them before RunTimers settle
 * it); limit orders on their books around the middle of the price range (crossing often, so shares are
 * opened, transferred and closed); cancels; WTA bets; and refused commands (bad schedules, prices off the
 * range, unknown markets and orders, bets out of bounds).
 *
 * It trades with users of its own (101 to 108), funded by the deposits it generates first: the exchange's
 * differential test checks that the held balances of its users (1 to 12) equal the holds of their core
 * orders, and market orders and bets hold funds of their own. Then it journals one price of each of its
 * assets, so that every valid creation is accepted whatever the prices simulation did so far, and the
 * market ids it aims its orders at are the ones the engine gave.
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { AssetType, MarketsCommandType, type CancelMarketOrder, type CreateMarket, type PlaceBet, type PlaceMarketOrder } from './commands.ts';

/**
 * Assets the prices simulation ticks (crypto), and the settlement token: PLAT (asset id 6, 6 decimals), not
 * USDC, because the exchange's tests that share this stream check that the live fee account's USDC is
 * exactly what exchange orders paid, and market taker fees and WTA remainders go to that same account.
 */
const assets = ['BTC', 'ETH', 'SOL', 'DOGE', 'PRED'] as const;
/** Their first prices (10^-8 USD), near where the prices simulation starts them. */
const firstPricesE8 = [9_700_000_000_000, 300_000_000_000, 15_000_000_000, 15_000_000, 20_000_000];
const tokenAssetId = 6;
const firstUser = 101;
const users = 8;
/** What each simulated user deposits: 10 million PLAT. */
const depositAtoms = 10_000_000_000_000;

export class MarketsSimulation implements DomainCommandGenerator {
  /** The asset lists of the markets asked for, by the id they get when every creation is accepted. */
  private readonly proposed: string[][] = [];
  private ordersPlaced = 0;
  private funded = 0;
  private priced = false;

  next(random: Prng, nowMs: number): Command {
    if (this.funded < users) {
      const userId = firstUser + this.funded++;
      return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId, mode: 0, assetId: tokenAssetId, amountAtoms: depositAtoms };
    }
    if (!this.priced) {
      this.priced = true;
      const ticks: PostPriceTicks = { source: PriceSource.sim, symbols: [...assets], pricesE8: [...firstPricesE8] };
      return domainCommand(PricesCommandType.postPriceTicks, ticks);
    }
    const roll = random.next();
    if (roll < 0.15 || this.proposed.length === 0) return this.create(random, nowMs);
    if (roll < 0.7) return this.order(random);
    if (roll < 0.82) return this.cancel(random);
    return this.bet(random);
  }

  private user(random: Prng): number {
    return firstUser + random.int(0, users - 1);
  }

  private recentMarket(random: Prng): { marketId: number; assets: string[] } {
    const marketId = Math.max(1, this.proposed.length - random.int(0, 1));
    return { marketId, assets: this.proposed[marketId - 1] ?? ['BTC'] };
  }

  private create(random: Prng, nowMs: number): Command {
    const count = random.int(2, assets.length);
    // A seeded partial shuffle: the first `count` of a random permutation.
    const pool: string[] = [...assets];
    for (let index = 0; index < count; index++) {
      const swap = random.int(index, pool.length - 1);
      [pool[index], pool[swap]] = [pool[swap]!, pool[index]!];
    }
    const picked = pool.slice(0, count);
    const startMs = nowMs + random.int(0, 3_000);
    const body: CreateMarket = {
      userId: this.user(random),
      name: `Sim market ${this.proposed.length + 1}`,
      description: 'which asset moves most',
      assets: picked,
      assetType: AssetType.crypto,
      tokenAssetId,
      startMs,
      endMs: startMs + random.int(60_000, 300_000),
      minBetAtoms: 1_000_000,
      maxBetAtoms: 1_000_000_000,
    };
    const invalid = random.next();
    if (invalid < 0.04) body.startMs = nowMs - 1;
    else if (invalid < 0.08) body.assets = [picked[0]!];
    else if (invalid < 0.1) body.minBetAtoms = body.maxBetAtoms + 1;
    else this.proposed.push(picked);
    return domainCommand(MarketsCommandType.createMarket, body);
  }

  private order(random: Prng): Command {
    const { marketId, assets: marketAssets } = this.recentMarket(random);
    const side = random.chance(0.5) ? 0 : 1;
    // Both sides around the middle of the range: about half the orders cross and trade.
    const priceTicks = random.int(440, 560);
    const body: PlaceMarketOrder = {
      userId: this.user(random),
      marketId,
      // Mostly the market's first two assets, so that books fill and cross.
      asset: random.pick(random.chance(0.8) ? marketAssets.slice(0, 2) : marketAssets),
      side,
      priceTicks: random.chance(0.03) ? random.pick([0, 1000]) : priceTicks,
      lots: random.int(1, 5_000),
    };
    this.ordersPlaced++;
    return domainCommand(MarketsCommandType.placeMarketOrder, body);
  }

  private cancel(random: Prng): Command {
    const body: CancelMarketOrder = {
      userId: this.user(random),
      marketId: this.recentMarket(random).marketId,
      orderId: Math.max(1, this.ordersPlaced - random.int(0, 20)),
    };
    return domainCommand(MarketsCommandType.cancelMarketOrder, body);
  }

  private bet(random: Prng): Command {
    const { marketId, assets: marketAssets } = this.recentMarket(random);
    const body: PlaceBet = {
      userId: this.user(random),
      marketId: random.chance(0.05) ? marketId + 1000 : marketId,
      asset: random.pick(marketAssets),
      amountAtoms: random.chance(0.05) ? 1 : random.int(1_000_000, 50_000_000),
    };
    return domainCommand(MarketsCommandType.placeBet, body);
  }
}
