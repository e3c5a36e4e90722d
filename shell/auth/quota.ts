/**
 * Quotas that a handler counts itself, for limits the route table cannot apply before the handler runs:
 * "5 assessments per address per hour, cache hits do not count" is known only once the handler knows
 * whether it has a cached answer. A quota is a fixed window per subject (an address, a user), bounded in
 * how many subjects it tracks, and it answers with the same X-RateLimit-* headers and 429 as the route
 * table's limits.
 */
import { ApiError } from '../http/errors.ts';

/** Subjects tracked at once per quota; past this the windows of past periods are dropped. */
const subjectsMax = 100_000;

export interface QuotaFigures {
  readonly limit: number;
  readonly remaining: number;
  /** When the window ends, in Unix seconds. */
  readonly resetS: number;
}

export class Quota {
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(
    /** Requests allowed per window and subject. */
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: () => number,
  ) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`quota limit must be a positive integer, not ${limit}`);
    if (!Number.isSafeInteger(windowMs) || windowMs < 1) throw new Error(`quota window must be a positive integer of ms, not ${windowMs}`);
  }

  /** What the subject has left, without counting. */
  peek(subject: string): QuotaFigures {
    const start = this.windowStart();
    const window = this.windows.get(subject);
    const used = window === undefined || window.start !== start ? 0 : window.used;
    return { limit: this.limit, remaining: Math.max(0, this.limit - used), resetS: Math.ceil((start + this.windowMs) / 1000) };
  }

  /** Counts one request of the subject; throws 429 RATE_LIMITED (with Retry-After and the headers) when over. */
  take(subject: string, what = 'requests'): QuotaFigures {
    const start = this.windowStart();
    let window = this.windows.get(subject);
    if (window === undefined || window.start !== start) {
      if (window === undefined && this.windows.size >= subjectsMax) this.prune(start);
      window = { start, used: 0 };
      this.windows.set(subject, window);
    }
    const resetS = Math.ceil((start + this.windowMs) / 1000);
    if (window.used >= this.limit) {
      const figures = { limit: this.limit, remaining: 0, resetS };
      const retryS = Math.max(1, resetS - Math.floor(this.clock() / 1000));
      throw new ApiError(429, 'RATE_LIMITED', `at most ${this.limit} ${what} per ${this.windowMs / 1000} s; retry after ${retryS} s`, {
        ...quotaHeaders(figures),
        'Retry-After': String(retryS),
      });
    }
    window.used += 1;
    return { limit: this.limit, remaining: this.limit - window.used, resetS };
  }

  private windowStart(): number {
    const now = this.clock();
    return now - (now % this.windowMs);
  }

  private prune(currentStart: number): void {
    for (const [subject, window] of this.windows) if (window.start !== currentStart) this.windows.delete(subject);
    if (this.windows.size >= subjectsMax) this.windows.clear();
  }
}

/** The X-RateLimit-* headers of a quota's figures, for a handler's reply. */
export function quotaHeaders(figures: QuotaFigures): Record<string, string> {
  return { 'X-RateLimit-Limit': String(figures.limit), 'X-RateLimit-Remaining': String(figures.remaining), 'X-RateLimit-Reset': String(figures.resetS) };
}
