/**
 * The event cards module: listing and the index against a hand computation; bull buys and sales (a
 * quarter, the rest, a tiny fraction, one too small); perpetual P&L long and short; funding over several
 * intervals with an imbalance; liquidation at a tick with the rest to insurance, and a gap's bad debt; the
 * open-interest cap; paper isolation; refusals that change nothing; every ledger account conserved over a
 * seeded random run; replay through the journal codec to the same state hash; snapshot and restore.
 */
import { test } from 'node:test';
import { checkReplayAndRestore } from '../../journal/replay-check.ts';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { Engine } from '../../core/engine.ts';
import { CollectingSink, EventKind, type EngineEvent } from '../../core/events.ts';
import { domainUserId } from '../../core/limits.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import { takeSnapshot } from '../../core/snapshot.ts';
import { stateHash } from '../../core/state-hash.ts';
import { Prng } from '../../core/sim/generator.ts';
import { loadMarkets } from '../../runtime/markets.ts';
import { platformDomains } from '../index.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import { PricesSimulation } from '../prices/simulation.ts';
import {
  EventCardsAccount,
  EventCardsCommandType,
  EventCardsEventType,
  EventCardsResult,
  PerpSide,
  eventCardsDomainId,
  openInterestAtomsMax,
  type BullSold,
  type FundingApplied,
  type ListCard,
  type PerpClosed,
  type PerpLiquidated,
} from './commands.ts';
import { EventCards } from './event-cards.ts';
import { cardIndexE8, cardUuid, CardUuidKind, fundingOwedAtoms, liquidationIndexE8 } from './math.ts';
import { EventCardsSimulation } from './simulation.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const t0 = 1_767_225_600_000;
const usd = (amount: number): number => amount * 1_000_000;
const e8 = (value: number): number => Math.round(value * 100_000_000);
const houseId = domainUserId(eventCardsDomainId, EventCardsAccount.house);
const marginId = domainUserId(eventCardsDomainId, EventCardsAccount.margin);
const insuranceId = domainUserId(eventCardsDomainId, EventCardsAccount.insurance);

const majors: ListCard = { slug: 'majors', name: 'Majors', description: 'BTC and ETH', symbols: ['BTC', 'ETH'], weightsBps: [6000, 4000], baseIndexE8: e8(1000) };

class Harness {
  readonly sink = new CollectingSink();
  readonly engine = new Engine({ markets, sink: this.sink, domains: platformDomains });
  readonly journal: Command[] = [];
  private seq = 0;
  ts = t0;

  apply(command: Command, tsMs = this.ts): ResultCode {
    this.ts = tsMs;
    command.seq = ++this.seq;
    command.ts = tsMs;
    this.sink.clear();
    const result = this.engine.apply(command);
    if (result === Result.ok) this.journal.push(command);
    else this.seq--;
    return result;
  }

  deposit(userId: number, amountAtoms: number, mode: 0 | 1 = 0): ResultCode {
    return this.apply({ kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId: usdc.id, amountAtoms });
  }

