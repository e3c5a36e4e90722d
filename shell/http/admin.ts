/**
 * Admin routes, enabled by ADMIN_API_KEY. In the embedded default they stand in for the chain: a credit
 * is the deposit a chain watcher would journal, and it goes through the sequencer like any command.
 */
import { CommandKind } from '../../engine/core/commands.ts';
import { Result, resultCode, resultMessage } from '../../engine/core/results.ts';
import { EventKind } from '../../engine/core/events.ts';
import { amountToAtoms, formatAtoms } from '../../engine/core/units.ts';
import { ApiError, engineRefusal } from './errors.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { keyView, tiers, type Tier } from '../auth/api-keys.ts';
import { Type } from '@sinclair/typebox';
import { apiKeyFields, closed, decimalString, nullable, userIdField } from './schemas.ts';

const tags = ['Admin'];
const count = (description: string) => Type.Integer({ minimum: 0, description });

const decimal = { oneOf: [{ type: 'string', maxLength: 40 }, { type: 'number' }] };

export function adminRoutes(context: ShellContext): Route[] {
  return [
    {
      method: 'POST',
      name: 'admin_credit',
      path: '/admin/v1/credit',
      auth: 'admin',
      rateLimit: 'none',
      tags,
      errors: [
        'UNKNOWN_ASSET',
        ...[
          Result.invalidNumber,
          Result.negativeValue,
          Result.zeroValue,
          Result.tooManyDecimals,
          Result.valueTooLarge,
          Result.balanceLimit,
          Result.tooManyAccounts,
        ].map(resultCode),
      ],
      summary: 'Credit a live account (the embedded chain simulator deposit); journaled',
      response: closed({
        user_id: userIdField,
        asset: Type.String(),
        amount: decimalString('the amount credited'),
        available: nullable(decimalString('the available balance as this credit left it')),
        seq: Type.Integer({ minimum: 1, description: 'the journaled command' }),
      }),
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['user_id', 'asset', 'amount'],
        properties: {
          user_id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          asset: { type: 'string', minLength: 1, maxLength: 16 },
          amount: decimal,
        },
      },
      handler: async (request) => {
        const body = request.body as { user_id: number; asset: string; amount: unknown };
        const asset = context.markets.assetBySymbol(body.asset);
        if (asset === undefined) throw new ApiError(404, 'UNKNOWN_ASSET', `no asset ${JSON.stringify(body.asset)}`);
        const amount = amountToAtoms(body.amount, asset);
        if (amount.code !== Result.ok) throw new ApiError(422, resultCode(amount.code), `amount: ${resultMessage(amount.code)}`);
        const submission = await context.durable.submit({
          kind: CommandKind.deposit,
          seq: 0,
          ts: 0,
          userId: body.user_id,
          mode: 0,
          assetId: asset.id,
          amountAtoms: amount.value,
        });
        if (submission.result !== Result.ok) throw engineRefusal(submission.result);
        // The balance as this very command left it, from its event (later commands may have moved it since).
        const changed = submission.events.find((event) => event.kind === EventKind.balanceChanged);
        return {
          body: {
            user_id: body.user_id,
            asset: asset.symbol,
            amount: formatAtoms(amount.value, asset),
            available: changed?.kind === EventKind.balanceChanged ? formatAtoms(changed.availableAtoms, asset) : null,
            seq: submission.seq,
          },
        };
      },
    },
    {
      method: 'GET',
      name: 'admin_stats',
      path: '/admin/v1/stats',
      auth: 'admin',
      rateLimit: 'none',
      tags,
      errors: [],
      summary: 'Counters of the running server: seqs, group commit (durable batches and commands), read-model lag, stream connections',
      response: closed({
        last_seq: count('the last seq handed out'),
        durable_seq: count('the last seq on disk'),
        durable_batches: count('journal batches made durable'),
        durable_commands: count('commands in them'),
        read_models_applied_seq: count('the last seq the read models committed'),
        read_models_lag_commands: count('commands the read models have still to write'),
        stream_connections: count('open WebSocket connections'),
        stream_coalesced_batches: count("durable batches whose stream messages went out with the next batch's, in one fan-out"),
        amm_quotes_journaled: count('AMM quotes journaled'),
        amm_quotes_refused: count('AMM quotes the engine refused'),
        amm_fills_sent: count('fills sent to the AMM workers'),
        amm_worker_restarts: count('AMM worker restarts'),
        amm_quote_us: Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.Number({ minimum: 0 }), { description: 'the last quote time in microseconds, by pool id' }),
      }),
      handler: () => {
        const sequencer = context.durable.sequencer;
        return {
          body: {
            last_seq: sequencer.lastSeq,
            durable_seq: sequencer.durableSeq,
            durable_batches: sequencer.durableBatches,
            durable_commands: sequencer.durableCommands,
            read_models_applied_seq: context.readModels.appliedSeq,
            read_models_lag_commands: context.readModels.lagCommands,
            stream_connections: context.streamConnections(),
            stream_coalesced_batches: context.streamFigures().reduce((sum, stream) => sum + stream.coalescedBatches, 0),
            amm_quotes_journaled: context.amm.stats.quotesSent,
            amm_quotes_refused: context.amm.stats.quotesRefused,
            amm_fills_sent: context.amm.stats.fillsSent,
            amm_worker_restarts: context.amm.stats.workerRestarts,
            amm_quote_us: Object.fromEntries(context.amm.stats.quoteUs),
          },
        };
      },
    },
    {
      method: 'PATCH',
      name: 'admin_update_api_key',
      path: '/admin/v1/api-keys/{key_id}',
      auth: 'admin',
      rateLimit: 'none',
      tags,
      errors: ['API_KEY_NOT_FOUND'],
      summary: "Set an API key's tier (STANDARD, PREMIUM, MARKET_MAKER, ADMIN), which sets its rate limits",
      response: closed({ ...apiKeyFields, user_id: userIdField }),
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['tier'],
        properties: { tier: { enum: [...tiers] } },
      },
      handler: (request) => {
        const id = Number(request.params['key_id']);
        const key = Number.isSafeInteger(id) && id > 0 ? context.identity.keys.setTier(id, (request.body as { tier: Tier }).tier) : null;
        if (key === null) throw new ApiError(404, 'API_KEY_NOT_FOUND', `no live API key ${JSON.stringify(request.params['key_id'])}`);
        context.log('api_key_tier_set', { api_key_id: key.id, user_id: key.userId, tier: key.tier });
        return { body: { ...keyView(key), user_id: key.userId } };
      },
    },
  ];
}
