/**
 * The arena's rules on a real engine: NAVs at journaled ticks, epoch rollover and its winner, ties, the
 * bonus with its floors and remainder, the house's quotes within their inventory bounds (and books never
 * empty while the arena runs), positions across epochs, self-trades, refusals that change nothing, and a
 * seeded run that conserves every ledger account and every share after each command, replays through the
 * journal codec to the same state hash and restores from a snapshot to it.
 */
import { test } from 'node:test';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import assert from 'node:assert/strict';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind, type EngineEvent } from '../../core/events.ts';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { PricesSimulation } from '../prices/simulation.ts';
import { Arena, houseUserId, poolUserId } from './arena.ts';
import {
  ArenaCommandType,
  ArenaEventType,
  ArenaResult,
  type ArenaTrade,
  type EpochResolved,
  type HeadlineAdded,
  type PlaceArenaOrder,
  type SeedArena,
} from './commands.ts';
import { ArenaSimulation, simulationSeed, simulationUsers } from './simulation.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const t0 = 1_767_225_600_000; // a multiple of every epoch length used here
const epochMs = 60_000;

const seedBody: SeedArena = {
  blueSymbols: ['BTC', 'ETH'],
  blueWeightsBps: [6000, 4000],
  redSymbols: ['AAPL', 'SPY'],
  redWeightsBps: [5000, 5000],
  navBaseAtoms: 100_000_000,
  epochMs,
  mmSpreadBps: 100,
  mmSizeLots: 1_000,
  mmInventoryMaxLots: 5_000,
};
const startPrices = { BTC: 9_000_000_000_000, ETH: 300_000_000_000, AAPL: 20_000_000_000, SPY: 60_000_000_000 };

class Harness {
  readonly sink = new CollectingSink();
  readonly engine = new Engine({ markets, sink: this.sink, domains: platformDomains });
  readonly journal: Command[] = [];
  private seq = 0;
  now = t0 + 1_000;

  apply(command: Command, tsMs = this.now): ResultCode {
    this.now = Math.max(this.now, tsMs);
    command.seq = ++this.seq;
    command.ts = this.now;
    const result = this.engine.apply(command);
    if (result === Result.ok) this.journal.push(command);
    else this.seq--;
    return result;
  }

  deposit(userId: number, amountAtoms: number): void {
    assert.equal(this.apply({ kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId: usdc.id, amountAtoms }), Result.ok);
  }

  ticks(prices: Record<string, number>, tsMs = this.now): ResultCode {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: Object.keys(prices), pricesE8: Object.values(prices) };
    return this.apply(domainCommand(PricesCommandType.postPriceTicks, body), tsMs);
  }

  seed(body: SeedArena = seedBody): ResultCode {
    return this.apply(domainCommand(ArenaCommandType.seedArena, body));
  }

  order(userId: number, team: number, side: number, priceTicks: number, sizeLots: number): ResultCode {
    const body: PlaceArenaOrder = { userId, team, side, priceTicks, sizeLots };
    return this.apply(domainCommand(ArenaCommandType.placeArenaOrder, body));
  }

  cancel(userId: number, orderId: number): ResultCode {
    return this.apply(domainCommand(ArenaCommandType.cancelArenaOrder, { userId, orderId }));
  }

  runTimers(tsMs: number): ResultCode {
    return this.apply({ kind: CommandKind.runTimers, seq: 0, ts: 0 }, tsMs);
  }

  /** A running arena: prices, a funded house, the seed, and funded users. */
  static running(users: readonly number[] = [7, 8, 9]): Harness {
    const h = new Harness();
    assert.equal(h.ticks(startPrices), Result.ok);
    h.deposit(houseUserId, 10_000_000_000_000);
    assert.equal(h.seed(), Result.ok);
    for (const user of users) h.deposit(user, 1_000_000_000_000);
    return h;
  }

  get arena(): Arena {
    return this.engine.domain(Arena.domainName) as Arena;
  }

  usdcOf(userId: number): number {
    const account = this.engine.ledger.find(userId, 0);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, usdc.index);
  }

  domainEvents<Body>(type: number): Body[] {
    return this.sink.events.filter((event): event is Extract<EngineEvent, { kind: 18 }> => event.kind === EventKind.domain && event.type === type).map((event) => event.body as Body);
  }

  lastOrderId(): number {
    const accepted = this.domainEvents<{ orderId: number }>(ArenaEventType.orderAccepted);
    return accepted.at(-1)!.orderId;
  }
}

