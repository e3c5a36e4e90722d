/**
 * Games in the engine: streak days from live fills (UTC day boundaries, gaps, paper fills not counted),
 * milestone rewards paid from the reward account or owed until it is funded, duels settled by P&L on the
 * pair (the winner takes both stakes minus the fee), tied duels and unaccepted ones refunded, tournaments
 * settled by volume with the 50/30/20 split or refunded, refusals that change nothing, `gamesEarningsOf`,
 * and a simulated journal that conserves money, replays through the frame codec to the same state hash
 * and restores from a snapshot to it.
 *
 * ETH/USDC: a tick is 0.01 USDC and a lot 0.0001 ETH, so one tick times one lot is one USDC atom; 3000
 * USDC is 300 000 ticks and 10 lots at it cost 3 USDC (3 000 000 atoms) plus the 10 bps taker fee.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, OrderType, SelfTradePrevention, TimeInForce, type Command, type Mode, type Side } from '../../core/commands.ts';
import { domainCommand, noTimerMs } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind, type EngineEvent } from '../../core/events.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { CommandGenerator } from '../../core/sim/generator.ts';
import { noSlot } from '../../core/order-store.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { domainGenerators, platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import {
  GamesCommandType,
  GamesEventType,
  GamesResult,
  dayMs,
  duelsPerUserMax,
  type CreateDuel,
  type CreateTournament,
  type DuelEnded,
  type EarningsPaid,
  type MilestoneReached,
  type StreakUpdated,
  type TournamentEnded,
} from './commands.ts';
import { Games, gamesEarningsOf, gamesOf, gamesPoolUserId, rewardUserId } from './index.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const eth = markets.assetBySymbol('ETH')!;
const ethPair = markets.pairBySymbol('eth')!;
/** 2026-01-01T00:00:00Z: day 20454. */
const t0 = 1_767_225_600_000;
const hourMs = 3_600_000;
const usd = (units: number): number => units * 1_000_000;

class Harness extends JournaledEngine {
  private orderId = 0;

  constructor() {
    super({ markets });
  }

  configure(ts: number, milestoneDays = [3, 7], rewardAtoms = [usd(5), usd(20)], duelFeeBps = 200): ResultCode {
    return this.apply(ts, domainCommand(GamesCommandType.configure, { assetId: usdc.id, duelFeeBps, milestoneDays, rewardAtoms }));
  }

  deposit(ts: number, userId: number, atoms: number, assetId = usdc.id, mode: Mode = 0): void {
    assert.equal(this.apply(ts, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId, amountAtoms: atoms }), Result.ok);
  }

  /** A resting limit order by `maker` taken whole by `taker`: one live fill. */
  trade(ts: number, maker: number, taker: number, takerSide: Side, priceTicks: number, lots: number, mode: Mode = 0): void {
    const order = (userId: number, side: Side): Command => ({
      kind: CommandKind.placeOrder,
      seq: 0,
      ts: 0,
      orderId: ++this.orderId,
      userId,
      mode,
      pairId: ethPair.id,
      side,
      orderType: OrderType.limit,
      timeInForce: TimeInForce.gtc,
      priceTicks,
      stopPriceTicks: 0,
      quantityLots: lots,
      postOnly: false,
      selfTradePrevention: SelfTradePrevention.cancelTaker,
      clientOrderId: '',
    });
    assert.equal(this.apply(ts, order(maker, takerSide === 0 ? 1 : 0)), Result.ok);
    assert.equal(this.apply(ts, order(taker, takerSide)), Result.ok);
  }

  duel(ts: number, userId: number, stakeAtoms: number, durationMs = hourMs, acceptMs = hourMs): ResultCode {
    const body: CreateDuel = { userId, pairId: ethPair.id, stakeAtoms, durationMs, acceptMs };
    return this.apply(ts, domainCommand(GamesCommandType.createDuel, body));
  }

  accept(ts: number, userId: number, duelId: number): ResultCode {
    return this.apply(ts, domainCommand(GamesCommandType.acceptDuel, { userId, duelId }));
  }

  tournament(ts: number, body: Partial<CreateTournament> = {}): ResultCode {
    return this.apply(ts, domainCommand(GamesCommandType.createTournament, { key: 'daily-1', startMs: ts + hourMs, endMs: ts + 2 * hourMs, entryFeeAtoms: usd(10), capacity: 4, minEntrants: 2, ...body }));
  }

  join(ts: number, userId: number, tournamentId = 1): ResultCode {
    return this.apply(ts, domainCommand(GamesCommandType.joinTournament, { userId, tournamentId }));
  }

  runTimers(ts: number): ResultCode {
    return this.apply(ts, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  get games(): Games {
    return gamesOf(this.engine);
  }

  available(userId: number, asset = usdc.index): number {
    const account = this.engine.ledger.find(userId, 0);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, asset);
  }

  held(userId: number): number {
    const account = this.engine.ledger.find(userId, 0);
    return account < 0 ? 0 : this.engine.ledger.heldAtoms(account, usdc.index);
  }

  events<T>(type: number): T[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: T }).body);
  }

  /** Asserts that `attempt` is refused with `code` and changes neither the state hash nor the event stream. */
  refused(code: ResultCode, attempt: () => ResultCode): void {
    const before = stateHash(this.engine);
    const events = this.sink.events.length;
    assert.equal(attempt(), code);
    assert.equal(stateHash(this.engine), before);
    assert.equal(this.sink.events.length, events);
  }
}

