/**
 * The games' routes:
 *
 *   GET  /api/v2/games/streaks/{wallet}            a wallet's trading streak and milestone rewards (public)
 *   POST /api/v2/games/duels                       challenge: a stake on an exchange market, held
 *   POST /api/v2/games/duels/{id}/accept           accept a challenge, holding the same stake
 *   GET  /api/v2/games/duels                       the caller's duels, newest first
 *   GET  /api/v2/games/tournaments                 scheduled, running and recently ended tournaments (public)
 *   POST /api/v2/games/tournaments/{id}/join       join a scheduled tournament, holding the entry fee
 *
 * Streaks and tournaments are public: a streak shows no user id, a tournament's standings show user ids as
 * the leaderboards do. Reads come from the durable games view; a write answers once its command is durable,
 * from the command's own event.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { amountToAtoms, formatAtoms, formatPrice, type Asset } from '../../engine/core/units.ts';
import {
  GamesCommandType,
  GamesEventType,
  GamesResult,
  dayMs,
  duelStakeAtomsMax,
  duelStakeAtomsMin,
  prizeSplitBps,
  type CreateDuel,
} from '../../engine/domains/games/commands.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { enqueue, refuse } from '../http/exchange-orders.ts';
import { declareRoute, type Later, type Route } from '../http/route-table.ts';
import type { GamesSettings } from './settings.ts';
import type { DuelView, GamesView, TournamentView } from './view.ts';

const tags = ['Games'];
const iso = (ms: number): string => new Date(ms).toISOString();
const hourMs = 3_600_000;
/** A duel's duration as the API offers it: whole hours, one to seven days' worth. */
export const duelHoursMax = 168;

export interface GamesRoutesOptions {
  readonly context: ShellContext;
  readonly view: GamesView;
  readonly asset: Asset;
  readonly settings: GamesSettings;
}

/** HTTP status of a games refusal: unknown things 404, a state that forbids it 409, capacity 429, the rest 422. */
export function statusOf(result: ResultCode): number {
  switch (result) {
    case GamesResult.duelNotFound:
    case GamesResult.tournamentNotFound:
    case GamesResult.unknownPair:
      return 404;
    case GamesResult.duelNotOpen:
    case GamesResult.ownDuel:
    case GamesResult.tooManyDuels:
    case GamesResult.tournamentClosed:
    case GamesResult.tournamentFull:
    case GamesResult.alreadyJoined:
    case GamesResult.notConfigured:
      return 409;
    case Result.tooManyAccounts:
      return 429;
    default:
      return 422;
  }
}

const text = Type.String();
const nullableText = Type.Union([Type.String(), Type.Null()]);
const object = (properties: Record<string, TSchema>): TSchema => Type.Object(properties, { additionalProperties: false });

const streakResponse = object({
  wallet: text,
  asset: text,
  current_streak_days: Type.Integer(),
  best_streak_days: Type.Integer(),
  last_trade_day: nullableText,
  milestones: Type.Array(object({ days: Type.Integer(), reward: text, status: Type.Union([Type.Literal('pending'), Type.Literal('owed'), Type.Literal('paid')]) })),
  rewards_owed: text,
});

const duelResponse = object({
  duel_id: text,
  status: Type.Union([Type.Literal('open'), Type.Literal('running'), Type.Literal('won'), Type.Literal('tie'), Type.Literal('expired')]),
  market_id: text,
  asset: text,
  stake_amount: text,
  duration_hours: Type.Number(),
  fee_bps: Type.Integer(),
  role: Type.Union([Type.Literal('challenger'), Type.Literal('opponent'), Type.Literal('none')]),
  created_at: text,
  accept_deadline: text,
  starts_at: nullableText,
  ends_at: nullableText,
  result: Type.Union([
    Type.Null(),
    object({ winner: Type.Union([Type.Literal('challenger'), Type.Literal('opponent'), Type.Null()]), challenger_pnl: text, opponent_pnl: text, last_price: nullableText, fee: text, payout: text }),
  ]),
});

