/**
 * The port's read-only sell estimate (matching/estimate.ts) against what the sell then does: on seeded
 * books of resting bids of several users, fresh and stale venue bids, and the seller's own resting orders,
 * `estimateSell` (and `sellLadder`, read once for several sizes) changes nothing, and after the seller cancels its own orders an immediate-or-cancel sell
 * of the same lots at the same limit fills exactly the estimated lots and notional and credits exactly the
 * estimated proceeds, in live mode and in paper mode (whose taker also reaches the live hybrid book).
 *
 * ETH/USDC: tick 0.01 USDC, lot 0.0001 ETH; one tick × one lot is one USDC atom. 3000.00 is 300 000 ticks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, TimeInForce, type Command, type Mode, type OrderRequest } from './commands.ts';
import { Engine } from './engine.ts';
import { Result } from './results.ts';
import { Prng } from './sim/generator.ts';
import { orderRequest } from './sim/order-request.ts';
import { stateHash } from './state-hash.ts';
import { loadMarkets } from '../runtime/markets.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const seller = 9;

class Harness {
  readonly engine = new Engine({ markets });
  private seq = 0;
  nowMs = 1_000_000;

  apply(command: Command): number {
    command.seq = ++this.seq;
    command.ts = this.nowMs;
    return this.engine.apply(command);
  }

  fund(userId: number, mode: Mode): void {
    for (const [assetId, amountAtoms] of [[usdc.id, 10_000_000 * 1_000_000], [ether.id, 1_000 * 100_000_000]] as const) {
      assert.equal(this.apply({ kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode, assetId, amountAtoms }), Result.ok);
    }
  }

  place(fields: Partial<OrderRequest> & { userId: number }): number {
    const request = orderRequest({ orderId: this.engine.lastOrderId + 1, pairId: eth.id, ...fields });
    return this.apply({ kind: CommandKind.placeOrder, seq: 0, ts: 0, ...request });
  }

  quote(poolId: number, version: number, bids: Array<[number, number]>): void {
    const command: Command = { kind: CommandKind.quoteVenue, seq: 0, ts: 0, pairId: eth.id, poolId, chainId: 1 + (poolId % 3), version, bidPriceTicks: bids.map((level) => level[0]), bidLots: bids.map((level) => level[1]), askPriceTicks: [], askLots: [] };
    assert.equal(this.apply(command), Result.ok);
  }

  available(userId: number, mode: Mode, assetIndex: number): number {
    return this.engine.ledger.availableAtoms(this.engine.ledger.find(userId, mode), assetIndex);
  }
}

for (const mode of [0, 1] as const) {
  test(`estimateSell is exact for the IOC sell placed next, after the seller's own orders are cancelled (${mode === 0 ? 'live' : 'paper'})`, () => {
    const random = new Prng(mode === 0 ? 71 : 72);
    for (let round = 0; round < 25; round++) {
      const h = new Harness();
      for (const userId of [1, 2, 3, seller]) for (const book of [0, 1] as const) h.fund(userId, book);
      // Bids of other users in both modes (the paper taker sees the live ones), asks above them.
      for (let order = 0; order < 30; order++) {
        h.place({ userId: random.int(1, 3), mode: random.int(0, 1) as Mode, side: 0, priceTicks: random.int(295_000, 300_000), quantityLots: random.int(1, 5_000), timeInForce: TimeInForce.gtc });
      }
      h.place({ userId: 1, mode, side: 1, priceTicks: 301_000, quantityLots: 1_000, timeInForce: TimeInForce.gtc });
      // Venue bids: one pool quoted long ago (stale by the time of the sell), two fresh.
      h.quote(5, 1, [[299_500, random.int(1, 3_000)], [297_000, random.int(1, 3_000)]]);
      h.nowMs += 120_000;
      h.quote(6, 1, [[299_800, random.int(1, 3_000)], [296_000, random.int(1, 3_000)]]);
      h.quote(7, 1, [[299_800, random.int(1, 3_000)]]);
      // The seller's own resting bids (left out of the estimate) and an ask.
      for (let own = 0; own < 3; own++) h.place({ userId: seller, mode, side: 0, priceTicks: random.int(298_000, 300_000), quantityLots: random.int(1, 2_000), timeInForce: TimeInForce.gtc });
      h.place({ userId: seller, mode, side: 1, priceTicks: 302_000, quantityLots: 500, timeInForce: TimeInForce.gtc });

      const lots = random.int(1, 60_000);
      const limit = random.int(294_000, 300_500);
      const hash = stateHash(h.engine);
      const estimate = h.engine.estimateSell(seller, mode, eth.id, lots, limit);
      // The ladder read once answers every size as a fresh estimate does (a vault's unwind tries several).
      const ladder = h.engine.sellLadder(seller, mode, eth.id, limit);
      for (const size of [lots, 1, lots >> 1, lots * 2, lots]) assert.deepEqual(ladder.estimate(size), h.engine.estimateSell(seller, mode, eth.id, size, limit), `${size} lots`);
      assert.equal(stateHash(h.engine), hash, 'a query');

      for (const slot of h.engine.openOrderSlots(seller, mode)) {
        const orderId = h.engine.orders.orderId(slot);
        assert.equal(h.apply({ kind: CommandKind.cancelOrder, seq: 0, ts: 0, userId: seller, mode, orderId, clientOrderId: '' }), Result.ok);
      }
      const before = h.available(seller, mode, usdc.index);
      const orderId = h.engine.lastOrderId + 1;
      h.engine.orderReport.watch(orderId);
      assert.equal(h.place({ userId: seller, mode, side: 1, priceTicks: limit, quantityLots: lots, timeInForce: TimeInForce.ioc }), Result.ok);
      const report = h.engine.orderReport;
      assert.deepEqual(
        { filledLots: report.filledLots, filledNotionalAtoms: report.filledNotionalAtoms, proceedsAtoms: h.available(seller, mode, usdc.index) - before },
        estimate,
        `round ${round}: ${lots} lots at ${limit}`,
      );
    }
  });
}

test('estimateSell fills nothing for an unknown pair or account, or lots and limits the placement refuses', () => {
  const h = new Harness();
  h.fund(1, 0);
  h.fund(seller, 0);
  h.place({ userId: 1, side: 0, priceTicks: 299_000, quantityLots: 100, timeInForce: TimeInForce.gtc });
  const nothing = { filledLots: 0, filledNotionalAtoms: 0, proceedsAtoms: 0 };
  assert.deepEqual(h.engine.estimateSell(seller, 0, 999, 10, 1), nothing);
  assert.deepEqual(h.engine.estimateSell(77, 0, eth.id, 10, 1), nothing);
  assert.deepEqual(h.engine.estimateSell(seller, 0, eth.id, 0, 1), nothing);
  assert.deepEqual(h.engine.estimateSell(seller, 0, eth.id, eth.quantityLotsMax + 1, 1), nothing);
  assert.deepEqual(h.engine.estimateSell(seller, 0, eth.id, 10, 0), nothing);
  assert.equal(h.engine.estimateSell(seller, 0, eth.id, 10, 1).filledLots, 10);
});
