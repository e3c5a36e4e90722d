/**
 * The games as durable batches left them: what the games routes show. It starts from the recovered
 * engine's state (everything recovered is durable: settings, streaks, owed rewards, open and running
 * duels, scheduled and running tournaments) and follows the domain's durable events. Ended duels and
 * tournaments are kept from the events this server saw, the most recent `endedDuelsMax` and
 * `endedTournamentsMax` (after a restart the list starts again from the open ones).
 *
 * Wallets: a user's wallets are its deposit addresses (shell/funding, one per chain). The view indexes
 * the addresses of every user it knows from games (a trader with a streak, a duellist, an entrant), so a
 * wallet of a user who never traded live nor played is unknown.
 */
import { EventKind, type EngineEvent } from '../../engine/core/events.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import {
  GamesEventType,
  type ConfigureGames,
  type DuelAccepted,
  type DuelCreated,
  type DuelEnded,
  type EarningsPaid,
  type MilestoneReached,
  type Standing,
  type StreakUpdated,
  type TournamentCreated,
  type TournamentEnded,
  type TournamentJoined,
} from '../../engine/domains/games/commands.ts';
import { gamesOf } from '../../engine/domains/games/games.ts';

/** Ended duels and tournaments the view keeps. */
export const endedDuelsMax = 10_000;
export const endedTournamentsMax = 50;

export interface StreakView {
  lastDay: number;
  streakDays: number;
  bestDays: number;
}

export type DuelStatus = 'open' | 'running' | 'won' | 'tie' | 'expired';

export interface DuelView {
  duelId: number;
  challengerId: number;
  opponentId: number;
  pairId: number;
  stakeAtoms: number;
  durationMs: number;
  feeBps: number;
  createdMs: number;
  expiresMs: number;
  startMs: number;
  endMs: number;
  status: DuelStatus;
  ended: DuelEnded | null;
}

export type TournamentStatus = 'scheduled' | 'running' | 'settled' | 'refunded';

export interface TournamentView {
  tournamentId: number;
  key: string;
  startMs: number;
  endMs: number;
  entryFeeAtoms: number;
  capacity: number;
  minEntrants: number;
  entrants: number[];
  status: TournamentStatus;
  standings: Standing[];
}

export class GamesView {
  settings: ConfigureGames | null = null;
  readonly streaks = new Map<number, StreakView>();
  /** Owed streak rewards per user: milestone days → atoms. */
  readonly owed = new Map<number, Map<number, number>>();
  readonly duels = new Map<number, DuelView>();
  readonly tournaments = new Map<number, TournamentView>();
  private readonly wallets = new Map<string, number>();
  private readonly known = new Set<number>();
  private readonly endedDuels: number[] = [];
  private readonly endedTournaments: number[] = [];

  constructor(
    engine: Engine,
    private readonly addressesOf: (userId: number) => string[],
  ) {
    const games = gamesOf(engine);
    if (games.settings !== null) this.settings = { ...games.settings, milestoneDays: [...games.settings.milestoneDays], rewardAtoms: [...games.settings.rewardAtoms] };
    for (const [userId, streak] of games.streaks) {
      this.streaks.set(userId, { ...streak });
      this.learn(userId);
    }
    for (const reward of games.rewards) this.owe(reward.userId, reward.milestoneDays, reward.amountAtoms);
    for (const duel of games.duels.values()) {
      this.duels.set(duel.duelId, {
        duelId: duel.duelId,
        challengerId: duel.challenger.userId,
        opponentId: duel.opponent.userId,
        pairId: duel.pairId,
        stakeAtoms: duel.stakeAtoms,
        durationMs: duel.durationMs,
        feeBps: duel.feeBps,
        createdMs: duel.createdMs,
        expiresMs: duel.expiresMs,
        startMs: duel.startMs,
        endMs: duel.endMs,
        status: duel.opponent.userId === 0 ? 'open' : 'running',
        ended: null,
      });
      this.learn(duel.challenger.userId);
      this.learn(duel.opponent.userId);
    }
    for (const tournament of games.tournaments.values()) {
      this.tournaments.set(tournament.tournamentId, {
        tournamentId: tournament.tournamentId,
        key: tournament.key,
        startMs: tournament.startMs,
        endMs: tournament.endMs,
        entryFeeAtoms: tournament.entryFeeAtoms,
        capacity: tournament.capacity,
        minEntrants: tournament.minEntrants,
        entrants: tournament.entrants.map((entrant) => entrant.userId),
        status: tournament.started ? 'running' : 'scheduled',
        standings: [],
      });
      for (const entrant of tournament.entrants) this.learn(entrant.userId);
    }
  }

  /** The user a wallet (a deposit address; EVM ones in any case) belongs to, if the view knows it. */
  userOfWallet(wallet: string): number | undefined {
    return this.wallets.get(wallet) ?? this.wallets.get(wallet.toLowerCase());
  }

