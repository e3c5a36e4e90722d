/**
 * `Engine.applyRun` against `apply`: the same commands applied both ways give the same result codes at
 * the same indices, the same events and the same state hash, both below the live-order count from which
 * applyRun reads ahead and above it (where its groups' cancels and amends name orders that an earlier
 * command of the same group ended or moved, orders that never existed, and client order ids).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, TimeInForce, type Command } from './commands.ts';
import { Engine, touchLiveOrdersMin } from './engine.ts';
import { CollectingSink } from './events.ts';
import { Result } from './results.ts';
import { stateHash } from './state-hash.ts';
import { orderRequest } from './sim/order-request.ts';
import { Prng } from './sim/generator.ts';
import { loadMarkets } from '../runtime/markets.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const users = 4;
const midTicks = 300_000;

/** Deposits, then `resting` passive orders on both sides around `midTicks` (ids 1 to `resting`). */
function setup(resting: number): Command[] {
  const commands: Command[] = [];
  let seq = 0;
  for (let userId = 1; userId <= users; userId++) {
    commands.push({ kind: CommandKind.deposit, seq: ++seq, ts: seq, userId, mode: 0, assetId: usdc.id, amountAtoms: 1e15 });
    commands.push({ kind: CommandKind.deposit, seq: ++seq, ts: seq, userId, mode: 0, assetId: ether.id, amountAtoms: 1e15 });
  }
  for (let orderId = 1; orderId <= resting; orderId++) {
    const side = orderId % 2 === 0 ? 0 : 1;
    const distance = 1 + (orderId % 400);
    const priceTicks = side === 0 ? midTicks - distance : midTicks + distance;
    const request = orderRequest({ orderId, userId: 1 + (orderId % users), pairId: eth.id, side, priceTicks, quantityLots: 10, clientOrderId: `c${orderId}` });
    commands.push({ kind: CommandKind.placeOrder, seq: ++seq, ts: seq, ...request });
  }
  return commands;
}

/**
 * Cancels and amends of random ids (live, ended, never placed), cancels by client id, passive orders and
 * IOCs that take from the top of the book: a group of eight often names an order twice or one an earlier
 * command of the group has filled.
 */
function stream(resting: number, count: number, seed: number): Command[] {
  const prng = new Prng(seed);
  const next = (): number => prng.next();
  const commands: Command[] = [];
  let seq = 1_000_000;
  let orderId = resting;
  const recent = (): number => Math.max(1, orderId - Math.floor(next() * 64));
  for (let index = 0; index < count; index++) {
    const userId = 1 + Math.floor(next() * users);
    const ts = ++seq;
    const draw = next();
    const target = draw < 0.5 ? recent() : 1 + Math.floor(next() * (orderId + 100));
    if (draw < 0.3) {
      commands.push({ kind: CommandKind.cancelOrder, seq, ts, userId, mode: 0, orderId: target, clientOrderId: '' });
    } else if (draw < 0.35) {
      commands.push({ kind: CommandKind.cancelOrder, seq, ts, userId, mode: 0, orderId: 0, clientOrderId: `c${target}` });
    } else if (draw < 0.6) {
      const priceTicks = midTicks + Math.floor(next() * 800) - 400;
      commands.push({ kind: CommandKind.amendOrder, seq, ts, userId, mode: 0, orderId: target, priceTicks, quantityLots: next() < 0.5 ? 0 : 1 + Math.floor(next() * 20) });
    } else {
      const side = next() < 0.5 ? 0 : 1;
      const taking = next() < 0.3;
      const distance = 1 + Math.floor(next() * 400);
      const priceTicks = taking ? (side === 0 ? midTicks + 450 : midTicks - 450) : side === 0 ? midTicks - distance : midTicks + distance;
      orderId++;
      const request = orderRequest({ orderId, userId, pairId: eth.id, side, priceTicks, quantityLots: 1 + Math.floor(next() * 15), timeInForce: taking ? TimeInForce.ioc : TimeInForce.gtc });
      commands.push({ kind: CommandKind.placeOrder, seq, ts, ...request });
    }
  }
  return commands;
}

function prepared(commands: readonly Command[]): Engine {
  const engine = new Engine({ markets, domains: [] });
  for (const command of commands) assert.equal(engine.apply(command), Result.ok, `setup command ${command.seq}`);
  return engine;
}

function compare(resting: number, count: number, seed: number, from: number, to: number): Engine {
  const setupCommands = setup(resting);
  const commands = stream(resting, count, seed);
  const one = prepared(setupCommands);
  const run = prepared(setupCommands);
  const oneSink = new CollectingSink();
  const runSink = new CollectingSink();
  one.sink = oneSink;
  run.sink = runSink;
  const oneResults = new Uint16Array(count);
  const runResults = new Uint16Array(count);
  for (let index = from; index < to; index++) oneResults[index] = one.apply(commands[index]!);
  run.applyRun(commands, runResults, from, to);
  assert.deepEqual(runResults, oneResults);
  const refused = oneResults.filter((code) => code !== Result.ok).length;
  assert.ok(refused > (to - from) / 20 && refused < to - from, `the stream has refusals and accepted commands (${refused} refused)`);
  assert.equal(runSink.events.length, oneSink.events.length);
  assert.deepEqual(runSink.events, oneSink.events);
  assert.equal(stateHash(run), stateHash(one));
  return run;
}

test('applyRun equals apply one by one on a small book (no reading ahead)', () => {
  const engine = compare(2_000, 20_000, 7, 0, 20_000);
  assert.ok(engine.orders.liveCount < touchLiveOrdersMin);
});

test('applyRun equals apply one by one on a book large enough to read ahead, on a part of the array', () => {
  const resting = touchLiveOrdersMin + 20_000;
  // An odd start and end: the groups do not line up with the array, and the commands outside are not applied.
  const engine = compare(resting, 30_000, 11, 3, 29_995);
  assert.ok(engine.orders.liveCount >= touchLiveOrdersMin, 'the book stayed large enough to read ahead throughout');
});
