/**
 * Games' commands, events, result codes and limits (domain id 9: numbers 9000..9999): trading streaks,
 * duels and tournaments fed by real exchange fills (port.onTrade).
 *
 * Games count live trading only (mode 0): paper fills cost nothing, so they could inflate a streak, a
 * duel's P&L or a tournament's volume for free. Every amount is in atoms of one settlement asset, set by
 * the first ConfigureGames and never changed (the shell uses USDC; the seeded simulation PLAT).
 */
import { field, fieldCodec } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const gamesDomainId = 9;

// Limits (a named maximum for everything).
/** A UTC day of journaled time: streak days are floor(ms / dayMs). */
export const dayMs = 86_400_000;
/** Streak milestones at most, and the longest milestone (a year of days). */
export const milestonesMax = 8;
export const milestoneDaysMax = 366;
/** One milestone's reward: 0 to 1 000 000 units of a 6-decimal asset. */
export const rewardAtomsMax = 1_000_000_000_000;
/** The duel fee, in basis points of both stakes: at most 10%. */
export const duelFeeBpsMax = 1_000;
/** One duel stake: 1 to 100 000 units of a 6-decimal asset. */
export const duelStakeAtomsMin = 1_000_000;
export const duelStakeAtomsMax = 100_000_000_000;
/** A duel's window once accepted: one minute to seven days (the shell offers whole hours only). */
export const duelDurationMsMin = 60_000;
export const duelDurationMsMax = 7 * dayMs;
/** How long a challenge waits for an opponent: one minute to one day. */
export const duelAcceptMsMin = 60_000;
export const duelAcceptMsMax = dayMs;
/** Open or running duels across the platform, and per user (as challenger or opponent). */
export const duelsMax = 10_000;
export const duelsPerUserMax = 10;
/** Scheduled or running tournaments at once. */
export const tournamentsMax = 64;
/** A tournament's key (the fixture schedule's name for it, e.g. `daily-2026-11-25`): 1 to 64 of a-z, 0-9, -. */
export const tournamentKeyCharsMax = 64;
/** Entrants: a capacity of 2 to 1000, a minimum of 2 up to the capacity. */
export const tournamentEntrantsMin = 2;
export const tournamentEntrantsMax = 1_000;
/** The entry fee: 1 to 10 000 units of a 6-decimal asset. */
export const entryFeeAtomsMin = 1_000_000;
export const entryFeeAtomsMax = 10_000_000_000;
/** A tournament's window: one minute to seven days, starting at most 30 days after its creation. */
export const tournamentWindowMsMin = 60_000;
export const tournamentWindowMsMax = 7 * dayMs;
export const tournamentLeadMsMax = 30 * dayMs;
/** The prize split by rank, in basis points of the entry pool (first, second, third). */
export const prizeSplitBps = [5_000, 3_000, 2_000] as const;
/** A streak reward the reward account cannot pay yet is tried again at the next whole hour of journaled time. */
export const rewardRetryMs = 3_600_000;
/** The games' ledger accounts: domainUserId(9, index). */
export const rewardAccountIndex = 0;
export const poolAccountIndex = 1;

export const GamesCommandType = { configure: 9001, createDuel: 9002, acceptDuel: 9003, createTournament: 9004, joinTournament: 9005 } as const;
export const GamesEventType = {
  configured: 9001,
  streakUpdated: 9002,
  milestoneReached: 9003,
  earningsPaid: 9004,
  duelCreated: 9005,
  duelAccepted: 9006,
  duelEnded: 9007,
  tournamentCreated: 9008,
  tournamentJoined: 9009,
  tournamentStarted: 9010,
  tournamentEnded: 9011,
} as const;

/** The games' settings: the settlement asset (fixed by the first configuration), the duel fee and the streak milestones. */
export interface ConfigureGames {
  assetId: number;
  duelFeeBps: number;
  /** Increasing day counts, e.g. [3, 7, 30]. */
  milestoneDays: number[];
  /** The reward of each milestone, in atoms. */
  rewardAtoms: number[];
}

/** A challenge on the exchange pair `pairId`, with `stakeAtoms` held from the challenger. */
export interface CreateDuel {
  userId: number;
  pairId: number;
  stakeAtoms: number;
  durationMs: number;
  /** How long it waits for an opponent. */
  acceptMs: number;
}

export interface AcceptDuel {
  userId: number;
  duelId: number;
}

export interface CreateTournament {
  key: string;
  startMs: number;
  endMs: number;
  entryFeeAtoms: number;
  capacity: number;
  minEntrants: number;
}