  ticks(prices: Record<string, number>): ResultCode {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: Object.keys(prices), pricesE8: Object.values(prices) };
    return this.apply(domainCommand(PricesCommandType.postPriceTicks, body));
  }

  card(type: number, body: object): ResultCode {
    return this.apply(domainCommand(type, body));
  }

  buy(userId: number, amountAtoms: number, mode: 0 | 1 = 0, cardNo = 1): ResultCode {
    return this.card(EventCardsCommandType.buyBull, { userId, mode, cardNo, amountAtoms });
  }

  sell(userId: number, positionNo: number, fractionPpm: number, mode: 0 | 1 = 0, cardNo = 1): ResultCode {
    return this.card(EventCardsCommandType.sellBull, { userId, mode, cardNo, positionNo, fractionPpm });
  }

  open(userId: number, side: PerpSide, marginAtoms: number, leverage: number, mode: 0 | 1 = 0, cardNo = 1): ResultCode {
    return this.card(EventCardsCommandType.openPerp, { userId, mode, cardNo, side, marginAtoms, leverage });
  }

  close(userId: number, positionNo: number, mode: 0 | 1 = 0, cardNo = 1): ResultCode {
    return this.card(EventCardsCommandType.closePerp, { userId, mode, cardNo, positionNo });
  }

  get cards(): EventCards {
    return this.engine.domain(EventCards.domainName) as EventCards;
  }

  available(userId: number, mode: 0 | 1 = 0): number {
    const account = this.engine.ledger.find(userId, mode);
    return account < 0 ? 0 : this.engine.ledger.availableAtoms(account, usdc.index);
  }

  events(type: number): unknown[] {
    return this.sink.events.filter((event: EngineEvent) => event.kind === EventKind.domain && event.type === type).map((event) => (event as { body: unknown }).body);
  }

  /** A listed majors card at index 1000 (BTC 100 000, ETH 4 000) and a funded house and user 1. */
  static listed(): Harness {
    const h = new Harness();
    assert.equal(h.ticks({ BTC: e8(100_000), ETH: e8(4_000) }), Result.ok);
    assert.equal(h.card(EventCardsCommandType.listCard, majors), Result.ok);
    assert.equal(h.deposit(houseId, usd(1_000_000)), Result.ok);
    assert.equal(h.deposit(houseId, usd(1_000_000), 1), Result.ok);
    assert.equal(h.deposit(1, usd(100_000)), Result.ok);
    return h;
  }

  /** Moves both constituents by the same factor, so the index moves by it too. */
  moveIndex(factor: number): ResultCode {
    return this.ticks({ BTC: e8(100_000 * factor), ETH: e8(4_000 * factor) });
  }
}

test('listing takes reference prices from the oracle; the index is base × Σ w p / p0 / 10 000, floored once', () => {
  const h = new Harness();
  assert.equal(h.card(EventCardsCommandType.listCard, majors), EventCardsResult.cardUnpriced, 'no prices yet');
  h.ticks({ BTC: e8(100_000), ETH: e8(3_000) });
  assert.equal(h.card(EventCardsCommandType.listCard, majors), Result.ok);
  const card = h.cards.cardBySlug('majors')!;
  assert.deepEqual(card.referencePricesE8, [e8(100_000), e8(3_000)]);
  assert.equal(card.indexE8, e8(1000));
  assert.equal(h.card(EventCardsCommandType.listCard, majors), EventCardsResult.cardExists);
  // ETH 3000 → 3001: (6000 × 1 + 4000 × 3001/3000) / 10 000 × 1000 = 1000.13333333…, floored at 10^-8.
  h.ticks({ ETH: e8(3_001) });
  assert.equal(card.indexE8, 100_013_333_333);
  assert.deepEqual(h.events(EventCardsEventType.cardIndexed), [{ cardNos: [1], indexesE8: [100_013_333_333] }]);
  // BTC +10 %, ETH 3000 → 2250 (−25 %): 1000 × (0.6 × 1.1 + 0.4 × 0.75) = 960.
  h.ticks({ BTC: e8(110_000), ETH: e8(2_250) });
  assert.equal(card.indexE8, e8(960));
  assert.equal(cardIndexE8(e8(1000), [5000, 5000], [3, 7], [4, 8]), Math.floor(1e11 * (0.5 * 4 / 3 + 0.5 * 8 / 7)));
  // A tick of an asset outside every card moves nothing and says nothing.
  h.ticks({ SOL: e8(150) });
  assert.deepEqual(h.events(EventCardsEventType.cardIndexed), []);
});

