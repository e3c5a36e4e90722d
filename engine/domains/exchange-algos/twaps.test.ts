/**
 * TWAPs in the engine: slices at exactly the journaled times (start, start + interval, …), sizes of
 * remaining / slices left with the last taking the rest, unfilled lots rolling into later slices, a refused
 * first slice refusing the TWAP and later refused slices counting, cancel, expiry, the limits, RunTimers refused when nothing is due, the order in which
 * due TWAPs run, paper TWAPs taking the live book read-only, and a snapshot with active TWAPs.
 *
 * ETH/USDC (pair 1): tick 0.01 USDC, lot 0.0001 ETH; 300 000 ticks is 3000 USDC, one tick × one lot is one
 * USDC atom.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, GroupKind, OrderType, TimeInForce, type Command, type StartTwap } from '../../core/commands.ts';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind, TwapStatus, type EngineEvent, type TwapSliced } from '../../core/events.ts';
import type { EngineLimits } from '../../core/limits.ts';
import { Result } from '../../core/results.ts';
import { restoreSnapshot, takeSnapshot } from '../../core/snapshot.ts';
import { stateHash } from '../../core/state-hash.ts';
import { orderRequest } from '../../core/sim/order-request.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains, twapsOf } from '../index.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const startMs = 1_767_225_600_000;

/** A command without its seq (distributes over the union, so each kind keeps its own fields). */
type Unsequenced = Command extends infer C ? (C extends Command ? Omit<C, 'seq'> : never) : never;

class Harness {
  readonly sink = new CollectingSink();
  readonly engine: Engine;
  private seq = 0;

  constructor(limits: Partial<EngineLimits> = {}) {
    this.engine = new Engine({ markets, sink: this.sink, limits, domains: platformDomains });
  }

  apply(command: Unsequenced): number {
    this.sink.clear();
    return this.engine.apply({ ...command, seq: ++this.seq } as Command);
  }

  fund(userId: number, mode: 0 | 1 = 0, usdcUnits = 1_000_000, ethUnits = 1_000): void {
    assert.equal(this.apply({ kind: CommandKind.deposit, ts: startMs, userId, mode, assetId: usdc.id, amountAtoms: usdcUnits * 1_000_000 }), Result.ok);
    if (ethUnits > 0) assert.equal(this.apply({ kind: CommandKind.deposit, ts: startMs, userId, mode, assetId: ether.id, amountAtoms: ethUnits * 100_000_000 }), Result.ok);
  }

  /** A resting limit of `userId` (id from the engine's counter, as the shell mints them). */
  rest(userId: number, side: 0 | 1, priceTicks: number, quantityLots: number, ts = startMs, mode: 0 | 1 = 0): number {
    const orderId = this.engine.lastOrderId + 1;
    const order = orderRequest({ orderId, userId, mode, pairId: eth.id, side, priceTicks, quantityLots });
    assert.equal(this.apply({ kind: CommandKind.placeOrder, ts, ...order }), Result.ok);
    return orderId;
  }

  startTwap(fields: Partial<StartTwap> & { ts: number }): number {
    const twaps = twapsOf(this.engine);
    return this.apply({
      kind: CommandKind.startTwap, twapId: twaps.lastTwapId + 1, userId: 2, mode: 0, pairId: eth.id, side: 0, quantityLots: 1_000,
      limitPriceTicks: 0, durationMs: 5_000, intervalMs: 1_000, ...fields,
    } as Unsequenced);
  }

  runTimers(ts: number): number {
    return this.apply({ kind: CommandKind.runTimers, ts });
  }

  events<K extends EngineEvent['kind']>(kind: K): Array<Extract<EngineEvent, { kind: K }>> {
    return this.sink.events.filter((event) => event.kind === kind) as Array<Extract<EngineEvent, { kind: K }>>;
  }

  sliced(): TwapSliced {
    const slices = this.events(EventKind.twapSliced);
    assert.equal(slices.length, 1, 'one slice');
    return slices[0]!;
  }
}

