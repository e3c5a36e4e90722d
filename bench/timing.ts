/**
 * What bench:engine and bench:engine:ab's runner time with: the clock, the settling before a timed
 * section, an engine prepared like a stream's oracle, and the timed loop itself. One copy, so that both
 * benches time the engine the same way.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Command } from '../engine/core/commands.ts';
import type { Engine } from '../engine/core/engine.ts';
import { resultCode } from '../engine/core/results.ts';
import type { Markets } from '../engine/core/units.ts';
import { createBenchEngine, type Scenario } from './streams.ts';

const hrtime = process.hrtime;
const clockBaseSeconds = hrtime()[0];

/**
 * Monotonic time in nanoseconds since the bench started. The paced loop reads the clock tens of millions
 * of times and must allocate nothing, or the scavenges that garbage causes would show up as latency:
 * performance.now() boxes a number per call, while the array process.hrtime() returns is optimised away
 * once hrtime is inlined here and this is inlined into the loop. (The array must stay a local of this
 * function: kept in a variable of the loop itself, it is allocated for real.)
 */
export function clockNs(): number {
  const time = hrtime();
  return (time[0] - clockBaseSeconds) * 1e9 + time[1];
}

/**
 * A full collection before each timed section, so that garbage left by generating the stream is not
 * collected on the clock, then a short sleep: V8 finishes the collection (sweeping) on helper threads,
 * and on a two-core machine they would otherwise compete with the first milliseconds of the timed loop.
 * The npm script passes no flags, so the collector is exposed at run time.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as (() => void) | undefined;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
export function settle(): void {
  if (collectGarbage !== undefined) collectGarbage();
  Atomics.wait(sleepCell, 0, 0, 200);
}

/** An engine prepared like the oracle: the scenario's deposits and resting orders, untimed. */
export function prepare(markets: Markets, scenario: Pick<Scenario, 'setup'>): Engine {
  const engine = createBenchEngine(markets);
  for (const command of scenario.setup) {
    const result = engine.apply(command);
    if (result !== 0) throw new Error(`setup command ${command.seq} refused: ${resultCode(result)}`);
  }
  return engine;
}

/**
 * The timed loop: the stream handed to the engine as one run (`Engine.applyRun`: `apply` on each command in
 * turn, reading ahead on a large book), the results kept and checked after the clock stops.
 */
export function timeStream(engine: Engine, stream: readonly Command[], results: Uint16Array): number {
  const start = clockNs();
  engine.applyRun(stream, results);
  return (clockNs() - start) / 1e9;
}

/** The same stream with `apply` called on each command in turn, as the sequencer applies them: no reading ahead. */
export function timeEach(engine: Engine, stream: readonly Command[], results: Uint16Array): number {
  const count = stream.length;
  const start = clockNs();
  for (let index = 0; index < count; index++) results[index] = engine.apply(stream[index]!);
  return (clockNs() - start) / 1e9;
}
