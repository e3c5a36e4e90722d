/**
 * The Solana fallback, on the route handlers themselves: with CLONE_TOOLS_SOLANA_DOWN the Solana board
 * answers pool-level buy pressure from our own durable AMM fills (source "platform", with the reason) while
 * Robinhood stays on its data; an adapter that throws for Solana falls back the same way, naming the error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AmmFill, type EngineEvent } from '../../engine/core/events.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import type { ShellContext } from '../context.ts';
import type { Reply, RequestContext, Route } from '../http/route-table.ts';
import { VenueDirectory } from '../market/venue-directory.ts';
import { SampleData, type CloneToolsData } from './data.ts';
import { PlatformFlow } from './platform.ts';
import { cloneToolsRoutes } from './routes.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const nowMs = 1_767_225_600_000;
const solanaId = 4;
const chains = { all: [{ id: 1, name: 'ethereum' }, { id: solanaId, name: 'solana' }], byId: () => undefined };
const venues = new VenueDirectory(chains as never, [
  { id: 41, name: 'orca SOL/USDC', chainId: solanaId, dex: 'orca', kind: 'clmm', pair: 'SOL/USDC' },
  { id: 42, name: 'raydium SOL/USDC', chainId: solanaId, dex: 'raydium', kind: 'v2', pair: 'SOL/USDC' },
  { id: 11, name: 'uniswap ETH/USDC', chainId: 1, dex: 'uniswap', kind: 'v3', pair: 'ETH/USDC' },
]);
const context = { clock: () => nowMs, funding: { chains }, venues } as unknown as ShellContext;

function fill(venueId: number, chainId: number, side: 0 | 1, notionalAtoms: number): AmmFill {
  const event = new AmmFill();
  Object.assign(event, { venueId, chainId, side, notionalAtoms, mode: 0 });
  return event;
}

function flowWith(events: EngineEvent[]): PlatformFlow {
  const flow = new PlatformFlow(nowMs - 1000);
  flow.onBatch({ forEachEvent: (visit: (event: EngineEvent, seq: number, ts: number) => void) => events.forEach((event, index) => visit(event, index + 1, nowMs - 500)) } as unknown as DurableBatch);
  return flow;
}

function get(routes: Route[], name: string, query: Record<string, string>): Record<string, any> {
  const route = routes.find((candidate) => candidate.name === name)!;
  const reply = route.handler({ query, params: {}, principal: null } as unknown as RequestContext) as Reply & { body: Record<string, any> };
  return reply.body;
}

test('Solana marked down: pool buy pressure from our own fills, said so; Robinhood unchanged', () => {
  const flow = flowWith([fill(41, solanaId, 0, 3_000_000), fill(41, solanaId, 1, 1_000_000), fill(11, 1, 0, 9_000_000)]);
  const routes = cloneToolsRoutes({ context, data: new SampleData(1, nowMs), flow, solanaDown: true, quote: usdc });
  for (const name of ['get_fomo_radar_signals', 'get_fomo_radar_traders']) {
    const body = get(routes, name, { chain: 'solana' });
    assert.equal(body['source'], 'platform');
    assert.equal(body['count'], 0);
    assert.match(body['fallback']['reason'], /CLONE_TOOLS_SOLANA_DOWN=1/);
    assert.equal(body['fallback']['kind'], 'pool_buy_pressure');
    assert.deepEqual(body['fallback']['pools'], [
      { venue: 'orca SOL/USDC', pair: 'SOL/USDC', buys: 1, sells: 1, buy_volume_usd: '3.000000', sell_volume_usd: '1.000000', buy_pressure: 0.75 },
      { venue: 'raydium SOL/USDC', pair: 'SOL/USDC', buys: 0, sells: 0, buy_volume_usd: '0.000000', sell_volume_usd: '0.000000', buy_pressure: null },
    ]);
  }
  const robinhood = get(routes, 'get_fomo_radar_traders', { chain: 'robinhood' });
  assert.equal(robinhood['source'], 'sample');
  assert.equal(robinhood['fallback'], null);
});

test('a Solana adapter error falls back too, naming the error', () => {
  const sample = new SampleData(1, nowMs);
  const failing: CloneToolsData = {
    source: 'file',
    wallets: (chain) => {
      if (chain === 'solana') throw new Error('connection refused');
      return sample.wallets(chain);
    },
    protocols: () => sample.protocols(),
  };
  const routes = cloneToolsRoutes({ context, data: failing, flow: flowWith([]), solanaDown: false, quote: usdc });
  const body = get(routes, 'get_fomo_radar_signals', { chain: 'solana' });
  assert.match(body['fallback']['reason'], /failed: connection refused/);
  assert.equal(body['source'], 'platform');
  assert.equal(get(routes, 'get_fomo_radar_signals', { chain: 'robinhood' })['source'], 'file');
});
