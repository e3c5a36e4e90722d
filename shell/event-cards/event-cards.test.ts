/**
 * The event cards over HTTP on a real server with the `sim` oracle: the fixture's cards are listed once
 * priced; buy, sell (a half, then the rest, then 409), perpetual open, positions and close, paper mode with
 * its simulated settlement hash, every route's 401, 404, 409 and 422, the admin exposure; and the journal
 * with card activity replays to the live state hash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandKind } from '../../engine/core/commands.ts';
import { Engine } from '../../engine/core/engine.ts';
import { domainUserId, isDomainUserId } from '../../engine/core/limits.ts';
import { EventCardsCommandType, eventCardsDomainId } from '../../engine/domains/event-cards/commands.ts';
import { Result } from '../../engine/core/results.ts';
import { stateHash } from '../../engine/core/state-hash.ts';
import { readJournal } from '../../engine/journal/reader.ts';
import { useRulesOf } from '../../engine/journal/rules.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { platformDomains } from '../../engine/domains/index.ts';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { loadEventCards } from './fixture.ts';

const admin = { 'x-api-key': 'cards-admin' };

async function account(server: RunningServer, name: string, usdc: string): Promise<{ bearer: Record<string, string>; key: Record<string, string>; userId: number }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  assert.equal(registered.status, 201);
  const bearer = { authorization: `Bearer ${registered.json['access_token']}` };
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, bearer);
  if (usdc !== '0') {
    const credited = await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset: 'USDC', amount: usdc }, admin);
    assert.equal(credited.status, 200);
  }
  return { bearer, key: { 'x-api-key': key.json['api_key'] }, userId: registered.json['user_id'] };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const startedMs = Date.now();
  while (!(await check())) {
    if (Date.now() - startedMs > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const money = /^-?[0-9]+\.[0-9]{6}$/;
const index = /^[0-9]+(\.[0-9]{1,8})?$/;

test('event cards over HTTP: list, bull buy and sell, perpetual open, positions and close, paper, refusals; the journal replays', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cards-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_HISTORY_DAYS: '3', ADMIN_API_KEY: admin['x-api-key'] });
  const server = await startServer(config, silentLog);
  let closed = false;
  try {
    const fixture = loadEventCards();
    await until('every fixture card listed', async () => (await call(server, 'GET', '/api/v1/event-cards')).json['cards']?.length === fixture.length);
    const list = await call(server, 'GET', '/api/v1/event-cards');
    assert.equal(list.status, 200);
    // Cards are listed as their constituents get prices, so in any order.
    const first = list.json['cards'].find((row: { card_id: string }) => row.card_id === fixture[0]!.slug);
    assert.deepEqual(Object.keys(first).sort(), ['card_id', 'change_24h', 'constituents', 'description', 'index', 'name', 'open_interest', 'status']);
    assert.deepEqual(first.constituents.map((row: { weight: number }) => row.weight), fixture[0]!.weightsBps);
    assert.match(first.index, index);
    assert.ok(first.change_24h === null || /^-?[0-9]+\.[0-9]{2}$/.test(first.change_24h));
    assert.deepEqual(first.open_interest, { long: '0.000000', short: '0.000000', bull: '0.000000' });
    const card = first.card_id as string;

    const alice = await account(server, 'alice', '100000');
    const bob = await account(server, 'bob', '0');
    const base = `/api/v1/event-cards/${card}`;

    // Bull: buy, sell half, sell the rest, then the closed position is 409.
    for (const [path, body] of [
      ['buy', { amount_usdc: '1000' }],
      ['sell', { position_id: '00000000-0000-4000-8000-000000000000', fraction: 1 }],
      ['short', { margin_usdc: '10', leverage: 2, side: 'short' }],
      ['short/close', { position_id: '00000000-0000-4000-8000-000000000000' }],
    ] as const) {
      assert.equal((await call(server, 'POST', `${base}/${path}`, body)).status, 401, path);
    }
    const bought = await call(server, 'POST', `${base}/buy`, { amount_usdc: '1000', paper: false }, alice.bearer);
    assert.equal(bought.status, 201, JSON.stringify(bought.json));
    assert.deepEqual(Object.keys(bought.json).sort(), ['amount_usdc', 'card_id', 'created_at', 'entry_index', 'fee', 'kind', 'mode', 'position_id', 'units']);
    assert.match(bought.json['position_id'], uuid);
    assert.equal(bought.json['kind'], 'bull');
    assert.equal(bought.json['amount_usdc'], '1000.000000');
    assert.equal(bought.json['fee'], '1.000000');
    assert.equal(bought.json['mode'], 'live');
    const positionId = bought.json['position_id'] as string;
    const half = await call(server, 'POST', `${base}/sell`, { position_id: positionId, fraction: '0.5' }, alice.key);
    assert.equal(half.status, 200, JSON.stringify(half.json));
    assert.deepEqual(Object.keys(half.json).sort(), ['closed', 'exit_index', 'fee', 'fraction', 'mode', 'position_id', 'proceeds', 'remaining_units', 'units_sold']);
    assert.equal(half.json['closed'], false);
    assert.equal(half.json['fraction'], '0.500000');
    assert.match(half.json['proceeds'], money);
    assert.equal((await call(server, 'POST', `${base}/sell`, { position_id: positionId, fraction: 1 }, bob.key)).status, 404, "bob cannot sell alice's position");
    const rest = await call(server, 'POST', `${base}/sell`, { position_id: positionId, fraction: 1 }, alice.key);
    assert.equal(rest.json['closed'], true);
    assert.equal(rest.json['remaining_units'], '0.000000');
    const again = await call(server, 'POST', `${base}/sell`, { position_id: positionId, fraction: 1 }, alice.key);
    assert.equal(again.status, 409);
    assert.equal(again.json['error'].code, 'POSITION_CLOSED');

    // Bad input: unknown card 404, fractions and leverage out of range 422, no funds 422, unknown position 404.
    const unknownCard = await call(server, 'POST', '/api/v1/event-cards/nope/buy', { amount_usdc: '10' }, alice.key);
    assert.equal(unknownCard.status, 404);
    assert.equal(unknownCard.json['error'].code, 'CARD_NOT_FOUND');
    assert.equal((await call(server, 'GET', '/api/v1/event-cards/nope/perp/positions', undefined, alice.key)).status, 404);
    const another = (await call(server, 'POST', `${base}/buy`, { amount_usdc: 50 }, alice.key)).json['position_id'];
    for (const fraction of ['0', '1.5', '-0.1', '0.0000001', 'half']) {
      const refused = await call(server, 'POST', `${base}/sell`, { position_id: another, fraction }, alice.key);
      assert.equal(refused.status, 422, fraction);
      assert.match(refused.json['error'].message, /fraction/);
    }
    for (const leverage of [0, 21, 2.5]) {
      const refused = await call(server, 'POST', `${base}/short`, { margin_usdc: '10', leverage, side: 'short' }, alice.key);
      assert.equal(refused.status, 422, String(leverage));
      assert.match(refused.json['error'].message, /leverage/);
    }
    assert.equal((await call(server, 'POST', `${base}/short`, { margin_usdc: '10', leverage: 2, side: 'sideways' }, alice.key)).status, 422);
    assert.equal((await call(server, 'POST', `${base}/buy`, { amount_usdc: '0.0000001' }, alice.key)).status, 422);
    assert.equal((await call(server, 'POST', `${base}/buy`, { amount_usdc: '10', extra: 1 }, alice.key)).status, 422);
    const poor = await call(server, 'POST', `${base}/buy`, { amount_usdc: '10' }, bob.key);
    assert.equal(poor.status, 422);
    assert.equal(poor.json['error'].code, 'INSUFFICIENT_BALANCE');
    const tooSmall = await call(server, 'POST', `${base}/buy`, { amount_usdc: '0.5' }, alice.key);
    assert.equal(tooSmall.status, 422);
    assert.equal(tooSmall.json['error'].code, 'INVALID_AMOUNT');
    const ghost = await call(server, 'POST', `${base}/short/close`, { position_id: '00000000-0000-4000-8000-000000000000' }, alice.key);
    assert.equal(ghost.status, 404);
    assert.equal((await call(server, 'POST', `${base}/short/close`, { position_id: another }, alice.key)).status, 404, 'a bull position is not a perpetual');

    // Perpetuals: open both sides, list them, close one; closing again is 409.
    const short = await call(server, 'POST', `${base}/short`, { margin_usdc: '1000', leverage: 5, side: 'short' }, alice.key);
    assert.equal(short.status, 201, JSON.stringify(short.json));
    assert.deepEqual(Object.keys(short.json).sort(), ['card_id', 'created_at', 'entry_index', 'fee', 'leverage', 'liquidation_price', 'margin', 'mode', 'notional', 'position_id', 'side']);
    assert.equal(short.json['notional'], '5000.000000');
    assert.equal(short.json['fee'], '5.000000');
    assert.ok(Number(short.json['liquidation_price']) > Number(short.json['entry_index']));
    const long = await call(server, 'POST', `${base}/short`, { margin_usdc: 200, leverage: 3, side: 'long', mode: 'live' }, alice.bearer);
    assert.equal(long.status, 201);
    assert.ok(Number(long.json['liquidation_price']) < Number(long.json['entry_index']));
    assert.equal((await call(server, 'GET', `${base}/perp/positions`)).status, 401);
    const positions = await call(server, 'GET', `${base}/perp/positions`, undefined, alice.key);
    assert.equal(positions.status, 200);
    assert.deepEqual(positions.json['positions'].map((row: { position_id: string }) => row.position_id), [short.json['position_id'], long.json['position_id']]);
    const row = positions.json['positions'][0];
    assert.deepEqual(Object.keys(row).sort(), ['entry_index', 'funding', 'leverage', 'liquidation_price', 'margin', 'mark_index', 'notional', 'opened_at', 'position_id', 'side', 'unrealized_pnl']);
    assert.match(row.unrealized_pnl, money);
    assert.deepEqual((await call(server, 'GET', `${base}/perp/positions`, undefined, bob.key)).json['positions'], []);
    assert.equal((await call(server, 'POST', `${base}/short/close`, { position_id: short.json['position_id'] }, bob.key)).status, 404);
    const closedShort = await call(server, 'POST', `${base}/short/close`, { position_id: short.json['position_id'] }, alice.key);
    assert.equal(closedShort.status, 200, JSON.stringify(closedShort.json));
    assert.deepEqual(Object.keys(closedShort.json).sort(), ['exit_index', 'fee', 'funding', 'mode', 'position_id', 'realized_pnl', 'returned']);
    assert.equal(closedShort.json['fee'], '5.000000');
    assert.equal(Number(closedShort.json['returned']), 1000 - 5 + Number(closedShort.json['realized_pnl']) - Number(closedShort.json['funding']));
    const closedAgain = await call(server, 'POST', `${base}/short/close`, { position_id: short.json['position_id'] }, alice.key);
    assert.equal(closedAgain.status, 409);

    // Paper: a paper account opens with PAPER_BALANCES; paper positions are apart from live ones.
    const paper = await call(server, 'POST', `${base}/buy`, { amount_usdc: '500', paper: true }, bob.key);
    assert.equal(paper.status, 201, JSON.stringify(paper.json));
    assert.equal(paper.json['mode'], 'paper');
    assert.match(paper.json['sim_tx_hash'], /^sim-[0-9a-f]{8}-/);
    const paperShort = await call(server, 'POST', `${base}/short`, { margin_usdc: '100', leverage: 2, side: 'short', is_paper: true }, bob.key);
    assert.equal(paperShort.status, 201);
    assert.equal((await call(server, 'GET', `${base}/perp/positions?mode=paper`, undefined, bob.key)).json['positions'].length, 1);
    assert.equal((await call(server, 'GET', `${base}/perp/positions?paper=true`, undefined, bob.key)).json['positions'].length, 1);
    assert.equal((await call(server, 'GET', `${base}/perp/positions?mode=demo`, undefined, bob.key)).status, 422);
    assert.equal((await call(server, 'GET', `${base}/perp/positions`, undefined, bob.key)).json['positions'].length, 0);
    assert.equal((await call(server, 'POST', `${base}/short/close`, { position_id: paperShort.json['position_id'] }, bob.key)).status, 404, 'live mode does not see it');
    assert.equal((await call(server, 'POST', `${base}/short/close`, { position_id: paperShort.json['position_id'], mode: 'paper' }, bob.key)).status, 200);
    const listed = async (query: string) => (await call(server, 'GET', `/api/v1/event-cards${query}`)).json['cards'].find((row: { card_id: string }) => row.card_id === card);
    assert.equal((await listed('?mode=paper')).open_interest.bull, '500.000000');
    assert.equal((await listed('')).open_interest.long, '600.000000');

    // The house's exposure: admin only.
    assert.equal((await call(server, 'GET', '/api/v1/admin/event-cards/exposure')).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/admin/event-cards/exposure', undefined, alice.key)).status, 403);
    const exposure = await call(server, 'GET', '/api/v1/admin/event-cards/exposure', undefined, admin);
    assert.equal(exposure.status, 200);
    assert.equal(exposure.json['exposure'].length, fixture.length * 2);
    const live = exposure.json['exposure'].find((row: { card_id: string; mode: string }) => row.card_id === card && row.mode === 'live');
    assert.equal(live.long_notional === '0.000000', false);
    assert.match(live.net_exposure, money);

    // Closed first: the oracle journals until it is stopped, so the live state is final only then.
    await server.close();
    closed = true;
    const liveHash = stateHash(server.context.durable.engine);
    const replayed = new Engine({ markets: loadMarkets(), domains: platformDomains });
    readJournal(join(dataDir, 'journal'), (command, formatVersion) => {
      useRulesOf(replayed, formatVersion);
      assert.equal(replayed.apply(command), Result.ok);
    });
    assert.equal(stateHash(replayed), liveHash);
  } finally {
    if (!closed) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a restart keeps the listed cards, the house funding and the positions; nothing is listed or funded twice', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cards-restart-'));
  const settings = { PORT: '0', DATA_DIR: dataDir, AMM_CHAINS: '', PRICE_TICK_MS: '100', PRICE_HISTORY_DAYS: '3', ADMIN_API_KEY: admin['x-api-key'], EVENT_CARDS_FUNDING_MS: '1000' };
  const first = await startServer(loadConfig(settings), silentLog);
  let positionId = '';
  let card = '';
  try {
    await until('cards listed', async () => (await call(first, 'GET', '/api/v1/event-cards')).json['cards']?.length === loadEventCards().length);
    card = (await call(first, 'GET', '/api/v1/event-cards')).json['cards'][1].card_id;
    const carol = await account(first, 'carol', '5000');
    positionId = (await call(first, 'POST', `/api/v1/event-cards/${card}/short`, { margin_usdc: '100', leverage: 2, side: 'long' }, carol.key)).json['position_id'];
    assert.match(positionId, uuid);
    // Longs only: each funding interval (1 s here, journaled by RunTimers) charges the capped rate, 0.05 %
    // of the 200 USDC notional, so the funding owed grows by 0.1 USDC a second.
    const funding = async () => (await call(first, 'GET', `/api/v1/event-cards/${card}/perp/positions`, undefined, carol.key)).json['positions'][0].funding as string;
    await until('funding charged', async () => Number(await funding()) >= 0.2);
    assert.match(await funding(), /^0\.[0-9]00000$|^[1-9][0-9]*\.[0-9]00000$/);
  } finally {
    await first.close();
  }
  const second = await startServer(loadConfig(settings), silentLog);
  try {
    const cards = await call(second, 'GET', '/api/v1/event-cards');
    assert.equal(cards.json['cards'].length, loadEventCards().length);
    const login = await call(second, 'POST', '/auth/login', { email: 'carol@example.com', password: 'correct horse' });
    const bearer = { authorization: `Bearer ${login.json['access_token']}` };
    const positions = await call(second, 'GET', `/api/v1/event-cards/${card}/perp/positions`, undefined, bearer);
    assert.deepEqual(positions.json['positions'].map((row: { position_id: string }) => row.position_id), [positionId]);
    // One listing per card and one house deposit per mode in the whole journal (other domains fund their own accounts).
    const listings = new Map<string, number>();
    let deposits = 0;
    readJournal(join(dataDir, 'journal'), (command) => {
      if (command.kind === CommandKind.domain && command.type === EventCardsCommandType.listCard) {
        const slug = (command.body as { slug: string }).slug;
        listings.set(slug, (listings.get(slug) ?? 0) + 1);
      }
      if (command.kind === CommandKind.deposit && isDomainUserId(command.userId) && command.userId >= domainUserId(eventCardsDomainId, 0) && command.userId < domainUserId(eventCardsDomainId + 1, 0)) deposits++;
    });
    assert.ok([...listings.values()].every((count) => count === 1));
    assert.equal(listings.size, loadEventCards().length);
    assert.equal(deposits, 2);
  } finally {
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