/** Funds users 1..count with USDC and ETH for trading. */
function funded(count = 6): Harness {
  const h = new Harness();
  for (let user = 1; user <= count; user++) {
    h.deposit(t0, user, usd(100_000));
    h.deposit(t0, user, 100 * 10 ** eth.decimals, eth.id);
  }
  return h;
}

test('streaks count UTC days with a live fill: a fill at 23:59:59.999 and one at 00:00 make two days; a gap restarts; paper fills do not count', () => {
  const h = funded();
  assert.equal(h.configure(t0), Result.ok);
  h.trade(t0 + dayMs - 1, 2, 1, 0, 300_000, 10);
  h.trade(t0 + dayMs, 2, 1, 0, 300_000, 10);
  h.trade(t0 + dayMs + 5 * hourMs, 2, 1, 0, 300_000, 10);
  let streak = h.games.streaks.get(1)!;
  assert.deepEqual(streak, { lastDay: t0 / dayMs + 1, streakDays: 2, bestDays: 2 });
  // Paper trading on day 3 does not extend the streak.
  h.deposit(t0, 1, usd(1_000), usdc.id, 1);
  h.deposit(t0, 2, 10 ** eth.decimals, eth.id, 1);
  h.trade(t0 + 2 * dayMs + 1, 2, 1, 0, 300_000, 10, 1);
  assert.equal(h.games.streaks.get(1)!.lastDay, t0 / dayMs + 1);
  h.trade(t0 + 2 * dayMs + 2, 2, 1, 0, 300_000, 10);
  assert.equal(h.games.streaks.get(1)!.streakDays, 3);
  // A day without a fill (day 4) breaks it: day 5 starts again at 1, the best stays 3.
  h.trade(t0 + 4 * dayMs, 2, 1, 0, 300_000, 10);
  streak = h.games.streaks.get(1)!;
  assert.deepEqual(streak, { lastDay: t0 / dayMs + 4, streakDays: 1, bestDays: 3 });
  const updates = h.events<StreakUpdated>(GamesEventType.streakUpdated).filter((event) => event.userId === 1);
  assert.deepEqual(
    updates.map((event) => [event.day - t0 / dayMs, event.streakDays]),
    [
      [0, 1],
      [1, 2],
      [2, 3],
      [4, 1],
    ],
  );
  // The maker's days count too.
  assert.equal(h.games.streaks.get(2)!.bestDays, 3);
});

