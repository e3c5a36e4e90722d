/**
 * The rewards domain in the engine: live taker fees counted after the configuration only, an accrual that
 * splits the share equally between tokens and pro rata to holdings with floors (the rest carried), bounty
 * payments from the bounty account once per report, staked tokens counted as their staker's holding,
 * payouts that move pending amounts from the fee account to the holders (the floors' remainder stays),
 * refusals that change nothing, and a simulated
 * journal (the exchange's commands with the rewards generator) that conserves money, replays through the
 * frame codec to the same hash and restores from a snapshot to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind, type EngineEvent } from '../../core/events.ts';
import { noSlot } from '../../core/order-store.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { CommandGenerator } from '../../core/sim/generator.ts';
import { orderRequest } from '../../core/sim/order-request.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import { BoostKind, IncentivesCommandType, encodeCatalogue, incentivesDomainId, poolStakeAccountIndex } from '../incentives/commands.ts';
import { domainUserId } from '../../core/limits.ts';
import { RewardsCommandType, RewardsEventType, RewardsResult, type BountyPaid, type ConfigureRewards, type RewardsAccrued, type RewardsPaid } from './commands.ts';
import { bountyUserId, rewardsOf } from './rewards.ts';
import { RewardsSimulation } from './simulation.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const plat = markets.assetBySymbol('PLAT')!;
const pred = markets.assetBySymbol('PRED')!;
const minuteMs = 60_000;
const t0 = 1_767_225_600_000;

class Harness extends JournaledEngine {
  constructor() {
    super({ markets });
  }


  deposit(userId: number, assetId: number, amountAtoms: number): void {
    assert.equal(this.apply(t0, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId, amountAtoms }), Result.ok);
  }

  configure(ts: number, body: Partial<ConfigureRewards> = {}): ResultCode {
    return this.apply(ts, domainCommand(RewardsCommandType.configure, { intervalMs: minuteMs, shareBps: 5_000, tokenAssetIds: [plat.id, pred.id], ...body }));
  }

  /** A trade of `lots` ETH at 3000 USDC: user 9 rests, user 8 takes (10 bps taker fee). */
  trade(ts: number, lots: number): void {
    const rest = orderRequest({ orderId: this.engine.lastOrderId + 1, userId: 9, mode: 0, pairId: eth.id, side: 1, priceTicks: 300_000, quantityLots: lots });
    assert.equal(this.apply(ts, { kind: CommandKind.placeOrder, seq: 0, ts: 0, ...rest }), Result.ok);
    const take = orderRequest({ orderId: this.engine.lastOrderId + 1, userId: 8, mode: 0, pairId: eth.id, side: 0, priceTicks: 300_000, quantityLots: lots });
    assert.equal(this.apply(ts, { kind: CommandKind.placeOrder, seq: 0, ts: 0, ...take }), Result.ok);
  }

  configurePayouts(ts: number, intervalMs: number): ResultCode {
    return this.apply(ts, domainCommand(RewardsCommandType.configurePayouts, { intervalMs }));
  }

  available(userId: number, assetIndex: number): number {
    const account = this.engine.ledger.find(userId, 0);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, assetIndex);
  }

  runTimers(ts: number): ResultCode {
    return this.apply(ts, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  domainEvents<T>(type: number): T[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: T }).body);
  }
}

test('an accrual shares the taker fees equally between tokens and pro rata to holdings, carrying the floors', () => {
  const h = new Harness();
  h.deposit(8, usdc.id, 1_000_000_000_000);
  h.deposit(9, ether.id, 1_000_000_000);
  h.deposit(1, plat.id, 300_000_000);
  h.deposit(2, plat.id, 100_000_000);
  h.deposit(3, pred.id, 7_000_000);
  h.trade(t0, 10_000); // before the configuration: not counted
  assert.equal(h.configure(t0 + 1), Result.ok);
  h.trade(t0 + 2, 10_000); // 1 ETH at 3000: a taker fee of 3 USDC
  const rewards = rewardsOf(h.engine);
  assert.equal(rewards.collectedAtoms, 3_000_000);
  assert.equal(h.runTimers(t0 + minuteMs), Result.ok);
  const [accrued] = h.domainEvents<RewardsAccrued>(RewardsEventType.accrued);
  // Half of 3 USDC is 1.5 USDC; 0.75 USDC per token: PLAT 3:1 gives 0.5625 and 0.1875; PRED all to user 3.
  assert.deepEqual(accrued!.accruals, [[1, plat.id, 562_500], [2, plat.id, 187_500], [3, pred.id, 750_000]]);
  assert.deepEqual([accrued!.collectedAtoms, accrued!.shareAtoms, accrued!.distributedAtoms, accrued!.carryAtoms], [3_000_000, 1_500_000, 1_500_000, 0]);
  assert.equal(rewards.pendingAtoms(1, plat.id), 562_500);
  assert.equal(rewards.collectedAtoms, 0);
  assert.equal(rewards.nextTimerMs(), t0 + 2 * minuteMs);

  // One lot: a fee of 0.0003 USDC, shared 150 atoms, 75 a token: PLAT 56 and 18 (1 atom carried).
  h.trade(t0 + minuteMs + 1, 1);
  h.sink.clear();
  h.runTimers(t0 + 2 * minuteMs);
  const [second] = h.domainEvents<RewardsAccrued>(RewardsEventType.accrued);
  assert.deepEqual(second!.accruals, [[1, plat.id, 56], [2, plat.id, 18], [3, pred.id, 75]]);
  assert.equal(second!.carryAtoms, 1);
  assert.equal(rewards.pendingAtoms(1, plat.id), 562_556);
  assert.equal(h.engine.ledger.audit(), null);
});

