/**
 * The AMM workers, from the main thread: one worker thread per chain (amm-worker.ts) quotes that chain's
 * pools; each quote becomes a journaled QuoteVenue command with the pool's next version; each durable
 * fill of our book against a pool goes back to its chain's worker so the pool moves; venues that went
 * quiet are expired (ExpireVenues) once their last quote is older than the engine's quote lifetime. A
 * worker that dies is logged and restarted from its pools' last quoted states, a few times a minute at
 * most. Replay needs none of this: the quotes are in the journal.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { CommandKind, type Command } from '../core/commands.ts';
import { EventKind, type EngineEvent } from '../core/events.ts';
import { venueLevelsPerSideMax } from '../core/limits.ts';
import { Result, resultCode } from '../core/results.ts';
import { formatSteps, type Markets, type Pair } from '../core/units.ts';
import { assertDistinctPoolIds, loadPoolFixtures } from '../amm/fixtures.ts';
import { baseDecimalsOf, type PoolState } from '../amm/pool.ts';
import type { DurableEngine } from './durable-engine.ts';
import type { DurableBatch } from './sequencer.ts';
import type { AmmWorkerInput, FromAmmWorker, ToAmmWorker } from './amm-worker.ts';

export const defaultPoolsDir = fileURLToPath(new URL('../../fixtures/pools/', import.meta.url));

/** Worker restarts allowed per chain in one minute; past that the chain stays down (its venues expire). */
const restartsPerMinuteMax = 5;
const restartDelayMs = 1_000;
/** How often quiet venues are looked for. */
const expiryCheckMs = 1_000;

export interface AmmSettings {
  /** Chain ids to run a worker for (empty: none, a pure order book). */
  readonly chainIds: readonly number[];
  /** `sim`: pools move by a seeded outside flow; `off`: only our own fills move them. */
  readonly flow: 'sim' | 'off';
  readonly quoteIntervalMs: number;
  readonly seed: number;
  readonly levelsPerSide: number;
  readonly levelStepBps: number;
  readonly bandBps: number;
}

export const defaultAmmSettings: AmmSettings = {
  chainIds: [1, 2, 3, 4],
  flow: 'sim',
  quoteIntervalMs: 500,
  seed: 1,
  levelsPerSide: 40,
  levelStepBps: 12,
  bandBps: 500,
};

export interface AmmManagerOptions {
  readonly durable: DurableEngine;
  readonly markets: Markets;
  readonly pools: readonly PoolState[];
  readonly settings: AmmSettings;
  /** Starts a worker thread from a module path relative to the repository root, without extension. */
  readonly startWorker: (entry: string, workerData: unknown) => Worker;
  readonly clock: () => number;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
}

/** Every pool of the fixture files (one per chain), validated, with ids distinct across chains and pairs the engine trades. */
export function loadPools(markets: Markets, dir: string = defaultPoolsDir): PoolState[] {
  const pools: PoolState[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
    pools.push(...loadPoolFixtures(JSON.parse(readFileSync(join(dir, file), 'utf8'))));
  }
  assertDistinctPoolIds(pools);
  for (const pool of pools) {
    if (markets.pairBySymbol(pool.pair) === undefined) throw new Error(`pool ${pool.poolId}: the engine has no pair ${pool.pair}`);
  }
  return pools;
}

interface PoolEntry {
  readonly chainId: number;
  readonly pair: Pair;
  /** The pair's lot in the pool's on-chain base atoms (fills are converted with it). */
  readonly baseAtomsPerLot: bigint;
  /** The pool's state as its last quote left it (what a restarted worker starts from). */
  state: PoolState;
  version: number;
}

interface ChainWorker {
  worker: Worker | null;
  restarts: number[];
  stopping: boolean;
  /** When the chain's last quote became durable (runtime clock), or null before its first. */
  lastQuoteAtMs: number | null;
}

/** One chain's worker as the operations checks see it. */
export interface AmmChainState {
  readonly chainId: number;
  /** Whether a worker thread runs for the chain now (false while it restarts, after it was given up, and after close). */
  readonly workerUp: boolean;
  readonly lastQuoteAtMs: number | null;
}

export interface AmmStats {
  quotesSent: number;
  quotesRefused: number;
  fillsSent: number;
  workerRestarts: number;
  /** The last quote's computation time per pool, in microseconds. */
  readonly quoteUs: Map<number, number>;
}

