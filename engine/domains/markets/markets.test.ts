/**
 * The markets module: creation rules, the lifecycle through journaled RunTimers, the binary books'
 * cash flows (escrow = 1000 × open shares after every fill; opening, transferring and closing trades; the
 * taker fee), settlement with one winner and with ties, the WTA pool's pro-rata floors and remainder and
 * the no-winner refund, refusals that change nothing, replay through the journal codec, snapshots, and
 * the fast book against the reference book over a seeded stream.
 */
import { test } from 'node:test';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand, type DomainFactory } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import type { EngineSettings } from '../../core/limits.ts';
import { CollectingSink, EventKind, type EngineEvent } from '../../core/events.ts';
import { ReferenceBookFactory } from '../../core/book/reference-book.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { restoreSnapshot, takeSnapshot } from '../../core/snapshot.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { Twaps } from '../exchange-algos/twaps.ts';
import { platformDomains } from '../index.ts';
import { Prices } from '../prices/prices.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/index.ts';
import { PricesSimulation } from '../prices/simulation.ts';
import {
  AssetType,
  MarketStatus,
  MarketsCommandType,
  MarketsEventType,
  MarketsResult,
  isMarketAddress,
  marketAddress,
  marketsOf,
  MarketsModule,
  escrowUserId,
  takerFee,
  type CreateMarket,
  type MarketCompleted,
  type MarketTradeExecuted,
} from './index.ts';
import { MarketsSimulation } from './simulation.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const t0 = 1_767_225_600_000;
const startQuote = 1_000_000_000_000; // 1 000 000 USDC

class Harness {
  readonly sink = new CollectingSink();
  readonly engine: Engine;
  readonly journal: Command[] = [];
  private seq = 0;
  now = t0;

  constructor(domains: DomainFactory = platformDomains, settings: Partial<EngineSettings> = {}) {
    this.engine = new Engine({ markets, sink: this.sink, domains, settings });
    for (let userId = 1; userId <= 6; userId++) this.apply({ kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: 0, assetId: usdc.id, amountAtoms: startQuote });
    this.ticks({ BTC: 100_000_00000000, ETH: 3_000_00000000, SOL: 150_00000000 });
  }

  apply(command: Command): ResultCode {
    command.seq = ++this.seq;
    command.ts = this.now;
    const result = this.engine.apply(command);
    if (result === Result.ok) this.journal.push(command);
    return result;
  }

  ticks(prices: Record<string, number>): ResultCode {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: Object.keys(prices), pricesE8: Object.values(prices) };
    return this.apply(domainCommand(PricesCommandType.postPriceTicks, body));
  }

  create(overrides: Partial<CreateMarket> = {}): ResultCode {
    const body: CreateMarket = {
      userId: 1,
      name: 'Which moves most',
      description: 'BTC, ETH or SOL',
      assets: ['BTC', 'ETH', 'SOL'],
      assetType: AssetType.crypto,
      tokenAssetId: usdc.id,
      startMs: this.now + 1_000,
      endMs: this.now + 61_000,
      minBetAtoms: 1_000_000,
      maxBetAtoms: 100_000_000,
      ...overrides,
    };
    return this.apply(domainCommand(MarketsCommandType.createMarket, body));
  }

  order(userId: number, asset: string, side: number, priceTicks: number, lots: number, marketId = 1): ResultCode {
    return this.apply(domainCommand(MarketsCommandType.placeMarketOrder, { userId, marketId, asset, side, priceTicks, lots }));
  }

  cancel(userId: number, orderId: number, marketId = 1): ResultCode {
    return this.apply(domainCommand(MarketsCommandType.cancelMarketOrder, { userId, marketId, orderId }));
  }

  bet(userId: number, asset: string, amountAtoms: number, marketId = 1): ResultCode {
    return this.apply(domainCommand(MarketsCommandType.placeBet, { userId, marketId, asset, amountAtoms }));
  }

  runTimersAt(ms: number): ResultCode {
    this.now = ms;
    return this.apply({ kind: CommandKind.runTimers, seq: 0, ts: 0 });
  }

  get module(): MarketsModule {
    return marketsOf(this.engine);
  }

  /** Available and held USDC of a user. */
  balance(userId: number): { available: number; held: number } {
    const account = this.engine.ledger.find(userId, 0);
    return { available: this.engine.ledger.availableAtoms(account, usdc.index), held: this.engine.ledger.heldAtoms(account, usdc.index) };
  }

  fees(): number {
    return this.engine.ledger.availableAtoms(0, usdc.index);
  }

  domainEvents(type: number): unknown[] {
    return this.sink.events.filter((event): event is Extract<EngineEvent, { kind: typeof EventKind.domain }> => event.kind === EventKind.domain && event.type === type).map((event) => event.body);
  }

  check(): void {
    assert.equal(this.engine.ledger.audit(), null);
    assert.equal(this.module.audit(), null);
  }
}