test('the seed opens both books with house quotes around NAV; a second seed is refused and changes nothing', () => {
  const h = Harness.running();
  const arena = h.arena;
  assert.equal(arena.epoch, 1);
  assert.equal(arena.epochEndMs, t0 + epochMs);
  assert.deepEqual(arena.navsAtoms, [100_000_000, 100_000_000]);
  for (const team of [0, 1]) {
    // NAV 100 USDC, spread 100 bps: 99.50 and 100.50.
    assert.equal(arena.bestPrice(team, 0), 9_950);
    assert.equal(arena.bestPrice(team, 1), 10_050);
    assert.equal(arena.depthLots(team, 0), 1_000);
    assert.equal(arena.depthLots(team, 1), 1_000);
    assert.equal(arena.houseHoldingsLots(team), 1_000);
  }
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  assert.equal(h.seed(), ArenaResult.arenaExists);
  assert.equal(h.seed({ ...seedBody, epochMs: 120_000 }), ArenaResult.arenaExists);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
  const headlines = h.domainEvents<HeadlineAdded>(ArenaEventType.headlineAdded);
  assert.match(headlines[0]!.text, /The arena opens: epoch 1, BLUE and RED at 100\.00 USDC/);
});

test('NAV follows the portfolio at each tick, exactly in integers, and the house re-quotes around it', () => {
  const h = Harness.running();
  // BTC +10 % (weight 60 %), ETH unchanged: BLUE's NAV is 106 USDC. AAPL -4 % (50 %): RED's is 98.
  assert.equal(h.ticks({ BTC: 9_900_000_000_000, AAPL: 19_200_000_000 }, t0 + 5_000), Result.ok);
  assert.deepEqual(h.arena.navsAtoms, [106_000_000, 98_000_000]);
  assert.equal(h.arena.bestPrice(0, 0), 10_547);
  assert.equal(h.arena.bestPrice(0, 1), 10_653);
  assert.equal(h.arena.bestPrice(1, 1), 9_849);
  // A third of a cent: floored to the atom.
  assert.equal(h.ticks({ ETH: 300_000_000_001 }, t0 + 6_000), Result.ok);
  assert.equal(h.arena.navsAtoms[0], 106_000_000);
  const headlines = h.domainEvents<HeadlineAdded>(ArenaEventType.headlineAdded).map((line) => line.text);
  assert.ok(headlines.includes('BLUE takes the lead: +6.00% vs -2.00%'), headlines.join(' | '));
  assert.ok(headlines.includes("BLUE's biggest mover: BTC +10.00% this epoch"), headlines.join(' | '));
  assert.ok(headlines.includes("RED's biggest mover: AAPL -4.00% this epoch"), headlines.join(' | '));
});

test('an epoch ends at its boundary: the higher return wins, the bonus is floored pro rata and the remainder stays in the pool', () => {
  const h = Harness.running([7, 8, 9]);
  // Holdings of BLUE 1, 2 and 4 lots bought from the house's ask; RED 3 lots for user 9.
  assert.equal(h.order(7, 0, 0, 10_050, 1), Result.ok);
  assert.equal(h.order(8, 0, 0, 10_050, 2), Result.ok);
  assert.equal(h.order(9, 0, 0, 10_050, 4), Result.ok);
  assert.equal(h.order(9, 1, 0, 10_050, 3), Result.ok);
  // The pool: the fees of those buys plus a deposit (a treasury may fund a domain's account).
  h.deposit(poolUserId, 1_000);
  const pool = h.usdcOf(poolUserId);
  assert.ok(pool > 1_000);
  assert.equal(h.ticks({ BTC: 9_090_000_000_000 }, t0 + 30_000), Result.ok);
  assert.equal(h.runTimers(t0 + epochMs - 1), Result.nothingDue, 'nothing is due before the boundary');
  const before = [h.usdcOf(7), h.usdcOf(8), h.usdcOf(9)];
  assert.equal(h.runTimers(t0 + epochMs + 250), Result.ok);
  const [resolved] = h.domainEvents<EpochResolved>(ArenaEventType.epochResolved);
  assert.ok(resolved !== undefined);
  assert.equal(resolved.epoch, 1);
  assert.equal(resolved.winner, 0);
  assert.deepEqual(resolved.navsAtoms, [100_600_000, 100_000_000]);
  assert.equal(resolved.poolAtoms, pool);
  const expected = [1, 2, 4].map((shares) => Math.floor((pool * shares) / 7));
  assert.deepEqual(resolved.payoutUserIds, [7, 8, 9]);
  assert.deepEqual(resolved.payoutShareLots, [1, 2, 4]);
  assert.deepEqual(resolved.payoutAtoms, expected);
  const paid = expected.reduce((sum, value) => sum + value, 0);
  assert.equal(resolved.paidAtoms, paid);
  assert.deepEqual([h.usdcOf(7), h.usdcOf(8), h.usdcOf(9)], before.map((value, index) => value + expected[index]!));
  assert.equal(h.usdcOf(poolUserId), pool - paid, 'the remainder stays in the pool');
  // The next epoch starts at the boundary (not at the late timer), from the current prices, at the base.
  assert.equal(h.arena.epoch, 2);
  assert.equal(h.arena.epochStartMs, t0 + epochMs);
  assert.equal(h.arena.epochEndMs, t0 + 2 * epochMs);
  assert.deepEqual(h.arena.navsAtoms, [100_000_000, 100_000_000]);
  assert.deepEqual(resolved.nextStartPricesE8, [[9_090_000_000_000, 300_000_000_000], [20_000_000_000, 60_000_000_000]]);
  assert.deepEqual(h.arena.epochRecord(1), { epoch: 1, startMs: t0 + 1_000, endMs: t0 + epochMs, navsAtoms: [100_600_000, 100_000_000], winner: 0, poolAtoms: pool, paidAtoms: paid, winners: 3 });
  assert.equal(h.engine.ledger.audit(), null);
});

