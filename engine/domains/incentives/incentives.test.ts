/**
 * The incentives' rules: tier boundaries from real fills and the discount the engine then charges, staking
 * accrual with carried remainders, the empty reward account, airdrop claims once, boost expiry by
 * journaled time, idempotent activation, refusals that change nothing, and a seeded random run that
 * conserves every ledger account and replays through the frame codec and a snapshot to the same hash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind, type EngineEvent, type TradeExecuted } from '../../core/events.ts';
import { domainUserId } from '../../core/limits.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { orderRequest } from '../../core/sim/order-request.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import {
  BoostKind,
  IncentivesCommandType,
  IncentivesEventType,
  IncentivesResult,
  airdropAccountIndex,
  dayMs,
  incentivesDomainId,
  poolRewardAccountIndex,
  poolStakeAccountIndex,
  tiers,
  yearMs,
  type IncentivesCatalogue,
  encodeCatalogue,
  type TierChanged,
} from './commands.ts';
import { Incentives, incentivesOf } from './incentives.ts';
import { IncentivesSimulation } from './simulation.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const plat = markets.assetBySymbol('PLAT')!;
const unit = 1_000_000;
const t0 = 1_700_000_000_000;

const catalogue: IncentivesCatalogue = {
  pools: [
    { poolId: 1, assetId: plat.id, apyBps: 1_000, minStakeAtoms: unit, maxStakeAtoms: 1_000_000 * unit, capacityAtoms: 2_000_000 * unit, lockupDays: [0, 7] },
    { poolId: 2, assetId: plat.id, apyBps: 5_000, minStakeAtoms: unit, maxStakeAtoms: 1_000_000 * unit, capacityAtoms: 2_000_000 * unit, lockupDays: [0] },
  ],
  airdrops: [{ airdropId: 1, assetId: plat.id, amountAtoms: 5 * unit, minVolumeAtoms: 3_000 * unit, windowStartMs: t0, windowEndMs: t0 + dayMs, claimEndMs: t0 + 2 * dayMs }],
  boosts: [
    { boostId: 1, kind: BoostKind.stakingApy, value: 150, durationMs: dayMs, costAssetId: plat.id, costAtoms: 10 * unit, minTier: 0 },
    { boostId: 2, kind: BoostKind.feeDiscount, value: 5, durationMs: 3_600_000, costAssetId: plat.id, costAtoms: 0, minTier: 1 },
  ],
};

class Harness {
  readonly sink = new CollectingSink();
  readonly engine = new Engine({ markets, sink: this.sink, domains: platformDomains });
  readonly incentives: Incentives = incentivesOf(this.engine)!;
  readonly journal: Command[] = [];
  private seq = 0;
  private orderId = 0;
  now = t0;

  apply(command: Command, ts = this.now): ResultCode {
    this.sink.clear();
    const stamped = { ...command, seq: ++this.seq, ts } as Command;
    const result = this.engine.apply(stamped);
    if (result === Result.ok) this.journal.push(stamped);
    return result;
  }

  domain(type: number, body: unknown): ResultCode {
    return this.apply(domainCommand(type, body));
  }

  deposit(userId: number, assetId: number, amountAtoms: number): void {
    assert.equal(this.apply({ kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId, amountAtoms }), Result.ok);
  }

  /** A resting sell of `lots` by `maker` at 3000 USDC and a buy of it by `taker`: one fill. */
  trade(taker: number, maker: number, lots: number): TradeExecuted {
    const sell = orderRequest({ orderId: ++this.orderId, userId: maker, pairId: eth.id, side: 1, priceTicks: 300_000, quantityLots: lots });
    assert.equal(this.apply({ kind: CommandKind.placeOrder, seq: 0, ts: 0, ...sell }), Result.ok);
    const buy = orderRequest({ orderId: ++this.orderId, userId: taker, pairId: eth.id, side: 0, priceTicks: 300_000, quantityLots: lots });
    assert.equal(this.apply({ kind: CommandKind.placeOrder, seq: 0, ts: 0, ...buy }), Result.ok);
    const trade = this.sink.events.find((event) => event.kind === EventKind.tradeExecuted) as TradeExecuted | undefined;
    assert.ok(trade !== undefined);
    return { ...trade };
  }

  events<Body>(type: number): Body[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: Body }).body);
  }

  available(userId: number, assetIndex: number): number {
    const account = this.engine.ledger.find(userId, 0);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, assetIndex);
  }

  /** A refused command: its result, and the state hash unchanged and no events. */
  refused(type: number, body: unknown, expected: ResultCode): void {
    const before = stateHash(this.engine);
    assert.equal(this.domain(type, body), expected);
    assert.equal(this.sink.events.length, 0);
    assert.equal(stateHash(this.engine), before);
  }
}

