/**
 * The rewards domain in the engine: live taker fees counted after the configuration only, an accrual that
 * splits the share equally between tokens and pro rata to holdings with floors (the rest carried), bounty
 * payments from the bounty account once per report, refusals that change nothing, and a simulated
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
import { restoreSnapshot, takeSnapshot } from '../../core/snapshot.ts';
import { stateHash } from '../../core/state-hash.ts';
import { CommandGenerator } from '../../core/sim/generator.ts';
import { orderRequest } from '../../core/sim/order-request.ts';
import { FrameDecoder, FrameEncoder, FrameStatus } from '../../journal/codec.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { RewardsCommandType, RewardsEventType, RewardsResult, type BountyPaid, type ConfigureRewards, type RewardsAccrued } from './commands.ts';
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

class Harness {
  readonly sink = new CollectingSink();
  readonly engine = new Engine({ markets, sink: this.sink, domains: platformDomains });
  readonly journal: Command[] = [];
  private seq = 0;

  apply(ts: number, command: Command): ResultCode {
    command.seq = ++this.seq;
    command.ts = ts;
    const result = this.engine.apply(command);
    if (result === Result.ok) this.journal.push(command);
    return result;
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

  const encoder = new FrameEncoder(64);
  for (const command of journal) assert.ok(encoder.append(command) > 0);
  const decoder = new FrameDecoder(encoder.bytes());
  const replayed = new Engine({ markets, domains: platformDomains });
  for (let command = decoder.next(); command !== null; command = decoder.next()) assert.equal(replayed.apply(command), Result.ok);
  assert.equal(decoder.status, FrameStatus.ok);
  assert.equal(stateHash(replayed), stateHash(engine));
  const restored = new Engine({ markets, domains: platformDomains });
  restoreSnapshot(restored, takeSnapshot(engine));
  assert.equal(stateHash(restored), stateHash(engine));
});