const tournamentResponse = object({
  tournament_id: text,
  key: text,
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('running'), Type.Literal('settled'), Type.Literal('refunded')]),
  asset: text,
  entry_fee: text,
  capacity: Type.Integer(),
  min_entrants: Type.Integer(),
  entrants: Type.Integer(),
  pool: text,
  prize_split_bps: Type.Array(Type.Integer()),
  starts_at: text,
  ends_at: text,
  ranked_by: Type.Literal('volume'),
  joined: Type.Union([Type.Boolean(), Type.Null()]),
  standings: Type.Array(object({ rank: Type.Integer(), user_id: text, volume: text, prize: text })),
});

export function gamesRoutes(options: GamesRoutesOptions): Route[] {
  const { context, view, asset, settings } = options;
  const atoms = (value: number): string => formatAtoms(value, asset);
  const markets = context.markets;
  const quote = (pairId: number): Asset => markets.pairById(pairId)!.quote;
  // Every exchange pair is quoted in USDC, so volumes across pairs add up in it.
  const volumeAsset = markets.assetBySymbol('USDC') ?? asset;
  const signed = (value: number, of: Asset): string => (value < 0 ? `-${formatAtoms(-value, of)}` : formatAtoms(value, of));

  const duelJson = (duel: DuelView, userId: number): Record<string, unknown> => {
    const pair = markets.pairById(duel.pairId)!;
    const ended = duel.ended;
    const winner = ended === null || ended.winnerId === 0 ? null : ended.winnerId === duel.challengerId ? 'challenger' : 'opponent';
    return {
      duel_id: String(duel.duelId),
      status: duel.status,
      market_id: pair.slug,
      asset: asset.symbol,
      stake_amount: atoms(duel.stakeAtoms),
      duration_hours: duel.durationMs / hourMs,
      fee_bps: duel.feeBps,
      role: duel.challengerId === userId ? 'challenger' : duel.opponentId === userId ? 'opponent' : 'none',
      created_at: iso(duel.createdMs),
      accept_deadline: iso(duel.expiresMs),
      starts_at: duel.startMs === 0 ? null : iso(duel.startMs),
      ends_at: duel.startMs === 0 ? null : iso(duel.endMs),
      result:
        ended === null || ended.outcome === 'expired'
          ? null
          : {
              winner,
              challenger_pnl: signed(ended.challengerPnlAtoms, quote(duel.pairId)),
              opponent_pnl: signed(ended.opponentPnlAtoms, quote(duel.pairId)),
              last_price: ended.lastPriceTicks === 0 ? null : formatPrice(ended.lastPriceTicks, pair),
              fee: atoms(ended.feeAtoms),
              payout: atoms(ended.payoutAtoms),
            },
    };
  };

  const tournamentJson = (tournament: TournamentView, userId: number | null): Record<string, unknown> => ({
    tournament_id: String(tournament.tournamentId),
    key: tournament.key,
    status: tournament.status,
    asset: asset.symbol,
    entry_fee: atoms(tournament.entryFeeAtoms),
    capacity: tournament.capacity,
    min_entrants: tournament.minEntrants,
    entrants: tournament.entrants.length,
    pool: atoms(tournament.entrants.length * tournament.entryFeeAtoms),
    prize_split_bps: [...prizeSplitBps],
    starts_at: iso(tournament.startMs),
    ends_at: iso(tournament.endMs),
    ranked_by: 'volume',
    joined: userId === null ? null : tournament.entrants.includes(userId),
    standings: tournament.standings.map((standing) => ({
      rank: standing.rank,
      user_id: String(standing.userId),
      volume: formatAtoms(standing.volumeAtoms, volumeAsset),
      prize: atoms(standing.prizeAtoms),
    })),
  });

  /** Submits a games command for the caller and answers from its event of `type` once it is durable. */
  const submit = (request: Parameters<typeof enqueue>[1], command: Command, type: number, answer: (body: { duelId?: number; tournamentId?: number }) => unknown): Later =>
    enqueue(context, request, command, (outcome) => {
      if (outcome.result !== Result.ok) throw new ApiError(statusOf(outcome.result), resultCode(outcome.result), resultMessage(outcome.result));
      let found: { duelId?: number; tournamentId?: number } | null = null;
      outcome.forEachEvent((event) => {
        if (event.kind === EventKind.domain && event.type === type) found = { ...(event.body as object) };
      });
      if (found === null) throw new Error(`an accepted games command without its event ${type}`);
      // Duel and tournament timers (deadlines, ends, starts) may now be earlier than the runtime expects.
      context.timers.poke();
      return { status: 201, body: answer(found) };
    });

  const idParam = (value: string | undefined, what: string): number => {
    if (value === undefined || !/^[1-9][0-9]{0,14}$/.test(value)) throw new ApiError(404, what === 'duel' ? 'DUEL_NOT_FOUND' : 'TOURNAMENT_NOT_FOUND', `no ${what} ${JSON.stringify(value ?? '')}`);
    return Number(value);
  };

  return [
    declareRoute({
      method: 'GET',
      path: '/api/v2/games/streaks/{wallet}',
      name: 'get_games_streak',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: ['WALLET_NOT_FOUND'],
      response: streakResponse,
      summary:
        'A wallet\'s trading streak (public): consecutive UTC days with at least one live fill, the best streak, and each milestone reward (pending, owed while the reward account cannot pay, or paid). The wallet is one of the user\'s deposit addresses; 404 until its user has traded live or played',
      handler: (request) => {
        const wallet = request.params['wallet'] ?? '';
        const userId = wallet.length > 0 && wallet.length <= 64 ? view.userOfWallet(wallet) : undefined;
        if (userId === undefined) throw new ApiError(404, 'WALLET_NOT_FOUND', `no trader has the wallet ${JSON.stringify(wallet)}`);
        const streak = view.streaks.get(userId);
        const owed = view.owed.get(userId);
        const gameSettings = view.settings;
        const milestones = (gameSettings?.milestoneDays ?? []).map((days, index) => ({
          days,
          reward: atoms(gameSettings!.rewardAtoms[index]!),
          status: owed?.has(days) ? 'owed' : (streak?.bestDays ?? 0) >= days ? 'paid' : 'pending',
        }));
        return {
          body: {
            wallet,
            asset: asset.symbol,
            current_streak_days: view.currentStreak(userId, context.clock()),
            best_streak_days: streak?.bestDays ?? 0,
            last_trade_day: streak === undefined ? null : iso(streak.lastDay * dayMs).slice(0, 10),
            milestones,
            rewards_owed: atoms([...(owed?.values() ?? [])].reduce((sum, value) => sum + value, 0)),
          },
        };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/games/duels',
      name: 'create_games_duel',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['INVALID_WALLET', 'MARKET_NOT_FOUND', 'INVALID_DUEL_STAKE', 'INSUFFICIENT_BALANCE', 'TOO_MANY_DUELS'],
      body: Type.Object(
        {
          challenger_wallet: Type.String({ minLength: 1, maxLength: 64, description: "one of the caller's deposit addresses (GET /api/v1/funding/deposit-addresses)" }),
          stake_amount: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()], { description: `the stake in ${asset.symbol}: ${atoms(duelStakeAtomsMin)} to ${atoms(duelStakeAtomsMax)}` }),
          duration_hours: Type.Integer({ minimum: 1, maximum: duelHoursMax, description: 'how long the duel runs once accepted' }),
          market_id: Type.String({ minLength: 1, maxLength: 16, description: 'an exchange market by its symbol, e.g. eth (ETH/USDC)' }),
        },
        { additionalProperties: false },
      ),
      response: duelResponse,
      summary: `Challenge: holds stake_amount ${asset.symbol} and waits for an opponent until the acceptance deadline; once accepted, the better P&L on market_id's live fills over duration_hours takes both stakes minus the duel fee`,
      handler: (request): Later => {
        const userId = request.principal!.userId;
        const body = request.body;
        view.learn(userId);
        if (view.userOfWallet(body.challenger_wallet) !== userId) throw new ApiError(422, 'INVALID_WALLET', 'body.challenger_wallet: must be one of your deposit addresses');
        const pair = markets.pairBySymbol(body.market_id);
        if (pair === undefined || pair.slug !== body.market_id.toLowerCase()) throw new ApiError(404, 'MARKET_NOT_FOUND', `body.market_id: no exchange market ${JSON.stringify(body.market_id)}`);
        const stake = amountToAtoms(body.stake_amount, asset);
        if (stake.code !== Result.ok) refuse('body.stake_amount', stake.code);
        if (stake.value < duelStakeAtomsMin || stake.value > duelStakeAtomsMax) {
          throw new ApiError(422, 'INVALID_DUEL_STAKE', `body.stake_amount: must be ${atoms(duelStakeAtomsMin)} to ${atoms(duelStakeAtomsMax)} ${asset.symbol}`);
        }
        const duel: CreateDuel = { userId, pairId: pair.id, stakeAtoms: stake.value, durationMs: body.duration_hours * hourMs, acceptMs: settings.duelAcceptMs };
        return submit(request, domainCommand(GamesCommandType.createDuel, duel), GamesEventType.duelCreated, (event) => duelJson(view.duels.get(event.duelId!)!, userId));
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/games/duels/{id}/accept',
      name: 'accept_games_duel',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['DUEL_NOT_FOUND', 'DUEL_NOT_OPEN', 'OWN_DUEL', 'INSUFFICIENT_BALANCE', 'TOO_MANY_DUELS'],
      body: Type.Optional(Type.Object({}, { additionalProperties: false })),
      response: duelResponse,
      summary: 'Accept an open duel before its deadline: holds the same stake; the duel runs from now for its duration',
      handler: (request): Later => {
        const userId = request.principal!.userId;
        const duelId = idParam(request.params['id'], 'duel');
        return submit(request, domainCommand(GamesCommandType.acceptDuel, { userId, duelId }), GamesEventType.duelAccepted, () => duelJson(view.duels.get(duelId)!, userId));
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/games/duels',
      name: 'list_games_duels',
      tags,
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: object({ duels: Type.Array(duelResponse) }),
      summary: "The caller's duels, newest first: open, running, and those ended since the server started",
      handler: (request) => {
        const userId = request.principal!.userId;
        return { body: { duels: view.duelsOf(userId).map((duel) => duelJson(duel, userId)) } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v2/games/tournaments',
      name: 'list_games_tournaments',
      tags,
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: object({ tournaments: Type.Array(tournamentResponse) }),
      summary: 'Tournaments (public): scheduled ones taking entries, running ones, and the recently ended with their standings (rank by live traded volume; prizes 50/30/20 of the entry pool)',
      handler: (request) => {
        const userId = request.principal?.userId ?? null;
        return { body: { tournaments: [...view.tournaments.values()].reverse().map((tournament) => tournamentJson(tournament, userId)) } };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v2/games/tournaments/{id}/join',
      name: 'join_games_tournament',
      tags,
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      status: 201,
      errors: ['TOURNAMENT_NOT_FOUND', 'TOURNAMENT_CLOSED', 'TOURNAMENT_FULL', 'ALREADY_JOINED', 'INSUFFICIENT_BALANCE'],
      body: Type.Optional(Type.Object({}, { additionalProperties: false })),
      response: tournamentResponse,
      summary: 'Join a scheduled tournament before it starts: holds the entry fee (refunded if the tournament does not reach its minimum or nobody trades)',
      handler: (request): Later => {
        const userId = request.principal!.userId;
        const tournamentId = idParam(request.params['id'], 'tournament');
        return submit(request, domainCommand(GamesCommandType.joinTournament, { userId, tournamentId }), GamesEventType.tournamentJoined, () =>
          tournamentJson(view.tournaments.get(tournamentId)!, userId),
        );
      },
    }),
  ];
}
