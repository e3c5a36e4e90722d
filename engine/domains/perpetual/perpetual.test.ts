/**
 * The perpetual markets in the engine: epochs opened and resolved at journaled times (RunTimers), YES and
 * NO wins paid pro rata with floors and the remainder to the fee account, refunds on equal prices, the
 * house's seeds in and out, a market waiting for its first price, the epoch length changing at the next
 * epoch, paper stakes that leave the live pools and payouts as they were, refusals that change nothing,
 * the epoch's bound, and a simulated journal that conserves money, replays through the frame codec to the
 * same state hash and restores from a snapshot to it.
 *
 * PRED has 6 ledger decimals: 1 PRED is 1 000 000 atoms.
 */
import { test } from 'node:test';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import assert from 'node:assert/strict';
import { CommandKind, type Command, type Mode } from '../../core/commands.ts';
import { domainCommand, noTimerMs } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { EventKind, type EngineEvent } from '../../core/events.ts';
import type { EngineLimits } from '../../core/limits.ts';
import { Result, resultCode, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { PricesSimulation } from '../prices/simulation.ts';
import {
  Outcome,
  PerpetualCommandType,
  PerpetualEventType,
  PerpetualResult,
  predictionsPerEpochMax,
  stakeAtomsMax,
  type ConfigurePerpetual,
  type EpochOpened,
  type EpochResolved,
  type Predict,
  type PredictionPlaced,
} from './commands.ts';
import { Perpetual, houseUserId, perpetualOf, poolUserId } from './perpetual.ts';
import { PerpetualSimulation } from './simulation.ts';

const markets = loadMarkets();
const pred = markets.assetBySymbol('PRED')!;
const minuteMs = 60_000;
/** A whole hour: epochs of a minute or an hour start on it. */
const t0 = 1_767_225_600_000;
const atoms = (units: number): number => units * 1_000_000;

class Harness extends JournaledEngine {
  constructor(limits: Partial<EngineLimits> = {}) {
    super({ markets, limits });
  }

  ticks(ts: number, prices: Record<string, number>): ResultCode {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: Object.keys(prices), pricesE8: Object.values(prices) };
    return this.apply(ts, domainCommand(PricesCommandType.postPriceTicks, body));
  }

  configure(ts: number, body: Partial<ConfigurePerpetual> = {}): ResultCode {
    return this.apply(ts, domainCommand(PerpetualCommandType.configure, { epochMs: minuteMs, seedAtoms: 0, symbols: ['BTC'], ...body }));
  }

  deposit(ts: number, userId: number, units: number, mode: Mode = 0): void {
    assert.equal(this.apply(ts, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId: pred.id, amountAtoms: atoms(units) }), Result.ok);
  }

  predict(ts: number, userId: number, side: 0 | 1, amountAtoms: number, mode: Mode = 0, symbol = 'BTC'): ResultCode {
    const body: Predict = { userId, mode, symbol, side, amountAtoms };
    return this.apply(ts, domainCommand(PerpetualCommandType.predict, body));
  }

  runTimers(ts: number): ResultCode {
    return this.apply(ts, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  get perpetual(): Perpetual {
    return perpetualOf(this.engine);
  }

  available(userId: number, mode: Mode = 0): number {
    const account = this.engine.ledger.find(userId, mode);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, pred.index);
  }

  held(userId: number, mode: Mode = 0): number {
    const account = this.engine.ledger.find(userId, mode);
    return account < 0 ? 0 : this.engine.ledger.heldAtoms(account, pred.index);
  }

  fee(mode: Mode = 0): number {
    return this.engine.ledger.availableAtoms(this.engine.ledger.feeAccount(mode), pred.index);
  }

  domainEvents<T>(type: number): T[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: T }).body);
  }
}