test('staked PLAT counts as its staker\'s holding at an accrual', () => {
  const h = new Harness();
  const catalogue = encodeCatalogue({
    pools: [{ poolId: 1, assetId: plat.id, apyBps: 1_000, minStakeAtoms: 1, maxStakeAtoms: 1_000_000_000_000, capacityAtoms: 1_000_000_000_000, lockupDays: [0] }],
    airdrops: [],
    boosts: [{ boostId: 1, kind: BoostKind.stakingApy, value: 150, durationMs: minuteMs, costAssetId: plat.id, costAtoms: 0, minTier: 0 }],
  });
  assert.equal(h.apply(t0, domainCommand(IncentivesCommandType.configure, catalogue)), Result.ok);
  h.deposit(8, usdc.id, 1_000_000_000_000);
  h.deposit(9, ether.id, 1_000_000_000);
  h.deposit(1, plat.id, 100_000_000);
  h.deposit(2, plat.id, 300_000_000);
  // User 2 stakes all its PLAT: its account holds none, the pool's account holds it.
  assert.equal(h.apply(t0, domainCommand(IncentivesCommandType.stake, { userId: 2, poolId: 1, amountAtoms: 300_000_000, lockupDays: 0 })), Result.ok);
  assert.equal(h.available(2, plat.index), 0);
  assert.equal(h.available(domainUserId(incentivesDomainId, poolStakeAccountIndex(1)), plat.index), 300_000_000);
  assert.equal(h.configure(t0 + 1, { tokenAssetIds: [plat.id] }), Result.ok);
  h.trade(t0 + 2, 10_000); // a taker fee of 3 USDC, half of it shared
  h.runTimers(t0 + minuteMs);
  const [accrued] = h.domainEvents<RewardsAccrued>(RewardsEventType.accrued);
  // 1.5 USDC over 400 PLAT: 100 held by user 1, 300 staked by user 2; the pool's account gets nothing.
  assert.deepEqual(accrued!.accruals, [[1, plat.id, 375_000], [2, plat.id, 1_125_000]]);
});

test('payouts move pending rewards from the fee account to the holders; the remainder stays in the fee account', () => {
  const h = new Harness();
  h.deposit(8, usdc.id, 1_000_000_000_000);
  h.deposit(9, ether.id, 1_000_000_000);
  h.deposit(1, plat.id, 200_000_000);
  h.deposit(2, plat.id, 100_000_000);
  assert.equal(h.configure(t0 + 1, { tokenAssetIds: [plat.id] }), Result.ok);
  assert.equal(h.configurePayouts(t0 + 1, 2 * minuteMs), Result.ok);
  const rewards = rewardsOf(h.engine);
  assert.equal(rewards.nextTimerMs(), t0 + minuteMs, 'the accrual comes first');
  h.trade(t0 + 2, 10_001); // a taker fee of 3.0003 USDC: 1.50015 shared, 2/3 and 1/3 floored
  const fees = h.available(0, usdc.index);
  assert.equal(fees, 3_000_300);
  h.runTimers(t0 + minuteMs);
  assert.deepEqual(h.domainEvents<RewardsAccrued>(RewardsEventType.accrued)[0]!.accruals, [[1, plat.id, 1_000_100], [2, plat.id, 500_050]]);
  assert.equal(h.domainEvents<RewardsPaid>(RewardsEventType.paid).length, 0, 'no payout before its time');
  assert.equal(rewards.nextTimerMs(), t0 + 2 * minuteMs);
  const before = h.available(1, usdc.index);

  h.sink.clear();
  h.runTimers(t0 + 2 * minuteMs);
  // The accrual due at the same time runs first (nothing collected since), then the payout pays all.
  const [paid] = h.domainEvents<RewardsPaid>(RewardsEventType.paid);
  assert.deepEqual(paid, { atMs: t0 + 2 * minuteMs, assetId: usdc.id, paidAtoms: 1_500_150, unpaidAtoms: 0, payments: [[1, plat.id, 1_000_100], [2, plat.id, 500_050]] });
  assert.equal(h.available(1, usdc.index), before + 1_000_100);
  assert.equal(h.available(2, usdc.index), 500_050);
  assert.equal(h.available(0, usdc.index), fees - 1_500_150, 'the unshared fees and the floors stay in the fee account');
  assert.deepEqual([rewards.pendingAtoms(1, plat.id), rewards.paidAtoms(1, plat.id), rewards.paidAtoms(2, plat.id)], [0, 1_000_100, 500_050]);
  assert.equal(rewards.lastPayoutMs, t0 + 2 * minuteMs);
  assert.equal(rewards.nextTimerMs(), t0 + 3 * minuteMs);
  assert.equal(h.engine.ledger.audit(), null);

  // A payout with nothing pending emits nothing; a second round adds to the paid totals.
  h.sink.clear();
  h.runTimers(t0 + 4 * minuteMs);
  assert.equal(h.domainEvents<RewardsPaid>(RewardsEventType.paid).length, 0);
  h.trade(t0 + 4 * minuteMs + 1, 10_000);
  h.runTimers(t0 + 5 * minuteMs);
  h.runTimers(t0 + 6 * minuteMs);
  assert.equal(rewards.paidAtoms(1, plat.id), 1_000_100 + 1_000_000);
  assert.equal(rewards.pendingAtoms(1, plat.id), 0);

  // Stopping payouts leaves new accruals pending; a bad interval is refused and changes nothing.
  assert.equal(h.configurePayouts(t0 + 6 * minuteMs, 0), Result.ok);
  h.trade(t0 + 6 * minuteMs + 1, 10_000);
  h.runTimers(t0 + 7 * minuteMs);
  h.runTimers(t0 + 8 * minuteMs);
  assert.equal(rewards.pendingAtoms(1, plat.id), 1_000_000);
  const hash = stateHash(h.engine);
  const events = h.sink.events.length;
  for (const interval of [-1, 59_999, 7 * 86_400_000 + 1, 1.5]) assert.equal(h.configurePayouts(t0 + 9 * minuteMs, interval), RewardsResult.invalidPayouts);
  assert.equal(stateHash(h.engine), hash);
  assert.equal(h.sink.events.length, events);

  // Replay and snapshot keep the payouts' state.
  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  assert.equal(rewardsOf(restored).paidAtoms(1, plat.id), 2_000_100);
});