test('a tie has no winner: nothing is paid and the pool carries over', () => {
  const h = Harness.running([7]);
  assert.equal(h.order(7, 0, 0, 10_050, 100), Result.ok);
  const pool = h.usdcOf(poolUserId);
  assert.ok(pool > 0);
  assert.equal(h.runTimers(t0 + epochMs), Result.ok);
  const [resolved] = h.domainEvents<EpochResolved>(ArenaEventType.epochResolved);
  assert.equal(resolved!.winner, -1);
  assert.equal(resolved!.paidAtoms, 0);
  assert.deepEqual(resolved!.payoutAtoms, []);
  assert.equal(h.usdcOf(poolUserId), pool);
  assert.match(h.domainEvents<HeadlineAdded>(ArenaEventType.headlineAdded).at(-1)!.text, /Epoch 1 ends in a tie/);
});

test('positions persist across epochs with their average cost; the house is never paid a bonus', () => {
  const h = Harness.running([7]);
  assert.equal(h.order(7, 1, 0, 10_100, 1_000), Result.ok);
  // Filled at the house's ask, 100.50: cost 100.50 USDC for one share, plus a 0.1005 USDC fee to the pool.
  assert.deepEqual(h.arena.position(7, 1), { team: 1, freeLots: 1_000, reservedLots: 0, costAtoms: 100_500_000 });
  assert.equal(h.usdcOf(poolUserId), 100_500);
  assert.equal(h.ticks({ SPY: 66_000_000_000 }, t0 + 10_000), Result.ok);
  for (let epoch = 1; epoch <= 3; epoch++) assert.equal(h.runTimers(t0 + epoch * epochMs), Result.ok);
  assert.equal(h.arena.epoch, 4);
  assert.deepEqual(h.arena.position(7, 1), { team: 1, freeLots: 1_000, reservedLots: 0, costAtoms: 100_500_000 });
  const resolved = h.domainEvents<EpochResolved>(ArenaEventType.epochResolved);
  assert.deepEqual(resolved.map((record) => record.winner), [1, -1, -1]);
  assert.deepEqual(resolved[0]!.payoutUserIds, [7], 'the house holds RED shares but takes no bonus');
  // Selling half keeps the average cost of the rest.
  assert.equal(h.order(7, 1, 1, 9_000, 500), Result.ok);
  assert.deepEqual(h.arena.position(7, 1), { team: 1, freeLots: 500, reservedLots: 0, costAtoms: 50_250_000 });
});