test('slices run at exactly start, start + interval, …; the last takes the remainder; the totals add up', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.rest(1, 1, 300_000, 100_000);
  assert.equal(h.startTwap({ ts: startMs + 10_000, quantityLots: 1_003, durationMs: 5_000, intervalMs: 1_000 }), Result.ok);
  const started = h.events(EventKind.twapStarted)[0]!;
  assert.deepEqual(
    [started.twapId, started.slicesTotal, started.startedMs, started.nextSliceMs, started.quantityLots],
    [1, 5, startMs + 10_000, startMs + 11_000, 1_003],
  );
  const slices: TwapSliced[] = [h.sliced()];
  const accepted = h.events(EventKind.orderAccepted)[0]!;
  assert.deepEqual([accepted.groupKind, accepted.groupId, accepted.timeInForce, accepted.orderType], [GroupKind.twap, 1, TimeInForce.ioc, OrderType.market]);
  for (let slice = 1; slice < 5; slice++) {
    const dueMs = startMs + 10_000 + slice * 1_000;
    assert.equal(h.engine.nextTimerMs(), dueMs);
    assert.equal(h.runTimers(dueMs - 1), Result.nothingDue, `slice ${slice} is not due a millisecond early`);
    assert.equal(h.runTimers(dueMs), Result.ok);
    slices.push(h.sliced());
  }
  // floor(remaining / slices left): 1003/5, 803/4, 603/3, 402/2, and the last takes all that is left.
  assert.deepEqual(slices.map((slice) => slice.sliceLots), [200, 200, 201, 201, 201]);
  assert.deepEqual(slices.map((slice) => slice.sliceFilledLots), [200, 200, 201, 201, 201]);
  assert.deepEqual(slices.map((slice) => slice.remainingLots), [803, 603, 402, 201, 0]);
  assert.deepEqual(slices.map((slice) => slice.nextSliceMs), [1, 2, 3, 4, 0].map((k) => (k === 0 ? 0 : startMs + 10_000 + k * 1_000)));
  const childIds = slices.map((slice) => slice.orderId);
  assert.deepEqual(childIds, [...childIds].sort((a, b) => a - b), 'child order ids increase');
  const ended = h.events(EventKind.twapEnded);
  assert.deepEqual(
    ended.map((event) => [event.status, event.slicesDone, event.filledLots, event.filledNotionalAtoms]),
    [[TwapStatus.completed, 5, 1_003, 1_003 * 300_000 * eth.quoteAtomsPerTickLot]],
  );
  assert.equal(twapsOf(h.engine).activeCount, 0);
  assert.equal(h.runTimers(startMs + 60_000), Result.nothingDue);
  assert.equal(h.engine.ledger.audit(), null);
});

test('what a slice does not fill rolls into the later slices; a limit TWAP that cannot finish expires', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.rest(1, 1, 300_000, 50);
  assert.equal(h.startTwap({ ts: startMs, quantityLots: 400, durationMs: 4_000, intervalMs: 1_000, limitPriceTicks: 300_000 }), Result.ok);
  const slices = [h.sliced()];
  assert.equal(h.runTimers(startMs + 1_000), Result.ok);
  slices.push(h.sliced());
  h.rest(1, 1, 300_000, 1_000, startMs + 1_500);
  h.rest(1, 1, 300_100, 1_000, startMs + 1_500);
  assert.equal(h.runTimers(startMs + 2_000), Result.ok);
  slices.push(h.sliced());
  assert.equal(h.runTimers(startMs + 3_000), Result.ok);
  slices.push(h.sliced());
  assert.deepEqual(slices.map((slice) => [slice.sliceLots, slice.sliceFilledLots]), [[100, 50], [116, 0], [175, 175], [175, 175]]);
  assert.equal(h.events(EventKind.twapEnded)[0]!.status, TwapStatus.completed);
  // Nothing above the limit was taken.
  assert.ok(h.sink.events.every((event) => event.kind !== EventKind.tradeExecuted || event.priceTicks === 300_000));

  // A limit below the market: every slice expires unfilled, and so does the TWAP.
  assert.equal(h.startTwap({ ts: startMs + 10_000, quantityLots: 30, durationMs: 2_500, intervalMs: 1_000, limitPriceTicks: 290_000 }), Result.ok);
  assert.equal(h.runTimers(startMs + 11_000), Result.ok);
  assert.equal(h.runTimers(startMs + 12_000), Result.ok);
  const ended = h.events(EventKind.twapEnded)[0]!;
  assert.deepEqual([ended.status, ended.slicesDone, ended.filledLots], [TwapStatus.expired, 3, 0]);
});

