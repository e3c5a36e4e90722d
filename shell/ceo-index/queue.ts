/**
 * The scoring queue: at most `workersMax` scorings run at once and at most `queueMax` wait; a submission
 * past that is refused (the routes answer 503 BUSY with Retry-After). One job per normalised URL: a second
 * request for a URL being scored joins its job. A finished job's result is cached `cacheMs` (7 days by
 * default) per URL, a failure `failureMs`; both caches are bounded (`cacheMax`, oldest dropped first).
 *
 * Each job keeps its progress events (queued, fetching, extracting, identified, scoring, then result or
 * error) so a stream that joins late sees them from the start.
 */
import { ApiError } from '../http/errors.ts';
import type { SseEvent } from '../http/route-table.ts';
import type { PersonRow } from './board.ts';
import type { Progress } from './scorer.ts';

/** Events one job keeps at most (its steps are fewer; this bounds a misbehaving scorer). */
const jobEventsMax = 16;

export interface QueueOptions {
  readonly workersMax: number;
  readonly queueMax: number;
  readonly cacheMs: number;
  readonly failureMs: number;
  readonly cacheMax: number;
  readonly clock: () => number;
  readonly run: (url: string, progress: Progress) => Promise<PersonRow>;
}

export type Outcome = { readonly ok: true; readonly row: PersonRow } | { readonly ok: false; readonly error: ApiError };

export class Job {
  readonly events: SseEvent[] = [];
  outcome: Outcome | null = null;
  private readonly waiters = new Set<() => void>();
  readonly done: Promise<Outcome>;
  private resolveDone: (outcome: Outcome) => void = () => {};

  constructor(readonly url: string) {
    this.done = new Promise<Outcome>((resolve) => (this.resolveDone = resolve));
  }

  push(event: string, data: unknown): void {
    if (this.events.length < jobEventsMax) this.events.push({ event, data, id: String(this.events.length + 1) });
    this.wake();
  }

  finish(outcome: Outcome): void {
    if (this.outcome !== null) return;
    this.outcome = outcome;
    if (outcome.ok) this.push('result', outcome.row);
    else this.push('error', { error: { code: outcome.error.code, message: outcome.error.message } });
    this.resolveDone(outcome);
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Every event of the job, past ones first, until its result or error. */
  async *stream(): AsyncGenerator<SseEvent> {
    let next = 0;
    for (;;) {
      while (next < this.events.length) yield this.events[next++]!;
      if (this.outcome !== null && next >= this.events.length) return;
      await new Promise<void>((resolve) => this.waiters.add(resolve));
    }
  }
}

interface Cached<T> {
  readonly value: T;
  readonly atMs: number;
}

export type Lookup = { readonly state: 'done'; readonly row: PersonRow; readonly atMs: number } | { readonly state: 'failed'; readonly error: ApiError } | { readonly state: 'pending'; readonly job: Job } | null;

export class ScoringQueue {
  private readonly jobs = new Map<string, Job>();
  private readonly waiting: Job[] = [];
  private running = 0;
  private readonly results = new Map<string, Cached<PersonRow>>();
  private readonly failures = new Map<string, Cached<ApiError>>();

  constructor(private readonly options: QueueOptions) {}

  /** What is known of a URL: a cached result, a remembered failure, a job under way, or nothing. */
  lookup(url: string): Lookup {
    const now = this.options.clock();
    const result = this.results.get(url);
    if (result !== undefined) {
      if (now - result.atMs < this.options.cacheMs) return { state: 'done', row: result.value, atMs: result.atMs };
      this.results.delete(url);
    }
    const job = this.jobs.get(url);
    if (job !== undefined) return { state: 'pending', job };
    const failure = this.failures.get(url);
    if (failure !== undefined) {
      if (now - failure.atMs < this.options.failureMs) return { state: 'failed', error: failure.value };
      this.failures.delete(url);
    }
    return null;
  }

  /** Whether a new job would be refused now: every worker busy and the waiting line at its maximum. */
  full(): boolean {
    return this.running >= this.options.workersMax && this.waiting.length >= this.options.queueMax;
  }

  /** Seconds a refused client should wait: the waiting scorings per worker (a rough turn of the queue), at least 1. */
  retryAfterS(): number {
    return Math.max(1, Math.ceil(this.waiting.length / this.options.workersMax));
  }

  /** The 503 a full queue answers; remembered for the URL so that its status says busy too. */
  busy(url: string): ApiError {
    const error = new ApiError(503, 'BUSY', `the scoring queue is full (${this.options.queueMax} waiting); retry later`, { 'Retry-After': String(this.retryAfterS()) });
    this.remember(this.failures, url, error);
    return error;
  }

  /** Starts (or queues) a scoring of the URL; the caller has checked `lookup` and `full` first. */
  submit(url: string): Job {
    const existing = this.jobs.get(url);
    if (existing !== undefined) return existing;
    if (this.full()) throw this.busy(url);
    this.failures.delete(url);
    const job = new Job(url);
    this.jobs.set(url, job);
    job.push('queued', { url, position: this.waiting.length + 1 });
    this.waiting.push(job);
    this.pump();
    return job;
  }

  /** Jobs waiting and running, for the answers. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private pump(): void {
    while (this.running < this.options.workersMax && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.running++;
      void this.work(job);
    }
  }

  private async work(job: Job): Promise<void> {
    let outcome: Outcome;
    try {
      const row = await this.options.run(job.url, (step, data) => job.push(step, data));
      outcome = { ok: true, row };
      this.remember(this.results, job.url, row);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(502, 'SCORING_FAILED', error instanceof Error ? error.message : String(error));
      outcome = { ok: false, error: apiError };
      this.remember(this.failures, job.url, apiError);
    }
    this.jobs.delete(job.url);
    this.running--;
    job.finish(outcome);
    this.pump();
  }

  private remember<T>(cache: Map<string, Cached<T>>, url: string, value: T): void {
    cache.delete(url);
    if (cache.size >= this.options.cacheMax) cache.delete(cache.keys().next().value!);
    cache.set(url, { value, atMs: this.options.clock() });
  }
}

/**
 * The key a URL is cached and queued under: scheme and host lower-cased, the default port and the
 * fragment dropped, `utm_*` parameters dropped and the rest sorted, a trailing slash of a path other than
 * `/` dropped. Throws 422 for anything but an absolute http(s) URL without credentials.
 */
export function normaliseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ApiError(422, 'VALIDATION_FAILED', 'url: must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError(422, 'VALIDATION_FAILED', 'url: must be an absolute http(s) URL');
  if (url.username !== '' || url.password !== '') throw new ApiError(422, 'VALIDATION_FAILED', 'url: must not carry a user name or password');
  url.hash = '';
  const params = [...url.searchParams].filter(([key]) => !key.toLowerCase().startsWith('utm_'));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = new URLSearchParams(params).toString();
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.href;
}
