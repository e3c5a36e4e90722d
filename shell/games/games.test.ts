/**
 * The games routes on a real server: at start the reward account is funded, the games configured and the
 * next daily tournament scheduled (journaled); a live trade makes both traders' streaks public by wallet;
 * a duel is created with the challenger's wallet, accepted by another user and listed; a tournament is
 * joined; 401 without credentials, 404 for unknown wallets, markets, duels and tournaments, 409 for an own
 * or taken duel and a second entry, 422 for bad bodies and stakes; a restart journals nothing new and
 * shows the open duel again; and the journal replays to the live state hash.
 *
 * Settlements at journaled times are tested in the engine (engine/domains/games/games.test.ts).
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
import { gamesOf, rewardUserId } from '../../engine/domains/games/games.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';

const admin = { 'x-api-key': 'games-admin' };

async function account(server: RunningServer, name: string): Promise<{ userId: number; key: Record<string, string>; wallet: string }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  const headers = { 'x-api-key': key.json['api_key'] as string };
  const addresses = await call(server, 'GET', '/api/v1/funding/deposit-addresses', undefined, headers);
  const wallet = (addresses.json['addresses'] as Array<{ address: string }>)[0]!.address;
  return { userId: registered.json['user_id'], key: headers, wallet };
}

test('games over HTTP: streaks by wallet, duels, tournaments, refusals, restart and replay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'games-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '200', PRICE_HISTORY_DAYS: '2', ADMIN_API_KEY: admin['x-api-key'], GAMES_REWARD_FUND: '50', GAMES_DUEL_FEE_BPS: '150' });
  let server = await startServer(config, silentLog);
  let running = true;
  try {
    const alice = await account(server, 'alice');
    const bob = await account(server, 'bob');
    const games = gamesOf(server.context.durable.engine);
    assert.deepEqual(games.settings, { assetId: 1, duelFeeBps: 150, milestoneDays: [3, 7, 30], rewardAtoms: [1_000_000, 5_000_000, 25_000_000] });
    const rewardAccount = server.context.durable.engine.ledger.find(rewardUserId, 0);
    assert.equal(server.context.durable.engine.ledger.availableAtoms(rewardAccount, 0), 50_000_000);

    for (const [user, asset, amount] of [
      [alice, 'USDC', '1000'],
      [bob, 'USDC', '1000'],
      [alice, 'ETH', '1'],
    ] as const) {
      assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: user.userId, asset, amount }, admin)).status, 200);
    }

    // Unknown wallets until their users trade or play; a live trade makes both traders' streaks public.
    assert.equal((await call(server, 'GET', `/api/v2/games/streaks/${alice.wallet}`)).status, 404);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', price: '3000', quantity: '0.01' }, alice.key)).status, 201);
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', price: '3000', quantity: '0.01' }, bob.key)).status, 201);
    const streak = await call(server, 'GET', `/api/v2/games/streaks/${alice.wallet}`);
    assert.equal(streak.status, 200);
    assert.deepEqual(streak.json, {
      wallet: alice.wallet,
      asset: 'USDC',
      current_streak_days: 1,
      best_streak_days: 1,
      last_trade_day: new Date().toISOString().slice(0, 10),
      milestones: [
        { days: 3, reward: '1.000000', status: 'pending' },
        { days: 7, reward: '5.000000', status: 'pending' },
        { days: 30, reward: '25.000000', status: 'pending' },
      ],
      rewards_owed: '0.000000',
    });
    assert.equal((await call(server, 'GET', `/api/v2/games/streaks/${bob.wallet.toUpperCase().replace('0X', '0x')}`)).json['best_streak_days'], 1, 'EVM wallets in any case');
    assert.equal((await call(server, 'GET', '/api/v2/games/streaks/0x0000000000000000000000000000000000000000')).json['error'].code, 'WALLET_NOT_FOUND');

    // Duels.
    const duelBody = { challenger_wallet: alice.wallet, stake_amount: '25', duration_hours: 2, market_id: 'eth' };
    assert.equal((await call(server, 'POST', '/api/v2/games/duels', duelBody)).status, 401);
    const bad = await call(server, 'POST', '/api/v2/games/duels', { ...duelBody, duration_hours: 0 }, alice.key);
    assert.equal(bad.status, 422);
    assert.match(bad.json['error'].message, /duration_hours/);
    assert.equal((await call(server, 'POST', '/api/v2/games/duels', { ...duelBody, challenger_wallet: bob.wallet }, alice.key)).json['error'].code, 'INVALID_WALLET');
    assert.equal((await call(server, 'POST', '/api/v2/games/duels', { ...duelBody, market_id: 'nope' }, alice.key)).status, 404);
    assert.equal((await call(server, 'POST', '/api/v2/games/duels', { ...duelBody, stake_amount: '0.5' }, alice.key)).json['error'].code, 'INVALID_DUEL_STAKE');
    assert.equal((await call(server, 'POST', '/api/v2/games/duels', { ...duelBody, stake_amount: '5000' }, alice.key)).json['error'].code, 'INSUFFICIENT_BALANCE');
    const created = await call(server, 'POST', '/api/v2/games/duels', duelBody, alice.key);
    assert.equal(created.status, 201);
    assert.equal(created.json['status'], 'open');
    assert.equal(created.json['stake_amount'], '25.000000');
    assert.equal(created.json['market_id'], 'eth');
    assert.equal(created.json['role'], 'challenger');
    assert.equal(created.json['fee_bps'], 150);
    const duelId = created.json['duel_id'] as string;
    assert.equal((await call(server, 'POST', `/api/v2/games/duels/${duelId}/accept`, {}, alice.key)).status, 409);
    assert.equal((await call(server, 'POST', '/api/v2/games/duels/999/accept', {}, bob.key)).status, 404);
    assert.equal((await call(server, 'POST', '/api/v2/games/duels/abc/accept', {}, bob.key)).status, 404);
    const accepted = await call(server, 'POST', `/api/v2/games/duels/${duelId}/accept`, {}, bob.key);
    assert.equal(accepted.status, 201);
    assert.equal(accepted.json['status'], 'running');
    assert.equal(accepted.json['role'], 'opponent');
    assert.equal(Date.parse(accepted.json['ends_at']) - Date.parse(accepted.json['starts_at']), 2 * 3_600_000);
    assert.equal((await call(server, 'POST', `/api/v2/games/duels/${duelId}/accept`, {}, bob.key)).json['error'].code, 'DUEL_NOT_OPEN');
    const listed = await call(server, 'GET', '/api/v2/games/duels', undefined, bob.key);
    assert.equal(listed.status, 200);
    assert.deepEqual((listed.json['duels'] as Array<Record<string, unknown>>).map((duel) => [duel['duel_id'], duel['status']]), [[duelId, 'running']]);
    assert.equal((await call(server, 'GET', '/api/v2/games/duels')).status, 401);

    // Tournaments: the next daily one is scheduled at start.
    const tournaments = await call(server, 'GET', '/api/v2/games/tournaments');
    assert.equal(tournaments.status, 200);
    const [daily] = tournaments.json['tournaments'] as Array<Record<string, unknown>>;
    assert.equal(daily!['status'], 'scheduled');
    assert.equal(daily!['entry_fee'], '5.000000');
    assert.equal(Date.parse(daily!['starts_at'] as string) % 86_400_000, 0, 'daily tournaments start at 00:00 UTC');
    assert.equal(daily!['joined'], null);
    const tournamentId = daily!['tournament_id'] as string;
    assert.equal((await call(server, 'POST', `/api/v2/games/tournaments/${tournamentId}/join`, {})).status, 401);
    const joined = await call(server, 'POST', `/api/v2/games/tournaments/${tournamentId}/join`, {}, alice.key);
    assert.equal(joined.status, 201);
    assert.equal(joined.json['entrants'], 1);
    assert.equal(joined.json['joined'], true);
    assert.equal(joined.json['pool'], '5.000000');
    assert.equal((await call(server, 'POST', `/api/v2/games/tournaments/${tournamentId}/join`, {}, alice.key)).json['error'].code, 'ALREADY_JOINED');
    assert.equal((await call(server, 'POST', '/api/v2/games/tournaments/77/join', {}, alice.key)).status, 404);
    assert.equal((await call(server, 'POST', `/api/v2/games/tournaments/${tournamentId}/join`, { extra: 1 }, bob.key)).status, 422);

    // A restart journals no second deposit, configuration or tournament, and shows the open duel again.
    const before = gamesOf(server.context.durable.engine).snapshot();
    await server.close();
    running = false;
    server = await startServer(config, silentLog);
    running = true;
    assert.deepEqual(gamesOf(server.context.durable.engine).snapshot(), before);
    assert.equal(server.context.durable.engine.ledger.availableAtoms(server.context.durable.engine.ledger.find(rewardUserId, 0), 0), 50_000_000);
    const again = await call(server, 'GET', '/api/v2/games/duels', undefined, alice.key);
    assert.deepEqual((again.json['duels'] as Array<Record<string, unknown>>).map((duel) => [duel['duel_id'], duel['status']]), [[duelId, 'running']]);
    assert.equal((await call(server, 'GET', `/api/v2/games/streaks/${alice.wallet}`)).status, 200);

    // The journal replays to the live state.
    await server.close();
    running = false;
    const liveHash = stateHash(server.context.durable.engine);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
    assert.equal(gamesOf(replayed).lastDuelId, 1);
  } finally {
    if (running) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
