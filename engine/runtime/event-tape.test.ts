/** Every event kind survives the tape unchanged, in order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../core/engine.ts';
import { CollectingSink, EventKind, copyEvent, type EngineEvent, type EventSink } from '../core/events.ts';
import { noSlot } from '../core/order-store.ts';
import { CommandGenerator } from '../core/sim/generator.ts';
import { loadMarkets } from './markets.ts';
import { EventTape, TapeReader } from './event-tape.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';

test('events read back from the tape equal the events the engine emitted', () => {
  const markets = loadMarkets();
  const collected = new CollectingSink();
  const tape = new EventTape();
  const both: EventSink = {
    onEvent(event) {
      collected.onEvent(event);
      tape.onEvent(event);
    },
  };
  const engine = new Engine({ markets, sink: both, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 8, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  for (const command of generator.fundingCommands()) engine.apply(command);
  for (let index = 0; index < 20_000; index++) engine.apply(generator.next());
  const read: EngineEvent[] = [];
  new TapeReader().read(tape, 0, tape.length, (event) => read.push(copyEvent(event)));
  assert.equal(read.length, collected.events.length);
  assert.deepEqual(read, collected.events);
  const kinds = new Set(read.map((event) => event.kind));
  assert.equal(kinds.size, Object.keys(EventKind).length);
  tape.reset();
  assert.equal(tape.length, 0);
});
