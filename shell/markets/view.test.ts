/**
 * The durable markets view against the engine: a seeded stream of prices and markets commands (with
 * timers, so markets activate and settle) is applied to an engine, and each command's events are handed to
 * a view as a durable batch. After every command the view's levels of every book equal the engine book's
 * depth, its open orders are the engine's, and a view built from a snapshot equals the one fed by events.
 * Subscribers hear of every book change, trade and status change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { Engine } from '../../engine/core/engine.ts';
import { CollectingSink } from '../../engine/core/events.ts';
import type { BookLevel } from '../../engine/core/book/book.ts';
import { Prng } from '../../engine/core/sim/generator.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { marketsOf, MarketStatus } from '../../engine/domains/markets/index.ts';
import { MarketsSimulation } from '../../engine/domains/markets/simulation.ts';
import { PricesSimulation } from '../../engine/domains/prices/simulation.ts';
import { MarketsView, type MarketChange, type SideLevels } from './view.ts';
import { batchOfEvents } from '../../engine/runtime/sequencer.ts';

function levelsOf(side: SideLevels): Array<[number, number, number]> {
  return [...side.entries()].map(([price, level]): [number, number, number] => [price, level.lots, level.orders]).sort((a, b) => a[0] - b[0]);
}

test('the view follows the engine: levels, open orders and statuses after every command; a snapshot view equals it', () => {
  const sink = new CollectingSink();
  const engine = new Engine({ markets: loadMarkets(), sink, domains: platformDomains });
  const view = new MarketsView(engine);
  const changes: MarketChange['kind'][] = [];
  view.subscribe((change) => changes.push(change.kind));
  const random = new Prng(9);
  const prices = new PricesSimulation();
  const simulation = new MarketsSimulation();
  const module = marketsOf(engine);
  const depth: BookLevel[] = [];
  let seq = 0;
  let now = 1_767_225_600_000;
  for (let index = 0; index < 4_000; index++) {
    now += random.int(0, 400);
    const roll = random.next();
    const command: Command = roll < 0.15 ? prices.next(random, now) : roll < 0.2 ? { kind: CommandKind.runTimers, seq: 0, ts: 0 } : simulation.next(random, now);
    command.seq = ++seq;
    command.ts = now;
    engine.apply(command);
    const events = [...sink.events];
    sink.clear();
    view.onBatch(batchOfEvents(seq, seq, (visit) => events.forEach((event) => visit(event, seq, now))));
    if (index % 10 !== 0) continue;
    for (const market of view.markets.values()) {
      const engineMarket = module.market(market.marketId)!;
      assert.equal(market.status, engineMarket.status);
      market.books.forEach((book, assetIndex) => {
        for (const [side, levels] of [[0, book.bids], [1, book.asks]] as const) {
          const count = engineMarket.books[assetIndex]!.depth(side, 1_000, depth);
          const expected = depth.slice(0, count).map((level): [number, number, number] => [level.priceTicks, level.lots, level.orders]).sort((a, b) => a[0] - b[0]);
          assert.deepEqual(levelsOf(levels), expected, `market ${market.marketId} asset ${assetIndex} side ${side} after command ${index}`);
        }
      });
      for (const order of market.orders.values()) assert.equal(module.order(order.orderId)?.remainingLots, order.remainingLots);
    }
  }
  const statuses = [...view.markets.values()].map((market) => market.status);
  assert.ok(statuses.includes(MarketStatus.completed) && statuses.some((status) => status !== MarketStatus.completed), 'completed and open markets');
  for (const kind of ['book', 'trade', 'status'] as const) assert.ok(changes.includes(kind), `subscribers heard of ${kind}`);

  const recovered = new MarketsView(engine);
  for (const market of view.markets.values()) {
    const other = recovered.markets.get(market.marketId)!;
    assert.equal(other.address, market.address);
    assert.equal(other.status, market.status);
    assert.equal(other.poolAtoms, market.poolAtoms);
    assert.deepEqual(other.completion, market.completion);
    assert.deepEqual(other.books.map((book) => [levelsOf(book.bids), levelsOf(book.asks)]), market.books.map((book) => [levelsOf(book.bids), levelsOf(book.asks)]));
    assert.deepEqual([...other.stakes.values()], [...market.stakes.values()]);
  }
});
