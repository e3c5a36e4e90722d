/**
 * The perpetual routes on a real server: at start the house is funded and the six markets configured
 * (journaled), every market opens an epoch with the house's seed on both sides; the markets list and
 * status; predictions live and paper (paper with a sim_tx_hash, and never in the live pools); balance and
 * trades with paging; 401 without credentials, 404 for an unknown collateral, route or market, 422 for bad
 * bodies and stakes; a restart journals nothing new and shows the open stakes again; and the journal
 * replays to the live state hash.
 *
 * Epochs last a day here, so that no epoch ends while the test runs (rollover is tested in the engine).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/core/engine.ts';
import { Result } from '../../engine/core/results.ts';
import { stateHash } from '../../engine/core/state-hash.ts';
import { readJournal } from '../../engine/journal/reader.ts';
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { houseUserId, perpetualOf } from '../../engine/domains/perpetual/perpetual.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { impliedPrices } from './routes.ts';

const admin = { 'x-api-key': 'perp-admin' };

async function account(server: RunningServer): Promise<{ userId: number; key: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: 'perp@example.com', password: 'correct horse', username: 'perp' });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  return { userId: registered.json['user_id'], key: { 'x-api-key': key.json['api_key'] } };
}

test('implied prices are the pool shares, floored to 6 decimals', () => {
  assert.deepEqual(impliedPrices(0, 0), ['0.500000', '0.500000']);
  assert.deepEqual(impliedPrices(12_500_000, 10_000_000), ['0.555555', '0.444444']);
  assert.deepEqual(impliedPrices(1, 0), ['1.000000', '0.000000']);
});

test('perpetual markets over HTTP: markets, status, predict live and paper, balance, trades, refusals, restart and replay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perpetual-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AMM_CHAINS: '',
    PRICE_TICK_MS: '200',
    PRICE_HISTORY_DAYS: '2',
    ADMIN_API_KEY: admin['x-api-key'],
    PERPETUAL_EPOCH_MS: '86400000',
    PERPETUAL_SEED_PRED: '10',
    PERPETUAL_HOUSE_FUND_PRED: '500',
  });
  let server = await startServer(config, silentLog);
  let running = true;
  try {
    const { userId, key } = await account(server);

    const listed = await call(server, 'GET', '/api/v1/perpetual/markets');
    assert.equal(listed.status, 200);
    const markets = listed.json['markets'] as Array<Record<string, unknown>>;
    assert.deepEqual(markets.map((market) => market['symbol']), ['BTC', 'ETH', 'SOL', 'DOGE', 'PLAT', 'PRED']);
    for (const market of markets) {
      assert.equal(market['collateral'], 'PRED');
      assert.equal(market['status'], 'open');
      assert.equal(market['yes_pool'], '10.000000');
      assert.equal(market['no_pool'], '10.000000');
      assert.equal(market['yes_price'], '0.500000');
      assert.equal(market['epoch'], Math.floor(Date.parse(market['epoch_start'] as string) / 86_400_000));
      assert.equal(Date.parse(market['epoch_end'] as string) % 86_400_000, 0, 'epochs end on the day grid');
      assert.match(market['start_price'] as string, /^[0-9]+(\.[0-9]{1,8})?$/);
      assert.match(market['current_price'] as string, /^[0-9]+(\.[0-9]{1,8})?$/);
    }

    const status = await call(server, 'GET', '/api/v1/perpetual/markets/btc/status');
    assert.equal(status.status, 200);
    assert.equal(status.json['symbol'], 'BTC');
    assert.equal(status.json['epoch_length_seconds'], 86_400);
    assert.ok(status.json['countdown_seconds'] > 0 && status.json['countdown_seconds'] <= 86_400);
    assert.equal(status.json['last_resolution'], null);
    const missing = await call(server, 'GET', '/api/v1/perpetual/markets/NOPE/status');
    assert.equal(missing.status, 404);
    assert.equal(missing.json['error'].code, 'MARKET_NOT_FOUND');

    // Credentials come first.
    assert.equal((await call(server, 'POST', '/api/v1/perpetual/user/pred-predict', { market_symbol: 'BTC', side: 'YES', amount: '1' })).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/perpetual/user/balance')).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/perpetual/user/trades')).status, 401);

    const predict = (body: Record<string, unknown>, path = '/api/v1/perpetual/user/pred-predict') => call(server, 'POST', path, body, key);
    const poor = await predict({ market_symbol: 'BTC', side: 'YES', amount: '1' });
    assert.equal(poor.status, 422);
    assert.equal(poor.json['error'].code, 'INSUFFICIENT_BALANCE');
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: userId, asset: 'PRED', amount: '100' }, admin)).status, 200);

    const placed = await predict({ market_symbol: 'btc', side: 'YES', amount: '2.5' });
    assert.equal(placed.status, 201);
    assert.deepEqual(Object.keys(placed.json).sort(), ['amount', 'created_at', 'epoch', 'market_symbol', 'mode', 'no_pool', 'no_price', 'prediction_id', 'side', 'yes_pool', 'yes_price']);
    assert.equal(placed.json['market_symbol'], 'BTC');
    assert.equal(placed.json['side'], 'YES');
    assert.equal(placed.json['amount'], '2.500000');
    assert.equal(placed.json['mode'], 'live');
    assert.equal(placed.json['yes_pool'], '12.500000');
    assert.equal(placed.json['no_pool'], '10.000000');
    assert.equal(placed.json['yes_price'], '0.555555');
    assert.equal(placed.json['no_price'], '0.444444');
    assert.equal(placed.json['epoch'], markets[0]!['epoch']);

    const paper = await predict({ market_symbol: 'ETH', side: 'no', amount: 3, mode: 'paper' });
    assert.equal(paper.status, 201);
    assert.equal(paper.json['mode'], 'paper');
    assert.match(paper.json['sim_tx_hash'], /^sim-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(paper.json['no_pool'], '13.000000');
    assert.equal((await predict({ market_symbol: 'ETH', side: 'YES', amount: '4', is_paper: true })).json['yes_pool'], '14.000000');
    const live = (await call(server, 'GET', '/api/v1/perpetual/markets')).json['markets'] as Array<Record<string, unknown>>;
    assert.equal(live[1]!['no_pool'], '10.000000', 'paper stakes are not in the live pools');
    assert.equal(live[1]!['yes_price'], '0.500000');
    const paperMarkets = (await call(server, 'GET', '/api/v1/perpetual/markets?mode=paper')).json['markets'] as Array<Record<string, unknown>>;
    assert.equal(paperMarkets[1]!['no_pool'], '13.000000');
    assert.equal(paperMarkets[1]!['yes_pool'], '14.000000');

    const refusals: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ market_symbol: 'BTC', side: 'YES', amount: '1' }, 404, 'UNKNOWN_COLLATERAL', '/api/v1/perpetual/user/usdc-predict'],
      [{ market_symbol: 'BTC', side: 'YES', amount: '1' }, 404, 'NOT_FOUND', '/api/v1/perpetual/user/predict'],
      [{ market_symbol: 'NOPE', side: 'YES', amount: '1' }, 404, 'MARKET_NOT_FOUND'],
      [{ market_symbol: 'BTC', side: 'MAYBE', amount: '1' }, 422, 'VALIDATION_FAILED'],
      [{ market_symbol: 'BTC', amount: '1' }, 422, 'VALIDATION_FAILED'],
      [{ market_symbol: 'BTC', side: 'NO', amount: '1', extra: 1 }, 422, 'VALIDATION_FAILED'],
      [{ market_symbol: 'BTC', side: 'NO', amount: '0.5' }, 422, 'INVALID_PERPETUAL_STAKE'],
      [{ market_symbol: 'BTC', side: 'NO', amount: '1000000.000001' }, 422, 'INVALID_PERPETUAL_STAKE'],
      [{ market_symbol: 'BTC', side: 'NO', amount: '1.0000001' }, 422, 'TOO_MANY_DECIMALS'],
      [{ market_symbol: 'BTC', side: 'NO', amount: '-1' }, 422, 'NEGATIVE_VALUE'],
      [{ market_symbol: 'BTC', side: 'NO', amount: 'lots' }, 422, 'INVALID_NUMBER'],
      [{ market_symbol: 'BTC', side: 'NO', amount: '98' }, 422, 'INSUFFICIENT_BALANCE'],
    ];
    for (const [body, expectedStatus, code, path] of refusals) {
      const refused = await predict(body, path);
      assert.equal(refused.status, expectedStatus, `${JSON.stringify(body)} ${path ?? ''}`);
      assert.equal(refused.json['error'].code, code, `${JSON.stringify(body)} ${path ?? ''}`);
    }
    assert.match((await predict({ market_symbol: 'BTC', side: 'NO', amount: '1.0000001' })).json['error'].message, /amount/);

    const balance = await call(server, 'GET', '/api/v1/perpetual/user/balance', undefined, key);
    assert.equal(balance.status, 200);
    assert.equal(balance.json['collateral'], 'PRED');
    assert.equal(balance.json['mode'], 'live');
    assert.equal(balance.json['available'], '97.500000');
    assert.equal(balance.json['held'], '2.500000');
    assert.equal(balance.json['open_stakes'].length, 1);
    assert.equal(balance.json['open_stakes'][0].prediction_id, placed.json['prediction_id']);
    assert.equal(balance.json['open_stakes'][0].outcome, 'pending');
    const paperBalance = await call(server, 'GET', '/api/v1/perpetual/user/balance?mode=paper', undefined, key);
    assert.equal(paperBalance.json['available'], '99993.000000');
    assert.equal(paperBalance.json['held'], '7.000000');
    assert.equal(paperBalance.json['open_stakes'].length, 2);

    await predict({ market_symbol: 'SOL', side: 'NO', amount: '1' });
    await predict({ market_symbol: 'DOGE', side: 'YES', amount: '1.25' });
    const trades = await call(server, 'GET', '/api/v1/perpetual/user/trades', undefined, key);
    assert.equal(trades.status, 200);
    assert.deepEqual(trades.json['trades'].map((trade: { market_symbol: string }) => trade.market_symbol), ['DOGE', 'SOL', 'BTC']);
    assert.equal(trades.json['trades'][0].outcome, 'pending');
    assert.equal(trades.json['trades'][0].payout, null);
    assert.equal(trades.json['next_cursor'], null);
    const first = await call(server, 'GET', '/api/v1/perpetual/user/trades?limit=2', undefined, key);
    assert.equal(first.json['trades'].length, 2);
    const second = await call(server, 'GET', `/api/v1/perpetual/user/trades?limit=2&cursor=${first.json['next_cursor']}`, undefined, key);
    assert.deepEqual(second.json['trades'].map((trade: { market_symbol: string }) => trade.market_symbol), ['BTC']);
    assert.equal(second.json['next_cursor'], null);
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=-1', 'mode=demo', 'other=1']) {
      const refused = await call(server, 'GET', `/api/v1/perpetual/user/trades?${query}`, undefined, key);
      assert.equal(refused.status, 422, query);
    }
    const paperTrades = await call(server, 'GET', '/api/v1/perpetual/user/trades?mode=paper', undefined, key);
    assert.deepEqual(paperTrades.json['trades'].map((trade: { side: string }) => trade.side), ['YES', 'NO']);
    assert.equal(paperTrades.json['trades'][1].sim_tx_hash, paper.json['sim_tx_hash']);

    // The house was funded to 500 PRED in each mode and seeds 10 + 10 on each of the six markets.
    const engine = server.context.durable.engine;
    const house = engine.ledger.find(houseUserId, 0);
    const pred = server.context.markets.assetBySymbol('PRED')!;
    assert.equal(engine.ledger.heldAtoms(house, pred.index), 120_000_000);
    assert.equal(engine.ledger.availableAtoms(house, pred.index), 380_000_000);

    // A restart journals no second deposit or configuration, and shows the open stakes again.
    const lastSeq = server.context.durable.sequencer.lastSeq;
    await server.close();
    running = false;
    const ticksBefore = lastSeq;
    server = await startServer(config, silentLog);
    running = true;
    assert.ok(server.context.durable.recovery.lastSeq >= ticksBefore);
    assert.equal(perpetualOf(server.context.durable.engine).epochMs, 86_400_000);
    assert.equal(server.context.durable.engine.ledger.availableAtoms(server.context.durable.engine.ledger.find(houseUserId, 0), pred.index), 380_000_000);
    const again = await call(server, 'GET', '/api/v1/perpetual/user/trades', undefined, key);
    assert.deepEqual(again.json['trades'].map((trade: { prediction_id: string }) => trade.prediction_id), trades.json['trades'].map((trade: { prediction_id: string }) => trade.prediction_id));
    assert.equal(again.json['trades'][2].created_at, trades.json['trades'][2].created_at);
    assert.equal((await call(server, 'GET', '/api/v1/perpetual/markets?mode=paper')).json['markets'][1].yes_pool, '14.000000');

    await server.close();
    running = false;
    const liveHash = stateHash(server.context.durable.engine);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
    assert.equal(perpetualOf(replayed).lastPredictionId, 5);
  } finally {
    if (running) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
