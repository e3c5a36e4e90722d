/**
 * Market data kept from events alone equals the engine's own books: a random command stream (every order
 * type, amends, cancels, self-trade prevention) is fed to MarketData in batches, and after every batch the
 * levels of each live book, and a subscriber's book rebuilt from snapshot plus deltas, equal the engine's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../engine/core/engine.ts';
import { CollectingSink, EventKind } from '../../engine/core/events.ts';
import type { BookLevel } from '../../engine/core/book/book.ts';
import { noSlot } from '../../engine/core/order-store.ts';
import { CommandGenerator } from '../../engine/core/sim/generator.ts';
import { formatPrice, formatQuantity, type Pair } from '../../engine/core/units.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { batchOfEvents, type DurableBatch } from '../../engine/runtime/sequencer.ts';
import { MarketData, netCrossing, type Channel, type HybridLevel } from './market-data.ts';
import { VenueDirectory } from './venue-directory.ts';
import { loadChains } from '../funding/chains.ts';
import { domainGenerators, platformDomains } from '../../engine/domains/index.ts';

const markets = loadMarkets();

/** A subscriber: takes the snapshot, then applies deltas, checking that no seq is skipped. */
class RebuiltBook {
  readonly sides: [Map<string, string>, Map<string, string>] = [new Map(), new Map()];
  seq = -1;

  load(message: Record<string, any>): void {
    this.seq = message['seq'];
    for (const side of [0, 1] as const) {
      this.sides[side].clear();
      for (const [price, quantity] of message[side === 0 ? 'bids' : 'asks']) this.sides[side].set(price, quantity);
    }
  }

  apply(message: Record<string, any>): void {
    assert.equal(message['seq'], this.seq + 1, 'deltas arrive without gaps');
    this.seq = message['seq'];
    for (const side of [0, 1] as const) {
      for (const [price, quantity] of message[side === 0 ? 'bids' : 'asks']) {
        if (quantity === formatQuantity(0, pairOf(message))) this.sides[side].delete(price);
        else this.sides[side].set(price, quantity);
      }
    }
  }
}

function pairOf(message: Record<string, any>): Pair {
  return markets.pairBySymbol(message['symbol'])!;
}

function engineLevels(engine: Engine, pair: Pair, side: 0 | 1): Array<[string, string]> {
  const out: BookLevel[] = [];
  const count = engine.contexts[pair.index * 2]!.book.depth(side, Number.MAX_SAFE_INTEGER, out);
  return out.slice(0, count).map((level) => [formatPrice(level.priceTicks, pair), formatQuantity(level.lots, pair)]);
}

