/**
 * One side of bench:engine:ab (bench/engine-ab.ts), run as its own process from an esbuild bundle: the
 * exchange-core or simple mix of bench/streams.ts at one resting count, a warm-up, then timed runs as
 * bench:engine times them (bench/timing.ts: a fresh engine per run, a full collection and a short pause before each, only
 * `apply` on the clock), every run checked against the stream's oracle. The bundle of the baseline side
 * is this same file with every import of engine/ taken from the other checkout, so both sides time their
 * own engine on a stream made by the same generator.
 *
 *   node dist/bench/engine-ab-current.mjs --resting N --mix exchange|simple --runs R --commands C
 *
 * Prints one JSON line: { opsPerS: number[], fingerprint, mismatches } (fingerprint: the oracle's state
 * hash and result codes, equal on both sides when their engines behave alike).
 */
import { parseArgs } from 'node:util';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { exchangeCoreMix, simpleMix } from './streams.ts';
import { prepare, settle, timeStream } from './timing.ts';

const { values } = parseArgs({
  options: {
    resting: { type: 'string', default: '10000' },
    mix: { type: 'string', default: 'exchange' },
    runs: { type: 'string', default: '3' },
    commands: { type: 'string', default: '3000000' },
    seed: { type: 'string', default: '12' },
  },
});
const resting = Number(values.resting);
const runs = Number(values.runs);
const commands = Number(values.commands);
const seed = Number(values.seed);
const markets = loadMarkets();
const mix = values.mix === 'simple' ? simpleMix : exchangeCoreMix;

// Warm-up on a stream of another seed (as bench:engine does), so V8 has optimised the engine first.
const warm = mix({ markets, seed: seed + 1000, resting: Math.min(resting, 10_000), commands: 1_000_000, skipHash: true });
for (const length of [1_000, warm.stream.length]) timeStream(prepare(markets, warm), warm.stream.slice(0, length), new Uint16Array(length));

const scenario = mix({ markets, seed, resting, commands });
const opsPerS: number[] = [];
let mismatches = 0;
for (let run = 0; run < runs; run++) {
  const engine = prepare(markets, scenario);
  const results = new Uint16Array(scenario.stream.length);
  settle();
  const seconds = timeStream(engine, scenario.stream, results);
  opsPerS.push(scenario.stream.length / seconds);
  for (let index = 0; index < results.length; index++) if (results[index] !== scenario.expected[index]) mismatches++;
}
let codes = 0;
for (let index = 0; index < scenario.expected.length; index++) codes = (Math.imul(codes, 31) + scenario.expected[index]!) | 0;
console.log(JSON.stringify({ opsPerS, fingerprint: `${scenario.expectedHash}/${codes >>> 0}`, mismatches }));
