/**
 * Paper isolation: paper orders never move a live balance, a live order, a live book or an AMM venue. A
 * seeded stream of live commands (orders of every kind, cancels, amends, batches, TWAPs, scale orders,
 * venue quotes and expiries, deposits and withdrawals) is applied twice: alone, and interleaved with a
 * heavy paper load generated alongside it (paper orders that take from the live hybrid book, rest where
 * live trades print through them, paper TWAPs and scales, paper accounts opening). Every live command must
 * get the same result and the same live events both times, and the live state must be the same throughout.
 *
 * Ids are the one thing paper may change: order, trade, TWAP and scale ids are counters the two modes
 * share, so after paper activity a live TWAP's slice (whose id the engine takes as the next one) and every
 * trade and settlement hash get other numbers. The live-only engine is therefore given the mixed engine's
 * counters before each live command; with equal counters, everything live must be equal, ids included.
 * One command serves both modes: RunTimers runs the due slices of paper and live TWAPs alike, in due-time
 * order, so paper slices may take ids between two live ones. For it, and for the slice ids the live TWAPs
 * keep, the comparison leaves the counted ids out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from './commands.ts';
import { Engine } from './engine.ts';
import { EventKind, type EngineEvent, type EventSink } from './events.ts';
import { noSlot } from './order-store.ts';
import { CommandGenerator } from './sim/generator.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { platformDomains, twapsOf } from '../domains/index.ts';

const markets = loadMarkets();
const seeds = [11, 12, 13];
const commandsPerSeed = 25_000;
const compareStateEvery = 2_500;

/** Whether a command belongs to paper mode (a batch or a scale of paper orders, a paper account, …). */
function isPaper(command: Command): boolean {
  switch (command.kind) {
    case CommandKind.openPaperAccount:
      return true;
    case CommandKind.placeBatch:
    case CommandKind.placeScale:
      return command.orders.length > 0 && command.orders.every((order) => order.mode === 1);
    case CommandKind.quoteVenue:
    case CommandKind.expireVenues:
    case CommandKind.runTimers:
    case CommandKind.withdrawTo:
    case CommandKind.domain:
      return false;
    default:
      return command.mode === 1;
  }
}

/** Keeps a command's live events as comparable text. */
class LiveEvents implements EventSink {
  readonly lines: string[] = [];
  onEvent(event: EngineEvent): void {
    if (event.kind !== EventKind.domain && event.mode === 0) this.lines.push(JSON.stringify(event));
  }
  take(): string[] {
    return this.lines.splice(0);
  }
}

/**
 * Everything live, as lines of text (so that a difference shows as the lines that differ): each live book's resting orders in priority order and its stops, last prices,
 * every live account's balances, the venues' quotes and levels, and the live TWAPs' progress.
 */
function liveState(engine: Engine): string[] {
  const parts: unknown[] = [];
  const store = engine.orders;
  const order = (slot: number, lots: number): unknown[] => [
    store.orderId(slot),
    engine.ledger.userOf(store.account(slot)),
    store.side(slot),
    store.orderType(slot),
    store.priceTicks(slot),
    store.stopPriceTicks(slot),
    store.quantityLots(slot),
    store.filledLots(slot),
    store.filledNotionalAtoms(slot),
    store.heldAtoms(slot),
    lots,
  ];
  for (const context of engine.contexts) {
    if (context.mode !== 0) continue;
    parts.push(['book', context.index, context.lastPriceTicks]);
    for (const side of [0, 1] as const) context.book.visit(side, (slot, _account, _price, lots) => parts.push(order(slot, lots)));
    for (const slot of [...context.buyStops, ...context.sellStops]) parts.push(order(slot, 0));
  }
  const ledger = engine.ledger;
  const accounts: unknown[] = [];
  for (let account = 0; account < ledger.accountCount; account++) {
    if (ledger.modeOf(account) !== 0) continue;
    const row: number[] = [ledger.userOf(account)];
    for (let asset = 0; asset < ledger.assetCount; asset++) row.push(ledger.availableAtoms(account, asset), ledger.heldAtoms(account, asset));
    accounts.push(row);
  }
  // Users are the generator's small ids: account order may differ (paper accounts open in between), so sort.
  accounts.sort((a, b) => (a as number[])[0]! - (b as number[])[0]!);
  parts.push(...accounts);
  for (const pair of markets.pairs) {
    const venues = engine.venues[pair.index]!;
    const levels: unknown[] = [pair.id, venues.allQuotes().map((quote) => [quote.poolId, quote.version, quote.quotedAtMs])];
    for (const side of [0, 1] as const) {
      for (let index = 0; index < venues.levelCount(side); index++) levels.push([side, venues.priceAt(side, index), venues.lotsAt(side, index), venues.poolAt(side, index)]);
    }
    parts.push(levels);
  }
  const twaps = twapsOf(engine).snapshot();
  // A row is [twapId, userId, mode, …]; its slices' order ids (counted ids) are only counted here.
  parts.push(...(twaps?.rows ?? []).flatMap((row, index) => (row[2] === 0 ? [[row, twaps!.children[index]!.length]] : [])));
  return parts.map((part) => JSON.stringify(part));
}

