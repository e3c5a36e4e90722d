/**
 * The dead-man's switches as durable batches left them: what GET /api/v1/exchange/cancel-all-after shows.
 * It is fed with the cancel switch's durable events (CancelSwitchArmed, CancelSwitchDisarmed,
 * CancelSwitchFired), never read from the live engine, so it shows nothing a crash could take back.
 *
 * Each account's record is kept in the identity database (table cancel_switch_view): the engine's own
 * state has the deadline only, and a reader also wants the timeout the switch was armed with and how its
 * last firing went, which must outlive a restart. At start the records are squared with the recovered
 * engine (everything recovered is durable): the engine's deadlines are the truth, and a record whose write
 * a crash lost between the journal and this table is corrected from them (its timeout is then unknown,
 * null, until the switch is armed again).
 */
import type { Engine } from '../../engine/core/engine.ts';
import {
  cancelSwitchesOf,
  CancelSwitchEventType,
  type CancelSwitchArmed,
  type CancelSwitchDisarmed,
  type CancelSwitchFired,
} from '../../engine/domains/cancel-switch/index.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import type { Db } from '../store/database.ts';

/** One account's switch as the view knows it. */
export interface CancelSwitchState {
  readonly armed: boolean;
  /** The timeout of the current arming; 0 when not armed; null when armed but a crash lost the record of its timeout. */
  readonly timeoutMs: number | null;
  /** The journaled deadline; null when not armed. */
  readonly deadlineMs: number | null;
  /** When the switch last fired (the RunTimers' journaled time) and how many orders it cancelled; null if never. */
  readonly firedAtMs: number | null;
  readonly cancelledOrders: number | null;
}

interface Row {
  timeout_ms: number | null;
  deadline_ms: number | null;
  fired_at_ms: number | null;
  cancelled_orders: number | null;
}

const neverArmed: CancelSwitchState = { armed: false, timeoutMs: 0, deadlineMs: null, firedAtMs: null, cancelledOrders: null };

export class CancelSwitchView {
  private readonly read;
  private readonly armStatement;
  private readonly disarmStatement;
  private readonly fireStatement;

  constructor(
    engine: Engine,
    private readonly db: Db,
  ) {
    this.read = db.prepare('SELECT timeout_ms, deadline_ms, fired_at_ms, cancelled_orders FROM cancel_switch_view WHERE user_id = ? AND mode = ?');
    this.armStatement = db.prepare(
      `INSERT INTO cancel_switch_view (user_id, mode, timeout_ms, deadline_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, mode) DO UPDATE SET timeout_ms = excluded.timeout_ms, deadline_ms = excluded.deadline_ms`,
    );
    this.disarmStatement = db.prepare('UPDATE cancel_switch_view SET timeout_ms = 0, deadline_ms = NULL WHERE user_id = ? AND mode = ?');
    this.fireStatement = db.prepare(
      `INSERT INTO cancel_switch_view (user_id, mode, timeout_ms, deadline_ms, fired_at_ms, cancelled_orders) VALUES (?, ?, 0, NULL, ?, ?)
       ON CONFLICT (user_id, mode) DO UPDATE SET timeout_ms = 0, deadline_ms = NULL, fired_at_ms = excluded.fired_at_ms, cancelled_orders = excluded.cancelled_orders`,
    );
    this.recover(engine);
  }

  /** Squares the stored records with the recovered engine's deadlines, in one transaction. */
  private recover(engine: Engine): void {
    const db = this.db;
    const switches = cancelSwitchesOf(engine).snapshot()?.switches ?? [];
    const armed = new Map<string, number>();
    for (let index = 0; index < switches.length; index += 3) armed.set(`${switches[index]}:${switches[index + 1]}`, switches[index + 2]!);
    const stale = db.prepare('SELECT user_id, mode, deadline_ms FROM cancel_switch_view WHERE deadline_ms IS NOT NULL').all() as Array<{ user_id: number; mode: number; deadline_ms: number }>;
    const unknownTimeout = db.prepare(
      `INSERT INTO cancel_switch_view (user_id, mode, timeout_ms, deadline_ms) VALUES (?, ?, NULL, ?)
       ON CONFLICT (user_id, mode) DO UPDATE SET timeout_ms = NULL, deadline_ms = excluded.deadline_ms`,
    );
    db.transaction(() => {
      // Armed here but not in the engine: the disarm or firing was journaled, its record lost.
      for (const row of stale) if (!armed.has(`${row.user_id}:${row.mode}`)) this.disarmStatement.run(row.user_id, row.mode);
      for (const [key, deadlineMs] of armed) {
        const [userId, mode] = key.split(':').map(Number) as [number, number];
        const row = this.read.get(userId, mode) as Row | undefined;
        if (row?.deadline_ms !== deadlineMs) unknownTimeout.run(userId, mode, deadlineMs);
      }
    })();
  }

  /** A durable batch's cancel switch events, written in order (one transaction per batch that has any). */
  onBatch(batch: DurableBatch): void {
    // The numbers are copied out: a batch's event objects may be reused while it is read.
    const changes: Array<readonly [type: number, userId: number, mode: number, a: number, b: number]> = [];
    batch.forEachDomainEvent((event) => {
      if (event.type === CancelSwitchEventType.armed) {
        const body = event.body as CancelSwitchArmed;
        changes.push([event.type, body.userId, body.mode, body.timeoutMs, body.deadlineMs]);
      } else if (event.type === CancelSwitchEventType.disarmed) {
        const body = event.body as CancelSwitchDisarmed;
        changes.push([event.type, body.userId, body.mode, 0, 0]);
      } else if (event.type === CancelSwitchEventType.fired) {
        const body = event.body as CancelSwitchFired;
        changes.push([event.type, body.userId, body.mode, body.firedMs, body.cancelledOrders]);
      }
    });
    if (changes.length === 0) return;
    this.db.transaction(() => {
      for (const [type, userId, mode, a, b] of changes) {
        if (type === CancelSwitchEventType.armed) this.armStatement.run(userId, mode, a, b);
        else if (type === CancelSwitchEventType.disarmed) this.disarmStatement.run(userId, mode);
        else this.fireStatement.run(userId, mode, a, b);
      }
    })();
  }

  /** The switch of (user, mode) as the durable events left it. */
  state(userId: number, mode: number): CancelSwitchState {
    const row = this.read.get(userId, mode) as Row | undefined;
    if (row === undefined) return neverArmed;
    return {
      armed: row.deadline_ms !== null,
      timeoutMs: row.deadline_ms === null ? 0 : row.timeout_ms,
      deadlineMs: row.deadline_ms,
      firedAtMs: row.fired_at_ms,
      cancelledOrders: row.cancelled_orders,
    };
  }
}
