/**
 * The strategy vaults in the engine: the ERC-4626 share math and its rounding, the inflation guard, a
 * strategy trading through the exchange's order path at journaled times, the illiquid withdrawal refused
 * without a change and paid after an unwind, idempotency keys, an owner's own (paper) vault that nobody
 * else sees, refusals that change nothing, and a simulated journal that conserves money, replays through
 * the frame codec to the same state hash and restores from a snapshot to it.
 *
 * USDC has 6 ledger decimals (1 USDC = 1 000 000 atoms), ETH 8; ETH/USDC ticks are 0.01 and lots 0.0001 ETH.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, OrderType, SelfTradePrevention, TimeInForce, type Command, type Mode } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { EventKind, type EngineEvent } from '../../core/events.ts';
import { domainUserId } from '../../core/limits.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { restoreSnapshot, takeSnapshot } from '../../core/snapshot.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { JournaledEngine } from '../test-kit.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { PricesSimulation } from '../prices/simulation.ts';
import {
  Strategy,
  VaultsCommandType,
  VaultsEventType,
  VaultsResult,
  assetsForShares,
  baseValueAtoms,
  sharesForDeposit,
  sharesForWithdrawal,
  vaultsDomainId,
  navHistoryMax,
  type VaultNav,
  type VaultNavSampled,
  type VaultTraded,
} from './commands.ts';
import { Vaults, vaultsOf } from './vaults.ts';
import { VaultsSimulation } from './simulation.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const eth = markets.assetBySymbol('ETH')!;
const t0 = 1_767_225_600_000;
const usd = (units: number): number => units * 1_000_000;
const ethPriceE8 = 300_000_000_000;
const maker = 50;

class Harness extends JournaledEngine {
  constructor() {
    super({ markets });
  }


  get vaults(): Vaults {
    return vaultsOf(this.engine);
  }

  fund(userId: number, assetId: number, amountAtoms: number, mode: Mode = 0): void {
    assert.equal(this.apply(t0, { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId, amountAtoms }), Result.ok);
  }

  price(ts: number, priceE8: number): void {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: ['ETH'], pricesE8: [priceE8] };
    assert.equal(this.apply(ts, domainCommand(PricesCommandType.postPriceTicks, body)), Result.ok);
  }

  create(slug: string, strategy: Strategy, mode: Mode = 0, ownerUserId = 0): ResultCode {
    return this.apply(t0, domainCommand(VaultsCommandType.create, { slug, strategy, pairIds: [1], mode, ownerUserId }));
  }

  deposit(ts: number, vaultId: number, userId: number, amountAtoms: number, key: string): ResultCode {
    return this.apply(ts, domainCommand(VaultsCommandType.deposit, { vaultId, userId, amountAtoms, idempotencyKey: key }));
  }

  withdraw(ts: number, vaultId: number, userId: number, shares: number, amountAtoms: number, key: string): ResultCode {
    return this.apply(ts, domainCommand(VaultsCommandType.withdraw, { vaultId, userId, shares, amountAtoms, idempotencyKey: key }));
  }

  /** A resting limit of the maker on ETH/USDC (price in cents). */
  quote(side: 0 | 1, cents: number, lots: number): void {
    const command: Command = {
      kind: CommandKind.placeOrder,
      seq: 0,
      ts: 0,
      orderId: this.engine.lastOrderId + 1,
      userId: maker,
      mode: 0,
      pairId: 1,
      side,
      orderType: OrderType.limit,
      timeInForce: TimeInForce.gtc,
      priceTicks: cents,
      stopPriceTicks: 0,
      quantityLots: lots,
      postOnly: false,
      selfTradePrevention: SelfTradePrevention.cancelTaker,
      clientOrderId: '',
    };
    assert.equal(this.apply(t0, command), Result.ok);
  }

  balance(userId: number, assetIndex: number, mode: Mode = 0): number {
    const account = this.engine.ledger.find(userId, mode);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, assetIndex) + this.engine.ledger.heldAtoms(account, assetIndex);
  }

  domainEvents<Body>(type: number): Body[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: Body }).body);
  }
}

