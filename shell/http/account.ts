/** The caller's own account: balances and the portfolio, per mode. */
import { formatAtoms, formatSteps, type Markets, type Pair } from '../../engine/core/units.ts';
import { noAccount, type Ledger } from '../../engine/core/ledger.ts';
import type { Asset } from '../../engine/core/units.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { pairOf } from './exchange-public.ts';
import { paperStartingAtoms } from './paper.ts';
import { Type } from '@sinclair/typebox';
import { balanceSchema, closed, decimalString, modeField, nullable, pairField, symbolField, userIdField } from './schemas.ts';

const portfolioSchema = closed({
  user_id: userIdField,
  mode: modeField,
  valuation_asset: Type.String({ description: 'the asset values are given in (USDC)' }),
  total_value: decimalString('the value of every priced asset, in valuation_asset'),
  unpriced_assets: Type.Integer({ minimum: 0, description: 'assets held with no trade to price them, left out of the total' }),
  assets: Type.Array(
    closed({
      ...balanceSchema.properties,
      price: nullable(decimalString('last trade of ASSET/USDC (1 for USDC); null when it never traded')),
      value: nullable(decimalString('total × price in valuation_asset, rounded down; null when unpriced')),
    }),
    { description: 'every asset with a non-zero balance' },
  ),
  open_orders: Type.Array(closed({ pair: pairField, count: Type.Integer({ minimum: 1 }) }), { description: 'open orders per pair' }),
  positions: Type.Array(Type.Never(), { description: 'positions of the other domains: none are listed here yet' }),
});

/**
 * One asset's balance of an account: an account that does not exist yet has nothing, except a paper
 * account, which shows what it will open with.
 */
/** One asset's balance of an account as the balance routes and the private stream show it (a paper account not yet opened shows its starting balances). */
export function balanceRow(context: ShellContext, ledger: Ledger, account: number, mode: number, asset: Asset): Record<string, string> {
  const unopened = mode === 1 ? paperStartingAtoms(context, asset) : 0;
  const available = account === noAccount ? unopened : ledger.availableAtoms(account, asset.index);
  const held = account === noAccount ? 0 : ledger.heldAtoms(account, asset.index);
  return { asset: asset.symbol, available: formatAtoms(available, asset), held: formatAtoms(held, asset), total: formatAtoms(available + held, asset) };
}

/** The asset every portfolio is valued in. */
export const valuationSymbol = 'USDC';

/** The pair that prices `asset` in the valuation asset, if there is one. */
function valuationPair(markets: Markets, asset: Asset): Pair | undefined {
  return markets.pairs.find((pair) => pair.base === asset && pair.quote.symbol === valuationSymbol);
}

/**
 * `atoms` of a pair's base at `priceTicks`, in quote atoms, rounded down: atoms / 10^baseDecimals units
 * times priceTicks × tick, exactly, in BigInt (a whole balance at a high price leaves the safe range).
 */
function valueAtoms(pair: Pair, atoms: number, priceTicks: number): bigint {
  const numerator = BigInt(atoms) * BigInt(priceTicks) * pair.tick.mantissa * 10n ** BigInt(pair.quote.decimals);
  const denominator = 10n ** BigInt(pair.base.decimals + pair.tick.scale);
  return numerator / denominator;
}

/** Atoms held as a BigInt (a sum of values may pass the safe range) as a decimal string of the asset. */
function formatBigAtoms(atoms: bigint, asset: Asset): string {
  const digits = atoms.toString().padStart(asset.decimals + 1, '0');
  if (asset.decimals === 0) return digits;
  const cut = digits.length - asset.decimals;
  return `${digits.slice(0, cut)}.${digits.slice(cut)}`;
}

