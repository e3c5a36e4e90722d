/**
 * The read models against the engine: a seeded command stream run through a real Engine, its accepted
 * commands handed over in durable batches of random sizes, then every order, trade, candle and the ticker
 * checked against the engine's own events and state. Then crash recovery: read models that lost their
 * last transactions (an older copy of the database, or none at all) are rebuilt by the durable engine's
 * replay feed to exactly the same rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from '../../engine/core/commands.ts';
import { EventKind, Liquidity, OrderStatus, type EngineEvent, type TradeExecuted } from '../../engine/core/events.ts';
import { noSlot } from '../../engine/core/order-store.ts';
import { CommandGenerator, Prng } from '../../engine/core/sim/generator.ts';
import { DurableEngine } from '../../engine/runtime/durable-engine.ts';
import type { Db } from '../store/database.ts';
import { openReadModelDatabase } from './schema.ts';
import { candleIntervals } from './candles.ts';
import { ReadModels, postCommandsMax, postIntervalMs, postWaitMs } from './read-models.ts';
import { commitIntervalMs, commitWaitMs } from './commit-policy.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadModelQueries } from './queries.ts';
import { ReadModelWriter, gatheredOrdersMax, replayCommandsPerTransaction } from './writer.ts';
import { Tickers, minuteMs, windowMinutes } from './ticker.ts';
import { defaultMarketsPath } from '../../engine/runtime/markets.ts';
import { domainGenerators, platformDomains } from '../../engine/domains/index.ts';
import { EventCardsEventType } from '../../engine/domains/event-cards/commands.ts';
import { RewardsEventType, type RewardsPaid } from '../../engine/domains/rewards/commands.ts';
import { batchOf, markets, runEngine, startTs, temporaryDb, type Journaled } from './test-kit.ts';

/** Event cards events whose `feeAtoms` went to the mode's fee account. */
const cardFeeEvents = new Set<number>([EventCardsEventType.bullBought, EventCardsEventType.bullSold, EventCardsEventType.perpOpened, EventCardsEventType.perpClosed]);

interface CandleTotals {
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  quote: number;
  trades: number;
}

/** OHLC per (pair, interval, bucket) folded straight from the live trade events, in event order. */
function expectedCandles(journaled: readonly Journaled[]): Map<string, CandleTotals> {
  const candles = new Map<string, CandleTotals>();
  for (const command of journaled) {
    for (const event of command.events) {
      if ((event.kind !== EventKind.tradeExecuted && event.kind !== EventKind.ammFill) || event.mode !== 0) continue;
      for (const interval of candleIntervals) {
        const key = `${event.pairId}/${interval.ms}/${command.ts - (command.ts % interval.ms)}`;
        const candle = candles.get(key);
        if (candle === undefined) {
          candles.set(key, { open: event.priceTicks, high: event.priceTicks, low: event.priceTicks, close: event.priceTicks, volume: event.quantityLots, quote: event.notionalAtoms, trades: 1 });
          continue;
        }
        candle.high = Math.max(candle.high, event.priceTicks);
        candle.low = Math.min(candle.low, event.priceTicks);
        candle.close = event.priceTicks;
        candle.volume += event.quantityLots;
        candle.quote += event.notionalAtoms;
        candle.trades++;
      }
    }
  }
  return candles;
}

/**
 * Every trade of the stream as a trade between a taker and a maker: book trades as they are, and fills of
 * our orders against venues with the venue as the other side (order and user 0; a paper order filled by
 * a live print is the maker).
 */
