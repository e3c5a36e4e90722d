/**
 * Two-factor login with TOTP (otplib: RFC 6238, SHA-1, 6 digits, 30 s). Setup stores a pending secret;
 * enabling needs a valid code for it; disabling needs a current code. A code is accepted within one step
 * of drift, and never twice: the last accepted time step is kept and only later steps pass.
 */
import { generateSecret, generateURI, verifySync } from 'otplib';
import type { Db } from '../store/database.ts';

export const issuer = 'Trading Platform';
const periodSeconds = 30;

interface TotpRow {
  email: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled: number;
  totp_last_step: number;
}

export class TwoFactor {
  private readonly read;
  private readonly setPending;
  private readonly enableStatement;
  private readonly disableStatement;
  private readonly markStep;

  constructor(
    db: Db,
    private readonly clock: () => number,
  ) {
    this.read = db.prepare('SELECT email, totp_secret, totp_pending_secret, totp_enabled, totp_last_step FROM users WHERE id = ?');
    this.setPending = db.prepare('UPDATE users SET totp_pending_secret = ? WHERE id = ?');
    this.enableStatement = db.prepare('UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled = 1, totp_last_step = ? WHERE id = ?');
    this.disableStatement = db.prepare('UPDATE users SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled = 0, totp_last_step = 0 WHERE id = ?');
    this.markStep = db.prepare('UPDATE users SET totp_last_step = ? WHERE id = ?');
  }

  private row(userId: number): TotpRow {
    return this.read.get(userId) as TotpRow;
  }

  enabled(userId: number): boolean {
    return this.row(userId).totp_enabled === 1;
  }

  /** A new pending secret and its otpauth:// URI; null when 2FA is already on. */
  setup(userId: number): { secret: string; uri: string } | null {
    const row = this.row(userId);
    if (row.totp_enabled === 1) return null;
    const secret = generateSecret();
    this.setPending.run(secret, userId);
    return { secret, uri: generateURI({ issuer, label: row.email, secret }) };
  }

  /** The time step of a valid, not yet used code for `secret`, or -1. */
  private check(secret: string, code: string, lastStep: number): number {
    const epoch = Math.floor(this.clock() / 1000);
    const result = verifySync({ secret, token: code, epoch, epochTolerance: periodSeconds });
    if (!result.valid) return -1;
    // The step the code belongs to: the current one moved by the drift it was found at.
    const step = Math.floor(epoch / periodSeconds) + result.delta;
    return step > lastStep ? step : -1;
  }

  /** Turns 2FA on with a code for the pending secret; false for a wrong code or no pending setup. */
  enable(userId: number, code: string): boolean {
    const row = this.row(userId);
    if (row.totp_enabled === 1 || row.totp_pending_secret === null) return false;
    const step = this.check(row.totp_pending_secret, code, 0);
    if (step < 0) return false;
    this.enableStatement.run(step, userId);
    return true;
  }

  /** Accepts a current code once (login verification, disabling). */
  accept(userId: number, code: string): boolean {
    const row = this.row(userId);
    if (row.totp_enabled !== 1 || row.totp_secret === null) return false;
    const step = this.check(row.totp_secret, code, row.totp_last_step);
    if (step < 0) return false;
    this.markStep.run(step, userId);
    return true;
  }

  disable(userId: number, code: string): boolean {
    if (!this.accept(userId, code)) return false;
    this.disableStatement.run(userId);
    return true;
  }
}
