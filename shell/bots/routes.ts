/**
 * The bots routes (the API specification's "Bots, clones and backtests"):
 *
 *   POST /api/v1/cloned-bots/clone                   clone a source bot (key); ?format=legacy: the older shape
 *   GET  /api/v1/cloned-bots/available               source bots, grouped by type (key)
 *   POST /api/v1/agents/clone                        clone an AI trading agent (bearer)
 *   POST /api/v1/backtest/bots/{slug}/run-backtest   queue a 30-day backtest (bearer)
 *   GET  /api/v1/backtest/runs/{run_id}              a run's status and, once completed, its results
 *
 * A clone is a new platform user owned by the caller (a users row with no password anyone knows, reached
 * only through its API key): it gets a wallet address, an API key and secret (read and trade, on its own
 * account only; shown once), and a journaled StartClone; the answer comes once that command is durable.
 * Clone refusals are nested under `detail`: {"detail":{"error":{"code","message"}}}.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { Mode } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { BotsCommandType, sourceTypeNames, type StartClone } from '../../engine/domains/bots/commands.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { ensurePaperAccount, paperStartingAtoms } from '../http/paper.ts';
import { declareRoute, type Reply, type RequestContext, type Route } from '../http/route-table.ts';
import { hashPassword } from '../auth/passwords.ts';
import type { Backtests } from './backtests.ts';
import { isUuid, type Catalogue, type SourceBot, type SourceTypeName } from './catalogue.ts';
import type { StrategyRunner } from './runner.ts';
import type { BotsStore } from './store.ts';
import { backtestDays, type BacktestInput } from './strategy.ts';
import { WalletGenerationError, type WalletGenerator } from './wallets.ts';

/** Seconds a client waits before retrying a failed wallet generation or a full backtest queue. */
export const walletRetryAfterS = 1;
export const backtestRetryAfterS = 30;

export interface BotsRoutesOptions {
  readonly context: ShellContext;
  readonly catalogue: Catalogue;
  readonly store: BotsStore;
  readonly wallets: WalletGenerator;
  readonly runner: StrategyRunner;
  readonly backtests: Backtests;
  readonly backtestRunsPerUser: number;
}

const errorShape = Type.Object({ code: Type.String(), message: Type.String() });
const cloneRecord = Type.Object({
  id: Type.String(),
  type: Type.String(),
  source_id: Type.String(),
  source_name: Type.String(),
  source_symbol: Type.String(),
  name: Type.String(),
  account_user_id: Type.Integer(),
  wallet_address: Type.String(),
  wallet_url: Type.String(),
  is_trading: Type.Boolean(),
  is_paper: Type.Boolean(),
  strategy_type: Type.String(),
  risk_profile: Type.String(),
  created_at: Type.String(),
  api_key: Type.String(),
  api_secret: Type.String(),
});
const legacyRecord = Type.Object({
  clone_id: Type.String(),
  source_bot_id: Type.String(),
  is_paper: Type.Boolean(),
  simulated_balance: Type.Number(),
  status: Type.String(),
  api_key: Type.String(),
  api_secret: Type.String(),
});
const cloneResponse = Type.Union([cloneRecord, legacyRecord, Type.Object({ detail: Type.Object({ error: errorShape }) })]);
const sourceEntry = Type.Object({
  source_type: Type.String(),
  source_id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  strategy_type: Type.String(),
  risk_profile: Type.String(),
  is_active: Type.Boolean(),
});
const runRecord = Type.Object({
  run_id: Type.String(),
  slug: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  window: Type.Object({ days: Type.Integer(), basis: Type.String() }),
  result: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});

/** A clone refusal in its nested shape. */
function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: { detail: { error: { code, message } } } };
}

