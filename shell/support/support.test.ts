/**
 * The support agents on a real server (fixed clock): real questions find the right document and section
 * with citations, the same question gets the same answer, a question nothing matches is answered
 * honestly, bad bodies are 422 naming the field, the investor channel's figures equal what the read
 * models, the tickers and the identity store say after some trades, and the rate limit answers 429.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer, type RunningServer } from '../server.ts';
import { call } from '../http/test-client.ts';
import { formatAtoms } from '../../engine/core/units.ts';
import { calculatorPerMinute } from '../auth/rate-limit.ts';
import { answerCharsMax } from './retrieval.ts';
import { buildSupportIndex, questionCharsMax } from './index.ts';

const supportPath = '/api/v1/support/ai-agent';
const investorPath = '/api/v1/support/ai-agent/investor';
const admin = { 'x-api-key': 'support-admin' };

interface Cited {
  document: string;
  section: string;
  score: number;
}

async function trader(server: RunningServer, name: string): Promise<{ userId: number; key: Record<string, string> }> {
  const registered = await call(server, 'POST', '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  assert.equal(registered.status, 201);
  const key = await call(server, 'POST', '/api/v1/api-keys', { key_name: 'k' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '100000'], ['ETH', '10']] as const) {
    assert.equal((await call(server, 'POST', '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, admin)).status, 200);
  }
  return { userId: registered.json['user_id'], key: { 'x-api-key': key.json['api_key'] } };
}

test('support and investor agents: retrieval with citations, 422s, figures from the ledger, 429', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-'));
  const now = Date.UTC(2026, 10, 25, 10, 0, 5);
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, ADMIN_API_KEY: 'support-admin' }), silentLog, () => now);
  // Every request to the two routes counts against the calculator limit of this address.
  let asked = 0;
  const ask = async (path: string, body: unknown) => {
    asked++;
    return call(server, 'POST', path, body);
  };
  try {
    // Real questions: the right document and section among the citations, and the answer quotes it.
    const scale = await ask(supportPath, { question: 'How do I place a scale order?' });
    assert.equal(scale.status, 200);
    assert.equal(scale.json['answered'], true);
    assert.equal(scale.json['analyzer'], 'extractive');
    const scaleCited = scale.json['citations'] as Cited[];
    assert.ok(scaleCited.some((cited) => cited.document === 'README.md' && cited.section === 'Commands > TWAP and scale orders'), JSON.stringify(scaleCited));
    assert.ok(scaleCited.some((cited) => cited.document.startsWith('openapi:tp_clob_place_scale')), JSON.stringify(scaleCited));
    assert.match(scale.json['answer'], /price_low/);
    assert.ok(scale.json['answer'].length <= answerCharsMax);

    const limits = await ask(supportPath, { question: 'what is the rate limit for orders' });
    assert.equal(limits.json['answered'], true);
    assert.ok((limits.json['citations'] as Cited[]).some((cited) => cited.document === 'README.md' && cited.section === 'Commands > Quick start'), JSON.stringify(limits.json['citations']));
    assert.match(limits.json['answer'], /order placements STANDARD 3 000/);

    const key = await ask(supportPath, { question: 'How do I get an API key?' });
    assert.equal(key.json['answered'], true);
    // The route that creates keys, cited from its OpenAPI operation or from llms.txt's API keys section.
    assert.ok(
      (key.json['citations'] as Cited[]).some(
        (cited) => (cited.document === 'openapi:create_api_key' && cited.section.endsWith('POST /api/v1/api-keys')) || (cited.document === 'llms.txt' && cited.section === 'API keys'),
      ),
      JSON.stringify(key.json['citations']),
    );
    assert.match(key.json['answer'], /POST \/api\/v1\/api-keys[^.]*: Create an API key/);
    for (const cited of key.json['citations'] as Cited[]) assert.ok(cited.score > 0);

    // Deterministic: the same question, the same answer and citations.
    const again = await ask(supportPath, { question: 'How do I place a scale order?' });
    assert.deepEqual(again.json, scale.json);

    // Context words steer the ranking, and never answer alone.
    const cancel = await ask(supportPath, { question: 'how do I cancel an order' });
    assert.notEqual(cancel.json['citations'][0].document, 'openapi:cancel_arena_order');
    const cancelInArena = await ask(supportPath, { question: 'how do I cancel an order', context: { page: 'arena' } });
    assert.equal(cancelInArena.json['citations'][0].document, 'openapi:cancel_arena_order');
    const withContext = await ask(supportPath, { question: 'what is the weather in paris tomorrow', context: { page: 'scale orders' } });
    assert.equal(withContext.json['answered'], false);
    const nothing = await ask(supportPath, { question: 'what is the weather in paris tomorrow' });
    assert.equal(nothing.status, 200);
    assert.equal(nothing.json['answered'], false);
    assert.match(nothing.json['answer'], /No answer found/);
    assert.deepEqual(nothing.json['citations'], []);
    assert.ok((nothing.json['suggestions'] as string[]).some((line) => line.includes('/llms.txt')));

    // The index holds README.md, llms.txt and one passage for every public operation of the route table.
    const index = await buildSupportIndex(server.table);
    const documents = new Set(index.passages.map((passage) => passage.document));
    assert.ok(documents.has('README.md') && documents.has('llms.txt'));
    for (const route of server.table.routes) if (route.auth !== 'admin') assert.ok(documents.has(`openapi:${route.name}`), String(route.name));

    // Validation: 422 naming the field.
    const refusals: Array<[unknown, RegExp]> = [
      [{}, /body\.question/],
      [{ question: '' }, /body\.question: must NOT have fewer than 1 characters/],
      [{ question: '   ' }, /body\.question: must not be blank/],
      [{ question: 'x'.repeat(questionCharsMax + 1) }, /body\.question: must NOT have more than 2000 characters/],
      [{ question: 'fees', context: 'y'.repeat(1001) }, /body\.context/],
      [{ question: 'fees', context: { nested: { a: 1 } } }, /body\.context/],
      [{ question: 'fees', extra: 1 }, /body\.extra/],
    ];
    for (const [body, message] of refusals) {
      for (const path of [supportPath, investorPath]) {
        const refused = await ask(path, body);
        assert.equal(refused.status, 422, JSON.stringify(body));
        assert.equal(refused.json['error'].code, 'VALIDATION_FAILED');
        assert.match(refused.json['error'].message, message);
      }
    }
    assert.equal((await ask(supportPath, { question: 'x'.repeat(questionCharsMax) })).status, 200, 'the longest question is accepted');

    // The investor channel after some trades: its figures are the read models' and the tickers'.
    const maker = await trader(server, 'maker');
    const taker = await trader(server, 'taker');
    const fills: Array<[string, string]> = [['3000.00', '0.5'], ['3010.50', '0.25']];
    for (const [price, quantity] of fills) {
      assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'sell', order_type: 'limit', quantity, price }, maker.key)).status, 201);
      assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity, price }, taker.key)).status, 201);
    }
    assert.equal((await call(server, 'POST', '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '1', price: '2000.00' }, taker.key)).status, 201);
    const volume = await ask(investorPath, { question: 'What is the trading volume and how much in fees was collected?' });
    assert.equal(volume.status, 200);
    assert.equal(volume.json['answered'], true);
    assert.equal(volume.json['as_of'], new Date(now).toISOString());
    assert.match(volume.json['statement'], /live ledger/);
    const { context } = server;
    await context.readModels.whenApplied(context.durable.sequencer.durableSeq);
    const eth = context.markets.pairBySymbol('eth')!;
    const trades = context.readModels.queries.trades(eth.id, 0, 100);
    assert.equal(trades.length, 2);
    const usdc = eth.quote;
    const notional = trades.reduce((sum, trade) => sum + trade.notionalAtoms, 0);
    const fees = trades.reduce((sum, trade) => sum + trade.takerFeeAtoms + trade.makerFeeAtoms, 0);
    assert.ok(fees > 0, 'the trades paid fees');
    const facts = new Map((volume.json['facts'] as Array<{ name: string; value: string; unit: string; source: string; as_of: string }>).map((fact) => [fact.name, fact]));
    assert.equal(facts.get('trading_volume_all_time')?.value, formatAtoms(notional, usdc));
    assert.equal(facts.get('trading_volume_all_time')?.unit, 'USDC');
    assert.equal(facts.get('trading_volume_24h')?.value, formatAtoms(context.tickers.view(eth.id).quoteVolumeAtoms, usdc));
    assert.equal(facts.get('trading_volume_24h')?.value, formatAtoms(notional, usdc), 'both trades are within the day');
    assert.equal(facts.get('fees_collected_all_time')?.value, formatAtoms(fees, usdc));
    assert.equal(facts.get('trades_all_time')?.value, '2');
    assert.equal(facts.get('registered_users')?.value, String(context.identity.db.prepare('SELECT COUNT(*) FROM users').pluck().get()));
    assert.equal(facts.get('registered_users')?.value, '2');
    assert.equal(facts.get('resting_orders')?.value, '1', 'the one bid left on the book');
    for (const fact of facts.values()) {
      assert.equal(fact.as_of, new Date(now).toISOString());
      assert.ok(fact.source.length > 0);
    }
    assert.match(volume.json['answer'], new RegExp(`trading volume all time \\(USDC pairs\\): ${formatAtoms(notional, usdc).replace('.', '\\.')} USDC`));
    assert.match(volume.json['answer'], /^Computed from the platform's live ledger/);
    const cited = (volume.json['citations'] as Cited[]).map((item) => item.document);
    assert.ok(cited.includes('ledger:trading_volume_24h') && cited.includes('ledger:fees_collected_all_time'), cited.join());

    const users = await ask(investorPath, { question: 'How many registered users are there?' });
    assert.match(users.json['answer'], /registered users: 2/);
    // A narrative question goes to the documents, with the figures beside it.
    const narrative = await ask(investorPath, { question: 'how do I place a scale order' });
    assert.equal(narrative.json['answered'], true);
    assert.ok((narrative.json['citations'] as Cited[]).some((item) => item.section === 'Commands > TWAP and scale orders'));
    assert.equal((narrative.json['facts'] as unknown[]).length, facts.size);

    // The rate limit: the calculator class, per client address, shared by both routes.
    assert.ok(asked < calculatorPerMinute, `${asked} requests so far`);
    for (; asked < calculatorPerMinute; ) {
      const allowed = await ask(asked % 2 === 0 ? supportPath : investorPath, { question: 'paper mode' });
      assert.equal(allowed.status, 200);
    }
    const limited = await ask(supportPath, { question: 'paper mode' });
    assert.equal(limited.status, 429);
    assert.equal(limited.json['error'].code, 'RATE_LIMITED');
    assert.equal(limited.headers.get('x-ratelimit-limit'), String(calculatorPerMinute));
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
