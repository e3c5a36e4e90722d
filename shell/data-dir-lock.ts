/**
 * One server per data directory. Two servers on the same DATA_DIR would both append to its journal and
 * write its databases, and the journal would no longer be one sequence of frames: a second start must be
 * refused before it reads or writes anything there.
 *
 * The lock is a file, DATA_DIR/server.lock, holding the process id of the server that owns the directory.
 * It is created exclusively (O_EXCL), so of two servers starting at once one wins. A lock left behind by a
 * process that no longer exists (a crash, kill -9) is taken over; one held by a live process is refused
 * with its process id. A lock of this very process (a server closed without its lock being released,
 * or tests that start a server again in one process) is taken over as well. A clean shutdown removes the
 * file. After a reboot a stale lock may name an unrelated process that happens to reuse the id: the start
 * is then refused and names the file to remove.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const lockFileName = 'server.lock';

export class DataDirInUseError extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`the data directory is in use by process ${pid} (${path}); stop that server first, or remove the file if no server of this directory runs`);
    this.name = 'DataDirInUseError';
  }
}

/** Whether a process with this id exists (EPERM: it exists, under another user). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class DataDirLock {
  private released = false;

  private constructor(readonly path: string) {}

  /** Takes the lock of `dataDir` (which must exist), or throws DataDirInUseError. */
  static acquire(dataDir: string): DataDirLock {
    const path = join(dataDir, lockFileName);
    // A few rounds: a stale lock removed here may be taken by another server starting at the same time.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          writeSync(fd, `${process.pid}\n`);
        } finally {
          closeSync(fd);
        }
        return new DataDirLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        // Removed meanwhile by its owner: try again.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const pid = /^[1-9][0-9]{0,9}\n?$/.test(text) ? Number(text.trim()) : 0;
      if (pid !== 0 && pid !== process.pid && processExists(pid)) throw new DataDirInUseError(path, pid);
      // Stale (its process is gone), unreadable (a crash while writing it) or our own: take it over.
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    throw new Error(`could not take the data directory's lock ${path}: other servers keep starting on it`);
  }

  /** Removes the lock file if it is still this process's. */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      if (readFileSync(this.path, 'utf8').trim() === String(process.pid)) unlinkSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