export class AmmManager {
  readonly stats: AmmStats = { quotesSent: 0, quotesRefused: 0, fillsSent: 0, workerRestarts: 0, quoteUs: new Map() };
  private readonly pools = new Map<number, PoolEntry>();
  private readonly chains = new Map<number, ChainWorker>();
  private expiryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: AmmManagerOptions) {
    const engine = options.durable.engine;
    for (const pool of options.pools) {
      if (!options.settings.chainIds.includes(pool.chainId)) continue;
      const pair = options.markets.pairBySymbol(pool.pair)!;
      const lot = pair.lot;
      const exponent = baseDecimalsOf(pool) - lot.scale;
      if (exponent < 0) throw new Error(`pool ${pool.poolId}: the pair's lot is finer than the token's decimals`);
      // Versions go on from what the journal last accepted, so that quotes after a restart are newer.
      const version = engine.venues[pair.index]!.quote(pool.poolId)?.version ?? 0;
      this.pools.set(pool.poolId, { chainId: pool.chainId, pair, baseAtomsPerLot: lot.mantissa * 10n ** BigInt(exponent), state: pool, version });
    }
  }

  /** Starts one worker per configured chain that has pools, and the expiry check. */
  start(): void {
    const chainIds = new Set([...this.pools.values()].map((entry) => entry.chainId));
    for (const chainId of chainIds) {
      this.chains.set(chainId, { worker: null, restarts: [], stopping: false, lastQuoteAtMs: null });
      this.startChain(chainId);
    }
    this.expiryTimer = setInterval(() => this.expireQuiet(), expiryCheckMs);
    this.expiryTimer.unref();
  }

  /** A durable feed: our live fills against a pool go to its chain's worker, which moves the pool. */
  onDurable(batch: DurableBatch): void {
    batch.forEachEvent((event: EngineEvent) => {
      if (event.kind !== EventKind.ammFill || event.mode !== 0) return;
      const entry = this.pools.get(event.venueId);
      if (entry === undefined) return;
      const message: ToAmmWorker = { type: 'fill', poolId: event.venueId, side: event.side, baseAtoms: BigInt(event.quantityLots) * entry.baseAtomsPerLot };
      this.chains.get(entry.chainId)?.worker?.postMessage(message);
      this.stats.fillsSent++;
    });
  }

  /** Every started chain's worker state, in start order (read-only figures for readiness and metrics). */
  chainStates(): AmmChainState[] {
    return [...this.chains].map(([chainId, chain]) => ({ chainId, workerUp: chain.worker !== null, lastQuoteAtMs: chain.lastQuoteAtMs }));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.expiryTimer !== null) clearInterval(this.expiryTimer);
    await Promise.all(
      [...this.chains.values()].map(async (chain) => {
        chain.stopping = true;
        const worker = chain.worker;
        chain.worker = null;
        if (worker !== null) await worker.terminate();
      }),
    );
  }

  private startChain(chainId: number): void {
    const chain = this.chains.get(chainId)!;
    const settings = this.options.settings;
    const pools = [...this.pools.values()].filter((entry) => entry.chainId === chainId).map((entry) => entry.state);
    const grids: Record<string, { tickSize: string; lotSize: string }> = {};
    for (const entry of this.pools.values()) grids[entry.pair.name] = { tickSize: formatSteps(1, entry.pair.tick), lotSize: formatSteps(1, entry.pair.lot) };
    const input: AmmWorkerInput = {
      chainId,
      pools,
      grids,
      flow: settings.flow,
      // Each chain draws its own flow, and a restart does not replay the flow it already drew.
      seed: settings.seed * 1_000 + chainId * 17 + chain.restarts.length,
      quoteIntervalMs: settings.quoteIntervalMs,
      heartbeatMs: Math.max(settings.quoteIntervalMs, Math.floor(this.options.durable.engine.settings.venueQuoteLifetimeMs / 3)),
      levelsPerSide: Math.min(settings.levelsPerSide, venueLevelsPerSideMax),
      levelStepBps: settings.levelStepBps,
      bandBps: settings.bandBps,
    };
    const worker = this.options.startWorker('engine/runtime/amm-worker', input);
    chain.worker = worker;
    worker.on('message', (message: FromAmmWorker) => this.onQuote(message));
    worker.on('error', (error) => this.options.log('amm_worker_failed', { chain_id: chainId, error: String(error) }));
    worker.on('exit', (code) => {
      if (chain.worker !== worker) return;
      chain.worker = null;
      if (this.closed || chain.stopping) return;
      const now = this.options.clock();
      chain.restarts = chain.restarts.filter((at) => now - at < 60_000);
      if (chain.restarts.length >= restartsPerMinuteMax) {
        this.options.log('amm_worker_given_up', { chain_id: chainId, exit_code: code, restarts_last_minute: chain.restarts.length });
        return;
      }
      chain.restarts.push(now);
      this.stats.workerRestarts++;
      this.options.log('amm_worker_restarting', { chain_id: chainId, exit_code: code });
      setTimeout(() => {
        if (!this.closed) this.startChain(chainId);
      }, restartDelayMs).unref();
    });
  }

  private onQuote(message: FromAmmWorker): void {
    const entry = this.pools.get(message.poolId);
    if (entry === undefined || this.closed) return;
    entry.state = message.pool;
    this.stats.quoteUs.set(message.poolId, message.quoteUs);
    const levels = message.levels;
    const command: Command = {
      kind: CommandKind.quoteVenue,
      seq: 0,
      ts: 0,
      pairId: entry.pair.id,
      poolId: message.poolId,
      chainId: entry.chainId,
      version: ++entry.version,
      bidPriceTicks: levels.bidPriceTicks.slice(0, venueLevelsPerSideMax),
      bidLots: levels.bidLots.slice(0, venueLevelsPerSideMax),
      askPriceTicks: levels.askPriceTicks.slice(0, venueLevelsPerSideMax),
      askLots: levels.askLots.slice(0, venueLevelsPerSideMax),
    };
    this.options.durable.enqueue(command, (outcome) => {
      if (outcome.error !== null) {
        this.stats.quotesRefused++;
        return;
      }
      if (outcome.result === Result.ok) {
        this.stats.quotesSent++;
        const chain = this.chains.get(entry.chainId);
        if (chain !== undefined) chain.lastQuoteAtMs = this.options.clock();
        return;
      }
      this.stats.quotesRefused++;
      this.options.log('amm_quote_refused', { pool_id: message.poolId, result: resultCode(outcome.result) });
    });
  }

  /** Journals an ExpireVenues when some venue's last quote is older than the engine's quote lifetime. */
  private expireQuiet(): void {
    const engine = this.options.durable.engine;
    const cutoffMs = this.options.clock() - engine.settings.venueQuoteLifetimeMs;
    if (!engine.venues.some((venues) => venues.hasStale(cutoffMs))) return;
    this.options.durable.enqueue({ kind: CommandKind.expireVenues, seq: 0, ts: 0 }, (outcome) => {
      if (outcome.error === null && outcome.result === Result.ok) this.options.log('venues_expired', {});
    });
  }
}