test('creation is validated whole: every refusal has its code and changes nothing', () => {
  const h = new Harness();
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  const cases: Array<[Partial<CreateMarket>, ResultCode, string]> = [
    [{ assets: ['BTC'] }, MarketsResult.invalidMarket, 'one asset'],
    [{ assets: Array.from({ length: 21 }, (_, index) => `A${index}`) }, MarketsResult.invalidMarket, '21 assets'],
    [{ assets: ['BTC', 'BTC'] }, MarketsResult.invalidMarket, 'repeated asset'],
    [{ assets: ['BTC', 'btc'] }, MarketsResult.invalidMarket, 'bad symbol'],
    [{ name: ' ' }, MarketsResult.invalidMarket, 'blank name'],
    [{ name: 'x'.repeat(121) }, MarketsResult.invalidMarket, 'long name'],
    [{ assetType: 7 as AssetType }, MarketsResult.invalidMarket, 'asset type'],
    [{ assets: ['BTC', 'AAPL'] }, MarketsResult.assetNotPriced, 'unpriced asset'],
    [{ tokenAssetId: 999 }, MarketsResult.invalidToken, 'unknown token'],
    [{ startMs: t0 - 1 }, MarketsResult.invalidSchedule, 'start in the past'],
    [{ endMs: t0 + 1_000 }, MarketsResult.invalidSchedule, 'end at start'],
    [{ endMs: t0 + 1_000 + 91 * 86_400_000 }, MarketsResult.invalidSchedule, 'longer than 90 days'],
    [{ minBetAtoms: 0 }, MarketsResult.invalidBetBounds, 'zero min bet'],
    [{ minBetAtoms: 5, maxBetAtoms: 4 }, MarketsResult.invalidBetBounds, 'min above max'],
    [{ maxBetAtoms: 1_000_001 * 1_000_000 }, MarketsResult.invalidBetBounds, 'max above the cap'],
    [{ userId: 0 }, MarketsResult.invalidUser, 'user 0'],
    [{ userId: escrowUserId }, MarketsResult.invalidUser, 'a domain account'],
  ];
  for (const [overrides, expected, why] of cases) assert.equal(h.create(overrides), expected, why);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
  assert.equal(h.create({ startMs: t0 }), Result.ok, 'a start at the command time is accepted');
  const created = h.domainEvents(MarketsEventType.marketCreated)[0] as { marketId: number; address: string };
  assert.equal(created.marketId, 1);
  assert.equal(created.address, marketAddress(1));
});

test('contract addresses: 0x and 40 lowercase hex, distinct over a range of ids, a pure function of the id', () => {
  const seen = new Set<string>();
  for (let id = 1; id <= 20_000; id++) {
    const address = marketAddress(id);
    assert.ok(isMarketAddress(address), address);
    seen.add(address);
  }
  assert.equal(seen.size, 20_000);
  assert.equal(marketAddress(77), marketAddress(77));
  assert.ok(isMarketAddress(marketAddress(2 ** 40 + 3)));
});