function tradesOf(journaled: readonly Journaled[]): Array<{ trade: TradeExecuted; ts: number }> {
  const trades: Array<{ trade: TradeExecuted; ts: number }> = [];
  for (const command of journaled) {
    for (const event of command.events) {
      if (event.kind === EventKind.tradeExecuted) trades.push({ trade: event, ts: command.ts });
      if (event.kind !== EventKind.ammFill) continue;
      const taker = event.liquidity === Liquidity.taker;
      const trade: TradeExecuted = {
        kind: EventKind.tradeExecuted,
        tradeId: event.tradeId,
        pairId: event.pairId,
        mode: event.mode,
        priceTicks: event.priceTicks,
        quantityLots: event.quantityLots,
        notionalAtoms: event.notionalAtoms,
        takerSide: taker ? event.side : event.side === 0 ? 1 : 0,
        takerOrderId: taker ? event.orderId : 0,
        makerOrderId: taker ? 0 : event.orderId,
        takerUserId: taker ? event.userId : 0,
        makerUserId: taker ? 0 : event.userId,
        takerFeeAtoms: taker ? event.feeAtoms : 0,
        makerFeeAtoms: taker ? 0 : event.feeAtoms,
        takerRemainingLots: taker ? event.remainingLots : 0,
        makerRemainingLots: taker ? 0 : event.remainingLots,
      };
      trades.push({ trade, ts: command.ts });
    }
  }
  return trades;
}