test('epochs open aligned at the configuration and roll over at their ends, with the oracle price of the RunTimers', () => {
  const h = new Harness();
  h.ticks(t0, { BTC: 9_000_000_000_000 });
  assert.equal(h.configure(t0 + 15_000), Result.ok);
  const first = h.domainEvents<EpochOpened>(PerpetualEventType.epochOpened);
  assert.deepEqual(first, [{ symbol: 'BTC', epoch: t0 / minuteMs, startMs: t0 + 15_000, endMs: t0 + minuteMs, startPriceE8: 9_000_000_000_000, seedAtoms: [0, 0] }]);
  assert.equal(h.engine.nextTimerMs(), t0 + minuteMs);
  assert.equal(h.runTimers(t0 + minuteMs - 1), Result.nothingDue);
  h.ticks(t0 + 59_000, { BTC: 9_100_000_000_000 });
  assert.equal(h.runTimers(t0 + minuteMs), Result.ok);
  const resolved = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved);
  assert.equal(resolved.length, 1);
  assert.equal(resolved[0]!.outcome, Outcome.yes);
  assert.equal(resolved[0]!.endPriceE8, 9_100_000_000_000);
  const second = h.domainEvents<EpochOpened>(PerpetualEventType.epochOpened)[1]!;
  assert.equal(second.epoch, t0 / minuteMs + 1);
  assert.equal(second.startMs, t0 + minuteMs);
  assert.equal(second.endMs, t0 + 2 * minuteMs);
  assert.equal(second.startPriceE8, 9_100_000_000_000);
  // A runtime that was down past several ends: one resolution, and the epoch of the RunTimers' time opens.
  assert.equal(h.runTimers(t0 + 5 * minuteMs + 7), Result.ok);
  const third = h.domainEvents<EpochOpened>(PerpetualEventType.epochOpened)[2]!;
  assert.equal(third.epoch, t0 / minuteMs + 5);
  assert.equal(third.endMs, t0 + 6 * minuteMs);
  assert.equal(h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved).length, 2);
});