/** Fields that carry counted ids (or, for a settlement hash, derive from one). */
const countedIdFields = /"(tradeId|orderId|takerOrderId|makerOrderId|txHash)":("[^"]*"|[0-9]+)/g;

function withoutCountedIds(lines: readonly string[]): string[] {
  return lines.map((line) => line.replace(countedIdFields, '"$1":"·"'));
}

/** Gives `target` the id counters of `source` (see the file's comment). */
function shareCounters(source: Engine, target: Engine): void {
  target.lastOrderId = source.lastOrderId;
  target.lastTradeId = source.lastTradeId;
  target.lastScaleId = source.lastScaleId;
  twapsOf(target).lastTwapId = twapsOf(source).lastTwapId;
}

for (const seed of seeds) {
  test(`paper load moves nothing live (seed ${seed}, ${commandsPerSeed} commands, half of them paper)`, () => {
    const mixedEvents = new LiveEvents();
    const liveEvents = new LiveEvents();
    const mixed = new Engine({ markets, sink: mixedEvents, domains: platformDomains });
    const liveOnly = new Engine({ markets, sink: liveEvents, domains: platformDomains });
    const generator = new CommandGenerator({
      seed,
      markets,
      paperShare: 0.5,
      oracle: { isLive: (orderId) => mixed.slotOf(orderId) !== noSlot, lastOrderId: () => mixed.lastOrderId },
    });
    const funding = generator.fundingCommands();
    let paperCommands = 0;
    let paperFills = 0;
    let liveAmmFills = 0;
    /** A live command (or RunTimers, which serves both modes): applied to both engines with equal counters, compared. */
    const applyLive = (command: Command, index: number): void => {
      shareCounters(mixed, liveOnly);
      const mixedResult = mixed.apply(command);
      const liveResult = liveOnly.apply(command);
      const liveLines = liveEvents.take();
      // RunTimers is accepted when any TWAP is due, paper ones included; what it does to live TWAPs must agree.
      if (command.kind !== CommandKind.runTimers) assert.equal(mixedResult, liveResult, `result of live command ${index} (kind ${command.kind})`);
      if (command.kind === CommandKind.placeBatch || command.kind === CommandKind.cancelBatch) {
        assert.deepEqual(mixed.batchResults, liveOnly.batchResults, `batch results of command ${index}`);
      }
      const mixedLines = mixedEvents.take();
      if (command.kind === CommandKind.runTimers) assert.deepEqual(withoutCountedIds(mixedLines), withoutCountedIds(liveLines), `live events of RunTimers ${index}`);
      else assert.deepEqual(mixedLines, liveLines, `live events of command ${index} (kind ${command.kind})`);
      liveAmmFills += liveLines.filter((line) => line.startsWith(`{"kind":${EventKind.ammFill},`)).length;
    };
    const applyPaper = (command: Command, index: number): void => {
      paperCommands++;
      mixed.apply(command);
      assert.deepEqual(mixedEvents.take(), [], `paper command ${index} (kind ${command.kind}) made live events`);
    };
    for (let index = 0; index < commandsPerSeed; index++) {
      const command = index < funding.length ? funding[index]! : generator.next();
      if (command.kind === CommandKind.placeBatch && !isPaper(command) && command.orders.some((order) => order.mode === 1)) {
        // A batch of both modes is split: its live orders as one batch, then its paper orders as another
        // (with fresh ids, as they come after the live ones), so that the counters agree item by item.
        applyLive({ ...command, orders: command.orders.filter((order) => order.mode === 0) }, index);
        const paperOrders = command.orders.filter((order) => order.mode === 1).map((order, item) => ({ ...order, orderId: mixed.lastOrderId + 1 + item }));
        applyPaper({ ...command, orders: paperOrders }, index);
      } else if (isPaper(command)) {
        applyPaper(command, index);
      } else {
        applyLive(command, index);
      }
      if (index % compareStateEvery === 0) assert.deepEqual(liveState(mixed), liveState(liveOnly), `live state after command ${index}`);
    }
    assert.deepEqual(liveState(mixed), liveState(liveOnly), 'live state at the end');
    // The load was real: paper orders traded, against the live book read-only among others.
    const paperAccounts = Array.from({ length: mixed.ledger.accountCount }, (_, account) => mixed.ledger.modeOf(account)).filter((mode) => mode === 1).length;
    for (const context of mixed.contexts) if (context.mode === 1 && context.lastPriceTicks > 0) paperFills++;
    assert.ok(paperCommands > commandsPerSeed / 4, `${paperCommands} paper commands`);
    assert.ok(paperAccounts > 1 && paperFills > 0, `paper accounts ${paperAccounts}, paper books that traded ${paperFills}`);
    assert.ok(liveAmmFills > 0, 'live orders filled against venues too');
    assert.equal(mixed.ledger.audit(), null);
    assert.equal(liveOnly.ledger.audit(), null);
  });
}
