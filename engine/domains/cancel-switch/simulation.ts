/**
 * The cancel switch's part of the seeded simulation: users of its own (900..909, so the exchange's
 * simulated users and their orders are untouched) arm, renew and disarm switches in both modes, some
 * refused (a domain account, a bad mode, a timeout out of bounds, a disarm of an unarmed switch); the
 * generator's RunTimers fire the switches that were not renewed in time. The domain moves no money.
 */
import type { Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { domainUserId } from '../../core/limits.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { CancelSwitchCommandType, cancelSwitchTimeoutMsMax, cancelSwitchTimeoutMsMin, type ArmCancelSwitch } from './commands.ts';

const firstUser = 900;
const usersCount = 10;

export class CancelSwitchSimulation implements DomainCommandGenerator {
  next(random: Prng): Command {
    const body: ArmCancelSwitch = { userId: firstUser + random.int(0, usersCount - 1), mode: random.int(0, 1), timeoutMs: random.pick([0, cancelSwitchTimeoutMsMin, 5_000, 60_000]) };
    if (random.next() < 0.1) {
      switch (random.int(0, 2)) {
        case 0:
          body.userId = domainUserId(19, 0);
          break;
        case 1:
          body.mode = 2;
          break;
        default:
          body.timeoutMs = random.pick([cancelSwitchTimeoutMsMin - 1, cancelSwitchTimeoutMsMax + 1, -5]);
      }
    }
    return domainCommand(CancelSwitchCommandType.arm, body);
  }
}
