/**
 * A stream edge (`npm run edge`): a process that serves the public WebSocket streams and the public read
 * routes from the replicated journal, so that market data fans out from several processes while one leader
 * takes commands (README, "Replication (NATS JetStream)", stream edges).
 *
 * It follows the journal stream as a standby does (an ordered consumer from the message holding its next
 * seq; engine/runtime/replication/replica-node.ts), but never takes the lease, and applies each stream
 * message as one durable batch of its own: its durable batches are the leader's batches, so the server's
 * read models, market data and module streams, fed by them, publish the same messages as the leader's.
 *
 * Seqs. A topic's seq counts its messages since the serving process started; the leader's started at 0
 * at the seq it recovered to. Each batch the leader appends carries its process's epoch (a random id): where
 * the epoch changes between two messages, a new leader began, and an edge that applied the message before
 * sets every seq to 0 and counts from there, as the new leader does. An edge that joins in the middle of an
 * epoch reads the leader's positions (its durable seq and every topic's seq there, put beside the lease
 * every 250 ms) and applies the stream only up to that seq before it takes them, so it meets them exactly;
 * it serves (listens) only once its seqs are the leader's and it has caught up with the stream's tail. When the epoch changes under clients, the edge
 * closes their connections (1012): their seqs belong to the old leader.
 *
 * Routes: GET routes without credentials (auth `none` or `optional`) are served from the edge's own read
 * models; every other route is answered 503 NOT_LEADER with Retry-After and the leader's URL, as a
 * standby answers. The edge serves no private stream and no MCP endpoint, and makes no commands (no AMM
 * quotes, timers, oracle ticks or seeding).
 */
import { mkdirSync } from 'node:fs';
import { ReplicaNode } from '../../engine/runtime/replication/replica-node.ts';
import type { StreamBatch } from '../../engine/runtime/replication/journal-stream.ts';
import type { ReplicationSettings } from '../../engine/runtime/replication/settings.ts';
import type { DurableEngine, DurableEngineOptions } from '../../engine/runtime/durable-engine.ts';
import type { Route } from '../http/route-table.ts';
import type { Config } from '../config.ts';
import type { Log } from '../log.ts';
import type { MarketData } from '../market/market-data.ts';
import type { TopicStream } from '../ws/topic-stream.ts';
import type { ClusterView, EdgeStreams, ServerEdge, StartEdge } from './view.ts';
import { replicationSettings } from './settings.ts';
import { closeOnSignals } from '../shutdown.ts';

/** The leader's stream positions: its durable seq, and every topic's seq there. */
export interface StreamPositions {
  readonly epoch: string;
  readonly seq: number;
  /** The exchange stream's topics (`slug:channel`, MarketData.positions). */
  readonly exchange: Record<string, number>;
  /** The module streams' topics, by stream path. */
  readonly topics: Record<string, Record<string, number>>;
}

export function positionsJson(from: { epoch: string; seq: number; marketData: MarketData; topics: readonly TopicStream<unknown>[] }): string {
  const positions: StreamPositions = {
    epoch: from.epoch,
    seq: from.seq,
    exchange: from.marketData.positions(),
    topics: Object.fromEntries(from.topics.map((topic) => [topic.path, topic.positions()])),
  };
  return JSON.stringify(positions);
}

function parsePositions(json: string | null): StreamPositions | null {
  if (json === null) return null;
  const value = JSON.parse(json) as Partial<StreamPositions>;
  if (typeof value.epoch !== 'string' || !Number.isSafeInteger(value.seq) || typeof value.exchange !== 'object' || typeof value.topics !== 'object') return null;
  return value as StreamPositions;
}

/** The edge's answer to a route it does not serve: where the leader is, as a standby says it. */
export function edgeRoute(route: Route, view: ClusterView): Route {
  if (route.method === 'GET' && (route.auth === 'none' || route.auth === 'optional')) return route;
  // No credentials, rate limit or validation stand before the answer: whatever was sent, go to the leader.
  const { query: _query, body: _body, permission: _permission, weight: _weight, ...rest } = route;
  return {
    ...rest,
    auth: 'none',
    rateLimit: 'none',
    handler: () => {
      const leader = view.leader();
      const where = leader === null ? 'no node holds the lease yet' : `the leader is ${leader.nodeId} at ${leader.url}`;
      const headers: Record<string, string> = { 'Retry-After': '1' };
      if (leader !== null) headers['X-Leader-Url'] = leader.url;
      return {
        status: 503,
        headers,
        body: { error: { code: 'NOT_LEADER', message: `this node is a stream edge: ${where}` }, leader: leader === null ? null : { node: leader.nodeId, url: leader.url } },
      };
    },
  };
}

const pollMs = 100;

class Edge implements ServerEdge {
  private node: ReplicaNode | null = null;
  private streams: EdgeStreams | null = null;
  /** The epoch of the last message applied; null while unknown. */
  private epoch: string | null = null;
  private aligned = false;
  private pending: StreamPositions | null = null;
  /** A message is being applied: its commands are not all durable yet. */
  private applying = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private resolveReady!: () => void;
  private readonly ready = new Promise<void>((resolve) => (this.resolveReady = resolve));
  readonly view: ClusterView;

  constructor(
    private readonly settings: ReplicationSettings,
    private readonly log: Log,
  ) {
    this.view = {
      nodeId: settings.nodeId,
      url: settings.advertiseUrl,
      role: () => {
        const role = this.node?.role ?? 'standby';
        return role === 'standby' ? 'edge' : role;
      },
      leader: () => this.node?.leader ?? null,
      streamSeq: () => this.node?.streamSeq ?? 0,
    };
  }

