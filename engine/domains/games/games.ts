/**
 * Games: trading streaks, duels and tournaments, fed by the exchange's live fills (port.onTrade), so that
 * nothing counts unless it traded. Rules (README "Games"):
 *
 * - Streaks: a user's day is floor(journaled ms / dayMs) (UTC days). The first live fill of a day after a
 *   fill the day before extends the streak by one; after a gap it restarts at 1. When the best streak first
 *   reaches a configured milestone, its reward is queued and paid, first in first out, by the next
 *   RunTimers from the reward account domainUserId(9, 0); while that account cannot pay the head of the
 *   queue, the rewards stay owed and are tried again at every whole hour. Each milestone pays once per user.
 * - Duels: a challenge on an exchange pair holds the challenger's stake until an opponent accepts (holding
 *   the same stake) or the acceptance deadline passes (the stake is released). An accepted duel runs for
 *   its duration; each side's P&L on the pair over that window is the net quote flow of its live fills
 *   (sells add the notional, buys take it, fees are taken) plus its net base position valued at the pair's
 *   last live trade price in the window. The better P&L takes both stakes minus the fee (floor of both
 *   stakes × fee bps / 10000, to the fee account); equal P&L releases both stakes.
 * - Tournaments: scheduled by CreateTournament, joined before the start (the entry fee held), capped. At
 *   the start a tournament below its minimum of entrants refunds; at the end entrants with live traded
 *   volume (quote notional of their fills in the window) are ranked by it (ties: earlier entry first) and
 *   the entry pool is paid by prizeSplitBps; shares of ranks nobody fills and the floors' remainder go to
 *   the first. Nobody traded: every fee is refunded.
 *
 * Money: stakes and fees are holds on the users' accounts (reported by heldAtoms) until a settlement pays
 * them from held into the pool account domainUserId(9, 1), which pays the winners and ends empty.
 */
