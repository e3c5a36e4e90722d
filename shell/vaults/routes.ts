/**
 * The vaults' routes (README "Strategy vaults"):
 *
 *   GET  /api/v1/vaults/list                              every public vault with NAV, share price, AUM
 *   GET  /api/v1/vaults/featured                          the featured ones
 *   GET  /api/v1/vaults/my-positions                      the caller's holdings (bearer|key)
 *   GET  /api/v1/vaults/performance/{vault}               returns, volatility, Sharpe, drawdown from NAV history
 *   GET  /api/v1/vaults/backtest-performance/{vault}      the strategy over the oracle's 365 daily closes
 *   GET  /api/v1/vaults/{vault}                           strategy, NAV, share price, AUM, holders, positions
 *   GET  /api/v1/vaults/{vault}/position                  the caller's shares, value, cost basis, P&L (bearer|key)
 *   POST /api/v1/vaults/{vault}/deposit                   {amount_usdc} (bearer)
 *   POST /api/v1/vaults/{vault}/withdraw                  {amount_usdc} or {shares} (bearer)
 *   GET  /api/v1/vaults/{vault}/share-info                the AI fund's (any vault's) share price, NAV, AUM, shares
 *   POST /api/v1/vaults/{vault}/buy-shares                {amount_usdc} (bearer): a deposit
 *   POST /api/v1/vaults/{vault}/sell-shares               {shares} (bearer): a withdrawal by shares
 *   GET  /api/v1/vaults/{vault}/my-shares, /pnl, /positions
 *   POST /api/v1/paper-vaults, GET /api/v1/paper-vaults, GET /api/v1/paper-vaults/{id},
 *   POST /api/v1/paper-vaults/{id}/deposit, /withdraw, GET /api/v1/paper-vaults/{id}/trades (bearer|key)
 *
 * {vault} is a public vault's address (0x + 40 hex) or slug; paper vaults are reached only under
 * /paper-vaults by their owner (anyone else gets 404). Writes answer after their command is durable, from
 * the command's own events; reads come from the durable view.
 */
import { randomUUID } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';
import { domainCommand } from '../../engine/core/domain.ts';
import { EventKind } from '../../engine/core/events.ts';
import { Result, resultCode, resultMessage, type ResultCode } from '../../engine/core/results.ts';
import { simTxHash, type SimHashDomain } from '../../engine/core/sim-hash.ts';
import { amountToAtoms, formatAtoms, formatSteps, newConversion, parseStep, toSteps, type Asset, type Pair } from '../../engine/core/units.ts';
import {
  Strategy,
  VaultsCommandType,
  VaultsEventType,
  VaultsResult,
  amountAtomsMax,
  amountAtomsMin,
  assetsForShares,
  baseValueAtoms,
  isIdempotencyKey,
  strategyNames,
  vaultsDomainId,
  virtualAssets,
  virtualShares,
  type VaultFlow,
} from '../../engine/domains/vaults/commands.ts';
import type { ShellContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { ensurePaperAccount } from '../http/paper.ts';
import { declareRoute, type RequestContext, type Route } from '../http/route-table.ts';
import { formatPriceE8 } from '../prices/records.ts';
import type { VaultMeta } from './fixture.ts';
import { backtest, backtestDays, dayMs, metricsOf } from './metrics.ts';
import type { HolderView, VaultView, VaultsView } from './view.ts';

const tags = ['Strategy vaults'];
const iso = (ms: number): string => new Date(ms).toISOString();
/** Shares are shown in whole shares of 10^9 units: a first deposit of 1 USDC mints 1 share. */
export const shareStep = parseStep('0.000000001');
const shareUnits = 1_000_000_000n;
/** Paper vaults one user may own. */
export const paperVaultsPerUserMax = 10;
/** The sim_tx_hash of a paper vault's trade derives from its order id, in a hash domain of the vaults' range. */
const paperTradeHashDomain = (vaultsDomainId * 1000 + 1) as SimHashDomain;

export interface VaultRoutesOptions {
  readonly context: ShellContext;
  readonly view: VaultsView;
  readonly metas: readonly VaultMeta[];
}

const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const text = Type.String();
const decimalInput = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()]);
const metricsSchema = Type.Object({
  return_1d: nullable(text),
  return_7d: nullable(text),
  return_30d: nullable(text),
  return_all: nullable(text),
  volatility_annualised: nullable(text),
  sharpe: nullable(text),
  max_drawdown: nullable(text),
  points: Type.Integer(),
});
const vaultSchema = Type.Object({
  id: text,
  address: nullable(text),
  slug: text,
  name: text,
  strategy: text,
  pair: text,
  pairs: Type.Array(text),
  nav: text,
  share_price: text,
  aum: text,
  shares_outstanding: text,
  holders: Type.Integer(),
  mode: text,
  updated_at: text,
});
const positionSchema = Type.Object({ vault: text, shares: text, value: text, cost_basis: text, pnl: text, mode: text });
const flowSchema = Type.Object({
  vault: text,
  kind: text,
  amount_usdc: text,
  shares: text,
  share_price: text,
  position: positionSchema,
  idempotency_key: text,
  replayed: Type.Boolean(),
  created_at: text,
});
const tradeSchema = Type.Object({ order_id: text, pair: text, side: text, quantity: text, notional: text, price: nullable(text), unwind: Type.Boolean(), timestamp: text });

