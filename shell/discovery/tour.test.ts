/**
 * The every-route tour: one started server, and every public route of its table (auth other than admin)
 * called at least once with a success, through the test client's `call`, which checks each 2xx answer
 * against the route's declared response schema. Text routes (llms.txt) are checked by their content type.
 *
 * The calls come from `visits`, a table keyed by route name and run in its order: each entry sets up what
 * its route needs (a funded user, a created market, a resting order, an earlier answer's id) and returns
 * the answer of its own route. A public route without an entry fails the test by name, as does an entry
 * whose route is gone, a public route the tour did not reach, and a public route without a response
 * schema (bar those of `routesAwaitingSchemas`).
 *
 * Settings: ARENA_EPOCH_MS is 2 s so that a resolved arena epoch exists for GET /api/v1/arena/epoch/{n}
 * within the tour (the other routes answer 2xx without any time passing); PRICE_HISTORY_DAYS is 40 so
 * that the MACD's shortest window (35 closes) is there; PRICE_TICK_MS is 100 so the oracle prices every
 * asset at once. The main user's key is raised to the MARKET_MAKER tier (admin PATCH) so that the tour's
 * requests stay within its general rate limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOTP, URI } from 'otpauth';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call, type JsonResponse } from '../http/test-client.ts';
import { Router } from '../http/router.ts';
import type { Route } from '../http/route-table.ts';

/** A fictional person's profile page, for the CEO index's scoring routes. */
const profilePage = `<!doctype html><html><head><title>Rowan Vale - CEO at Fictional Orbit</title>
<meta property="og:title" content="Rowan Vale - CEO at Fictional Orbit"></head><body><article><h1>Rowan Vale</h1>
<p>Rowan Vale is the CEO of Fictional Orbit, a sample company. Rowan trained transformer language models and wrote papers on vector embeddings.</p>
<p>Before that, Rowan worked as a hands-on engineer on machine learning systems in production for many years.</p></article></body></html>`;
/** Where the page is served (set once the tour's page server listens). */
let tourPageUrl = '';

const adminKey = 'tour-admin';
const admin = { 'x-api-key': adminKey };
const password = 'correct horse';
/** Withdrawal destinations: well-formed addresses nobody owns. */
const evmAddress = `0x${'7e'.repeat(20)}`;
const otherEvmAddress = `0x${'3c'.repeat(20)}`;
/** The wallet the tour's bot registers (incentives: staking and the bot's tier go by it). */
const botWallet = `0x${'b0'.repeat(20)}`;
const platToken = 'PLATtoken1111111111111111111111111111111111';

interface User {
  userId: number;
  email: string;
  bearer: Record<string, string>;
  key: Record<string, string>;
  keyId: string;
  /** The user's first deposit address: the wallet games know the user by. */
  wallet: string;
}

/** An answer, JSON or text, with the route that gave it. */
interface Answer {
  readonly status: number;
  readonly route: string;
  readonly json: Record<string, any>;
}

/** The running server, the users, and what earlier visits left for later ones (ids, addresses). */
class Tour {
  readonly reached = new Set<string>();
  private readonly router = new Router<Route>();
  /** Ids and records handed from one visit to the next, by a name the visits agree on. */
  readonly kept = new Map<string, any>();
  alice!: User;
  bob!: User;

  constructor(readonly server: RunningServer) {
    for (const route of server.table.routes) this.router.add(route.method, route.path, route);
  }

  private routeOf(method: string, path: string): string {
    const route = this.router.match(method, path.split('?')[0]!).route;
    return route === null ? `${method} ${path}` : (route.name ?? route.path);
  }