function configured(): Harness {
  const h = new Harness();
  assert.equal(h.domain(IncentivesCommandType.configure, encodeCatalogue(catalogue)), Result.ok);
  for (const userId of [1, 2, 3]) {
    h.deposit(userId, usdc.id, 1_000_000_000 * unit);
    h.deposit(userId, ether.id, 100_000 * 100_000_000);
    h.deposit(userId, plat.id, 1_000_000 * unit);
  }
  return h;
}

// One ETH at 3000 is a notional of 3000 USDC (3 × 10^9 atoms); silver needs 10 000 USDC.
const oneEthLots = 10_000;

test('tier boundaries: a bot owner moves tier exactly when its 30-day volume reaches a threshold, and pays the discounted taker fee from then on', () => {
  const h = configured();
  assert.equal(h.domain(IncentivesCommandType.registerBot, { userId: 1, wallet: `0x${'a'.repeat(40)}`, name: 'Bot', strategyType: 'market_making', description: '' }), Result.ok);
  // 3 × 3000 = 9000 USDC: still bronze, 10 bps.
  for (let index = 0; index < 3; index++) assert.equal(h.trade(1, 2, oneEthLots).takerFeeAtoms, 3_000_000);
  assert.equal(h.incentives.tierOfUser(1), 0);
  // The fourth fill crosses 10 000 USDC: silver on this fill (its own fee was fixed at placement).
  const crossing = h.trade(1, 2, oneEthLots);
  assert.equal(crossing.takerFeeAtoms, 3_000_000);
  const [changed] = h.events<TierChanged>(IncentivesEventType.tierChanged);
  assert.deepEqual(changed, { userId: 1, oldTier: 0, newTier: 1, volumeAtoms: 12_000 * unit, takerFeeBps: 8, rewardMultiplierPct: 110 });
  // The next order pays 8 bps: 2 400 000 atoms on 3000 USDC.
  assert.equal(h.trade(1, 2, oneEthLots).takerFeeAtoms, 2_400_000);
  // As maker the bot's volume counts too; the non-bot taker pays the engine's rate.
  assert.equal(h.trade(2, 1, oneEthLots).takerFeeAtoms, 3_000_000);
  assert.equal(h.incentives.volumeOf(1, h.now), 18_000 * unit);
  // 31 days later the old buckets have left the window: the next fill recomputes the tier as bronze.
  h.now += 31 * dayMs;
  h.trade(1, 2, 1);
  assert.equal(h.incentives.tierOfUser(1), 0);
  assert.equal(h.events<TierChanged>(IncentivesEventType.tierChanged)[0]!.newTier, 0);
  assert.equal(h.trade(1, 2, oneEthLots).takerFeeAtoms, 3_000_000);
  assert.equal(h.engine.ledger.audit(), null);
});

test('the tier table rises in volume, discount and multiplier', () => {
  for (let index = 1; index < tiers.length; index++) {
    assert.ok(tiers[index]!.volumeAtoms > tiers[index - 1]!.volumeAtoms);
    assert.ok(tiers[index]!.discountBps > tiers[index - 1]!.discountBps);
    assert.ok(tiers[index]!.rewardMultiplierPct > tiers[index - 1]!.rewardMultiplierPct);
  }
});

