/**
 * The price oracle's part of the seeded simulation: ticks of a few assets on an integer random walk, the
 * histories of new assets (some refused because the asset already has prices), and malformed commands
 * (a zero price, a repeated symbol, a bad symbol, a history that reaches the command's day).
 */
import type { Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { PricesCommandType, PriceSource, msPerDay, type PostPriceTicks, type SeedPriceHistory } from './commands.ts';

const symbols = ['BTC', 'ETH', 'SOL', 'AAPL', 'NVDA', 'SPY', 'DOGE', 'PRED'] as const;
const startE8 = [9_700_000_000_000, 300_000_000_000, 15_000_000_000, 23_000_000_000, 14_000_000_000, 60_000_000_000, 15_000_000, 20_000_000];

export class PricesSimulation implements DomainCommandGenerator {
  private readonly pricesE8 = [...startE8];

  next(random: Prng, nowMs: number): Command {
    const roll = random.next();
    if (roll < 0.25) return this.history(random, nowMs);
    if (roll < 0.32) return this.malformedTicks(random);
    return this.ticks(random);
  }

  private ticks(random: Prng): Command {
    const body: PostPriceTicks = { source: random.pick([PriceSource.sim, PriceSource.book, PriceSource.http]), symbols: [], pricesE8: [] };
    for (let index = 0; index < symbols.length; index++) {
      if (!random.chance(0.5)) continue;
      // A step of up to ±0.5 %, in integers.
      const price = this.pricesE8[index]!;
      const next = Math.max(1, price + Math.round((price * random.int(-50, 50)) / 10_000));
      this.pricesE8[index] = next;
      body.symbols.push(symbols[index]!);
      body.pricesE8.push(next);
    }
    if (body.symbols.length === 0) {
      body.symbols.push(symbols[0]!);
      body.pricesE8.push(this.pricesE8[0]!);
    }
    return domainCommand(PricesCommandType.postPriceTicks, body);
  }

  private malformedTicks(random: Prng): Command {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: ['BTC'], pricesE8: [this.pricesE8[0]!] };
    switch (random.int(0, 3)) {
      case 0:
        body.pricesE8[0] = 0;
        break;
      case 1:
        body.symbols.push('BTC');
        body.pricesE8.push(1);
        break;
      case 2:
        body.symbols[0] = 'btc';
        break;
      default:
        body.pricesE8.push(5);
    }
    return domainCommand(PricesCommandType.postPriceTicks, body);
  }

  private history(random: Prng, nowMs: number): Command {
    const today = Math.floor(nowMs / msPerDay);
    const days = random.int(1, 40);
    // A new symbol now and then (accepted once), else one that may already be priced (refused).
    const symbol = random.chance(0.5) ? `SIM${random.int(1, 30)}` : random.pick(symbols);
    const endsToday = random.chance(0.35);
    const body: SeedPriceHistory = { source: PriceSource.sim, symbol, firstDay: today - days + (endsToday ? 1 : 0), closesE8: [] };
    let close = random.int(1_000_000, 1_000_000_000);
    for (let day = 0; day < days; day++) {
      close = Math.max(1, close + random.int(-close / 50, close / 50));
      body.closesE8.push(Math.round(close));
    }
    return domainCommand(PricesCommandType.seedPriceHistory, body);
  }
}
