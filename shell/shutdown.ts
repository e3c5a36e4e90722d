/**
 * Shutdown on SIGTERM or SIGINT: logged once, `close` run once (a second signal waits for the same close),
 * then the process exits 0, or 1 when closing failed. Used by the embedded server and a replicated node.
 */
import type { Log } from './log.ts';

export interface Shutdown {
  /** Whether a signal has asked the process to stop. */
  readonly requested: boolean;
}

export function closeOnSignals(log: Log, close: () => Promise<void>, fields: () => Record<string, unknown> = () => ({})): Shutdown {
  let closing: Promise<void> | null = null;
  const stop = (signal: string): void => {
    log('shutdown', { signal, ...fields() });
    closing ??= close();
    closing.then(
      () => process.exit(0),
      (error: unknown) => {
        log('shutdown_failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return {
    get requested() {
      return closing !== null;
    },
  };
}