import { assert } from '../../core/assert.ts';
import type { Command, Mode } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import type { Engine } from '../../core/engine.ts';
import { EventKind, type AmmFill, type TradeExecuted } from '../../core/events.ts';
import { noAccount } from '../../core/ledger.ts';
import { bpsDenominator, domainUserId, userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hasher.ts';
import type { Asset } from '../../core/units.ts';
import {
  GamesCommandType,
  GamesEventType,
  GamesResult,
  dayMs,
  duelsMax,
  duelsPerUserMax,
  gamesDomainId,
  poolAccountIndex,
  prizeSplitBps,
  rewardAccountIndex,
  rewardRetryMs,
  tournamentsMax,
  validDuelStake,
  validDuelTimes,
  validSettings,
  validTournament,
  type AcceptDuel,
  type ConfigureGames,
  type CreateDuel,
  type CreateTournament,
  type DuelEnded,
  type EarningsPaid,
  type EarningsReason,
  type JoinTournament,
  type Standing,
  type TournamentEnded,
} from './commands.ts';

export const rewardUserId = domainUserId(gamesDomainId, rewardAccountIndex);
export const gamesPoolUserId = domainUserId(gamesDomainId, poolAccountIndex);
const live: Mode = 0;

export interface Streak {
  lastDay: number;
  streakDays: number;
  bestDays: number;
}

/** One duellist's flows on the duel's pair during the window. */
export interface DuelSide {
  userId: number;
  quoteAtoms: number;
  baseLots: number;
}

export interface Duel {
  duelId: number;
  pairId: number;
  stakeAtoms: number;
  durationMs: number;
  feeBps: number;
  createdMs: number;
  expiresMs: number;
  /** 0 while open (waiting for an opponent). */
  startMs: number;
  endMs: number;
  lastPriceTicks: number;
  challenger: DuelSide;
  /** userId 0 while open. */
  opponent: DuelSide;
}

export interface Entrant {
  userId: number;
  volumeAtoms: number;
}

export interface Tournament {
  tournamentId: number;
  key: string;
  startMs: number;
  endMs: number;
  entryFeeAtoms: number;
  capacity: number;
  minEntrants: number;
  started: boolean;
  entrants: Entrant[];
}

export interface PendingReward {
  userId: number;
  milestoneDays: number;
  amountAtoms: number;
  dueMs: number;
}

export interface GamesSnapshot {
  settings: ConfigureGames;
  lastDuelId: number;
  lastTournamentId: number;
  retryMs: number;
  /** [userId, lastDay, streakDays, bestDays] */
  streaks: [number, number, number, number][];
  rewards: PendingReward[];
  duels: Duel[];
  tournaments: Tournament[];
}

/** A signed P&L: quote flow plus the base position at the last price (BigInt: the product can pass 2^53). */
function pnlOf(side: DuelSide, lastPriceTicks: number, quoteAtomsPerTickLot: number): bigint {
  return BigInt(side.quoteAtoms) + BigInt(side.baseLots) * BigInt(lastPriceTicks) * BigInt(quoteAtomsPerTickLot);
}

const clampNumber = (value: bigint): number => Number(value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : value < -BigInt(Number.MAX_SAFE_INTEGER) ? -Number.MAX_SAFE_INTEGER : value);

export class Games implements DomainModule {
  static readonly domainName = 'games';
  readonly name = Games.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = Object.values(GamesCommandType);
  settings: ConfigureGames | null = null;
  lastDuelId = 0;
  lastTournamentId = 0;
  /** No reward is tried before this time (set when the reward account could not pay). */
  retryMs = 0;
  readonly streaks = new Map<number, Streak>();
  readonly rewards: PendingReward[] = [];
  readonly duels = new Map<number, Duel>();
  readonly tournaments = new Map<number, Tournament>();
  /** Atoms of the settlement asset held per user for stakes and entry fees. */
  private readonly held = new Map<number, number>();
  /** Running duels by pair id, and each tournament's entrants by user id: what every fill looks up. */
  private readonly runningByPair = new Map<number, Duel[]>();
  private readonly entrantIndex = new Map<number, Map<number, Entrant>>();

  constructor(private readonly port: DomainPort) {
    port.onTrade((fill) => this.onFill(fill));
  }

  get asset(): Asset | undefined {
    return this.settings === null ? undefined : this.port.markets.assetById(this.settings.assetId);
  }

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'games take domain commands only');
    switch (command.type) {
      case GamesCommandType.configure:
        return this.configure(command.body as ConfigureGames);
      case GamesCommandType.createDuel:
        return this.createDuel(command.body as CreateDuel);
      case GamesCommandType.acceptDuel:
        return this.acceptDuel(command.body as AcceptDuel);
      case GamesCommandType.createTournament:
        return this.createTournament(command.body as CreateTournament);
      case GamesCommandType.joinTournament:
        return this.joinTournament(command.body as JoinTournament);
      default:
        return Result.unknownCommand;
    }
  }

  // Commands.

  private configure(body: ConfigureGames): ResultCode {
    if (!validSettings(body) || this.port.markets.assetById(body.assetId) === undefined) return GamesResult.invalidConfiguration;
    if (this.settings !== null && this.settings.assetId !== body.assetId) return GamesResult.invalidConfiguration;
    this.settings = { assetId: body.assetId, duelFeeBps: body.duelFeeBps, milestoneDays: [...body.milestoneDays], rewardAtoms: [...body.rewardAtoms] };
    this.port.emit(domainEvent(GamesEventType.configured, { ...this.settings, milestoneDays: [...body.milestoneDays], rewardAtoms: [...body.rewardAtoms] }));
    return Result.ok;
  }

  private validUser(userId: unknown): userId is number {
    return Number.isSafeInteger(userId) && (userId as number) >= 1 && (userId as number) <= userIdMax;
  }

  private duelsOf(userId: number): number {
    let count = 0;
    for (const duel of this.duels.values()) if (duel.challenger.userId === userId || duel.opponent.userId === userId) count++;
    return count;
  }

  /** The user's live account when it has `atoms` of the asset available, else noAccount. */
  private payer(userId: number, atoms: number): number {
    const account = this.port.ledger.find(userId, live);
    return account !== noAccount && this.port.ledger.availableAtoms(account, this.asset!.index) >= atoms ? account : noAccount;
  }

  /** The pool account, opened with the first stake or fee that will be paid into it; noAccount when the ledger is full. */
  private poolAccount(): number {
    const account = this.port.ledger.find(gamesPoolUserId, live);
    return account !== noAccount ? account : this.port.ledger.findOrOpen(gamesPoolUserId, live);
  }

  private hold(account: number, userId: number, atoms: number): void {
    this.port.ledger.hold(account, this.asset!.index, atoms);
    this.held.set(userId, (this.held.get(userId) ?? 0) + atoms);
  }

  private unheld(userId: number, atoms: number): void {
    const left = (this.held.get(userId) ?? 0) - atoms;
    assert(left >= 0, 'games released more than they held');
    if (left === 0) this.held.delete(userId);
    else this.held.set(userId, left);
  }

  private run(duel: Duel): void {
    const running = this.runningByPair.get(duel.pairId);
    if (running === undefined) this.runningByPair.set(duel.pairId, [duel]);
    else running.push(duel);
  }

  private unrun(duel: Duel): void {
    const running = this.runningByPair.get(duel.pairId)!;
    running.splice(running.indexOf(duel), 1);
    if (running.length === 0) this.runningByPair.delete(duel.pairId);
  }

  private createDuel(body: CreateDuel): ResultCode {
    if (this.settings === null) return GamesResult.notConfigured;
    if (!this.validUser(body.userId)) return Result.invalidUser;
    const pair = Number.isSafeInteger(body.pairId) ? this.port.markets.pairById(body.pairId) : undefined;
    if (pair === undefined) return GamesResult.unknownPair;
    if (!validDuelStake(body.stakeAtoms)) return GamesResult.invalidStake;
    if (!validDuelTimes(body.durationMs, body.acceptMs)) return GamesResult.invalidDuration;
    if (this.duels.size >= duelsMax || this.duelsOf(body.userId) >= duelsPerUserMax) return GamesResult.tooManyDuels;
    const account = this.payer(body.userId, body.stakeAtoms);
    if (account === noAccount) return Result.insufficientBalance;
    if (this.poolAccount() === noAccount) return Result.tooManyAccounts;

    const nowMs = this.port.commandTimeMs();
    this.hold(account, body.userId, body.stakeAtoms);
    const duel: Duel = {
      duelId: ++this.lastDuelId,
      pairId: pair.id,
      stakeAtoms: body.stakeAtoms,
      durationMs: body.durationMs,
      feeBps: this.settings.duelFeeBps,
      createdMs: nowMs,
      expiresMs: nowMs + body.acceptMs,
      startMs: 0,
      endMs: 0,
      lastPriceTicks: 0,
      challenger: { userId: body.userId, quoteAtoms: 0, baseLots: 0 },
      opponent: { userId: 0, quoteAtoms: 0, baseLots: 0 },
    };
    this.duels.set(duel.duelId, duel);
    this.port.emit(
      domainEvent(GamesEventType.duelCreated, {
        duelId: duel.duelId,
        challengerId: body.userId,
        pairId: pair.id,
        stakeAtoms: duel.stakeAtoms,
        durationMs: duel.durationMs,
        createdMs: nowMs,
        expiresMs: duel.expiresMs,
        feeBps: duel.feeBps,
      }),
    );
    return Result.ok;
  }

  private acceptDuel(body: AcceptDuel): ResultCode {
    if (this.settings === null) return GamesResult.notConfigured;
    if (!this.validUser(body.userId)) return Result.invalidUser;
    const duel = Number.isSafeInteger(body.duelId) ? this.duels.get(body.duelId) : undefined;
    if (duel === undefined) return GamesResult.duelNotFound;
    const nowMs = this.port.commandTimeMs();
    if (duel.opponent.userId !== 0 || nowMs >= duel.expiresMs) return GamesResult.duelNotOpen;
    if (duel.challenger.userId === body.userId) return GamesResult.ownDuel;
    if (this.duelsOf(body.userId) >= duelsPerUserMax) return GamesResult.tooManyDuels;
    const account = this.payer(body.userId, duel.stakeAtoms);
    if (account === noAccount) return Result.insufficientBalance;

    this.hold(account, body.userId, duel.stakeAtoms);
    duel.opponent.userId = body.userId;
    duel.startMs = nowMs;
    duel.endMs = nowMs + duel.durationMs;
    this.run(duel);
    this.port.emit(domainEvent(GamesEventType.duelAccepted, { duelId: duel.duelId, opponentId: body.userId, startMs: nowMs, endMs: duel.endMs }));
    return Result.ok;
  }

  private createTournament(body: CreateTournament): ResultCode {
    if (this.settings === null) return GamesResult.notConfigured;
    const nowMs = this.port.commandTimeMs();
    if (!validTournament(body, nowMs)) return GamesResult.invalidTournament;
    for (const tournament of this.tournaments.values()) if (tournament.key === body.key) return GamesResult.invalidTournament;
    if (this.tournaments.size >= tournamentsMax) return GamesResult.tooManyTournaments;

    const tournament: Tournament = {
      tournamentId: ++this.lastTournamentId,
      key: body.key,
      startMs: body.startMs,
      endMs: body.endMs,
      entryFeeAtoms: body.entryFeeAtoms,
      capacity: body.capacity,
      minEntrants: body.minEntrants,
      started: false,
      entrants: [],
    };
    this.tournaments.set(tournament.tournamentId, tournament);
    this.entrantIndex.set(tournament.tournamentId, new Map());
    const { started: _started, entrants: _entrants, ...created } = tournament;
    this.port.emit(domainEvent(GamesEventType.tournamentCreated, created));
    return Result.ok;
  }

  private joinTournament(body: JoinTournament): ResultCode {
    if (this.settings === null) return GamesResult.notConfigured;
    if (!this.validUser(body.userId)) return Result.invalidUser;
    const tournament = Number.isSafeInteger(body.tournamentId) ? this.tournaments.get(body.tournamentId) : undefined;
    if (tournament === undefined) return GamesResult.tournamentNotFound;
    if (tournament.started || this.port.commandTimeMs() >= tournament.startMs) return GamesResult.tournamentClosed;
    if (this.entrantIndex.get(tournament.tournamentId)!.has(body.userId)) return GamesResult.alreadyJoined;
    if (tournament.entrants.length >= tournament.capacity) return GamesResult.tournamentFull;
    const account = this.payer(body.userId, tournament.entryFeeAtoms);
    if (account === noAccount) return Result.insufficientBalance;
    if (this.poolAccount() === noAccount) return Result.tooManyAccounts;

    this.hold(account, body.userId, tournament.entryFeeAtoms);
    const entrant: Entrant = { userId: body.userId, volumeAtoms: 0 };
    tournament.entrants.push(entrant);
    this.entrantIndex.get(tournament.tournamentId)!.set(body.userId, entrant);
    this.port.emit(domainEvent(GamesEventType.tournamentJoined, { tournamentId: tournament.tournamentId, userId: body.userId, entrants: tournament.entrants.length }));
    return Result.ok;
  }

  // Fills.

  private onFill(fill: TradeExecuted | AmmFill): void {
    if (this.settings === null || fill.mode !== live) return;
    const nowMs = this.port.commandTimeMs();
    if (fill.kind === EventKind.tradeExecuted) {
      this.follow(fill.takerUserId, fill.pairId, fill.takerSide, fill.quantityLots, fill.notionalAtoms, fill.takerFeeAtoms, nowMs);
      this.follow(fill.makerUserId, fill.pairId, fill.takerSide === 0 ? 1 : 0, fill.quantityLots, fill.notionalAtoms, fill.makerFeeAtoms, nowMs);
    } else {
      this.follow(fill.userId, fill.pairId, fill.side, fill.quantityLots, fill.notionalAtoms, fill.feeAtoms, nowMs);
    }
    for (const duel of this.runningByPair.get(fill.pairId) ?? []) if (nowMs < duel.endMs) duel.lastPriceTicks = fill.priceTicks;
  }

  /** One user's side of a live fill: its streak day, its running duels on the pair, its running tournaments. */
  private follow(userId: number, pairId: number, side: number, lots: number, notionalAtoms: number, feeAtoms: number, nowMs: number): void {
    if (!this.validUser(userId)) return;
    this.streakDay(userId, nowMs);
    for (const duel of this.runningByPair.get(pairId) ?? []) {
      if (nowMs >= duel.endMs) continue;
      for (const duellist of [duel.challenger, duel.opponent]) {
        if (duellist.userId !== userId) continue;
        duellist.quoteAtoms += side === 0 ? -notionalAtoms - feeAtoms : notionalAtoms - feeAtoms;
        duellist.baseLots += side === 0 ? lots : -lots;
      }
    }
    for (const tournament of this.tournaments.values()) {
      // The window is [start, end) of journaled time, whether or not the timer that starts it has run yet.
      if (nowMs < tournament.startMs || nowMs >= tournament.endMs) continue;
      const entrant = this.entrantIndex.get(tournament.tournamentId)!.get(userId);
      if (entrant !== undefined) entrant.volumeAtoms += notionalAtoms;
    }
  }

  private streakDay(userId: number, nowMs: number): void {
    const day = Math.floor(nowMs / dayMs);
    const streak = this.streaks.get(userId);
    if (streak !== undefined && streak.lastDay >= day) return;
    const previousBest = streak?.bestDays ?? 0;
    const streakDays = streak !== undefined && streak.lastDay === day - 1 ? streak.streakDays + 1 : 1;
    const bestDays = Math.max(previousBest, streakDays);
    this.streaks.set(userId, { lastDay: day, streakDays, bestDays });
    this.port.emit(domainEvent(GamesEventType.streakUpdated, { userId, day, streakDays, bestDays }));
    const settings = this.settings!;
    settings.milestoneDays.forEach((milestoneDays, index) => {
      const amountAtoms = settings.rewardAtoms[index]!;
      if (bestDays !== milestoneDays || previousBest >= milestoneDays || amountAtoms === 0) return;
      this.rewards.push({ userId, milestoneDays, amountAtoms, dueMs: nowMs });
      this.port.emit(domainEvent(GamesEventType.milestoneReached, { userId, milestoneDays, amountAtoms }));
    });
  }

  // Payouts.

  private paid(userId: number, amountAtoms: number, reason: EarningsReason, refId: number): void {
    const event: EarningsPaid = { userId, mode: 0, assetId: this.settings!.assetId, amountAtoms, reason, refId };
    this.port.emit(domainEvent(GamesEventType.earningsPaid, event));
  }

  private accountOf(userId: number): number {
    const account = this.port.ledger.find(userId, live);
    assert(account !== noAccount, 'a game player without an account');
    return account;
  }

  private payRewards(nowMs: number): void {
    if (this.rewards.length === 0 || nowMs < this.retryMs) return;
    const ledger = this.port.ledger;
    const asset = this.asset!.index;
    const reward = ledger.find(rewardUserId, live);
    while (this.rewards.length > 0) {
      const head = this.rewards[0]!;
      if (reward === noAccount || ledger.availableAtoms(reward, asset) < head.amountAtoms) {
        this.retryMs = (Math.floor(nowMs / rewardRetryMs) + 1) * rewardRetryMs;
        return;
      }
      ledger.payFromAvailable(reward, this.accountOf(head.userId), asset, head.amountAtoms);
      this.rewards.shift();
      this.paid(head.userId, head.amountAtoms, 'streak', head.milestoneDays);
    }
    this.retryMs = 0;
  }

  private endDuel(duel: Duel): void {
    const ledger = this.port.ledger;
    const asset = this.asset!.index;
    const event: DuelEnded = {
      duelId: duel.duelId,
      outcome: 'expired',
      winnerId: 0,
      challengerPnlAtoms: 0,
      opponentPnlAtoms: 0,
      lastPriceTicks: duel.lastPriceTicks,
      feeAtoms: 0,
      payoutAtoms: 0,
    };
    this.duels.delete(duel.duelId);
    if (duel.startMs !== 0) this.unrun(duel);
    if (duel.opponent.userId === 0) {
      ledger.release(this.accountOf(duel.challenger.userId), asset, duel.stakeAtoms);
      this.unheld(duel.challenger.userId, duel.stakeAtoms);
      this.port.emit(domainEvent(GamesEventType.duelEnded, event));
      return;
    }
    const perTickLot = this.port.markets.pairById(duel.pairId)!.quoteAtomsPerTickLot;
    const challengerPnl = pnlOf(duel.challenger, duel.lastPriceTicks, perTickLot);
    const opponentPnl = pnlOf(duel.opponent, duel.lastPriceTicks, perTickLot);
    event.challengerPnlAtoms = clampNumber(challengerPnl);
    event.opponentPnlAtoms = clampNumber(opponentPnl);
    const players = [duel.challenger.userId, duel.opponent.userId];
    if (challengerPnl === opponentPnl) {
      for (const userId of players) {
        ledger.release(this.accountOf(userId), asset, duel.stakeAtoms);
        this.unheld(userId, duel.stakeAtoms);
      }
      event.outcome = 'tie';
      this.port.emit(domainEvent(GamesEventType.duelEnded, event));
      return;
    }
    const winnerId = challengerPnl > opponentPnl ? duel.challenger.userId : duel.opponent.userId;
    const pool = this.accountOf(gamesPoolUserId);
    for (const userId of players) {
      ledger.payFromHeld(this.accountOf(userId), pool, asset, duel.stakeAtoms);
      this.unheld(userId, duel.stakeAtoms);
    }
    const totalAtoms = 2 * duel.stakeAtoms;
    const feeAtoms = Math.floor((totalAtoms * duel.feeBps) / bpsDenominator);
    const payoutAtoms = totalAtoms - feeAtoms;
    ledger.payFromAvailable(pool, this.accountOf(winnerId), asset, payoutAtoms);
    if (feeAtoms > 0) ledger.payFromAvailable(pool, ledger.find(0, live), asset, feeAtoms);
    event.outcome = 'won';
    event.winnerId = winnerId;
    event.feeAtoms = feeAtoms;
    event.payoutAtoms = payoutAtoms;
    this.port.emit(domainEvent(GamesEventType.duelEnded, event));
    this.paid(winnerId, payoutAtoms, 'duel', duel.duelId);
  }

  private refundTournament(tournament: Tournament): void {
    const ledger = this.port.ledger;
    const asset = this.asset!.index;
    for (const entrant of tournament.entrants) {
      ledger.release(this.accountOf(entrant.userId), asset, tournament.entryFeeAtoms);
      this.unheld(entrant.userId, tournament.entryFeeAtoms);
    }
    this.tournaments.delete(tournament.tournamentId);
    this.entrantIndex.delete(tournament.tournamentId);
    const standings: Standing[] = tournament.entrants.map((entrant) => ({ userId: entrant.userId, volumeAtoms: entrant.volumeAtoms, rank: 0, prizeAtoms: 0 }));
    const event: TournamentEnded = { tournamentId: tournament.tournamentId, outcome: 'refunded', poolAtoms: 0, standings };
    this.port.emit(domainEvent(GamesEventType.tournamentEnded, event));
  }

  private settleTournament(tournament: Tournament): void {
    // Ranked: entrants who traded, by volume, ties to the earlier entry (a stable sort keeps entry order).
    const ranked = tournament.entrants.filter((entrant) => entrant.volumeAtoms > 0).sort((a, b) => b.volumeAtoms - a.volumeAtoms);
    if (ranked.length === 0) return this.refundTournament(tournament);
    const ledger = this.port.ledger;
    const asset = this.asset!.index;
    const pool = this.accountOf(gamesPoolUserId);
    for (const entrant of tournament.entrants) {
      ledger.payFromHeld(this.accountOf(entrant.userId), pool, asset, tournament.entryFeeAtoms);
      this.unheld(entrant.userId, tournament.entryFeeAtoms);
    }
    const poolAtoms = tournament.entrants.length * tournament.entryFeeAtoms;
    const prizes = ranked.slice(0, prizeSplitBps.length).map((_entrant, rank) => Math.floor((poolAtoms * prizeSplitBps[rank]!) / bpsDenominator));
    prizes[0]! += poolAtoms - prizes.reduce((sum, prize) => sum + prize, 0);
    const prizeOf = new Map<number, number>();
    prizes.forEach((prizeAtoms, rank) => {
      const userId = ranked[rank]!.userId;
      prizeOf.set(userId, prizeAtoms);
      ledger.payFromAvailable(pool, this.accountOf(userId), asset, prizeAtoms);
    });
    assert(prizes.reduce((sum, prize) => sum + prize, 0) === poolAtoms, 'a tournament paid other than its pool');
    this.tournaments.delete(tournament.tournamentId);
    this.entrantIndex.delete(tournament.tournamentId);
    const rankOf = new Map(ranked.map((entrant, index) => [entrant.userId, index + 1]));
    const standings: Standing[] = [...ranked, ...tournament.entrants.filter((entrant) => entrant.volumeAtoms === 0)].map((entrant) => ({
      userId: entrant.userId,
      volumeAtoms: entrant.volumeAtoms,
      rank: rankOf.get(entrant.userId) ?? 0,
      prizeAtoms: prizeOf.get(entrant.userId) ?? 0,
    }));
    const event: TournamentEnded = { tournamentId: tournament.tournamentId, outcome: 'settled', poolAtoms, standings };
    this.port.emit(domainEvent(GamesEventType.tournamentEnded, event));
    prizes.forEach((prizeAtoms, rank) => this.paid(ranked[rank]!.userId, prizeAtoms, 'tournament', tournament.tournamentId));
  }

  // Timers.

  nextTimerMs(): number {
    let earliest = this.rewards.length > 0 ? Math.max(this.rewards[0]!.dueMs, this.retryMs) : noTimerMs;
    for (const duel of this.duels.values()) earliest = Math.min(earliest, duel.startMs === 0 ? duel.expiresMs : duel.endMs);
    for (const tournament of this.tournaments.values()) earliest = Math.min(earliest, tournament.started ? tournament.endMs : tournament.startMs);
    return earliest;
  }

  runTimers(nowMs: number): void {
    if (this.settings === null) return;
    this.payRewards(nowMs);
    for (const duel of [...this.duels.values()]) if ((duel.startMs === 0 ? duel.expiresMs : duel.endMs) <= nowMs) this.endDuel(duel);
    for (const tournament of [...this.tournaments.values()]) {
      if (!tournament.started && tournament.startMs <= nowMs) {
        if (tournament.entrants.length < tournament.minEntrants) {
          this.refundTournament(tournament);
          continue;
        }
        tournament.started = true;
        this.port.emit(domainEvent(GamesEventType.tournamentStarted, { tournamentId: tournament.tournamentId, entrants: tournament.entrants.length }));
      }
      if (tournament.started && tournament.endMs <= nowMs) this.settleTournament(tournament);
    }
  }

  heldAtoms(userId: number, mode: Mode, assetIndex: number): number {
    if (mode !== live || this.settings === null || assetIndex !== this.asset!.index) return 0;
    return this.held.get(userId) ?? 0;
  }

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    const state = this.snapshot();
    if (state === null) return;
    hasher.number(-19);
    // The snapshot is plain data in a fixed order (maps keep insertion order), so its JSON is a canonical form.
    hasher.string(JSON.stringify(state));
  }

  snapshot(): GamesSnapshot | null {
    if (this.settings === null) return null;
    return {
      settings: { ...this.settings, milestoneDays: [...this.settings.milestoneDays], rewardAtoms: [...this.settings.rewardAtoms] },
      lastDuelId: this.lastDuelId,
      lastTournamentId: this.lastTournamentId,
      retryMs: this.retryMs,
      streaks: [...this.streaks].map(([userId, streak]) => [userId, streak.lastDay, streak.streakDays, streak.bestDays]),
      rewards: this.rewards.map((reward) => ({ ...reward })),
      duels: [...this.duels.values()].map((duel) => ({ ...duel, challenger: { ...duel.challenger }, opponent: { ...duel.opponent } })),
      tournaments: [...this.tournaments.values()].map((tournament) => ({ ...tournament, entrants: tournament.entrants.map((entrant) => ({ ...entrant })) })),
    };
  }

  restore(state: unknown): void {
    assert(this.settings === null, 'restore needs a fresh games module');
    const data = state as Partial<GamesSnapshot> | null;
    const integer = (value: unknown): value is number => Number.isSafeInteger(value);
    const side = (value: unknown): value is DuelSide => typeof value === 'object' && value !== null && [(value as DuelSide).userId, (value as DuelSide).quoteAtoms, (value as DuelSide).baseLots].every(integer);
    if (
      data === null ||
      typeof data !== 'object' ||
      typeof data.settings !== 'object' ||
      data.settings === null ||
      !validSettings(data.settings) ||
      this.port.markets.assetById(data.settings.assetId) === undefined ||
      ![data.lastDuelId, data.lastTournamentId, data.retryMs].every(integer) ||
      !Array.isArray(data.streaks) ||
      !data.streaks.every((row) => Array.isArray(row) && row.length === 4 && row.every(integer)) ||
      !Array.isArray(data.rewards) ||
      !data.rewards.every((reward) => [reward.userId, reward.milestoneDays, reward.amountAtoms, reward.dueMs].every(integer)) ||
      !Array.isArray(data.duels) ||
      data.duels.length > duelsMax ||
      !data.duels.every(
        (duel) =>
          [duel.duelId, duel.pairId, duel.stakeAtoms, duel.durationMs, duel.feeBps, duel.createdMs, duel.expiresMs, duel.startMs, duel.endMs, duel.lastPriceTicks].every(integer) &&
          side(duel.challenger) &&
          side(duel.opponent) &&
          this.port.markets.pairById(duel.pairId) !== undefined,
      ) ||
      !Array.isArray(data.tournaments) ||
      data.tournaments.length > tournamentsMax ||
      !data.tournaments.every(
        (tournament) =>
          typeof tournament.key === 'string' &&
          typeof tournament.started === 'boolean' &&
          [tournament.tournamentId, tournament.startMs, tournament.endMs, tournament.entryFeeAtoms, tournament.capacity, tournament.minEntrants].every(integer) &&
          Array.isArray(tournament.entrants) &&
          tournament.entrants.every((entrant) => integer(entrant.userId) && integer(entrant.volumeAtoms)),
      )
    ) {
      throw new Error('games snapshot: malformed');
    }
    this.settings = { assetId: data.settings.assetId, duelFeeBps: data.settings.duelFeeBps, milestoneDays: [...data.settings.milestoneDays], rewardAtoms: [...data.settings.rewardAtoms] };
    this.lastDuelId = data.lastDuelId!;
    this.lastTournamentId = data.lastTournamentId!;
    this.retryMs = data.retryMs!;
    for (const [userId, lastDay, streakDays, bestDays] of data.streaks) this.streaks.set(userId, { lastDay, streakDays, bestDays });
    for (const reward of data.rewards) this.rewards.push({ userId: reward.userId, milestoneDays: reward.milestoneDays, amountAtoms: reward.amountAtoms, dueMs: reward.dueMs });
    const addHeld = (userId: number, atoms: number): void => void this.held.set(userId, (this.held.get(userId) ?? 0) + atoms);
    for (const duel of data.duels) {
      this.duels.set(duel.duelId, {
        duelId: duel.duelId,
        pairId: duel.pairId,
        stakeAtoms: duel.stakeAtoms,
        durationMs: duel.durationMs,
        feeBps: duel.feeBps,
        createdMs: duel.createdMs,
        expiresMs: duel.expiresMs,
        startMs: duel.startMs,
        endMs: duel.endMs,
        lastPriceTicks: duel.lastPriceTicks,
        challenger: { userId: duel.challenger.userId, quoteAtoms: duel.challenger.quoteAtoms, baseLots: duel.challenger.baseLots },
        opponent: { userId: duel.opponent.userId, quoteAtoms: duel.opponent.quoteAtoms, baseLots: duel.opponent.baseLots },
      });
      addHeld(duel.challenger.userId, duel.stakeAtoms);
      if (duel.opponent.userId !== 0) addHeld(duel.opponent.userId, duel.stakeAtoms);
      if (duel.startMs !== 0) this.run(this.duels.get(duel.duelId)!);
    }
    for (const tournament of data.tournaments) {
      this.tournaments.set(tournament.tournamentId, {
        tournamentId: tournament.tournamentId,
        key: tournament.key,
        startMs: tournament.startMs,
        endMs: tournament.endMs,
        entryFeeAtoms: tournament.entryFeeAtoms,
        capacity: tournament.capacity,
        minEntrants: tournament.minEntrants,
        started: tournament.started,
        entrants: tournament.entrants.map((entrant) => ({ userId: entrant.userId, volumeAtoms: entrant.volumeAtoms })),
      });
      const restored = this.tournaments.get(tournament.tournamentId)!;
      this.entrantIndex.set(tournament.tournamentId, new Map(restored.entrants.map((entrant) => [entrant.userId, entrant])));
      for (const entrant of restored.entrants) addHeld(entrant.userId, tournament.entryFeeAtoms);
    }
  }
}

/** The games module of an engine built with `platformDomains`. */
export function gamesOf(engine: Engine): Games {
  const games = engine.domain(Games.domainName);
  if (!(games instanceof Games)) throw new Error('this engine has no games module');
  return games;
}