test('the house quotes within its inventory bounds, and both books keep a bid and an ask through heavy one-way flow', () => {
  const h = Harness.running([7, 8]);
  const check = (what: string) => {
    for (const team of [0, 1]) {
      const holdings = h.arena.houseHoldingsLots(team);
      assert.ok(holdings >= 0 && holdings <= seedBody.mmInventoryMaxLots, `${what}: house holdings ${holdings}`);
      assert.ok(h.arena.bestPrice(team, 0) > 0 && h.arena.bestPrice(team, 1) > 0, `${what}: team ${team} has both sides`);
      assert.equal(h.arena.shareImbalanceLots(team), 0, `${what}: shares conserved`);
    }
    assert.equal(h.engine.ledger.audit(), null);
  };
  // A user buys far more than the inventory bound from the house's ask, a full quote at a time, then sells
  // it all back into the house's bid.
  for (let round = 0; round < 12; round++) {
    assert.equal(h.order(7, 0, 0, 20_000, 1_000), Result.ok);
    check(`buy ${round}`);
  }
  assert.equal(h.arena.position(7, 0).freeLots, 12_000);
  const minted = h.domainEvents<{ deltaLots: number }>(ArenaEventType.houseInventoryChanged);
  assert.ok(minted.some((event) => event.deltaLots > 0), 'the house minted shares to keep quoting');
  for (let round = 0; round < 12; round++) {
    assert.equal(h.order(7, 0, 1, 1, 1_000), Result.ok);
    check(`sell ${round}`);
  }
  assert.equal(h.arena.position(7, 0).freeLots, 0);
  assert.ok(h.domainEvents<{ deltaLots: number }>(ArenaEventType.houseInventoryChanged).some((event) => event.deltaLots < 0), 'the house retired shares above its bound');
  // The house never takes: when NAV falls below a resting user bid, the house's ask steps above that bid.
  assert.equal(h.order(8, 1, 0, 10_040, 10), Result.ok);
  assert.equal(h.ticks({ AAPL: 19_200_000_000 }, t0 + 20_000), Result.ok);
  check('after a tick');
  assert.equal(h.arena.navsAtoms[1], 98_000_000);
  assert.equal(h.arena.bestPrice(1, 1), 10_041);
  assert.equal(h.arena.bestPrice(1, 0), 10_040);
  assert.equal(h.arena.position(8, 1).freeLots, 0, 'the bid was not taken');
});

test('a taker meeting its own order has its remainder cancelled; users cancel only their own orders', () => {
  const h = Harness.running([7, 8]);
  assert.equal(h.order(7, 0, 0, 10_050, 1_000), Result.ok);
  // An ask inside the house's spread becomes the best ask.
  assert.equal(h.order(7, 0, 1, 10_020, 500), Result.ok);
  const ask = h.lastOrderId();
  // User 7's bid meets its own ask at 100.20 first: the taker stops there and its remainder is cancelled.
  assert.equal(h.order(7, 0, 0, 10_030, 300), Result.ok);
  const cancelled = h.domainEvents<{ reason: number; remainingLots: number; rested: boolean }>(ArenaEventType.orderCancelled).at(-1)!;
  assert.deepEqual([cancelled.reason, cancelled.remainingLots, cancelled.rested], [2, 300, false]);
  assert.equal(h.cancel(8, ask), ArenaResult.orderNotFound);
  assert.equal(h.cancel(houseUserId, 1), ArenaResult.orderNotFound);
  assert.equal(h.cancel(7, ask), Result.ok);
  assert.equal(h.cancel(7, ask), ArenaResult.orderNotFound);
  assert.deepEqual(h.arena.position(7, 0), { team: 0, freeLots: 1_000, reservedLots: 0, costAtoms: 100_500_000 });
  assert.equal(h.engine.ledger.heldAtoms(h.engine.ledger.find(7, 0), usdc.index), 0);
});