test('staking accrues integer rewards with the remainder carried, and pays only what the reward account holds', () => {
  const h = configured();
  const rewardUser = domainUserId(incentivesDomainId, poolRewardAccountIndex(1));
  // 7 atoms at 10 %: 0.7 atoms a year. Accrual in ten steps of a tenth of a year loses nothing.
  assert.equal(h.domain(IncentivesCommandType.stake, { userId: 3, poolId: 1, amountAtoms: unit, lockupDays: 0 }), Result.ok);
  const stakeAccount = domainUserId(incentivesDomainId, poolStakeAccountIndex(1));
  assert.equal(h.available(stakeAccount, plat.index), unit);
  // A year in ten steps, each touching the position (another stake of the minimum each time).
  for (let step = 1; step <= 10; step++) {
    h.now = t0 + (step * yearMs) / 10;
    assert.equal(h.domain(IncentivesCommandType.stake, { userId: 3, poolId: 1, amountAtoms: unit, lockupDays: 0 }), Result.ok);
  }
  // Exactly: sum over steps of k units × 10 % × 1/10 year = 0.01 × (1 + ... + 10) units = 0.55 units.
  assert.equal(h.incentives.position(3, 1)!.pendingAtoms, 550_000);
  assert.equal(h.incentives.position(3, 1)!.remainder, 0);
  // A stake whose reward does not divide: 3 atoms for a third of a year at 10 %: 0.1 atoms, carried.
  assert.equal(h.domain(IncentivesCommandType.stake, { userId: 2, poolId: 2, amountAtoms: unit, lockupDays: 0 }), Result.ok);
  h.now += 1;
  const pending = h.incentives.pendingAt(2, 2, h.now);
  // 10^6 atoms × 50 % × 1 ms / year = 0.0158... atoms: nothing yet, but the remainder grows.
  assert.equal(pending, 0);
  h.now += yearMs - 1;
  assert.equal(h.incentives.pendingAt(2, 2, h.now), 500_000, 'a year of carried remainders adds up exactly');

  // The empty reward account: the claim is refused and changes nothing.
  h.refused(IncentivesCommandType.claimRewards, { userId: 3, poolId: 1 }, IncentivesResult.rewardsUnfunded);
  h.deposit(rewardUser, plat.id, 100 * unit);
  const before = h.available(3, plat.index);
  assert.equal(h.domain(IncentivesCommandType.claimRewards, { userId: 3, poolId: 1 }), Result.ok);
  const paid = h.available(3, plat.index) - before;
  assert.ok(paid > 550_000, `${paid} paid`);
  assert.equal(h.available(rewardUser, plat.index), 100 * unit - paid);
  h.refused(IncentivesCommandType.claimRewards, { userId: 3, poolId: 1 }, IncentivesResult.nothingToClaim);
  assert.equal(h.engine.ledger.audit(), null);
});

test('unstaking before the lockup ends is refused; after it the stake comes back', () => {
  const h = configured();
  assert.equal(h.domain(IncentivesCommandType.stake, { userId: 3, poolId: 1, amountAtoms: 10 * unit, lockupDays: 7 }), Result.ok);
  h.refused(IncentivesCommandType.unstake, { userId: 3, poolId: 1, amountAtoms: unit }, IncentivesResult.stakeLocked);
  h.refused(IncentivesCommandType.stake, { userId: 3, poolId: 1, amountAtoms: unit, lockupDays: 3 }, IncentivesResult.invalidStake);
  h.refused(IncentivesCommandType.stake, { userId: 3, poolId: 9, amountAtoms: unit, lockupDays: 0 }, IncentivesResult.poolNotFound);
  h.refused(IncentivesCommandType.stake, { userId: 9, poolId: 1, amountAtoms: unit, lockupDays: 0 }, Result.insufficientBalance);
  h.now += 7 * dayMs;
  const before = h.available(3, plat.index);
  assert.equal(h.domain(IncentivesCommandType.unstake, { userId: 3, poolId: 1, amountAtoms: 10 * unit }), Result.ok);
  assert.equal(h.available(3, plat.index) - before, 10 * unit);
  h.refused(IncentivesCommandType.unstake, { userId: 3, poolId: 1, amountAtoms: 1 }, IncentivesResult.invalidUnstake);
});