export function botsRoutes(options: BotsRoutesOptions): Route[] {
  const { context, catalogue, store, wallets } = options;
  const { db, keys } = context.identity;
  const insertUser = db.prepare('INSERT INTO users (email, username, password_hash, created_at) VALUES (?, ?, ?, ?)');
  const deleteKeys = db.prepare('DELETE FROM api_keys WHERE user_id = ?');
  const deleteUser = db.prepare('DELETE FROM users WHERE id = ?');
  const usdc = context.markets.assetBySymbol('USDC');

  /**
   * Paper clones being made (owner and source): a second request for the same paper clone while the first
   * awaits its command is ALREADY_CLONED too, not a second clone.
   */
  const making = new Set<string>();

  /** Clones `source` for `ownerUserId`; answers once StartClone is durable. */
  const clone = async (request: RequestContext, ownerUserId: number, source: SourceBot, paper: boolean, legacy: boolean): Promise<Reply> => {
    if (!source.active) return refusal(409, 'SOURCE_INACTIVE', `${source.type} ${source.id} is not active and cannot be cloned`);
    const reservation = `${ownerUserId}:${source.id}`;
    if (paper && (making.has(reservation) || store.hasPaperClone(ownerUserId, source.id))) {
      return refusal(409, 'ALREADY_CLONED', `you already run a paper clone of ${source.type} ${source.id}`);
    }
    if (!paper) return make(request, ownerUserId, source, paper, legacy);
    making.add(reservation);
    try {
      return await make(request, ownerUserId, source, paper, legacy);
    } finally {
      making.delete(reservation);
    }
  };

  const make = async (request: RequestContext, ownerUserId: number, source: SourceBot, paper: boolean, legacy: boolean): Promise<Reply> => {
    let walletAddress: string;
    try {
      walletAddress = wallets.generate();
    } catch (error) {
      if (!(error instanceof WalletGenerationError)) throw error;
      return refusal(503, 'WALLET_GENERATION_RETRY', 'the clone\'s wallet could not be created; nothing was created, retry', { 'Retry-After': String(walletRetryAfterS) });
    }
    const cloneId = randomUUID();
    const createdAt = new Date(context.clock()).toISOString();
    // The clone's own account: no password anyone knows, so it is reached only through its key.
    const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
    const made = db.transaction(() => {
      const userId = Number(insertUser.run(`clone+${cloneId}@clones.invalid`, `clone_${cloneId}`, passwordHash, createdAt).lastInsertRowid);
      return { userId, key: keys.create(userId, `clone ${source.slug}`, ['read', 'trade'], 'STANDARD') };
    })();
    const mode = paper ? Mode.paper : Mode.live;
    if (paper) ensurePaperAccount(context, made.userId);
    const start: StartClone = { userId: made.userId, mode, sourceType: source.typeCode, sourceIndex: source.index };
    const outcome = await new Promise<{ result: ResultCode; error: Error | null }>((resolve) =>
      context.durable.enqueue(domainCommand(BotsCommandType.startClone, start), (done) => resolve({ result: done.result, error: done.error })),
    );
    if (outcome.error !== null || outcome.result !== Result.ok) {
      // Nothing of a refused clone stays: its key and account go again.
      db.transaction(() => {
        deleteKeys.run(made.userId);
        deleteUser.run(made.userId);
      })();
      if (outcome.error !== null) throw outcome.error;
      return refusal(429, resultCode(outcome.result), resultMessage(outcome.result));
    }
    const name = `${source.name} clone`;
    store.insertClone({
      id: cloneId,
      owner_user_id: ownerUserId,
      clone_user_id: made.userId,
      source_type: source.type,
      source_id: source.id,
      paper: paper ? 1 : 0,
      name,
      wallet_address: walletAddress,
      api_key_id: made.key.record.id,
      created_at: createdAt,
    });
    if (legacy) {
      return {
        body: {
          clone_id: cloneId,
          source_bot_id: source.id,
          is_paper: paper,
          simulated_balance: paper && usdc !== undefined ? paperStartingAtoms(context, usdc) / 10 ** usdc.decimals : 0,
          status: 'active',
          api_key: made.key.apiKey,
          api_secret: made.key.apiSecret,
        },
      };
    }
    const host = request.header('host') || `${context.config.host}:${context.config.port}`;
    return {
      body: {
        id: cloneId,
        type: source.type,
        source_id: source.id,
        source_name: source.name,
        source_symbol: source.symbol,
        name,
        account_user_id: made.userId,
        wallet_address: walletAddress,
        wallet_url: `http://${host}/api/v1/account/me/balances${paper ? '?mode=paper' : ''}`,
        is_trading: true,
        is_paper: paper,
        strategy_type: source.strategyType,
        risk_profile: source.riskProfile,
        created_at: createdAt,
        api_key: made.key.apiKey,
        api_secret: made.key.apiSecret,
      },
    };
  };

  const cloneErrors = ['ALREADY_CLONED', 'SOURCE_NOT_FOUND', 'SOURCE_INACTIVE', 'INVALID_SOURCE_TYPE', 'WALLET_GENERATION_RETRY', 'TOO_MANY_CLONES'];
  const runJson = (id: string) => {
    const row = store.run(id)!;
    return {
      run_id: row.id,
      slug: row.slug,
      status: row.status,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
      window: { days: backtestDays, basis: 'oracle daily closes' },
      result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>),
      error: row.error,
    };
  };

  return [
    declareRoute({
      method: 'POST',
      path: '/api/v1/cloned-bots/clone',
      name: 'clone_bot',
      tags: ['Bots'],
      auth: 'key',
      permission: 'trade',
      rateLimit: 'general',
      status: 200,
      errors: cloneErrors,
      query: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('current'), Type.Literal('legacy')])) }, { additionalProperties: false }),
      body: Type.Object(
        { source_type: Type.String({ maxLength: 64 }), source_id: Type.String({ maxLength: 64 }), paper: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
      response: cloneResponse,
      summary: 'Clone a source bot (wta_species, perpetual_agent or backtest_bot) into a new account of yours with its own wallet and API key (shown once); ?format=legacy gives the older shape',
      handler: (request) => {
        const body = request.body;
        if (!(sourceTypeNames as readonly string[]).includes(body.source_type)) {
          return refusal(422, 'INVALID_SOURCE_TYPE', `body.source_type: must be one of ${sourceTypeNames.join(', ')}`);
        }
        const source = catalogue.byId(body.source_id);
        if (source === undefined || source.type !== (body.source_type as SourceTypeName)) {
          return refusal(404, 'SOURCE_NOT_FOUND', `no ${body.source_type} with id ${JSON.stringify(body.source_id)}`);
        }
        return clone(request, request.principal!.userId, source, body.paper ?? true, request.query.format === 'legacy');
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/cloned-bots/available',
      name: 'list_cloneable_bots',
      tags: ['Bots'],
      auth: 'key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: Type.Object({ wta_species: Type.Array(sourceEntry), perpetual_agent: Type.Array(sourceEntry), backtest_bot: Type.Array(sourceEntry) }),
      summary: 'Source bots that may be cloned, grouped by source type: one entry (source_type, source_id) per bot, with is_active',
      handler: () => {
        const groups: Record<SourceTypeName, Array<Record<string, unknown>>> = { wta_species: [], perpetual_agent: [], backtest_bot: [] };
        for (const source of catalogue.sources) {
          groups[source.type].push({
            source_type: source.type,
            source_id: source.id,
            slug: source.slug,
            name: source.name,
            symbol: source.symbol,
            strategy_type: source.strategyType,
            risk_profile: source.riskProfile,
            is_active: source.active,
          });
        }
        return { body: groups };
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/agents/clone',
      name: 'clone_agent',
      tags: ['Bots'],
      auth: 'bearer',
      rateLimit: 'general',
      status: 200,
      errors: ['AGENT_NOT_FOUND', ...cloneErrors],
      query: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('current'), Type.Literal('legacy')])) }, { additionalProperties: false }),
      body: Type.Object({ agent_id: Type.String({ minLength: 1, maxLength: 64 }), paper: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: cloneResponse,
      summary: 'Clone an AI trading agent (agent_id: its UUID or slug, e.g. ai-fund) into a new account of yours; paper defaults to true; answers the cloned bot record',
      handler: (request) => {
        const agent = catalogue.agent(request.body.agent_id);
        if (agent === undefined) return refusal(404, 'AGENT_NOT_FOUND', `no AI agent ${JSON.stringify(request.body.agent_id)}`);
        return clone(request, request.principal!.userId, agent.source, request.body.paper ?? true, request.query.format === 'legacy');
      },
    }),
    declareRoute({
      method: 'POST',
      path: '/api/v1/backtest/bots/{slug}/run-backtest',
      name: 'run_backtest',
      tags: ['Bots'],
      auth: 'bearer',
      rateLimit: 'general',
      status: 200,
      errors: ['BOT_NOT_FOUND', 'BACKTEST_QUEUE_FULL', 'TOO_MANY_BACKTESTS'],
      response: Type.Object({ run_id: Type.String(), status: Type.Literal('queued'), slug: Type.String() }),
      summary: `Queue a backtest of a paper-trading bot (backtest_bot) over the oracle's last ${backtestDays} daily closes; poll GET /api/v1/backtest/runs/{run_id}`,
      handler: (request) => {
        const slug = request.params['slug'] ?? '';
        const source = catalogue.bySlug(slug);
        if (source === undefined || source.type !== 'backtest_bot') throw new ApiError(404, 'BOT_NOT_FOUND', `no backtest bot ${JSON.stringify(slug)}`);
        const userId = request.principal!.userId;
        const retry = { 'Retry-After': String(backtestRetryAfterS) };
        if (store.activeRunsOf(userId) >= options.backtestRunsPerUser) {
          throw new ApiError(429, 'TOO_MANY_BACKTESTS', `at most ${options.backtestRunsPerUser} of your backtests may wait or run at once`, retry);
        }
        if (options.backtests.full) throw new ApiError(429, 'BACKTEST_QUEUE_FULL', 'the backtest queue is full; retry later', retry);
        const closes = options.runner.prices.prices.closes(source.symbol, backtestDays + source.lookbackDays - 1);
        const input: BacktestInput = { strategy: source.strategyType, lookbackDays: source.lookbackDays, closesE8: closes?.closesE8 ?? [], firstDay: closes?.firstDay ?? 0 };
        const runId = randomUUID();
        options.backtests.enqueue(runId, userId, slug, input);
        return { body: { run_id: runId, status: 'queued', slug } };
      },
    }),
    declareRoute({
      method: 'GET',
      path: '/api/v1/backtest/runs/{run_id}',
      name: 'get_backtest_run',
      tags: ['Bots'],
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      status: 200,
      errors: ['RUN_NOT_FOUND'],
      response: runRecord,
      summary: 'A backtest run: status (queued, running, completed, failed) and, once completed, return, trades, win rate, Sharpe, max drawdown and the equity curve',
      handler: (request) => {
        const id = request.params['run_id'] ?? '';
        const row = isUuid(id) ? store.run(id) : undefined;
        if (row === undefined || row.user_id !== request.principal!.userId) throw new ApiError(404, 'RUN_NOT_FOUND', `no backtest run ${JSON.stringify(id)}`);
        return { body: runJson(id) };
      },
    }),
  ];
}