test('lifecycle: pending, active at start with start prices, completed at end by RunTimers', () => {
  const h = new Harness();
  assert.equal(h.create(), Result.ok);
  const market = h.module.market(1)!;
  assert.equal(market.status, MarketStatus.pending);
  assert.equal(h.engine.nextTimerMs(), t0 + 1_000);
  assert.equal(h.runTimersAt(t0 + 999), Result.nothingDue);
  assert.equal(h.runTimersAt(t0 + 1_000), Result.ok);
  assert.equal(market.status, MarketStatus.active);
  assert.deepEqual(market.startPricesE8, [100_000_00000000, 3_000_00000000, 150_00000000]);
  assert.equal(h.engine.nextTimerMs(), t0 + 61_000);
  h.ticks({ BTC: 101_000_00000000, ETH: 3_060_00000000, SOL: 150_00000000 });
  assert.equal(h.runTimersAt(t0 + 61_000), Result.ok);
  assert.equal(market.status, MarketStatus.completed);
  const completed = h.domainEvents(MarketsEventType.marketCompleted)[0] as MarketCompleted;
  assert.deepEqual(completed.winners, [1], 'ETH +2 % beats BTC +1 %');
  assert.deepEqual(completed.changesE6, [10_000, 20_000, 0]);
  assert.deepEqual(completed.ranks, [2, 1, 3]);
  assert.equal(h.order(2, 'BTC', 0, 500, 1_000), MarketsResult.marketCompleted);
  assert.equal(h.bet(2, 'BTC', 1_000_000), MarketsResult.marketCompleted);
  assert.equal(h.runTimersAt(t0 + 70_000), Result.nothingDue);
});

test('binary book: opening mints pairs into escrow, later trades transfer and close, the taker pays 10 bps', () => {
  const h = new Harness();
  h.create();
  const escrow = () => h.module.escrowBalance(usdc.index);
  // User 2 bids 0.600 for 1 share (1000 lots); user 3 sells at 0.550: opens a NO at the maker's 0.600.
  assert.equal(h.order(2, 'BTC', 0, 600, 1_000), Result.ok);
  assert.deepEqual(h.balance(2), { available: startQuote - 600_000, held: 600_000 }, 'the resting bid holds its price, its fee cap released');
  assert.equal(h.order(3, 'BTC', 1, 550, 1_000), Result.ok);
  h.check();
  assert.equal(escrow(), 1_000_000, 'one share fully collateralised');
  const fee = takerFee(600_000, h.engine.settings.takerFeeBps);
  assert.equal(fee, 600);
  assert.deepEqual(h.balance(2), { available: startQuote - 600_000, held: 0 });
  assert.deepEqual(h.balance(3), { available: startQuote - 400_000 - fee, held: 0 }, 'the seller paid 1 − 0.600 and the fee');
  assert.equal(h.fees(), fee);
  const market = h.module.market(1)!;
  assert.equal(market.positions.get(2)!.long[0], 1_000);
  assert.equal(market.positions.get(3)!.short[0], 1_000);

  // User 2 sells its YES share to user 4 at 0.700 (covered: a transfer, escrow unchanged).
  assert.equal(h.order(2, 'BTC', 1, 700, 1_000), Result.ok);
  assert.equal(market.positions.get(2)!.reservedLong[0], 1_000);
  assert.deepEqual(h.balance(2), { available: startQuote - 600_000, held: 0 }, 'a covered sell needs no collateral once resting');
  assert.equal(h.order(4, 'BTC', 0, 750, 1_000), Result.ok);
  h.check();
  assert.equal(escrow(), 1_000_000);
  assert.deepEqual(h.balance(2), { available: startQuote + 100_000, held: 0 }, 'bought at 0.600, sold at 0.700');
  assert.deepEqual(h.balance(4), { available: startQuote - 700_000 - takerFee(700_000, h.engine.settings.takerFeeBps), held: 0 }, 'filled at the maker price, the rest released');

  // User 3 buys back its NO at 0.650 from user 4 selling YES: both close, the escrow pays out the pair.
  assert.equal(h.order(4, 'BTC', 1, 650, 1_000), Result.ok);
  assert.equal(h.order(3, 'BTC', 0, 650, 1_000), Result.ok);
  h.check();
  assert.equal(escrow(), 0);
  assert.equal(market.longLots[0], 0);
  assert.equal(market.shortLots[0], 0);
  assert.deepEqual(h.balance(3), { available: startQuote - 400_000 - fee + 350_000 - takerFee(650_000, h.engine.settings.takerFeeBps), held: 0 });
  const trades = h.domainEvents(MarketsEventType.marketTradeExecuted) as MarketTradeExecuted[];
  assert.equal(trades.length, 3);
  assert.deepEqual(trades.map((trade) => trade.priceTicks), [600, 700, 650]);
  assert.deepEqual(trades.map((trade) => trade.takerFeeAtoms), [600, 700, 650]);
});

