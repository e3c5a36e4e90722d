/**
 * The games' shell module: the durable view and the routes on it, and the journaled setup: at start the
 * reward account (domainUserId(9, 0)) topped up to GAMES_REWARD_FUND by a core Deposit, a ConfigureGames
 * when the journaled settings differ from the fixture's milestones and GAMES_DUEL_FEE_BPS, and the next
 * tournament of each recurring schedule of fixtures/games.json; the schedule is looked at again every
 * `scheduleCheckMs`, so a new tournament is always created before the previous one of its kind starts.
 */
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { GamesCommandType, type ConfigureGames, type CreateTournament } from '../../engine/domains/games/commands.ts';
import { gamesOf, rewardUserId } from '../../engine/domains/games/games.ts';
import { depositAddress } from '../funding/chains.ts';
import type { ShellContext } from '../context.ts';
import type { ShellModule } from '../shell-module.ts';
import { loadGamesFixture, nextOccurrence } from './fixture.ts';
import { gamesRoutes } from './routes.ts';
import { gamesFixturePath, loadGamesSettings } from './settings.ts';
import { GamesView } from './view.ts';

/** How often the shell looks whether a schedule's next tournament must be created. */
export const scheduleCheckMs = 60_000;

/** Submits one command and resolves once it is durable; a refusal or failure rejects, naming the command. */
function submit(context: ShellContext, command: Command, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    context.durable.enqueue(command, (outcome) => {
      if (outcome.error !== null) return reject(outcome.error);
      if (outcome.result !== Result.ok) return reject(new Error(`${what} was refused: ${resultCode(outcome.result)}`));
      resolve();
    });
  });
}

export const gamesModule: ShellModule = {
  name: 'games',
  create(context) {
    const env = context.config.env;
    const fixture = loadGamesFixture(context.markets, gamesFixturePath(env));
    const settings = loadGamesSettings(env, fixture.asset);
    const engine = context.durable.engine;
    const { chains, depositSecret } = context.funding;
    const view = new GamesView(engine, (userId) => chains.all.map((chain) => depositAddress(depositSecret, userId, chain)));
    let timer: NodeJS.Timeout | null = null;
    let scheduling = false;

    /** Creates each schedule's next tournament unless the view has it already. */
    const schedule = async (): Promise<void> => {
      if (scheduling) return;
      scheduling = true;
      try {
        const keys = new Set([...view.tournaments.values()].map((tournament) => tournament.key));
        for (const entry of fixture.schedules) {
          const next = nextOccurrence(entry, context.clock());
          if (keys.has(next.key)) continue;
          const body: CreateTournament = { key: next.key, startMs: next.startMs, endMs: next.endMs, entryFeeAtoms: entry.entryFeeAtoms, capacity: entry.capacity, minEntrants: entry.minEntrants };
          await submit(context, domainCommand(GamesCommandType.createTournament, body), `CreateTournament ${next.key}`);
          context.timers.poke();
        }
      } finally {
        scheduling = false;
      }
    };

    const start = async (): Promise<void> => {
      const ledger = engine.ledger;
      const account = ledger.find(rewardUserId, 0);
      const balance = account === noAccount ? 0 : ledger.availableAtoms(account, fixture.asset.index);
      if (balance < settings.rewardFundAtoms) {
        const deposit: Command = { kind: CommandKind.deposit, seq: 0, ts: 0, userId: rewardUserId, mode: 0, assetId: fixture.asset.id, amountAtoms: settings.rewardFundAtoms - balance };
        await submit(context, deposit, 'the games reward deposit');
      }
      const journaled = gamesOf(engine).settings;
      const wanted: ConfigureGames = { assetId: fixture.asset.id, duelFeeBps: settings.duelFeeBps, milestoneDays: fixture.milestoneDays, rewardAtoms: fixture.rewardAtoms };
      if (journaled === null || JSON.stringify(journaled) !== JSON.stringify(wanted)) await submit(context, domainCommand(GamesCommandType.configure, wanted), 'ConfigureGames');
      await schedule();
      timer = setInterval(() => {
        schedule().catch((error: unknown) => context.log('games_schedule_failed', { error: String(error) }));
      }, scheduleCheckMs);
      timer.unref();
    };

    return {
      routes: gamesRoutes({ context, view, asset: fixture.asset, settings }),
      onDurable: (batch) => view.onBatch(batch),
      start,
      stop: () => {
        if (timer !== null) clearInterval(timer);
      },
    };
  },
};
