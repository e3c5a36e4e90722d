/**
 * The arena view follows the engine: a view fed only with the events of a seeded run (orders, fills, house
 * re-quotes, ticks, epoch ends) holds the same books, open orders, positions, NAVs, epochs, headlines,
 * scoreboard and pool as a view built from the engine's state at the end (what a restart starts from).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { Engine } from '../../engine/core/engine.ts';
import { CollectingSink } from '../../engine/core/events.ts';
import { Result } from '../../engine/core/results.ts';
import { Prng } from '../../engine/core/sim/generator.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { ArenaSimulation } from '../../engine/domains/arena/simulation.ts';
import { PricesSimulation } from '../../engine/domains/prices/simulation.ts';
import { ArenaView } from './view.ts';

function summary(view: ArenaView) {
  const holdings = [...view.holdings.entries()]
    .flatMap(([userId, rows]) => rows.map((row, team) => [userId, team, row.lots, row.costAtoms]))
    .filter((row) => row[2] !== 0 || row[3] !== 0)
    .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  return {
    config: view.config,
    epoch: [view.epoch, view.epochStartMs, view.epochEndMs],
    navs: view.navsAtoms,
    prices: [view.startPricesE8, view.pricesE8],
    books: view.books.map((sides) => sides.map((side) => [...side.entries()].sort((a, b) => a[0] - b[0]))),
    orders: [...view.orders.values()].map((order) => [order.orderId, order.userId, order.team, order.side, order.priceTicks, order.remainingLots]).sort((a, b) => a[0]! - b[0]!),
    holdings,
    history: view.history,
    headlines: view.headlines,
    scoreboard: [...view.wins, view.ties],
    pool: view.poolAtoms,
  };
}

test('a view fed with the events of a seeded run equals the view built from the engine afterwards', () => {
  const sink = new CollectingSink();
  const engine = new Engine({ markets: loadMarkets(), sink, domains: platformDomains });
  const view = new ArenaView(engine);
  const arena = new ArenaSimulation();
  const prices = new PricesSimulation();
  const random = new Prng(99);
  let ts = 1_767_225_600_000;
  let seq = 0;
  let accepted = 0;
  for (let index = 0; index < 4_000; index++) {
    const roll = random.next();
    let command: Command;
    if (index > 6 && roll < 0.15) command = prices.next(random, ts);
    else if (index > 6 && roll < 0.2) {
      ts += random.int(0, 20_000);
      command = { kind: CommandKind.runTimers, seq: 0, ts: 0 };
    } else command = arena.next(random, ts);
    ts += random.int(0, 50);
    command.seq = seq + 1;
    command.ts = ts;
    if (engine.apply(command) !== Result.ok) continue;
    seq++;
    accepted++;
    const changes = view.newChanges();
    for (const event of sink.events) view.apply(event, ts, changes);
    sink.clear();
  }
  assert.ok(accepted > 1_000, `${accepted} accepted`);
  assert.ok(view.history.length >= 3, `${view.history.length} epochs ended`);
  assert.ok(view.orders.size > 0 && view.holdings.size > 1, 'orders rest and users hold shares');
  assert.deepEqual(summary(view), summary(new ArenaView(engine)));
});
