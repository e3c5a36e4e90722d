/**
 * Writes a deterministic journal of realistic commands (the engine's seeded generator), so anyone can
 * make a large journal for replay benchmarks without committing one:
 *   npm run journal:gen -- --commands N --seed S --out DIR
 * Only commands the engine accepts are journaled, as the sequencer would; seqs are contiguous. The last
 * line gives the state hash a replay of DIR must reproduce.
 */
import { parseArgs } from 'node:util';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../engine/core/engine.ts';
import { noSlot } from '../engine/core/order-store.ts';
import { Result } from '../engine/core/results.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import { CommandGenerator } from '../engine/core/sim/generator.ts';
import { FrameEncoder } from '../engine/journal/codec.ts';
import { SegmentWriter } from '../engine/journal/segments.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { domainGenerators, platformDomains } from '../engine/domains/index.ts';

const { values } = parseArgs({
  options: {
    commands: { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});
const commandCount = Number(values.commands);
const seed = Number(values.seed);
if (!Number.isSafeInteger(commandCount) || commandCount < 1 || !Number.isSafeInteger(seed) || values.out === undefined) {
  console.error('usage: npm run journal:gen -- --commands N --seed S --out DIR');
  process.exit(2);
}
const journalDir = join(values.out, 'journal');
if (existsSync(journalDir) && readdirSync(journalDir).length > 0) {
  console.error(`${journalDir} is not empty; choose a new --out directory`);
  process.exit(2);
}

const markets = loadMarkets();
const engine = new Engine({ markets, domains: platformDomains });
const generator = new CommandGenerator({ seed, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
const writer = new SegmentWriter(journalDir, 'none');
const encoder = new FrameEncoder(8 << 20);
const funding = generator.fundingCommands();
let seq = 0;
let batchFirstSeq = 1;
const started = process.hrtime.bigint();
for (let index = 0; seq < commandCount; index++) {
  const command = index < funding.length ? funding[index]! : generator.next();
  command.seq = seq + 1;
  if (engine.apply(command) !== Result.ok) continue;
  seq++;
  encoder.append(command);
  if (encoder.frames === 65_536) {
    writer.appendSync(encoder.bytes(), batchFirstSeq);
    encoder.reset();
    batchFirstSeq = seq + 1;
    process.stderr.write(`\rjournal:gen ${seq}/${commandCount}`);
  }
}
if (encoder.frames > 0) writer.appendSync(encoder.bytes(), batchFirstSeq);
writer.close();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stderr.write(`\rjournal:gen ${seq}/${commandCount} in ${seconds.toFixed(1)} s, ${(writer.bytesWritten / 1048576).toFixed(1)} MiB\n`);
console.log(`commands=${seq} out=${values.out} state_hash=${stateHash(engine)}`);
