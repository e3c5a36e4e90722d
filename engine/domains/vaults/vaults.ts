/**
 * Strategy vaults (domain 6). Each vault owns the ledger account domainUserId(6, vault id), where its cash
 * (the pair's quote asset) and its position (the pair's base asset) are ordinary balances, so its trades
 * are orders of that account placed through the port's client path: they show in the books and fills.
 *
 * Rules:
 * - NAV = cash + base × the oracle's price (prices domain), in quote atoms, rounded down. A vault whose
 *   base is unpriced refuses deposits and withdrawals (VAULT_UNPRICED) instead of valuing it at zero.
 * - Deposits mint shares rounded down, withdrawals burn shares rounded up or pay rounded down (see the
 *   share math in commands.ts); the virtual offset guards the first deposit.
 * - A withdrawal is one command that decides before it trades. When the vault's available cash pays it,
 *   it is paid. Otherwise the vault's quotes would be cancelled (their holds come back) and its bases sold
 *   with IOC sells, pair by pair, `unwindSlippageBps` below the oracle price, just enough to raise what is
 *   missing: the port's `sellLadder` tells what each sell would raise against the book as it is now.
 *   When even selling everything within that limit could not pay, the withdrawal is refused with
 *   VAULT_ILLIQUID before anything changes (no cancel, no sell, no event). Otherwise it cancels, sells and
 *   pays in the same command. The unwind's cost (the oracle value of the base sold less what the sells
 *   raised) is the withdrawer's: a withdrawal by amount burns the shares of amount + cost, one by shares
 *   is paid its value less the cost, so the holders who stay do not pay for another's exit.
 * - Idempotency: each accepted deposit and withdrawal records its (user, key); a repeated key is refused
 *   with DUPLICATE_IDEMPOTENCY_KEY and changes nothing. The newest `idempotencyKeysMax` keys are kept.
 * - Strategies run every `strategyMs` of journaled time (aligned to multiples of it), vault by vault in id
 *   order. The market-making vault cancels its quotes and posts new ones (post-only GTC, around the
 *   oracle price, skewed by its inventory: see `quoteHalfSpreadBps`), so its orders rest on the pair's
 *   book and its fills come from takers (VaultTraded with `quote`, from the port's onTrade). The others
 *   compute a target share of NAV in each base asset, and when the gap exceeds `rebalanceMinBps` of NAV
 *   place one IOC limit order (at most `rebalanceClipBps` of NAV, priced `strategySlippageBps` through the
 *   oracle price). Then each records its NAV (VaultNav) and its hour's point of the NAV history.
 * - NAV history is engine state: per vault the last revaluation of each hour (`navSampleMs`), at most
 *   `navHistoryMax` points, in the snapshot and the state hash, so performance survives a restart.
 */