test('levels and streams kept from durable events equal the engine books, batch after batch', () => {
  const collected = new CollectingSink();
  const engine = new Engine({ markets, sink: collected, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 21, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  for (const command of generator.fundingCommands()) engine.apply(command);
  // Start with resting orders already in the books: MarketData must take them from the engine.
  for (let index = 0; index < 3000; index++) engine.apply(generator.next());
  collected.clear();

  const published: Array<{ pair: Pair; channel: Channel; message: Record<string, any> }> = [];
  // Nobody listens to SOL's trades for the first half: those messages are not built, but their seqs pass.
  let round = 0;
  const quiet = (pair: Pair, channel: Channel): boolean => pair.slug === 'sol' && channel === 'trades' && round < 30;
  const sink = { listening: (pair: Pair, channel: Channel) => !quiet(pair, channel), publish: (pair: Pair, channel: Channel, message: Record<string, unknown>) => published.push({ pair, channel, message }) };
  const data = new MarketData({ markets, venues: new VenueDirectory(loadChains(markets), []), engine, sink });
  const subscribers = new Map<number, RebuiltBook>();
  for (const pair of markets.pairs) {
    const book = new RebuiltBook();
    book.load(data.snapshot(pair, Number.MAX_SAFE_INTEGER));
    subscribers.set(pair.id, book);
  }

  const seqs = new Map<string, number>();
  let trades = 0;
  let solTrades = 0;
  let venueRowsSeen = 0;
  let crossedBooks = 0;
  let ts = 1_700_000_000_000;
  for (round = 0; round < 60; round++) {
    const size = 1 + ((round * 37) % 400);
    const solBefore = solTrades;
    const batch: Array<{ event: any; seq: number; ts: number }> = [];
    for (let index = 0; index < size; index++) {
      ts += 3;
      engine.apply(generator.next());
      for (const event of collected.events) {
        batch.push({ event, seq: round * 1000 + index, ts });
        const liveTrade = (event.kind === EventKind.tradeExecuted || event.kind === EventKind.ammFill) && event.mode === 0;
        if (liveTrade && event.pairId === markets.pairBySymbol('sol')!.id) solTrades++;
      }
      collected.clear();
    }
    const durable: DurableBatch = batchOfEvents(0, 0, (visit) => batch.forEach((entry) => visit(entry.event, entry.seq, entry.ts)));
    data.onBatch(durable);
    for (const { pair, channel, message } of published.splice(0)) {
      const key = `${pair.id}/${channel}`;
      assert.ok(!quiet(pair, channel), `${key}: published while nobody listens`);
      // The first SOL trade heard carries the seqs of every trade nobody heard before it.
      if (pair.slug === 'sol' && channel === 'trades' && !seqs.has(key)) seqs.set(key, solBefore);
      assert.equal(message['seq'], (seqs.get(key) ?? 0) + 1, `${key}: one seq per message`);
      seqs.set(key, message['seq']);
      if (channel === 'orderbook') subscribers.get(pair.id)!.apply(message);
      if (channel === 'trades') trades++;
    }
    for (const pair of markets.pairs) {
      for (const side of [0, 1] as const) {
        const expected = engineLevels(engine, pair, side);
        assert.deepEqual(data.depth(pair, side, Number.MAX_SAFE_INTEGER).map((level) => [level.price, level.quantity]), expected);
        const rebuilt = [...subscribers.get(pair.id)!.sides[side]].sort((a, b) => (side === 0 ? 1 : -1) * (Number(b[0]) - Number(a[0])));
        assert.deepEqual(rebuilt, expected, `${pair.name} side ${side} rebuilt from deltas after round ${round}`);
        // Venue levels kept from VenueQuoted, AmmFill and VenueExpired equal the engine's, in matching order.
        const venues = engine.venues[pair.index]!;
        const engineVenueRows: Array<[number, number, number]> = [];
        for (let index = 0; index < venues.levelCount(side); index++) engineVenueRows.push([venues.priceAt(side, index), venues.lotsAt(side, index), venues.poolAt(side, index)]);
        const keptVenueRows = data
          .hybridDepth(pair, side, Number.MAX_SAFE_INTEGER)
          .filter((row) => row.venueId !== 0)
          .map((row) => [row.priceTicks, row.lots, row.venueId]);
        assert.deepEqual(keptVenueRows, engineVenueRows, `${pair.name} side ${side} venue levels after round ${round}`);
        venueRowsSeen += engineVenueRows.length;
      }
      // The netted hybrid book is never crossed, and netting takes the same quantity off both sides.
      const netted = data.hybridBook(pair, Number.MAX_SAFE_INTEGER);
      const bestBid = netted.bids[0];
      const bestAsk = netted.asks[0];
      if (bestBid !== undefined && bestAsk !== undefined) assert.ok(bestBid.priceTicks < bestAsk.priceTicks, `${pair.name} hybrid book uncrossed after round ${round}`);
      const lotsOf = (rows: Array<{ lots: number }>): number => rows.reduce((sum, row) => sum + row.lots, 0);
      const nettedBids = lotsOf(data.hybridDepth(pair, 0, Number.MAX_SAFE_INTEGER)) - lotsOf(netted.bids);
      const nettedAsks = lotsOf(data.hybridDepth(pair, 1, Number.MAX_SAFE_INTEGER)) - lotsOf(netted.asks);
      assert.equal(nettedBids, nettedAsks, `${pair.name} nets as much bid as ask`);
      if (nettedBids > 0) crossedBooks++;
    }
  }
  assert.ok(trades > 500, `the stream traded (${trades} trades)`);
  assert.ok(venueRowsSeen > 100, `venues quoted (${venueRowsSeen} level checks)`);
  assert.ok(crossedBooks > 0, `venues crossed one another, and were netted (${crossedBooks} times)`);
  assert.ok(solTrades > 20, `SOL traded while nobody listened (${solTrades} trades)`);
  assert.equal(seqs.get(`${markets.pairBySymbol('sol')!.id}/trades`), solTrades, 'SOL trade seqs count every trade, heard or not');
});

test('netting crossing hybrid rows: the documented example, a locked book, several levels, and an uncrossed book left alone', () => {
  const row = (priceTicks: number, lots: number, venueId: number): HybridLevel => ({ priceTicks, lots, venueId, chainId: venueId === 0 ? 0 : 1, orders: venueId === 0 ? 1 : 0 });
  const view = (rows: HybridLevel[]) => rows.map((level) => [level.priceTicks, level.lots, level.venueId]);
  // The README's example: A bids 3010.00 × 2, B asks 3008.00 × 1.5 then 3015.00 × 2 (ticks and lots of ETH).
  const example = netCrossing([row(301_000, 20_000, 1)], [row(300_800, 15_000, 2), row(301_500, 20_000, 2)]);
  assert.deepEqual([view(example.bids), view(example.asks)], [[[301_000, 5_000, 1]], [[301_500, 20_000, 2]]]);
  // Locked (bid equal to ask) is netted as well: best bid < best ask always.
  const locked = netCrossing([row(100, 3, 1), row(99, 1, 0)], [row(100, 5, 2), row(101, 1, 0)]);
  assert.deepEqual([view(locked.bids), view(locked.asks)], [[[99, 1, 0]], [[100, 2, 2], [101, 1, 0]]]);
  // Across several levels on both sides, the same quantity leaves each side.
  const deep = netCrossing([row(110, 2, 1), row(108, 2, 1), row(104, 5, 0)], [row(100, 1, 2), row(105, 2, 2), row(109, 4, 3)]);
  assert.deepEqual([view(deep.bids), view(deep.asks)], [[[108, 1, 1], [104, 5, 0]], [[109, 4, 3]]]);
  // Nothing crosses: the same rows come back.
  const apart = netCrossing([row(99, 1, 0)], [row(100, 1, 2)]);
  assert.deepEqual([view(apart.bids), view(apart.asks)], [[[99, 1, 0]], [[100, 1, 2]]]);
  assert.deepEqual(netCrossing([], [row(100, 1, 2)]).asks.length, 1);
});