test('YES wins: the pool goes pro rata to YES stakes (house seed included), floored, the rest to the fee account', () => {
  const h = new Harness();
  h.deposit(t0, houseUserId, 1_000);
  for (const user of [1, 2, 3]) h.deposit(t0, user, 100);
  h.ticks(t0, { BTC: 100_00000000 });
  h.configure(t0 + 1, { seedAtoms: atoms(10) });
  assert.equal(h.held(houseUserId), atoms(20), 'the seed on each side is held');
  assert.equal(h.predict(t0 + 2, 1, 0, atoms(3)), Result.ok);
  assert.equal(h.predict(t0 + 3, 2, 0, atoms(4)), Result.ok);
  assert.equal(h.predict(t0 + 4, 3, 1, atoms(5)), Result.ok);
  const placed = h.domainEvents<PredictionPlaced>(PerpetualEventType.predictionPlaced);
  assert.deepEqual(placed.map((event) => [event.predictionId, event.yesPoolAtoms, event.noPoolAtoms]), [[1, atoms(13), atoms(10)], [2, atoms(17), atoms(10)], [3, atoms(17), atoms(15)]]);
  assert.equal(h.available(1), atoms(97));
  assert.equal(h.held(1), atoms(3));
  h.ticks(t0 + 30_000, { BTC: 101_00000000 });
  h.sink.clear();
  assert.equal(h.runTimers(t0 + minuteMs), Result.ok);
  // The pool is 32 PRED; YES staked 17 (3 + 4 + the house's 10): 32 × 3 / 17, 32 × 4 / 17, 32 × 10 / 17, floored.
  const [resolved] = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved);
  assert.equal(resolved!.outcome, Outcome.yes);
  const payouts = resolved!.payouts.filter((payout) => payout.mode === 0).map((payout) => [payout.predictionId, payout.userId, payout.side, payout.payoutAtoms]);
  assert.deepEqual(payouts, [[1, 1, 0, 5_647_058], [2, 2, 0, 7_529_411], [3, 3, 1, 0], [0, houseUserId, 0, 18_823_529], [0, houseUserId, 1, 0]]);
  assert.deepEqual(resolved!.remainderAtoms, [2, 0]);
  assert.equal(h.available(1), atoms(97) + 5_647_058);
  assert.equal(h.available(2), atoms(96) + 7_529_411);
  assert.equal(h.available(3), atoms(95));
  assert.equal(h.held(1) + h.held(2) + h.held(3), 0);
  assert.equal(h.fee(0), 2);
  // The house paid 20 and got 18.823529 back, then seeded the next epoch.
  assert.equal(h.available(houseUserId) + h.held(houseUserId), atoms(980) + 18_823_529);
  assert.equal(h.available(poolUserId), 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('NO wins with only the house on NO: the house takes the pool; equal prices refund every stake', () => {
  const h = new Harness();
  h.deposit(t0, houseUserId, 100);
  h.deposit(t0, 1, 100);
  h.ticks(t0, { ETH: 3_000_00000000 });
  h.configure(t0, { seedAtoms: atoms(5), symbols: ['ETH'] });
  h.predict(t0 + 1, 1, 0, atoms(20), 0, 'ETH');
  h.ticks(t0 + 2, { ETH: 2_999_00000000 });
  h.runTimers(t0 + minuteMs);
  const lost = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved)[0]!;
  assert.equal(lost.outcome, Outcome.no);
  assert.deepEqual(lost.remainderAtoms, [0, 0]);
  assert.equal(h.available(1), atoms(80));
  // The house staked 10 and took the whole pool of 30, then seeded the next epoch with 10.
  assert.equal(h.available(houseUserId), atoms(100 + 20 - 10));
  assert.equal(h.held(houseUserId), atoms(10));

  h.predict(t0 + minuteMs + 1, 1, 1, atoms(7), 0, 'ETH');
  h.sink.clear();
  h.runTimers(t0 + 2 * minuteMs);
  const refunded = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved)[0]!;
  assert.equal(refunded.outcome, Outcome.refund);
  assert.ok(refunded.payouts.every((payout) => payout.payoutAtoms === payout.stakeAtoms));
  assert.equal(h.available(1), atoms(80));
  assert.equal(h.available(houseUserId) + h.held(houseUserId), atoms(120), 'the house keeps what it won');
  assert.equal(h.held(1), 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('a house without the seed leaves the epoch unseeded; a winning side nobody staked on refunds everyone', () => {
  const h = new Harness();
  h.deposit(t0, houseUserId, 15);
  h.deposit(t0, 1, 100);
  h.ticks(t0, { SOL: 150_00000000 });
  h.configure(t0, { seedAtoms: atoms(10), symbols: ['SOL'] });
  assert.equal(h.held(houseUserId), 0, 'the house has 15 PRED, not the 20 of two seeds');
  assert.deepEqual(h.domainEvents<EpochOpened>(PerpetualEventType.epochOpened)[0]!.seedAtoms, [0, 0]);
  h.predict(t0 + 1, 1, 1, atoms(9), 0, 'SOL');
  h.ticks(t0 + 2, { SOL: 151_00000000 });
  h.runTimers(t0 + minuteMs);
  const resolved = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved)[0]!;
  assert.equal(resolved.outcome, Outcome.yes);
  assert.deepEqual(resolved.payouts.map((payout) => payout.payoutAtoms), [atoms(9)]);
  assert.equal(h.available(1), atoms(100));
  assert.equal(h.fee(0), 0);
});

test('a market without a price waits, looks again every whole minute, and opens once priced', () => {
  const h = new Harness();
  h.ticks(t0, { BTC: 9_000_000_000_000 });
  assert.equal(h.configure(t0 + 5_000, { epochMs: 3_600_000, symbols: ['BTC', 'PLAT'] }), Result.ok);
  assert.equal(h.perpetual.market('PLAT')!.epoch, null);
  h.deposit(t0, 1, 10);
  assert.equal(h.predict(t0 + 6_000, 1, 0, atoms(1), 0, 'PLAT'), PerpetualResult.marketNotOpen);
  assert.equal(h.engine.nextTimerMs(), t0 + minuteMs);
  assert.equal(h.runTimers(t0 + minuteMs), Result.ok);
  assert.equal(h.perpetual.market('PLAT')!.epoch, null);
  assert.equal(h.engine.nextTimerMs(), t0 + 2 * minuteMs);
  h.ticks(t0 + 90_000, { PLAT: 50_000_000 });
  assert.equal(h.runTimers(t0 + 2 * minuteMs), Result.ok);
  const plat = h.perpetual.market('PLAT')!.epoch!;
  assert.equal(plat.startMs, t0 + 2 * minuteMs);
  assert.equal(plat.endMs, t0 + 3_600_000);
  assert.equal(h.engine.nextTimerMs(), t0 + 3_600_000, 'nothing waits any more');
});

test('a new epoch length applies from the next epoch', () => {
  const h = new Harness();
  h.ticks(t0, { BTC: 9_000_000_000_000 });
  h.configure(t0, { epochMs: minuteMs });
  assert.equal(h.configure(t0 + 10_000, { epochMs: 5 * minuteMs }), Result.ok);
  assert.equal(h.perpetual.market('BTC')!.epoch!.endMs, t0 + minuteMs, 'the open epoch keeps its end');
  h.runTimers(t0 + minuteMs);
  const epoch = h.perpetual.market('BTC')!.epoch!;
  // t0 is a whole hour: the epoch of t0 + 1 min under 5-minute epochs is t0's, ending at t0 + 5 min.
  assert.equal(epoch.epoch, t0 / (5 * minuteMs));
  assert.equal(epoch.startMs, t0 + minuteMs);
  assert.equal(epoch.endMs, t0 + 5 * minuteMs);
});

test('paper stakes never change live pools, payouts or balances', () => {
  const run = (withPaper: boolean) => {
    const h = new Harness();
    for (const mode of [0, 1] as const) {
      h.deposit(t0, houseUserId, 1_000, mode);
      for (const user of [1, 2]) h.deposit(t0, user, 1_000, mode);
    }
    h.ticks(t0, { BTC: 9_000_000_000_000 });
    h.configure(t0, { seedAtoms: atoms(10) });
    h.predict(t0 + 1, 1, 0, atoms(30));
    if (withPaper) {
      h.predict(t0 + 2, 1, 1, atoms(500), 1);
      h.predict(t0 + 3, 2, 0, atoms(70), 1);
    }
    h.predict(t0 + 4, 2, 1, atoms(11));
    h.ticks(t0 + 5, { BTC: 8_900_000_000_000 });
    h.runTimers(t0 + minuteMs);
    const resolved = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved)[0]!;
    const live = resolved.payouts.filter((payout) => payout.mode === 0).map((payout) => ({ ...payout, predictionId: 0 }));
    return { h, live, resolved, balances: [h.available(1), h.available(2), h.available(houseUserId), h.held(houseUserId), h.fee(0)] };
  };
  const plain = run(false);
  const paper = run(true);
  assert.deepEqual(paper.live, plain.live);
  assert.deepEqual(paper.balances, plain.balances);
  assert.equal(paper.resolved.yesPoolAtoms[0], plain.resolved.yesPoolAtoms[0]);
  assert.equal(paper.resolved.noPoolAtoms[0], plain.resolved.noPoolAtoms[0]);
  assert.deepEqual(paper.resolved.noPoolAtoms, [atoms(21), atoms(510)]);
  assert.equal(paper.h.available(1, 1), atoms(500) + Math.floor((atoms(590) * atoms(500)) / atoms(510)));
  assert.equal(paper.h.engine.ledger.audit(), null);
});

test('refusals change nothing: not the state hash, not a single event', () => {
  const h = new Harness();
  h.deposit(t0, 1, 10);
  assert.equal(h.predict(t0, 1, 0, atoms(1)), PerpetualResult.marketNotFound, 'before any configuration');
  h.ticks(t0, { BTC: 9_000_000_000_000 });
  h.configure(t0, { symbols: ['BTC', 'PLAT'] });
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  const predictions: Array<[Partial<Predict>, ResultCode, number?]> = [
    [{ symbol: 'NOPE' }, PerpetualResult.marketNotFound],
    [{ symbol: 'PLAT' }, PerpetualResult.marketNotOpen],
    [{ side: 2 as 0 }, PerpetualResult.invalidSide],
    [{ amountAtoms: atoms(1) - 1 }, PerpetualResult.invalidAmount],
    [{ amountAtoms: stakeAtomsMax + 1 }, PerpetualResult.invalidAmount],
    [{ amountAtoms: 1.5 }, PerpetualResult.invalidAmount],
    [{ amountAtoms: atoms(11) }, Result.insufficientBalance],
    [{ userId: 2 }, Result.insufficientBalance],
    [{ userId: 0 }, Result.invalidUser],
    [{ userId: houseUserId }, Result.invalidUser],
    [{ mode: 3 as Mode }, Result.invalidMode],
    [{}, PerpetualResult.epochClosed, t0 + minuteMs],
  ];
  for (const [fields, expected, ts] of predictions) {
    const body: Predict = { userId: 1, mode: 0, symbol: 'BTC', side: 0, amountAtoms: atoms(1), ...fields };
    assert.equal(h.apply(ts ?? t0 + 1, domainCommand(PerpetualCommandType.predict, body)), expected, JSON.stringify(fields));
  }
  const configurations: Array<Partial<ConfigurePerpetual>> = [
    { epochMs: minuteMs - 1 },
    { epochMs: 86_400_001 },
    { seedAtoms: -1 },
    { symbols: ['PLAT', 'BTC'] },
    { symbols: ['BTC'] },
    { symbols: ['BTC', 'PLAT', 'PLAT'] },
    { symbols: ['BTC', 'PLAT', 'eth'] },
    { symbols: ['BTC', 'PLAT', ...Array.from({ length: 15 }, (_, index) => `M${index}`)] },
  ];
  for (const fields of configurations) assert.equal(h.configure(t0 + 1, { symbols: ['BTC', 'PLAT'], ...fields }), PerpetualResult.invalidConfiguration, JSON.stringify(fields));
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
  assert.equal(resultCode(PerpetualResult.epochFull), 'PERPETUAL_EPOCH_FULL');
});

test('a full ledger refuses the prediction that would open the pool account, and changes nothing', () => {
  // The two fee accounts and the user's: no room for the pool account.
  const h = new Harness({ accountsMax: 3 });
  h.deposit(t0, 1, 10);
  h.ticks(t0, { BTC: 9_000_000_000_000 });
  assert.equal(h.configure(t0), Result.ok);
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  assert.equal(h.predict(t0 + 1, 1, 0, atoms(1)), Result.tooManyAccounts);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
});

test('an epoch takes at most predictionsPerEpochMax predictions per mode', () => {
  const h = new Harness();
  h.deposit(t0, 1, predictionsPerEpochMax + 10);
  h.deposit(t0, 1, 10, 1);
  h.ticks(t0, { BTC: 9_000_000_000_000 });
  h.configure(t0);
  for (let index = 0; index < predictionsPerEpochMax; index++) assert.equal(h.predict(t0 + 1, 1, (index % 2) as 0 | 1, atoms(1)), Result.ok);
  const before = stateHash(h.engine);
  assert.equal(h.predict(t0 + 2, 1, 0, atoms(1)), PerpetualResult.epochFull);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.predict(t0 + 2, 1, 0, atoms(1), 1), Result.ok, 'the paper pool has room of its own');
  h.runTimers(t0 + minuteMs);
  assert.equal(h.predict(t0 + minuteMs, 1, 0, atoms(1)), Result.ok, 'the next epoch is empty');
  assert.equal(h.engine.ledger.audit(), null);
});

