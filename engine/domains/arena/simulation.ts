/**
 * The arena's part of the seeded simulation: the house's funding (a core Deposit to the house account)
 * and the seed first, then the arena users' USDC, then orders of a few users on both books around NAV
 * (buys and sells, some crossing the house's quotes or each other's, some selling shares they do not
 * have), cancels of guessed order ids (most of them someone else's or gone), malformed orders and
 * repeated seeds. Prices come from the prices domain's own generator; epochs end by the generator's
 * RunTimers, so a run crosses several epochs and pays bonuses.
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { houseUserId } from './arena.ts';
import { ArenaCommandType, type CancelArenaOrder, type PlaceArenaOrder, type SeedArena } from './commands.ts';

/** The arena's own users: apart from the exchange generator's (1..12), whose holds its checks count. */
export const simulationUsers = [101, 102, 103, 104] as const;
const usdcAssetId = 1;
const userFundingAtoms = 1_000_000_000_000;
const houseFundingAtoms = 10_000_000_000_000;

/** A seed over the assets the prices generator ticks, with one-minute epochs so that a run crosses several. */
export const simulationSeed: SeedArena = {
  blueSymbols: ['BTC', 'ETH', 'SOL', 'DOGE'],
  blueWeightsBps: [4000, 3000, 2000, 1000],
  redSymbols: ['AAPL', 'NVDA', 'SPY', 'PRED'],
  redWeightsBps: [2500, 2500, 4000, 1000],
  navBaseAtoms: 100_000_000,
  epochMs: 60_000,
  mmSpreadBps: 100,
  mmSizeLots: 2_000,
  mmInventoryMaxLots: 20_000,
};

export class ArenaSimulation implements DomainCommandGenerator {
  private step = 0;
  private placed = 0;

  next(random: Prng, nowMs: number): Command {
    void nowMs;
    const step = this.step++;
    if (step === 0) return { kind: CommandKind.deposit, seq: 0, ts: 0, userId: houseUserId, mode: 0, assetId: usdcAssetId, amountAtoms: houseFundingAtoms };
    if (step === 1) return domainCommand(ArenaCommandType.seedArena, { ...simulationSeed });
    if (step < 2 + simulationUsers.length) {
      return { kind: CommandKind.deposit, seq: 0, ts: 0, userId: simulationUsers[step - 2]!, mode: 0, assetId: usdcAssetId, amountAtoms: userFundingAtoms };
    }
    const roll = random.next();
    if (roll < 0.7) return this.order(random);
    if (roll < 0.85) return this.cancel(random);
    if (roll < 0.95) return this.malformed(random);
    return domainCommand(ArenaCommandType.seedArena, { ...simulationSeed, epochMs: 120_000 });
  }

  private order(random: Prng): Command {
    this.placed++;
    const body: PlaceArenaOrder = {
      userId: random.pick(simulationUsers),
      team: random.int(0, 1),
      side: random.chance(0.55) ? 0 : 1,
      // Around the base NAV of 100 USDC: some inside the house's spread, some through it.
      priceTicks: random.int(9_700, 10_300),
      sizeLots: random.int(1, 4_000),
    };
    return domainCommand(ArenaCommandType.placeArenaOrder, body);
  }

  private cancel(random: Prng): Command {
    // Ids are guessed: the house's quotes take ids too, so many guesses are someone else's or gone.
    const body: CancelArenaOrder = { userId: random.pick(simulationUsers), orderId: random.int(1, this.placed * 4 + 10) };
    return domainCommand(ArenaCommandType.cancelArenaOrder, body);
  }

  private malformed(random: Prng): Command {
    const body: PlaceArenaOrder = { userId: random.pick(simulationUsers), team: 0, side: 0, priceTicks: 10_000, sizeLots: 10 };
    switch (random.int(0, 3)) {
      case 0:
        body.team = 2;
        break;
      case 1:
        body.sizeLots = 0;
        break;
      case 2:
        body.priceTicks = 1_000_000_000;
        break;
      default:
        body.userId = 0;
    }
    return domainCommand(ArenaCommandType.placeArenaOrder, body);
  }
}
