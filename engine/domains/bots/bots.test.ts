/**
 * The bots domain in the engine: clones registered once per user, the strategy clock striking at journaled
 * times only while a period is set and a clone runs, refusals that change nothing, and a simulated journal
 * that replays through the frame codec to the same state hash and restores from a snapshot to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand, noTimerMs } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { EventKind } from '../../core/events.ts';
import { domainUserId } from '../../core/limits.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import { BotsCommandType, BotsEventType, BotsResult, SourceType, type StartClone, type StrategyTicked } from './commands.ts';
import { botsOf } from './bots.ts';
import { BotsSimulation } from './simulation.ts';

const markets = loadMarkets();
const t0 = 1_767_225_600_000;

class Harness extends JournaledEngine {
  constructor() {
    super({ markets });
  }


  configure(ts: number, strategyMs: number): ResultCode {
    return this.apply(ts, domainCommand(BotsCommandType.configure, { strategyMs }));
  }

  start(ts: number, fields: Partial<StartClone> = {}): ResultCode {
    const body: StartClone = { userId: 5, mode: 1, sourceType: SourceType.backtestBot, sourceIndex: 0, ...fields };
    return this.apply(ts, domainCommand(BotsCommandType.startClone, body));
  }

  runTimers(ts: number): ResultCode {
    return this.apply(ts, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  strikes(): StrategyTicked[] {
    return this.sink.events.filter((event) => event.kind === EventKind.domain && event.type === BotsEventType.strategyTicked).map((event) => (event as { body: StrategyTicked }).body);
  }
}

test('the clock strikes one period after the configuration, only while a clone runs; missed periods collapse', () => {
  const h = new Harness();
  const bots = botsOf(h.engine);
  assert.equal(h.configure(t0, 10_000), Result.ok);
  assert.equal(bots.nextTimerMs(), noTimerMs, 'no clone runs yet');
  assert.equal(h.start(t0 + 25_000), Result.ok);
  assert.equal(bots.nextTimerMs(), t0 + 35_000, 'the clock fell behind: one period after the start');
  h.runTimers(t0 + 35_000);
  h.runTimers(t0 + 100_000);
  assert.deepEqual(h.strikes(), [
    { tick: 1, timestampMs: t0 + 35_000, clonesRunning: 1 },
    { tick: 2, timestampMs: t0 + 100_000, clonesRunning: 1 },
  ]);
  assert.equal(bots.nextTimerMs(), t0 + 110_000);
  assert.equal(h.configure(t0 + 101_000, 0), Result.ok);
  assert.equal(bots.nextTimerMs(), noTimerMs, 'a zero period stops the clock');
  assert.deepEqual(bots.clones(), [{ userId: 5, mode: 1, sourceType: SourceType.backtestBot, sourceIndex: 0 }]);
});

test('refusals change nothing: not the state hash, not a single event', () => {
  const h = new Harness();
  h.configure(t0, 10_000);
  h.start(t0);
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  for (const strategyMs of [1, 999, 86_400_001, -1, 1.5]) assert.equal(h.configure(t0 + 1, strategyMs), BotsResult.invalidConfiguration, String(strategyMs));
  const clones: Array<[Partial<StartClone>, ResultCode]> = [
    [{}, BotsResult.alreadyRunning],
    [{ userId: 6, mode: 2 }, BotsResult.invalidClone],
    [{ userId: 6, sourceType: 3 }, BotsResult.invalidClone],
    [{ userId: 6, sourceIndex: -1 }, BotsResult.invalidClone],
    [{ userId: 6, sourceIndex: 1000 }, BotsResult.invalidClone],
    [{ userId: 0 }, BotsResult.invalidClone],
    [{ userId: domainUserId(7, 0) }, BotsResult.invalidClone],
    [{ userId: 6.5 }, BotsResult.invalidClone],
  ];
  for (const [fields, expected] of clones) assert.equal(h.start(t0 + 1, fields), expected, JSON.stringify(fields));
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
});

test('an engine without bots hashes as before the domain existed', () => {
  const h = new Harness();
  assert.equal(botsOf(h.engine).snapshot(), null);
  const empty = stateHash(h.engine);
  assert.equal(h.start(t0, { mode: 5 }), BotsResult.invalidClone);
  assert.equal(stateHash(h.engine), empty);
});

test('a simulated journal replays through the frame codec to the same hash, and a snapshot restores it', () => {
  const h = new Harness();
  const random = new Prng(17);
  const simulation = new BotsSimulation();
  let ts = t0;
  for (let index = 0; index < 3000; index++) {
    ts += random.int(0, 3000);
    const command = random.chance(0.3) ? ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command) : simulation.next(random);
    h.apply(ts, command);
  }
  const bots = botsOf(h.engine);
  assert.ok(bots.clones().length > 20, `${bots.clones().length} clones`);
  assert.ok(h.strikes().length > 50, `${h.strikes().length} strikes`);

  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  assert.deepEqual(botsOf(restored).clones(), bots.clones());
  const timers: Command = { kind: CommandKind.runTimers, seq: h.journal.length + 1, ts: ts + 86_400_000 };
  assert.equal(restored.apply({ ...timers }), h.engine.apply({ ...timers }));
  assert.equal(stateHash(restored), stateHash(h.engine));
});