test('a simulated journal conserves money, replays through the frame codec to the same hash, and a snapshot restores it', () => {
  const h = new Harness();
  const random = new Prng(31);
  const perpetual = new PerpetualSimulation();
  const prices = new PricesSimulation();
  for (const mode of [0, 1] as const) for (let user = 1; user <= 12; user++) h.deposit(t0, user, 200_000, mode);
  let ts = t0;
  const supply = h.engine.ledger.supply[pred.index]!;
  let deposited = 0;
  for (let index = 0; index < 6000; index++) {
    ts += random.int(0, 400);
    const roll = random.next();
    const command = roll < 0.1 ? prices.next(random, ts) : roll < 0.9 ? perpetual.next(random, ts) : ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command);
    const result = h.apply(ts, command);
    if (result === Result.ok && command.kind === CommandKind.deposit) deposited += command.amountAtoms;
    assert.equal(h.engine.ledger.audit(), null);
    assert.equal(h.engine.ledger.supply[pred.index], supply + deposited, `PRED supply after command ${index}`);
    if (index % 500 === 0) {
      for (let user = 1; user <= 12; user++) for (const mode of [0, 1] as const) assert.equal(h.held(user, mode), h.perpetual.heldAtoms(user, mode, pred.index));
    }
  }
  const resolutions = h.domainEvents<EpochResolved>(PerpetualEventType.epochResolved);
  assert.ok(resolutions.length > 20, `${resolutions.length} resolutions`);
  assert.ok(resolutions.some((event) => event.outcome === Outcome.yes) && resolutions.some((event) => event.outcome === Outcome.no));
  assert.ok(resolutions.some((event) => event.payouts.some((payout) => payout.predictionId > 0 && payout.payoutAtoms > payout.stakeAtoms)), 'someone won');
  assert.ok(h.perpetual.lastPredictionId > 1000);

  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  assert.equal(perpetualOf(restored).nextTimerMs(), h.perpetual.nextTimerMs());
  assert.notEqual(h.perpetual.nextTimerMs(), noTimerMs);

  // The restored engine goes on exactly as the original.
  const next = ts + 10 * minuteMs;
  const timers: Command = { kind: CommandKind.runTimers, seq: h.journal.length + 1, ts: next };
  assert.equal(restored.apply({ ...timers }), h.engine.apply({ ...timers }));
  assert.equal(stateHash(restored), stateHash(h.engine));
});