test('the taker pays the engine\'s taker fee rate from the port\'s settings, not a rate of its own', () => {
  const h = new Harness(platformDomains, { takerFeeBps: 25 });
  h.create();
  assert.equal(h.order(2, 'BTC', 0, 600, 1_000), Result.ok);
  assert.equal(h.order(3, 'BTC', 1, 550, 1_000), Result.ok);
  h.check();
  assert.equal(takerFee(600_000, 25), 1_500);
  assert.equal(h.fees(), 1_500, '25 bps of the 0.600 notional');
  assert.deepEqual(h.balance(3), { available: startQuote - 400_000 - 1_500, held: 0 });
});

test('orders: partial fills rest at the limit, cancel releases holds and reservations, self-trades cancel the taker', () => {
  const h = new Harness();
  h.create();
  h.order(2, 'ETH', 1, 400, 500); // order 1: opens NO collateral (0.600 × 0.5)
  assert.deepEqual(h.balance(2), { available: startQuote - 300_000, held: 300_000 });
  h.order(3, 'ETH', 0, 450, 2_000); // order 2: fills 500 at 0.400, rests 1500 at 0.450
  h.check();
  const resting = h.module.order(2)!;
  assert.equal(resting.remainingLots, 1_500);
  assert.deepEqual(h.balance(3), { available: startQuote - 200_000 - takerFee(200_000, h.engine.settings.takerFeeBps) - 675_000, held: 675_000 });
  // Self-trade: user 3 selling into its own bid is cancelled as taker; nothing trades.
  const tradesBefore = h.domainEvents(MarketsEventType.marketTradeExecuted).length;
  assert.equal(h.order(3, 'ETH', 1, 450, 100), Result.ok);
  assert.equal(h.domainEvents(MarketsEventType.marketTradeExecuted).length, tradesBefore);
  const cancelled = h.domainEvents(MarketsEventType.marketOrderCancelled).at(-1) as { reason: number; orderId: number };
  assert.deepEqual([cancelled.orderId, cancelled.reason], [3, 1]);
  assert.equal(h.cancel(2, 2), MarketsResult.orderNotFound, 'someone else\'s order');
  assert.equal(h.cancel(3, 2, 9), MarketsResult.marketNotFound);
  assert.equal(h.cancel(3, 2), Result.ok);
  assert.deepEqual(h.balance(3), { available: startQuote - 200_000 - takerFee(200_000, h.engine.settings.takerFeeBps), held: 0 });
  assert.equal(h.cancel(3, 2), MarketsResult.orderNotFound, 'already gone');
  h.check();
});

test('settlement pays winning YES and losing NO lots, cancels resting orders and drains the escrow; ties all win', () => {
  const h = new Harness();
  h.create();
  h.order(2, 'BTC', 0, 300, 2_000);
  h.order(3, 'BTC', 1, 300, 2_000); // 2 long BTC, 3 short BTC
  h.order(4, 'ETH', 0, 500, 1_000);
  h.order(5, 'ETH', 1, 500, 1_000); // 4 long ETH, 5 short ETH
  h.order(6, 'SOL', 0, 100, 3_000); // rests until settlement
  h.runTimersAt(t0 + 1_000);
  // BTC and ETH both +5 %: a tie, both win; SOL flat.
  h.ticks({ BTC: 105_000_00000000, ETH: 3_150_00000000 });
  const before = { two: h.balance(2).available, three: h.balance(3).available, four: h.balance(4).available, five: h.balance(5).available };
  h.runTimersAt(t0 + 61_000);
  h.check();
  const completed = h.domainEvents(MarketsEventType.marketCompleted)[0] as MarketCompleted;
  assert.deepEqual(completed.winners, [0, 1]);
  assert.deepEqual(completed.ranks, [1, 1, 3]);
  assert.equal(h.balance(2).available - before.two, 2_000_000, 'two winning YES shares pay 1 each');
  assert.equal(h.balance(3).available - before.three, 0, 'NO on a winner pays nothing');
  assert.equal(h.balance(4).available - before.four, 1_000_000);
  assert.equal(h.balance(5).available - before.five, 0);
  assert.deepEqual(h.balance(6), { available: startQuote, held: 0 }, 'the resting bid was cancelled and released');
  assert.equal(h.module.escrowBalance(usdc.index), 0);
  const cancelled = h.domainEvents(MarketsEventType.marketOrderCancelled) as Array<{ reason: number }>;
  assert.deepEqual(cancelled.map((event) => event.reason), [2]);

  // A single winner: a NO on a loser pays.
  const g = new Harness();
  g.create();
  g.order(2, 'SOL', 0, 200, 1_000);
  g.order(3, 'SOL', 1, 200, 1_000);
  g.runTimersAt(t0 + 1_000);
  g.ticks({ BTC: 90_000_00000000, ETH: 2_900_00000000, SOL: 151_00000000 });
  const three = g.balance(3).available;
  g.runTimersAt(t0 + 61_000);
  assert.deepEqual((g.domainEvents(MarketsEventType.marketCompleted)[0] as MarketCompleted).winners, [2]);
  assert.equal(g.balance(3).available - three, 0, 'SOL won: the NO pays nothing');
  assert.equal(g.balance(2).available, startQuote - 200_000 + 1_000_000);
  g.check();
});

