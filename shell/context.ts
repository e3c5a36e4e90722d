/** What every area of the shell shares: the durable engine, the market tables, the clock and the log. */
import type { Asset, Markets } from '../engine/core/units.ts';
import type { DurableEngine } from '../engine/runtime/durable-engine.ts';
import type { AmmManager } from '../engine/runtime/amm-manager.ts';
import type { Timers } from '../engine/runtime/timers.ts';
import type { Config } from './config.ts';
import type { MarketData } from './market/market-data.ts';
import type { VenueDirectory } from './market/venue-directory.ts';
import type { ReadModels } from './read-models/read-models.ts';
import type { Tickers } from './read-models/ticker.ts';
import type { Log } from './log.ts';
import type { Db } from './store/database.ts';
import type { Tokens } from './auth/tokens.ts';
import type { ApiKeys } from './auth/api-keys.ts';
import type { TwoFactor } from './auth/two-factor.ts';
import type { Chains } from './funding/chains.ts';
import type { WithdrawalAddresses } from './funding/withdrawal-addresses.ts';
import type { ClusterView } from './cluster/view.ts';

/** One WebSocket stream's figures: its uWS path pattern, open connections and bytes queued to them. */
export interface StreamFigures {
  readonly path: string;
  readonly connections: number;
  readonly sendBacklogBytes: number;
  /** Durable batches whose messages went out with the next batch's, in one fan-out (the exchange stream's; 0 for others). */
  readonly coalescedBatches: number;
}

/** What a paper account opens with: parallel lists of assets and amounts (PAPER_BALANCES, parsed by http/paper.ts). */
export interface PaperFunding {
  readonly assets: readonly Asset[];
  readonly amountsAtoms: readonly number[];
}

export interface ShellContext {
  readonly config: Config;
  readonly durable: DurableEngine;
  readonly markets: Markets;
  /** The live books as durable events left them: what REST and the streams show. */
  readonly marketData: MarketData;
  /** Orders, trades and candles as durable batches left them (SQLite, written on a worker thread). */
  readonly readModels: ReadModels;
  /** The AMM workers that quote the venues of the hybrid book. */
  readonly amm: AmmManager;
  /** Journals RunTimers when the engine's timers (TWAP slices) are due by the runtime clock. */
  readonly timers: Timers;
  /** The 24-hour ticker of each pair, from the durable batches' live trades (memory). */
  readonly tickers: Tickers;
  /** What a paper account opens with (PAPER_BALANCES). */
  readonly paperFunding: PaperFunding;
  /** Names of the venues liquidity comes from (our book and the AMM pools). */
  readonly venues: VenueDirectory;
  /** Open WebSocket stream connections. */
  readonly streamConnections: () => number;
  /** Each mounted WebSocket stream's path, open connections and unsent bytes (the operations metrics). */
  readonly streamFigures: () => readonly StreamFigures[];
  readonly clock: () => number;
  readonly log: Log;
  readonly identity: { readonly db: Db; readonly tokens: Tokens; readonly keys: ApiKeys; readonly twoFactor: TwoFactor };
  /** Chains, the withdrawal whitelist, and the secret deposit addresses derive from. */
  readonly funding: { readonly chains: Chains; readonly addresses: WithdrawalAddresses; readonly depositSecret: Uint8Array };
  /** The replicated node this server leads for (REPLICATION=jetstream); absent in the embedded single process. */
  readonly cluster?: ClusterView;
}