  /** A JSON call through the checking client; a 2xx marks its route reached. */
  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response: JsonResponse = await call(this.server, method, path, body, headers);
    const route = this.routeOf(method, path);
    if (response.status >= 200 && response.status < 300) this.reached.add(route);
    return { status: response.status, route, json: response.json };
  }

  /** A text document: reached when it answers 2xx with `contentType`. */
  async text(path: string, contentType: RegExp): Promise<Answer> {
    const response = await fetch(`http://127.0.0.1:${this.server.port}${path}`, { headers: { connection: 'close' } });
    const text = await response.text();
    assert.match(response.headers.get('content-type') ?? '', contentType, `${path}: content type`);
    assert.ok(text.length > 0, `${path}: a body`);
    const route = this.routeOf('GET', path);
    if (response.ok) this.reached.add(route);
    return { status: response.status, route, json: { text } };
  }

  /** A call that must succeed: its answer's JSON (setup steps whose failure would confuse later visits). */
  async ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, any>> {
    const answer = await this.call(method, path, body, headers);
    assert.ok(answer.status >= 200 && answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
    return answer.json;
  }

  async user(name: string, credits: ReadonlyArray<readonly [string, string]>): Promise<User> {
    const email = `${name}@tour.example`;
    const registered = await this.ok('POST', '/auth/register', { email, password, username: name });
    const bearer = { authorization: `Bearer ${registered['access_token']}` };
    const created = await this.ok('POST', '/api/v1/api-keys', { key_name: 'tour' }, bearer);
    const key = { 'x-api-key': created['api_key'] as string };
    const userId = registered['user_id'] as number;
    for (const [asset, amount] of credits) await this.ok('POST', '/admin/v1/credit', { user_id: userId, asset, amount }, admin);
    const addresses = await this.ok('GET', '/api/v1/funding/deposit-addresses', undefined, key);
    return { userId, email, bearer, key, keyId: String(created['api_key_id']), wallet: addresses['addresses'][0].address };
  }

  /** Polls `check` (anonymous reads or the main key, both within their rate limits) until it holds. */
  async until(what: string, check: () => Promise<boolean>): Promise<void> {
    const startedMs = Date.now();
    while (!(await check())) {
      if (Date.now() - startedMs > 20_000) throw new Error(`the tour timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  take<T = any>(name: string): T {
    assert.ok(this.kept.has(name), `an earlier visit keeps ${name}`);
    return this.kept.get(name) as T;
  }
}

type Visit = (tour: Tour) => Promise<Answer>;

/** Keeps `value` under `name` for later visits when the answer is a success, and returns the answer. */
function keep(tour: Tour, answer: Answer, name: string, value: unknown): Answer {
  if (answer.status >= 200 && answer.status < 300) tour.kept.set(name, value);
  return answer;
}

/** The TOTP of a provisioning URI, for the 2FA visits. */
function totpOf(uri: string): TOTP {
  const totp = URI.parse(uri);
  assert.ok(totp instanceof TOTP);
  return totp;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Route name -> how to call it, in the order the tour runs them. Users: alice (the main trader, a
 * MARKET_MAKER key and a session), bob (her counterparty), dave (the credentials and 2FA routes).
 */
const visits: Record<string, Visit> = {
  // Discovery and the public exchange.
  get_openapi_document: (t) => t.call('GET', '/openapi-public.json'),
  get_llms_txt: (t) => t.text('/llms.txt', /^text\/plain/),
  get_asyncapi_document: (t) => t.call('GET', '/asyncapi.json'),
  get_agent_card: (t) => t.call('GET', '/.well-known/agent-card.json'),
  get_skill_md: (t) => t.text('/.well-known/skills/default/SKILL.md', /^text\/markdown/),
  // Operations: the probes, and the metrics (open: the tour sets no METRICS_TOKEN).
  get_health: (t) => t.call('GET', '/health'),
  get_readiness: (t) => t.call('GET', '/ready'),
  get_metrics: (t) => t.text('/metrics', /^text\/plain; version=0\.0\.4/),
  // Replication: the embedded single process answers `replication: "off"`.
  get_leader: (t) => t.call('GET', '/leader'),
  analyze_prompt_assets: (t) =>
    t.call('POST', '/api/v1/ai_trading_agent/prompt-assets', { prompt: 'Should I buy bitcoin before the halving?', user_id: t.alice.userId }, t.alice.key),
  analyze_url_assets: (t) => t.call('POST', '/api/v1/ai_trading_agent/analyze-url-assets', { url: tourPageUrl, assets: ['BTC'] }, t.alice.key),
  // Due diligence of the tour's own page server (any path answers the profile page).
  assess_ai_due_diligence: (t) => t.call('GET', `/api/v1/ai-due-diligence?website=${encodeURIComponent(new URL(tourPageUrl).origin)}`),
  submit_ai_due_diligence: (t) => t.call('POST', '/api/v1/ai-due-diligence', { website: new URL(tourPageUrl).origin }),
  stream_ai_due_diligence: (t) => t.text(`/api/v1/ai-due-diligence/stream?website=${encodeURIComponent(new URL(tourPageUrl).origin)}`, /^text\/event-stream/),
  get_ai_due_diligence_result: (t) => t.call('GET', `/api/v1/ai-due-diligence/result?website=${encodeURIComponent(new URL(tourPageUrl).origin)}`),
  get_ai_due_diligence_history: (t) => t.call('GET', `/api/v1/ai-due-diligence/history?domains=${encodeURIComponent(new URL(tourPageUrl).host)}`),
  ask_support_agent: (t) => t.call('POST', '/api/v1/support/ai-agent', { question: 'How do I place a scale order?' }),
  ask_investor_agent: (t) => t.call('POST', '/api/v1/support/ai-agent/investor', { question: 'What volume has the exchange traded?' }),

  // The CEO index: the sample board, then a scoring of the tour's own fictional profile page.
  get_ceo_ai_leaderboard: (t) => t.call('GET', '/api/v1/ceo-ai-leaderboard?sector=crypto&limit=10'),
  export_ceo_ai_leaderboard: (t) => t.call('GET', '/api/v1/ceo-ai-leaderboard/export.json'),
  get_ceo_ai_methodology: (t) => t.call('GET', '/api/v1/ceo-ai-leaderboard/methodology'),
  get_ceo_ai_profile: async (t) => {
    const slug = (await t.ok('GET', '/api/v1/ceo-ai-leaderboard?limit=10'))['people'][0].slug;
    return t.call('GET', `/api/v1/ceo-ai-leaderboard/profile/${slug}`);
  },
  score_ceo_ai_profile: (t) => t.call('POST', '/api/v1/ceo-ai-leaderboard/score?wait=10', { url: tourPageUrl }),
  get_ceo_ai_score_status: (t) => t.call('GET', `/api/v1/ceo-ai-leaderboard/score/status?url=${encodeURIComponent(tourPageUrl)}`),
  stream_ceo_ai_score: (t) => t.text(`/api/v1/ceo-ai-leaderboard/score/stream?url=${encodeURIComponent(tourPageUrl)}`, /^text\/event-stream/),
  tp_clob_list_pairs: (t) => t.call('GET', '/api/v1/exchange/pairs'),
  tp_clob_time: (t) => t.call('GET', '/api/v1/exchange/time'),

  // Credentials: dave signs up, logs in, refreshes, and manages keys.
  register: async (t) => {
    const answer = await t.call('POST', '/auth/register', { email: 'dave@tour.example', password, username: 'dave' });
    return keep(t, answer, 'dave', answer.json);
  },
  login: async (t) => {
    const answer = await t.call('POST', '/auth/login', { email: 'dave@tour.example', password });
    return keep(t, answer, 'daveRefresh', answer.json['refresh_token']);
  },
  refresh_session: (t) => t.call('POST', '/auth/refresh', { refresh_token: t.take('daveRefresh') }),
  // A wallet signs in with Ethereum: a nonce, then the EIP-4361 message signed by a viem account.
  siwe_nonce: async (t) => {
    const answer = await t.call('GET', '/wallet/siwe/nonce');
    return keep(t, answer, 'siweNonce', answer.json);
  },
  siwe_sign_in: async (t) => {
    const issued = t.take('siweNonce');
    const wallet = privateKeyToAccount(`0x${'5a'.repeat(32)}`);
    const message = createSiweMessage({
      address: wallet.address,
      chainId: issued['chain_id'],
      domain: issued['domain'],
      nonce: issued['nonce'],
      uri: `http://${issued['domain']}/`,
      version: '1',
      issuedAt: new Date(issued['issued_at']),
    });
    return t.call('POST', '/wallet/siwe', { message, signature: await wallet.signMessage({ message }) });
  },
  get_api_key_with_password: (t) => t.call('POST', '/auth/api-key', { email: 'dave@tour.example', password, key_name: 'one-call' }),
  create_api_key: async (t) => {
    const answer = await t.call('POST', '/api/v1/api-keys', { key_name: 'spare', permissions: ['read'] }, { authorization: `Bearer ${t.take('dave')['access_token']}` });
    return keep(t, answer, 'spareKeyId', answer.json['api_key_id']);
  },
  list_api_keys: (t) => t.call('GET', '/api/v1/api-keys', undefined, { authorization: `Bearer ${t.take('dave')['access_token']}` }),
  update_api_key: (t) => t.call('PATCH', `/api/v1/api-keys/${t.take('spareKeyId')}`, { key_name: 'renamed', permissions: ['read', 'trade'], signed: true }, { authorization: `Bearer ${t.take('dave')['access_token']}` }),
  revoke_api_key: (t) => t.call('DELETE', `/api/v1/api-keys/${t.take('spareKeyId')}`, undefined, { authorization: `Bearer ${t.take('dave')['access_token']}` }),
  register_agent: (t) => t.call('POST', '/mcp/v1/register', { name: 'Tour agent', contact_email: 'ops@tour.example', intended_use: 'reading every route once' }),

  // 2FA for dave. A code is accepted within one 30 s step of drift and never twice, so enabling takes
  // the previous step's code, verifying the current one and disabling the next one.
  get_two_factor_status: (t) => t.call('GET', '/auth/2fa/status', undefined, { authorization: `Bearer ${t.take('dave')['access_token']}` }),
  setup_two_factor: async (t) => {
    // Three steps in a row must fall within one step of drift: start early in a step.
    if (Date.now() % 30_000 > 20_000) await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 50));
    const answer = await t.call('POST', '/auth/2fa/setup', undefined, { authorization: `Bearer ${t.take('dave')['access_token']}` });
    return keep(t, answer, 'totp', totpOf(answer.json['provisioning_uri']));
  },
  enable_two_factor: (t) => t.call('POST', '/auth/2fa/enable', { code: t.take<TOTP>('totp').generate({ timestamp: Date.now() - 30_000 }) }, { authorization: `Bearer ${t.take('dave')['access_token']}` }),
  verify_two_factor: async (t) => {
    const limited = await t.ok('POST', '/auth/login', { email: 'dave@tour.example', password });
    assert.equal(limited['requires_2fa'], true);
    const answer = await t.call('POST', '/auth/2fa/verify', { code: t.take<TOTP>('totp').generate({ timestamp: Date.now() }) }, { authorization: `Bearer ${limited['access_token']}` });
    return keep(t, answer, 'daveFull', answer.json['access_token']);
  },
  disable_two_factor: (t) => t.call('POST', '/auth/2fa/disable', { code: t.take<TOTP>('totp').generate({ timestamp: Date.now() + 30_000 }) }, { authorization: `Bearer ${t.take('daveFull')}` }),

  // Accounts and funding (alice).
  get_portfolio: (t) => t.call('GET', '/api/v1/account/me/portfolio', undefined, t.alice.key),
  get_balances: (t) => t.call('GET', '/api/v1/account/me/balances', undefined, t.alice.key),
  tp_clob_balance: (t) => t.call('GET', '/api/v1/exchange/eth/balance', undefined, t.alice.key),
  get_deposit_addresses: (t) => t.call('GET', '/api/v1/funding/deposit-addresses', undefined, t.alice.key),
  withdraw: (t) => t.call('POST', '/api/v1/funding/withdraw', { asset: 'USDC', amount: '10', chain: 'base', address: evmAddress }, t.alice.bearer),
  tp_clob_withdraw: (t) => t.call('POST', '/api/v1/exchange/eth/withdraw', { amount: '0.5', chain: 'arbitrum', address: otherEvmAddress }, t.alice.bearer),
  list_withdrawals: (t) => t.call('GET', '/api/v1/funding/withdrawals', undefined, t.alice.key),
  add_withdrawal_address: (t) => t.call('POST', '/api/v1/account/withdrawal-addresses', { address: evmAddress, chain: 'ethereum', label: 'cold wallet' }, t.alice.bearer),
  list_withdrawal_addresses: (t) => t.call('GET', '/api/v1/account/withdrawal-addresses', undefined, t.alice.bearer),
  remove_withdrawal_address: (t) => t.call('DELETE', '/api/v1/account/withdrawal-addresses', { address: evmAddress, chain: 'ethereum' }, t.alice.bearer),

  // The exchange: alice makes, bob takes.
  tp_clob_place_order: async (t) => {
    const answer = await t.call('POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity: '2', price: '3000' }, t.alice.key);
    return keep(t, answer, 'ask', answer.json['order_id']);
  },
  tp_clob_orderbook: (t) => t.call('GET', '/api/v1/exchange/eth/book?depth=5', undefined, t.alice.key),
  tp_clob_hybrid_book: (t) => t.call('GET', '/api/v1/exchange/eth/book/hybrid'),
  tp_clob_book: (t) => t.call('GET', '/api/v1/clob/book/hybrid?pair=ETH/USDC&depth=5'),
  tp_clob_venues: (t) => t.call('GET', '/api/v1/exchange/eth/venues'),
  tp_clob_bbo: (t) => t.call('GET', '/api/v1/exchange/eth/bbo'),
  // 1 ETH at 3000: 3000 USDC of volume for each, enough for the first airdrop and a games streak.
  tp_clob_submit_order: (t) => t.call('POST', '/api/v1/clob/orders', { pair: 'ETH/USDC', side: 'buy', order_type: 'limit', quantity: '1', price: '3000' }, t.bob.key),
  tp_clob_amend_order: (t) => t.call('PATCH', `/api/v1/exchange/eth/orders/${t.take('ask')}`, { price: '3005' }, t.alice.key),
  tp_clob_open_orders: (t) => t.call('GET', '/api/v1/exchange/eth/orders/open', undefined, t.alice.key),
  tp_clob_get_order: (t) => t.call('GET', `/api/v1/exchange/eth/orders/${t.take('ask')}`, undefined, t.alice.key),
  tp_clob_cancel_order: (t) => t.call('DELETE', `/api/v1/exchange/eth/orders/${t.take('ask')}`, undefined, t.alice.key),
  tp_clob_place_batch: async (t) => {
    const orders = [
      { side: 'sell', order_type: 'limit', quantity: '0.1', price: '3100' },
      { side: 'sell', order_type: 'limit', quantity: '0.1', price: '3110' },
    ];
    const answer = await t.call('POST', '/api/v1/exchange/eth/orders/batch', { orders }, t.alice.key);
    return keep(t, answer, 'batch', (answer.json['results'] as Array<Record<string, any>>).map((result) => result['order_id']));
  },
  tp_clob_cancel_batch: (t) => t.call('DELETE', '/api/v1/exchange/eth/orders/batch', { order_ids: t.take<string[]>('batch').map(String) }, t.alice.key),
  tp_clob_cancel_all_orders: async (t) => {
    await t.ok('POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2000' }, t.alice.key);
    return t.call('DELETE', '/api/v1/exchange/eth/orders', undefined, t.alice.key);
  },
  tp_clob_get_order_by_client_id: async (t) => {
    await t.ok('POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2000', client_order_id: 'tour-bid.1' }, t.alice.key);
    return t.call('GET', '/api/v1/exchange/eth/orders/by-client-id/tour-bid.1', undefined, t.alice.key);
  },
  tp_clob_open_orders_all: (t) => t.call('GET', '/api/v1/exchange/orders/open', undefined, t.alice.key),
  tp_clob_cancel_order_by_client_id: (t) => t.call('DELETE', '/api/v1/exchange/eth/orders/by-client-id/tour-bid.1', undefined, t.alice.key),
  tp_clob_cancel_all_pairs: async (t) => {
    await t.ok('POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '0.1', price: '2000' }, t.alice.key);
    return t.call('DELETE', '/api/v1/exchange/orders', undefined, t.alice.key);
  },
  tp_clob_cancel_all_after: async (t) => {
    // Armed, then disarmed, so the switch cannot fire on the tour's later orders.
    await t.ok('POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 60_000 }, t.alice.key);
    return t.call('POST', '/api/v1/exchange/cancel-all-after', { timeout_ms: 0 }, t.alice.key);
  },
  tp_clob_get_cancel_all_after: (t) => t.call('GET', '/api/v1/exchange/cancel-all-after', undefined, t.alice.key),
  tp_clob_place_twap: async (t) => {
    const answer = await t.call('POST', '/api/v1/exchange/eth/twap', { side: 'buy', quantity: '0.4', duration_seconds: 40, interval_seconds: 10 }, t.bob.key);
    return keep(t, answer, 'twap', answer.json['twap_id']);
  },
  tp_clob_active_twaps: (t) => t.call('GET', '/api/v1/exchange/eth/twap', undefined, t.bob.key),
  tp_clob_cancel_twap: (t) => t.call('DELETE', `/api/v1/exchange/eth/twap/${t.take('twap')}`, undefined, t.bob.key),
  tp_clob_place_scale: (t) => t.call('POST', '/api/v1/exchange/eth/scale', { side: 'buy', quantity: '1', price_low: '2900', price_high: '2950', count: 5, distribution: 'increasing' }, t.bob.key),
  tp_clob_place_scale_orders: (t) => t.call('POST', '/api/v1/exchange/eth/orders/scale', { side: 'sell', quantity: '0.9', price_low: '3100', price_high: '3300', count: 3, distribution: 'decreasing' }, t.alice.key),
  tp_clob_order_history: (t) => t.call('GET', '/api/v1/exchange/eth/orders/history?limit=10', undefined, t.alice.key),
  tp_clob_recent_trades: (t) => t.call('GET', '/api/v1/exchange/eth/trades'),
  tp_clob_my_trades: (t) => t.call('GET', '/api/v1/exchange/eth/trades/mine', undefined, t.alice.key),
  tp_clob_my_trades_all: (t) => t.call('GET', '/api/v1/exchange/trades/mine', undefined, t.alice.key),
  tp_clob_ticker: (t) => t.call('GET', '/api/v1/exchange/eth/ticker'),
  tp_clob_markets: (t) => t.call('GET', '/api/v1/exchange/markets'),
  tp_clob_stats: (t) => t.call('GET', '/api/v1/exchange/eth/stats'),
  tp_clob_chart: (t) => t.call('GET', '/api/v1/exchange/eth/chart?interval=1m'),

  // Prices.
  get_price: (t) => t.call('GET', '/api/v1/prices/BTC', undefined, t.alice.key),
  get_prices: (t) => t.call('GET', '/api/v1/prices?assets=BTC&assets=ETH', undefined, t.alice.key),
  get_price_history: (t) => t.call('GET', '/api/v1/prices/ETH/history?days=10', undefined, t.alice.key),
  get_macd: (t) => t.call('GET', '/api/v1/technical-indicators/macd/BTC?days=35', undefined, t.alice.key),

  // Prediction markets: alice creates one starting in ten minutes; orders and bets are taken while pending.
  create_market: async (t) => {
    const startMs = Date.now() + 600_000;
    const body = { name: 'Tour sprint', description: 'BTC or ETH', assets: ['BTC', 'ETH'], asset_type: 'crypto', token: 'USDC', start_time: iso(startMs), end_time: iso(startMs + 3_600_000), min_bet: '1', max_bet: '100' };
    const answer = await t.call('POST', '/api/v1/markets', body, t.alice.key);
    return keep(t, answer, 'market', answer.json['contract_address']);
  },
  list_markets: (t) => t.call('GET', '/api/v1/markets?limit=10', undefined, t.alice.key),
  get_market: (t) => t.call('GET', `/api/v1/markets/${t.take('market')}`, undefined, t.alice.key),
  get_market_orderbook: (t) => t.call('GET', `/api/v1/markets/${t.take('market')}/orderbook?asset=BTC`, undefined, t.alice.key),
  place_market_order: async (t) => {
    const answer = await t.call('POST', `/api/v1/markets/${t.take('market')}/orders`, { user_id: t.alice.userId, asset: 'BTC', side: 'buy', price: '0.4', quantity: '2' }, t.alice.key);
    return keep(t, answer, 'marketOrder', answer.json['order_id']);
  },
  list_my_market_orders: (t) => t.call('GET', `/api/v1/markets/${t.take('market')}/orders`, undefined, t.alice.key),
  cancel_market_order: (t) => t.call('DELETE', `/api/v1/markets/${t.take('market')}/orders/${t.take('marketOrder')}`, undefined, t.alice.key),
  place_wta_bet: (t) => t.call('POST', `/api/v1/wta/markets/${t.take('market')}/bet`, { user_id: t.alice.userId, asset: 'ETH', amount: '5' }, t.alice.key),
  get_market_results: (t) => t.call('GET', `/api/v1/markets/${t.take('market')}/results`, undefined, t.alice.key),

  // Perpetual prediction markets (alice holds PRED).
  list_perpetual_markets: (t) => t.call('GET', '/api/v1/perpetual/markets'),
  get_perpetual_market_status: (t) => t.call('GET', '/api/v1/perpetual/markets/BTC/status'),
  perpetual_predict: (t) => t.call('POST', '/api/v1/perpetual/user/pred-predict', { market_symbol: 'BTC', side: 'YES', amount: '2.5' }, t.alice.key),
  get_perpetual_balance: (t) => t.call('GET', '/api/v1/perpetual/user/balance', undefined, t.alice.key),
  get_perpetual_trades: (t) => t.call('GET', '/api/v1/perpetual/user/trades', undefined, t.alice.key),

  // The arena (seeded at start unless ARENA_AUTO_SEED is off; the seed route answers either way).
  seed_arena: (t) => t.call('POST', '/api/v1/arena/seed', {}, t.alice.key),
  get_arena_state: (t) => t.call('GET', '/api/v1/arena/market'),
  get_arena_teams: (t) => t.call('GET', '/api/v1/arena/teams'),
  get_arena_orderbook: (t) => t.call('GET', '/api/v1/arena/orderbook/BLUE?depth=5'),
  get_arena_epoch: (t) => t.call('GET', '/api/v1/arena/epoch/current'),
  get_arena_headlines: (t) => t.call('GET', '/api/v1/arena/headlines?limit=5'),
  place_arena_order: async (t) => {
    const bestAsk = Number((await t.ok('GET', '/api/v1/arena/orderbook/BLUE'))['best_ask']);
    return t.call('POST', '/api/v1/arena/order', { team: 'BLUE', side: 'buy', size: '1.5', price: (bestAsk + 5).toFixed(2) }, t.alice.key);
  },
  cancel_arena_order: async (t) => {
    const resting = await t.ok('POST', '/api/v1/arena/order', { team: 'RED', side: 'buy', size: '2', price: '1.00' }, t.alice.key);
    return t.call('DELETE', `/api/v1/arena/order/${resting['order_id']}`, undefined, t.alice.key);
  },
  get_arena_positions: (t) => t.call('GET', '/api/v1/arena/positions', undefined, t.alice.key),
  get_arena_history: (t) => t.call('GET', '/api/v1/arena/history?limit=5'),

  // Event cards: the first tradable card of the list.
  list_event_cards: async (t) => {
    await t.until('a tradable event card', async () => (await t.ok('GET', '/api/v1/event-cards'))['cards'].some((card: Record<string, unknown>) => card['status'] === 'tradable'));
    const answer = await t.call('GET', '/api/v1/event-cards');
    return keep(t, answer, 'card', answer.json['cards'].find((card: Record<string, unknown>) => card['status'] === 'tradable')['card_id']);
  },
  buy_event_card: async (t) => {
    const answer = await t.call('POST', `/api/v1/event-cards/${t.take('card')}/buy`, { amount_usdc: '100' }, t.alice.key);
    return keep(t, answer, 'bull', answer.json['position_id']);
  },
  sell_event_card: (t) => t.call('POST', `/api/v1/event-cards/${t.take('card')}/sell`, { position_id: t.take('bull'), fraction: '0.5' }, t.alice.key),
  open_event_card_perp: async (t) => {
    const answer = await t.call('POST', `/api/v1/event-cards/${t.take('card')}/short`, { margin_usdc: '100', leverage: 2, side: 'short' }, t.alice.key);
    return keep(t, answer, 'perp', answer.json['position_id']);
  },
  list_event_card_perp_positions: (t) => t.call('GET', `/api/v1/event-cards/${t.take('card')}/perp/positions`, undefined, t.alice.key),
  close_event_card_perp: (t) => t.call('POST', `/api/v1/event-cards/${t.take('card')}/short/close`, { position_id: t.take('perp') }, t.alice.key),

  // Strategy vaults, the AI fund and paper vaults.
  list_vaults: async (t) => {
    const answer = await t.call('GET', '/api/v1/vaults/list');
    return keep(t, answer, 'vault', answer.json['vaults'][0].address);
  },
  list_featured_vaults: (t) => t.call('GET', '/api/v1/vaults/featured'),
  get_vault: (t) => t.call('GET', `/api/v1/vaults/${t.take('vault')}`),
  deposit_to_vault: (t) => t.call('POST', `/api/v1/vaults/${t.take('vault')}/deposit`, { amount_usdc: '1000' }, { ...t.alice.bearer, 'idempotency-key': 'tour-deposit' }),
  get_vault_position: (t) => t.call('GET', `/api/v1/vaults/${t.take('vault')}/position`, undefined, t.alice.key),
  get_my_vault_positions: (t) => t.call('GET', '/api/v1/vaults/my-positions', undefined, t.alice.key),
  withdraw_from_vault: (t) => t.call('POST', `/api/v1/vaults/${t.take('vault')}/withdraw`, { shares: '100' }, t.alice.bearer),
  get_vault_performance: (t) => t.call('GET', '/api/v1/vaults/performance/eth-market-maker'),
  get_vault_backtest: (t) => t.call('GET', '/api/v1/vaults/backtest-performance/btc-trend'),
  get_fund_share_info: (t) => t.call('GET', '/api/v1/vaults/ai-fund/share-info'),
  buy_fund_shares: (t) => t.call('POST', '/api/v1/vaults/ai-fund/buy-shares', { amount_usdc: '500' }, t.alice.bearer),
  get_my_fund_shares: (t) => t.call('GET', '/api/v1/vaults/ai-fund/my-shares', undefined, t.alice.key),
  get_fund_pnl: (t) => t.call('GET', '/api/v1/vaults/ai-fund/pnl', undefined, t.alice.key),
  get_fund_positions: (t) => t.call('GET', '/api/v1/vaults/ai-fund/positions'),
  sell_fund_shares: (t) => t.call('POST', '/api/v1/vaults/ai-fund/sell-shares', { shares: '100' }, t.alice.bearer),
  create_paper_vault: async (t) => {
    const answer = await t.call('POST', '/api/v1/paper-vaults', { strategy: 'trend', pair: 'ETH/USDC' }, t.alice.key);
    return keep(t, answer, 'paperVault', answer.json['id']);
  },
  list_paper_vaults: (t) => t.call('GET', '/api/v1/paper-vaults', undefined, t.alice.key),
  get_paper_vault: (t) => t.call('GET', `/api/v1/paper-vaults/${t.take('paperVault')}`, undefined, t.alice.key),
  deposit_to_paper_vault: (t) => t.call('POST', `/api/v1/paper-vaults/${t.take('paperVault')}/deposit`, { amount_usdc: '100' }, t.alice.key),
  withdraw_from_paper_vault: (t) => t.call('POST', `/api/v1/paper-vaults/${t.take('paperVault')}/withdraw`, { amount_usdc: '50' }, t.alice.key),
  get_paper_vault_trades: (t) => t.call('GET', `/api/v1/paper-vaults/${t.take('paperVault')}/trades`, undefined, t.alice.key),

  // Bots: a paper clone of the first active backtest bot, the AI fund agent, a backtest run.
  list_cloneable_bots: async (t) => {
    const answer = await t.call('GET', '/api/v1/cloned-bots/available', undefined, t.alice.key);
    return keep(t, answer, 'source', answer.json['backtest_bot']?.find((entry: Record<string, unknown>) => entry['is_active'] === true)?.['source_id']);
  },
  clone_bot: (t) => t.call('POST', '/api/v1/cloned-bots/clone', { source_type: 'backtest_bot', source_id: t.take('source'), paper: true }, t.alice.key),
  clone_agent: (t) => t.call('POST', '/api/v1/agents/clone', { agent_id: 'ai-fund', paper: false }, t.alice.bearer),
  run_backtest: async (t) => {
    const answer = await t.call('POST', '/api/v1/backtest/bots/eth-momentum/run-backtest', undefined, t.alice.bearer);
    return keep(t, answer, 'run', answer.json['run_id']);
  },
  get_backtest_run: (t) => t.call('GET', `/api/v1/backtest/runs/${t.take('run')}`, undefined, t.alice.key),

  // Games: alice's wallet has a streak from her trade with bob; she challenges, bob accepts.
  get_games_streak: (t) => t.call('GET', `/api/v2/games/streaks/${t.alice.wallet}`),
  create_games_duel: async (t) => {
    const answer = await t.call('POST', '/api/v2/games/duels', { challenger_wallet: t.alice.wallet, stake_amount: '25', duration_hours: 2, market_id: 'eth' }, t.alice.key);
    return keep(t, answer, 'duel', answer.json['duel_id']);
  },
  accept_games_duel: (t) => t.call('POST', `/api/v2/games/duels/${t.take('duel')}/accept`, {}, t.bob.key),
  list_games_duels: (t) => t.call('GET', '/api/v2/games/duels', undefined, t.alice.key),
  list_games_tournaments: async (t) => {
    const answer = await t.call('GET', '/api/v2/games/tournaments');
    return keep(t, answer, 'tournament', answer.json['tournaments']?.[0]?.['tournament_id']);
  },
  join_games_tournament: (t) => t.call('POST', `/api/v2/games/tournaments/${t.take('tournament')}/join`, {}, t.alice.key),

  // Movers: the first round opens once the oracle has prices.
  get_movers_tournament: async (t) => {
    await t.until('the first movers round', async () => (await t.ok('GET', '/api/v1/universe/movers/tournament'))['round'] >= 1);
    return t.call('GET', '/api/v1/universe/movers/tournament', undefined, t.alice.key);
  },
  enter_movers_tournament: (t) => t.call('POST', '/api/v1/universe/movers/tournament/enter', { symbols: ['BTC', 'ETH'] }, t.alice.key),
  get_movers_potential: (t) => t.call('GET', '/api/v1/universe/movers/potential?limit=5'),

  // Clone tools (the fictional sample data).
  get_fomo_radar_signals: (t) => t.call('GET', '/api/v1/clones/fomo-radar/signals?limit=20'),
  get_fomo_radar_traders: (t) => t.call('GET', '/api/v1/clones/fomo-radar/traders?limit=20'),
  get_protocol_revenue_rankings: (t) => t.call('GET', '/api/v1/clones/protocol-revenue/rankings?metric=revenue&window=7d'),
  get_protocol_revenue_protocol: (t) => t.call('GET', '/api/v1/clones/protocol-revenue/protocols/sample-protocol-3'),
  get_clone_tool_docs: (t) => t.call('GET', '/api/v1/clones/fomo-radar/docs'),

  // Rewards, the bounty, the calculators.
  get_revenue_share_rewards: (t) => t.call('GET', `/api/v1/rst/${platToken}/rewards`, undefined, t.alice.key),
  create_bounty_report: (t) => t.call('POST', '/api/v1/bounty/reports', { title: 'Tour finding', description: 'A route answered outside its declared schema.', severity: 'low' }, t.alice.key),
  get_my_bug_rewards: (t) => t.call('GET', '/api/v1/rewards/me/bugs', undefined, t.alice.key),
  estimate_passive_income: (t) => t.call('GET', '/api/v1/passive-income/estimate?daily_volume_usd=10000000&plat_holdings=10000000'),
  get_promo_status: (t) => t.call('GET', '/api/v1/promo/status'),

  // Incentives: alice registers a bot (bronze tier), stakes PLAT, claims; airdrop 1 needs the 3000 USDC she traded.
  register_bot: async (t) => {
    const answer = await t.call('POST', '/api/v2/incentives/bots/register', { name: 'Tour bot', wallet_address: botWallet, strategy_type: 'market_making' }, t.alice.key);
    return keep(t, answer, 'bot', answer.json['bot_id']);
  },
  get_bot_tier: (t) => t.call('GET', `/api/v2/incentives/bots/${t.take('bot')}/tier`, undefined, t.alice.key),
  list_staking_pools: (t) => t.call('GET', '/api/v2/incentives/staking/pools'),
  stake: (t) => t.call('POST', '/api/v2/incentives/staking/stake', { pool_id: 1, wallet: botWallet, amount: '50000' }, t.alice.key),
  unstake: (t) => t.call('POST', '/api/v2/incentives/staking/unstake', { pool_id: 1, amount: '100' }, t.alice.key),
  claim_staking_rewards: async (t) => {
    // Rewards accrue by the millisecond: a moment after staking there is something to claim.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return t.call('POST', '/api/v2/incentives/staking/rewards/claim', { pool_id: 1 }, t.alice.key);
  },
  get_staking_summary: (t) => t.call('GET', `/api/v2/incentives/staking/user/${botWallet}/summary`, undefined, t.alice.key),
  get_leaderboard: (t) => t.call('GET', '/api/v2/incentives/leaderboards?period=daily&metric=volume&limit=10'),
  list_airdrops: (t) => t.call('GET', '/api/v2/incentives/airdrops', undefined, t.alice.key),
  claim_airdrop: async (t) => {
    await t.until('airdrop 1 to be claimable', async () => (await t.ok('GET', '/api/v2/incentives/airdrops', undefined, t.alice.key))['airdrops'][0].eligible === true);
    return t.call('POST', '/api/v2/incentives/airdrops/1/claim', undefined, t.alice.key);
  },
  list_boosts: (t) => t.call('GET', '/api/v2/games/boosts/available'),
  activate_boost: (t) => t.call('POST', '/api/v2/games/boosts/1/activate', undefined, { ...t.alice.key, 'idempotency-key': 'tour-boost' }),

  // Last, so that the 2 s arena epochs have had time to resolve one.
  get_arena_epoch_result: async (t) => {
    await t.until('a resolved arena epoch', async () => (await t.ok('GET', '/api/v1/arena/history?limit=1'))['total'] >= 1);
    const latest = (await t.ok('GET', '/api/v1/arena/history?limit=1'))['epochs'][0].epoch;
    return t.call('GET', `/api/v1/arena/epoch/${latest}`);
  },
};

test('the tour: every public route answers 2xx within its declared response schema', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tour-'));
  // A profile page for the CEO index's scoring, served from this process (hence OUTBOUND_ALLOW_PRIVATE).
  const pages = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(profilePage);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const config = loadConfig({
    PORT: '0',
    AMM_CHAINS: '',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: adminKey,
    PRICE_TICK_MS: '100',
    PRICE_HISTORY_DAYS: '40',
    ARENA_EPOCH_MS: '2000',
    OUTBOUND_ALLOW_PRIVATE: '1',
  });
  const server = await startServer(config, silentLog);
  try {
    tourPageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/profile`;
    const publicRoutes = server.table.routes.filter((route) => route.auth !== 'admin');
    const names = publicRoutes.map((route) => route.name ?? `${route.method} ${route.path}`);

    // The table's shape first: an entry per public route, and schemas where they are due.
    const missing = names.filter((name) => !(name in visits));
    assert.deepEqual(missing, [], `public routes without a tour entry: ${missing.join(', ')}`);
    const stale = Object.keys(visits).filter((name) => !names.includes(name));
    assert.deepEqual(stale, [], `tour entries naming no public route: ${stale.join(', ')}`);
    // Every JSON route declares its answer; text routes (llms.txt, SKILL.md, event streams) declare their type.
    const unschemed = publicRoutes.filter((route) => route.response === undefined && route.contentType === undefined).map((route) => route.name);
    assert.deepEqual(unschemed, [], `public routes without a response schema: ${unschemed.join(', ')}`);

    const tour = new Tour(server);
    const alice = await tour.user('alice', [['USDC', '1000000'], ['ETH', '100'], ['PLAT', '100000'], ['PRED', '1000']]);
    // A MARKET_MAKER key: the tour's reads stay far within its general limit.
    await tour.ok('PATCH', `/admin/v1/api-keys/${alice.keyId}`, { tier: 'MARKET_MAKER' }, admin);
    tour.alice = alice;
    tour.bob = await tour.user('bob', [['USDC', '1000000'], ['ETH', '100']]);
    await tour.until('BTC, ETH and SOL priced', async () => {
      const prices = await tour.call('GET', '/api/v1/prices?assets=BTC,ETH,SOL', undefined, alice.key);
      return prices.status === 200;
    });

    for (const [name, visit] of Object.entries(visits)) {
      const answer = await visit(tour);
      assert.equal(answer.route, name, `the visit of ${name} answers with its own route`);
      assert.ok(answer.status >= 200 && answer.status < 300, `${name}: ${answer.status} ${JSON.stringify(answer.json)}`);
    }

    const unreached = names.filter((name) => !tour.reached.has(name));
    assert.deepEqual(unreached, [], `public routes the tour did not reach: ${unreached.join(', ')}`);
  } finally {
    await server.close();
    pages.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
