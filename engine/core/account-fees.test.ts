/**
 * Per-account taker fee rates (port.setTakerFeeBps, a tier's discount): an order charges the rate its
 * account had when it was placed, its buy hold is sized at that rate, a later change never makes a fill
 * exceed its hold, and the table and the orders' rates survive snapshot and restore and enter the hash only
 * when some account has one.
 *
 * ETH/USDC: one ETH at 3000 USDC is a notional of 3 000 000 000 atoms; at 10 bps its taker fee is
 * 3 000 000 atoms, at 4 bps 1 200 000.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type OrderRequest } from './commands.ts';
import { Engine } from './engine.ts';
import { CollectingSink, EventKind, type TradeExecuted } from './events.ts';
import { defaultSettings } from './limits.ts';
import { Result } from './results.ts';
import { restoreSnapshot, takeSnapshot } from './snapshot.ts';
import { stateHash } from './state-hash.ts';
import { orderRequest } from './sim/order-request.ts';
import { loadMarkets } from '../runtime/markets.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const usdc = markets.assetBySymbol('USDC')!;
const ether = markets.assetBySymbol('ETH')!;
const oneEthLots = 10_000;
const notionalAtoms = 3_000_000_000;

function setup(): { engine: Engine; sink: CollectingSink; place: (fields: Partial<OrderRequest> & { userId: number }) => number; trades: () => TradeExecuted[] } {
  const sink = new CollectingSink();
  const engine = new Engine({ markets, sink });
  let seq = 0;
  let orderId = 0;
  for (const userId of [1, 2]) {
    engine.apply({ kind: CommandKind.deposit, seq: ++seq, ts: seq, userId, mode: 0, assetId: usdc.id, amountAtoms: 1_000_000_000_000 });
    engine.apply({ kind: CommandKind.deposit, seq: ++seq, ts: seq, userId, mode: 0, assetId: ether.id, amountAtoms: 100_000_000_000 });
  }
  const place = (fields: Partial<OrderRequest> & { userId: number }): number => {
    sink.clear();
    const request = orderRequest({ orderId: ++orderId, pairId: eth.id, priceTicks: 300_000, quantityLots: oneEthLots, ...fields });
    assert.equal(engine.apply({ kind: CommandKind.placeOrder, seq: ++seq, ts: seq, ...request }), Result.ok);
    return request.orderId;
  };
  const trades = () => sink.events.filter((event) => event.kind === EventKind.tradeExecuted) as TradeExecuted[];
  return { engine, sink, place, trades };
}

test('an account with its own taker rate pays it on its fills and holds only its fee cap', () => {
  const { engine, place, trades } = setup();
  assert.equal(defaultSettings.takerFeeBps, 10);
  engine.setTakerFeeBps(1, 0, 4);
  const heldBefore = engine.ledger.heldAtoms(engine.ledger.find(1, 0), usdc.index);
  place({ userId: 2, side: 1 });
  place({ userId: 1, side: 0, quantityLots: oneEthLots * 2 });
  const [trade] = trades();
  assert.equal(trade!.takerFeeAtoms, 1_200_000);
  // The rest of the buy rests: its hold was the notional of 2 ETH plus a 4 bps taker cap (the maker fee is 0).
  const restHold = engine.ledger.heldAtoms(engine.ledger.find(1, 0), usdc.index) - heldBefore;
  assert.equal(restHold, notionalAtoms + 1_200_000);
  // Accounts without a rate of their own pay the engine's.
  place({ userId: 2, side: 1 });
  assert.equal(trades()[0]!.takerFeeAtoms, 3_000_000);
  assert.equal(engine.ledger.audit(), null);
});

test('an order keeps the rate it was placed with when its account rate changes before it fills', () => {
  const { engine, sink, place, trades } = setup();
  // A resting buy placed at 10 bps, whose account then gets 0 bps: amended across the book it pays 10 bps.
  const buy = place({ userId: 1, side: 0, priceTicks: 290_000 });
  engine.setTakerFeeBps(1, 0, 0);
  place({ userId: 2, side: 1, priceTicks: 300_000 });
  sink.clear();
  assert.equal(engine.apply({ kind: CommandKind.amendOrder, seq: 1_000, ts: 1_000, userId: 1, mode: 0, orderId: buy, priceTicks: 300_000, quantityLots: oneEthLots }), Result.ok);
  assert.equal(trades()[0]!.takerFeeAtoms, 3_000_000);
  // The other way: placed at 0 bps, the account back at 10 bps; its hold had no taker cap and it pays none.
  place({ userId: 2, side: 1, priceTicks: 310_000 });
  const cheap = place({ userId: 1, side: 0, priceTicks: 305_000 });
  engine.setTakerFeeBps(1, 0, 10);
  sink.clear();
  assert.equal(engine.apply({ kind: CommandKind.amendOrder, seq: 1_001, ts: 1_001, userId: 1, mode: 0, orderId: cheap, priceTicks: 310_000, quantityLots: oneEthLots }), Result.ok);
  assert.equal(trades()[0]!.takerFeeAtoms, 0);
  assert.equal(engine.ledger.heldAtoms(engine.ledger.find(1, 0), usdc.index), 0, 'every hold settled exactly');
  assert.equal(engine.ledger.audit(), null);
  assert.equal(engine.takerFeeBpsByAccount.size, 0, 'the engine rate removes the account rate');
});

test('a rate above the engine rate or for an unknown account is a broken invariant', () => {
  const { engine } = setup();
  assert.throws(() => engine.setTakerFeeBps(1, 0, 11), /out of range/);
  assert.throws(() => engine.setTakerFeeBps(1, 0, 2.5), /out of range/);
  assert.throws(() => engine.setTakerFeeBps(77, 0, 5), /unknown account/);
});

test('account and order rates survive snapshot and restore, and enter the hash only when set', () => {
  const { engine, place } = setup();
  const plain = stateHash(engine);
  engine.setTakerFeeBps(1, 0, 10);
  assert.equal(stateHash(engine), plain, 'the engine rate adds nothing');
  engine.setTakerFeeBps(1, 0, 6);
  const withRate = stateHash(engine);
  assert.notEqual(withRate, plain);
  place({ userId: 1, side: 0, priceTicks: 280_000 });
  const snapshot = takeSnapshot(engine);
  const restored = new Engine({ markets });
  restoreSnapshot(restored, snapshot);
  assert.equal(stateHash(restored), stateHash(engine));
  assert.deepEqual(takeSnapshot(restored), snapshot);
  // The rate placed with is part of the order's state: the same order at another rate hashes differently.
  const slot = restored.slotOf(snapshot.orders.orderId[0]!);
  restored.orders.setTakerFeeBps(slot, 7);
  assert.notEqual(stateHash(restored), stateHash(engine));
});