import { assert } from '../../core/assert.ts';
import { OrderType, SelfTradePrevention, TimeInForce, GroupKind, type Command, type DomainCommand, type Mode, type OrderRequest } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { noAccount } from '../../core/ledger.ts';
import { EventKind, type AmmFill, type TradeExecuted } from '../../core/events.ts';
import { domainUserId, userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hasher.ts';
import type { Pair } from '../../core/units.ts';
import { Prices } from '../prices/prices.ts';
import {
  Strategy,
  VaultsCommandType,
  VaultsEventType,
  VaultsResult,
  amountAtomsMax,
  amountAtomsMin,
  basketPairsMax,
  assetsForShares,
  baseAtomsForValue,
  baseValueAtoms,
  holdersPerVaultMax,
  idempotencyKeysMax,
  isIdempotencyKey,
  isSlug,
  momentumLookback,
  navHistoryMax,
  navSampleMs,
  priceMemoryMax,
  quoteHalfSpreadBps,
  quoteSizeBps,
  quotesPerPairMax,
  rebalanceClipBps,
  rebalanceMinBps,
  sharesForDeposit,
  sharesForWithdrawal,
  sharesMax,
  strategyMsMax,
  strategyMsMin,
  strategySlippageBps,
  trendWindow,
  unwindSlippageBps,
  vaultsDomainId,
  vaultsMax,
  type ConfigureVaults,
  type CreateVault,
  type DepositToVault,
  type UnwindVault,
  type VaultCreated,
  type VaultFlow,
  type VaultNav,
  type VaultNavSampled,
  type VaultTraded,
  type WithdrawFromVault,
} from './commands.ts';

export class Holder {
  constructor(
    public shares: number,
    /** What the holder paid for its shares, less the cost of shares withdrawn (pro rata, rounded down). */
    public costAtoms: number,
  ) {}
}

export class Vault {
  readonly holders = new Map<number, Holder>();
  totalShares = 0;
  /** Per pair: the oracle prices seen at the last strategy runs, oldest first (at most priceMemoryMax). */
  readonly pricesE8: number[][];
  /** Ids of the market-making quotes placed at the last run (some may have filled since). */
  quoteIds: number[] = [];
  /** NAV history, oldest first, flat: atMs, navAtoms, totalShares per point (at most navHistoryMax points). */
  readonly navHistory: number[] = [];

  constructor(
    readonly vaultId: number,
    readonly slug: string,
    readonly strategy: Strategy,
    readonly pairs: readonly Pair[],
    readonly mode: Mode,
    readonly ownerUserId: number,
    readonly account: number,
  ) {
    this.pricesE8 = pairs.map(() => []);
  }

  /** The asset deposits, withdrawals and NAV are in: every pair's quote. */
  get quote(): Pair['quote'] {
    return this.pairs[0]!.quote;
  }
}

/** The vault's figures at one moment: cash, each pair's base and oracle price (0: none), and NAV. */
export interface Valuation {
  cashAtoms: number;
  baseAtoms: number[];
  pricesE8: number[];
  navAtoms: number;
  /** Whether some base is held without an oracle price (NAV then counts it as nothing). */
  unpriced: boolean;
}

/** The sells an unwind would place, and what they leave missing and cost (planUnwind). */
interface UnwindPlan {
  orders: Array<{ pair: Pair; lots: number; priceTicks: number }>;
  shortAtoms: number;
  costAtoms: number;
}

type VaultRow = [
  vaultId: number,
  slug: string,
  strategy: number,
  pairIds: number[],
  mode: number,
  ownerUserId: number,
  totalShares: number,
  holders: number[],
  prices: number[][],
  quoteIds: number[],
  navHistory: number[],
];

export interface VaultsSnapshot {
  strategyMs: number;
  nextRunMs: number;
  vaults: VaultRow[];
  /** Remembered idempotency keys, oldest first: "userId:key". */
  keys: string[];
}

export class Vaults implements DomainModule {
  static readonly domainName = 'vaults';
  readonly name = Vaults.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = Object.values(VaultsCommandType);
  /** 0 until configured: strategies do not run. */
  strategyMs = 0;
  nextRunMs = noTimerMs;
  readonly vaults: Vault[] = [];
  /** Keys of accepted deposits and withdrawals ("userId:key"), oldest first (a Set keeps insertion order). */
  private readonly keys = new Set<string>();
  private readonly order: OrderRequest = {
    orderId: 0,
    userId: 0,
    mode: 0,
    pairId: 0,
    side: 0,
    orderType: OrderType.limit,
    timeInForce: TimeInForce.ioc,
    priceTicks: 0,
    stopPriceTicks: 0,
    quantityLots: 0,
    postOnly: false,
    selfTradePrevention: SelfTradePrevention.cancelTaker,
    clientOrderId: '',
  };

  constructor(private readonly port: DomainPort) {
    // Quotes fill when takers reach them, inside other commands: the listener reports those fills.
    port.onTrade((fill) => this.onFill(fill));
  }

  private get prices(): Prices {
    const prices = this.port.domain(Prices.domainName);
    assert(prices instanceof Prices, 'the vaults need the prices domain, listed before them');
    return prices;
  }

  // -------------------------------------------------------------------------------------------------
  // Queries

  vault(vaultId: number): Vault | undefined {
    return Number.isSafeInteger(vaultId) ? this.vaults[vaultId - 1] : undefined;
  }

  bySlug(slug: string): Vault | undefined {
    return this.vaults.find((vault) => vault.slug === slug);
  }

  /** The vault's cash, bases and NAV now; an unpriced base counts as nothing (and `unpriced` says so). */
  valuation(vault: Vault): Valuation {
    const ledger = this.port.ledger;
    const quote = vault.quote;
    const cashAtoms = ledger.availableAtoms(vault.account, quote.index) + ledger.heldAtoms(vault.account, quote.index);
    let navAtoms = cashAtoms;
    let unpriced = false;
    const baseAtoms: number[] = [];
    const pricesE8: number[] = [];
    for (const pair of vault.pairs) {
      const base = ledger.availableAtoms(vault.account, pair.base.index) + ledger.heldAtoms(vault.account, pair.base.index);
      const priceE8 = this.prices.priceE8(pair.base.symbol);
      baseAtoms.push(base);
      pricesE8.push(priceE8);
      if (priceE8 > 0) navAtoms += baseValueAtoms(base, priceE8, pair.base.decimals, quote.decimals);
      else if (base > 0) unpriced = true;
    }
    return { cashAtoms, baseAtoms, pricesE8, navAtoms, unpriced };
  }

  hasKey(userId: number, key: string): boolean {
    return this.keys.has(`${userId}:${key}`);
  }

  // -------------------------------------------------------------------------------------------------
  // Commands

  apply(command: Command): ResultCode {
    const domain = command as DomainCommand;
    switch (domain.type) {
      case VaultsCommandType.configure:
        return this.configure(domain.body as ConfigureVaults);
      case VaultsCommandType.create:
        return this.create(domain.body as CreateVault);
      case VaultsCommandType.deposit:
        return this.deposit(domain.body as DepositToVault);
      case VaultsCommandType.withdraw:
        return this.withdraw(domain.body as WithdrawFromVault);
      case VaultsCommandType.unwind:
        return this.unwind(domain.body as UnwindVault);
      default:
        return Result.unknownCommand;
    }
  }

  private configure(body: ConfigureVaults): ResultCode {
    if (!Number.isSafeInteger(body.strategyMs) || body.strategyMs < strategyMsMin || body.strategyMs > strategyMsMax) return VaultsResult.invalidConfiguration;
    this.strategyMs = body.strategyMs;
    this.nextRunMs = this.alignedAfter(this.port.commandTimeMs());
    this.port.emit(domainEvent(VaultsEventType.configured, { strategyMs: body.strategyMs }));
    return Result.ok;
  }

  private alignedAfter(nowMs: number): number {
    return (Math.floor(nowMs / this.strategyMs) + 1) * this.strategyMs;
  }

  private create(body: CreateVault): ResultCode {
    if (this.vaults.length >= vaultsMax) return VaultsResult.full;
    if (!isSlug(body.slug) || this.bySlug(body.slug) !== undefined) return VaultsResult.invalidVault;
    if (body.strategy !== Strategy.marketMaking && body.strategy !== Strategy.trend && body.strategy !== Strategy.momentum && body.strategy !== Strategy.basket) return VaultsResult.invalidVault;
    const pairsMax = body.strategy === Strategy.momentum || body.strategy === Strategy.basket ? basketPairsMax : 1;
    if (!Array.isArray(body.pairIds) || body.pairIds.length < 1 || body.pairIds.length > pairsMax || new Set(body.pairIds).size !== body.pairIds.length) return VaultsResult.invalidVault;
    const pairs: Pair[] = [];
    for (const pairId of body.pairIds) {
      const pair = Number.isSafeInteger(pairId) ? this.port.markets.pairById(pairId) : undefined;
      if (pair === undefined || (pairs.length > 0 && pair.quote.index !== pairs[0]!.quote.index)) return VaultsResult.invalidVault;
      pairs.push(pair);
    }
    if (body.mode !== 0 && body.mode !== 1) return VaultsResult.invalidVault;
    if (!Number.isSafeInteger(body.ownerUserId) || body.ownerUserId < 0 || body.ownerUserId > userIdMax) return VaultsResult.invalidVault;
    const vaultId = this.vaults.length + 1;
    const accountUserId = domainUserId(vaultsDomainId, vaultId);
    const account = this.port.ledger.findOrOpen(accountUserId, body.mode);
    if (account === noAccount) return Result.tooManyAccounts;
    this.vaults.push(new Vault(vaultId, body.slug, body.strategy, pairs, body.mode, body.ownerUserId, account));
    const event: VaultCreated = { vaultId, slug: body.slug, strategy: body.strategy, pairIds: pairs.map((pair) => pair.id), mode: body.mode, ownerUserId: body.ownerUserId, accountUserId };
    this.port.emit(domainEvent(VaultsEventType.created, event));
    return Result.ok;
  }

  /** The vault a user may use, or undefined (unknown, or someone else's own vault). */
  private usable(vaultId: number, userId: number): Vault | undefined {
    const vault = this.vault(vaultId);
    if (vault === undefined || (vault.ownerUserId !== 0 && vault.ownerUserId !== userId)) return undefined;
    return vault;
  }

  private deposit(body: DepositToVault): ResultCode {
    if (!Number.isSafeInteger(body.userId) || body.userId < 1 || body.userId > userIdMax) return Result.invalidUser;
    const vault = this.usable(body.vaultId, body.userId);
    if (vault === undefined) return VaultsResult.vaultNotFound;
    if (!Number.isSafeInteger(body.amountAtoms) || body.amountAtoms < amountAtomsMin || body.amountAtoms > amountAtomsMax) return VaultsResult.invalidAmount;
    if (!isIdempotencyKey(body.idempotencyKey)) return VaultsResult.invalidKey;
    if (this.hasKey(body.userId, body.idempotencyKey)) return VaultsResult.duplicateKey;
    const ledger = this.port.ledger;
    const account = ledger.find(body.userId, vault.mode);
    const quote = vault.quote.index;
    if (account === noAccount || ledger.availableAtoms(account, quote) < body.amountAtoms) return VaultsResult.insufficientBalance;
    const value = this.valuation(vault);
    if (value.unpriced) return VaultsResult.unpriced;
    const shares = sharesForDeposit(body.amountAtoms, vault.totalShares, value.navAtoms);
    if (shares < 1) return VaultsResult.tooSmall;
    const holder = vault.holders.get(body.userId);
    if (holder === undefined && vault.holders.size >= holdersPerVaultMax) return VaultsResult.full;
    if (vault.totalShares + shares > sharesMax) return VaultsResult.full;

    ledger.payFromAvailable(account, vault.account, quote, body.amountAtoms);
    vault.totalShares += shares;
    const after = holder ?? new Holder(0, 0);
    after.shares += shares;
    after.costAtoms += body.amountAtoms;
    if (holder === undefined) vault.holders.set(body.userId, after);
    this.remember(body.userId, body.idempotencyKey);
    const flow: VaultFlow = {
      vaultId: vault.vaultId,
      userId: body.userId,
      idempotencyKey: body.idempotencyKey,
      amountAtoms: body.amountAtoms,
      shares,
      holderShares: after.shares,
      holderCostAtoms: after.costAtoms,
      totalShares: vault.totalShares,
      navAtoms: value.navAtoms + body.amountAtoms,
    };
    this.port.emit(domainEvent(VaultsEventType.deposited, flow));
    this.emitNav(vault);
    return Result.ok;
  }

  private withdraw(body: WithdrawFromVault): ResultCode {
    if (!Number.isSafeInteger(body.userId) || body.userId < 1 || body.userId > userIdMax) return Result.invalidUser;
    const vault = this.usable(body.vaultId, body.userId);
    if (vault === undefined) return VaultsResult.vaultNotFound;
    const byShares = Number.isSafeInteger(body.shares) && body.shares > 0 && body.amountAtoms === 0;
    const byAmount = Number.isSafeInteger(body.amountAtoms) && body.amountAtoms >= amountAtomsMin && body.amountAtoms <= amountAtomsMax && body.shares === 0;
    if (!byShares && !byAmount) return VaultsResult.invalidAmount;
    if (!isIdempotencyKey(body.idempotencyKey)) return VaultsResult.invalidKey;
    if (this.hasKey(body.userId, body.idempotencyKey)) return VaultsResult.duplicateKey;
    const holder = vault.holders.get(body.userId);
    const value = this.valuation(vault);
    if (value.unpriced) return VaultsResult.unpriced;
    if (holder === undefined) return VaultsResult.insufficientShares;
    if (byShares && body.shares > holder.shares) return VaultsResult.insufficientShares;
    // What the withdrawal takes out of the vault before any unwind cost: the amount, or the shares' value.
    const grossAtoms = byShares ? assetsForShares(body.shares, vault.totalShares, value.navAtoms) : body.amountAtoms;
    if (grossAtoms < 1) return VaultsResult.tooSmall;
    const ledger = this.port.ledger;
    const quote = vault.quote.index;
    // By amount the sells must raise the amount; by shares, whose payment is net of the sells' cost, the
    // oracle value of the base sold must cover the shares' value (cash + raised = value sold − cost).
    const sells = ledger.availableAtoms(vault.account, quote) < grossAtoms ? this.planUnwind(vault, grossAtoms, byShares) : null;
    if (sells !== null && sells.shortAtoms > 0) return VaultsResult.illiquid;
    const costAtoms = sells === null ? 0 : sells.costAtoms;
    const shares = byShares ? body.shares : sharesForWithdrawal(body.amountAtoms + costAtoms, vault.totalShares, value.navAtoms);
    if (shares > holder.shares) return VaultsResult.insufficientShares;
    const amountAtoms = byShares ? grossAtoms - costAtoms : body.amountAtoms;
    if (amountAtoms < 1) return VaultsResult.tooSmall;
    const account = ledger.findOrOpen(body.userId, vault.mode);
    if (account === noAccount) return Result.tooManyAccounts;

    // Accept: cancel the quotes and sell as planned; the estimate makes the cash sure.
    if (sells !== null) {
      this.cancelQuotes(vault);
      for (const sell of sells.orders) {
        const result = this.place(vault, sell.pair, 1, sell.lots, sell.priceTicks, true);
        assert(result === Result.ok, 'a planned unwind sell was refused');
      }
    }
    assert(ledger.availableAtoms(vault.account, quote) >= amountAtoms, 'an unwind raised less than its estimate');
    ledger.payFromAvailable(vault.account, account, quote, amountAtoms);
    // The cost basis leaves with the shares, pro rata (rounded down, so what stays never exceeds what was paid).
    const costOut = Number((BigInt(holder.costAtoms) * BigInt(shares)) / BigInt(holder.shares));
    holder.shares -= shares;
    holder.costAtoms -= costOut;
    vault.totalShares -= shares;
    if (holder.shares === 0) vault.holders.delete(body.userId);
    this.remember(body.userId, body.idempotencyKey);
    const flow: VaultFlow = {
      vaultId: vault.vaultId,
      userId: body.userId,
      idempotencyKey: body.idempotencyKey,
      amountAtoms,
      shares,
      holderShares: holder.shares,
      holderCostAtoms: holder.costAtoms,
      totalShares: vault.totalShares,
      navAtoms: this.valuation(vault).navAtoms,
    };
    this.port.emit(domainEvent(VaultsEventType.withdrawn, flow));
    this.emitNav(vault);
    return Result.ok;
  }

  /**
   * The IOC sells that would bring the vault's cash to `cashAtoms` once its quotes are cancelled (their
   * holds back in its available balances), pair by pair in the vault's order, each the fewest lots whose
   * estimated proceeds (with `byValue`: whose oracle value) cover what is still missing, or all the pair's
   * base when they cannot, at `unwindSlippageBps` below the oracle price. `shortAtoms` is what would still
   * be missing (0: enough), `costAtoms` the oracle value of the base sold less the proceeds (never below
   * 0). Changes nothing.
   */
  private planUnwind(vault: Vault, cashAtoms: number, byValue: boolean): UnwindPlan {
    const ledger = this.port.ledger;
    const userId = domainUserId(vaultsDomainId, vault.vaultId);
    const plan: UnwindPlan = { orders: [], shortAtoms: 0, costAtoms: 0 };
    let shortAtoms = cashAtoms - ledger.availableAtoms(vault.account, vault.quote.index) - ledger.heldAtoms(vault.account, vault.quote.index);
    let valueSold = 0;
    let proceeds = 0;
    for (const pair of vault.pairs) {
      if (shortAtoms <= 0) break;
      const priceE8 = this.prices.priceE8(pair.base.symbol);
      const limitE8 = Math.floor((priceE8 * (10_000 - unwindSlippageBps)) / 10_000);
      const priceTicks = limitE8 < 1 ? 0 : this.ticksAt(pair, limitE8, false);
      const baseAtoms = ledger.availableAtoms(vault.account, pair.base.index) + ledger.heldAtoms(vault.account, pair.base.index);
      const lotsMax = Math.min(Math.floor(baseAtoms / pair.baseAtomsPerLot), pair.quantityLotsMax);
      if (priceTicks < 1 || lotsMax < 1) continue;
      // The book read once; each size tried below is a walk of these levels.
      const ladder = this.port.sellLadder(userId, vault.mode, pair.id, priceTicks);
      const raised = (lots: number): number => {
        const estimate = ladder.estimate(lots);
        return byValue ? baseValueAtoms(estimate.filledLots * pair.baseAtomsPerLot, priceE8, pair.base.decimals, pair.quote.decimals) : estimate.proceedsAtoms;
      };
      let lots = ladder.estimate(lotsMax).filledLots;
      if (lots < 1) continue;
      if (raised(lots) > shortAtoms) {
        // The fewest lots that raise enough: proceeds grow with the lots sold.
        let low = 1;
        while (low < lots) {
          const middle = Math.floor((low + lots) / 2);
          if (raised(middle) >= shortAtoms) lots = middle;
          else low = middle + 1;
        }
      }
      const estimate = ladder.estimate(lots);
      const value = baseValueAtoms(estimate.filledLots * pair.baseAtomsPerLot, priceE8, pair.base.decimals, pair.quote.decimals);
      plan.orders.push({ pair, lots, priceTicks });
      shortAtoms -= byValue ? value : estimate.proceedsAtoms;
      proceeds += estimate.proceedsAtoms;
      valueSold += value;
    }
    plan.shortAtoms = Math.max(0, shortAtoms);
    plan.costAtoms = Math.max(0, valueSold - proceeds);
    return plan;
  }

  /** The manager's unwind (UnwindVault): the quotes cancelled, then IOC sells toward `cashAtoms` of free cash. */
  private unwind(body: UnwindVault): ResultCode {
    const vault = this.vault(body.vaultId);
    if (vault === undefined) return VaultsResult.vaultNotFound;
    if (!Number.isSafeInteger(body.cashAtoms) || body.cashAtoms < 1 || body.cashAtoms > amountAtomsMax) return VaultsResult.invalidAmount;
    const plan = this.planUnwind(vault, body.cashAtoms, false);
    // Nothing to sell (or nothing missing): refused, and nothing changed.
    if (plan.orders.length === 0) return VaultsResult.illiquid;
    this.cancelQuotes(vault);
    for (const sell of plan.orders) {
      const result = this.place(vault, sell.pair, 1, sell.lots, sell.priceTicks, true);
      assert(result === Result.ok, 'a planned unwind sell was refused');
    }
    this.emitNav(vault);
    return Result.ok;
  }

  private remember(userId: number, key: string): void {
    this.keys.add(`${userId}:${key}`);
    if (this.keys.size > idempotencyKeysMax) {
      const oldest = this.keys.values().next();
      if (oldest.done !== true) this.keys.delete(oldest.value);
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Orders

  /** Ticks of the pair nearest `priceE8` (rounded down, or up with `up`), clamped to the pair's range; 0 when below it. */
  private ticksAt(pair: Pair, priceE8: number, up: boolean): number {
    const numerator = BigInt(priceE8) * 10n ** BigInt(pair.tick.scale);
    const denominator = pair.tick.mantissa * 100_000_000n;
    const ticks = Number(up ? (numerator + denominator - 1n) / denominator : numerator / denominator);
    return Math.min(ticks, pair.priceTicksMax);
  }

  /** Places one IOC limit order of the vault's account through the client path; emits VaultTraded when it ran. */
  private place(vault: Vault, pair: Pair, side: 0 | 1, lots: number, priceTicks: number, unwind: boolean): ResultCode {
    const order = this.order;
    order.orderId = this.port.nextOrderId();
    order.userId = domainUserId(vaultsDomainId, vault.vaultId);
    order.mode = vault.mode;
    order.pairId = pair.id;
    order.side = side;
    order.quantityLots = lots;
    order.priceTicks = priceTicks;
    const result = this.port.placeGroupOrder(order, GroupKind.none, vault.vaultId, true);
    if (result !== Result.ok) return result;
    const report = this.port.orderReport;
    const ledger = this.port.ledger;
    const event: VaultTraded = {
      vaultId: vault.vaultId,
      pairId: pair.id,
      orderId: order.orderId,
      side,
      filledLots: report.filledLots,
      filledNotionalAtoms: report.filledNotionalAtoms,
      baseAtoms: ledger.availableAtoms(vault.account, pair.base.index) + ledger.heldAtoms(vault.account, pair.base.index),
      unwind,
      quote: false,
    };
    this.port.emit(domainEvent(VaultsEventType.traded, event));
    return Result.ok;
  }

  /**
   * Places one post-only GTC limit order of the vault's account (a market-making quote) through the client
   * path and remembers its id. Post-only never takes, so an accepted quote rests; a refused one (it would
   * cross, no room) changes nothing but its OrderRejected.
   */
  private placeQuote(vault: Vault, pair: Pair, side: 0 | 1, lots: number, priceTicks: number): void {
    const order = this.order;
    order.orderId = this.port.nextOrderId();
    order.userId = domainUserId(vaultsDomainId, vault.vaultId);
    order.mode = vault.mode;
    order.pairId = pair.id;
    order.side = side;
    order.quantityLots = lots;
    order.priceTicks = priceTicks;
    order.timeInForce = TimeInForce.gtc;
    order.postOnly = true;
    const result = this.port.placeGroupOrder(order, GroupKind.none, vault.vaultId, false);
    order.timeInForce = TimeInForce.ioc;
    order.postOnly = false;
    if (result === Result.ok) vault.quoteIds.push(order.orderId);
  }

  /** Cancels the vault's quotes still live (their holds come back); filled ones are simply forgotten. */
  private cancelQuotes(vault: Vault): void {
    const userId = domainUserId(vaultsDomainId, vault.vaultId);
    for (const orderId of vault.quoteIds) this.port.cancelGroupOrder(userId, vault.mode, orderId);
    vault.quoteIds = [];
  }

  /** The port's fill listener: a taker reached one of a vault's quotes (VaultTraded with `quote`). */
  private onFill(fill: TradeExecuted | AmmFill): void {
    if (fill.kind !== EventKind.tradeExecuted) return;
    const vaultId = fill.makerUserId - domainUserId(vaultsDomainId, 0);
    const vault = vaultId >= 1 ? this.vault(vaultId) : undefined;
    if (vault === undefined || vault.mode !== fill.mode || !vault.quoteIds.includes(fill.makerOrderId)) return;
    const pair = vault.pairs.find((candidate) => candidate.id === fill.pairId);
    if (pair === undefined) return;
    const ledger = this.port.ledger;
    const event: VaultTraded = {
      vaultId: vault.vaultId,
      pairId: pair.id,
      orderId: fill.makerOrderId,
      side: fill.takerSide === 0 ? 1 : 0,
      filledLots: fill.quantityLots,
      filledNotionalAtoms: fill.notionalAtoms,
      baseAtoms: ledger.availableAtoms(vault.account, pair.base.index) + ledger.heldAtoms(vault.account, pair.base.index),
      unwind: false,
      quote: true,
    };
    this.port.emit(domainEvent(VaultsEventType.traded, event));
    // The fill changed the vault's cash and base: its readers see the revaluation at once.
    this.emitNav(vault);
  }

  // -------------------------------------------------------------------------------------------------
  // Strategies

  /**
   * The share of NAV (basis points) the vault's strategy wants in each of its pairs' base, given each pair's
   * price memory (oldest first). Market making and trend have one pair; momentum and basket one or more.
   */
  static targetBps(strategy: Strategy, memories: readonly (readonly number[])[]): number[] {
    const count = memories.length;
    switch (strategy) {
      case Strategy.marketMaking:
        // Inventory kept balanced: the vault provides both sides' liquidity over time by trading back to half.
        return memories.map(() => 5_000);
      case Strategy.trend:
        return memories.map((pricesE8) => {
          if (pricesE8.length < trendWindow) return 5_000;
          let sum = 0;
          for (let index = pricesE8.length - trendWindow; index < pricesE8.length; index++) sum += pricesE8[index]!;
          // Above its moving average the trend is up: mostly long; below it, mostly cash.
          return pricesE8.at(-1)! * trendWindow > sum ? 8_000 : 2_000;
        });
      case Strategy.basket:
        // Equal weights over the basket, 90 % invested, 10 % cash for withdrawals.
        return memories.map(() => Math.floor(9_000 / count));
      default: {
        // Momentum: 90 % shared equally by the assets that rose over the look-back, cash when none did;
        // half the NAV spread equally until every asset has the history.
        if (memories.some((pricesE8) => pricesE8.length <= momentumLookback)) return memories.map(() => Math.floor(5_000 / count));
        const rising = memories.map((pricesE8) => pricesE8.at(-1)! > pricesE8[pricesE8.length - 1 - momentumLookback]!);
        const risers = rising.filter(Boolean).length;
        return rising.map((rose) => (rose ? Math.floor(9_000 / risers) : 0));
      }
    }
  }

  nextTimerMs(): number {
    return this.strategyMs > 0 && this.vaults.length > 0 ? this.nextRunMs : noTimerMs;
  }

  runTimers(nowMs: number): void {
    for (const vault of this.vaults) this.runStrategy(vault, nowMs);
    this.nextRunMs = this.alignedAfter(nowMs);
  }

  private runStrategy(vault: Vault, nowMs: number): void {
    // Quotes are refreshed at every run: the old ones go first, even when the vault cannot quote now.
    if (vault.quoteIds.length > 0) this.cancelQuotes(vault);
    const value = this.valuation(vault);
    if (value.pricesE8.some((priceE8) => priceE8 === 0) || vault.totalShares === 0) return;
    vault.pairs.forEach((_, index) => {
      const memory = vault.pricesE8[index]!;
      memory.push(value.pricesE8[index]!);
      if (memory.length > priceMemoryMax) memory.shift();
    });
    if (vault.strategy === Strategy.marketMaking) this.quote(vault, value);
    else this.rebalance(vault, value);
    this.emitNav(vault, nowMs);
    this.sample(vault, nowMs);
  }

  /**
   * The market maker's quotes for each pair: a bid and an ask `quoteHalfSpreadBps` either side of the
   * oracle price, both shifted by the inventory skew: skewBps = quoteHalfSpreadBps × (baseBps − 5 000) /
   * 10 000, where baseBps is the base's share of NAV, so a vault long the base quotes lower (buys less
   * eagerly, sells more) and one short of it higher, by at most half the half-spread. Each quote is at
   * most `quoteSizeBps` of NAV; the bid within 95 % of the free cash (room for the fee), the ask within
   * the free base.
   */
  private quote(vault: Vault, value: Valuation): void {
    const ledger = this.port.ledger;
    vault.pairs.forEach((pair, index) => {
      const priceE8 = value.pricesE8[index]!;
      const heldValue = baseValueAtoms(value.baseAtoms[index]!, priceE8, pair.base.decimals, pair.quote.decimals);
      const baseBps = value.navAtoms > 0 ? Math.floor((heldValue * 10_000) / value.navAtoms) : 0;
      const skewBps = Math.trunc((quoteHalfSpreadBps * (baseBps - 5_000)) / 10_000);
      const bidE8 = Math.floor((priceE8 * (10_000 - quoteHalfSpreadBps - skewBps)) / 10_000);
      const askE8 = Math.floor((priceE8 * (10_000 + quoteHalfSpreadBps - skewBps)) / 10_000);
      const sizeAtoms = Math.floor((value.navAtoms * quoteSizeBps) / 10_000);
      const bidAtoms = Math.min(sizeAtoms, Math.floor((ledger.availableAtoms(vault.account, pair.quote.index) * 95) / 100));
      const bidTicks = bidE8 < 1 ? 0 : this.ticksAt(pair, bidE8, false);
      const askTicks = askE8 < 1 ? 0 : this.ticksAt(pair, askE8, true);
      const bidLots = bidE8 < 1 ? 0 : Math.min(Math.floor(baseAtomsForValue(bidAtoms, bidE8, pair.base.decimals, pair.quote.decimals) / pair.baseAtomsPerLot), pair.quantityLotsMax);
      const askLots = askE8 < 1 ? 0 : Math.min(Math.floor(baseAtomsForValue(sizeAtoms, askE8, pair.base.decimals, pair.quote.decimals) / pair.baseAtomsPerLot), Math.floor(ledger.availableAtoms(vault.account, pair.base.index) / pair.baseAtomsPerLot), pair.quantityLotsMax);
      if (bidLots >= 1 && bidTicks >= 1) this.placeQuote(vault, pair, 0, bidLots, bidTicks);
      if (askLots >= 1 && askTicks > bidTicks) this.placeQuote(vault, pair, 1, askLots, askTicks);
    });
    assert(vault.quoteIds.length <= quotesPerPairMax * vault.pairs.length, 'more quotes than the bound');
  }

  /** The other strategies: one IOC order per pair toward the target share of NAV. */
  private rebalance(vault: Vault, value: Valuation): void {
    const targets = Vaults.targetBps(vault.strategy, vault.pricesE8);
    const ledger = this.port.ledger;
    vault.pairs.forEach((pair, index) => {
      const priceE8 = value.pricesE8[index]!;
      const heldValue = baseValueAtoms(value.baseAtoms[index]!, priceE8, pair.base.decimals, pair.quote.decimals);
      const gap = Math.floor((value.navAtoms * targets[index]!) / 10_000) - heldValue;
      if (Math.abs(gap) * 10_000 < value.navAtoms * rebalanceMinBps) return;
      const side: 0 | 1 = gap > 0 ? 0 : 1;
      let tradeAtoms = Math.min(Math.abs(gap), Math.floor((value.navAtoms * rebalanceClipBps) / 10_000));
      // A buy keeps a margin of the free cash for fees; a sell cannot sell more than the free base.
      if (side === 0) tradeAtoms = Math.min(tradeAtoms, Math.floor((ledger.availableAtoms(vault.account, pair.quote.index) * 95) / 100));
      const limitE8 = Math.floor((priceE8 * (10_000 + (side === 0 ? strategySlippageBps : -strategySlippageBps))) / 10_000);
      let lots = Math.floor(baseAtomsForValue(tradeAtoms, priceE8, pair.base.decimals, pair.quote.decimals) / pair.baseAtomsPerLot);
      if (side === 1) lots = Math.min(lots, Math.floor(ledger.availableAtoms(vault.account, pair.base.index) / pair.baseAtomsPerLot));
      lots = Math.min(lots, pair.quantityLotsMax);
      const priceTicks = this.ticksAt(pair, limitE8, side === 0);
      // A refused order (no liquidity to hold against, a full book) changes nothing; the next run tries again.
      if (lots >= 1 && priceTicks >= 1) this.place(vault, pair, side, lots, priceTicks, false);
    });
  }

  /** Records the run's NAV as the point of its hour in the vault's history (VaultNavSampled). */
  private sample(vault: Vault, nowMs: number): void {
    const value = this.valuation(vault);
    const history = vault.navHistory;
    const replaced = history.length >= 3 && Math.floor(history[history.length - 3]! / navSampleMs) === Math.floor(nowMs / navSampleMs);
    if (replaced) history.length -= 3;
    history.push(nowMs, value.navAtoms, vault.totalShares);
    if (history.length > navHistoryMax * 3) history.splice(0, 3);
    const event: VaultNavSampled = { vaultId: vault.vaultId, atMs: nowMs, navAtoms: value.navAtoms, totalShares: vault.totalShares, replaced };
    this.port.emit(domainEvent(VaultsEventType.navSampled, event));
  }

  private emitNav(vault: Vault, atMs = this.port.commandTimeMs()): void {
    const value = this.valuation(vault);
    const event: VaultNav = { vaultId: vault.vaultId, atMs, navAtoms: value.navAtoms, cashAtoms: value.cashAtoms, baseAtoms: value.baseAtoms, pricesE8: value.pricesE8, totalShares: vault.totalShares };
    this.port.emit(domainEvent(VaultsEventType.nav, event));
  }

  // -------------------------------------------------------------------------------------------------
  // Hash and snapshot

  hash(hasher: StateHasher): void {
    if (this.strategyMs === 0 && this.vaults.length === 0 && this.keys.size === 0) return;
    hasher.number(-61);
    hasher.number(this.strategyMs);
    hasher.number(this.nextRunMs);
    hasher.number(this.vaults.length);
    for (const row of this.rows()) {
      for (const field of row) {
        if (typeof field === 'string') hasher.string(field);
        else if (typeof field === 'number') hasher.number(field);
        else {
          hasher.number(field.length);
          for (const value of field) {
            if (typeof value === 'number') hasher.number(value);
            else {
              hasher.number(value.length);
              for (const price of value) hasher.number(price);
            }
          }
        }
      }
    }
    hasher.number(this.keys.size);
    for (const key of this.keys) hasher.string(key);
  }

  private rows(): VaultRow[] {
    return this.vaults.map((vault): VaultRow => {
      const holders: number[] = [];
      for (const [userId, holder] of vault.holders) holders.push(userId, holder.shares, holder.costAtoms);
      return [vault.vaultId, vault.slug, vault.strategy, vault.pairs.map((pair) => pair.id), vault.mode, vault.ownerUserId, vault.totalShares, holders, vault.pricesE8.map((prices) => [...prices]), [...vault.quoteIds], [...vault.navHistory]];
    });
  }

  snapshot(): VaultsSnapshot | null {
    if (this.strategyMs === 0 && this.vaults.length === 0 && this.keys.size === 0) return null;
    return { strategyMs: this.strategyMs, nextRunMs: this.nextRunMs, vaults: this.rows(), keys: [...this.keys] };
  }

  restore(state: unknown): void {
    assert(this.vaults.length === 0 && this.keys.size === 0, 'restore needs a fresh vaults module');
    const data = state as Partial<VaultsSnapshot> | null;
    const integer = (value: unknown): value is number => Number.isSafeInteger(value);
    if (data === null || typeof data !== 'object' || !integer(data.strategyMs) || !integer(data.nextRunMs) || !Array.isArray(data.vaults) || !Array.isArray(data.keys)) {
      throw new Error('vaults snapshot: malformed');
    }
    if (data.vaults.length > vaultsMax || data.keys.length > idempotencyKeysMax) throw new Error('vaults snapshot: too large');
    for (const [index, stored] of data.vaults.entries()) {
      const row = stored as unknown[];
      // Snapshots written before quotes and NAV history had 9 fields: those vaults have neither.
      if (!Array.isArray(row) || (row.length !== 9 && row.length !== 11)) throw new Error('vaults snapshot: malformed vault');
      const [vaultId, slug, strategy, pairIds, mode, ownerUserId, totalShares, holders, prices] = row as VaultRow;
      const quoteIds: unknown = row.length === 11 ? row[9] : [];
      const navHistory: unknown = row.length === 11 ? row[10] : [];
      const pairs = Array.isArray(pairIds) && pairIds.length >= 1 && pairIds.length <= basketPairsMax ? pairIds.map((pairId) => (integer(pairId) ? this.port.markets.pairById(pairId) : undefined)) : [undefined];
      if (vaultId !== index + 1 || !isSlug(slug) || ![strategy, mode, ownerUserId, totalShares].every(integer) || pairs.includes(undefined) || (mode !== 0 && mode !== 1)) {
        throw new Error('vaults snapshot: malformed vault');
      }
      const memoryFits = (memory: unknown): boolean => Array.isArray(memory) && memory.length <= priceMemoryMax && memory.every(integer);
      if (!Array.isArray(holders) || holders.length % 3 !== 0 || !holders.every(integer) || !Array.isArray(prices) || prices.length !== pairs.length || !prices.every(memoryFits)) {
        throw new Error('vaults snapshot: malformed holders');
      }
      if (!Array.isArray(quoteIds) || quoteIds.length > quotesPerPairMax * pairs.length || !quoteIds.every(integer)) throw new Error('vaults snapshot: malformed quotes');
      if (!Array.isArray(navHistory) || navHistory.length % 3 !== 0 || navHistory.length > navHistoryMax * 3 || !navHistory.every(integer)) throw new Error('vaults snapshot: malformed NAV history');
      const account = this.port.ledger.find(domainUserId(vaultsDomainId, vaultId), mode);
      if (account === noAccount) throw new Error('vaults snapshot: a vault without its account');
      const vault = new Vault(vaultId, slug, strategy as Strategy, pairs as Pair[], mode, ownerUserId, account);
      vault.totalShares = totalShares;
      for (let at = 0; at < holders.length; at += 3) vault.holders.set(holders[at]!, new Holder(holders[at + 1]!, holders[at + 2]!));
      prices.forEach((memory, at) => vault.pricesE8[at]!.push(...memory));
      vault.quoteIds = [...(quoteIds as number[])];
      for (const value of navHistory as number[]) vault.navHistory.push(value);
      this.vaults.push(vault);
    }
    for (const key of data.keys) {
      if (typeof key !== 'string') throw new Error('vaults snapshot: malformed key');
      this.keys.add(key);
    }
    this.strategyMs = data.strategyMs;
    this.nextRunMs = data.nextRunMs;
  }
}

/** The vaults module of an engine built with the platform's domains. */
export function vaultsOf(engine: { domain(name: string): DomainModule | undefined }): Vaults {
  const vaults = engine.domain(Vaults.domainName);
  if (!(vaults instanceof Vaults)) throw new Error('this engine has no vaults module');
  return vaults;
}
