/**
 * When the read models' worker commits. A commit writes every page its transaction changed to the WAL once,
 * however many rows changed it, and the pages at the ends of the tables and their indexes change in every
 * transaction: the fewer the commits, the less the worker writes for the same rows. Before, the worker
 * committed after every message (one at least every 1 024 commands at full order rate, about 35 a second
 * in bench:http); it now commits at most every `commitIntervalMs` unless a query waits, which writes the
 * WAL 3-4 times less at that rate. The writer's cost per command falls with the transaction's size
 * (bench/read-models.ts); bench:http's closed loop did not move measurably with this alone (bench/README.md,
 * bench:http, "Background threads below the order path").
 *
 * Commits do not wait when a query waits for rows: the main thread raises a shared flag while any query
 * waits, and the worker commits as soon as it has written the message in hand. So waiting queries are
 * served as before (a query waits at most for the message being written and the one holding its rows),
 * and rows nobody asked for are committed within `commitIntervalMs`.
 */

/** Longest a written batch waits for its commit while no query waits for it. */
export const commitIntervalMs = 100;

/**
 * How long the worker may leave what it wrote uncommitted (0: commit now), given whether a query waits,
 * when it last committed and the time now (ms, the thread's runtime clock).
 */
export function commitWaitMs(queryWaiting: boolean, lastCommitMs: number, nowMs: number, intervalMs = commitIntervalMs): number {
  if (queryWaiting) return 0;
  return Math.max(0, lastCommitMs + intervalMs - nowMs);
}
