/**
 * The peer's translation of bench:engine's streams (bench/streams.ts `PeerOps`, run by bench/peer.ts):
 * every command of the exchange-core mix becomes the peer operation of its kind, a size amend tells the
 * peer what our engine leaves to fill, and the peer, run on the translation, ends with the book our engine
 * ends with: exactly on the simple mix, within the drift the exchange-core mix's amends allow (the peer's
 * modify sends an order to the back of its level, ours keeps the place of an order whose quantity goes down).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from '../engine/core/commands.ts';
import { noSlot } from '../engine/core/order-store.ts';
import { loadMarkets } from '../engine/runtime/markets.ts';
import { depthDifference, peerPlan, preparePeer, timePeer, type DepthDifference, type PeerOutcome } from './peer.ts';
import { exchangeCoreMix, PeerOpKind, simpleMix, type Scenario } from './streams.ts';
import { prepare } from './timing.ts';

const markets = loadMarkets();
const commands = 20_000;

/** Our engine and the peer on the whole of `scenario`: the peer's outcome and how far the books ended apart. */
function runBoth(scenario: Scenario): { outcome: PeerOutcome; difference: DepthDifference } {
  const engine = prepare(markets, scenario);
  for (const command of scenario.stream) engine.apply(command);
  const book = preparePeer(scenario);
  const outcome = timePeer(book, peerPlan(scenario.peerStream!, scenario.stream.length));
  return { outcome, difference: depthDifference(book, engine) };
}

test('every command of the exchange-core mix becomes the peer operation of its kind', () => {
  const scenario = exchangeCoreMix({ markets, seed: 5, resting: 1_000, commands, skipHash: true, withPeer: true });
  const kinds = scenario.peerStream!.kinds;
  const counts = new Map<number, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const mix = scenario.mix;
  assert.equal(counts.get(PeerOpKind.limit), mix.gtc + mix.crossingGtc);
  assert.equal(counts.get(PeerOpKind.iocLimit), mix.ioc);
  assert.equal(counts.get(PeerOpKind.cancel), mix.cancel);
  assert.equal(counts.get(PeerOpKind.modifyPrice), mix.amendPrice);
  assert.equal(counts.get(PeerOpKind.modifySize), mix.amendReduce + mix.amendIncrease);
  for (let index = 0; index < kinds.length; index++) assert.equal(scenario.peerStream!.ids[index], String((scenario.stream[index] as { orderId: number }).orderId));
  assert.equal(scenario.peerSetup!.kinds.length, scenario.setup.filter((command) => command.kind === CommandKind.placeOrder).length);
});

test('a size amend gives the peer what our engine leaves the order to fill', () => {
  const scenario = exchangeCoreMix({ markets, seed: 6, resting: 1_000, commands: 5 * commands, skipHash: true, withPeer: true });
  const ops = scenario.peerStream!;
  const engine = prepare(markets, scenario);
  let checked = 0;
  let partlyFilled = 0;
  for (let index = 0; index < scenario.stream.length; index++) {
    const command = scenario.stream[index]!;
    const before = command.kind === CommandKind.amendOrder ? engine.slotOf(command.orderId) : noSlot;
    const filledBefore = before === noSlot ? 0 : engine.orders.filledLots(before);
    engine.apply(command);
    if (ops.kinds[index] !== PeerOpKind.modifySize || command.kind !== CommandKind.amendOrder) continue;
    const slot = engine.slotOf(command.orderId);
    if (slot === noSlot) continue;
    assert.equal(ops.sizes[index], engine.contexts[0]!.book.remainingLots(slot), `size amend at command ${index}`);
    checked++;
    if (filledBefore > 0) partlyFilled++;
  }
  assert.ok(checked > 2_500, `size amends checked: ${checked}`);
  assert.ok(partlyFilled > 10, `of them on partly filled orders (where the total and what is left differ): ${partlyFilled}`);
});

test('the peer ends with our book: exactly on the simple mix, within a few lots on the exchange-core mix', () => {
  const simple = runBoth(simpleMix({ markets, seed: 7, resting: 1_000, commands, skipHash: true }));
  assert.deepEqual({ ...simple.outcome, seconds: 0 }, { seconds: 0, errors: 0, cancelMisses: 0, modifyMisses: 0 });
  assert.equal(simple.difference.differing, 0);
  assert.ok(simple.difference.levels > 100);

  const exchange = runBoth(exchangeCoreMix({ markets, seed: 8, resting: 1_000, commands, skipHash: true, withPeer: true }));
  assert.equal(exchange.outcome.errors, 0);
  assert.ok(exchange.outcome.cancelMisses + exchange.outcome.modifyMisses <= commands / 1_000, `ids the peer no longer held: ${JSON.stringify(exchange.outcome)}`);
  const { differing, levels, ourLots, peerLots } = exchange.difference;
  assert.ok(levels > 100 && differing <= levels / 100, `levels that differ: ${differing} of ${levels}`);
  assert.ok(Math.abs(ourLots - peerLots) <= ourLots / 1_000, `lots: ours ${ourLots}, the peer's ${peerLots}`);
});