test('WTA: pro-rata to winning stakes, floored, remainder to the fee account; nobody on a winner: all refunded', () => {
  const h = new Harness();
  h.create();
  assert.equal(h.bet(2, 'ETH', 999_999), MarketsResult.betOutOfBounds);
  assert.equal(h.bet(2, 'ETH', 100_000_001), MarketsResult.betOutOfBounds);
  assert.equal(h.bet(2, 'DOGE', 1_000_000), MarketsResult.assetNotInMarket);
  assert.equal(h.bet(2, 'ETH', 1_000_000), Result.ok);
  assert.equal(h.bet(3, 'ETH', 2_000_000), Result.ok);
  assert.equal(h.bet(2, 'ETH', 1_000_000), Result.ok, 'a second bet adds to the stake');
  assert.equal(h.bet(4, 'BTC', 3_000_001), Result.ok);
  assert.equal(h.bet(5, 'SOL', 1_000_000), Result.ok);
  assert.deepEqual(h.balance(2), { available: startQuote - 2_000_000, held: 2_000_000 }, 'held at once');
  h.runTimersAt(t0 + 1_000);
  assert.equal(h.bet(6, 'BTC', 1_000_000), Result.ok, 'bets are open while active');
  h.ticks({ ETH: 3_300_00000000 });
  const fees = h.fees();
  h.runTimersAt(t0 + 61_000);
  h.check();
  // Pool 9 000 001; winning (ETH) stakes 2 000 000 and 2 000 000: floor(pool / 2) each, 1 atom left.
  const completed = h.domainEvents(MarketsEventType.marketCompleted)[0] as MarketCompleted;
  assert.equal(completed.poolAtoms, 9_000_001);
  assert.equal(completed.remainderAtoms, 1);
  assert.equal(completed.refunded, false);
  assert.deepEqual(
    completed.betPayouts.map((payout) => [payout.userId, payout.stakeAtoms, payout.payoutAtoms]),
    [[2, 2_000_000, 4_500_000], [3, 2_000_000, 4_500_000], [4, 3_000_001, 0], [5, 1_000_000, 0], [6, 1_000_000, 0]],
  );
  assert.deepEqual(h.balance(2), { available: startQuote + 2_500_000, held: 0 });
  assert.deepEqual(h.balance(4), { available: startQuote - 3_000_001, held: 0 });
  assert.equal(h.fees() - fees, 1);

  const r = new Harness();
  r.create();
  r.bet(2, 'BTC', 1_500_000);
  r.bet(3, 'SOL', 2_500_000);
  r.runTimersAt(t0 + 1_000);
  r.ticks({ ETH: 3_100_00000000 });
  r.runTimersAt(t0 + 61_000);
  const refund = r.domainEvents(MarketsEventType.marketCompleted)[0] as MarketCompleted;
  assert.equal(refund.refunded, true);
  assert.deepEqual(refund.betPayouts.map((payout) => payout.payoutAtoms), [1_500_000, 2_500_000]);
  assert.deepEqual(r.balance(2), { available: startQuote, held: 0 });
  assert.deepEqual(r.balance(3), { available: startQuote, held: 0 });
  r.check();
});

