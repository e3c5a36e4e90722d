/**
 * The cancel switch in the engine: armed at the command's journaled time plus the timeout, renewed by a
 * new arm, fired by the first RunTimers at or after the deadline (every open order of the account
 * cancelled, other accounts and modes untouched), disarmed by 0; refusals change nothing; a simulated
 * journal replays through the frame codec to the same hash, and a snapshot restores an armed switch that
 * then fires as the original does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, OrderType, SelfTradePrevention, Side, TimeInForce, type Command } from '../../core/commands.ts';
import { domainCommand, noTimerMs } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { CancelReason, EventKind, type OrderCancelled } from '../../core/events.ts';
import { domainUserId } from '../../core/limits.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { amountToAtoms, priceToTicks, quantityToLots } from '../../core/units.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import { CancelSwitchCommandType, CancelSwitchEventType, CancelSwitchResult, type CancelSwitchFired } from './commands.ts';
import { cancelSwitchesOf } from './cancel-switch.ts';
import { CancelSwitchSimulation } from './simulation.ts';

const markets = loadMarkets();
const pair = markets.pairBySymbol('eth')!;
const t0 = 1_767_225_600_000;

class Harness extends JournaledEngine {
  constructor() {
    super({ markets });
  }

  private orderId = 0;

  arm(ts: number, timeoutMs: number, userId = 5, mode = 0): ResultCode {
    return this.apply(ts, domainCommand(CancelSwitchCommandType.arm, { userId, mode, timeoutMs }));
  }

  runTimers(ts: number): ResultCode {
    return this.apply(ts, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  /** Funds (user, mode) and rests a buy of 1 at `price`. */
  rest(userId: number, mode: 0 | 1, price: string): void {
    const usdc = markets.assetBySymbol('USDC')!;
    assert.equal(this.apply(t0, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId: usdc.id, amountAtoms: amountToAtoms('10000', usdc).value }), Result.ok);
    const order: Command = {
      kind: CommandKind.placeOrder,
      seq: 0,
      ts: 0,
      orderId: ++this.orderId,
      userId,
      mode,
      pairId: pair.id,
      side: Side.buy,
      orderType: OrderType.limit,
      timeInForce: TimeInForce.gtc,
      priceTicks: priceToTicks(price, pair).value,
      stopPriceTicks: 0,
      quantityLots: quantityToLots('1', pair).value,
      postOnly: false,
      selfTradePrevention: SelfTradePrevention.cancelTaker,
      clientOrderId: '',
    };
    assert.equal(this.apply(t0, order), Result.ok);
  }

  fired(): CancelSwitchFired[] {
    return this.sink.events.filter((event) => event.kind === EventKind.domain && event.type === CancelSwitchEventType.fired).map((event) => (event as { body: CancelSwitchFired }).body);
  }
}

test('an armed switch fires at its deadline and cancels every open order of that account only; a renewal moves the deadline', () => {
  const h = new Harness();
  h.rest(5, 0, '2000');
  h.rest(5, 0, '2100');
  h.rest(5, 1, '2000');
  h.rest(6, 0, '2000');
  const switches = cancelSwitchesOf(h.engine);
  assert.equal(h.arm(t0 + 1_000, 5_000), Result.ok);
  assert.equal(switches.deadlineOf(5, 0), t0 + 6_000);
  assert.equal(h.engine.nextTimerMs(), t0 + 6_000);
  // Renewed before the deadline: the new deadline replaces the old one.
  assert.equal(h.arm(t0 + 4_000, 5_000), Result.ok);
  assert.equal(switches.deadlineOf(5, 0), t0 + 9_000);
  assert.equal(h.runTimers(t0 + 6_000), Result.nothingDue, 'the old deadline is gone');
  assert.equal(h.engine.openOrderCount(5, 0), 2);

  assert.equal(h.runTimers(t0 + 9_500), Result.ok);
  assert.equal(h.engine.openOrderCount(5, 0), 0, 'the account\'s orders are cancelled');
  assert.equal(h.engine.openOrderCount(5, 1), 1, 'the other mode keeps its orders');
  assert.equal(h.engine.openOrderCount(6, 0), 1, 'other users keep theirs');
  const cancels = h.sink.events.filter((event) => event.kind === EventKind.orderCancelled) as OrderCancelled[];
  assert.deepEqual(cancels.map((event) => [event.userId, event.reason]), [[5, CancelReason.cancelAll], [5, CancelReason.cancelAll]]);
  assert.deepEqual(h.fired(), [{ userId: 5, mode: 0, deadlineMs: t0 + 9_000, firedMs: t0 + 9_500, cancelledOrders: 2 }]);
  assert.equal(switches.deadlineOf(5, 0), null, 'a fired switch is disarmed');
  assert.equal(h.engine.nextTimerMs(), noTimerMs);
  assert.equal(cancelSwitchesOf(h.engine).snapshot(), null);
});

test('0 disarms; refusals change nothing', () => {
  const h = new Harness();
  h.rest(5, 0, '2000');
  const empty = stateHash(h.engine);
  assert.equal(h.arm(t0, 0), CancelSwitchResult.notArmed);
  assert.equal(h.arm(t0, 999), CancelSwitchResult.invalidSwitch);
  assert.equal(h.arm(t0, 600_001), CancelSwitchResult.invalidSwitch);
  assert.equal(h.arm(t0, 5_000, 5, 2), CancelSwitchResult.invalidSwitch);
  assert.equal(h.arm(t0, 5_000, domainUserId(19, 0)), CancelSwitchResult.invalidSwitch);
  assert.equal(h.arm(t0, 5_000, 0), CancelSwitchResult.invalidSwitch);
  assert.equal(stateHash(h.engine), empty, 'refusals and an engine without switches hash as before the domain existed');

  assert.equal(h.arm(t0, 1_000), Result.ok);
  assert.notEqual(stateHash(h.engine), empty);
  assert.equal(h.arm(t0 + 500, 0), Result.ok);
  assert.equal(stateHash(h.engine), empty);
  assert.equal(h.runTimers(t0 + 60_000), Result.nothingDue);
  assert.equal(h.engine.openOrderCount(5, 0), 1, 'a disarmed switch never fires');
  const kinds = h.sink.events.filter((event) => event.kind === EventKind.domain).map((event) => (event as { type: number }).type);
  assert.deepEqual(kinds, [CancelSwitchEventType.armed, CancelSwitchEventType.disarmed]);
});

test('a simulated journal replays through the frame codec to the same hash, and a snapshot restores armed switches', () => {
  const h = new Harness();
  h.rest(905, 0, '2000');
  const random = new Prng(19);
  const simulation = new CancelSwitchSimulation();
  let ts = t0;
  for (let index = 0; index < 2000; index++) {
    ts += random.int(0, 2000);
    const command = random.chance(0.3) ? ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command) : simulation.next(random);
    h.apply(ts, command);
  }
  assert.ok(h.fired().length > 20, `${h.fired().length} fired`);
  assert.ok(cancelSwitchesOf(h.engine).armedCount > 0, 'some switches are armed at the end');

  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  assert.equal(restored.nextTimerMs(), h.engine.nextTimerMs());
  const timers: Command = { kind: CommandKind.runTimers, seq: h.journal.length + 1, ts: ts + 600_000 };
  assert.equal(restored.apply({ ...timers }), h.engine.apply({ ...timers }));
  assert.equal(stateHash(restored), stateHash(h.engine));
  assert.equal(cancelSwitchesOf(restored).armedCount, 0);
});