test('orders, trades, candles and the ticker agree with the engine', () => {
  const { engine, journaled } = runEngine(21, 30_000);
  const { dir, db } = temporaryDb();
  const clockMs = startTs + 24 * 3_600_000 + 2 * 3_600_000; // the window has lost the stream's first two hours
  const writer = new ReadModelWriter(db, markets);
  const queries = new ReadModelQueries(db);
  const tickers = new Tickers(markets, () => clockMs);
  try {
    const random = new Prng(5);
    for (let start = 0; start < journaled.length; ) {
      const end = Math.min(journaled.length, start + random.int(1, 300));
      const batch = batchOf(journaled.slice(start, end));
      writer.applyBatch(batch);
      tickers.applyBatch(batch);
      // Transactions span several batches, as they do when batches wait for the worker.
      if (random.int(1, 4) === 1) writer.commit();
      start = end;
    }
    assert.equal(writer.commit(), journaled.length);
    assert.equal(queries.appliedSeq(), journaled.length);
    assert.equal(db.prepare('SELECT applied_seq FROM read_model_progress').pluck().get(), journaled.length);

    // Orders: one row per accepted order; live ones as the engine's store holds them, ended ones as their
    // last event left them.
    const accepted = new Set<number>();
    const ended = new Map<number, { status: number; filledLots: number; filledNotionalAtoms: number }>();
    for (const command of journaled) {
      for (const event of command.events) {
        if (event.kind === EventKind.orderAccepted) accepted.add(event.orderId);
        if (event.kind === EventKind.orderCancelled || event.kind === EventKind.orderExpired) {
          const status = event.kind === EventKind.orderCancelled ? OrderStatus.cancelled : OrderStatus.expired;
          ended.set(event.orderId, { status, filledLots: event.filledLots, filledNotionalAtoms: event.filledNotionalAtoms });
        }
      }
    }
    const rows = db.prepare('SELECT * FROM exchange_orders').all() as Array<Record<string, number>>;
    assert.equal(rows.length, accepted.size);
    const store = engine.orders;
    const seen = new Map<number, number>();
    for (const row of rows) {
      const orderId = row['order_id']!;
      assert.ok(accepted.has(orderId));
      seen.set(row['status']!, (seen.get(row['status']!) ?? 0) + 1);
      const slot = engine.slotOf(orderId);
      const end = ended.get(orderId);
      if (slot !== noSlot) {
        assert.deepEqual(
          [row['status'], row['filled_lots'], row['filled_notional_atoms'], row['quantity_lots'], row['price_ticks']],
          [store.status(slot), store.filledLots(slot), store.filledNotionalAtoms(slot), store.quantityLots(slot), store.priceTicks(slot)],
          `live order ${orderId}`,
        );
      } else if (end !== undefined) {
        assert.deepEqual([row['status'], row['filled_lots'], row['filled_notional_atoms']], [end.status, end.filledLots, end.filledNotionalAtoms], `ended order ${orderId}`);
      } else {
        assert.deepEqual([row['status'], row['filled_lots']], [OrderStatus.filled, row['quantity_lots']], `filled order ${orderId}`);
      }
    }
    for (const status of [OrderStatus.pending, OrderStatus.open, OrderStatus.partiallyFilled, OrderStatus.filled, OrderStatus.cancelled, OrderStatus.expired]) {
      assert.ok((seen.get(status) ?? 0) > 0, `the stream leaves some orders in status ${status}`);
    }

    // Fees: what the orders paid is what the read models count as collected by the fee accounts, per
    // mode; collected less the revenue-share payouts (their own events) is what the engine's fee accounts
    // hold, besides the taker fees of the event cards (which go to the same accounts and are told by
    // their events).
    const usdc = markets.assetBySymbol('USDC')!;
    const cardFees = [0, 0];
    let payouts = 0;
    for (const command of journaled) {
      for (const event of command.events) {
        if (event.kind === EventKind.domain && event.type === RewardsEventType.paid) payouts += (event.body as RewardsPaid).paidAtoms;
        if (event.kind !== EventKind.domain || !cardFeeEvents.has(event.type)) continue;
        const body = event.body as { mode: number; feeAtoms: number };
        cardFees[body.mode] = cardFees[body.mode]! + body.feeAtoms;
      }
    }
    assert.ok(payouts > 0, 'the stream pays revenue-share rewards out of the live fee account');
    for (const mode of [0, 1] as const) {
      const paid = db.prepare('SELECT sum(fee_atoms) FROM exchange_orders WHERE mode = ?').pluck().get(mode);
      const charged = db.prepare('SELECT sum(taker_fee_atoms + maker_fee_atoms) FROM exchange_trades WHERE mode = ?').pluck().get(mode);
      const totals = db.prepare('SELECT collected_atoms AS collected, paid_out_atoms AS paidOut FROM fee_account_totals WHERE mode = ? AND asset_id = ?').get(mode, usdc.id) as { collected: number; paidOut: number };
      const held = engine.ledger.availableAtoms(engine.ledger.feeAccount(mode), usdc.index) - cardFees[mode]!;
      assert.ok(held > 0);
      assert.deepEqual([paid, charged], [totals.collected, totals.collected], `fees of mode ${mode}`);
      assert.equal(totals.paidOut, mode === 0 ? payouts : 0, `payouts of mode ${mode}`);
      assert.equal(totals.collected - totals.paidOut, held, `the fee account of mode ${mode}`);
      // A trade between two of our orders fills both; one against a venue (it has a settlement hash) fills one.
      const notional = db.prepare("SELECT sum(notional_atoms * (CASE WHEN tx_hash = '' THEN 2 ELSE 1 END)) FROM exchange_trades WHERE mode = ?").pluck().get(mode) as number;
      assert.equal(db.prepare('SELECT sum(filled_notional_atoms) FROM exchange_orders WHERE mode = ?').pluck().get(mode), notional, 'each fill counts for each of our orders in it');
      assert.ok((db.prepare("SELECT count(*) FROM exchange_trades WHERE mode = ? AND tx_hash <> ''").pluck().get(mode) as number) > 0, `venue fills in mode ${mode}`);
    }

    // Trades: every one, with its fields.
    const trades = tradesOf(journaled);
    assert.ok(trades.length > 1000);
    const tradeRows = db.prepare('SELECT trade_id, pair_id, mode, price_ticks, quantity_lots, taker_order_id, maker_order_id, ts_ms FROM exchange_trades ORDER BY trade_id').raw().all();
    assert.deepEqual(
      tradeRows,
      trades.map(({ trade, ts }) => [trade.tradeId, trade.pairId, trade.mode, trade.priceTicks, trade.quantityLots, trade.takerOrderId, trade.makerOrderId, ts]),
    );

    // Candles: the OHLC of each bucket of each interval, folded from the live trades.
    const candles = expectedCandles(journaled);
    const candleRows = db.prepare('SELECT * FROM exchange_candles').all() as Array<Record<string, number>>;
    assert.equal(candleRows.length, candles.size);
    for (const row of candleRows) {
      const key = `${row['pair_id']}/${row['interval_ms']}/${row['open_time_ms']}`;
      const expected = candles.get(key);
      assert.ok(expected !== undefined, key);
      assert.deepEqual(
        { open: row['open_ticks'], high: row['high_ticks'], low: row['low_ticks'], close: row['close_ticks'], volume: row['volume_lots'], quote: row['quote_volume_atoms'], trades: row['trades'] },
        expected,
        key,
      );
    }
    const hours = db.prepare('SELECT count(*) FROM exchange_candles WHERE interval_ms = 3600000 AND pair_id = 1').pluck().get() as number;
    assert.ok(hours >= 8, 'the stream spans hours');

    // Ticker: the trades of the last 1 440 minutes, and the same after a restart (restored from candles).
    const firstMinute = Math.floor(clockMs / minuteMs) - windowMinutes + 1;
    for (const pair of markets.pairs) {
      const live = trades.filter(({ trade }) => trade.mode === 0 && trade.pairId === pair.id);
      const inWindow = live.filter(({ ts }) => Math.floor(ts / minuteMs) >= firstMinute);
      assert.ok(inWindow.length > 0 && inWindow.length < live.length, pair.name);
      const view = tickers.view(pair.id);
      assert.deepEqual(view, {
        lastPriceTicks: live[live.length - 1]!.trade.priceTicks,
        openPriceTicks: inWindow[0]!.trade.priceTicks,
        highPriceTicks: Math.max(...inWindow.map(({ trade }) => trade.priceTicks)),
        lowPriceTicks: Math.min(...inWindow.map(({ trade }) => trade.priceTicks)),
        volumeLots: inWindow.reduce((sum, { trade }) => sum + trade.quantityLots, 0),
        quoteVolumeAtoms: inWindow.reduce((sum, { trade }) => sum + trade.notionalAtoms, 0),
        trades: inWindow.length,
        windowStartMs: firstMinute * minuteMs,
      });
      assert.equal(tickers.view(pair.id), view, 'nothing changed: the same view');
      const restored = new Tickers(markets, () => clockMs);
      restored.restore(markets, queries);
      assert.deepEqual(restored.view(pair.id), view, `${pair.name} restored`);
    }

    // Queries: a user's order history and fills, paged, are all of theirs, newest first.
    const ethLive = { userId: 3, pairId: 1, mode: 0 as const };
    const history: number[] = [];
    for (let before: number | undefined; ; ) {
      const page = queries.orderHistory({ ...ethLive, limit: 37, ...(before === undefined ? {} : { beforeOrderId: before }) });
      history.push(...page.map((order) => order.orderId));
      if (page.length < 37) break;
      before = page[page.length - 1]!.orderId;
    }
    const ownOrders = db.prepare('SELECT order_id FROM exchange_orders WHERE user_id = 3 AND pair_id = 1 AND mode = 0 ORDER BY order_id DESC').pluck().all();
    assert.ok(ownOrders.length > 100);
    assert.deepEqual(history, ownOrders);
    const fills = queries.fills(3, 1, 0, 100_000);
    const expectedFills = trades
      .filter(({ trade }) => trade.pairId === 1 && trade.mode === 0)
      .flatMap(({ trade }) => [
        ...(trade.takerUserId === 3 ? [[trade.tradeId, trade.takerOrderId, 'taker', trade.takerSide, trade.takerFeeAtoms]] : []),
        ...(trade.makerUserId === 3 ? [[trade.tradeId, trade.makerOrderId, 'maker', 1 - trade.takerSide, trade.makerFeeAtoms]] : []),
      ])
      .reverse();
    assert.ok(expectedFills.length > 50);
    assert.deepEqual(fills.map((fill) => [fill.tradeId, fill.orderId, fill.role, fill.side, fill.feeAtoms]), expectedFills);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every row of the read-model tables, for comparing two databases. */
function dump(db: Db): unknown[] {
  return [
    db.prepare('SELECT * FROM read_model_progress').all(),
    db.prepare('SELECT * FROM exchange_orders ORDER BY order_id').raw().all(),
    db.prepare('SELECT * FROM exchange_trades ORDER BY trade_id').raw().all(),
    db.prepare('SELECT * FROM exchange_candles ORDER BY pair_id, interval_ms, open_time_ms').raw().all(),
    db.prepare('SELECT * FROM fee_account_totals ORDER BY mode, asset_id').raw().all(),
  ];
}

interface Opened {
  readModels: ReadModels;
  tickers: Tickers;
  durable: DurableEngine;
}

/** The server's wiring: read models (on their worker) and tickers fed by durable batches, and by the replay feed at start. */
function openAll(dataDir: string, clock: () => number, intervalMs?: number): Opened {
  const readModels = new ReadModels({ dataDir, markets, marketsPath: defaultMarketsPath, ...(intervalMs === undefined ? {} : { commitIntervalMs: intervalMs }) });
  const tickers = new Tickers(markets, clock);
  const durable = DurableEngine.open({
    dataDir,
    engine: { markets, domains: platformDomains },
    syncMode: 'none',
    snapshotEveryCommands: 5_000,
    clock,
    onDurable: (batch) => {
      readModels.applyBatch(batch);
      tickers.applyBatch(batch);
    },
    replayFeed: readModels.replayFeed(),
  });
  readModels.finishReplay(durable.recovery.lastSeq);
  tickers.restore(markets, readModels.queries);
  return { readModels, tickers, durable };
}

/** Enqueues generated commands in chunks, letting each chunk's batches become durable. */
async function submit(durable: DurableEngine, generator: CommandGenerator, funding: Command[], count: number): Promise<void> {
  for (let done = 0; done < count; ) {
    const chunk = Math.min(1000, count - done);
    for (let index = 0; index < chunk; index++) durable.enqueue(funding.shift() ?? generator.next(), () => {});
    done += chunk;
    await durable.sequencer.drain();
  }
}

/** Resolves once the worker has committed everything durable so far. */
async function committed(opened: Opened): Promise<number> {
  const seq = opened.durable.sequencer.durableSeq;
  await opened.readModels.whenApplied(seq);
  assert.ok(opened.readModels.appliedSeq >= seq);
  return opened.readModels.appliedSeq;
}

test('read models written on their worker answer after their writes, and lost transactions are rebuilt by the replay feed', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'read-models-crash-'));
  const copyDir = mkdtempSync(join(tmpdir(), 'read-models-copy-'));
  // The runtime clock moves on with every command, then stands still to compare tickers.
  let now = startTs;
  let frozen = false;
  const clock = (): number => (frozen ? now : (now += 211));
  try {
    const first = openAll(dataDir, clock);
    const engine = first.durable.engine;
    const generator = new CommandGenerator({ seed: 33, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
    const funding = generator.fundingCommands();
    await submit(first.durable, generator, funding, 6_000);
    const olderSeq = await committed(first);
    // Read-your-writes: once whenApplied(durable seq) resolved, every order the engine holds is there, as it is now.
    let live = 0;
    for (let orderId = 1; orderId <= engine.lastOrderId; orderId++) {
      const slot = engine.slotOf(orderId);
      if (slot === noSlot) continue;
      live++;
      const row = first.readModels.queries.order(orderId);
      assert.deepEqual([row?.status, row?.filledLots], [engine.orders.status(slot), engine.orders.filledLots(slot)], `order ${orderId}`);
    }
    assert.ok(live > 100, `${live} live orders checked`);
    const copy = openReadModelDatabase(dataDir);
    copy.exec(`VACUUM INTO '${join(copyDir, 'older.sqlite')}'`);
    copy.close();
    await submit(first.durable, generator, funding, 2 * replayCommandsPerTransaction + 3_000);
    await first.durable.close();
    const lastSeq = first.durable.sequencer.lastSeq;
    await first.readModels.close();
    assert.equal(first.readModels.appliedSeq, lastSeq);
    const reader = openReadModelDatabase(dataDir);
    const expected = dump(reader);
    reader.close();
    frozen = true;
    const tickers = markets.pairs.map((pair) => first.tickers.view(pair.id));
    assert.ok(lastSeq - olderSeq > 2 * replayCommandsPerTransaction, 'the replay spans several transactions');

    const platformDb = join(dataDir, 'read-models.sqlite');
    const restore = (from: string | null): void => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(platformDb + suffix, { force: true });
      if (from !== null) copyFileSync(from, platformDb);
    };
    for (const [name, from, startSeq] of [
      ['an older database', join(copyDir, 'older.sqlite'), olderSeq],
      ['no database', null, 0],
    ] as const) {
      restore(from);
      const reopened = openAll(dataDir, clock);
      try {
        assert.ok(reopened.durable.recovery.snapshotSeq <= startSeq, `${name}: recovery started early enough`);
        assert.equal(reopened.readModels.appliedSeq, lastSeq, name);
        const rows = openReadModelDatabase(dataDir);
        assert.deepEqual(dump(rows), expected, name);
        rows.close();
        assert.deepEqual(markets.pairs.map((pair) => reopened.tickers.view(pair.id)), tickers, `${name}: tickers`);
      } finally {
        await reopened.durable.close();
        await reopened.readModels.close();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(copyDir, { recursive: true, force: true });
  }
});

test('the worker commits on its interval, not per message, and at once for a query that waits', { timeout: 120_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'read-models-commits-'));
  let now = startTs;
  const clock = (): number => (now += 211);
  const committedSeq = (): number => {
    const reader = openReadModelDatabase(dataDir);
    try {
      return reader.prepare('SELECT applied_seq FROM read_model_progress WHERE id = 1').pluck().get() as number;
    } finally {
      reader.close();
    }
  };
  const generatorOf = (opened: Opened): { generator: CommandGenerator; funding: Command[] } => {
    const engine = opened.durable.engine;
    const generator = new CommandGenerator({ seed: 34, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
    return { generator, funding: generator.fundingCommands() };
  };
  try {
    // An interval of an hour: nothing is committed unless a query asks.
    const idle = openAll(dataDir, clock, 3_600_000);
    try {
      const { generator, funding } = generatorOf(idle);
      await submit(idle.durable, generator, funding, 3_000);
      const durableSeq = idle.durable.sequencer.durableSeq;
      // Every batch reaches the worker within a few message intervals; it writes them and commits none.
      await sleep(5 * postIntervalMs);
      assert.equal(committedSeq(), 0, 'written, not committed');
      assert.equal(idle.readModels.appliedSeq, 0);
      assert.equal(idle.readModels.lagCommands, durableSeq, 'every durable command is with the worker, none committed');
      // A query for the last durable command: every batch is with the worker already, so a commit message
      // wakes it; the query is answered once the rows are committed.
      await idle.readModels.whenApplied(durableSeq);
      assert.ok(idle.readModels.appliedSeq >= durableSeq);
      assert.ok(committedSeq() >= durableSeq, 'committed for the query');
      await idle.durable.close();
    } finally {
      await idle.readModels.close();
    }
    const closedSeq = committedSeq();
    // A short interval: rows nobody asks for are committed all the same, within it.
    const timed = openAll(dataDir, clock, 50);
    try {
      assert.equal(timed.readModels.appliedSeq, closedSeq);
      const { generator, funding } = generatorOf(timed);
      await submit(timed.durable, generator, funding, 2_000);
      const durableSeq = timed.durable.sequencer.durableSeq;
      assert.ok(durableSeq > closedSeq);
      for (let waited = 0; committedSeq() < durableSeq && waited < 10_000; waited += 20) await sleep(20);
      assert.equal(committedSeq(), durableSeq, 'committed on the timer, no query asking');
      await timed.durable.close();
    } finally {
      await timed.readModels.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the writer gathers orders across batches: one statement per order until it commits or gatheredOrdersMax are gathered', () => {
  const { journaled } = runEngine(33, 40_000);
  const ordersOf = (command: Journaled): Set<number> => {
    const ids = new Set<number>();
    for (const event of command.events) {
      if (event.kind === EventKind.orderAccepted || event.kind === EventKind.orderCancelled || event.kind === EventKind.orderExpired) ids.add(event.orderId);
      if (event.kind === EventKind.tradeExecuted) ids.add(event.takerOrderId).add(event.makerOrderId);
      if (event.kind === EventKind.ammFill) ids.add(event.orderId);
    }
    return ids;
  };
  // The longest prefix that touches fewer orders than the bound, and the first that touches more.
  const touched = new Set<number>();
  let below = 0;
  while (below < journaled.length) {
    for (const id of ordersOf(journaled[below]!)) touched.add(id);
    if (touched.size >= gatheredOrdersMax) break;
    below++;
  }
  assert.ok(below > 100 && below < journaled.length, `a prefix of ${below} commands touches fewer than ${gatheredOrdersMax} orders`);
  const rowsWritten = (db: Db): number => db.prepare('SELECT total_changes()').pluck().get() as number;
  const orderRows = (db: Db): number => db.prepare('SELECT count(*) FROM exchange_orders').pluck().get() as number;
  const run = (batches: Journaled[][], check?: (db: Db) => void): { written: number; rows: unknown[] } => {
    const { dir, db } = temporaryDb();
    try {
      const writer = new ReadModelWriter(db, markets);
      const before = rowsWritten(db);
      for (const commands of batches) writer.applyBatch(batchOf(commands));
      check?.(db);
      writer.commit();
      return { written: rowsWritten(db) - before, rows: db.prepare('SELECT * FROM exchange_orders ORDER BY order_id').all() };
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // Below the bound, a batch per command writes no order until the commit, then exactly the rows and
  // statements that one batch of the same commands writes.
  const prefix = journaled.slice(0, below);
  const perCommand = run(
    prefix.map((command) => [command]),
    (db) => assert.equal(orderRows(db), 0, 'no order written before the commit, not even in the open transaction'),
  );
  const whole = run([prefix]);
  assert.deepEqual(perCommand.rows, whole.rows);
  assert.equal(perCommand.written, whole.written);
  assert.ok(perCommand.rows.length > 0);
  // Past the bound the gathered orders go into the open transaction before the commit.
  const past = journaled.slice(0, below + 1);
  const flushed = run(
    past.map((command) => [command]),
    (db) => assert.ok(orderRows(db) > 0, 'orders written into the open transaction once the bound is reached'),
  );
  assert.deepEqual(flushed.rows, run([past]).rows);
});

test('the worker may leave rows uncommitted for the rest of its interval, and not at all while a query waits', () => {
  assert.equal(commitWaitMs(false, 1_000, 1_000), commitIntervalMs);
  assert.equal(commitWaitMs(false, 1_000, 1_030), commitIntervalMs - 30);
  assert.equal(commitWaitMs(false, 1_000, 1_000 + commitIntervalMs), 0);
  assert.equal(commitWaitMs(false, 1_000, 1_000 + 5 * commitIntervalMs), 0);
  assert.equal(commitWaitMs(true, 1_000, 1_000), 0);
  assert.equal(commitWaitMs(false, 0, 10, 3_600_000), 3_600_000 - 10);
});

test('batches go to the worker after the interval, at once when a query waits or enough commands are packed', () => {
  const last = 1_000;
  // Nothing waits and few commands are packed: the rest of the interval since the last message.
  assert.equal(postWaitMs(0, 1, last, last), postIntervalMs);
  assert.equal(postWaitMs(0, postCommandsMax - 1, last, last + 30), postIntervalMs - 30);
  assert.equal(postWaitMs(0, 1, last, last + postIntervalMs), 0);
  assert.equal(postWaitMs(0, 1, last, last + 5 * postIntervalMs), 0);
  // A waiting query, or a full pack, sends now.
  assert.equal(postWaitMs(1, 1, last, last), 0);
  assert.equal(postWaitMs(0, postCommandsMax, last, last), 0);
  assert.equal(postWaitMs(0, postCommandsMax + 500, last, last + 1), 0);
  // Before any message (the last one "at minus infinity") there is nothing to wait for.
  assert.equal(postWaitMs(0, 1, -Infinity, 0), 0);
});