test('a refused first slice refuses the TWAP; a later refused slice still counts; a TWAP whose window passed ends without trading', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2, 0, 1, 0); // 1 USDC: not even the first slice can pay for itself
  h.rest(1, 1, 300_000, 10_000);
  const hash = stateHash(h.engine);
  const twap = { ts: startMs, quantityLots: 300, durationMs: 3_000, intervalMs: 1_000, limitPriceTicks: 300_000 };
  assert.equal(h.startTwap(twap), Result.insufficientBalance);
  assert.equal(stateHash(h.engine), hash, 'a refused start changes nothing');
  assert.equal(twapsOf(h.engine).lastTwapId, 0);

  h.fund(2, 0, 30, 0); // 31 USDC: the first slice (100 lots at 3000, 30.03 USDC with the fee) and no more
  assert.equal(h.startTwap(twap), Result.ok);
  const first = h.sliced();
  assert.deepEqual([first.result, first.sliceIndex, first.sliceFilledLots], [Result.ok, 0, 100]);
  assert.equal(h.runTimers(startMs + 1_000), Result.ok);
  const second = h.sliced();
  assert.deepEqual([second.result, second.orderId, second.sliceIndex, second.sliceFilledLots], [Result.insufficientBalance, 0, 1, 0]);
  assert.equal(h.events(EventKind.orderRejected).length, 1);
  assert.equal(twapsOf(h.engine).find(1)!.slicesRefused, 1);
  assert.equal(h.runTimers(startMs + 2_000), Result.ok);
  const ended = h.events(EventKind.twapEnded)[0]!;
  assert.deepEqual([ended.status, ended.slicesDone, ended.filledLots], [TwapStatus.expired, 3, 100]);

  // The runtime was away past the whole window: the TWAP ends expired, no catch-up burst of slices.
  h.fund(3);
  assert.equal(h.startTwap({ ts: startMs + 10_000, userId: 3, quantityLots: 300, durationMs: 3_000, intervalMs: 1_000 }), Result.ok);
  assert.equal(h.runTimers(startMs + 13_000), Result.ok);
  assert.equal(h.events(EventKind.twapSliced).length, 0);
  assert.deepEqual(
    h.events(EventKind.twapEnded).map((event) => [event.status, event.slicesDone, event.filledLots]),
    [[TwapStatus.expired, 1, 100]],
  );
});

test('cancel stops further slices; only the owner can cancel, and only an active TWAP', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.rest(1, 1, 300_000, 100_000);
  assert.equal(h.startTwap({ ts: startMs, quantityLots: 500, durationMs: 5_000, intervalMs: 1_000 }), Result.ok);
  assert.equal(h.runTimers(startMs + 1_000), Result.ok);
  assert.equal(h.apply({ kind: CommandKind.cancelTwap, ts: startMs + 1_500, userId: 1, mode: 0, twapId: 1 }), Result.twapNotFound);
  assert.equal(h.apply({ kind: CommandKind.cancelTwap, ts: startMs + 1_500, userId: 2, mode: 1, twapId: 1 }), Result.twapNotFound);
  assert.equal(h.apply({ kind: CommandKind.cancelTwap, ts: startMs + 1_500, userId: 2, mode: 0, twapId: 1 }), Result.ok);
  assert.deepEqual(
    h.sink.events.map((event) => event.kind === EventKind.twapEnded && [event.status, event.slicesDone, event.filledLots]),
    [[TwapStatus.cancelled, 2, 200]],
  );
  assert.equal(h.runTimers(startMs + 2_000), Result.nothingDue);
  assert.equal(h.runTimers(startMs + 60_000), Result.nothingDue);
  assert.equal(h.apply({ kind: CommandKind.cancelTwap, ts: startMs + 3_000, userId: 2, mode: 0, twapId: 1 }), Result.twapNotFound);
});