test('bull: buy at the index with a 10 bp fee; sell a quarter, then the rest; tiny fractions', () => {
  const h = Harness.listed();
  assert.equal(h.buy(1, usd(1_000)), Result.ok);
  const position = h.cards.position(1)!;
  assert.equal(position.unitsE6, 1_000_000, '1000 USDC at index 1000 is one unit');
  assert.equal(h.available(1), usd(100_000 - 1_000 - 1));
  assert.equal(h.available(houseId), usd(1_001_000));
  assert.equal(h.available(0), usd(1));
  assert.equal(h.moveIndex(1.1), Result.ok);
  assert.equal(h.cards.cardBySlug('majors')!.indexE8, e8(1100));
  assert.equal(h.sell(1, 1, 250_000), Result.ok);
  const quarter = h.events(EventCardsEventType.bullSold)[0] as BullSold;
  assert.equal(quarter.unitsSoldE6, 250_000);
  assert.equal(quarter.proceedsAtoms, 275_000_000 - 275_000);
  assert.equal(quarter.feeAtoms, 275_000);
  assert.equal(quarter.remainingUnitsE6, 750_000);
  assert.equal(quarter.remainingCostAtoms, usd(750));
  // One part per million of 0.75 units is 0.00000075 units, below the unit step: refused.
  assert.equal(h.sell(1, 1, 1), EventCardsResult.fractionTooSmall);
  // Two parts per million: 0.000001 units, worth 0.0011 USDC; the fee rounds up to 2 atoms.
  assert.equal(h.sell(1, 1, 2), Result.ok);
  const tiny = h.events(EventCardsEventType.bullSold)[0] as BullSold;
  assert.deepEqual([tiny.unitsSoldE6, tiny.proceedsAtoms, tiny.feeAtoms], [1, 1098, 2]);
  assert.equal(h.sell(1, 1, 1_000_000), Result.ok);
  const rest = h.events(EventCardsEventType.bullSold)[0] as BullSold;
  assert.equal(rest.unitsSoldE6, 749_999);
  assert.equal(rest.remainingUnitsE6, 0);
  assert.equal(h.cards.position(1), undefined, 'fraction 1 closes it');
  assert.equal(h.sell(1, 1, 1_000_000), EventCardsResult.positionNotFound);
  // The user paid 1001 and got back the value at 1100 less fees.
  assert.equal(h.available(1), usd(100_000 - 1_001) + quarter.proceedsAtoms + tiny.proceedsAtoms + rest.proceedsAtoms);
  assert.equal(h.cards.cardBySlug('majors')!.books[0].bullCostAtoms, 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('perpetual P&L: a 10× long gains 50 % of its margin on a 5 % rise, a 5× short loses 25 %, a 10× short gains on a fall', () => {
  const h = Harness.listed();
  const start = h.available(1);
  assert.equal(h.open(1, PerpSide.long, usd(1_000), 10), Result.ok);
  assert.equal(h.available(1), start - usd(1_000) - usd(10), 'margin and a 10 bp fee on the notional');
  assert.equal(h.available(marginId), usd(1_000));
  // At 5× a 5 % adverse move leaves 75 % of the margin, far above maintenance.
  assert.equal(h.open(1, PerpSide.short, usd(1_000), 5), Result.ok);
  assert.equal(h.moveIndex(1.05), Result.ok);
  assert.equal(h.close(1, 1), Result.ok);
  const long = h.events(EventCardsEventType.perpClosed)[0] as PerpClosed;
  assert.deepEqual([long.pnlAtoms, long.fundingAtoms, long.feeAtoms, long.returnedAtoms, long.badDebtAtoms], [usd(500), 0, usd(10), usd(1_490), 0]);
  assert.equal(h.close(1, 2), Result.ok);
  const short = h.events(EventCardsEventType.perpClosed)[0] as PerpClosed;
  assert.deepEqual([short.pnlAtoms, short.feeAtoms, short.returnedAtoms], [-usd(250), usd(5), usd(1_000 - 5 - 250)]);
  assert.equal(h.open(1, PerpSide.short, usd(1_000), 10), Result.ok);
  assert.equal(h.moveIndex(1.05 * 0.95), Result.ok);
  assert.equal(h.close(1, 3), Result.ok);
  const gain = h.events(EventCardsEventType.perpClosed)[0] as PerpClosed;
  assert.equal(gain.pnlAtoms, usd(500));
  assert.equal(h.close(1, 3), EventCardsResult.positionNotFound, 'closed already');
  assert.equal(h.available(marginId), 0);
  assert.equal(h.engine.ledger.audit(), null);
});

test('funding: longs pay shorts through the house at each interval, from the open-interest imbalance', () => {
  const h = Harness.listed();
  h.deposit(2, usd(100_000));
  assert.equal(h.card(EventCardsCommandType.configure, { fundingIntervalMs: 1_000 }), Result.ok);
  assert.equal(h.open(1, PerpSide.long, usd(2_000), 10), Result.ok);
  assert.equal(h.open(2, PerpSide.short, usd(1_000), 10), Result.ok);
  const rates: number[] = [];
  for (let interval = 1; interval <= 3; interval++) {
    assert.equal(h.apply({ kind: CommandKind.runTimers, seq: 0, ts: 0 }, t0 + interval * 1_000), Result.ok);
    const funding = h.events(EventCardsEventType.fundingApplied) as FundingApplied[];
    assert.equal(funding.length, 1, 'one card and mode has open interest');
    rates.push(funding[0]!.rateE8);
  }
  // k × (20 000 − 10 000) / 30 000 = 0.001 / 3 per interval, truncated at 10^-8.
  assert.deepEqual(rates, [33_333, 33_333, 33_333]);
  assert.equal(h.apply({ kind: CommandKind.runTimers, seq: 0, ts: 0 }, t0 + 3_500), Result.nothingDue);
  assert.equal(h.close(1, 1), Result.ok);
  const long = h.events(EventCardsEventType.perpClosed)[0] as PerpClosed;
  assert.equal(long.fundingAtoms, Math.ceil((usd(20_000) * 99_999) / 1e8));
  assert.equal(long.returnedAtoms, usd(2_000) - usd(20) - long.fundingAtoms);
  assert.equal(h.close(2, 2), Result.ok);
  const short = h.events(EventCardsEventType.perpClosed)[0] as PerpClosed;
  assert.equal(short.fundingAtoms, -9_999_900, 'the short is paid');
  assert.equal(short.returnedAtoms, usd(1_000) - usd(10) + 9_999_900);
  assert.equal(fundingOwedAtoms(usd(10_000), 0, -99_999), -9_999_900);
  assert.equal(h.engine.ledger.audit(), null);
});

test('liquidation at a tick: below maintenance the house takes the loss and insurance the rest; a gap is bad debt', () => {
  const h = Harness.listed();
  h.deposit(2, usd(100_000));
  assert.equal(h.open(1, PerpSide.long, usd(1_000), 10), Result.ok);
  assert.equal(h.open(2, PerpSide.long, usd(1_000), 20), Result.ok);
  assert.equal(h.open(2, PerpSide.short, usd(1_000), 2), Result.ok);
  // The 10× long: liquidated below 1000 × 9000 / 9500 = 947.36842106.
  assert.equal(liquidationIndexE8(PerpSide.long, usd(1_000), usd(10_000), e8(1000), 0), 94_736_842_106);
  const houseBefore = h.available(houseId);
  assert.equal(h.moveIndex(0.96), Result.ok);
  // At 960 the 20× long (liquidation at 1000 × 19 000 / 19 000 = 1000) is gone, the 10× one holds.
  const first = h.events(EventCardsEventType.perpLiquidated) as PerpLiquidated[];
  assert.deepEqual(first.map((event) => event.positionNo), [2]);
  assert.equal(first[0]!.pnlAtoms, -usd(800));
  assert.equal(first[0]!.insuranceAtoms, usd(200));
  assert.ok(h.cards.position(1) !== undefined);
  assert.equal(h.moveIndex(0.947), Result.ok);
  const second = h.events(EventCardsEventType.perpLiquidated) as PerpLiquidated[];
  assert.deepEqual(second.map((event) => event.positionNo), [1]);
  assert.equal(second[0]!.insuranceAtoms, usd(1_000) - usd(530));
  assert.equal(h.available(insuranceId), usd(200) + usd(470));
  assert.equal(h.available(houseId), houseBefore + usd(800) + usd(530));
  assert.ok(h.cards.position(3) !== undefined, 'the short is far from its liquidation');
  // A gap: a 20× long and a jump of −10 % loses twice its margin; the house bears the excess.
  assert.equal(h.open(2, PerpSide.long, usd(1_000), 20), Result.ok);
  assert.equal(h.moveIndex(0.947 * 0.9), Result.ok);
  const gap = h.events(EventCardsEventType.perpLiquidated) as PerpLiquidated[];
  assert.equal(gap.length, 1);
  assert.equal(gap[0]!.insuranceAtoms, 0);
  assert.ok(gap[0]!.badDebtAtoms >= usd(999));
  assert.equal(h.available(marginId), usd(1_000), 'only the short margin is left');
  assert.equal(h.engine.ledger.audit(), null);
});

test('open interest is capped per card, mode and side; positions per user and card are limited', () => {
  const h = Harness.listed();
  h.deposit(3, usd(1_000_000));
  for (let count = 0; count < 10; count++) assert.equal(h.open(3, PerpSide.long, usd(50_000), 20), Result.ok);
  assert.equal(h.cards.cardBySlug('majors')!.books[0].openInterestLongAtoms, openInterestAtomsMax);
  const before = stateHash(h.engine);
  assert.equal(h.open(3, PerpSide.long, usd(1), 1), EventCardsResult.openInterestCap);
  assert.equal(stateHash(h.engine), before);
  assert.equal(h.open(3, PerpSide.short, usd(1), 1), Result.ok, 'the other side is open');
  for (let count = 11; count < 50; count++) assert.equal(h.open(3, PerpSide.short, usd(1), 1), Result.ok);
  assert.equal(h.open(3, PerpSide.short, usd(1), 1), EventCardsResult.tooManyPositions);
  assert.equal(h.buy(3, usd(1)), EventCardsResult.tooManyPositions);
});

test('paper and live never touch each other: paper trades move paper accounts only', () => {
  const h = Harness.listed();
  h.deposit(1, usd(50_000), 1);
  const liveAccounts = [1, houseId, marginId, insuranceId, 0].map((userId) => h.available(userId, 0));
  assert.equal(h.buy(1, usd(500), 1), Result.ok);
  assert.equal(h.open(1, PerpSide.short, usd(500), 5, 1), Result.ok);
  // +17 %: the 5× short keeps 75 of its 500 USDC, below the 146.25 of maintenance.
  assert.equal(h.moveIndex(1.17), Result.ok);
  const liquidated = h.events(EventCardsEventType.perpLiquidated) as PerpLiquidated[];
  assert.deepEqual(liquidated.map((event) => [event.mode, event.insuranceAtoms]), [[1, usd(75)]]);
  assert.equal(h.sell(1, 1, 1_000_000, 1), Result.ok);
  assert.deepEqual([1, houseId, marginId, insuranceId, 0].map((userId) => h.available(userId, 0)), liveAccounts);
  assert.equal(h.sell(1, 1, 1_000_000, 0), EventCardsResult.positionNotFound, 'a paper position is not live');
  assert.equal(h.cards.cardBySlug('majors')!.books[0].bullCostAtoms, 0);
  assert.ok(h.available(insuranceId, 1) > 0);
});

test('refusals change nothing: not the state hash, not an event', () => {
  const h = Harness.listed();
  h.deposit(2, usd(10));
  h.open(1, PerpSide.long, usd(1_000), 10);
  h.buy(1, usd(1_000));
  h.deposit(9, usd(1), 0);
  const before = stateHash(h.engine);
  const refusals: Array<[() => ResultCode, ResultCode]> = [
    [() => h.buy(1, usd(1_000), 0, 7), EventCardsResult.cardNotFound],
    [() => h.buy(1, 999_999), EventCardsResult.invalidAmount],
    [() => h.buy(2, usd(10)), Result.insufficientBalance],
    [() => h.buy(5, usd(10)), Result.insufficientBalance],
    [() => h.open(2, PerpSide.long, usd(10), 1), Result.insufficientBalance],
    [() => h.open(1, PerpSide.long, usd(10), 21), EventCardsResult.invalidLeverage],
    [() => h.open(1, PerpSide.long, usd(10), 0), EventCardsResult.invalidLeverage],
    [() => h.open(1, 2 as PerpSide, usd(10), 2), EventCardsResult.invalidPosition],
    [() => h.sell(1, 2, 0), EventCardsResult.invalidFraction],
    [() => h.sell(1, 2, 1_000_001), EventCardsResult.invalidFraction],
    [() => h.sell(2, 2, 1_000_000), EventCardsResult.positionNotFound],
    [() => h.sell(1, 1, 1_000_000), EventCardsResult.positionNotFound],
    [() => h.close(2, 1), EventCardsResult.positionNotFound],
    [() => h.close(1, 2), EventCardsResult.positionNotFound],
    [() => h.close(1, 1, 1), EventCardsResult.positionNotFound],
    [() => h.card(EventCardsCommandType.listCard, { ...majors, slug: 'x', weightsBps: [5000, 4000] }), EventCardsResult.invalidCard],
    [() => h.card(EventCardsCommandType.listCard, { ...majors, slug: 'y', symbols: ['BTC', 'NOPE'] }), EventCardsResult.cardUnpriced],
    [() => h.card(EventCardsCommandType.configure, { fundingIntervalMs: 999 }), EventCardsResult.invalidConfiguration],
    [() => h.card(5999, {}), Result.unknownCommand],
  ];
  for (const [attempt, expected] of refusals) {
    assert.equal(attempt(), expected);
    assert.equal(h.sink.events.length, 0);
    assert.equal(stateHash(h.engine), before);
  }
  // A house that cannot pay a sale or a winning close refuses them, changing nothing.
  const poor = new Harness();
  poor.ticks({ BTC: e8(100_000), ETH: e8(4_000) });
  poor.card(EventCardsCommandType.listCard, majors);
  poor.deposit(1, usd(10_000));
  poor.open(1, PerpSide.long, usd(1_000), 10);
  poor.moveIndex(1.5);
  const poorHash = stateHash(poor.engine);
  assert.equal(poor.close(1, 1), EventCardsResult.houseLiquidity);
  assert.equal(stateHash(poor.engine), poorHash);
  assert.equal(poor.buy(1, usd(100)), Result.ok);
  poor.moveIndex(3);
  assert.equal(poor.sell(1, 2, 1_000_000), EventCardsResult.houseLiquidity);
});

test('position ids are UUIDs derived from the position number', () => {
  const id = cardUuid(CardUuidKind.position, 1);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(cardUuid(CardUuidKind.position, 1), id);
  assert.notEqual(cardUuid(CardUuidKind.position, 2), id);
  assert.notEqual(cardUuid(CardUuidKind.paperSettlement, 1), id);
});

/** A seeded run of the cards' and the prices' simulations (the cards' stream funds its own users and house). */
function seededRun(seed: number, commands: number, check?: (h: Harness, result: ResultCode) => void): Harness {
  const h = new Harness();
  const random = new Prng(seed);
  const cards = new EventCardsSimulation();
  const prices = new PricesSimulation();
  for (let index = 0; index < commands; index++) {
    h.ts += random.int(0, 400);
    const command = random.chance(0.03) ? ({ kind: CommandKind.runTimers, seq: 0, ts: 0 } as Command) : (random.chance(0.75) ? cards : prices).next(random, h.ts);
    const result = h.apply(command);
    check?.(h, result);
  }
  return h;
}

test('a seeded random run conserves every ledger account and exercises every event and refusal', () => {
  const supply = { total: 0 };
  const seen = new Set<number>();
  const results = new Set<ResultCode>();
  const h = seededRun(5, 6_000, (harness, result) => {
    results.add(result);
    for (const event of harness.sink.events) {
      if (event.kind === EventKind.balanceChanged && event.assetId === usdc.id) supply.total += event.deltaAtoms;
      if (event.kind === EventKind.domain) seen.add(event.type);
    }
    assert.equal(harness.engine.ledger.audit(), null);
    assert.equal(harness.engine.ledger.supply[usdc.index], supply.total);
    // The margin account holds exactly the open perpetuals' margins.
    let margins = 0;
    for (const position of harness.cards.openPositions()) margins += position.marginAtoms;
    assert.equal(harness.available(marginId) + harness.available(marginId, 1), margins);
  });
  for (const type of Object.values(EventCardsEventType)) assert.ok(seen.has(type), `event ${type} never occurred`);
  for (const result of [
    Result.ok,
    EventCardsResult.cardExists,
    EventCardsResult.cardNotFound,
    EventCardsResult.positionNotFound,
    EventCardsResult.invalidLeverage,
    EventCardsResult.invalidFraction,
    EventCardsResult.invalidAmount,
    EventCardsResult.invalidConfiguration,
    EventCardsResult.invalidCard,
  ]) {
    assert.ok(results.has(result), `result ${result} never occurred`);
  }
  assert.ok(h.journal.length > 3_000);
});

test('a journal with card activity replays through the frame codec to the same state hash; a snapshot restores it', () => {
  const h = seededRun(9, 4_000);
  const { restored } = checkReplayAndRestore(h.engine, h.journal, () => new Engine({ markets, domains: platformDomains }));
  assert.ok(h.cards.listedCards().length === 3);
  // The restored engine goes on exactly as the original: the same next commands give the same hash.
  const more = seededRun(10, 300).journal.filter((command) => command.kind === 17);
  for (const command of more) {
    assert.equal(restored.apply(command), h.engine.apply(command));
  }
  assert.equal(stateHash(restored), stateHash(h.engine));
  const broken = takeSnapshot(h.engine);
  const module = new EventCards({ domain: () => undefined } as never);
  assert.throws(() => module.restore({ ...(broken.domains?.['event-cards'] as object), cards: 'x' }), /malformed/);
});