test('order and bet refusals change nothing: not the hash, not an event', () => {
  const h = new Harness();
  h.create();
  h.order(2, 'BTC', 0, 500, 1_000);
  h.apply({ kind: CommandKind.deposit, seq: 0, ts: 0, userId: 7, mode: 0, assetId: usdc.id, amountAtoms: 500_000 });
  const before = stateHash(h.engine);
  const events = h.sink.events.length;
  const refusals: Array<[() => ResultCode, ResultCode, string]> = [
    [() => h.order(2, 'BTC', 0, 0, 1_000), MarketsResult.invalidOrder, 'price 0'],
    [() => h.order(2, 'BTC', 0, 1_000, 1_000), MarketsResult.invalidOrder, 'price 1'],
    [() => h.order(2, 'BTC', 2, 500, 1_000), MarketsResult.invalidOrder, 'side'],
    [() => h.order(2, 'BTC', 0, 500, 0), MarketsResult.invalidOrder, 'no lots'],
    [() => h.order(2, 'BTC', 0, 500, 100_000_001), MarketsResult.invalidOrder, 'too many lots'],
    [() => h.order(2, 'BTC', 0, 500.5, 10), MarketsResult.invalidOrder, 'fractional price'],
    [() => h.order(2, 'DOGE', 0, 500, 10), MarketsResult.assetNotInMarket, 'asset'],
    [() => h.order(2, 'BTC', 0, 500, 10, 2), MarketsResult.marketNotFound, 'market'],
    [() => h.order(9, 'BTC', 0, 500, 10), Result.insufficientBalance, 'no account'],
    [() => h.order(7, 'BTC', 0, 500, 1_000), Result.insufficientBalance, 'the fee cap does not fit'],
    [() => h.order(7, 'BTC', 1, 499, 1_000), Result.insufficientBalance, 'an uncovered sell needs 1 − price'],
    [() => h.order(0, 'BTC', 0, 500, 10), MarketsResult.invalidUser, 'user 0'],
    [() => h.bet(9, 'BTC', 1_000_000), Result.insufficientBalance, 'bet without funds'],
    [() => h.bet(2, 'BTC', 1.5), MarketsResult.betOutOfBounds, 'fractional bet'],
    [() => h.cancel(2, 77), MarketsResult.orderNotFound, 'unknown order'],
  ];
  for (const [run, expected, why] of refusals) assert.equal(run(), expected, why);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.sink.events.length, events);
});

/** A seeded run: prices and markets commands with timers, checking conservation after every command. */
function seededRun(h: Harness, seed: number, commands: number): void {
  const random = new Prng(seed);
  const prices = new PricesSimulation();
  const simulation = new MarketsSimulation();
  for (let index = 0; index < commands; index++) {
    h.now += random.int(0, 400);
    const roll = random.next();
    const command = roll < 0.15 ? prices.next(random, h.now) : roll < 0.2 ? ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command) : simulation.next(random, h.now);
    h.apply(command);
    h.check();
  }
}

test('a seeded stream replays through the frame codec to the same hash, restores from a snapshot, and the books agree', () => {
  const h = new Harness();
  seededRun(h, 5, 6_000);
  const module = h.module;
  assert.ok(module.marketCount() >= 20, `markets created: ${module.marketCount()}`);
  assert.ok(h.domainEvents(MarketsEventType.marketCompleted).length >= 10, 'markets completed');
  assert.ok(h.domainEvents(MarketsEventType.marketTradeExecuted).length >= 100, 'trades happened');

  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  // A snapshot taken halfway (open markets, resting orders, stakes) goes on exactly as the original.
  const half = Math.floor(h.journal.length / 2);
  const first = new Engine({ markets, domains: platformDomains });
  for (const command of h.journal.slice(0, half)) assert.equal(first.apply(command), Result.ok);
  const resumed = new Engine({ markets, domains: platformDomains });
  restoreSnapshot(resumed, takeSnapshot(first));
  assert.equal(stateHash(resumed), stateHash(first));
  for (const command of h.journal.slice(half)) assert.equal(resumed.apply(command), Result.ok);
  assert.equal(stateHash(resumed), stateHash(h.engine));

  // The same stream over the reference book: the same events and the same hash.
  const reference: DomainFactory = [(port) => new Twaps(port), (port) => new Prices(port), (port) => new MarketsModule(port, new ReferenceBookFactory())];
  const r = new Harness(reference);
  seededRun(r, 5, 6_000);
  assert.deepEqual(r.sink.events, h.sink.events);
  assert.equal(stateHash(r.engine), stateHash(h.engine));
});
