/**
 * The games view fed with a seeded platform stream's events, one by one, shows what a view built from the
 * engine's state at the end shows: settings, streaks, owed rewards, open and running duels, scheduled and
 * running tournaments with their entrants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../engine/core/engine.ts';
import { CollectingSink } from '../../engine/core/events.ts';
import { noSlot } from '../../engine/core/order-store.ts';
import { CommandGenerator } from '../../engine/core/sim/generator.ts';
import { domainGenerators, platformDomains } from '../../engine/domains/index.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { GamesView } from './view.ts';

const open = (view: GamesView) => ({
  settings: view.settings,
  streaks: [...view.streaks].sort((a, b) => a[0] - b[0]),
  owed: [...view.owed].map(([userId, owed]) => [userId, [...owed]]).sort(),
  duels: [...view.duels.values()].filter((duel) => duel.status === 'open' || duel.status === 'running').sort((a, b) => a.duelId - b.duelId),
  tournaments: [...view.tournaments.values()].filter((tournament) => tournament.status === 'scheduled' || tournament.status === 'running').sort((a, b) => a.tournamentId - b.tournamentId),
});

test('a view fed with a seeded run’s events equals one built from the engine’s state', () => {
  const markets = loadMarkets();
  const sink = new CollectingSink();
  const engine = new Engine({ markets, sink, domains: platformDomains });
  const addresses = (userId: number): string[] => [`wallet-${userId}`];
  const fed = new GamesView(engine, addresses);
  const generator = new CommandGenerator({ seed: 16, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  const funding = generator.fundingCommands();
  for (let index = 0; index < 30_000; index++) {
    engine.apply(index < funding.length ? funding[index]! : generator.next());
    for (const event of sink.events) fed.apply(event);
    sink.clear();
  }
  const built = new GamesView(engine, addresses);
  assert.ok(fed.duels.size > 0 && fed.streaks.size > 0, 'the run played games');
  assert.deepEqual(open(fed), open(built));
  assert.equal(fed.userOfWallet('wallet-1'), 1);
  assert.equal(built.userOfWallet('wallet-1'), 1);
});
