import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { exchangeCoreMix } from './streams.ts';
import { prepare, settle, timeStream } from './timing.ts';
const markets = loadMarkets();
const warm = exchangeCoreMix({ markets, seed: 1012, resting: 10_000, commands: 1_000_000, skipHash: true });
timeStream(prepare(markets, warm), warm.stream, new Uint16Array(warm.stream.length));
const scenario = exchangeCoreMix({ markets, seed: 12, resting: 10_000, commands: 3_000_000, skipHash: true });
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 });
const rates: string[] = [];
await session.post('Profiler.start');
for (let run = 0; run < Number(process.argv[2] ?? 4); run++) {
  const engine = prepare(markets, scenario); settle();
  const s = timeStream(engine, scenario.stream, new Uint16Array(scenario.stream.length));
  rates.push((scenario.stream.length / s / 1e6).toFixed(2));
}
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/p10k.cpuprofile', JSON.stringify(profile));
console.log(rates.join(' '));