test('schedules, ids, accounts and the limits on active TWAPs are checked before anything changes', () => {
  const h = new Harness({ twapsPerAccountMax: 2, twapsMax: 3 });
  h.fund(2);
  h.fund(3);
  const hash = stateHash(h.engine);
  const refusals: Array<[Partial<StartTwap>, number]> = [
    [{ intervalMs: 999 }, Result.invalidTwapSchedule],
    [{ intervalMs: 3_600_001, durationMs: 3_600_001 }, Result.invalidTwapSchedule],
    [{ durationMs: 7 * 24 * 3_600_000 + 1, intervalMs: 3_600_000 }, Result.invalidTwapSchedule],
    [{ durationMs: 1_001_000, intervalMs: 1_000 }, Result.invalidTwapSchedule],
    [{ quantityLots: 4, durationMs: 5_000, intervalMs: 1_000 }, Result.invalidTwapSchedule],
    [{ quantityLots: 0 }, Result.quantityOutOfRange],
    [{ limitPriceTicks: eth.priceTicksMax + 1 }, Result.priceOutOfRange],
    [{ pairId: 999 }, Result.unknownPair],
    [{ side: 2 as 0 }, Result.invalidSide],
    [{ userId: 9 }, Result.insufficientBalance],
    [{ twapId: 0 }, Result.twapIdNotIncreasing],
  ];
  for (const [fields, result] of refusals) {
    assert.equal(h.startTwap({ ts: startMs, limitPriceTicks: 1, ...fields }), result, JSON.stringify(fields));
    assert.equal(h.sink.events.length, 0);
  }
  assert.equal(stateHash(h.engine), hash, 'refusals change nothing');
  // Passive limits, so the TWAPs stay active.
  const passive = { ts: startMs, limitPriceTicks: 1, quantityLots: 5, durationMs: 5_000, intervalMs: 1_000 };
  assert.equal(h.startTwap(passive), Result.ok);
  assert.equal(h.startTwap(passive), Result.ok);
  assert.equal(h.startTwap(passive), Result.tooManyTwaps);
  assert.equal(h.startTwap({ ...passive, mode: 1 }), Result.insufficientBalance, 'the paper account is not open');
  assert.equal(h.startTwap({ ...passive, userId: 3 }), Result.ok);
  assert.equal(h.startTwap({ ...passive, userId: 3 }), Result.twapsFull);
  assert.equal(h.apply({ kind: CommandKind.startTwap, ts: startMs, twapId: 2, userId: 3, mode: 0, pairId: eth.id, side: 0, quantityLots: 5, limitPriceTicks: 1, durationMs: 5_000, intervalMs: 1_000 }), Result.twapIdNotIncreasing);
  assert.equal(twapsOf(h.engine).activeOf(2, 0).length, 2);
});

test('RunTimers is refused when nothing is due, and an engine without the module refuses TWAP commands', () => {
  const h = new Harness();
  assert.equal(h.runTimers(startMs), Result.nothingDue);
  const bare = new Engine({ markets });
  assert.equal(bare.apply({ kind: CommandKind.runTimers, seq: 1, ts: startMs }), Result.nothingDue);
  assert.equal(bare.apply({ kind: CommandKind.cancelTwap, seq: 1, ts: startMs, userId: 1, mode: 0, twapId: 1 }), Result.unknownCommand);
  // Empty modules add nothing to the hash: states from before TWAPs hash as they did.
  assert.equal(stateHash(h.engine), stateHash(bare));
});

