/**
 * How the markets routes and streams write a market's book and results: one function each, so that the
 * REST bodies and the stream messages agree field for field. Prices and quantities are decimal strings in
 * steps of 0.001 (a tick, a lot); amounts of the settlement token in its own decimals.
 */
import { formatAtoms, formatSteps, parseStep, type Asset } from '../../engine/core/units.ts';
import { marketStatusNames } from '../../engine/domains/markets/index.ts';
import { changePercent, formatPriceE8 } from '../prices/records.ts';
import type { MarketView, SideLevels } from './view.ts';

/** One tick of price and one lot of quantity: 0.001. */
export const tick = parseStep('0.001');

export const formatTicks = (ticks: number) => formatSteps(ticks, tick);

function levels(side: SideLevels, descending: boolean) {
  return [...side.entries()]
    .sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]))
    .map(([price, level]) => ({ price: formatTicks(price), quantity: formatTicks(level.lots), orders: level.orders }));
}

/** One asset's YES book as price levels (all of them: a side holds at most 999), best bid and ask, spread. */
export function bookRecord(market: MarketView, assetIndex: number) {
  const book = market.books[assetIndex]!;
  const bestBid = book.bids.size === 0 ? null : Math.max(...book.bids.keys());
  const bestAsk = book.asks.size === 0 ? null : Math.min(...book.asks.keys());
  return {
    asset: market.assets[assetIndex]!,
    bids: levels(book.bids, true),
    asks: levels(book.asks, false),
    best_bid: bestBid === null ? null : formatTicks(bestBid),
    best_ask: bestAsk === null ? null : formatTicks(bestAsk),
    spread: bestBid === null || bestAsk === null ? null : formatTicks(bestAsk - bestBid),
  };
}

/** Standings, winners, the WTA pool with its bets and payouts, and the position payouts (null fields before completion). */
export function resultsRecord(market: MarketView, token: Asset) {
  const completion = market.completion;
  const standings = market.assets.map((asset, index) => {
    const start = market.startPricesE8?.[index] ?? null;
    const end = completion?.endPricesE8[index] ?? null;
    return {
      asset,
      start_price: start === null ? null : formatPriceE8(start),
      end_price: end === null ? null : formatPriceE8(end),
      change_pct: start === null || end === null ? null : changePercent(end, start),
      rank: completion?.ranks[index] ?? null,
    };
  });
  const bets =
    completion === null
      ? [...market.stakes.values()].map((stake) => ({ user_id: stake.userId, asset: market.assets[stake.assetIndex]!, amount: formatAtoms(stake.amountAtoms, token) }))
      : completion.betPayouts.map((payout) => ({ user_id: payout.userId, asset: market.assets[payout.assetIndex]!, amount: formatAtoms(payout.stakeAtoms, token) }));
  const positionsTotal = completion === null ? 0 : completion.positionPayouts.reduce((sum, payout) => sum + payout.atoms, 0);
  return {
    contract_address: market.address,
    market_id: market.marketId,
    status: marketStatusNames[market.status],
    token: token.symbol,
    standings,
    winners: completion === null ? null : completion.winners.map((index) => market.assets[index]!),
    wta: {
      pool: formatAtoms(completion?.poolAtoms ?? market.poolAtoms, token),
      bets,
      payouts: completion === null ? [] : completion.betPayouts.map((payout) => ({ user_id: payout.userId, asset: market.assets[payout.assetIndex]!, stake: formatAtoms(payout.stakeAtoms, token), payout: formatAtoms(payout.payoutAtoms, token) })),
      remainder: completion === null ? null : formatAtoms(completion.remainderAtoms, token),
      refunded: completion === null ? null : completion.refunded,
    },
    positions_payouts: completion === null ? [] : completion.positionPayouts.map((payout) => ({ user_id: payout.userId, shares: formatTicks(payout.lots), payout: formatAtoms(payout.atoms, token) })),
    positions_payout_total: formatAtoms(positionsTotal, token),
  };
}
