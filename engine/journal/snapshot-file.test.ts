/**
 * A snapshot file carries everything the engine's snapshot holds: here the per-account taker rates and the
 * rate each order was placed with, which a file that dropped them would restore at the engine's rate (and
 * the hash check would refuse).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandKind } from '../core/commands.ts';
import { Engine } from '../core/engine.ts';
import { Result } from '../core/results.ts';
import { stateHash } from '../core/state-hash.ts';
import { orderRequest } from '../core/sim/order-request.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { encodeSnapshot, loadSnapshotFile, writeSnapshotFile } from './snapshot-file.ts';

const markets = loadMarkets();

test('a snapshot file keeps the accounts own taker rates and the orders rates', () => {
  const engine = new Engine({ markets });
  const usdc = markets.assetBySymbol('USDC')!;
  assert.equal(engine.apply({ kind: CommandKind.deposit, seq: 1, ts: 1, userId: 1, mode: 0, assetId: usdc.id, amountAtoms: 10_000_000_000 }), Result.ok);
  engine.setTakerFeeBps(1, 0, 3);
  const order = orderRequest({ orderId: 1, userId: 1, pairId: markets.pairBySymbol('eth')!.id, priceTicks: 200_000, quantityLots: 10 });
  assert.equal(engine.apply({ kind: CommandKind.placeOrder, seq: 2, ts: 2, ...order }), Result.ok);
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-file-'));
  try {
    const { bytes, stateHash: hash } = encodeSnapshot(engine, 2);
    const path = writeSnapshotFile(dir, 2, bytes);
    const restored = new Engine({ markets });
    assert.deepEqual(loadSnapshotFile(path, restored), { seq: 2, stateHash: hash });
    assert.equal(stateHash(restored), stateHash(engine));
    assert.equal(restored.takerFeeBpsByAccount.size, 1);
    assert.equal(restored.orders.takerFeeBps(restored.slotOf(1)), 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