test('due TWAPs run in (next slice time, id) order, one slice each per RunTimers; an overdue one is due again at once', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.rest(1, 1, 300_000, 100_000);
  assert.equal(h.startTwap({ ts: startMs, quantityLots: 100, durationMs: 10_000, intervalMs: 2_000 }), Result.ok); // 1: next at +2000
  assert.equal(h.startTwap({ ts: startMs + 500, quantityLots: 100, durationMs: 10_000, intervalMs: 1_000 }), Result.ok); // 2: next at +1500
  assert.equal(h.runTimers(startMs + 2_600), Result.ok);
  assert.deepEqual(h.events(EventKind.twapSliced).map((slice) => [slice.twapId, slice.sliceIndex]), [[2, 1], [1, 1]]);
  // TWAP 2 fell behind (its slice of +2500 is due too): the next RunTimers at the same time runs only it.
  assert.equal(h.engine.nextTimerMs(), startMs + 2_500);
  assert.equal(h.runTimers(startMs + 2_600), Result.ok);
  assert.deepEqual(h.events(EventKind.twapSliced).map((slice) => [slice.twapId, slice.sliceIndex]), [[2, 2]]);
  assert.equal(h.runTimers(startMs + 2_600), Result.nothingDue);
});

test('a paper TWAP takes the live book read-only', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2, 1);
  const askId = h.rest(1, 1, 300_000, 1_000);
  const liveBefore = h.engine.ledger.availableAtoms(h.engine.ledger.find(1, 0), ether.index);
  assert.equal(h.startTwap({ ts: startMs, mode: 1, quantityLots: 600, durationMs: 2_000, intervalMs: 1_000 }), Result.ok);
  assert.equal(h.runTimers(startMs + 1_000), Result.ok);
  const ended = h.events(EventKind.twapEnded)[0]!;
  assert.deepEqual([ended.mode, ended.status, ended.filledLots], [1, TwapStatus.completed, 600]);
  assert.equal(h.events(EventKind.tradeExecuted).length, 0, 'no live trade');
  const slot = h.engine.slotOf(askId);
  const store = h.engine.orders;
  assert.equal(store.quantityLots(slot) - store.filledLots(slot), 1_000, 'the live ask is untouched');
  assert.equal(h.engine.ledger.availableAtoms(h.engine.ledger.find(1, 0), ether.index), liveBefore);
  assert.equal(h.engine.ledger.audit(), null);
});

test('a snapshot with active TWAPs restores to the same hash and runs on identically', () => {
  const h = new Harness();
  h.fund(1);
  h.fund(2);
  h.fund(3);
  h.rest(1, 1, 300_000, 100);
  assert.equal(h.startTwap({ ts: startMs, quantityLots: 900, durationMs: 9_000, intervalMs: 1_000, limitPriceTicks: 300_000 }), Result.ok);
  assert.equal(h.startTwap({ ts: startMs + 300, userId: 3, side: 1, quantityLots: 50, durationMs: 5_000, intervalMs: 2_000, limitPriceTicks: 310_000 }), Result.ok);
  assert.equal(h.runTimers(startMs + 1_000), Result.ok);
  assert.equal(twapsOf(h.engine).activeCount, 2);

  const snapshot = takeSnapshot(h.engine);
  const restoredSink = new CollectingSink();
  const restored = new Engine({ markets, sink: restoredSink, domains: platformDomains });
  restoreSnapshot(restored, snapshot);
  assert.equal(stateHash(restored), stateHash(h.engine));
  assert.deepEqual(takeSnapshot(restored), snapshot);
  assert.throws(() => restoreSnapshot(new Engine({ markets }), snapshot), /domain this engine lacks/);

  let seq = 1_000;
  for (const ts of [startMs + 2_000, startMs + 2_300, startMs + 3_000, startMs + 9_000, startMs + 20_000]) {
    const command: Command = { kind: CommandKind.runTimers, seq: ++seq, ts };
    h.sink.clear();
    restoredSink.clear();
    assert.equal(restored.apply(command), h.engine.apply(command));
    assert.deepEqual(restoredSink.events, h.sink.events);
    assert.equal(stateHash(restored), stateHash(h.engine));
  }
});