  /** Makes the user's wallets known (the routes call it for the caller too). */
  learn(userId: number): void {
    if (userId === 0 || this.known.has(userId)) return;
    this.known.add(userId);
    for (const address of this.addressesOf(userId)) this.wallets.set(address, userId);
  }

  /** The user's duels, newest first. */
  duelsOf(userId: number): DuelView[] {
    return [...this.duels.values()].filter((duel) => duel.challengerId === userId || duel.opponentId === userId).reverse();
  }

  /** The streak's current length at `nowMs`: it lasts while the last trading day is today or yesterday. */
  currentStreak(userId: number, nowMs: number): number {
    const streak = this.streaks.get(userId);
    if (streak === undefined) return 0;
    return streak.lastDay >= Math.floor(nowMs / 86_400_000) - 1 ? streak.streakDays : 0;
  }

  onBatch(batch: DurableBatch): void {
    batch.forEachDomainEvent((event) => this.apply(event));
  }

  apply(event: EngineEvent): void {
    if (event.kind !== EventKind.domain || event.type < GamesEventType.configured || event.type > 9999) return;
    switch (event.type) {
      case GamesEventType.configured: {
        const body = event.body as ConfigureGames;
        this.settings = { assetId: body.assetId, duelFeeBps: body.duelFeeBps, milestoneDays: [...body.milestoneDays], rewardAtoms: [...body.rewardAtoms] };
        return;
      }
      case GamesEventType.streakUpdated: {
        const body = event.body as StreakUpdated;
        this.streaks.set(body.userId, { lastDay: body.day, streakDays: body.streakDays, bestDays: body.bestDays });
        this.learn(body.userId);
        return;
      }
      case GamesEventType.milestoneReached: {
        const body = event.body as MilestoneReached;
        this.owe(body.userId, body.milestoneDays, body.amountAtoms);
        return;
      }
      case GamesEventType.earningsPaid: {
        const body = event.body as EarningsPaid;
        if (body.reason === 'streak') {
          const owed = this.owed.get(body.userId);
          owed?.delete(body.refId);
          if (owed?.size === 0) this.owed.delete(body.userId);
        }
        return;
      }
      case GamesEventType.duelCreated: {
        const body = event.body as DuelCreated;
        this.duels.set(body.duelId, {
          duelId: body.duelId,
          challengerId: body.challengerId,
          opponentId: 0,
          pairId: body.pairId,
          stakeAtoms: body.stakeAtoms,
          durationMs: body.durationMs,
          feeBps: body.feeBps,
          createdMs: body.createdMs,
          expiresMs: body.expiresMs,
          startMs: 0,
          endMs: 0,
          status: 'open',
          ended: null,
        });
        this.learn(body.challengerId);
        return;
      }
      case GamesEventType.duelAccepted: {
        const body = event.body as DuelAccepted;
        const duel = this.duels.get(body.duelId);
        if (duel === undefined) return;
        duel.opponentId = body.opponentId;
        duel.startMs = body.startMs;
        duel.endMs = body.endMs;
        duel.status = 'running';
        this.learn(body.opponentId);
        return;
      }
      case GamesEventType.duelEnded: {
        const body = event.body as DuelEnded;
        const duel = this.duels.get(body.duelId);
        if (duel === undefined) return;
        duel.status = body.outcome;
        duel.ended = { ...body };
        this.endedDuels.push(duel.duelId);
        if (this.endedDuels.length > endedDuelsMax) this.duels.delete(this.endedDuels.shift()!);
        return;
      }
      case GamesEventType.tournamentCreated: {
        const body = event.body as TournamentCreated;
        this.tournaments.set(body.tournamentId, { ...body, entrants: [], status: 'scheduled', standings: [] });
        return;
      }
      case GamesEventType.tournamentJoined: {
        const body = event.body as TournamentJoined;
        this.tournaments.get(body.tournamentId)?.entrants.push(body.userId);
        this.learn(body.userId);
        return;
      }
      case GamesEventType.tournamentStarted: {
        const tournament = this.tournaments.get((event.body as { tournamentId: number }).tournamentId);
        if (tournament !== undefined) tournament.status = 'running';
        return;
      }
      case GamesEventType.tournamentEnded: {
        const body = event.body as TournamentEnded;
        const tournament = this.tournaments.get(body.tournamentId);
        if (tournament === undefined) return;
        tournament.status = body.outcome;
        tournament.standings = body.standings.map((standing) => ({ ...standing }));
        this.endedTournaments.push(tournament.tournamentId);
        if (this.endedTournaments.length > endedTournamentsMax) this.tournaments.delete(this.endedTournaments.shift()!);
        return;
      }
      default:
        return;
    }
  }

  private owe(userId: number, milestoneDays: number, amountAtoms: number): void {
    const owed = this.owed.get(userId) ?? new Map<number, number>();
    owed.set(milestoneDays, amountAtoms);
    this.owed.set(userId, owed);
    this.learn(userId);
  }
}