export interface JoinTournament {
  userId: number;
  tournamentId: number;
}

export type GamesConfigured = ConfigureGames;

/** A user's first live fill of a UTC day: the streak after it. */
export interface StreakUpdated {
  userId: number;
  day: number;
  streakDays: number;
  bestDays: number;
}

/** A milestone first reached: its reward is owed until an EarningsPaid with reason 'streak' and this refId pays it. */
export interface MilestoneReached {
  userId: number;
  milestoneDays: number;
  amountAtoms: number;
}

export type EarningsReason = 'streak' | 'duel' | 'tournament';

/** One payout to a user: refId is the milestone's days, the duel id or the tournament id. */
export interface EarningsPaid {
  userId: number;
  mode: 0;
  assetId: number;
  amountAtoms: number;
  reason: EarningsReason;
  refId: number;
}

export interface DuelCreated {
  duelId: number;
  challengerId: number;
  pairId: number;
  stakeAtoms: number;
  durationMs: number;
  createdMs: number;
  expiresMs: number;
  feeBps: number;
}

export interface DuelAccepted {
  duelId: number;
  opponentId: number;
  startMs: number;
  endMs: number;
}

export type DuelOutcome = 'won' | 'tie' | 'expired';

/** How a duel ended; P&L in quote atoms (signed), 0 for an expired challenge. */
export interface DuelEnded {
  duelId: number;
  outcome: DuelOutcome;
  /** 0 unless won. */
  winnerId: number;
  challengerPnlAtoms: number;
  opponentPnlAtoms: number;
  lastPriceTicks: number;
  feeAtoms: number;
  payoutAtoms: number;
}

export interface TournamentCreated {
  tournamentId: number;
  key: string;
  startMs: number;
  endMs: number;
  entryFeeAtoms: number;
  capacity: number;
  minEntrants: number;
}

export interface TournamentJoined {
  tournamentId: number;
  userId: number;
  entrants: number;
}

export interface TournamentStarted {
  tournamentId: number;
  entrants: number;
}

export interface Standing {
  userId: number;
  volumeAtoms: number;
  /** 1-based; 0 for an entrant that did not trade (not ranked). */
  rank: number;
  prizeAtoms: number;
}

/** Settled (prizes by rank) or refunded (too few entrants at the start, or nobody traded). */
export interface TournamentEnded {
  tournamentId: number;
  outcome: 'settled' | 'refunded';
  poolAtoms: number;
  standings: Standing[];
}

export const GamesResult = {
  invalidConfiguration: domainResult(
    gamesDomainId,
    9001,
    'INVALID_GAMES_CONFIGURATION',
    `a known asset (the first one kept), a duel fee of 0 to ${duelFeeBpsMax} bps, up to ${milestonesMax} increasing milestones of 1 to ${milestoneDaysMax} days with rewards of 0 to ${rewardAtomsMax} atoms`,
  ),
  notConfigured: domainResult(gamesDomainId, 9002, 'GAMES_NOT_CONFIGURED', 'games are not configured yet'),
  unknownPair: domainResult(gamesDomainId, 9003, 'DUEL_MARKET_NOT_FOUND', 'no exchange pair has this id'),
  invalidStake: domainResult(gamesDomainId, 9004, 'INVALID_DUEL_STAKE', `a duel stake is ${duelStakeAtomsMin} to ${duelStakeAtomsMax} atoms`),
  invalidDuration: domainResult(
    gamesDomainId,
    9005,
    'INVALID_DUEL_DURATION',
    `a duel lasts ${duelDurationMsMin} to ${duelDurationMsMax} ms and waits ${duelAcceptMsMin} to ${duelAcceptMsMax} ms for an opponent`,
  ),
  duelNotFound: domainResult(gamesDomainId, 9006, 'DUEL_NOT_FOUND', 'no open or running duel has this id'),
  duelNotOpen: domainResult(gamesDomainId, 9007, 'DUEL_NOT_OPEN', 'the duel was already accepted or its acceptance deadline passed'),
  ownDuel: domainResult(gamesDomainId, 9008, 'OWN_DUEL', 'a challenger cannot accept its own duel'),
  tooManyDuels: domainResult(gamesDomainId, 9009, 'TOO_MANY_DUELS', `at most ${duelsPerUserMax} open or running duels per user and ${duelsMax} in all`),
  invalidTournament: domainResult(
    gamesDomainId,
    9010,
    'INVALID_TOURNAMENT',
    `a new key of 1 to ${tournamentKeyCharsMax} a-z, 0-9 or -, a future start at most ${tournamentLeadMsMax} ms ahead, a window of ${tournamentWindowMsMin} to ${tournamentWindowMsMax} ms, an entry fee of ${entryFeeAtomsMin} to ${entryFeeAtomsMax} atoms, a capacity of ${tournamentEntrantsMin} to ${tournamentEntrantsMax} and a minimum of ${tournamentEntrantsMin} up to it`,
  ),
  tooManyTournaments: domainResult(gamesDomainId, 9011, 'TOO_MANY_TOURNAMENTS', `at most ${tournamentsMax} scheduled or running tournaments`),
  tournamentNotFound: domainResult(gamesDomainId, 9012, 'TOURNAMENT_NOT_FOUND', 'no scheduled or running tournament has this id'),
  tournamentClosed: domainResult(gamesDomainId, 9013, 'TOURNAMENT_CLOSED', 'the tournament has started; entries are closed'),
  tournamentFull: domainResult(gamesDomainId, 9014, 'TOURNAMENT_FULL', 'the tournament is at capacity'),
  alreadyJoined: domainResult(gamesDomainId, 9015, 'ALREADY_JOINED', 'the user has joined this tournament already'),
} as const;

