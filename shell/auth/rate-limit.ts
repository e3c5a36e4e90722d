/**
 * Per-key rate limits in fixed one-minute windows, by tier and by class: `general` (data, account and
 * market reads) and `orders` (placements and cancels; a batch counts each order). SPEC.md gives general
 * limits for STANDARD, PREMIUM and ADMIN; MARKET_MAKER keys get ADMIN's general limit here, since a market
 * maker's reads scale with its orders. Requests with a bearer session are limited per user at STANDARD.
 */
import type { RateLimitClass } from '../http/route-table.ts';
import type { Tier } from './api-keys.ts';

export const generalPerMinute: Record<Tier, number> = { STANDARD: 100, PREMIUM: 1_000, MARKET_MAKER: 10_000, ADMIN: 10_000 };
export const ordersPerMinute: Record<Tier, number> = { STANDARD: 3_000, PREMIUM: 12_000, MARKET_MAKER: 60_000, ADMIN: 600_000 };
/** Per client address: public reads without a key, and attempts at credentials (a password guess, a 2FA code). */
export const anonymousGeneralPerMinute = 1_000;
export const credentialAttemptsPerMinute = 30;
/** Windows tracked at once; past this the oldest are dropped (their keys start a fresh window). */
const windowsMax = 1_000_000;
const windowMs = 60_000;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Window {
  start: number;
  used: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly clock: () => number) {}

  /** Counts `weight` requests of `subject` in `limitClass` against `limit` per minute. */
  take(subject: string, limitClass: Exclude<RateLimitClass, 'none'>, limit: number, weight: number): RateDecision {
    const now = this.clock();
    const start = now - (now % windowMs);
    const key = `${limitClass}:${subject}`;
    let window = this.windows.get(key);
    if (window === undefined || window.start !== start) {
      if (window === undefined && this.windows.size >= windowsMax) this.prune(start);
      window = { start, used: 0 };
      this.windows.set(key, window);
    }
    const allowed = window.used + weight <= limit;
    if (allowed) window.used += weight;
    return {
      allowed,
      headers: {
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - window.used)),
        'X-RateLimit-Reset': String(Math.ceil((start + windowMs) / 1000)),
      },
    };
  }

  private prune(currentStart: number): void {
    for (const [key, window] of this.windows) if (window.start !== currentStart) this.windows.delete(key);
    if (this.windows.size >= windowsMax) this.windows.clear();
  }
}
