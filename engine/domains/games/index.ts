/**
 * Games (streaks, duels, tournaments) as a domain: its descriptor (engine/domains/index.ts lists it) and
 * `gamesEarningsOf`, which tells the incentives stream what a games event paid. The shell's games module
 * (shell/games) configures it, funds its reward account, schedules tournaments and serves its routes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { EventKind, type EngineEvent } from '../../core/events.ts';
import {
  GamesEventType,
  acceptDuelCodec,
  configureGamesCodec,
  createDuelCodec,
  createTournamentCodec,
  gamesDomainId,
  joinTournamentCodec,
  type EarningsPaid,
  type EarningsReason,
} from './commands.ts';
import { Games } from './games.ts';
import { GamesSimulation } from './simulation.ts';

export const gamesDomain: DomainDescriptor = {
  id: gamesDomainId,
  name: Games.domainName,
  formatVersion: 1,
  commands: [configureGamesCodec, createDuelCodec, acceptDuelCodec, createTournamentCodec, joinTournamentCodec],
  eventNames: {
    [GamesEventType.configured]: 'GamesConfigured',
    [GamesEventType.streakUpdated]: 'StreakUpdated',
    [GamesEventType.milestoneReached]: 'MilestoneReached',
    [GamesEventType.earningsPaid]: 'EarningsPaid',
    [GamesEventType.duelCreated]: 'DuelCreated',
    [GamesEventType.duelAccepted]: 'DuelAccepted',
    [GamesEventType.duelEnded]: 'DuelEnded',
    [GamesEventType.tournamentCreated]: 'TournamentCreated',
    [GamesEventType.tournamentJoined]: 'TournamentJoined',
    [GamesEventType.tournamentStarted]: 'TournamentStarted',
    [GamesEventType.tournamentEnded]: 'TournamentEnded',
  },
  create: (port) => new Games(port),
  simulation: () => new GamesSimulation(),
};

/** What one engine event paid a user through games, or null for any other event. Pure: it reads the event only. */
export function gamesEarningsOf(event: EngineEvent): { userId: number; assetId: number; amountAtoms: number; reason: EarningsReason } | null {
  if (event.kind !== EventKind.domain || event.type !== GamesEventType.earningsPaid) return null;
  const body = event.body as EarningsPaid;
  return { userId: body.userId, assetId: body.assetId, amountAtoms: body.amountAtoms, reason: body.reason };
}

export { Games, gamesOf, gamesPoolUserId, rewardUserId } from './games.ts';
export * from './commands.ts';