/**
 * A vault on ETH/USDC (market making unless told) with a maker quoting `bidCents` / `askCents` (10 ETH each)
 * and the oracle at 3000.
 */
function liquidVault(strategy: Strategy = Strategy.marketMaking, bidCents = 299_900, askCents = 300_100, bidLots = 100_000): Harness {
  const h = new Harness();
  h.fund(maker, usdc.id, usd(10_000_000));
  h.fund(maker, eth.id, 1_000 * 100_000_000);
  h.fund(1, usdc.id, usd(100_000));
  h.fund(2, usdc.id, usd(100_000));
  h.price(t0, ethPriceE8);
  h.quote(0, bidCents, bidLots);
  h.quote(1, askCents, 100_000);
  assert.equal(h.apply(t0, domainCommand(VaultsCommandType.configure, { strategyMs: 60_000 })), Result.ok);
  assert.equal(h.create('mm-eth', strategy), Result.ok);
  return h;
}

/** An immediate-or-cancel or resting limit order of `userId` on ETH/USDC. */
function order(h: Harness, userId: number, side: 0 | 1, cents: number, lots: number, timeInForce: TimeInForce = TimeInForce.ioc): Command {
  return {
    kind: CommandKind.placeOrder,
    seq: 0,
    ts: 0,
    orderId: h.engine.lastOrderId + 1,
    userId,
    mode: 0,
    pairId: 1,
    side,
    orderType: OrderType.limit,
    timeInForce,
    priceTicks: cents,
    stopPriceTicks: 0,
    quantityLots: lots,
    postOnly: false,
    selfTradePrevention: SelfTradePrevention.cancelTaker,
    clientOrderId: '',
  };
}

/** The ETH/USDC live book's levels, both sides, best first. */
function levels(h: Harness): Array<[number, number]> {
  const book = h.engine.context(1, 0)!.book;
  const rows: Array<[number, number]> = [];
  for (const side of [0, 1] as const) {
    const out: Array<{ priceTicks: number; lots: number; orders: number }> = [];
    const count = book.depth(side, 100, out);
    for (let index = 0; index < count; index++) rows.push([out[index]!.priceTicks, out[index]!.lots]);
  }
  return rows;
}

test('share math: deposits round down, withdrawals by amount round up and by shares pay down, as computed by hand', () => {
  // An empty vault: 1 USDC buys 10^6 × (0 + 1000) / (0 + 1) shares.
  assert.equal(sharesForDeposit(1_000_000, 0, 0), 1_000_000_000);
  // NAV 1 000 000, 10^9 shares: 500 000 × 1 000 001 000 / 1 000 001 = 500 000 000.49.. → 500 000 000.
  assert.equal(sharesForDeposit(500_000, 1_000_000_000, 1_000_000), 500_000_000);
  // Burning 3 shares of 1000 (+1000 virtual) over NAV 10 (+1): 3 × 11 / 2000 = 0.0165 → 0.
  assert.equal(assetsForShares(3, 1_000, 10), 0);
  // Receiving 1 atom of that vault burns 1 × 2000 / 11 = 181.8 → 182 shares.
  assert.equal(sharesForWithdrawal(1, 1_000, 10), 182);
  // A round trip never pays out more than went in.
  for (const [amount, shares, nav] of [[1_000_001, 7_777_777, 3_333_333], [5_000_000, 1, 999_999_999], [123_456_789, 10 ** 12, 10 ** 9]] as const) {
    const minted = sharesForDeposit(amount, shares, nav);
    assert.ok(assetsForShares(minted, shares + minted, nav + amount) <= amount, `round trip of ${amount}`);
    assert.ok(sharesForWithdrawal(amount, shares + minted, nav + amount) >= minted, `burn for ${amount}`);
  }
});