test('an airdrop pays once to who traded its volume in the window; others are ineligible; after the claim period it has ended', () => {
  const h = configured();
  h.deposit(domainUserId(incentivesDomainId, airdropAccountIndex), plat.id, 7 * unit);
  h.trade(1, 2, oneEthLots);
  const before = h.available(1, plat.index);
  assert.equal(h.domain(IncentivesCommandType.claimAirdrop, { userId: 1, airdropId: 1 }), Result.ok);
  assert.equal(h.available(1, plat.index) - before, 5 * unit);
  h.refused(IncentivesCommandType.claimAirdrop, { userId: 1, airdropId: 1 }, IncentivesResult.airdropClaimed);
  h.refused(IncentivesCommandType.claimAirdrop, { userId: 3, airdropId: 1 }, IncentivesResult.airdropIneligible);
  // The maker traded too, but the account holds 2 of the 5 PLAT left: unfunded, nothing paid.
  h.refused(IncentivesCommandType.claimAirdrop, { userId: 2, airdropId: 1 }, IncentivesResult.airdropUnfunded);
  h.now = t0 + 2 * dayMs;
  h.refused(IncentivesCommandType.claimAirdrop, { userId: 2, airdropId: 1 }, IncentivesResult.airdropEnded);
});

test('boosts: one per kind, idempotent per request key, eligibility by tier, expiry by journaled time', () => {
  const h = configured();
  assert.equal(h.domain(IncentivesCommandType.stake, { userId: 3, poolId: 2, amountAtoms: 1_000 * unit, lockupDays: 0 }), Result.ok);
  assert.equal(h.domain(IncentivesCommandType.activateBoost, { userId: 3, boostId: 1, requestKey: 'k1' }), Result.ok);
  const afterFirst = stateHash(h.engine);
  // The same key again: ok, nothing changes, no event.
  assert.equal(h.domain(IncentivesCommandType.activateBoost, { userId: 3, boostId: 1, requestKey: 'k1' }), Result.ok);
  assert.equal(h.sink.events.length, 0);
  assert.equal(stateHash(h.engine), afterFirst);
  h.refused(IncentivesCommandType.activateBoost, { userId: 3, boostId: 1, requestKey: 'k2' }, IncentivesResult.boostActive);
  h.refused(IncentivesCommandType.activateBoost, { userId: 3, boostId: 2, requestKey: 'k3' }, IncentivesResult.boostIneligible);
  assert.equal(h.engine.nextTimerMs(), t0 + dayMs);
  // Two days later: one boosted day at 75 % and one plain day at 50 % on 1000 PLAT.
  h.now = t0 + 2 * dayMs;
  assert.equal(h.apply({ kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  assert.equal(h.events(IncentivesEventType.boostExpired).length, 1);
  assert.equal(h.incentives.activeBoost(3, BoostKind.stakingApy), undefined);
  const expected = Math.floor((1_000 * unit * 7_500 * dayMs) / (10_000 * yearMs)) + Math.floor((1_000 * unit * 5_000 * dayMs) / (10_000 * yearMs));
  assert.ok(Math.abs(h.incentives.pendingAt(3, 2, h.now) - expected) <= 1);
  assert.equal(h.available(domainUserId(incentivesDomainId, 1), plat.index), 10 * unit, 'the cost went to the boost account');
});

test('a fee boost lowers the taker rate until it expires', () => {
  const h = configured();
  assert.equal(h.domain(IncentivesCommandType.registerBot, { userId: 1, wallet: `0x${'b'.repeat(40)}`, name: 'Bot', strategyType: 'arbitrage', description: '' }), Result.ok);
  for (let index = 0; index < 4; index++) h.trade(1, 2, oneEthLots);
  assert.equal(h.incentives.tierOfUser(1), 1);
  assert.equal(h.domain(IncentivesCommandType.activateBoost, { userId: 1, boostId: 2, requestKey: 'fee' }), Result.ok);
  // Silver (8 bps) less the boost's 5: 3 bps, 900 000 atoms on 3000 USDC.
  assert.equal(h.trade(1, 2, oneEthLots).takerFeeAtoms, 900_000);
  h.now += 3_600_000;
  assert.equal(h.apply({ kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  assert.equal(h.trade(1, 2, oneEthLots).takerFeeAtoms, 2_400_000);
});

test('bot registration refuses a taken wallet and malformed fields', () => {
  const h = configured();
  const bot = { userId: 1, wallet: `0x${'c'.repeat(40)}`, name: 'Bot', strategyType: 'grid', description: '' };
  assert.equal(h.domain(IncentivesCommandType.registerBot, bot), Result.ok);
  h.refused(IncentivesCommandType.registerBot, { ...bot, userId: 2 }, IncentivesResult.walletTaken);
  h.refused(IncentivesCommandType.registerBot, { ...bot, wallet: '' }, IncentivesResult.invalidBot);
  h.refused(IncentivesCommandType.configure, encodeCatalogue(catalogue), IncentivesResult.invalidConfiguration);
});

test('a seeded random run conserves every ledger account, replays through the frame codec and restores from a snapshot to the same hash', () => {
  const h = new Harness();
  const random = new Prng(8);
  const simulation = new IncentivesSimulation();
  for (let user = 1; user <= 3; user++) {
    h.deposit(user, usdc.id, 1_000_000_000 * unit);
    h.deposit(user, ether.id, 100_000 * 100_000_000);
  }
  const supply = () => Array.from(h.engine.ledger.supply);
  let deposited = new Map<number, number>();
  const start = supply();
  const results = new Set<number>();
  for (let index = 0; index < 4_000; index++) {
    h.now += random.int(0, 2_000);
    const roll = random.next();
    let command: Command;
    if (roll < 0.2) {
      const user = random.int(1, 3);
      const other = (user % 3) + 1;
      h.trade(user, other, random.int(1, 3) * oneEthLots);
      continue;
    }
    command = roll < 0.95 ? simulation.next(random, h.now) : ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command);
    const result = h.apply(command);
    results.add(result);
    if (result === Result.ok && command.kind === CommandKind.deposit) {
      const asset = markets.assetById(command.assetId)!.index;
      deposited.set(asset, (deposited.get(asset) ?? 0) + command.amountAtoms);
    }
    assert.equal(h.engine.ledger.audit(), null, `ledger after command ${index}`);
  }
  const end = supply();
  for (let asset = 0; asset < end.length; asset++) assert.equal(end[asset], start[asset]! + (deposited.get(asset) ?? 0), `supply of asset ${asset}`);
  for (const expected of [IncentivesResult.rewardsUnfunded, IncentivesResult.stakeLocked, IncentivesResult.walletTaken, IncentivesResult.boostActive, IncentivesResult.airdropClaimed]) {
    assert.ok(results.has(expected), `result ${expected} never occurred`);
  }
  deposited = new Map();

  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  const later: Command = { kind: CommandKind.runTimers, seq: h.journal.length + 1, ts: h.now + 10 * dayMs };
  assert.equal(restored.apply({ ...later }), h.engine.apply({ ...later }));
  assert.equal(stateHash(restored), stateHash(h.engine));
});