  async openDurable(options: Omit<DurableEngineOptions, 'clock' | 'wrapWriter'>): Promise<DurableEngine> {
    this.node = await ReplicaNode.open({
      settings: this.settings,
      durable: options,
      edge: { beforeMessage: (batch) => this.beforeMessage(batch), afterMessage: () => this.afterMessage() },
      log: this.log,
    });
    return this.node.durable;
  }

  async follow(streams: EdgeStreams): Promise<void> {
    this.streams = streams;
    const node = this.node!;
    // The epoch of the message before the first one this edge applies: where it changes, a leader began.
    // An edge at the stream's start meets the first leader's first message, whose seqs start at 0 too.
    const from = await node.stream.streamSeqOf(node.durable.sequencer.lastSeq + 1);
    this.epoch = from <= 1 ? '' : ((await node.stream.batchAt(from - 1))?.epoch ?? null);
    await node.start();
    // A quiet leader appends nothing: the edge then takes its positions where it stands.
    this.timer = setInterval(() => void this.alignAtRest(), pollMs);
    await this.ready;
    // Serve only once caught up with the stream as it was when aligned: before that, "live" messages
    // would be history (an edge starting on an empty journal replays the whole stream).
    const tail = await node.stream.tail();
    while (node.streamSeq < tail && !this.closed && node.role === 'standby') await new Promise((resolve) => setTimeout(resolve, pollMs));
  }

  private async fetchPositions(): Promise<StreamPositions | null> {
    try {
      return parsePositions(await this.node!.stream.positions());
    } catch (error) {
      this.log('edge_positions_error', { error: String(error) });
      return null;
    }
  }

  private async alignAtRest(): Promise<void> {
    if (this.aligned) {
      if (this.timer !== null) clearInterval(this.timer);
      this.timer = null;
      return;
    }
    const positions = await this.fetchPositions();
    const sequencer = this.node!.durable.sequencer;
    if (positions === null || this.aligned || this.applying || sequencer.lastSeq !== sequencer.durableSeq) return;
    if (positions.seq === sequencer.durableSeq && (this.epoch === null || this.epoch === '' || positions.epoch === this.epoch)) this.align(positions);
  }

  private async beforeMessage(batch: StreamBatch): Promise<void> {
    this.applying = true;
    const previous = this.epoch;
    this.epoch = batch.epoch;
    if (previous !== null && batch.epoch !== previous) return this.beginEpoch(batch);
    if (this.aligned) return;
    // Not aligned yet: go no further than positions the leader gave, so that the edge meets them exactly.
    const seq = batch.firstSeq - 1;
    for (;;) {
      const positions = this.pending;
      if (positions !== null && positions.epoch === batch.epoch && positions.seq === seq) return this.align(positions);
      // Ahead in this epoch: met after a later message; of another epoch: met where the epoch changes.
      if (positions !== null && (positions.epoch !== batch.epoch || positions.seq > seq)) return;
      if (this.closed) return;
      this.pending = await this.fetchPositions();
      if (this.pending === null || (this.pending.epoch === batch.epoch && this.pending.seq < seq)) await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  private afterMessage(): void {
    this.applying = false;
    const durableSeq = this.node!.durable.sequencer.durableSeq;
    const positions = this.pending;
    if (this.aligned || positions === null) return;
    if (positions.epoch === this.epoch && positions.seq === durableSeq) this.align(positions);
    else if (positions.epoch === this.epoch && positions.seq < durableSeq) this.pending = null;
  }

  /** A new leader's first message: its seqs start at 0 here. */
  private beginEpoch(batch: StreamBatch): void {
    const streams = this.streams!;
    const zero = (positions: Record<string, number>): Record<string, number> => Object.fromEntries(Object.keys(positions).map((key) => [key, 0]));
    streams.marketData.setPositions(zero(streams.marketData.positions()));
    for (const topic of streams.topics) topic.setPositions(zero(topic.positions()));
    streams.exchange.resetHistory();
    if (this.aligned) {
      // Their seqs were the old leader's: subscribing again gives the new leader's, from a snapshot.
      streams.exchange.closeAll(1012, 'a new leader began: subscribe again');
      for (const topic of streams.topics) topic.closeAll(1012, 'a new leader began: subscribe again');
    }
    this.log('edge_epoch', { epoch: batch.epoch, seq: batch.firstSeq - 1 });
    this.pending = null;
    this.markAligned();
  }

  /** Takes the leader's positions, at the durable seq they were taken at. */
  private align(positions: StreamPositions): void {
    const streams = this.streams!;
    let differed = streams.marketData.setPositions(positions.exchange).length;
    for (const topic of streams.topics) differed += topic.setPositions(positions.topics[topic.path] ?? {}).length;
    if (differed > 0) streams.exchange.resetHistory();
    this.log('edge_aligned', { epoch: positions.epoch, seq: positions.seq, topics_set: differed });
    this.pending = null;
    this.markAligned();
  }

  private markAligned(): void {
    this.aligned = true;
    this.resolveReady();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.node?.close();
  }
}

export async function runEdge(config: Config, log: Log, start: StartEdge): Promise<void> {
  // An edge needs the journal stream: its other replication settings are the leader's.
  const settings = replicationSettings({ ...config, env: { ...config.env, REPLICATION: config.env['REPLICATION'] || 'jetstream' } });
  if (settings === null) throw new Error('runEdge: replication is off');
  mkdirSync(config.dataDir, { recursive: true });
  const edge = new Edge(settings, log);
  const server = await start(edge);
  log('edge', { node: settings.nodeId, nats_url: settings.natsUrl, stream: settings.stream, port: server.port });
  closeOnSignals(log, () => server.close(), () => ({ role: 'edge' }));
}
