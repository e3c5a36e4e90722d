/**
 * The backtest queue: runs are stored (bots.sqlite) as queued with their input (the bot's strategy and
 * the oracle's daily closes taken when the run was asked for), then one worker thread runs them one at a
 * time, moving each queued -> running -> completed | failed. The queue is bounded (BOTS_BACKTEST_QUEUE_MAX
 * runs waiting or running) and so is each user's share (BOTS_BACKTEST_RUNS_PER_USER); past either the
 * route answers 429 with Retry-After. Runs not finished when the server stopped are queued again at start
 * from their stored input, so they end as they would have.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.ts';
import type { Log } from '../log.ts';
import type { BotsStore, RunRow } from './store.ts';
import type { BacktestReply } from './backtest-worker.ts';
import type { BacktestInput } from './strategy.ts';

export class Backtests {
  private readonly waiting: string[] = [];
  private running: string | null = null;
  private worker: Worker | null = null;

  constructor(
    private readonly store: BotsStore,
    private readonly options: { readonly queueMax: number; readonly clock: () => number; readonly log: Log; readonly paused?: boolean },
  ) {}

  /** Runs waiting or running. */
  get size(): number {
    return this.waiting.length + (this.running === null ? 0 : 1);
  }

  get full(): boolean {
    return this.size >= this.options.queueMax;
  }

  /** Queues again the runs a stop left unfinished and starts the worker (not when paused: runs then wait). */
  start(): void {
    if (this.options.paused === true) {
      for (const row of this.store.pendingRuns()) this.waiting.push(row.id);
      return;
    }
    this.worker = startWorker('shell/bots/backtest-worker', null);
    this.worker.on('message', (reply: BacktestReply) => this.finished(reply));
    this.worker.on('error', (error) => this.options.log('backtest_worker_failed', { error: String(error) }));
    for (const row of this.store.pendingRuns()) this.waiting.push(row.id);
    this.next();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker !== null) await worker.terminate();
  }

  /** Stores and queues a run (the caller checked the bounds). */
  enqueue(id: string, userId: number, slug: string, input: BacktestInput): void {
    this.store.insertRun(id, userId, slug, JSON.stringify(input), this.iso());
    this.waiting.push(id);
    this.next();
  }

  private iso(): string {
    return new Date(this.options.clock()).toISOString();
  }

  private next(): void {
    if (this.running !== null || this.worker === null) return;
    const id = this.waiting.shift();
    if (id === undefined) return;
    const row = this.store.run(id) as RunRow;
    this.running = id;
    this.store.startRun(id, this.iso());
    this.worker.postMessage({ runId: id, input: JSON.parse(row.input) as BacktestInput });
  }

  private finished(reply: BacktestReply): void {
    if (reply.runId !== this.running) return;
    if ('error' in reply) this.store.finishRun(reply.runId, 'failed', null, reply.error, this.iso());
    else this.store.finishRun(reply.runId, 'completed', JSON.stringify(reply.result), null, this.iso());
    this.running = null;
    this.next();
  }
}