export const configureGamesCodec = fieldCodec<ConfigureGames>(GamesCommandType.configure, 'ConfigureGames', {
  assetId: field.integer,
  duelFeeBps: field.integer,
  milestoneDays: field.integers(milestonesMax),
  rewardAtoms: field.integers(milestonesMax),
});

export const createDuelCodec = fieldCodec<CreateDuel>(GamesCommandType.createDuel, 'CreateDuel', {
  userId: field.integer,
  pairId: field.integer,
  stakeAtoms: field.integer,
  durationMs: field.integer,
  acceptMs: field.integer,
});

export const acceptDuelCodec = fieldCodec<AcceptDuel>(GamesCommandType.acceptDuel, 'AcceptDuel', { userId: field.integer, duelId: field.integer });

export const createTournamentCodec = fieldCodec<CreateTournament>(GamesCommandType.createTournament, 'CreateTournament', {
  key: field.string(tournamentKeyCharsMax),
  startMs: field.integer,
  endMs: field.integer,
  entryFeeAtoms: field.integer,
  capacity: field.integer,
  minEntrants: field.integer,
});

export const joinTournamentCodec = fieldCodec<JoinTournament>(GamesCommandType.joinTournament, 'JoinTournament', { userId: field.integer, tournamentId: field.integer });

const inRange = (value: unknown, low: number, high: number): value is number => Number.isSafeInteger(value) && (value as number) >= low && (value as number) <= high;

/** Whether the settings are acceptable (the asset's existence and permanence are the module's to check). */
export function validSettings(body: ConfigureGames): boolean {
  if (!inRange(body.duelFeeBps, 0, duelFeeBpsMax) || !Array.isArray(body.milestoneDays) || !Array.isArray(body.rewardAtoms)) return false;
  if (body.milestoneDays.length > milestonesMax || body.milestoneDays.length !== body.rewardAtoms.length) return false;
  let previous = 0;
  for (const [index, days] of body.milestoneDays.entries()) {
    if (!inRange(days, previous + 1, milestoneDaysMax) || !inRange(body.rewardAtoms[index], 0, rewardAtomsMax)) return false;
    previous = days;
  }
  return true;
}

export const validDuelStake = (atoms: unknown): atoms is number => inRange(atoms, duelStakeAtomsMin, duelStakeAtomsMax);
export const validDuelTimes = (durationMs: unknown, acceptMs: unknown): boolean =>
  inRange(durationMs, duelDurationMsMin, duelDurationMsMax) && inRange(acceptMs, duelAcceptMsMin, duelAcceptMsMax);

/** Whether a tournament's fields are acceptable when created at `nowMs` (key uniqueness is the module's). */
export function validTournament(body: CreateTournament, nowMs: number): boolean {
  return (
    typeof body.key === 'string' &&
    /^[a-z0-9-]{1,64}$/.test(body.key) &&
    inRange(body.startMs, nowMs + 1, nowMs + tournamentLeadMsMax) &&
    inRange(body.endMs, body.startMs + tournamentWindowMsMin, body.startMs + tournamentWindowMsMax) &&
    inRange(body.entryFeeAtoms, entryFeeAtomsMin, entryFeeAtomsMax) &&
    inRange(body.capacity, tournamentEntrantsMin, tournamentEntrantsMax) &&
    inRange(body.minEntrants, tournamentEntrantsMin, body.capacity)
  );
}