export function accountRoutes(context: ShellContext): Route[] {
  const modeQuery = { type: 'object', additionalProperties: false, properties: { mode: { enum: ['live', 'paper'] } } };
  return [
    {
      method: 'GET',
      name: 'get_portfolio',
      path: '/api/v1/account/me/portfolio',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      summary:
        'Portfolio of the caller, live or paper: every asset held with its price and value in USDC (last trade of ASSET/USDC), the total, open orders per pair, and positions',
      tags: ['Account'],
      errors: [],
      query: modeQuery,
      response: portfolioSchema,
      handler: (request) => {
        const userId = request.principal!.userId;
        const mode = request.query['mode'] === 'paper' ? 1 : 0;
        const engine = context.durable.engine;
        const ledger = engine.ledger;
        const account = ledger.find(userId, mode);
        const valuation = context.markets.assetBySymbol(valuationSymbol)!;
        let totalAtoms = 0n;
        let unpriced = 0;
        const assets = [];
        for (const asset of context.markets.assets) {
          const row = balanceRow(context, ledger, account, mode, asset);
          const atoms = account === noAccount ? (mode === 1 ? paperStartingAtoms(context, asset) : 0) : ledger.availableAtoms(account, asset.index) + ledger.heldAtoms(account, asset.index);
          if (atoms === 0) continue;
          let price: string | null = null;
          let value: bigint | null = null;
          if (asset === valuation) {
            price = '1';
            value = BigInt(atoms);
          } else {
            const pair = valuationPair(context.markets, asset);
            const lastTicks = pair === undefined ? -1 : context.marketData.lastPrice(pair);
            if (pair !== undefined && lastTicks > 0) {
              price = formatSteps(lastTicks, pair.tick);
              value = valueAtoms(pair, atoms, lastTicks);
            }
          }
          if (value === null) unpriced++;
          else totalAtoms += value;
          assets.push({ ...row, price, value: value === null ? null : formatBigAtoms(value, valuation) });
        }
        const openOrders = new Map<string, number>();
        for (const slot of engine.openOrderSlots(userId, mode)) {
          const pair = engine.contexts[engine.orders.context(slot)]!.pair;
          openOrders.set(pair.name, (openOrders.get(pair.name) ?? 0) + 1);
        }
        return {
          body: {
            user_id: userId,
            mode: mode === 1 ? 'paper' : 'live',
            valuation_asset: valuationSymbol,
            total_value: formatBigAtoms(totalAtoms, valuation),
            // Assets with no trade to price them are listed with null price and value and left out of the total.
            unpriced_assets: unpriced,
            assets,
            open_orders: [...openOrders].map(([pair, count]) => ({ pair, count })),
            // Positions of the other domains (prediction markets, perpetuals, vaults) join as those modules land.
            positions: [],
          },
        };
      },
    },
    {
      method: 'GET',
      name: 'get_balances',
      path: '/api/v1/account/me/balances',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      summary: 'Token balances of the caller (available, held in open orders, total), live or paper',
      tags: ['Account'],
      errors: [],
      query: modeQuery,
      response: closed({ user_id: userIdField, mode: modeField, balances: Type.Array(balanceSchema, { description: 'every asset of the platform, in asset order' }) }),
      handler: (request) => {
        const userId = request.principal!.userId;
        const mode = request.query['mode'] === 'paper' ? 1 : 0;
        const ledger = context.durable.engine.ledger;
        const account = ledger.find(userId, mode);
        const balances = context.markets.assets.map((asset) => balanceRow(context, ledger, account, mode, asset));
        return { body: { user_id: userId, mode: mode === 1 ? 'paper' : 'live', balances } };
      },
    },
    {
      method: 'GET',
      name: 'tp_clob_balance',
      path: '/api/v1/exchange/{symbol}/balance',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      summary: "Trading balance for a pair: the caller's base and quote (available, held, total)",
      tags: ['Exchange'],
      errors: ['PAIR_NOT_FOUND'],
      query: modeQuery,
      response: closed({ symbol: symbolField, pair: pairField, mode: modeField, base: balanceSchema, quote: balanceSchema }),
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const mode = request.query['mode'] === 'paper' ? 1 : 0;
        const ledger = context.durable.engine.ledger;
        const account = ledger.find(request.principal!.userId, mode);
        const base = balanceRow(context, ledger, account, mode, pair.base);
        const quote = balanceRow(context, ledger, account, mode, pair.quote);
        return { body: { symbol: pair.base.symbol, pair: pair.name, mode: mode === 1 ? 'paper' : 'live', base, quote } };
      },
    },
  ];
}
