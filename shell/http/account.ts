/** The caller's own account: balances per mode. */
import { formatAtoms } from '../../engine/core/units.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';

export function accountRoutes(context: ShellContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/account/me/balances',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      summary: 'Token balances of the caller (available, held in open orders, total), live or paper',
      query: { type: 'object', additionalProperties: false, properties: { mode: { enum: ['live', 'paper'] } } },
      handler: (request) => {
        const userId = request.principal!.userId;
        const mode = request.query['mode'] === 'paper' ? 1 : 0;
        const ledger = context.durable.engine.ledger;
        const account = ledger.find(userId, mode);
        const balances = context.markets.assets.map((asset) => {
          const available = account === noAccount ? 0 : ledger.availableAtoms(account, asset.index);
          const held = account === noAccount ? 0 : ledger.heldAtoms(account, asset.index);
          return { asset: asset.symbol, available: formatAtoms(available, asset), held: formatAtoms(held, asset), total: formatAtoms(available + held, asset) };
        });
        return { body: { user_id: userId, mode: mode === 1 ? 'paper' : 'live', balances } };
      },
    },
  ];
}
