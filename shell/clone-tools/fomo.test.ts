/**
 * The fomo radar's rules: a wallet with no closed round trip scores exactly 50 and is never qualified
 * (however much it bought), the documented score on a hand-computed record, the qualification bounds,
 * conviction kinds, and the signal filters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WalletRecord, WalletTrade } from './data.ts';
import { rankTraders, scoreOf, signals, trackRecord } from './fomo.ts';

const hour = 3_600_000;
const now = 1_767_225_600_000;
const trade = (token: string, side: 'buy' | 'sell', amountUsd: number, hoursAgo: number): WalletTrade => ({ token, side, amountUsd, timeMs: now - hoursAgo * hour });
const wallet = (address: string, trades: WalletTrade[]): WalletRecord => ({ address, label: `Sample ${address}`, chain: 'solana', trades });

test('no closed round trip: exactly 50 and never qualified, whatever the buys or orphan sells', () => {
  for (const trades of [[], [trade('A', 'buy', 1e6, 5), trade('B', 'buy', 10, 4)], [trade('A', 'sell', 1e9, 3)]]) {
    const record = trackRecord(trades);
    assert.equal(record.closedTrades, 0);
    assert.equal(record.score, 50);
    assert.equal(record.qualified, false);
    assert.equal(record.winRate, null);
  }
  assert.equal(scoreOf(0, 0, 0), 50);
});

test('the score follows the documented formula; qualified needs 5 closed trips and 60', () => {
  // Five trips, each +100 %: w = 1, r = 1, E = 1, score = 50 + 50 × 5/10 = 75.
  const winners = Array.from({ length: 5 }, (_, index) => [trade(`T${index}`, 'buy', 100, 20 - index), trade(`T${index}`, 'sell', 200, 19 - index)]).flat();
  const record = trackRecord(winners);
  assert.deepEqual([record.closedTrades, record.wins, record.score, record.qualified, record.realisedPnlUsd], [5, 5, 75, true, 500]);
  // Four such trips: 50 + 50 × 4/9 = 72.2 → 72, but fewer than 5: not qualified.
  assert.deepEqual([trackRecord(winners.slice(0, 8)).score, trackRecord(winners.slice(0, 8)).qualified], [72, false]);
  // One win of +50 % and one loss of −50 %: w = 0.5, r = 0, E = 0: 50.
  assert.equal(trackRecord([trade('A', 'buy', 100, 9), trade('A', 'sell', 150, 8), trade('B', 'buy', 100, 7), trade('B', 'sell', 50, 6)]).score, 50);
  // Adds count into the cost: 100 + 100 sold for 100 is −50 %.
  const added = trackRecord([trade('A', 'buy', 100, 9), trade('A', 'buy', 100, 8), trade('A', 'sell', 100, 7)]);
  assert.deepEqual(added.kinds, ['new_position', 'add', 'exit']);
  assert.equal(added.meanReturn, -0.5);
  assert.equal(added.score, Math.round(50 + 50 * (1 / 6) * (0.5 * -1 + 0.5 * -0.5)));
});

test('signal filters: hot tokens need three buying wallets, fresh is new positions of the last hour, exits', () => {
  const wallets = [
    wallet('W1', [trade('HOT', 'buy', 10, 2), trade('OLD', 'buy', 10, 30)]),
    wallet('W2', [trade('HOT', 'buy', 10, 0.5), trade('COLD', 'buy', 5, 3), trade('COLD', 'sell', 9, 1)]),
    wallet('W3', [trade('HOT', 'buy', 10, 5)]),
  ];
  assert.equal(signals(wallets, 'all', now).length, 5, 'the 30-hour-old trade is outside the window');
  assert.deepEqual(signals(wallets, 'hot', now).map((row) => row.wallet.address), ['W2', 'W1', 'W3']);
  assert.deepEqual(signals(wallets, 'fresh', now).map((row) => [row.wallet.address, row.trade.token]), [['W2', 'HOT']]);
  assert.deepEqual(signals(wallets, 'exits', now).map((row) => [row.wallet.address, row.kind]), [['W2', 'exit']]);
  assert.deepEqual(rankTraders(wallets).map((row) => row.wallet.address), ['W2', 'W1', 'W3']);
});