test('refusals change nothing: not the state hash, not a single event', () => {
  const fresh = new Harness();
  assert.equal(fresh.order(7, 0, 0, 10_000, 1), ArenaResult.arenaNotSeeded);
  assert.equal(fresh.cancel(7, 1), ArenaResult.arenaNotSeeded);
  const h = Harness.running([7]);
  h.deposit(77, 1_000);
  const before = stateHash(h.engine);
  const freshBefore = stateHash(fresh.engine);
  const events = h.sink.events.length;
  const refusals: Array<[ResultCode, () => ResultCode]> = [
    [ArenaResult.invalidSeed, () => fresh.seed({ ...seedBody, blueWeightsBps: [6000, 3999] })],
    [ArenaResult.invalidSeed, () => fresh.seed({ ...seedBody, mmInventoryMaxLots: 1_999 })],
    [ArenaResult.invalidSeed, () => fresh.seed({ ...seedBody, redSymbols: ['AAPL', 'AAPL'] })],
    [ArenaResult.invalidSeed, () => fresh.seed({ ...seedBody, epochMs: 10 })],
    [ArenaResult.arenaExists, () => h.seed()],
    [ArenaResult.invalidOrder, () => h.order(7, 2, 0, 10_000, 1)],
    [ArenaResult.invalidOrder, () => h.order(7, 0, 3, 10_000, 1)],
    [ArenaResult.invalidOrder, () => h.order(7, 0, 0, 0, 1)],
    [ArenaResult.invalidOrder, () => h.order(7, 0, 0, 10_000, 0)],
    [ArenaResult.invalidOrder, () => h.order(7, 0, 0, 10_000, 1.5)],
    [ArenaResult.invalidOrder, () => h.order(0, 0, 0, 10_000, 1)],
    [ArenaResult.invalidOrder, () => h.order(houseUserId, 0, 0, 10_000, 1)],
    [Result.insufficientBalance, () => h.order(77, 0, 0, 10_000, 1_000)],
    [Result.insufficientBalance, () => h.order(78, 0, 0, 10_000, 1)],
    [ArenaResult.insufficientShares, () => h.order(7, 0, 1, 10_000, 1)],
    [ArenaResult.orderNotFound, () => h.cancel(7, 999)],
    [ArenaResult.orderNotFound, () => h.cancel(7, 1)],
    [Result.nothingDue, () => h.runTimers(t0 + 2_000)],
  ];
  for (const [expected, refused] of refusals) assert.equal(refused(), expected);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
  assert.equal(fresh.arena.seeded, false);
  assert.equal(stateHash(fresh.engine), freshBefore);
  assert.equal(fresh.sink.events.length, 0);
});

test('a seeded run conserves every account and share after each command, replays through the journal codec to the same hash and restores from a snapshot', () => {
  const h = new Harness();
  const random = new Prng(2024);
  const arenaSim = new ArenaSimulation();
  const pricesSim = new PricesSimulation();
  const resultsSeen = new Set<number>();
  let supply = 0;
  for (let index = 0; index < 6_000; index++) {
    const roll = random.next();
    let command: Command;
    if (index > 6 && roll < 0.15) command = pricesSim.next(random, h.now);
    else if (index > 6 && roll < 0.2) {
      h.now += random.int(0, 20_000);
      command = { kind: CommandKind.runTimers, seq: 0, ts: 0 };
    } else command = arenaSim.next(random, h.now);
    h.now += random.int(0, 50);
    const result = h.apply(command);
    resultsSeen.add(result);
    if (result === Result.ok && command.kind === CommandKind.deposit) supply += command.amountAtoms;
    assert.equal(h.engine.ledger.audit(), null, `ledger after command ${index}`);
    assert.equal(h.engine.ledger.supply[usdc.index], supply, `USDC supply after command ${index}`);
    for (const team of [0, 1]) {
      assert.equal(h.arena.shareImbalanceLots(team), 0, `shares of team ${team} after command ${index}`);
      const holdings = h.arena.houseHoldingsLots(team);
      assert.ok(holdings >= 0 && holdings <= simulationSeed.mmInventoryMaxLots, `house inventory after command ${index}`);
      if (h.arena.seeded) assert.ok(h.arena.bestPrice(team, 0) > 0 && h.arena.bestPrice(team, 1) > 0, `team ${team} book after command ${index}`);
    }
  }
  for (const expected of [Result.ok, ArenaResult.arenaExists, ArenaResult.invalidOrder, ArenaResult.insufficientShares, ArenaResult.orderNotFound]) {
    assert.ok(resultsSeen.has(expected), `result ${expected} never occurred`);
  }
  const trades = h.domainEvents<ArenaTrade>(ArenaEventType.trade);
  const resolved = h.domainEvents<EpochResolved>(ArenaEventType.epochResolved);
  assert.ok(trades.length > 200, `${trades.length} trades`);
  assert.ok(trades.some((trade) => trade.makerUserId !== houseUserId), 'users trade with each other too');
  assert.ok(resolved.length >= 5, `${resolved.length} epochs`);
  assert.ok(resolved.some((record) => record.paidAtoms > 0), 'bonuses were paid');
  for (const userId of simulationUsers) assert.ok(h.arena.position(userId, 0).freeLots + h.arena.position(userId, 1).freeLots >= 0);

  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  // The restored arena goes on exactly as the original: the same commands give the same state.
  for (let index = 0; index < 300; index++) {
    const command = index % 5 === 0 ? pricesSim.next(random, h.now) : arenaSim.next(random, h.now);
    h.now += 1_000;
    command.ts = h.now;
    command.seq = 1_000_000 + index;
    assert.equal(restored.apply(structuredClone(command)), h.engine.apply(command), `command ${index} after restore`);
  }
  assert.equal(stateHash(restored), stateHash(h.engine));
});
