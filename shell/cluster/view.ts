/**
 * What a replicated node and the server it leads through tell each other: a leaf file, so that the
 * server, its context and the cluster's files import it and not each other.
 */
import type { SegmentWriter } from '../../engine/journal/segments.ts';
import type { JournalWriter } from '../../engine/runtime/sequencer.ts';
import type { DurableEngine, DurableEngineOptions } from '../../engine/runtime/durable-engine.ts';
import type { MarketData } from '../market/market-data.ts';
import type { ExchangeStream } from '../ws/exchange-stream.ts';
import type { TopicStream } from '../ws/topic-stream.ts';

/** What a replicated node tells the routes about itself (ShellContext.cluster). */
export interface ClusterView {
  readonly nodeId: string;
  readonly url: string;
  role(): 'leader' | 'standby' | 'edge' | 'fenced' | 'failed' | 'closed';
  leader(): { readonly nodeId: string; readonly url: string } | null;
  streamSeq(): number;
}

/** What a replicated node that took the lease gives the server it starts. */
export interface ServerReplication {
  /** The journal writer that also publishes to the journal stream. */
  readonly wrapWriter: (local: SegmentWriter) => JournalWriter;
  readonly view: ClusterView;
  /** Puts the leader's stream positions (JSON) where stream edges read them (shell/cluster/edge.ts). */
  readonly putPositions: (json: string) => Promise<void>;
  /** How often the leader puts them (well inside the lease's max age, which the entry lives by). */
  readonly positionsEveryMs: number;
  /** The epoch the leader's batches carry in the journal stream. */
  readonly epoch: string;
}

/** The streams whose seqs a stream edge keeps equal to the leader's. */
export interface EdgeStreams {
  readonly exchange: ExchangeStream;
  readonly marketData: MarketData;
  readonly topics: readonly TopicStream<unknown>[];
}

/** What a stream edge (shell/cluster/edge.ts) gives the server it starts in edge mode. */
export interface ServerEdge {
  /** Opens the durable engine that follows the journal stream, with the server's options (its feeds). */
  openDurable(options: Omit<DurableEngineOptions, 'clock' | 'wrapWriter'>): Promise<DurableEngine>;
  /** Starts following once the server's feeds and streams exist; resolves when their seqs are the leader's. */
  follow(streams: EdgeStreams): Promise<void>;
  /** Stops following and closes the engine (instead of the server closing it). */
  close(): Promise<void>;
  readonly view: ClusterView;
}

/** How the node starts the whole server once it leads (shell/server.ts passes its startServer). */
export type StartLeader = (replication: ServerReplication, clock: () => number) => Promise<{ readonly port: number; close(): Promise<void> }>;

/** How an edge starts the server in edge mode (shell/server.ts passes its startServer). */
export type StartEdge = (edge: ServerEdge) => Promise<{ readonly port: number; close(): Promise<void> }>;
