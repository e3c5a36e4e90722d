/**
 * The AMM worker of one chain (a worker thread; amm-manager.ts starts it): holds that chain's pools, moves
 * them by the embedded default's simulated outside flow (seeded) and by our book's fills against them, and
 * quotes each pool's depth on its engine pair's grid at a bounded rate. Quotes go to the main thread, which
 * journals them as QuoteVenue commands; nothing here touches the engine, so replay needs no worker.
 *
 * Messages in: `{ type: 'fill', poolId, side, baseAtoms }` (side of our order; base in on-chain atoms) and
 * `{ type: 'stop' }`. Out: `{ type: 'quote', poolId, levels, pool, quoteUs }` with the pool's state (so a
 * restarted worker can continue from it) and the microseconds the quote took.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Side } from '../core/commands.ts';
import { depthMarketOf, depthOptionsOf, quoteDepth, type DepthLevels, type DepthMarket } from '../amm/depth.ts';
import { applyFill, simulateFlow, type PoolState } from '../amm/pool.ts';
import { seededRandom } from '../amm/random.ts';

export interface AmmWorkerInput {
  readonly chainId: number;
  readonly pools: readonly PoolState[];
  /** Tick and lot size (decimal text) of each engine pair the pools quote, by pair name. */
  readonly grids: Readonly<Record<string, { readonly tickSize: string; readonly lotSize: string }>>;
  readonly flow: 'sim' | 'off';
  readonly seed: number;
  readonly quoteIntervalMs: number;
  /** A quote is sent at least this often even when nothing moved, so that it never expires. */
  readonly heartbeatMs: number;
  readonly levelsPerSide: number;
  /** Width of one level, in basis points of the pool's price (rounded to whole ticks). */
  readonly levelStepBps: number;
  readonly bandBps: number;
}

export type ToAmmWorker = { readonly type: 'fill'; readonly poolId: number; readonly side: Side; readonly baseAtoms: bigint } | { readonly type: 'stop' };
export type FromAmmWorker = { readonly type: 'quote'; readonly poolId: number; readonly levels: DepthLevels; readonly pool: PoolState; readonly quoteUs: number };

interface Held {
  pool: PoolState;
  readonly market: DepthMarket;
  /** Something moved it since its last quote. */
  dirty: boolean;
  lastQuotedMs: number;
}

const port = parentPort!;
const input = workerData as AmmWorkerInput;
const random = seededRandom(input.seed);
const held = new Map<number, Held>();
for (const pool of input.pools) {
  const grid = input.grids[pool.pair];
  if (grid === undefined) throw new Error(`pool ${pool.poolId}: no engine pair ${pool.pair}`);
  held.set(pool.poolId, { pool, market: depthMarketOf(pool, grid.tickSize, grid.lotSize), dirty: true, lastQuotedMs: 0 });
}

function quote(entry: Held, nowMs: number): void {
  const options = depthOptionsOf(entry.pool, entry.market, input);
  const startedMs = performance.now();
  const levels = quoteDepth(entry.pool, entry.market, options);
  const quoteUs = Math.round((performance.now() - startedMs) * 1000);
  entry.dirty = false;
  entry.lastQuotedMs = nowMs;
  const message: FromAmmWorker = { type: 'quote', poolId: entry.pool.poolId, levels, pool: entry.pool, quoteUs };
  port.postMessage(message);
}

function tick(): void {
  const nowMs = performance.now();
  for (const entry of held.values()) {
    if (input.flow === 'sim') {
      entry.pool = simulateFlow(entry.pool, random).pool;
      entry.dirty = true;
    }
    if (entry.dirty || nowMs - entry.lastQuotedMs >= input.heartbeatMs) quote(entry, nowMs);
  }
}

const timer = setInterval(tick, input.quoteIntervalMs);
tick();

port.on('message', (message: ToAmmWorker) => {
  if (message.type === 'stop') {
    clearInterval(timer);
    port.close();
    return;
  }
  const entry = held.get(message.poolId);
  if (entry === undefined) return;
  entry.pool = applyFill(entry.pool, message.side, message.baseAtoms).pool;
  entry.dirty = true;
});
