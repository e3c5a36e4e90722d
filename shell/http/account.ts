/** The caller's own account: balances per mode. */
import { formatAtoms } from '../../engine/core/units.ts';
import { noAccount, type Ledger } from '../../engine/core/ledger.ts';
import type { Asset } from '../../engine/core/units.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { pairOf } from './exchange-public.ts';

/** One asset's balance of an account (zeros for an account that does not exist yet). */
function balanceRow(ledger: Ledger, account: number, asset: Asset): Record<string, string> {
  const available = account === noAccount ? 0 : ledger.availableAtoms(account, asset.index);
  const held = account === noAccount ? 0 : ledger.heldAtoms(account, asset.index);
  return { asset: asset.symbol, available: formatAtoms(available, asset), held: formatAtoms(held, asset), total: formatAtoms(available + held, asset) };
}

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
        const balances = context.markets.assets.map((asset) => balanceRow(ledger, account, asset));
        return { body: { user_id: userId, mode: mode === 1 ? 'paper' : 'live', balances } };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/exchange/{symbol}/balance',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      summary: 'Trading balance for a pair: the caller s base and quote (available, held, total)',
      query: { type: 'object', additionalProperties: false, properties: { mode: { enum: ['live', 'paper'] } } },
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const mode = request.query['mode'] === 'paper' ? 1 : 0;
        const ledger = context.durable.engine.ledger;
        const account = ledger.find(request.principal!.userId, mode);
        const base = balanceRow(ledger, account, pair.base);
        const quote = balanceRow(ledger, account, pair.quote);
        return { body: { symbol: pair.base.symbol, pair: pair.name, mode: mode === 1 ? 'paper' : 'live', base, quote } };
      },
    },
  ];
}