test('a milestone pays its reward once from the reward account; while the account cannot pay the reward is owed, then paid at the next whole hour after a deposit', () => {
  const h = funded();
  assert.equal(h.configure(t0, [1, 2], [usd(5), usd(20)]), Result.ok);
  h.deposit(t0, rewardUserId, usd(12));
  const before = h.available(1);
  h.trade(t0 + 10, 2, 1, 0, 300_000, 10);
  const reached = h.events<MilestoneReached>(GamesEventType.milestoneReached);
  assert.deepEqual(reached, [
    { userId: 1, milestoneDays: 1, amountAtoms: usd(5) },
    { userId: 2, milestoneDays: 1, amountAtoms: usd(5) },
  ]);
  assert.equal(h.engine.nextTimerMs(), t0 + 10, 'due at once');
  assert.equal(h.runTimers(t0 + 11), Result.ok);
  const paid = h.events<EarningsPaid>(GamesEventType.earningsPaid);
  assert.deepEqual(paid, [
    { userId: 1, mode: 0, assetId: usdc.id, amountAtoms: usd(5), reason: 'streak', refId: 1 },
    { userId: 2, mode: 0, assetId: usdc.id, amountAtoms: usd(5), reason: 'streak', refId: 1 },
  ]);
  assert.equal(h.available(rewardUserId), usd(2));
  // Day 2: 20 USDC each, and the account holds 2: both owed, nothing minted, retried at the next hour.
  h.trade(t0 + dayMs + 10, 2, 1, 0, 300_000, 10);
  assert.equal(h.runTimers(t0 + dayMs + 11), Result.ok);
  assert.equal(h.games.rewards.length, 2);
  assert.equal(h.available(rewardUserId), usd(2));
  assert.equal(h.engine.nextTimerMs(), t0 + dayMs + hourMs);
  h.deposit(t0 + dayMs + 100, rewardUserId, usd(40));
  assert.equal(h.runTimers(t0 + dayMs + hourMs), Result.ok);
  assert.equal(h.games.rewards.length, 0);
  assert.equal(h.available(rewardUserId), usd(2));
  // The same milestone never pays twice: a new streak after a gap reaches 1 and 2 days again, unpaid.
  h.trade(t0 + 5 * dayMs, 2, 1, 0, 300_000, 10);
  h.trade(t0 + 6 * dayMs, 2, 1, 0, 300_000, 10);
  assert.equal(h.games.rewards.length, 0);
  assert.equal(h.events<EarningsPaid>(GamesEventType.earningsPaid).length, 4);
  assert.equal(h.engine.ledger.audit(), null);
  assert.ok(h.available(1) > before - usd(100), 'user 1 was paid');
});

