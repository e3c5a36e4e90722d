/**
 * The dead-man's switch route: POST /api/v1/exchange/cancel-all-after {timeout_ms, mode}. It journals an
 * ArmCancelSwitch (engine/domains/cancel-switch): the deadline is the command's journaled time plus
 * timeout_ms, a new call replaces it (a renewal), and 0 disarms. When the runtime's clock passes the
 * deadline, the timers journal a RunTimers that cancels every open order of the caller in that mode, so
 * the deadline and the cancel survive a restart. Disarming a switch that is not armed answers armed false.
 *
 * GET /api/v1/exchange/cancel-all-after?mode= reads the caller's switch from a view fed by the durable
 * events (cancel-switch-view.ts): whether it is armed, its timeout, when it fires, and its last firing.
 */
import { Type } from '@sinclair/typebox';
import { Mode, modeNames } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { Result } from '../../engine/core/results.ts';
import {
  CancelSwitchCommandType,
  CancelSwitchEventType,
  CancelSwitchResult,
  cancelSwitchTimeoutMsMax,
  cancelSwitchTimeoutMsMin,
  type ArmCancelSwitch,
  type CancelSwitchArmed,
} from '../../engine/domains/cancel-switch/index.ts';
import type { ShellContext } from '../context.ts';
import type { ShellModule } from '../shell-module.ts';
import { CancelSwitchView } from './cancel-switch-view.ts';
import { ApiError, engineRefusal } from './errors.ts';
import { enqueue } from './exchange-orders.ts';
import { declareRoute, type Route } from './route-table.ts';
import { closed, modeField, nullable } from './schemas.ts';

const switchBody = {
  type: 'object',
  additionalProperties: false,
  required: ['timeout_ms'],
  properties: {
    timeout_ms: {
      type: 'integer',
      minimum: 0,
      maximum: cancelSwitchTimeoutMsMax,
      description: `0 disarms; otherwise ${cancelSwitchTimeoutMsMin}..${cancelSwitchTimeoutMsMax}: every open order is cancelled unless the switch is renewed within this time`,
    },
    mode: { enum: ['live', 'paper'], description: 'the account the switch guards; live when absent' },
  },
};

const switchAnswer = closed({
  armed: Type.Boolean(),
  mode: modeField,
  timeout_ms: Type.Integer({ minimum: 0, description: '0 when disarmed' }),
  deadline: nullable(Type.String({ format: 'date-time', description: 'when the orders are cancelled unless renewed (journaled time); null when disarmed' })),
  deadline_ms: nullable(Type.Integer({ description: 'the deadline in Unix milliseconds' })),
});

const switchState = closed({
  armed: Type.Boolean(),
  mode: modeField,
  timeout_ms: nullable(
    Type.Integer({ minimum: 0, description: 'the timeout the switch was last armed with; 0 when not armed; null when armed but a crash lost the record of it (arm again to set it)' }),
  ),
  deadline: nullable(Type.String({ format: 'date-time', description: 'the journaled deadline: every open order of the mode is cancelled then unless renewed; null when not armed' })),
  deadline_ms: nullable(Type.Integer({ description: 'the deadline in Unix milliseconds' })),
  last_fired_at: nullable(Type.String({ format: 'date-time', description: 'when the switch last fired (journaled time); null if it never did' })),
  last_cancelled_orders: nullable(Type.Integer({ minimum: 0, description: 'orders its last firing cancelled; null if it never fired' })),
});

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function cancelSwitchRoutes(context: ShellContext, view: CancelSwitchView): Route[] {
  return [
    declareRoute({
      method: 'GET',
      name: 'tp_clob_get_cancel_all_after',
      path: '/api/v1/exchange/cancel-all-after',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags: ['Exchange'],
      summary: "The caller's dead-man's switch in the mode (live unless mode=paper): armed or not, its timeout, when it fires, and its last firing, as durable events left it",
      query: Type.Object({ mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('paper')])) }, { additionalProperties: false }),
      response: switchState,
      handler: (request) => {
        const mode = request.query.mode === 'paper' ? Mode.paper : Mode.live;
        const state = view.state(request.principal!.userId, mode);
        return {
          body: {
            armed: state.armed,
            mode: modeNames[mode],
            timeout_ms: state.timeoutMs,
            deadline: isoOrNull(state.deadlineMs),
            deadline_ms: state.deadlineMs,
            last_fired_at: isoOrNull(state.firedAtMs),
            last_cancelled_orders: state.cancelledOrders,
          },
        };
      },
    }),
    {
      method: 'POST',
      name: 'tp_clob_cancel_all_after',
      path: '/api/v1/exchange/cancel-all-after',
      auth: 'bearer_or_key',
      permission: 'trade',
      rateLimit: 'orders',
      tags: ['Exchange'],
      errors: [],
      summary:
        `Dead-man's switch: unless renewed within timeout_ms (${cancelSwitchTimeoutMsMin}..${cancelSwitchTimeoutMsMax}), every open order of the caller in the mode is cancelled; ` +
        'each call replaces the deadline, 0 disarms. The deadline is journaled and survives a restart',
      body: switchBody,
      response: switchAnswer,
      handler: (request) => {
        const body = request.body as { timeout_ms: number; mode?: 'live' | 'paper' };
        const mode = body.mode === 'paper' ? Mode.paper : Mode.live;
        if (body.timeout_ms !== 0 && body.timeout_ms < cancelSwitchTimeoutMsMin) {
          throw new ApiError(422, 'VALIDATION_FAILED', `body.timeout_ms: must be 0 (disarm) or at least ${cancelSwitchTimeoutMsMin}`);
        }
        const arm: ArmCancelSwitch = { userId: request.principal!.userId, mode, timeoutMs: body.timeout_ms };
        const disarmed = { body: { armed: false, mode: modeNames[mode], timeout_ms: 0, deadline: null, deadline_ms: null } };
        return enqueue(context, request, domainCommand(CancelSwitchCommandType.arm, arm), (outcome) => {
          if (outcome.result === CancelSwitchResult.notArmed) return disarmed;
          if (outcome.result !== Result.ok) throw engineRefusal(outcome.result);
          let armed: CancelSwitchArmed | null = null;
          outcome.forEachEvent((event) => {
            if (event.kind === EventKind.domain && event.type === CancelSwitchEventType.armed) armed = event.body as CancelSwitchArmed;
          });
          if (armed === null) return disarmed;
          const { timeoutMs, deadlineMs } = armed as CancelSwitchArmed;
          return { body: { armed: true, mode: modeNames[mode], timeout_ms: timeoutMs, deadline: new Date(deadlineMs).toISOString(), deadline_ms: deadlineMs } };
        });
      },
    },
  ];
}

/** The switch's routes and the durable view the GET reads. */
export const cancelSwitchModule: ShellModule = {
  name: 'cancel-switch',
  create(context) {
    const view = new CancelSwitchView(context.durable.engine, context.identity.db);
    return { routes: cancelSwitchRoutes(context, view), onDurable: (batch) => view.onBatch(batch) };
  },
};