/** HTTP status of a vault refusal. */
function statusOf(result: ResultCode): number {
  switch (result) {
    case VaultsResult.vaultNotFound:
      return 404;
    case VaultsResult.insufficientShares:
    case VaultsResult.illiquid:
    case VaultsResult.duplicateKey:
    case VaultsResult.unpriced:
      return 409;
    case VaultsResult.full:
    case Result.tooManyAccounts:
      return 429;
    default:
      return 422;
  }
}

const refusal = (result: ResultCode): ApiError => new ApiError(statusOf(result), resultCode(result), resultMessage(result));

export function vaultRoutes(options: VaultRoutesOptions): Route[] {
  const { context, view, metas } = options;
  const metaOf = (slug: string): VaultMeta | undefined => metas.find((meta) => meta.slug === slug);
  const pairsOf = (vault: VaultView): Pair[] => vault.pairIds.map((pairId) => context.markets.pairById(pairId)!);
  const quoteOf = (vault: VaultView): Asset => pairsOf(vault)[0]!.quote;

  /** Quote atoms per whole share, rounded down (the virtual offset included, as the engine prices shares). */
  const sharePriceAtoms = (navAtoms: number, totalShares: number): number => Number((BigInt(navAtoms + virtualAssets) * shareUnits) / BigInt(totalShares + virtualShares));
  const shares = (units: number): string => formatSteps(units, shareStep);

  const publicVault = (key: string | undefined): VaultView => {
    const wanted = (key ?? '').toLowerCase();
    const meta = metas.find((entry) => entry.address === wanted || entry.slug === wanted);
    const vault = view.bySlug(meta?.slug ?? wanted);
    if (vault === undefined || vault.ownerUserId !== 0) throw new ApiError(404, 'VAULT_NOT_FOUND', `no vault ${JSON.stringify(key ?? '')}`);
    return vault;
  };

  const paperVault = (request: RequestContext): VaultView => {
    const vault = view.bySlug(request.params['id'] ?? '');
    if (vault === undefined || vault.ownerUserId === 0 || vault.ownerUserId !== request.principal!.userId) {
      throw new ApiError(404, 'VAULT_NOT_FOUND', `no paper vault ${JSON.stringify(request.params['id'] ?? '')} of yours`);
    }
    return vault;
  };

  const vaultJson = (vault: VaultView): Record<string, unknown> => {
    const meta = metaOf(vault.slug);
    const quote = quoteOf(vault);
    return {
      id: vault.slug,
      address: meta?.address ?? null,
      slug: vault.slug,
      name: meta?.name ?? vault.slug,
      strategy: strategyNames[vault.strategy],
      pair: pairsOf(vault)
        .map((pair) => pair.name)
        .join(','),
      pairs: pairsOf(vault).map((pair) => pair.name),
      nav: formatAtoms(vault.navAtoms, quote),
      share_price: formatAtoms(sharePriceAtoms(vault.navAtoms, vault.totalShares), quote),
      aum: formatAtoms(vault.navAtoms, quote),
      shares_outstanding: shares(vault.totalShares),
      holders: vault.holders.size,
      mode: vault.mode === 1 ? 'paper' : 'live',
      updated_at: iso(vault.updatedMs),
    };
  };

  const holdingsJson = (vault: VaultView): Record<string, unknown>[] => {
    const quote = quoteOf(vault);
    return [
      { asset: quote.symbol, quantity: formatAtoms(vault.cashAtoms, quote), price: '1', value: formatAtoms(vault.cashAtoms, quote) },
      ...pairsOf(vault).map((pair, index) => {
        const baseAtoms = vault.baseAtoms[index] ?? 0;
        const priceE8 = vault.pricesE8[index] ?? 0;
        return {
          asset: pair.base.symbol,
          quantity: formatAtoms(baseAtoms, pair.base),
          price: priceE8 > 0 ? formatPriceE8(priceE8) : null,
          value: formatAtoms(priceE8 > 0 ? baseValueAtoms(baseAtoms, priceE8, pair.base.decimals, pair.quote.decimals) : 0, pair.quote),
        };
      }),
    ];
  };

  const positionJson = (vault: VaultView, holder: HolderView | undefined): Record<string, string> => {
    const quote = quoteOf(vault);
    const held = holder ?? { shares: 0, costAtoms: 0 };
    const value = assetsForShares(held.shares, vault.totalShares, vault.navAtoms);
    return {
      vault: vault.slug,
      shares: shares(held.shares),
      value: formatAtoms(value, quote),
      cost_basis: formatAtoms(held.costAtoms, quote),
      pnl: (value < held.costAtoms ? '-' : '') + formatAtoms(Math.abs(value - held.costAtoms), quote),
      mode: vault.mode === 1 ? 'paper' : 'live',
    };
  };

  const tradeJson = (vault: VaultView, trade: VaultView['trades'][number]): Record<string, unknown> => {
    const pair = context.markets.pairById(trade.pairId)!;
    return {
      order_id: String(trade.orderId),
      pair: pair.name,
      side: trade.side === 0 ? 'buy' : 'sell',
      quantity: formatSteps(trade.filledLots, pair.lot),
      notional: formatAtoms(trade.filledNotionalAtoms, pair.quote),
      price: trade.filledLots > 0 ? formatSteps(Math.floor(trade.filledNotionalAtoms / trade.filledLots / pair.quoteAtomsPerTickLot), pair.tick) : null,
      unwind: trade.unwind,
      timestamp: iso(trade.ms),
      ...(vault.mode === 1 ? { sim_tx_hash: simTxHash(paperTradeHashDomain, trade.orderId) } : {}),
    };
  };

  const performanceJson = (vault: VaultView): Record<string, unknown> => {
    const series = vault.history.map((point) => ({ ms: point.ms, value: sharePriceAtoms(point.navAtoms, point.totalShares) }));
    return { vault: vault.slug, since: vault.history.length > 0 ? iso(vault.history[0]!.ms) : null, ...metricsOf(series) };
  };

  const keyOf = (request: RequestContext): string => {
    const header = request.header('idempotency-key');
    if (header === '') return randomUUID();
    if (!isIdempotencyKey(header)) throw new ApiError(422, 'INVALID_IDEMPOTENCY_KEY', `header Idempotency-Key: ${resultMessage(VaultsResult.invalidKey)}`);
    return header;
  };

  const amountOf = (field: string, input: unknown, vault: VaultView): number => {
    const quote = quoteOf(vault);
    const amount = amountToAtoms(input, quote);
    if (amount.code !== Result.ok) throw new ApiError(422, resultCode(amount.code), `${field}: ${resultMessage(amount.code)}`);
    if (amount.value < amountAtomsMin || amount.value > amountAtomsMax) {
      throw new ApiError(422, 'INVALID_VAULT_AMOUNT', `${field}: must be ${formatAtoms(amountAtomsMin, quote)} to ${formatAtoms(amountAtomsMax, quote)} ${quote.symbol}`);
    }
    return amount.value;
  };

  const sharesOf = (field: string, input: unknown): number => {
    const parsed = toSteps(input, shareStep, false, Result.invalidCommand, newConversion());
    if (parsed.code !== Result.ok || parsed.value < 1) throw new ApiError(422, 'INVALID_VAULT_AMOUNT', `${field}: must be a positive number of shares with at most 9 decimals`);
    return parsed.value;
  };

  const flowJson = (vault: VaultView, kind: 'deposit' | 'withdraw', flow: VaultFlow, ms: number, replayed: boolean): Record<string, unknown> => {
    const quote = quoteOf(vault);
    const afterNav = flow.navAtoms;
    return {
      vault: vault.slug,
      kind,
      amount_usdc: formatAtoms(flow.amountAtoms, quote),
      shares: shares(flow.shares),
      share_price: formatAtoms(sharePriceAtoms(afterNav, flow.totalShares), quote),
      position: {
        vault: vault.slug,
        shares: shares(flow.holderShares),
        value: formatAtoms(assetsForShares(flow.holderShares, flow.totalShares, afterNav), quote),
        cost_basis: formatAtoms(flow.holderCostAtoms, quote),
        pnl: (() => {
          const value = assetsForShares(flow.holderShares, flow.totalShares, afterNav);
          return (value < flow.holderCostAtoms ? '-' : '') + formatAtoms(Math.abs(value - flow.holderCostAtoms), quote);
        })(),
        mode: vault.mode === 1 ? 'paper' : 'live',
      },
      idempotency_key: flow.idempotencyKey,
      replayed,
      created_at: iso(ms),
    };
  };

  /** Submits a deposit or withdrawal; a repeated key answers the first result (from the durable view). */
  const submitFlow = async (vault: VaultView, kind: 'deposit' | 'withdraw', userId: number, key: string, body: Record<string, number>): Promise<{ status: number; body: unknown }> => {
    const type = kind === 'deposit' ? VaultsCommandType.deposit : VaultsCommandType.withdraw;
    const event = kind === 'deposit' ? VaultsEventType.deposited : VaultsEventType.withdrawn;
    const command = { vaultId: vault.vaultId, userId, idempotencyKey: key, ...body };
    // One command: a withdrawal beyond the free cash unwinds and pays in it, or is refused unchanged.
    const submission = await context.durable.submit(domainCommand(type, command));
    if (submission.result === VaultsResult.duplicateKey) {
      const first = view.flowOf(userId, key);
      if (first !== undefined && first.kind === kind && first.flow.vaultId === vault.vaultId) return { status: 200, body: flowJson(vault, kind, first.flow, first.ms, true) };
    }
    if (submission.result !== Result.ok) throw refusal(submission.result);
    const found = submission.events.find((candidate) => candidate.kind === EventKind.domain && candidate.type === event);
    if (found === undefined || found.kind !== EventKind.domain) throw new Error(`an accepted vault ${kind} without its event`);
    return { status: kind === 'deposit' ? 201 : 200, body: flowJson(vault, kind, found.body as VaultFlow, submission.ts, false) };
  };

  const depositBody = Type.Object({ amount_usdc: decimalInput }, { additionalProperties: false });
  const withdrawBody = Type.Object(
    { amount_usdc: Type.Optional(decimalInput), shares: Type.Optional(decimalInput) },
    { additionalProperties: false, description: 'exactly one of amount_usdc (receive this much; shares burned rounded up) and shares (burn these; paid rounded down)' },
  );
  const sellBody = Type.Object({ shares: decimalInput }, { additionalProperties: false });
  const flowErrors = ['VAULT_NOT_FOUND', 'INVALID_VAULT_AMOUNT', 'INVALID_IDEMPOTENCY_KEY', 'DUPLICATE_IDEMPOTENCY_KEY', 'VAULT_INSUFFICIENT_BALANCE', 'INSUFFICIENT_VAULT_SHARES', 'VAULT_ILLIQUID', 'VAULT_UNPRICED', 'VAULT_AMOUNT_TOO_SMALL', 'VAULT_FULL'];

  const withdrawal = (request: RequestContext, vault: VaultView) => {
    const body = request.body as { amount_usdc?: unknown; shares?: unknown };
    if ((body.amount_usdc === undefined) === (body.shares === undefined)) throw new ApiError(422, 'VALIDATION_FAILED', 'body: exactly one of amount_usdc and shares');
    const key = keyOf(request);
    const amounts = body.amount_usdc !== undefined ? { amountAtoms: amountOf('body.amount_usdc', body.amount_usdc, vault), shares: 0 } : { amountAtoms: 0, shares: sharesOf('body.shares', body.shares) };
    return submitFlow(vault, 'withdraw', request.principal!.userId, key, amounts);
  };

  const vaultParam = (request: RequestContext): VaultView => publicVault(request.params['vault']);
  const read = { auth: 'none' as const, rateLimit: 'general' as const, status: 200, tags };
  const mine = { auth: 'bearer_or_key' as const, permission: 'read' as const, rateLimit: 'general' as const, status: 200, tags };
  const write = { auth: 'bearer' as const, permission: 'trade' as const, rateLimit: 'orders' as const, tags };

  return [
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/list',
      name: 'list_vaults',
      errors: [],
      summary: 'Every public strategy vault: address, name, strategy, pair, NAV, share price, AUM, shares outstanding and holder count',
      response: Type.Object({ vaults: Type.Array(vaultSchema) }),
      handler: () => ({ body: { vaults: [...view.vaults.values()].filter((vault) => vault.ownerUserId === 0).map(vaultJson) } }),
    }),
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/featured',
      name: 'list_featured_vaults',
      errors: [],
      summary: 'The featured vaults (fixtures/vaults.json), as in the list',
      response: Type.Object({ vaults: Type.Array(vaultSchema) }),
      handler: () => ({
        body: { vaults: [...view.vaults.values()].filter((vault) => vault.ownerUserId === 0 && metaOf(vault.slug)?.featured === true).map(vaultJson) },
      }),
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/vaults/my-positions',
      name: 'get_my_vault_positions',
      errors: [],
      summary: "The caller's holdings in every vault it holds (public and its own paper vaults): shares, value, cost basis, P&L",
      response: Type.Object({ positions: Type.Array(positionSchema) }),
      handler: (request) => ({ body: { positions: view.positionsOf(request.principal!.userId).map(({ vault, holder }) => positionJson(vault, holder)) } }),
    }),
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/performance/{vault}',
      name: 'get_vault_performance',
      errors: ['VAULT_NOT_FOUND'],
      summary: "A vault's returns over 1d, 7d, 30d and all, annualised volatility, Sharpe and max drawdown, from its share-price history (the engine's hourly NAV points, kept across restarts)",
      response: Type.Intersect([Type.Object({ vault: text, since: nullable(text) }), metricsSchema]),
      handler: (request) => ({ body: performanceJson(vaultParam(request)) }),
    }),
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/backtest-performance/{vault}',
      name: 'get_vault_backtest',
      errors: ['VAULT_NOT_FOUND', 'NO_PRICE_HISTORY'],
      summary: `The vault's strategy run once a day over the oracle's last ${backtestDays} completed daily closes of its assets (their common days, up to yesterday), from 10000 USDC without fees: the equity curve and the same metrics`,
      response: Type.Object({ vault: text, strategy: text, assets: Type.Array(text), days: Type.Integer(), start_equity: text, equity_curve: Type.Array(Type.Object({ date: text, equity: text })), metrics: metricsSchema }),
      handler: (request) => {
        const vault = vaultParam(request);
        const assets = pairsOf(vault).map((pair) => pair.base.symbol);
        const series = assets.map((asset) => view.prices.prices.closes(asset, backtestDays));
        const missing = assets.find((_, index) => series[index] === undefined);
        if (missing !== undefined) throw new ApiError(404, 'NO_PRICE_HISTORY', `the oracle has no daily closes of ${missing} yet`);
        const closes = series as Array<{ firstDay: number; closesE8: number[] }>;
        // Every series ends on its asset's latest close: the earliest of those ends is the backtest's last
        // day. Today's close still moves with every tick, so the backtest stops at yesterday: the same
        // answer all day.
        const ends = closes.map((entry) => entry.firstDay + entry.closesE8.length - 1);
        const lastDay = Math.min(...ends, Math.floor(context.clock() / dayMs) - 1);
        if (closes.some((entry) => entry.firstDay > lastDay)) throw new ApiError(404, 'NO_PRICE_HISTORY', `the oracle has no completed daily closes of ${assets.join(', ')} yet`);
        const aligned = closes.map((entry, index) => entry.closesE8.slice(0, entry.closesE8.length - (ends[index]! - lastDay)));
        const result = backtest(vault.strategy, lastDay, aligned);
        return {
          body: {
            vault: vault.slug,
            strategy: strategyNames[vault.strategy],
            assets,
            days: result.curve.length,
            start_equity: '10000',
            equity_curve: result.curve.map((point) => ({ date: iso(point.ms).slice(0, 10), equity: point.value.toFixed(2) })),
            metrics: result.metrics,
          },
        };
      },
    }),
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/{vault}',
      name: 'get_vault',
      errors: ['VAULT_NOT_FOUND'],
      summary: 'One vault (by address or slug): strategy, description, manager, NAV, share price, AUM, holders, positions and its latest trades',
      response: Type.Intersect([vaultSchema, Type.Object({ description: text, manager: text, positions: Type.Array(Type.Object({ asset: text })), recent_trades: Type.Array(tradeSchema) })]),
      handler: (request) => {
        const vault = vaultParam(request);
        const meta = metaOf(vault.slug);
        return {
          body: {
            ...vaultJson(vault),
            description: meta?.description ?? '',
            manager: meta?.manager ?? 'platform',
            positions: holdingsJson(vault),
            recent_trades: vault.trades.slice(-20).reverse().map((trade) => tradeJson(vault, trade)),
          },
        };
      },
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/vaults/{vault}/position',
      name: 'get_vault_position',
      errors: ['VAULT_NOT_FOUND'],
      summary: "The caller's position in one vault: shares, value at the current share price, cost basis and P&L",
      response: positionSchema,
      handler: (request) => {
        const vault = vaultParam(request);
        return { body: positionJson(vault, vault.holders.get(request.principal!.userId)) };
      },
    }),
    declareRoute({
      ...write,
      method: 'POST',
      path: '/api/v1/vaults/{vault}/deposit',
      name: 'deposit_to_vault',
      status: 201,
      errors: flowErrors,
      body: depositBody,
      summary: 'Deposit amount_usdc into a vault for shares (rounded down). Idempotent under the Idempotency-Key header: a repeat answers 200 with the first result and replayed true',
      response: flowSchema,
      handler: (request) => {
        const vault = vaultParam(request);
        const key = keyOf(request);
        return submitFlow(vault, 'deposit', request.principal!.userId, key, { amountAtoms: amountOf('body.amount_usdc', (request.body as { amount_usdc: unknown }).amount_usdc, vault) });
      },
    }),
    declareRoute({
      ...write,
      method: 'POST',
      path: '/api/v1/vaults/{vault}/withdraw',
      name: 'withdraw_from_vault',
      status: 200,
      errors: flowErrors,
      body: withdrawBody,
      summary:
        'Withdraw amount_usdc (shares burned rounded up) or shares (paid rounded down). Beyond the free cash the vault cancels its quotes and sells with IOC orders in the same command, the withdrawer bearing the sells\' cost; when the book cannot raise it, 409 VAULT_ILLIQUID and nothing changes (no sell). Idempotent under Idempotency-Key',
      response: flowSchema,
      handler: (request) => withdrawal(request, vaultParam(request)),
    }),
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/{vault}/share-info',
      name: 'get_fund_share_info',
      errors: ['VAULT_NOT_FOUND'],
      summary: 'The fund (slug ai-fund, or any public vault): share price, NAV, AUM and shares outstanding',
      response: Type.Object({ fund: text, share_price: text, nav: text, aum: text, shares_outstanding: text, updated_at: text }),
      handler: (request) => {
        const vault = vaultParam(request);
        const json = vaultJson(vault);
        return { body: { fund: vault.slug, share_price: json['share_price'], nav: json['nav'], aum: json['aum'], shares_outstanding: json['shares_outstanding'], updated_at: json['updated_at'] } };
      },
    }),
    declareRoute({
      ...write,
      method: 'POST',
      path: '/api/v1/vaults/{vault}/buy-shares',
      name: 'buy_fund_shares',
      status: 201,
      errors: flowErrors,
      body: depositBody,
      summary: "Buy the fund's shares for amount_usdc: a deposit (same rules, Idempotency-Key)",
      response: flowSchema,
      handler: (request) => {
        const vault = vaultParam(request);
        const key = keyOf(request);
        return submitFlow(vault, 'deposit', request.principal!.userId, key, { amountAtoms: amountOf('body.amount_usdc', (request.body as { amount_usdc: unknown }).amount_usdc, vault) });
      },
    }),
    declareRoute({
      ...write,
      method: 'POST',
      path: '/api/v1/vaults/{vault}/sell-shares',
      name: 'sell_fund_shares',
      status: 200,
      errors: flowErrors,
      body: sellBody,
      summary: "Sell shares of the fund: a withdrawal by shares (same rules, Idempotency-Key)",
      response: flowSchema,
      handler: (request) => withdrawal(request, vaultParam(request)),
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/vaults/{vault}/my-shares',
      name: 'get_my_fund_shares',
      errors: ['VAULT_NOT_FOUND'],
      summary: "The caller's shares of the fund and their value",
      response: positionSchema,
      handler: (request) => {
        const vault = vaultParam(request);
        return { body: positionJson(vault, vault.holders.get(request.principal!.userId)) };
      },
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/vaults/{vault}/pnl',
      name: 'get_fund_pnl',
      errors: ['VAULT_NOT_FOUND'],
      summary: "The caller's P&L in the fund (value less cost basis) and the fund's own returns",
      response: Type.Object({ position: positionSchema, fund: metricsSchema }),
      handler: (request) => {
        const vault = vaultParam(request);
        const performance = performanceJson(vault);
        const { vault: _slug, since: _since, ...fund } = performance;
        return { body: { position: positionJson(vault, vault.holders.get(request.principal!.userId)), fund } };
      },
    }),
    declareRoute({
      ...read,
      method: 'GET',
      path: '/api/v1/vaults/{vault}/positions',
      name: 'get_fund_positions',
      errors: ['VAULT_NOT_FOUND'],
      summary: "The fund's holdings: cash and its asset at the oracle price",
      response: Type.Object({ fund: text, positions: Type.Array(Type.Object({ asset: text, quantity: text, price: nullable(text), value: text })) }),
      handler: (request) => {
        const vault = vaultParam(request);
        return { body: { fund: vault.slug, positions: holdingsJson(vault) } };
      },
    }),
    // Paper vaults: the caller's own, in paper mode.
    declareRoute({
      ...mine,
      method: 'POST',
      path: '/api/v1/paper-vaults',
      name: 'create_paper_vault',
      permission: 'trade',
      status: 201,
      errors: ['VALIDATION_FAILED', 'VAULT_FULL'],
      body: Type.Object(
        {
          strategy: Type.Union([Type.Literal('market_making'), Type.Literal('trend'), Type.Literal('momentum'), Type.Literal('basket')]),
          pair: Type.String({ minLength: 1, maxLength: 16, description: 'e.g. ETH/USDC or eth: the pair of a market-making or trend vault, the first of a momentum or basket one' }),
          pairs: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 16 }), { maxItems: 3, description: 'further pairs of a momentum or basket vault' })),
        },
        { additionalProperties: false },
      ),
      summary: `Create the caller's own paper vault following a strategy on a pair (at most ${paperVaultsPerUserMax}); funded from the caller's paper balances by deposits`,
      response: Type.Intersect([vaultSchema, Type.Object({ positions: Type.Array(Type.Object({ asset: text })) })]),
      handler: async (request) => {
        const body = request.body as { strategy: (typeof strategyNames)[number]; pair: string; pairs?: string[] };
        const pairs = [body.pair, ...(body.pairs ?? [])].map((name, index) => {
          const pair = context.markets.pairBySymbol(name);
          if (pair === undefined || pair.quote.symbol !== 'USDC') throw new ApiError(422, 'VALIDATION_FAILED', `body.${index === 0 ? 'pair' : `pairs.${index - 1}`}: must be a pair quoted in USDC`);
          return pair;
        });
        const userId = request.principal!.userId;
        const owned = [...view.vaults.values()].filter((vault) => vault.ownerUserId === userId).length;
        if (owned >= paperVaultsPerUserMax) throw new ApiError(429, 'VAULT_FULL', `at most ${paperVaultsPerUserMax} paper vaults per user`);
        ensurePaperAccount(context, userId);
        const slug = `paper-${userId}-${owned + 1}`;
        const submission = await context.durable.submit(
          domainCommand(VaultsCommandType.create, { slug, strategy: strategyNames.indexOf(body.strategy) as Strategy, pairIds: pairs.map((pair) => pair.id), mode: 1, ownerUserId: userId }),
        );
        if (submission.result !== Result.ok) throw refusal(submission.result);
        const vault = view.bySlug(slug)!;
        return { status: 201, body: { ...vaultJson(vault), positions: holdingsJson(vault) } };
      },
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/paper-vaults',
      name: 'list_paper_vaults',
      errors: [],
      summary: "The caller's own paper vaults",
      response: Type.Object({ vaults: Type.Array(vaultSchema) }),
      handler: (request) => ({ body: { vaults: [...view.vaults.values()].filter((vault) => vault.ownerUserId === request.principal!.userId).map(vaultJson) } }),
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/paper-vaults/{id}',
      name: 'get_paper_vault',
      errors: ['VAULT_NOT_FOUND'],
      summary: "One of the caller's paper vaults with its positions and the caller's holding (anyone else: 404)",
      response: Type.Intersect([vaultSchema, Type.Object({ positions: Type.Array(Type.Object({ asset: text })), holding: positionSchema })]),
      handler: (request) => {
        const vault = paperVault(request);
        return { body: { ...vaultJson(vault), positions: holdingsJson(vault), holding: positionJson(vault, vault.holders.get(request.principal!.userId)) } };
      },
    }),
    declareRoute({
      ...mine,
      method: 'POST',
      path: '/api/v1/paper-vaults/{id}/deposit',
      name: 'deposit_to_paper_vault',
      permission: 'trade',
      status: 201,
      errors: flowErrors,
      body: depositBody,
      summary: 'Deposit paper USDC into the caller’s paper vault (rules as for vaults, Idempotency-Key)',
      response: flowSchema,
      handler: (request) => {
        const vault = paperVault(request);
        const key = keyOf(request);
        ensurePaperAccount(context, request.principal!.userId);
        return submitFlow(vault, 'deposit', request.principal!.userId, key, { amountAtoms: amountOf('body.amount_usdc', (request.body as { amount_usdc: unknown }).amount_usdc, vault) });
      },
    }),
    declareRoute({
      ...mine,
      method: 'POST',
      path: '/api/v1/paper-vaults/{id}/withdraw',
      name: 'withdraw_from_paper_vault',
      permission: 'trade',
      status: 200,
      errors: flowErrors,
      body: withdrawBody,
      summary: 'Withdraw from the caller’s paper vault back to its paper balance: amount_usdc or shares (rules as for vaults)',
      response: flowSchema,
      handler: (request) => withdrawal(request, paperVault(request)),
    }),
    declareRoute({
      ...mine,
      method: 'GET',
      path: '/api/v1/paper-vaults/{id}/trades',
      name: 'get_paper_vault_trades',
      errors: ['VAULT_NOT_FOUND'],
      summary: "The paper vault's strategy trades, newest first (each with a sim_tx_hash)",
      response: Type.Object({ trades: Type.Array(tradeSchema) }),
      handler: (request) => {
        const vault = paperVault(request);
        return { body: { trades: vault.trades.slice().reverse().map((trade) => tradeJson(vault, trade)) } };
      },
    }),
  ];
}
