/**
 * The vaults' part of the seeded simulation: a strategy period, one vault of each strategy (paper mode, on
 * ETH/USDC and BTC/USDC, the momentum and basket vaults on both), USDC deposits of users of its own (601 to 606, paper mode; 606 a whale) that fund them, then
 * deposits, withdrawals by shares and by amount (some beyond what a holder has or the vault's free cash,
 * which sell in the same command or are refused unchanged), unwinds, repeated idempotency keys and malformed commands. Strategies trade on the RunTimers the
 * generator journals as time moves on.
 *
 * Paper mode keeps the vaults' fees out of the live fee account, whose USDC the exchange's tests check
 * against what exchange orders paid.
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { Strategy, VaultsCommandType, amountAtomsMin, type CreateVault, type DepositToVault, type UnwindVault, type WithdrawFromVault } from './commands.ts';

/** USDC in fixtures/markets.json (6 decimals); ETH/USDC is pair 1, BTC/USDC pair 2. */
const usdcAssetId = 1;
const firstUser = 601;
const users = 6;
/**
 * What each simulated user deposits: 100 000 USDC of paper funds (the whale 2 million). Vaults of a few
 * hundred thousand USDC trade sizes that the books' liquidity can fill, so they hold real positions.
 */
const fundingAtoms = 100_000_000_000;
/**
 * A user that owns most of the momentum and basket vaults, which hold the most base: its large withdrawals
 * go beyond the free cash, so the simulation exercises the unwind in the withdrawal and its refusal.
 */
const whale = firstUser + users - 1;
const vaultsMade: readonly CreateVault[] = [
  { slug: 'sim-mm-eth', strategy: Strategy.marketMaking, pairIds: [1], mode: 1, ownerUserId: 0 },
  { slug: 'sim-trend-btc', strategy: Strategy.trend, pairIds: [2], mode: 1, ownerUserId: 0 },
  { slug: 'sim-momentum', strategy: Strategy.momentum, pairIds: [1, 2], mode: 1, ownerUserId: 0 },
  { slug: 'sim-basket', strategy: Strategy.basket, pairIds: [2, 1], mode: 1, ownerUserId: 0 },
];

export class VaultsSimulation implements DomainCommandGenerator {
  private step = 0;
  private keys = 0;

  next(random: Prng, nowMs: number): Command {
    const step = this.step++;
    if (step < users) return { kind: CommandKind.deposit, seq: 0, ts: nowMs, userId: firstUser + step, mode: 1, assetId: usdcAssetId, amountAtoms: firstUser + step === whale ? 20 * fundingAtoms : fundingAtoms };
    if (step === users) return domainCommand(VaultsCommandType.configure, { strategyMs: 120_000 });
    if (step === users + 1) {
      const ticks: PostPriceTicks = { source: PriceSource.sim, symbols: ['BTC', 'ETH'], pricesE8: [9_700_000_000_000, 300_000_000_000] };
      return domainCommand(PricesCommandType.postPriceTicks, ticks);
    }
    if (step < users + 2 + vaultsMade.length) return domainCommand(VaultsCommandType.create, { ...vaultsMade[step - users - 2]! });
    const roll = random.next();
    if (roll < 0.45) return this.deposit(random);
    if (roll < 0.75) return this.withdraw(random);
    if (roll < 0.82) return domainCommand(VaultsCommandType.unwind, { vaultId: random.int(1, vaultsMade.length), cashAtoms: random.int(1, 50_000) * amountAtomsMin } satisfies UnwindVault);
    return this.malformed(random);
  }

  private key(random: Prng): string {
    // Now and then a key used before: the engine refuses the repeat and changes nothing.
    return random.chance(0.05) && this.keys > 0 ? `sim-${random.int(1, this.keys)}` : `sim-${++this.keys}`;
  }

  private deposit(random: Prng): Command {
    if (random.chance(0.15)) {
      const body: DepositToVault = { vaultId: random.int(3, 4), userId: whale, amountAtoms: random.int(5_000, 100_000) * amountAtomsMin, idempotencyKey: this.key(random) };
      return domainCommand(VaultsCommandType.deposit, body);
    }
    const body: DepositToVault = {
      vaultId: random.int(1, vaultsMade.length),
      userId: firstUser + random.int(0, users - 1),
      amountAtoms: random.chance(0.03) ? 10 * fundingAtoms : random.int(1, 2_000) * amountAtomsMin + random.int(0, 999_999),
      idempotencyKey: this.key(random),
    };
    return domainCommand(VaultsCommandType.deposit, body);
  }

  private withdraw(random: Prng): Command {
    if (random.chance(0.15)) {
      const body: WithdrawFromVault = { vaultId: random.int(3, 4), userId: whale, shares: 0, amountAtoms: random.int(1_000, 150_000) * amountAtomsMin, idempotencyKey: this.key(random) };
      return domainCommand(VaultsCommandType.withdraw, body);
    }
    const byShares = random.chance(0.5);
    // Now and then a large one, beyond the vault's free cash: it sells bases in the same command, or is
    // refused (VAULT_ILLIQUID) with nothing changed when the books cannot pay.
    const large = random.chance(0.2);
    const body: WithdrawFromVault = {
      vaultId: random.int(1, vaultsMade.length),
      userId: firstUser + random.int(0, users - 1),
      shares: byShares ? random.int(1, large ? 30_000 : 500) * 1_000_000_000 : 0,
      amountAtoms: byShares ? 0 : random.int(1, large ? 30_000 : 3_000) * amountAtomsMin,
      idempotencyKey: this.key(random),
    };
    return domainCommand(VaultsCommandType.withdraw, body);
  }

  private malformed(random: Prng): Command {
    switch (random.int(0, 4)) {
      case 0:
        return domainCommand(VaultsCommandType.deposit, { vaultId: 99, userId: firstUser, amountAtoms: amountAtomsMin, idempotencyKey: 'sim-x' } satisfies DepositToVault);
      case 1:
        return domainCommand(VaultsCommandType.deposit, { vaultId: 1, userId: firstUser, amountAtoms: 0, idempotencyKey: 'sim-y' } satisfies DepositToVault);
      case 2:
        return domainCommand(VaultsCommandType.withdraw, { vaultId: 1, userId: firstUser, shares: 1, amountAtoms: amountAtomsMin, idempotencyKey: 'sim-z' } satisfies WithdrawFromVault);
      case 3:
        return domainCommand(VaultsCommandType.create, { slug: 'Bad Slug', strategy: Strategy.trend, pairIds: [1], mode: 1, ownerUserId: 0 } satisfies CreateVault);
      default:
        return domainCommand(VaultsCommandType.configure, { strategyMs: 10 });
    }
  }
}