test('the virtual offset defeats the share-inflation attack on the first deposit', () => {
  const h = liquidVault();
  const attacker = 3;
  const victim = 4;
  h.fund(attacker, usdc.id, usd(1_000_001));
  h.fund(victim, usdc.id, usd(1_000_000));
  assert.equal(h.deposit(t0, 1, attacker, usd(1), 'a1'), Result.ok);
  // The attacker donates a million USDC straight into the vault's account to inflate the share price.
  h.fund(domainUserId(vaultsDomainId, 1), usdc.id, usd(1_000_000));
  assert.equal(h.deposit(t0, 1, victim, usd(1_000_000), 'v1'), Result.ok);
  const vault = h.vaults.vault(1)!;
  const victimShares = vault.holders.get(victim)!.shares;
  assert.equal(victimShares, 999_999_999);
  const nav = h.vaults.valuation(vault).navAtoms;
  const victimValue = assetsForShares(victimShares, vault.totalShares, nav);
  // The victim keeps all but a millionth of its deposit: the donation is shared, not captured.
  assert.ok(victimValue >= usd(1_000_000) - usd(1), `victim worth ${victimValue}`);
});

test('a strategy trades through the exchange at journaled times, and a holder withdraws with rounding for the vault', () => {
  const h = liquidVault(Strategy.trend);
  assert.equal(h.deposit(t0, 1, 1, usd(10_000), 'd1'), Result.ok);
  assert.equal(h.vaults.nextTimerMs(), t0 + 60_000);
  assert.equal(h.apply(t0 + 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  const trades = h.domainEvents<VaultTraded>(VaultsEventType.traded);
  assert.equal(trades.length, 1);
  // Half of NAV wanted in ETH, one tenth of NAV per run: a buy of 1000 USDC at the oracle price, 0.3333 ETH.
  assert.equal(trades[0]!.side, 0);
  assert.equal(trades[0]!.filledLots, 3_333);
  assert.ok(h.sink.events.some((event) => event.kind === EventKind.tradeExecuted), 'the fill is an exchange trade');
  assert.equal(h.balance(domainUserId(vaultsDomainId, 1), eth.index), 3_333 * 10_000);
  const navs = h.domainEvents<VaultNav>(VaultsEventType.nav);
  assert.deepEqual(navs.at(-1)!.baseAtoms, [3_333 * 10_000]);

  // Conservation: the holders' shares at the share price add up to NAV within rounding.
  assert.equal(h.deposit(t0 + 61_000, 1, 2, usd(2_500), 'd2'), Result.ok);
  const vault = h.vaults.vault(1)!;
  const nav = h.vaults.valuation(vault).navAtoms;
  let sum = 0;
  for (const holder of vault.holders.values()) sum += assetsForShares(holder.shares, vault.totalShares, nav);
  assert.ok(sum <= nav && nav - sum <= vault.holders.size + 1, `holders ${sum} of NAV ${nav}`);

  const before = h.balance(2, usdc.index);
  assert.equal(h.withdraw(t0 + 62_000, 1, 2, 0, usd(1_000), 'w1'), Result.ok);
  assert.equal(h.balance(2, usdc.index), before + usd(1_000));
  assert.equal(h.engine.ledger.audit(), null);
});

test('a withdrawal beyond free cash that the book cannot pay is refused before any sell: state, books, positions and shares unchanged', () => {
  // A trend vault that bought ETH, and a thin bid: 0.1 ETH at 2999.
  const h = liquidVault(Strategy.trend, 299_900, 300_100, 1_000);
  assert.equal(h.deposit(t0, 1, 1, usd(10_000), 'd1'), Result.ok);
  // Four runs (before the trend has its five prices): 10 % of NAV bought each time.
  for (let run = 1; run <= 4; run++) assert.equal(h.apply(t0 + run * 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  const vault = h.vaults.vault(1)!;
  const vaultUser = domainUserId(vaultsDomainId, 1);
  const value = h.vaults.valuation(vault);
  assert.ok(value.cashAtoms < usd(7_000) && value.baseAtoms[0]! > 0, `cash ${value.cashAtoms}`);
  const shares = vault.holders.get(1)!.shares;
  const hash = stateHash(h.engine);
  const events = h.sink.events.length;
  const book = levels(h);
  const positions = [h.balance(vaultUser, usdc.index), h.balance(vaultUser, eth.index), h.balance(1, usdc.index)];
  assert.equal(h.withdraw(t0 + 400_000, 1, 1, shares, 0, 'w-all'), VaultsResult.illiquid);
  assert.equal(h.withdraw(t0 + 400_000, 1, 1, 0, usd(9_000), 'w-9000'), VaultsResult.illiquid);
  assert.equal(stateHash(h.engine), hash);
  assert.equal(h.sink.events.length, events, 'no sell, no event');
  assert.deepEqual(levels(h), book);
  assert.deepEqual([h.balance(vaultUser, usdc.index), h.balance(vaultUser, eth.index), h.balance(1, usdc.index)], positions);
  assert.equal(vault.holders.get(1)!.shares, shares);
  assert.equal(vault.totalShares, shares);
  // What the thin bid can pay is paid, in the same command: the vault sells into it and pays.
  assert.equal(h.withdraw(t0 + 400_001, 1, 1, 0, Math.floor(value.cashAtoms + usd(100)), 'w-some'), Result.ok);
  assert.equal(h.engine.ledger.audit(), null);
});

test('a withdrawal beyond free cash cancels the quotes, sells and pays in one command; the withdrawer bears the sells\u2019 cost', () => {
  const h = liquidVault(Strategy.trend);
  assert.equal(h.deposit(t0, 1, 1, usd(10_000), 'd1'), Result.ok);
  for (let run = 1; run <= 4; run++) assert.equal(h.apply(t0 + run * 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  assert.equal(h.deposit(t0 + 241_000, 1, 2, usd(1_000), 'd2'), Result.ok);
  const vault = h.vaults.vault(1)!;
  const value = h.vaults.valuation(vault);
  const shares = vault.holders.get(1)!.shares;
  const owed = assetsForShares(shares, vault.totalShares, value.navAtoms);
  assert.ok(owed > value.cashAtoms, 'the withdrawal needs more than the free cash');
  const tradesBefore = h.domainEvents<VaultTraded>(VaultsEventType.traded).length;
  const before = h.balance(1, usdc.index);
  assert.equal(h.withdraw(t0 + 400_000, 1, 1, shares, 0, 'w-all'), Result.ok);
  const sells = h.domainEvents<VaultTraded>(VaultsEventType.traded).slice(tradesBefore);
  assert.equal(sells.length, 1);
  assert.ok(sells[0]!.unwind && sells[0]!.side === 1 && sells[0]!.filledLots > 0);
  const paid = h.balance(1, usdc.index) - before;
  // Sold at 2999 against an oracle of 3000, less the taker fee: the cost comes off the payment.
  const soldValue = baseValueAtoms(sells[0]!.filledLots * 10_000, ethPriceE8, eth.decimals, usdc.decimals);
  const cost = soldValue - (sells[0]!.filledNotionalAtoms - Math.ceil((sells[0]!.filledNotionalAtoms * h.engine.settings.takerFeeBps) / 10_000));
  assert.ok(cost > 0);
  assert.equal(paid, owed - cost);
  // The holder who stays is not worse off than the oracle value of its shares before.
  const after = h.vaults.valuation(vault);
  assert.equal(vault.holders.get(1), undefined);
  assert.ok(assetsForShares(vault.holders.get(2)!.shares, vault.totalShares, after.navAtoms) >= assetsForShares(vault.holders.get(2)!.shares, vault.totalShares + shares, value.navAtoms) - 1);
  assert.equal(h.engine.ledger.audit(), null);
});

test('the market-making vault rests two-sided post-only quotes around the oracle price, replaced each run, filled by takers', () => {
  // The maker quotes wide (2990 / 3010), so the vault's quotes are the best on the book.
  const h = liquidVault(Strategy.marketMaking, 299_000, 301_000);
  const vaultUser = domainUserId(vaultsDomainId, 1);
  const taker = 9;
  h.fund(taker, eth.id, 10 * 100_000_000);
  h.fund(taker, usdc.id, usd(100_000));
  assert.equal(h.deposit(t0, 1, 1, usd(10_000), 'd1'), Result.ok);
  assert.equal(h.apply(t0 + 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  // No ETH yet: a bid only, 20 bps below the oracle, raised 10 bps by the skew (all cash): 2997.00.
  let slots = h.engine.openOrderSlots(vaultUser, 0);
  assert.equal(slots.length, 1);
  assert.deepEqual(levels(h)[0], [299_700, 3_336]);
  assert.equal(h.domainEvents<VaultTraded>(VaultsEventType.traded).length, 0, 'quoting is not trading');
  // A taker sells into the vault's bid: the vault's fill is an exchange trade, reported as a quote fill.
  assert.equal(h.apply(t0 + 61_000, order(h, taker, 1, 299_700, 1_000)), Result.ok);
  const fills = h.domainEvents<VaultTraded>(VaultsEventType.traded);
  assert.equal(fills.length, 1);
  assert.deepEqual([fills[0]!.side, fills[0]!.filledLots, fills[0]!.quote, fills[0]!.unwind], [0, 1_000, true, false]);
  assert.equal(h.balance(vaultUser, eth.index), 1_000 * 10_000);
  // The next run cancels the old quote and posts a bid and an ask; the runs after keep two quotes.
  const cancelledBefore = h.sink.events.filter((event) => event.kind === EventKind.orderCancelled).length;
  for (let run = 2; run <= 4; run++) {
    assert.equal(h.apply(t0 + run * 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
    slots = h.engine.openOrderSlots(vaultUser, 0);
    assert.equal(slots.length, 2, `run ${run}`);
  }
  assert.equal(h.sink.events.filter((event) => event.kind === EventKind.orderCancelled).length - cancelledBefore, 1 + 2 + 2);
  const book = levels(h);
  const bid = book.find(([price]) => price < 300_000 && price > 299_000)!;
  const ask = book.find(([price]) => price > 300_000 && price < 301_000)!;
  assert.ok(bid[0] < 300_000 && ask[0] > 300_000, `quotes ${bid[0]} / ${ask[0]}`);
  // A taker buys from the vault's ask.
  assert.equal(h.apply(t0 + 241_000, order(h, taker, 0, ask[0], 500)), Result.ok);
  assert.deepEqual(h.domainEvents<VaultTraded>(VaultsEventType.traded).at(-1)!.side, 1);
  assert.equal(h.balance(vaultUser, eth.index), 500 * 10_000);
  // Withdrawing everything cancels the quotes (their holds come back) and sells the ETH left, in one command.
  const shares = h.vaults.vault(1)!.holders.get(1)!.shares;
  assert.equal(h.withdraw(t0 + 242_000, 1, 1, shares, 0, 'w-all'), Result.ok);
  assert.equal(h.engine.openOrderSlots(vaultUser, 0).length, 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('estimateSell tells what an IOC sell raises, without the account\u2019s own bids, and changes nothing', () => {
  const h = liquidVault(Strategy.marketMaking, 299_000, 301_000);
  const vaultUser = domainUserId(vaultsDomainId, 1);
  h.fund(3, usdc.id, usd(100_000));
  assert.equal(h.apply(t0, order(h, 3, 0, 299_500, 2_000, TimeInForce.gtc)), Result.ok);
  assert.equal(h.deposit(t0, 1, 1, usd(10_000), 'd1'), Result.ok);
  h.fund(vaultUser, eth.id, 100_000_000);
  assert.equal(h.apply(t0 + 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  assert.equal(h.engine.openOrderSlots(vaultUser, 0).length, 2, 'the vault quotes a bid and an ask');
  const hash = stateHash(h.engine);
  // 2000 lots at 2995 then 1000 at 2990 (the vault's own bid at 2997 is left out); a tick-lot is one atom.
  const estimate = h.engine.estimateSell(vaultUser, 0, 1, 3_000, 298_000);
  const notional = 299_500 * 2_000 + 299_000 * 1_000;
  assert.deepEqual(estimate, { filledLots: 3_000, filledNotionalAtoms: notional, proceedsAtoms: notional - Math.ceil((notional * h.engine.settings.takerFeeBps) / 10_000) });
  assert.equal(h.engine.estimateSell(vaultUser, 0, 1, 3_000, 299_100).filledLots, 2_000, 'the limit stops it');
  assert.equal(h.engine.estimateSell(vaultUser, 0, 99, 3_000, 299_100).filledLots, 0, 'unknown pair');
  assert.equal(stateHash(h.engine), hash);
  // Cancelled through the port, the vault's quotes release their holds.
  const vaults = h.vaults;
  const account = h.engine.ledger.find(vaultUser, 0);
  assert.ok(h.engine.ledger.heldAtoms(account, usdc.index) > 0);
  for (const slot of h.engine.openOrderSlots(vaultUser, 0)) assert.equal(h.engine.cancelGroupOrder(vaultUser, 0, h.engine.orders.orderId(slot)), Result.ok);
  assert.equal(h.engine.ledger.heldAtoms(account, usdc.index), 0);
  assert.equal(h.engine.cancelGroupOrder(3, 0, 1), Result.invalidUser, 'never a client\u2019s order');
  assert.ok(vaults.vault(1)!.quoteIds.length > 0);
});

test('the NAV history keeps the last point of each hour, in the state hash and the snapshot', () => {
  const h = liquidVault(Strategy.trend);
  assert.equal(h.deposit(t0, 1, 1, usd(10_000), 'd1'), Result.ok);
  const hour = 3_600_000;
  for (const at of [60_000, 120_000, hour + 60_000, 2 * hour + 60_000, 2 * hour + 120_000]) assert.equal(h.apply(t0 + at, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  const vault = h.vaults.vault(1)!;
  const points = (history: readonly number[]): number[] => history.filter((_, index) => index % 3 === 0);
  assert.deepEqual(points(vault.navHistory), [t0 + 120_000, t0 + hour + 60_000, t0 + 2 * hour + 120_000]);
  const samples = h.domainEvents<VaultNavSampled>(VaultsEventType.navSampled);
  assert.deepEqual(samples.map((sample) => sample.replaced), [false, true, false, false, true]);
  assert.equal(vault.navHistory[1], samples[1]!.navAtoms);
  const restored = new Engine({ markets, domains: platformDomains });
  restoreSnapshot(restored, takeSnapshot(h.engine));
  assert.deepEqual(vaultsOf(restored).vault(1)!.navHistory, vault.navHistory);
  assert.equal(stateHash(restored), stateHash(h.engine));
  // The history is part of the state: a different series is a different hash.
  vault.navHistory.push(t0 + 3 * hour, 1, 1);
  assert.notEqual(stateHash(restored), stateHash(h.engine));
  vault.navHistory.length -= 3;
  // Bounded: one point an hour, at most navHistoryMax of them.
  for (let run = 3; run <= navHistoryMax + 5; run++) h.apply(t0 + run * hour, { kind: CommandKind.runTimers, seq: 0, ts: 0 });
  assert.equal(vault.navHistory.length, navHistoryMax * 3);
  assert.equal(vault.navHistory.at(-3), t0 + (navHistoryMax + 5) * hour);
});

test('refusals change nothing: unknown vault, bad amounts, more shares than held, a repeated key, bad configuration', () => {
  const h = liquidVault();
  assert.equal(h.deposit(t0, 1, 1, usd(100), 'k1'), Result.ok);
  const hash = stateHash(h.engine);
  const shares = h.vaults.vault(1)!.holders.get(1)!.shares;
  assert.equal(h.deposit(t0, 9, 1, usd(100), 'k2'), VaultsResult.vaultNotFound);
  assert.equal(h.deposit(t0, 1, 1, 0, 'k2'), VaultsResult.invalidAmount);
  assert.equal(h.deposit(t0, 1, 1, usd(1_000_000), 'k2'), VaultsResult.insufficientBalance);
  assert.equal(h.deposit(t0, 1, 1, usd(100), 'k1'), VaultsResult.duplicateKey);
  assert.equal(h.deposit(t0, 1, 1, usd(100), ''), VaultsResult.invalidKey);
  assert.equal(h.withdraw(t0, 1, 1, shares + 1, 0, 'k3'), VaultsResult.insufficientShares);
  assert.equal(h.withdraw(t0, 1, 2, 1, 0, 'k3'), VaultsResult.insufficientShares);
  assert.equal(h.withdraw(t0, 1, 1, 1, usd(1), 'k3'), VaultsResult.invalidAmount);
  assert.equal(h.withdraw(t0, 1, 1, -5, 0, 'k3'), VaultsResult.invalidAmount);
  assert.equal(h.withdraw(t0, 1, 1, 1, 0, 'k1'), VaultsResult.duplicateKey);
  assert.equal(h.create('mm-eth', Strategy.trend), VaultsResult.invalidVault);
  assert.equal(h.create('Bad', Strategy.trend), VaultsResult.invalidVault);
  assert.equal(h.apply(t0, domainCommand(VaultsCommandType.configure, { strategyMs: 5 })), VaultsResult.invalidConfiguration);
  assert.equal(stateHash(h.engine), hash);
});

test('an owner’s own paper vault: funded from paper balances, invisible to anyone else', () => {
  const h = liquidVault();
  h.fund(7, usdc.id, usd(50_000), 1);
  h.fund(8, usdc.id, usd(50_000), 1);
  assert.equal(h.create('paper-7-1', Strategy.trend, 1, 7), Result.ok);
  assert.equal(h.deposit(t0, 2, 7, usd(10_000), 'p1'), Result.ok);
  assert.equal(h.balance(7, usdc.index, 1), usd(40_000));
  assert.equal(h.balance(7, usdc.index, 0), 0, 'the live account is untouched');
  const hash = stateHash(h.engine);
  assert.equal(h.deposit(t0, 2, 8, usd(1_000), 'p2'), VaultsResult.vaultNotFound);
  assert.equal(h.withdraw(t0, 2, 8, 1, 0, 'p3'), VaultsResult.vaultNotFound);
  assert.equal(stateHash(h.engine), hash);
  assert.equal(h.withdraw(t0 + 1, 2, 7, 0, usd(10_000), 'p4'), Result.ok);
  assert.equal(h.balance(7, usdc.index, 1), usd(50_000));
});

test('the strategies\u2019 rules, on price series worked by hand', () => {
  assert.deepEqual(Vaults.targetBps(Strategy.trend, [[100, 100, 100, 100]]), [5_000], 'too little history');
  // MA of the last five: (100 + 100 + 100 + 100 + 110) / 5 = 102 < 110: up.
  assert.deepEqual(Vaults.targetBps(Strategy.trend, [[100, 100, 100, 100, 110]]), [8_000]);
  assert.deepEqual(Vaults.targetBps(Strategy.trend, [[120, 120, 120, 120, 110]]), [2_000]);
  // Momentum over three runs: 101 > 100 rose, 99 < 100 fell; the risers share 90 %.
  assert.deepEqual(Vaults.targetBps(Strategy.momentum, [[100, 90, 95, 101]]), [9_000]);
  assert.deepEqual(Vaults.targetBps(Strategy.momentum, [[100, 90, 95, 99]]), [0]);
  assert.deepEqual(Vaults.targetBps(Strategy.momentum, [[100, 90, 95, 101], [50, 60, 70, 80], [10, 9, 8, 7]]), [4_500, 4_500, 0]);
  assert.deepEqual(Vaults.targetBps(Strategy.momentum, [[100, 101], [50, 60, 70, 80]]), [2_500, 2_500], 'half, spread, until the history is there');
  assert.deepEqual(Vaults.targetBps(Strategy.basket, [[1], [2], [3]]), [3_000, 3_000, 3_000]);
  assert.deepEqual(Vaults.targetBps(Strategy.marketMaking, [[1, 2, 3]]), [5_000]);
});

test('a basket vault holds every asset of its basket and values each at its oracle price', () => {
  const h = liquidVault();
  h.fund(maker, markets.assetBySymbol('BTC')!.id, 10 * 100_000_000);
  const btcTicks = 9_000_000;
  h.apply(t0, domainCommand(PricesCommandType.postPriceTicks, { source: PriceSource.sim, symbols: ['BTC'], pricesE8: [btcTicks * 1_000_000] } satisfies PostPriceTicks));
  const btcOrder = { kind: CommandKind.placeOrder, seq: 0, ts: 0, userId: maker, mode: 0, pairId: 2, side: 1, orderType: OrderType.limit, timeInForce: TimeInForce.gtc, priceTicks: btcTicks + 9_000, stopPriceTicks: 0, quantityLots: 50_000, postOnly: false, selfTradePrevention: SelfTradePrevention.cancelTaker, clientOrderId: '' } as const;
  assert.equal(h.apply(t0, { ...btcOrder, orderId: h.engine.lastOrderId + 1 }), Result.ok);
  assert.equal(h.apply(t0, domainCommand(VaultsCommandType.create, { slug: 'basket', strategy: Strategy.basket, pairIds: [1, 2], mode: 0, ownerUserId: 0 })), Result.ok);
  assert.equal(h.apply(t0, domainCommand(VaultsCommandType.create, { slug: 'two-mm', strategy: Strategy.marketMaking, pairIds: [1, 2], mode: 0, ownerUserId: 0 })), VaultsResult.invalidVault);
  assert.equal(h.apply(t0, domainCommand(VaultsCommandType.create, { slug: 'twice', strategy: Strategy.basket, pairIds: [1, 1], mode: 0, ownerUserId: 0 })), VaultsResult.invalidVault);
  assert.equal(h.deposit(t0, 2, 1, usd(10_000), 'b1'), Result.ok);
  assert.equal(h.apply(t0 + 60_000, { kind: CommandKind.runTimers, seq: 0, ts: 0 }), Result.ok);
  const trades = h.domainEvents<VaultTraded>(VaultsEventType.traded).filter((trade) => trade.vaultId === 2);
  assert.deepEqual(trades.map((trade) => [trade.pairId, trade.side]), [[1, 0], [2, 0]], 'one buy on each pair');
  const nav = h.domainEvents<VaultNav>(VaultsEventType.nav).at(-1)!;
  assert.equal(nav.baseAtoms.length, 2);
  assert.ok(nav.baseAtoms.every((atoms) => atoms > 0));
  const vault = h.vaults.vault(2)!;
  const value = h.vaults.valuation(vault);
  assert.equal(value.navAtoms, nav.navAtoms);
  assert.equal(h.engine.ledger.audit(), null);
});

test('a simulated journal conserves money, replays through the frame codec to the same hash, and a snapshot restores it', () => {
  const h = liquidVault();
  const random = new Prng(61);
  const vaults = new VaultsSimulation();
  const prices = new PricesSimulation();
  let ts = t0;
  for (let index = 0; index < 4000; index++) {
    ts += random.int(0, 2_000);
    const roll = random.next();
    const command = roll < 0.1 ? prices.next(random, ts) : roll < 0.9 ? vaults.next(random, ts) : ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command);
    h.apply(ts, command);
    assert.equal(h.engine.ledger.audit(), null);
  }
  const simVaults = h.vaults.vaults.filter((vault) => vault.slug.startsWith('sim-'));
  assert.equal(simVaults.length, 4);
  assert.ok(h.domainEvents<VaultTraded>(VaultsEventType.traded).length > 0, 'the strategies traded');
  for (const vault of h.vaults.vaults) {
    const nav = h.vaults.valuation(vault).navAtoms;
    let sum = 0;
    for (const holder of vault.holders.values()) sum += assetsForShares(holder.shares, vault.totalShares, nav);
    assert.ok(sum <= nav + 1, `vault ${vault.slug}: holders ${sum} of NAV ${nav}`);
  }

  // Through the journal codec into a fresh engine, and a snapshot restored: both reach the live hash.
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  const next = ts + 120_000;
  const timers: Command = { kind: CommandKind.runTimers, seq: h.journal.length + 1, ts: next };
  assert.equal(restored.apply({ ...timers }), h.engine.apply({ ...timers }));
  assert.equal(stateHash(restored), stateHash(h.engine));
});
