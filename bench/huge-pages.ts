/**
 * Large allocations on 2 MiB pages for the engine benchmarks (bench:engine, bench:engine:ab's runners),
 * without root.
 *
 * Node puts a typed array's buffer of more than about 128 KiB (the order records, the id index, a journal
 * chunk) in memory that glibc's malloc maps for it. With glibc's `glibc.malloc.hugetlb=1` tunable, malloc
 * asks the kernel for transparent huge pages on such mappings (`madvise(MADV_HUGEPAGE)`), which the kernel's
 * default THP mode, `madvise`, then grants; without it those buffers sit on 4 KiB pages, and the order
 * records' physical placement, different for every engine, moved the 10 k resting figure by up to 2x
 * (bench/README.md, "Page placement"), and at a million resting orders reads of random records also miss
 * the address translation caches. glibc reads its tunables once, when a process starts, so a tool that
 * wants them runs itself again with the tunable added to `GLIBC_TUNABLES` (`rerunWithHugePages`), or
 * starts its children with it (`hugePagesEnv`). `HUGE_PAGES=off` in the environment keeps a tool on 4 KiB
 * pages (to compare). Huge pages make a fresh large buffer's first touch dearer (bench/README.md, "Huge
 * pages for the large buffers"), so the order server does not run itself again: its operator chooses
 * (README, "Huge pages").
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { glibcVersion } from '../engine/runtime/memory.ts';

/** The tunable, as `GLIBC_TUNABLES` takes it. */
export const hugePagesTunable = 'glibc.malloc.hugetlb=1';
/** The first glibc with the tunable. */
const glibcWithTunable = [2, 35] as const;

/**
 * The kernel's transparent huge page mode (`always`, `madvise` or `never`; `unknown` where the file is
 * missing). Under `always` every large anonymous mapping gets huge pages; under `madvise` only those a
 * process asks for (the tunable above); under `never` none.
 */
export function transparentHugePages(): string {
  try {
    const text = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8');
    return /\[(\w+)\]/.exec(text)?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Whether this process started with the tunable set (its large allocations may be on huge pages). */
export function mallocHugePages(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.GLIBC_TUNABLES ?? '').split(':').includes(hugePagesTunable);
}

/** What decides whether a tool runs itself again: the facts `rerunWithHugePages` reads, passed in for tests. */
export interface HugePagesFacts {
  readonly platform: string;
  /** glibc's version at run time ("2.36"), or undefined when the process does not run on glibc. */
  readonly glibcVersion: string | undefined;
  readonly thpMode: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The `GLIBC_TUNABLES` value to run again with, or null to go on as this process: not Linux, not glibc or
 * one without the tunable, THP `never` or unknown, `HUGE_PAGES=off`, or the tunable already set (which is
 * also what stops a rerun from running itself again). Other tunables already set are kept.
 */
export function hugePagesRerunTunables(facts: HugePagesFacts): string | null {
  if (facts.platform !== 'linux' || facts.env.HUGE_PAGES === 'off') return null;
  if (facts.thpMode !== 'always' && facts.thpMode !== 'madvise') return null;
  const version = /^(\d+)\.(\d+)/.exec(facts.glibcVersion ?? '');
  if (version === null) return null;
  const major = Number(version[1]);
  const minor = Number(version[2]);
  if (major < glibcWithTunable[0] || (major === glibcWithTunable[0] && minor < glibcWithTunable[1])) return null;
  const existing = (facts.env.GLIBC_TUNABLES ?? '').split(':').filter((entry) => entry !== '');
  if (existing.some((entry) => entry.startsWith('glibc.malloc.hugetlb='))) return null;
  return [...existing, hugePagesTunable].join(':');
}

/** `hugePagesRerunTunables` on this machine, for a process with environment `env`. */
export function rerunTunables(env: NodeJS.ProcessEnv = process.env): string | null {
  return hugePagesRerunTunables({ platform: process.platform, glibcVersion: glibcVersion(), thpMode: transparentHugePages(), env });
}

/**
 * The environment to start a child process with so that it gets huge pages (this process's own, with the
 * tunable added when it applies): for tools that time other processes, such as bench:engine:ab's runners.
 */
export function hugePagesEnv(): NodeJS.ProcessEnv {
  const tunables = rerunTunables();
  return tunables === null ? process.env : { ...process.env, GLIBC_TUNABLES: tunables };
}

/**
 * Runs this process's command again (same node, flags and arguments) with the tunable set, when it applies
 * (`hugePagesRerunTunables`): returns a promise of the exit code to leave with, the run's output having gone
 * to this process's own streams; SIGINT, SIGTERM and SIGHUP are passed on to the run. Returns null when this
 * process should go on itself. Call it first thing, before any work:
 *
 *   const rerun = rerunWithHugePages();
 *   if (rerun !== null) process.exit(await rerun);
 */
export function rerunWithHugePages(): Promise<number> | null {
  const tunables = rerunTunables();
  if (tunables === null) return null;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, GLIBC_TUNABLES: tunables } });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(`could not run again with ${hugePagesTunable}: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const name of signals) process.off(name, forward);
      // A run ended by a signal ends this process the shell's way: 128 + the signal's number.
      resolve(code ?? 128 + (signal === null ? 0 : (os.constants.signals[signal] ?? 0)));
    });
  });
}
