/**
 * The incentives view's activity from fills: realised pnl by average cost, periods over journaled days,
 * and leaderboard order (value descending, ties by user id).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TradeExecuted } from '../../engine/core/events.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { dayMs } from '../../engine/domains/incentives/commands.ts';
import { IncentivesView, Metric } from './view.ts';
import { domainEvent } from '../../engine/core/domain.ts';
import { GamesEventType, type EarningsPaid, type EarningsReason } from '../../engine/domains/games/commands.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('eth')!;
const t0 = 1_700_000_000_000 - (1_700_000_000_000 % dayMs);

/** A fill of `lots` lots at `priceTicks`: `taker` buys from `maker` when `takerBuys`. */
function fill(view: IncentivesView, ts: number, taker: number, maker: number, takerBuys: boolean, priceTicks: number, lots: number): void {
  const trade = new TradeExecuted();
  trade.pairId = eth.id;
  trade.mode = 0;
  trade.takerUserId = taker;
  trade.makerUserId = maker;
  trade.takerSide = takerBuys ? 0 : 1;
  trade.priceTicks = priceTicks;
  trade.quantityLots = lots;
  trade.notionalAtoms = priceTicks * lots * eth.quoteAtomsPerTickLot;
  view.apply(trade, ts);
}

test('realised pnl by average cost: buys at two prices, a partial sell, a flip through zero', () => {
  const view = new IncentivesView(markets);
  // User 1 buys 1 ETH at 3000 and 1 at 3100 (average 3050), sells 1 at 3200: +150 USDC.
  fill(view, t0, 1, 2, true, 300_000, 10_000);
  fill(view, t0, 1, 2, true, 310_000, 10_000);
  fill(view, t0, 1, 2, false, 320_000, 10_000);
  assert.equal(view.metricOf(1, Metric.pnl, 'all_time', t0), 150_000_000);
  // The maker (user 2) was short 2 at 3050 average and bought 1 back at 3200: -150 USDC.
  assert.equal(view.metricOf(2, Metric.pnl, 'all_time', t0), -150_000_000);
  // User 1 sells 3 at 3000: closes its last lot (bought at 3050 on average) for -50, and is short 2 after.
  fill(view, t0, 1, 3, false, 300_000, 30_000);
  assert.equal(view.metricOf(1, Metric.pnl, 'all_time', t0), 100_000_000);
  // Buying the 2 back at 2900 realises +200 on the short.
  fill(view, t0, 1, 3, true, 290_000, 20_000);
  assert.equal(view.metricOf(1, Metric.pnl, 'all_time', t0), 300_000_000);
  assert.equal(view.metricOf(1, Metric.trades, 'all_time', t0), 5);
});

test('periods count journaled days, and the leaderboard orders by value then user id', () => {
  const view = new IncentivesView(markets);
  fill(view, t0, 5, 4, true, 300_000, 10_000);
  fill(view, t0 + 3 * dayMs, 6, 7, true, 300_000, 20_000);
  const now = t0 + 3 * dayMs;
  assert.deepEqual(view.leaderboard(Metric.volume, 'daily', 10, now).map((row) => row.userId), [6, 7]);
  assert.deepEqual(view.leaderboard(Metric.volume, 'weekly', 10, now).map((row) => row.userId), [6, 7, 4, 5]);
  assert.deepEqual(view.leaderboard(Metric.volume, 'weekly', 3, now).map((row) => row.userId), [6, 7, 4]);
  assert.deepEqual(view.leaderboard(Metric.trades, 'all_time', 10, now + 40 * dayMs).map((row) => row.userId), [4, 5, 6, 7]);
  assert.deepEqual(view.leaderboard(Metric.volume, 'monthly', 10, now + 40 * dayMs), []);
});

test("the games' payouts are earnings too: a streak reward reaches the listener with its running total", () => {
  const view = new IncentivesView(markets);
  const heard: Array<[number, number, number]> = [];
  view.listener = { onEarning: (earning, total) => heard.push([earning.userId, earning.amountAtoms, total]), onTierChanged: () => {} };
  const usdc = markets.assetBySymbol('USDC')!;
  const paid = (amountAtoms: number, reason: EarningsReason): EarningsPaid => ({ userId: 9, mode: 0, assetId: usdc.id, amountAtoms, reason, refId: 1 });
  view.apply(domainEvent(GamesEventType.earningsPaid, paid(1_000_000, 'streak')), t0);
  view.apply(domainEvent(GamesEventType.earningsPaid, paid(5_000_000, 'duel')), t0 + 1);
  assert.deepEqual(heard, [
    [9, 1_000_000, 1_000_000],
    [9, 5_000_000, 6_000_000],
  ]);
});