test('a bounty is paid once from the bounty account; refusals change nothing', () => {
  const h = new Harness();
  const pay = (reportId: number, userId: number, amountAtoms: number) => h.apply(t0 + 5, domainCommand(RewardsCommandType.payBounty, { reportId, userId, amountAtoms }));
  assert.equal(pay(1, 5, 1_000_000), RewardsResult.bountyFundEmpty);
  h.deposit(bountyUserId, usdc.id, 100_000_000);
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  assert.equal(pay(0, 5, 1), RewardsResult.invalidBounty);
  assert.equal(pay(1, 5, 0), RewardsResult.invalidBounty);
  assert.equal(pay(1, 0, 1), Result.invalidUser);
  assert.equal(pay(1, bountyUserId, 1), Result.invalidUser);
  assert.equal(pay(1, 5, 100_000_001), RewardsResult.bountyFundEmpty);
  assert.equal(h.configure(t0, { intervalMs: 1_000 }), RewardsResult.invalidConfiguration);
  assert.equal(h.configure(t0, { tokenAssetIds: [usdc.id] }), RewardsResult.invalidConfiguration);
  assert.equal(h.configure(t0, { tokenAssetIds: [plat.id, plat.id] }), RewardsResult.invalidConfiguration);
  assert.equal(h.configure(t0, { shareBps: 10_001 }), RewardsResult.invalidConfiguration);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);

  assert.equal(pay(7, 5, 40_000_000), Result.ok);
  assert.deepEqual(h.domainEvents<BountyPaid>(RewardsEventType.bountyPaid), [{ reportId: 7, userId: 5, assetId: usdc.id, amountAtoms: 40_000_000, paidMs: t0 + 5 }]);
  assert.equal(h.engine.ledger.availableAtoms(h.engine.ledger.find(5, 0), usdc.index), 40_000_000);
  assert.equal(pay(7, 5, 1), RewardsResult.bountyAlreadyPaid);
  assert.equal(rewardsOf(h.engine).isPaid(7), true);
});

test('a simulated journal conserves money, replays through the frame codec to the same hash, and a snapshot restores it', () => {
  const sink = new CollectingSink();
  const engine = new Engine({ markets, sink, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 5, markets, startTs: t0, domains: [new RewardsSimulation()], oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  const journal: Command[] = [];
  for (let index = 0; index < 20_000; index++) {
    const command = generator.next();
    if (engine.apply(command) === Result.ok) journal.push(command);
    if (index % 1000 === 0) assert.equal(engine.ledger.audit(), null);
  }
  const accruals = sink.events.filter((event) => event.kind === EventKind.domain && event.type === RewardsEventType.accrued).map((event) => (event as { body: RewardsAccrued }).body);
  assert.ok(accruals.some((event) => event.distributedAtoms > 0), `${accruals.length} accruals`);
  assert.ok(sink.events.some((event) => event.kind === EventKind.domain && event.type === RewardsEventType.bountyPaid));
  const payouts = sink.events.filter((event) => event.kind === EventKind.domain && event.type === RewardsEventType.paid).map((event) => (event as { body: RewardsPaid }).body);
  assert.ok(payouts.some((event) => event.paidAtoms > 0), `${payouts.length} payouts`);

  checkReplayAndRestore(engine, journal, () => new Engine({ markets, domains: platformDomains }));
});
