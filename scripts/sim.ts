/**
 * Runs a seeded simulation through the engine and prints what happened and the final state hash:
 *   npm run sim -- [--commands N] [--seed S] [--book fast|reference]
 * The same seed always prints the same hash, on any machine; the two books must print the same hash.
 */
import { parseArgs } from 'node:util';
import { Engine } from '../engine/core/engine.ts';
import { EventKind, type EngineEvent, type EventSink } from '../engine/core/events.ts';
import { ReferenceBookFactory } from '../engine/core/book/reference-book.ts';
import { FastBookFactory } from '../engine/core/book/fast-book.ts';
import { noSlot } from '../engine/core/order-store.ts';
import { resultCode, type ResultCode } from '../engine/core/results.ts';
import { stateHash } from '../engine/core/state-hash.ts';
import { CommandGenerator } from '../engine/core/sim/generator.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { domainGenerators, platformDomains } from '../engine/domains/index.ts';

const { values } = parseArgs({
  options: {
    commands: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    book: { type: 'string', default: 'fast' },
  },
});
const commandCount = Number(values.commands);
const seed = Number(values.seed);
if (!Number.isSafeInteger(commandCount) || commandCount < 0 || !Number.isSafeInteger(seed)) {
  console.error('usage: npm run sim -- [--commands N] [--seed S] [--book fast|reference]');
  process.exit(2);
}
if (values.book !== 'fast' && values.book !== 'reference') {
  console.error('--book must be fast or reference');
  process.exit(2);
}

class CountingSink implements EventSink {
  readonly counts = new Map<number, number>();
  onEvent(event: EngineEvent): void {
    this.counts.set(event.kind, (this.counts.get(event.kind) ?? 0) + 1);
  }
}

const markets = loadMarkets();
const sink = new CountingSink();
const books = values.book === 'fast' ? new FastBookFactory() : new ReferenceBookFactory();
const engine = new Engine({ markets, sink, books, domains: platformDomains });
const generator = new CommandGenerator({ seed, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
const results = new Map<string, number>();
const started = process.hrtime.bigint();
const funding = generator.fundingCommands();
for (let index = 0; index < commandCount; index++) {
  const command = index < funding.length ? funding[index]! : generator.next();
  const code = resultCode(engine.apply(command) as ResultCode);
  results.set(code, (results.get(code) ?? 0) + 1);
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const eventNames = Object.fromEntries(Object.entries(EventKind).map(([name, kind]) => [kind, name]));
console.log(`commands ${commandCount}, seed ${seed}, ${values.book} book, ${seconds.toFixed(3)} s (generation included)`);
console.log('results:', Object.fromEntries([...results].sort((a, b) => b[1] - a[1])));
console.log('events:', Object.fromEntries([...sink.counts].sort((a, b) => a[0] - b[0]).map(([kind, count]) => [eventNames[kind], count])));
console.log(`live orders ${engine.orders.liveCount}, accounts ${engine.ledger.accountCount}`);
console.log(`state_hash=${stateHash(engine)}`);
