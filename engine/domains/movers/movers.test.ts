/**
 * The movers tournament in the engine: rounds open aligned and end at their timers with the oracle's
 * prices of that RunTimers, scores are the mean percentage change truncated toward zero, ranks break ties
 * by entry time, each refusal (count, duplicate, unpriced, second entry, closed round) changes nothing,
 * and a simulated journal replays through the frame codec and restores from a snapshot to the same hash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { EventKind, type EngineEvent } from '../../core/events.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { PricesSimulation } from '../prices/simulation.ts';
import { MoversCommandType, MoversEventType, MoversResult, changeE6, scoreE6, type RoundEnded, type RoundOpened } from './commands.ts';
import { moversOf } from './movers.ts';
import { MoversSimulation } from './simulation.ts';

const markets = loadMarkets();
const minuteMs = 60_000;
const t0 = 1_767_225_600_000;

class Harness extends JournaledEngine {
  constructor() {
    super({ markets });
  }


  ticks(ts: number, prices: Record<string, number>): ResultCode {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: Object.keys(prices), pricesE8: Object.values(prices) };
    return this.apply(ts, domainCommand(PricesCommandType.postPriceTicks, body));
  }

  configure(ts: number, roundMs = minuteMs): ResultCode {
    return this.apply(ts, domainCommand(MoversCommandType.configure, { roundMs }));
  }

  enter(ts: number, userId: number, symbols: string[]): ResultCode {
    return this.apply(ts, domainCommand(MoversCommandType.enter, { userId, symbols }));
  }

  runTimers(ts: number): ResultCode {
    return this.apply(ts, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  domainEvents<T>(type: number): T[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: T }).body);
  }
}

test('the score is the mean percentage change in 10^-6 percent, truncated toward zero', () => {
  assert.equal(changeE6(100_00000000, 101_50000000), 1_500_000);
  assert.equal(changeE6(300_00000000, 299_00000000), -333_333);
  assert.equal(scoreE6([100_00000000, 200_00000000], [110_00000000, 190_00000000]), 2_500_000);
  assert.equal(scoreE6([3, 3, 3], [4, 3, 3]), 11_111_111);
});

test('a round opens aligned, ranks its entries at its end by score then entry time, and the next opens', () => {
  const h = new Harness();
  h.ticks(t0, { BTC: 100_00000000, ETH: 10_00000000, SOL: 50_00000000 });
  assert.equal(h.enter(t0, 1, ['BTC']), MoversResult.notConfigured);
  assert.equal(h.configure(t0 + 15_000), Result.ok);
  assert.deepEqual(h.domainEvents<RoundOpened>(MoversEventType.roundOpened), [{ round: 1, startMs: t0 + 15_000, endMs: t0 + minuteMs }]);
  assert.equal(h.enter(t0 + 16_000, 1, ['BTC', 'ETH']), Result.ok);
  assert.equal(h.enter(t0 + 17_000, 2, ['SOL']), Result.ok);
  assert.equal(h.enter(t0 + 18_000, 3, ['ETH', 'BTC']), Result.ok);
  h.ticks(t0 + 20_000, { BTC: 110_00000000, ETH: 9_00000000, SOL: 50_00000000 });
  assert.equal(h.runTimers(t0 + minuteMs - 1), Result.nothingDue);
  assert.equal(h.runTimers(t0 + minuteMs), Result.ok);
  const [ended] = h.domainEvents<RoundEnded>(MoversEventType.roundEnded);
  // Users 1 and 3 both score (10 % - 10 %) / 2 = 0, as user 2 (SOL unchanged): entry time decides.
  assert.deepEqual(ended!.results.map((row) => [row.userId, row.rank, row.scoreE6]), [[1, 1, 0], [2, 2, 0], [3, 3, 0]]);
  assert.equal(moversOf(h.engine).current!.round, 2);
  assert.equal(moversOf(h.engine).current!.endMs, t0 + 2 * minuteMs);

  assert.equal(h.enter(t0 + minuteMs + 1, 2, ['SOL']), Result.ok);
  assert.equal(h.enter(t0 + minuteMs + 2, 1, ['BTC']), Result.ok);
  h.ticks(t0 + minuteMs + 3, { BTC: 99_00000000, SOL: 51_00000000 });
  h.sink.clear();
  assert.equal(h.runTimers(t0 + 2 * minuteMs + 500), Result.ok);
  const [second] = h.domainEvents<RoundEnded>(MoversEventType.roundEnded);
  assert.deepEqual(second!.results.map((row) => [row.userId, row.rank, row.scoreE6, row.endPricesE8]), [[2, 1, 2_000_000, [51_00000000]], [1, 2, -10_000_000, [99_00000000]]]);
  assert.equal(second!.endedMs, t0 + 2 * minuteMs + 500);
});

test('refusals change nothing: not the state hash, not a single event', () => {
  const h = new Harness();
  h.ticks(t0, { BTC: 100_00000000, ETH: 10_00000000 });
  h.configure(t0);
  h.enter(t0 + 1, 1, ['BTC']);
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  const cases: Array<[number, string[], ResultCode, number?]> = [
    [2, [], MoversResult.symbolCount],
    [2, ['BTC', 'ETH', 'A', 'B', 'C', 'D'], MoversResult.symbolCount],
    [2, ['BTC', 'BTC'], MoversResult.duplicateSymbol],
    [2, ['BTC', 'AAPL'], MoversResult.unpricedSymbol],
    [1, ['ETH'], MoversResult.alreadyEntered],
    [0, ['ETH'], Result.invalidUser],
    [2, ['ETH'], MoversResult.roundClosed, t0 + minuteMs],
  ];
  for (const [userId, symbols, expected, ts] of cases) assert.equal(h.enter(ts ?? t0 + 2, userId, symbols), expected, JSON.stringify(symbols));
  assert.equal(h.configure(t0 + 2, 1_000), MoversResult.invalidRoundLength);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
});

test('a new round length applies from the next round', () => {
  const h = new Harness();
  h.configure(t0);
  assert.equal(h.configure(t0 + 1, 5 * minuteMs), Result.ok);
  assert.equal(moversOf(h.engine).current!.endMs, t0 + minuteMs);
  h.runTimers(t0 + minuteMs);
  assert.equal(moversOf(h.engine).current!.endMs, t0 + 5 * minuteMs);
});

test('a simulated journal replays through the frame codec to the same hash, and a snapshot restores it', () => {
  const h = new Harness();
  const random = new Prng(17);
  const movers = new MoversSimulation();
  const prices = new PricesSimulation();
  let ts = t0;
  for (let index = 0; index < 4000; index++) {
    ts += random.int(0, 2000);
    const roll = random.next();
    const command = roll < 0.2 ? prices.next(random, ts) : roll < 0.9 ? movers.next(random, ts) : ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command);
    h.apply(ts, command);
  }
  const ended = h.domainEvents<RoundEnded>(MoversEventType.roundEnded);
  assert.ok(ended.length > 5, `${ended.length} rounds`);
  assert.ok(ended.some((round) => round.results.length > 3));

  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  const timers: Command = { kind: CommandKind.runTimers, seq: h.journal.length + 1, ts: ts + 10 * minuteMs };
  assert.equal(restored.apply({ ...timers }), h.engine.apply({ ...timers }));
  assert.equal(stateHash(restored), stateHash(h.engine));
});
