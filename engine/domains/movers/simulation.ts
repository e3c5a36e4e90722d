/**
 * The movers tournament's part of the seeded simulation: configurations (rounds of one to five minutes),
 * entries of its own users (200 + 10 × 10 .. + 30, so the exchange's simulated users are untouched) with
 * picks among the prices simulation's symbols and some refused ones (an unpriced symbol, a repeated one,
 * too many, none, a second entry of the same user). Rounds end and rank as the generator's RunTimers move
 * time on. No money moves, so it makes no deposits.
 */
import type { Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { MoversCommandType, entrySymbolsMax, type ConfigureMovers, type EnterMovers } from './commands.ts';

const symbolsOffered = ['BTC', 'ETH', 'SOL', 'AAPL', 'NVDA', 'SPY', 'DOGE', 'PRED'] as const;
const roundChoicesMs = [60_000, 120_000, 300_000] as const;
const firstUser = 300;
const usersMax = 30;

export class MoversSimulation implements DomainCommandGenerator {
  private configured = false;

  next(random: Prng, nowMs: number): Command {
    void nowMs;
    const roll = random.next();
    if (!this.configured || roll < 0.03) return this.configure(random);
    if (roll < 0.12) return this.malformed(random);
    return this.enter(random);
  }

  private configure(random: Prng): Command {
    this.configured = true;
    const body: ConfigureMovers = { roundMs: random.pick(roundChoicesMs) };
    return domainCommand(MoversCommandType.configure, body);
  }

  private enter(random: Prng): Command {
    const count = random.int(1, entrySymbolsMax);
    const pool = [...symbolsOffered];
    const symbols: string[] = [];
    for (let index = 0; index < count; index++) symbols.push(pool.splice(random.int(0, pool.length - 1), 1)[0]!);
    const body: EnterMovers = { userId: firstUser + random.int(0, usersMax - 1), symbols };
    return domainCommand(MoversCommandType.enter, body);
  }

  private malformed(random: Prng): Command {
    const userId = firstUser + random.int(0, usersMax - 1);
    switch (random.int(0, 4)) {
      case 0:
        return domainCommand(MoversCommandType.enter, { userId, symbols: ['BTC', 'NOPE'] } satisfies EnterMovers);
      case 1:
        return domainCommand(MoversCommandType.enter, { userId, symbols: ['ETH', 'ETH'] } satisfies EnterMovers);
      case 2:
        return domainCommand(MoversCommandType.enter, { userId, symbols: [] } satisfies EnterMovers);
      case 3:
        return domainCommand(MoversCommandType.enter, { userId: 0, symbols: ['BTC'] } satisfies EnterMovers);
      default:
        return domainCommand(MoversCommandType.configure, { roundMs: 1_000 } satisfies ConfigureMovers);
    }
  }
}
