/**
 * The fast book against the naive reference book: the same generated command streams drive two engines
 * that differ only in their book; every result, every event and the state hash must be equal. After every
 * command the ledger must conserve each asset (the total changes only by deposits and withdrawals) and no
 * balance may go negative; every so often the holds of live orders must add up to the ledger's held
 * balances.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from './commands.ts';
import { Engine } from './engine.ts';
import { CollectingSink, EventKind, type EngineEvent } from './events.ts';
import { ReferenceBookFactory } from './book/reference-book.ts';
import { noSlot } from './order-store.ts';
import { Result } from './results.ts';
import { stateHash } from './state-hash.ts';
import { CommandGenerator } from './sim/generator.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';
import { PricesResult } from '../domains/prices/commands.ts';

const markets = loadMarkets();
const seeds = [1, 2, 3, 4, 5];
const commandsPerSeed = 44_000;
/** Results seen by the seeds' runs together (filled by each seed's test, read by the test after them). */
const resultsSeenOverSeeds = new Set<number>();

/** Sum of the holds of live orders and of the domains' holds per (account, asset) must equal the ledger's held balance. */
function checkHolds(engine: Engine, users: number): void {
  const ledger = engine.ledger;
  for (let userId = 1; userId <= users; userId++) {
    for (const mode of [0, 1] as const) {
      const account = ledger.find(userId, mode);
      if (account < 0) continue;
      const held = new Float64Array(ledger.assetCount);
      for (const slot of engine.openOrderSlots(userId, mode)) {
        const pair = engine.contexts[engine.orders.context(slot)]!.pair;
        const asset = engine.orders.side(slot) === 0 ? pair.quote.index : pair.base.index;
        held[asset] = held[asset]! + engine.orders.heldAtoms(slot);
      }
      for (let asset = 0; asset < ledger.assetCount; asset++) {
        for (const domain of engine.domains) held[asset] = held[asset]! + (domain.heldAtoms?.(userId, mode, asset) ?? 0);
        assert.equal(held[asset], ledger.heldAtoms(account, asset), `holds of user ${userId} mode ${mode} asset ${asset}`);
      }
    }
  }
}

/**
 * What a command's events say entered or left the platform: deposits and withdrawals (BalanceChanged),
 * and fills against outside venues (AmmFill), which pass one asset out and the other in.
 */
function expectSupplyChange(events: readonly EngineEvent[], supply: Map<number, number>): void {
  const add = (assetIndex: number, delta: number): void => void supply.set(assetIndex, (supply.get(assetIndex) ?? 0) + delta);
  for (const event of events) {
    if (event.kind === EventKind.balanceChanged) add(markets.assetById(event.assetId)!.index, event.deltaAtoms);
    if (event.kind === EventKind.ammFill) {
      const pair = markets.pairById(event.pairId)!;
      const baseAtoms = event.quantityLots * pair.baseAtomsPerLot;
      add(pair.quote.index, event.side === 0 ? -event.notionalAtoms : event.notionalAtoms);
      add(pair.base.index, event.side === 0 ? baseAtoms : -baseAtoms);
    }
  }
}

for (const seed of seeds) {
  test(`fast and reference books agree on seed ${seed} (${commandsPerSeed} commands)`, () => {
    const fastEvents = new CollectingSink();
    const referenceEvents = new CollectingSink();
    const fast = new Engine({ markets, sink: fastEvents, domains: platformDomains });
    const reference = new Engine({ markets, sink: referenceEvents, books: new ReferenceBookFactory(), domains: platformDomains });
    const generator = new CommandGenerator({ seed, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => fast.slotOf(orderId) !== noSlot, lastOrderId: () => fast.lastOrderId } });
    const supply = new Map<number, number>();
    const kindsSeen = new Set<number>();
    const resultsSeen = new Set<number>();
    const commands = generator.fundingCommands();
    for (let index = 0; index < commandsPerSeed; index++) {
      const command = index < commands.length ? commands[index]! : generator.next();
      const fastResult = fast.apply(command);
      const referenceResult = reference.apply(command);
      assert.equal(fastResult, referenceResult, `result of command ${index}`);
      if (command.kind === CommandKind.placeBatch || command.kind === CommandKind.cancelBatch) {
        assert.deepEqual(fast.batchResults, reference.batchResults, `batch results of command ${index}`);
      }
      assert.deepEqual(fastEvents.events, referenceEvents.events, `events of command ${index}`);
      for (const event of fastEvents.events) kindsSeen.add(event.kind);
      resultsSeen.add(fastResult);
      for (const result of fast.batchResults) resultsSeen.add(result);
      expectSupplyChange(fastEvents.events, supply);
      fastEvents.clear();
      referenceEvents.clear();

      const audit = fast.ledger.audit();
      assert.equal(audit, null, `ledger after command ${index}: ${audit}`);
      for (let asset = 0; asset < fast.ledger.assetCount; asset++) {
        assert.equal(fast.ledger.supply[asset], supply.get(asset) ?? 0, `supply of asset ${asset} after command ${index}`);
      }
      if (index % 2000 === 0) {
        checkHolds(fast, 12);
        assert.equal(stateHash(fast), stateHash(reference), `state hash after command ${index}`);
      }
    }
    checkHolds(fast, 12);
    assert.equal(reference.ledger.audit(), null);
    assert.equal(stateHash(fast), stateHash(reference));
    // The stream must really exercise the engine: every event kind and the main refusals occur.
    for (const kind of Object.values(EventKind)) assert.ok(kindsSeen.has(kind), `event kind ${kind} never occurred`);
    const expectedResults = [
      Result.ok,
      Result.orderNotFound,
      Result.postOnlyWouldTake,
      Result.insufficientBalance,
      Result.duplicateClientOrderId,
      Result.invalidDestination,
      Result.referenceTooLong,
      Result.invalidQuote,
      Result.staleQuote,
      Result.paperAccountExists,
      Result.nothingToExpire,
      Result.nothingDue,
      Result.twapNotFound,
      Result.twapIdNotIncreasing,
      Result.invalidTwapSchedule,
      Result.invalidScale,
      Result.scaleWouldTake,
    ];
    for (const result of expectedResults) {
      assert.ok(resultsSeen.has(result), `result ${result} never occurred`);
    }
    for (const result of resultsSeen) resultsSeenOverSeeds.add(result);
  });
}

// A domain's generator gets a share of the stream split over every listed domain, so its rarer refusals
// are checked over all the seeds together: a new domain in the list does not make one seed miss them.
test('the domains\' refusals occur over the seeds', () => {
  for (const result of [PricesResult.invalidTicks, PricesResult.historyExists, PricesResult.invalidHistory]) {
    assert.ok(resultsSeenOverSeeds.has(result), `result ${result} never occurred`);
  }
});

test('the same seed gives the same state hash, a different seed a different one', () => {
  function run(seed: number): string {
    const engine = new Engine({ markets, domains: platformDomains });
    const generator = new CommandGenerator({ seed, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
    for (const command of generator.fundingCommands()) engine.apply(command);
    for (let index = 0; index < 5000; index++) engine.apply(generator.next());
    return stateHash(engine);
  }
  assert.equal(run(11), run(11));
  assert.notEqual(run(11), run(12));
});
