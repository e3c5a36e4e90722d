/**
 * The promo status (a ShellModule of one route):
 *
 *   GET /api/v1/promo/status   fees now (taker, maker, maker rebates) and each earning mechanism, active
 *                              only once it has paid, with the time of its first payment
 *
 * The fees are the engine's settings; maker rebates are paused (the maker fee is never negative). The
 * first payments come from durable events (mechanisms.ts) and are kept in DATA_DIR/promo.sqlite, so they
 * outlive a restart.
 */
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { declareRoute } from '../http/route-table.ts';
import type { ShellModule } from '../shell-module.ts';
import { openSqlite } from '../store/database.ts';
import { earningMechanisms } from './mechanisms.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

export const promoModule: ShellModule = {
  name: 'promo',
  create(context) {
    const db = openSqlite(join(context.config.dataDir, 'promo.sqlite'), ['CREATE TABLE first_paid (name TEXT PRIMARY KEY, first_paid_ms INTEGER NOT NULL) WITHOUT ROWID;']);
    const insert = db.prepare('INSERT OR IGNORE INTO first_paid (name, first_paid_ms) VALUES (?, ?)');
    const firstPaid = new Map<string, number>((db.prepare('SELECT name, first_paid_ms FROM first_paid').all() as Array<{ name: string; first_paid_ms: number }>).map((row) => [row.name, row.first_paid_ms]));
    const route = declareRoute({
      method: 'GET',
      path: '/api/v1/promo/status',
      name: 'get_promo_status',
      tags: ['Rewards'],
      auth: 'none',
      rateLimit: 'general',
      status: 200,
      errors: [],
      response: Type.Object({
        taker_fee_bps: Type.Integer(),
        maker_fee_bps: Type.Integer(),
        maker_rebates: Type.Literal('paused'),
        mechanisms: Type.Array(Type.Object({ name: Type.String(), active: Type.Boolean(), first_paid_at: Type.Union([Type.String(), Type.Null()]), paid_when: Type.String() })),
      }),
      summary: 'Fees (taker and maker bps; maker rebates paused) and each earning mechanism: active only once it has paid at least once, with first_paid_at from durable events',
      handler: () => {
        const settings = context.durable.engine.settings;
        return {
          body: {
            taker_fee_bps: settings.takerFeeBps,
            maker_fee_bps: settings.makerFeeBps,
            maker_rebates: 'paused' as const,
            mechanisms: earningMechanisms.map((mechanism) => {
              const paidMs = firstPaid.get(mechanism.name);
              return { name: mechanism.name, active: paidMs !== undefined, first_paid_at: paidMs === undefined ? null : iso(paidMs), paid_when: mechanism.paidWhen };
            }),
          },
        };
      },
    });
    return {
      routes: [route],
      onDurable: (batch) =>
        batch.forEachEvent((event, _seq, ts) => {
          for (const mechanism of earningMechanisms) {
            if (firstPaid.has(mechanism.name) || !mechanism.paidBy(event)) continue;
            firstPaid.set(mechanism.name, ts);
            insert.run(mechanism.name, ts);
          }
        }),
      close: () => {
        db.close();
      },
    };
  },
};
