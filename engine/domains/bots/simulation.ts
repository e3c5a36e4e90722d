/**
 * The bots domain's part of the seeded simulation: strategy periods (some refused), clones of users of its
 * own (270..299, so the exchange's simulated users are untouched; some start twice and are refused) of
 * every source type in both modes, and malformed clones (a domain account, a bad mode, type or index).
 * The clock strikes as the generator's RunTimers move time on. The domain moves no money, so it needs no
 * deposits.
 */
import type { Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { domainUserId } from '../../core/limits.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { BotsCommandType, sourcesPerTypeMax, type ConfigureBots, type StartClone } from './commands.ts';

const firstUser = 270;
const usersCount = 30;

export class BotsSimulation implements DomainCommandGenerator {
  private configured = false;

  next(random: Prng): Command {
    const roll = random.next();
    if (!this.configured || roll < 0.05) return this.configure(random);
    if (roll < 0.15) return this.malformed(random);
    const body: StartClone = { userId: firstUser + random.int(0, usersCount - 1), mode: random.int(0, 1), sourceType: random.int(0, 2), sourceIndex: random.int(0, 5) };
    return domainCommand(BotsCommandType.startClone, body);
  }

  private configure(random: Prng): Command {
    this.configured = true;
    const body: ConfigureBots = { strategyMs: random.pick([0, 5_000, 30_000, 60_000, 999]) };
    return domainCommand(BotsCommandType.configure, body);
  }

  private malformed(random: Prng): Command {
    const body: StartClone = { userId: firstUser, mode: 0, sourceType: 0, sourceIndex: 0 };
    switch (random.int(0, 3)) {
      case 0:
        body.userId = domainUserId(7, 0);
        break;
      case 1:
        body.mode = 2;
        break;
      case 2:
        body.sourceType = 3;
        break;
      default:
        body.sourceIndex = sourcesPerTypeMax;
    }
    return domainCommand(BotsCommandType.startClone, body);
  }
}
