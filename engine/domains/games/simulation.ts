/**
 * The games' part of the seeded simulation. It settles in PLAT (asset id 6), not USDC, because the
 * exchange's tests that share this stream check that the live fee account's USDC is exactly what exchange
 * orders paid, and duel fees go to that same account. First it funds its own users (291 to 298) and the
 * reward account, then configures one-day and two-day milestones (so the core generator's traders earn
 * streak rewards within a run, and the reward account now and then runs dry and owes them); after that
 * duels (created, accepted, left to expire), tournaments a few minutes ahead (joined, some below their
 * minimum), deposits that refill the reward account, and refused commands of every kind.
 *
 * Its users do not trade on the exchange, so the exchange's simulated stream is unchanged; their duels end
 * in ties and their tournaments refund (settlements with winners are tested in games.test.ts).
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import {
  GamesCommandType,
  duelStakeAtomsMax,
  duelStakeAtomsMin,
  entryFeeAtomsMin,
  type AcceptDuel,
  type ConfigureGames,
  type CreateDuel,
  type CreateTournament,
  type JoinTournament,
} from './commands.ts';
import { rewardUserId } from './games.ts';

const tokenAssetId = 6;
const firstUser = 291;
const users = 8;
/** What each simulated user deposits: 100 000 PLAT. */
const depositAtoms = 100_000_000_000;

export class GamesSimulation implements DomainCommandGenerator {
  private funded = 0;
  private configured = false;
  private duelsCreated = 0;
  private tournamentsCreated = 0;

  next(random: Prng, nowMs: number): Command {
    if (this.funded < users) {
      const userId = firstUser + this.funded++;
      return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId, mode: 0, assetId: tokenAssetId, amountAtoms: depositAtoms };
    }
    if (this.funded === users) {
      // The reward account starts with enough for some of the core traders' one-day rewards, not all.
      this.funded++;
      return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId: rewardUserId, mode: 0, assetId: tokenAssetId, amountAtoms: 16_000_000 };
    }
    if (!this.configured) {
      this.configured = true;
      const body: ConfigureGames = { assetId: tokenAssetId, duelFeeBps: 100, milestoneDays: [1, 2], rewardAtoms: [2_000_000, 5_000_000] };
      return domainCommand(GamesCommandType.configure, body);
    }
    const roll = random.next();
    if (roll < 0.06) return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId: rewardUserId, mode: 0, assetId: tokenAssetId, amountAtoms: random.int(1, 20) * 1_000_000 };
    if (roll < 0.25) return this.createDuel(random);
    if (roll < 0.45) return this.acceptDuel(random);
    if (roll < 0.52) return this.createTournament(random, nowMs);
    if (roll < 0.9) return this.join(random);
    return this.malformed(random, nowMs);
  }

  private user(random: Prng): number {
    return firstUser + random.int(0, users - 1);
  }

  private createDuel(random: Prng): Command {
    this.duelsCreated++;
    const body: CreateDuel = {
      userId: this.user(random),
      pairId: random.int(1, 6),
      stakeAtoms: random.int(duelStakeAtomsMin, 1_000 * duelStakeAtomsMin),
      durationMs: random.int(60_000, 180_000),
      acceptMs: random.int(120_000, 600_000),
    };
    return domainCommand(GamesCommandType.createDuel, body);
  }

  private acceptDuel(random: Prng): Command {
    const body: AcceptDuel = { userId: this.user(random), duelId: Math.max(1, this.duelsCreated - random.int(0, 1)) };
    return domainCommand(GamesCommandType.acceptDuel, body);
  }

  private createTournament(random: Prng, nowMs: number): Command {
    const startMs = nowMs + random.int(120_000, 400_000);
    const body: CreateTournament = {
      key: `sim-${++this.tournamentsCreated}`,
      startMs,
      endMs: startMs + random.int(60_000, 180_000),
      entryFeeAtoms: random.int(1, 50) * entryFeeAtomsMin,
      capacity: random.int(2, 6),
      minEntrants: 2,
    };
    body.minEntrants = random.int(2, body.capacity);
    return domainCommand(GamesCommandType.createTournament, body);
  }

  private join(random: Prng): Command {
    const body: JoinTournament = { userId: this.user(random), tournamentId: Math.max(1, this.tournamentsCreated - random.int(0, 1)) };
    return domainCommand(GamesCommandType.joinTournament, body);
  }

  private malformed(random: Prng, nowMs: number): Command {
    switch (random.int(0, 5)) {
      case 0:
        return domainCommand(GamesCommandType.createDuel, { userId: this.user(random), pairId: 999, stakeAtoms: duelStakeAtomsMin, durationMs: 60_000, acceptMs: 60_000 } satisfies CreateDuel);
      case 1:
        return domainCommand(GamesCommandType.createDuel, { userId: this.user(random), pairId: 1, stakeAtoms: duelStakeAtomsMax, durationMs: 60_000, acceptMs: 60_000 } satisfies CreateDuel);
      case 2:
        return domainCommand(GamesCommandType.createDuel, { userId: this.user(random), pairId: 1, stakeAtoms: duelStakeAtomsMin, durationMs: 1_000, acceptMs: 60_000 } satisfies CreateDuel);
      case 3:
        return domainCommand(GamesCommandType.acceptDuel, { userId: this.user(random), duelId: 1_000_000 } satisfies AcceptDuel);
      case 4:
        return domainCommand(GamesCommandType.createTournament, { key: 'Bad Key', startMs: nowMs - 1, endMs: nowMs, entryFeeAtoms: 0, capacity: 1, minEntrants: 5 } satisfies CreateTournament);
      default:
        return domainCommand(GamesCommandType.configure, { assetId: 1, duelFeeBps: 0, milestoneDays: [], rewardAtoms: [] } satisfies ConfigureGames);
    }
  }
}
