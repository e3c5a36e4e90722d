/**
 * Background threads below the order path. On Linux each thread of a process is a task with a nice value
 * of its own, and setpriority(2) given a thread id changes that thread alone (the man page's notes: the
 * nice value is a per-thread attribute under NPTL); `os.setPriority` passes the id through. A worker thread
 * finds its id in /proc/thread-self. Raising one's own nice value needs no privilege.
 *
 * Why: the read models' worker writes every order and trade into SQLite, about a third of a core at full
 * order rate, on the same cores as the thread that answers orders. At equal priority the scheduler lets it
 * run while the order thread's sockets wait; one step of nice makes the scheduler pick the order thread
 * first when both want a core, and the worker takes the rest (bench/README.md, bench:http, "Background
 * threads at a lower priority"). What the worker cannot write in time stays bounded by the read models'
 * lag limit, as before.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice values a thread may lower itself to: 0 (unchanged) to 19 (the lowest priority). */
export const niceMax = 19;

/**
 * Lowers the calling thread's priority to `nice` (1 to 19; 0 leaves it as it is). Returns the thread's nice
 * value afterwards, or null where threads have no id of their own to name (no /proc/thread-self: not Linux)
 * or the system refused; the thread then keeps running at the process's priority.
 */
export function lowerThreadPriority(nice: number): number | null {
  if (!Number.isInteger(nice) || nice < 0 || nice > niceMax) throw new RangeError(`nice must be an integer from 0 to ${niceMax}, not ${nice}`);
  const tid = threadId();
  if (tid === null) return null;
  try {
    if (nice > 0 && getPriority(tid) < nice) setPriority(tid, nice);
    return getPriority(tid);
  } catch {
    return null;
  }
}

/** The calling thread's kernel id (Linux), or null. */
export function threadId(): number | null {
  let link: string;
  try {
    link = readlinkSync('/proc/thread-self');
  } catch {
    return null;
  }
  // "<pid>/task/<tid>"
  const tid = Number(link.slice(link.lastIndexOf('/') + 1));
  return Number.isSafeInteger(tid) && tid > 0 ? tid : null;
}
