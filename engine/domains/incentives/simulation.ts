/**
 * The incentives' part of the seeded simulation. It journals the catalogue (two funded pools and one whose
 * reward account stays empty, an airdrop over the first minutes, two boosts), funds the reward and airdrop
 * accounts and its own stakers (users 801 to 806, in PLAT and PRED, not USDC, so the exchange's USDC fee
 * account keeps only what exchange orders paid), and registers bots for exchange users 1 to 3, whose real
 * fills in the exchange's stream move their tiers and so their taker rates. Then: stakes, unstakes
 * (locked ones refused), reward claims (the empty pool refused), airdrop claims by traders and non-traders,
 * boost activations (repeated keys, boosts already active, tiers too low), and malformed commands.
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { domainUserId } from '../../core/limits.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import {
  BoostKind,
  IncentivesCommandType,
  airdropAccountIndex,
  incentivesDomainId,
  poolRewardAccountIndex,
  type ActivateBoost,
  type ClaimAirdrop,
  type ClaimRewards,
  type IncentivesCatalogue,
  encodeCatalogue,
  type RegisterBot,
  type Stake,
  type Unstake,
} from './commands.ts';

const platId = 6;
const predId = 7;
const firstUser = 801;
const users = 6;
const botOwners = [1, 2, 3];
const unit = 1_000_000;

export class IncentivesSimulation implements DomainCommandGenerator {
  private readonly setup: Array<(nowMs: number) => Command> = [];
  private step = 0;
  private boostKeys = 0;

  constructor() {
    this.setup.push((nowMs) => domainCommand(IncentivesCommandType.configure, encodeCatalogue(catalogue(nowMs))));
    const deposit = (userId: number, assetId: number, amountAtoms: number) => (nowMs: number): Command => ({ kind: CommandKind.deposit, seq: 0, ts: nowMs, userId, mode: 0, assetId, amountAtoms });
    this.setup.push(deposit(domainUserId(incentivesDomainId, poolRewardAccountIndex(1)), platId, 1_000_000 * unit));
    this.setup.push(deposit(domainUserId(incentivesDomainId, poolRewardAccountIndex(2)), predId, 1_000_000 * unit));
    this.setup.push(deposit(domainUserId(incentivesDomainId, airdropAccountIndex), platId, 50 * unit));
    for (let index = 0; index < users; index++) {
      this.setup.push(deposit(firstUser + index, platId, 10_000_000 * unit));
      this.setup.push(deposit(firstUser + index, predId, 10_000_000 * unit));
    }
    for (const userId of botOwners) {
      const body: RegisterBot = { userId, wallet: `0x${userId.toString(16).padStart(40, '0')}`, name: `Sim bot ${userId}`, strategyType: 'market_making', description: '' };
      this.setup.push(() => domainCommand(IncentivesCommandType.registerBot, body));
    }
    // A second bot with a wallet already taken: refused.
    this.setup.push(() => domainCommand(IncentivesCommandType.registerBot, { userId: 2, wallet: `0x${(1).toString(16).padStart(40, '0')}`, name: 'Copy', strategyType: 'arbitrage', description: '' } satisfies RegisterBot));
  }

  next(random: Prng, nowMs: number): Command {
    const setup = this.setup[this.step];
    if (setup !== undefined) {
      this.step++;
      return setup(nowMs);
    }
    const roll = random.next();
    if (roll < 0.35) return this.stake(random);
    if (roll < 0.5) return this.unstake(random);
    if (roll < 0.7) return this.claim(random);
    if (roll < 0.8) return this.airdrop(random);
    if (roll < 0.95) return this.boost(random);
    // Malformed: an unknown pool, an empty wallet.
    return random.next() < 0.5
      ? domainCommand(IncentivesCommandType.stake, { userId: this.user(random), poolId: 99, amountAtoms: unit, lockupDays: 0 } satisfies Stake)
      : domainCommand(IncentivesCommandType.registerBot, { userId: this.user(random), wallet: '', name: 'x', strategyType: '', description: '' } satisfies RegisterBot);
  }

  private user(random: Prng): number {
    return firstUser + random.int(0, users - 1);
  }

  private stake(random: Prng): Command {
    const body: Stake = { userId: this.user(random), poolId: random.int(1, 3), amountAtoms: random.int(1, 5_000) * unit, lockupDays: random.next() < 0.7 ? 0 : random.int(0, 8) };
    return domainCommand(IncentivesCommandType.stake, body);
  }

  private unstake(random: Prng): Command {
    const body: Unstake = { userId: this.user(random), poolId: random.int(1, 3), amountAtoms: random.int(1, 3_000) * unit };
    return domainCommand(IncentivesCommandType.unstake, body);
  }

  private claim(random: Prng): Command {
    const body: ClaimRewards = { userId: this.user(random), poolId: random.int(0, 3) };
    return domainCommand(IncentivesCommandType.claimRewards, body);
  }

  private airdrop(random: Prng): Command {
    const userId = random.next() < 0.7 ? random.int(1, 12) : this.user(random);
    const body: ClaimAirdrop = { userId, airdropId: random.int(1, 2) };
    return domainCommand(IncentivesCommandType.claimAirdrop, body);
  }

  private boost(random: Prng): Command {
    // Keys repeat now and then: the repeat is answered ok and changes nothing.
    const key = random.next() < 0.2 && this.boostKeys > 0 ? `sim-${this.boostKeys}` : `sim-${++this.boostKeys}`;
    const userId = random.next() < 0.7 ? this.user(random) : botOwners[random.int(0, botOwners.length - 1)]!;
    const body: ActivateBoost = { userId, boostId: random.int(1, 3), requestKey: key };
    return domainCommand(IncentivesCommandType.activateBoost, body);
  }
}

/** The simulation's catalogue, its airdrop windows starting at the first command's time. */
function catalogue(nowMs: number): IncentivesCatalogue {
  return {
    pools: [
      { poolId: 1, assetId: platId, apyBps: 1_200, minStakeAtoms: unit, maxStakeAtoms: 50_000 * unit, capacityAtoms: 200_000 * unit, lockupDays: [0, 7] },
      { poolId: 2, assetId: predId, apyBps: 50_000, minStakeAtoms: unit, maxStakeAtoms: 50_000 * unit, capacityAtoms: 100_000 * unit, lockupDays: [0, 1, 30] },
      // No reward account funding: its claims are refused as unfunded.
      { poolId: 3, assetId: platId, apyBps: 90_000, minStakeAtoms: unit, maxStakeAtoms: 10_000 * unit, capacityAtoms: 20_000 * unit, lockupDays: [0] },
    ],
    airdrops: [
      { airdropId: 1, assetId: platId, amountAtoms: 5 * unit, minVolumeAtoms: 1_000 * unit, windowStartMs: nowMs, windowEndMs: nowMs + 600_000, claimEndMs: nowMs + 1_200_000 },
      { airdropId: 2, assetId: platId, amountAtoms: 1 * unit, minVolumeAtoms: 0, windowStartMs: nowMs, windowEndMs: nowMs + 60_000, claimEndMs: nowMs + 120_000 },
    ],
    boosts: [
      { boostId: 1, kind: BoostKind.stakingApy, value: 150, durationMs: 120_000, costAssetId: platId, costAtoms: 10 * unit, minTier: 0 },
      { boostId: 2, kind: BoostKind.feeDiscount, value: 3, durationMs: 60_000, costAssetId: platId, costAtoms: 0, minTier: 0 },
      { boostId: 3, kind: BoostKind.stakingApy, value: 200, durationMs: 300_000, costAssetId: platId, costAtoms: 100 * unit, minTier: 3 },
    ],
  };
}
