/**
 * The rewards domain's part of the seeded simulation: configurations (accruals every one to five minutes,
 * shares of 0 to 100 %, PLAT and PRED), payout timers (one to five minutes, now and then stopped),
 * deposits that fund the bounty account, bounty payments to its own users (400 + 0 .. 19; some beyond the
 * fund, some repeated report ids, some malformed), and bad configurations. Accruals and payouts follow the
 * exchange's simulated trading as the generator's RunTimers move time; payouts move USDC out of the live
 * fee account, which the read models count as fees paid out (RewardsPaid).
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { RewardsCommandType, type ConfigurePayouts, type ConfigureRewards, type PayBounty } from './commands.ts';
import { bountyUserId } from './rewards.ts';

/** Asset ids in fixtures/markets.json (a generator sees no market tables): USDC, PLAT and PRED. */
const usdcAssetId = 1;
const platAssetId = 6;
const predAssetId = 7;
const firstUser = 400;
const usersMax = 20;

export class RewardsSimulation implements DomainCommandGenerator {
  private configured = false;
  private payoutsConfigured = false;
  private lastReportId = 0;

  next(random: Prng, nowMs: number): Command {
    const roll = random.next();
    if (!this.configured || roll < 0.03) return this.configure(random);
    // Payouts start right after the first configuration, so that short runs pay out too.
    if (!this.payoutsConfigured || roll < 0.06) return this.configurePayouts(random);
    if (roll < 0.2) return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId: bountyUserId, mode: 0, assetId: usdcAssetId, amountAtoms: random.int(1, 500) * 1_000_000 };
    if (roll < 0.3) return this.malformed(random);
    const body: PayBounty = {
      // Now and then a report paid before.
      reportId: random.chance(0.1) && this.lastReportId > 0 ? random.int(1, this.lastReportId) : ++this.lastReportId,
      userId: firstUser + random.int(0, usersMax - 1),
      amountAtoms: random.int(1, 300) * 1_000_000,
    };
    return domainCommand(RewardsCommandType.payBounty, body);
  }

  private configure(random: Prng): Command {
    this.configured = true;
    const body: ConfigureRewards = {
      intervalMs: random.pick([60_000, 120_000, 300_000]),
      shareBps: random.pick([0, 2_000, 5_000, 10_000]),
      tokenAssetIds: random.chance(0.5) ? [platAssetId, predAssetId] : [platAssetId],
    };
    return domainCommand(RewardsCommandType.configure, body);
  }

  private configurePayouts(random: Prng): Command {
    // Stopped now and then, but never by the first one.
    const intervalMs = random.pick(this.payoutsConfigured ? [0, 60_000, 120_000, 300_000] : [60_000, 120_000, 300_000]);
    this.payoutsConfigured = true;
    return domainCommand(RewardsCommandType.configurePayouts, { intervalMs } satisfies ConfigurePayouts);
  }

  private malformed(random: Prng): Command {
    switch (random.int(0, 4)) {
      case 0:
        return domainCommand(RewardsCommandType.configure, { intervalMs: 1_000, shareBps: 100, tokenAssetIds: [platAssetId] } satisfies ConfigureRewards);
      case 1:
        return domainCommand(RewardsCommandType.configure, { intervalMs: 60_000, shareBps: 100, tokenAssetIds: [usdcAssetId] } satisfies ConfigureRewards);
      case 2:
        return domainCommand(RewardsCommandType.payBounty, { reportId: 0, userId: firstUser, amountAtoms: 1 } satisfies PayBounty);
      case 3:
        return domainCommand(RewardsCommandType.configurePayouts, { intervalMs: 59_999 } satisfies ConfigurePayouts);
      default:
        return domainCommand(RewardsCommandType.payBounty, { reportId: ++this.lastReportId, userId: firstUser, amountAtoms: 900_000_000_000 } satisfies PayBounty);
    }
  }
}
