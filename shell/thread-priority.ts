/**
 * Background threads below the order path. On Linux each thread of a process is a task with a scheduling
 * policy and a nice value of its own: setpriority(2) and sched_setscheduler(2) given a thread id change
 * that thread alone (the man pages' notes: under NPTL these are per-thread attributes). A worker thread
 * finds its id in /proc/thread-self. Lowering one's own priority needs no privilege.
 *
 * - `low`: nice 19, through `os.setPriority`. The scheduler gives the thread a small share of a core
 *   whenever others want it, but a thread it is running is not always interrupted when a normal one wakes.
 * - `idle`: the SCHED_IDLE policy (nice 19 first, kept if the policy cannot be had). The thread runs when
 *   a core has nothing else to do, and a normal thread that wakes takes the core from it at once. Node has
 *   no call for the policy, so util-linux's `chrt --idle` sets it, once, when the thread starts.
 * - `normal`: the process's priority.
 *
 * Why: the read models' worker writes every order and trade into SQLite, about a third of a core at full
 * order rate, on the same cores as the thread that answers orders. At equal priority the order thread's
 * wake-ups waited for it; bench:http in rounds answered 1.06 times as many orders with the writer at nice 10
 * and 1.14 times as many again with it at SCHED_IDLE (bench/README.md, bench:http, "Background threads
 * below the order path").
 * What the writer cannot write in time stays bounded by the read models' lag limit (order routes refuse
 * with 503 beyond it), as before.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export const threadPriorities = ['idle', 'low', 'normal'] as const;
export type ThreadPriority = (typeof threadPriorities)[number];

/** The nice value of `low` (and of `idle` where the policy cannot be had): the lowest there is. */
export const lowNice = 19;
/** Linux's number for the SCHED_IDLE policy, as /proc shows it. */
export const schedIdle = 5;

/**
 * Lowers the calling thread to `priority`. Returns what it runs at afterwards: `idle`, `low`, or
 * `normal` where nothing could be changed (no /proc/thread-self: not Linux).
 */
export function lowerThreadPriority(priority: ThreadPriority): ThreadPriority {
  if (priority === 'normal') return 'normal';
  const tid = threadId();
  if (tid === null) return 'normal';
  try {
    if (getPriority(tid) < lowNice) setPriority(tid, lowNice);
  } catch {
    return 'normal';
  }
  if (priority === 'low') return 'low';
  const chrt = spawnSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'ignore', timeout: 5_000 });
  return chrt.status === 0 && threadScheduling(tid)?.policy === schedIdle ? 'idle' : 'low';
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

/** Nice value and scheduling policy of one of this process's threads, from /proc (null once it has ended). */
export function threadScheduling(tid: number): { nice: number; policy: number } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count the fields after the last ")".
  // Field 19 is the nice value, field 41 the policy.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { nice: Number(fields[16]), policy: Number(fields[38]) };
}
