/**
 * The Prometheus metrics of GET /metrics, in a registry of the server's own (never prom-client's global
 * one, so that two servers in one process keep their figures apart):
 *
 * - tp_order_requests_total{route,status}: answers of the order routes (placements, amends, cancels), by
 *   HTTP status (a batch counts once, as one request).
 * - tp_order_ack_seconds{route}: from a request's arrival to its answer on those routes (the durable answer
 *   for an accepted order; refusals answer at once).
 * - tp_journal_fsync_seconds: each journal batch write with its sync (O_DSYNC; JOURNAL_SYNC=sync).
 * - tp_snapshot_hold_seconds: how long each periodic snapshot held the order thread (taking the state's
 *   copy and handing it to the snapshot worker, which encodes and writes it).
 * - tp_sequencer_queue_depth: commands accepted and not yet durable.
 * - tp_ws_clients{path}, tp_ws_send_backlog_bytes{path}: open stream connections and their unsent bytes.
 * - tp_amm_worker_up{chain}, tp_amm_quote_age_seconds{chain}: each AMM chain's worker, and the age of its
 *   last durable quote (no sample before the first).
 * - prom-client's default collectors: process CPU, memory, file descriptors, GC, and the event loop's lag
 *   (nodejs_eventloop_lag_seconds and its percentiles).
 *
 * On the order path an answer costs a few array increments: the order routes' counter and histogram are
 * tallied in typed arrays and written out only when scraped (prom-client's own labelled `inc` and `observe`
 * validate and hash their labels on every call, 2.7 µs an answer in bench:http). Gauges are read only when
 * scraped.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
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
/** Snapshot hold buckets in seconds: 250 µs (a small state) to 2 s. */
const snapshotBuckets = [0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1, 2];

/** One route's answers: counts by HTTP status and the ack histogram's buckets, sum and count. */
class RouteTally {
  /** Answers by status (index status - 100), and how many of those the counter has been given. */
  readonly byStatus = new Float64Array(500);
  readonly reported = new Float64Array(500);
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly route: string,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  observe(status: number, seconds: number): void {
    if (status >= 100 && status < 600) this.byStatus[status - 100]!++;
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
    this.buckets[bucket]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * tp_order_ack_seconds as a metric of the registry: prom-client's exposition of a histogram (cumulative
 * `_bucket` samples with `le`, then `_sum` and `_count`), from the routes' tallies. Routes with no answer
 * yet have no samples, as with prom-client's own histograms.
 */
class AckHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly tallies: readonly RouteTally[],
  ) {}

  get(): { name: string; help: string; type: string; aggregator: string; values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> } {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const tally of this.tallies) {
      if (tally.count === 0) continue;
      let cumulative = 0;
      for (let index = 0; index < this.bounds.length; index++) {
        cumulative += tally.buckets[index]!;
        values.push({ labels: { route: tally.route, le: this.bounds[index]! }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { route: tally.route, le: '+Inf' }, value: tally.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { route: tally.route }, value: tally.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { route: tally.route }, value: tally.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const tally of this.tallies) {
      tally.buckets.fill(0);
      tally.sum = 0;
      tally.count = 0;
    }
  }
}

export class OpsMetrics {
  readonly registry = new Registry();
  private readonly tallies: RouteTally[] = [];
  readonly journalFsync: Histogram;
  readonly snapshotHold: Histogram;

  constructor(context: ShellContext) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const tallies = this.tallies;
    new Counter({
      name: 'tp_order_requests_total',
      help: 'Answers of the order routes (placements, amends, cancels) by HTTP status.',
      labelNames: ['route', 'status'],
      registers,
      collect() {
        for (const tally of tallies) {
          for (let index = 0; index < tally.byStatus.length; index++) {
            const added = tally.byStatus[index]! - tally.reported[index]!;
            if (added === 0) continue;
            this.inc({ route: tally.route, status: String(index + 100) }, added);
            tally.reported[index] = tally.byStatus[index]!;
          }
        }
      },
    });
    const ack = new AckHistogram('tp_order_ack_seconds', 'Order routes: request arrival to answer (durable for accepted orders).', ackBuckets, tallies);
    // The registry takes any object with prom-client's metric shape (name, help, type, get, reset).
    this.registry.registerMetric(ack as unknown as Metric);
    this.journalFsync = new Histogram({ name: 'tp_journal_fsync_seconds', help: 'Journal batch write including its sync (O_DSYNC), per batch.', buckets: fsyncBuckets, registers });
    this.snapshotHold = new Histogram({ name: 'tp_snapshot_hold_seconds', help: 'How long each periodic snapshot held the order thread.', buckets: snapshotBuckets, registers });
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
    let tally = this.tallies.find((candidate) => candidate.route === route.name);
    if (tally === undefined) {
      tally = new RouteTally(route.name, ackBuckets);
      this.tallies.push(tally);
    }
    const routeTally = tally;
    return (status, elapsedMs) => routeTally.observe(status, elapsedMs / 1000);
  }
}
