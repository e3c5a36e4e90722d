/**
 * Per-key rate limits in fixed one-minute windows, by tier and by class: `general` (data, account and
 * market reads) and `orders` (placements and cancels; a batch counts each order). The API specification gives general
 * limits for STANDARD, PREMIUM and ADMIN; MARKET_MAKER keys get ADMIN's general limit here, since a market
 * maker's reads scale with its orders. Requests with a bearer session are limited per user at STANDARD.
 *
 * This runs on every keyed request, so a decision allocates nothing: windows are found by number (a key's
 * id, or a user's id negated) in one map per class, and the figures for the X-RateLimit-* headers go into
 * the caller's `RateFigures`. Windows live apart from the key cache, so changing or re-creating keys never
 * resets a count.
 */
import type { RateLimitClass, Tier } from './access.ts';

export const generalPerMinute: Record<Tier, number> = { STANDARD: 100, PREMIUM: 1_000, MARKET_MAKER: 10_000, ADMIN: 10_000 };
export const ordersPerMinute: Record<Tier, number> = { STANDARD: 3_000, PREMIUM: 12_000, MARKET_MAKER: 60_000, ADMIN: 600_000 };
/** Per client address: public reads without a key, and attempts at credentials (a password guess, a 2FA code). */
export const anonymousGeneralPerMinute = 1_000;
export const credentialAttemptsPerMinute = 30;
/** Per client address, keyed or not: the public calculators (the passive-income estimate). */
export const calculatorPerMinute = 60;
/** Windows tracked at once per map; past this the stale ones are dropped (their subjects start afresh). */
const windowsMax = 1_000_000;
const windowMs = 60_000;

export type LimitedClass = Exclude<RateLimitClass, 'none'>;

/** What the X-RateLimit-* headers of one request say; `limit` 0 means the request was not limited. */
export class RateFigures {
  limit = 0;
  remaining = 0;
  /** When the window ends, in Unix seconds. */
  resetS = 0;

  clear(): void {
    this.limit = 0;
    this.remaining = 0;
    this.resetS = 0;
  }
}

class Window {
  constructor(
    public start: number,
    public used: number,
  ) {}
}

class Windows<K> {
  private readonly map = new Map<K, Window>();

  get(subject: K, start: number): Window {
    let window = this.map.get(subject);
    if (window === undefined) {
      if (this.map.size >= windowsMax) this.prune(start);
      window = new Window(start, 0);
      this.map.set(subject, window);
    } else if (window.start !== start) {
      window.start = start;
      window.used = 0;
    }
    return window;
  }

  private prune(currentStart: number): void {
    for (const [key, window] of this.map) if (window.start !== currentStart) this.map.delete(key);
    if (this.map.size >= windowsMax) this.map.clear();
  }
}

export class RateLimiter {
  /** By key id (positive) or user id (negated) for keyed and session requests; by address otherwise. */
  private readonly bySubject: Record<LimitedClass, Windows<number>> = { general: new Windows(), orders: new Windows(), credentials: new Windows(), calculator: new Windows() };
  private readonly byAddress: Record<LimitedClass, Windows<string>> = { general: new Windows(), orders: new Windows(), credentials: new Windows(), calculator: new Windows() };

  constructor(private readonly clock: () => number) {}

  /** Counts `weight` requests of an API key (`keyId` > 0) or of a user's sessions (`-userId`); false when over. */
  takeSubject(limitClass: LimitedClass, subject: number, limit: number, weight: number, figures: RateFigures): boolean {
    const start = this.windowStart();
    return this.count(this.bySubject[limitClass].get(subject, start), start, limit, weight, figures);
  }

  /** Counts `weight` requests from a client address; false when over. */
  takeAddress(limitClass: LimitedClass, address: string, limit: number, weight: number, figures: RateFigures): boolean {
    const start = this.windowStart();
    return this.count(this.byAddress[limitClass].get(address, start), start, limit, weight, figures);
  }

  private windowStart(): number {
    const now = this.clock();
    return now - (now % windowMs);
  }

  private count(window: Window, start: number, limit: number, weight: number, figures: RateFigures): boolean {
    const allowed = window.used + weight <= limit;
    if (allowed) window.used += weight;
    figures.limit = limit;
    figures.remaining = Math.max(0, limit - window.used);
    figures.resetS = Math.ceil((start + windowMs) / 1000);
    return allowed;
  }
}
