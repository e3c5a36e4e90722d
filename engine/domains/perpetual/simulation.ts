/**
 * The perpetual markets' part of the seeded simulation: configurations (the markets of the prices
 * simulation and PLAT, which it never prices, so that market waits; epochs of one to five minutes; seeds
 * now and then too large for the house), deposits that fund the house in both modes, predictions of the
 * simulated users on both sides in both modes (some beyond their balance), and malformed commands (an
 * unknown market, a bad side, an amount off its bounds, a configuration that drops a market). Epochs end
 * and resolve as the generator's RunTimers move time on.
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { PerpetualCommandType, stakeAtomsMax, stakeAtomsMin, type ConfigurePerpetual, type Predict } from './commands.ts';
import { houseUserId } from './perpetual.ts';

/** The collateral's asset id in fixtures/markets.json (PRED); a generator sees no market tables. */
const collateralAssetId = 7;
const symbolsOffered = ['BTC', 'ETH', 'SOL', 'DOGE', 'PLAT', 'PRED'] as const;
const epochChoicesMs = [60_000, 120_000, 300_000] as const;
/** Users of the core generator (1..12), funded with PRED in both modes. */
const usersMax = 12;

export class PerpetualSimulation implements DomainCommandGenerator {
  private readonly symbols: string[] = [];

  next(random: Prng, nowMs: number): Command {
    const roll = random.next();
    if (this.symbols.length === 0 || roll < 0.04) return this.configure(random);
    if (roll < 0.09) return this.fundHouse(random, nowMs);
    if (roll < 0.16) return this.malformed(random);
    return this.predict(random);
  }

  private configure(random: Prng): Command {
    const symbols = [...this.symbols];
    for (const symbol of symbolsOffered) if (!symbols.includes(symbol) && random.chance(0.5)) symbols.push(symbol);
    if (symbols.length === 0) symbols.push('BTC');
    this.symbols.splice(0, this.symbols.length, ...symbols);
    const body: ConfigurePerpetual = {
      epochMs: random.pick(epochChoicesMs),
      seedAtoms: random.pick([0, 5_000_000, 100_000_000, 900_000_000_000]),
      symbols,
    };
    return domainCommand(PerpetualCommandType.configure, body);
  }

  private fundHouse(random: Prng, nowMs: number): Command {
    return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId: houseUserId, mode: random.int(0, 1) as 0 | 1, assetId: collateralAssetId, amountAtoms: random.int(1, 50) * 100_000_000 };
  }

  private predict(random: Prng): Command {
    const body: Predict = {
      userId: random.int(1, usersMax),
      mode: random.chance(0.3) ? 1 : 0,
      symbol: random.pick(this.symbols),
      side: random.chance(0.5) ? 0 : 1,
      // Mostly small stakes; now and then one beyond any simulated balance.
      amountAtoms: random.chance(0.03) ? stakeAtomsMax : random.int(stakeAtomsMin, 5_000 * stakeAtomsMin) + random.int(0, 999_999),
    };
    return domainCommand(PerpetualCommandType.predict, body);
  }

  private malformed(random: Prng): Command {
    switch (random.int(0, 4)) {
      case 0:
        return domainCommand(PerpetualCommandType.predict, { userId: 1, mode: 0, symbol: 'NOPE', side: 0, amountAtoms: stakeAtomsMin } satisfies Predict);
      case 1:
        return domainCommand(PerpetualCommandType.predict, { userId: 1, mode: 0, symbol: this.symbols[0]!, side: 2, amountAtoms: stakeAtomsMin } as unknown as Predict);
      case 2:
        return domainCommand(PerpetualCommandType.predict, { userId: 2, mode: 1, symbol: this.symbols[0]!, side: 1, amountAtoms: stakeAtomsMin - 1 } satisfies Predict);
      case 3:
        return domainCommand(PerpetualCommandType.configure, { epochMs: 1_000, seedAtoms: 0, symbols: [...this.symbols] } satisfies ConfigurePerpetual);
      default:
        return domainCommand(PerpetualCommandType.configure, { epochMs: 60_000, seedAtoms: 0, symbols: this.symbols.slice(1).concat('ZZZ') } satisfies ConfigurePerpetual);
    }
  }
}
