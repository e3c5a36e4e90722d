/**
 * The assessor: turns a `website` into the origin probed and the domain results are kept under, runs an
 * assessment (the probes, then the rubric), saves it, and lets requests for a domain being assessed join
 * the run under way instead of probing again. At most `runningMax` assessments run at once; another new
 * one is refused 503 BUSY.
 *
 * A run keeps its events (one `probe` per probe as it completes, then `result` or `error`) so a stream
 * that joins late sees them from the start.
 */
import { isIP } from 'node:net';
import { nonPublicRange } from '../../engine/runtime/outbound/fetch.ts';
import { ApiError } from '../http/errors.ts';
import type { SseEvent } from '../http/route-table.ts';
import { probeNames, runProbes, type ProbeOptions, type ProbeResult } from './probes.ts';
import { dimensionKeys, dimensionPointsMax, rubricVersion, scoreProbes } from './rubric.ts';
import type { Assessment, AssessmentStore } from './store.ts';

/** Longest `website` accepted, in characters. */
export const websiteCharsMax = 2048;
/** Longest host name accepted (DNS's limit). */
export const hostCharsMax = 253;
/** Events one run keeps at most: one per probe, and its end. */
const runEventsMax = probeNames.length + 1;

export interface Website {
  /** The key results are kept under: the host, lower case, with its port when not the scheme's default. */
  readonly domain: string;
  /** The origin the probes are sent to (a path given with the website is not probed). */
  readonly origin: URL;
}

function invalid(field: string, message: string): ApiError {
  return new ApiError(422, 'VALIDATION_FAILED', `${field}: ${message}`);
}

/**
 * Reads a website: an http(s) URL or a bare domain (https is assumed). Refuses (422) anything else, a host
 * longer than `hostCharsMax`, and, unless private addresses are allowed (tests), a loopback or private
 * literal address or a local name (422 WEBSITE_NOT_PUBLIC); a name that resolves to one is refused by the
 * outbound rules when the home page is fetched, with the same code.
 */
export function parseWebsite(text: string, allowPrivate: boolean, field = 'website'): Website {
  const trimmed = text.trim();
  if (trimmed === '') throw invalid(field, 'must be an http(s) URL or a domain');
  if (trimmed.length > websiteCharsMax) throw invalid(field, `at most ${websiteCharsMax} characters`);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalid(field, 'must be an http(s) URL or a domain');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, 'only http and https websites can be assessed');
  if (url.username !== '' || url.password !== '') throw invalid(field, 'must not carry a user name or password');
  const hostname = url.hostname.toLowerCase();
  if (hostname === '' || hostname.length > hostCharsMax) throw invalid(field, `a host of 1 to ${hostCharsMax} characters`);
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(literal) === 0 && !/^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/.test(hostname)) throw invalid(field, 'the host is not a valid domain name');
  if (!allowPrivate) {
    const range = isIP(literal) !== 0 ? nonPublicRange(literal) : hostname === 'localhost' || hostname.endsWith('.localhost') || hostname.endsWith('.local') || !hostname.includes('.') ? 'a local name' : null;
    if (range !== null) throw new ApiError(422, 'WEBSITE_NOT_PUBLIC', `${field}: ${hostname} is not a public address (${range}); only public websites can be assessed`);
  }
  const origin = new URL(url.origin);
  return { domain: origin.host.replace(/\.$/, ''), origin };
}

export type RunOutcome = { readonly ok: true; readonly assessment: Assessment } | { readonly ok: false; readonly error: ApiError };

/** One assessment under way: its events so far, and its outcome when it ends. */
export class Run {
  readonly events: SseEvent[] = [];
  outcome: RunOutcome | null = null;
  readonly done: Promise<RunOutcome>;
  private resolveDone: (outcome: RunOutcome) => void = () => {};
  private readonly waiters = new Set<() => void>();

  constructor(readonly domain: string) {
    this.done = new Promise<RunOutcome>((resolve) => (this.resolveDone = resolve));
  }

  push(event: string, data: unknown): void {
    if (this.events.length < runEventsMax) this.events.push({ event, data, id: String(this.events.length + 1) });
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  finish(outcome: RunOutcome): void {
    if (this.outcome !== null) return;
    this.outcome = outcome;
    if (outcome.ok) this.push('result', { ...outcome.assessment, cached: false });
    else this.push('error', { error: { code: outcome.error.code, message: outcome.error.message } });
    this.resolveDone(outcome);
  }

  /** Every event of the run, past ones first, until its result or error. */
  async *stream(): AsyncGenerator<SseEvent> {
    let next = 0;
    for (;;) {
      while (next < this.events.length) yield this.events[next++]!;
      if (this.outcome !== null) return;
      await new Promise<void>((resolve) => this.waiters.add(resolve));
    }
  }
}

export interface AssessorOptions {
  readonly store: AssessmentStore;
  readonly probes: Omit<ProbeOptions, 'clock'>;
  readonly runningMax: number;
  readonly clock: () => number;
}

export class Assessor {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly options: AssessorOptions) {}

  /** The run under way for the domain, if any. */
  running(domain: string): Run | null {
    return this.runs.get(domain) ?? null;
  }

  /** Whether a new run would be refused now. */
  full(): boolean {
    return this.runs.size >= this.options.runningMax;
  }

  busy(): ApiError {
    return new ApiError(503, 'BUSY', `${this.options.runningMax} assessments are running; retry shortly`, { 'Retry-After': '5' });
  }

  /** Starts an assessment of the website (the caller has checked `running` and `full`). */
  start(website: Website): Run {
    const existing = this.runs.get(website.domain);
    if (existing !== undefined) return existing;
    if (this.full()) throw this.busy();
    const run = new Run(website.domain);
    this.runs.set(website.domain, run);
    void this.work(website, run);
    return run;
  }

  private async work(website: Website, run: Run): Promise<void> {
    const { clock } = this.options;
    let outcome: RunOutcome;
    try {
      const results: ProbeResult[] = await runProbes(website.origin, { ...this.options.probes, clock }, (result) => run.push('probe', result));
      const scored = scoreProbes(results);
      const atMs = clock();
      const assessment: Assessment = {
        domain: website.domain,
        website: website.origin.origin,
        assessed_at: new Date(atMs).toISOString(),
        rubric_version: rubricVersion,
        score: scored.score,
        max_score: dimensionKeys.length * dimensionPointsMax,
        classification: scored.classification,
        dimensions: scored.dimensions,
        probes: results,
      };
      this.options.store.save(assessment, atMs);
      outcome = { ok: true, assessment };
    } catch (error) {
      outcome = { ok: false, error: error instanceof ApiError ? error : new ApiError(502, 'ASSESSMENT_FAILED', error instanceof Error ? error.message : String(error)) };
    }
    this.runs.delete(website.domain);
    run.finish(outcome);
  }
}
