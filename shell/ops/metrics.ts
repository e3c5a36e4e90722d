/**
 * The Prometheus metrics of GET /metrics, in a registry of the server's own (never prom-client's global
 * one, so that two servers in one process keep their figures apart):
 *
 * - tp_order_requests_total{route,status}: answers of the order routes (placements, amends, cancels), by
 *   HTTP status (a batch counts once, as one request).
 * - tp_order_ack_seconds{route}: from a request's arrival to its answer on those routes (the durable answer
 *   for an accepted order; refusals answer at once).
 * - tp_journal_fsync_seconds: each journal batch write with its sync (O_DSYNC; JOURNAL_SYNC=sync).
 * - tp_sequencer_queue_depth: commands accepted and not yet durable.
 * - tp_ws_clients{path}, tp_ws_send_backlog_bytes{path}: open stream connections and their unsent bytes.
 * - tp_amm_worker_up{chain}, tp_amm_quote_age_seconds{chain}: each AMM chain's worker, and the age of its
 *   last durable quote (no sample before the first).
 * - prom-client's default collectors: process CPU, memory, file descriptors, GC, and the event loop's lag
 *   (nodejs_eventloop_lag_seconds and its percentiles).
 *
 * On the order path the cost is a status lookup in a small map and a counter and histogram update on
 * children made once per route and status; gauges are read only when scraped.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ShellContext } from '../context.ts';
import type { Route, RouteObserver } from '../http/route-table.ts';

/** The routes whose answers are counted and timed: every placement, amend and cancel of the order book. */
export const orderRouteNames: readonly string[] = [
  'tp_clob_place_order',
  'tp_clob_submit_order',
  'tp_clob_place_batch',
  'tp_clob_amend_order',
  'tp_clob_cancel_order',
  'tp_clob_cancel_batch',
  'tp_clob_cancel_all_orders',
];

/** Ack buckets in seconds: 50 µs to 1 s, dense around the journal sync's few milliseconds. */
const ackBuckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1];
const fsyncBuckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256];

export class OpsMetrics {
  readonly registry = new Registry();
  private readonly orderRequests: Counter<'route' | 'status'>;
  private readonly orderAck: Histogram<'route'>;
  readonly journalFsync: Histogram;

  constructor(context: ShellContext) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.orderRequests = new Counter({ name: 'tp_order_requests_total', help: 'Answers of the order routes (placements, amends, cancels) by HTTP status.', labelNames: ['route', 'status'], registers });
    this.orderAck = new Histogram({ name: 'tp_order_ack_seconds', help: 'Order routes: request arrival to answer (durable for accepted orders).', labelNames: ['route'], buckets: ackBuckets, registers });
    this.journalFsync = new Histogram({ name: 'tp_journal_fsync_seconds', help: 'Journal batch write including its sync (O_DSYNC), per batch.', buckets: fsyncBuckets, registers });
    const sequencer = context.durable.sequencer;
    new Gauge({
      name: 'tp_sequencer_queue_depth',
      help: 'Commands accepted by the sequencer and not yet durable.',
      registers,
      collect() {
        this.set(sequencer.queueDepth);
      },
    });
    new Gauge({
      name: 'tp_ws_clients',
      help: 'Open WebSocket connections per stream path.',
      labelNames: ['path'],
      registers,
      collect() {
        for (const stream of context.streamFigures()) this.set({ path: stream.path }, stream.connections);
      },
    });
    new Gauge({
      name: 'tp_ws_send_backlog_bytes',
      help: 'Bytes queued to WebSocket connections and not yet sent, per stream path.',
      labelNames: ['path'],
      registers,
      collect() {
        for (const stream of context.streamFigures()) this.set({ path: stream.path }, stream.sendBacklogBytes);
      },
    });
    const chainName = (chainId: number): string => context.funding.chains.byId(chainId)?.name ?? String(chainId);
    new Gauge({
      name: 'tp_amm_worker_up',
      help: 'Whether the AMM worker thread of a chain runs (1) or not (0).',
      labelNames: ['chain'],
      registers,
      collect() {
        for (const chain of context.amm.chainStates()) this.set({ chain: chainName(chain.chainId) }, chain.workerUp ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tp_amm_quote_age_seconds',
      help: "Age of a chain's last durable AMM quote (no sample before its first).",
      labelNames: ['chain'],
      registers,
      collect() {
        this.reset();
        const nowMs = context.clock();
        for (const chain of context.amm.chainStates()) {
          if (chain.lastQuoteAtMs !== null) this.set({ chain: chainName(chain.chainId) }, Math.max(0, nowMs - chain.lastQuoteAtMs) / 1000);
        }
      },
    });
  }

  /** The observer of an order route (null for any other): counts its answers by status and times them. */
  observerFor(route: Route): RouteObserver | null {
    if (!orderRouteNames.includes(route.name)) return null;
    const ack = this.orderAck.labels(route.name);
    const byStatus = new Map<number, Counter.Internal>();
    return (status, elapsedMs) => {
      let counter = byStatus.get(status);
      if (counter === undefined) {
        counter = this.orderRequests.labels(route.name, String(status));
        byStatus.set(status, counter);
      }
      counter.inc();
      ack.observe(elapsedMs / 1000);
    };
  }
}