test('a duel: the better P&L on the pair (quote flow plus base at the last price) takes both stakes minus the fee', () => {
  const h = funded();
  h.configure(t0);
  assert.equal(h.duel(t0, 1, usd(100)), Result.ok);
  assert.equal(h.held(1), usd(100));
  assert.equal(h.games.heldAtoms(1, 0, usdc.index), usd(100));
  assert.equal(h.accept(t0 + 1_000, 2, 1), Result.ok);
  // A fill before the window (none here) and one after it would not count; within it:
  // user 1 buys 10 lots at 3000 (pays 3 USDC + 3000 atoms taker fee); user 2 sells 10 lots at 3000 as taker.
  h.trade(t0 + 2_000, 3, 1, 0, 300_000, 10);
  h.trade(t0 + 3_000, 4, 2, 1, 300_000, 10);
  // The last trade on the pair in the window prints 3100, by two outsiders.
  h.trade(t0 + 4_000, 5, 6, 0, 310_000, 1);
  const feeBefore = h.available(0);
  const oneBefore = h.available(1);
  assert.equal(h.runTimers(t0 + 1_000 + hourMs), Result.ok);
  const [ended] = h.events<DuelEnded>(GamesEventType.duelEnded);
  // User 1: -3 000 000 - 3 000 + 10 × 310 000 = 97 000; user 2: +3 000 000 - 3 000 - 3 100 000 = -103 000.
  assert.deepEqual(ended, {
    duelId: 1,
    outcome: 'won',
    winnerId: 1,
    challengerPnlAtoms: 97_000,
    opponentPnlAtoms: -103_000,
    lastPriceTicks: 310_000,
    feeAtoms: usd(4),
    payoutAtoms: usd(196),
  });
  assert.equal(h.available(1), oneBefore + usd(196));
  assert.equal(h.held(1), 0);
  assert.equal(h.held(2), 0);
  assert.equal(h.available(0), feeBefore + usd(4));
  assert.equal(h.available(gamesPoolUserId), 0);
  assert.deepEqual(h.events<EarningsPaid>(GamesEventType.earningsPaid).at(-1), { userId: 1, mode: 0, assetId: usdc.id, amountAtoms: usd(196), reason: 'duel', refId: 1 });
  assert.equal(h.games.duels.size, 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('equal P&L refunds both stakes; an unaccepted duel expires at its deadline and refunds the challenger', () => {
  const h = funded();
  h.configure(t0);
  h.duel(t0, 1, usd(50));
  h.accept(t0 + 10, 2, 1);
  h.duel(t0, 3, usd(70), hourMs, 2 * 60_000);
  const three = h.available(3);
  assert.equal(h.engine.nextTimerMs(), t0 + 2 * 60_000);
  h.refused(GamesResult.duelNotOpen, () => h.accept(t0 + 2 * 60_000, 4, 2));
  assert.equal(h.runTimers(t0 + 2 * 60_000), Result.ok);
  assert.equal(h.available(3), three + usd(70));
  assert.equal(h.held(3), 0);
  assert.equal(h.runTimers(t0 + 10 + hourMs), Result.ok);
  const ended = h.events<DuelEnded>(GamesEventType.duelEnded);
  assert.deepEqual(
    ended.map((event) => [event.duelId, event.outcome, event.payoutAtoms]),
    [
      [2, 'expired', 0],
      [1, 'tie', 0],
    ],
  );
  assert.equal(h.held(1) + h.held(2), 0);
  assert.equal(h.available(1), usd(100_000));
  assert.equal(h.events<EarningsPaid>(GamesEventType.earningsPaid).length, 0);
});

test('duel refusals change nothing', () => {
  const h = funded();
  h.refused(GamesResult.notConfigured, () => h.duel(t0, 1, usd(10)));
  h.configure(t0);
  h.refused(Result.invalidUser, () => h.duel(t0, 0, usd(10)));
  h.refused(GamesResult.unknownPair, () => h.apply(t0, domainCommand(GamesCommandType.createDuel, { userId: 1, pairId: 99, stakeAtoms: usd(10), durationMs: hourMs, acceptMs: hourMs })));
  h.refused(GamesResult.invalidStake, () => h.duel(t0, 1, 999_999));
  h.refused(GamesResult.invalidDuration, () => h.duel(t0, 1, usd(10), 59_999));
  h.refused(GamesResult.invalidDuration, () => h.duel(t0, 1, usd(10), hourMs, dayMs + 1));
  h.refused(Result.insufficientBalance, () => h.duel(t0, 9, usd(10)));
  assert.equal(h.duel(t0, 1, usd(10)), Result.ok);
  h.refused(GamesResult.ownDuel, () => h.accept(t0, 1, 1));
  h.refused(GamesResult.duelNotFound, () => h.accept(t0, 2, 2));
  h.refused(Result.insufficientBalance, () => h.accept(t0, 9, 1));
  assert.equal(h.accept(t0, 2, 1), Result.ok);
  h.refused(GamesResult.duelNotOpen, () => h.accept(t0, 3, 1));
  for (let index = 1; index < duelsPerUserMax; index++) assert.equal(h.duel(t0, 1, usd(10)), Result.ok);
  h.refused(GamesResult.tooManyDuels, () => h.duel(t0, 1, usd(10)));
  h.refused(GamesResult.invalidConfiguration, () => h.apply(t0, domainCommand(GamesCommandType.configure, { assetId: eth.id, duelFeeBps: 0, milestoneDays: [], rewardAtoms: [] })));
  h.refused(GamesResult.invalidConfiguration, () => h.configure(t0, [3, 3], [1, 1]));
  h.refused(GamesResult.invalidConfiguration, () => h.configure(t0, [3], [1], 1_001));
});

test('a tournament ranks entrants by live volume in its window and pays 50/30/20 of the entry pool; non-traders are unranked', () => {
  const h = funded();
  h.configure(t0);
  assert.equal(h.tournament(t0), Result.ok);
  for (const user of [1, 2, 3, 4]) assert.equal(h.join(t0 + user, user), Result.ok);
  assert.equal(h.held(1), usd(10));
  h.refused(GamesResult.tournamentFull, () => h.join(t0 + 5, 5));
  h.refused(GamesResult.alreadyJoined, () => h.join(t0 + 5, 1));
  h.refused(GamesResult.tournamentNotFound, () => h.join(t0 + 5, 5, 2));
  h.refused(GamesResult.invalidTournament, () => h.tournament(t0 + 5));
  // A fill before the start does not count.
  h.trade(t0 + 100, 5, 1, 0, 300_000, 50);
  assert.equal(h.runTimers(t0 + hourMs), Result.ok);
  h.refused(GamesResult.tournamentClosed, () => h.join(t0 + hourMs, 5));
  // In the window: user 2 trades 30 lots, user 1 and user 3 10 lots each (user 1 joined first), user 4 nothing.
  h.trade(t0 + hourMs + 1, 5, 2, 0, 300_000, 30);
  h.trade(t0 + hourMs + 2, 5, 3, 1, 300_000, 10);
  h.trade(t0 + hourMs + 3, 5, 1, 1, 300_000, 10);
  const before = [1, 2, 3, 4].map((user) => h.available(user));
  assert.equal(h.runTimers(t0 + 2 * hourMs), Result.ok);
  const [ended] = h.events<TournamentEnded>(GamesEventType.tournamentEnded);
  assert.equal(ended!.outcome, 'settled');
  assert.equal(ended!.poolAtoms, usd(40));
  assert.deepEqual(
    ended!.standings.map((standing) => [standing.userId, standing.rank, standing.volumeAtoms, standing.prizeAtoms]),
    [
      [2, 1, usd(9), usd(20)],
      [1, 2, usd(3), usd(12)],
      [3, 3, usd(3), usd(8)],
      [4, 0, 0, 0],
    ],
  );
  assert.deepEqual(
    [1, 2, 3, 4].map((user, index) => h.available(user) - before[index]!),
    [usd(12), usd(20), usd(8), 0],
  );
  for (const user of [1, 2, 3, 4]) assert.equal(h.held(user), 0);
  assert.equal(h.available(gamesPoolUserId), 0);
  const paid = h.events<EarningsPaid>(GamesEventType.earningsPaid).filter((event) => event.reason === 'tournament');
  assert.deepEqual(paid.map((event) => [event.userId, event.amountAtoms, event.refId]), [
    [2, usd(20), 1],
    [1, usd(12), 1],
    [3, usd(8), 1],
  ]);
  assert.equal(h.games.tournaments.size, 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('a tournament below its minimum at the start refunds; one where nobody traded refunds at the end; one winner takes the unfilled ranks; the window opens at the start time', () => {
  const h = funded();
  h.configure(t0);
  h.tournament(t0, { key: 'short', minEntrants: 3 });
  h.tournament(t0, { key: 'idle' });
  h.tournament(t0, { key: 'solo' });
  for (const user of [1, 2]) for (const id of [1, 2, 3]) assert.equal(h.join(t0 + 1, user, id), Result.ok);
  assert.equal(h.held(1), usd(30));
  // A fill at the start counts even before the RunTimers that starts the tournaments.
  h.trade(t0 + hourMs, 5, 1, 0, 300_000, 10);
  h.runTimers(t0 + hourMs);
  h.runTimers(t0 + 2 * hourMs);
  const ended = h.events<TournamentEnded>(GamesEventType.tournamentEnded);
  assert.deepEqual(
    ended.map((event) => [event.tournamentId, event.outcome]),
    [
      [1, 'refunded'],
      [2, 'settled'],
      [3, 'settled'],
    ],
  );
  // Tournaments 2 and 3 both saw user 1's volume; user 2 never traded, so user 1 takes each whole pool.
  assert.deepEqual(ended[1]!.standings.map((standing) => [standing.userId, standing.prizeAtoms]), [
    [1, usd(20)],
    [2, 0],
  ]);
  assert.equal(h.held(1) + h.held(2), 0);
  assert.equal(h.available(2), usd(100_000) - usd(20));

  const idle = funded();
  idle.configure(t0);
  idle.tournament(t0);
  idle.join(t0, 1);
  idle.join(t0, 2);
  idle.runTimers(t0 + hourMs);
  idle.runTimers(t0 + 2 * hourMs);
  assert.equal(idle.events<TournamentEnded>(GamesEventType.tournamentEnded)[0]!.outcome, 'refunded');
  assert.equal(idle.available(1), usd(100_000));
  assert.equal(idle.engine.nextTimerMs(), noTimerMs);
});

test('gamesEarningsOf reads an EarningsPaid event and nothing else', () => {
  const body: EarningsPaid = { userId: 7, mode: 0, assetId: 1, amountAtoms: 42, reason: 'duel', refId: 3 };
  assert.deepEqual(gamesEarningsOf({ kind: EventKind.domain, type: GamesEventType.earningsPaid, body }), { userId: 7, assetId: 1, amountAtoms: 42, reason: 'duel' });
  assert.equal(gamesEarningsOf({ kind: EventKind.domain, type: GamesEventType.duelEnded, body: {} }), null);
});

test('a seeded platform stream with games conserves every asset, replays through the frame codec to the same hash, and a snapshot restores it', () => {
  const sink = new CollectingSink();
  const engine = new Engine({ markets, sink, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 9, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  const journal: Command[] = [];
  const funding = generator.fundingCommands();
  for (let index = 0; index < 40_000; index++) {
    const command = index < funding.length ? funding[index]! : generator.next();
    if (engine.apply(command) === Result.ok) journal.push(command);
    if (index % 1000 === 0) assert.equal(engine.ledger.audit(), null);
  }
  assert.equal(engine.ledger.audit(), null);
  const games = gamesOf(engine);
  const kinds = new Set(sink.events.filter((event) => event.kind === EventKind.domain && event.type > 9000 && event.type < 10_000).map((event) => (event as { type: number }).type));
  for (const type of [GamesEventType.duelCreated, GamesEventType.duelAccepted, GamesEventType.duelEnded, GamesEventType.tournamentJoined, GamesEventType.tournamentEnded, GamesEventType.earningsPaid]) {
    assert.ok(kinds.has(type), `the run saw event ${type}`);
  }

  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(engine, journal, () => new Engine({ markets, domains: platformDomains }));
  assert.equal(gamesOf(restored).nextTimerMs(), games.nextTimerMs());
  for (const user of [291, 292, 293]) assert.equal(gamesOf(restored).heldAtoms(user, 0, markets.assetById(6)!.index), games.heldAtoms(user, 0, markets.assetById(6)!.index));
  // The restored engine goes on exactly as the original: every duel and tournament ends a day later.
  const later: Command = { kind: CommandKind.runTimers, seq: journal.at(-1)!.seq + 1, ts: journal.at(-1)!.ts + dayMs };
  assert.equal(restored.apply({ ...later }), engine.apply({ ...later }));
  assert.equal(stateHash(restored), stateHash(engine));
  assert.equal(games.duels.size + games.tournaments.size, 0);
  assert.equal(engine.ledger.audit(), null);
});
