/**
 * One server per data directory: the lock file refuses a live other process, takes over a dead one's and
 * its own process's, and is removed on release; a second server started on a running server's DATA_DIR
 * (another process) exits, and the journal still recovers whole, and a second server on the same port cannot
 * listen and exits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirInUseError, DataDirLock, lockFileName } from './data-dir-lock.ts';
import { loadConfig } from './config.ts';
import { silentLog } from './log.ts';
import { startServer } from './server.ts';

const serverPath = fileURLToPath(new URL('./server.ts', import.meta.url));

/** Runs `npm start`'s server in a child process with `env` until it exits (killed after 60 s). */
function runServer(env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverPath], { env: { ...process.env, AMM_CHAINS: '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.once('exit', (status) => {
    clearTimeout(timer);
    resolve({ status, stderr });
  }));
}

test('the lock refuses a live other process, takes over a dead one and its own, and is removed on release', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  const path = join(dir, lockFileName);
  const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const lock = DataDirLock.acquire(dir);
    assert.equal(readFileSync(path, 'utf8'), `${process.pid}\n`);
    // This process again (a server closed without releasing, or a test's second start): taken over.
    DataDirLock.acquire(dir);
    lock.release();
    assert.equal(existsSync(path), false);

    // A live other process holds it.
    writeFileSync(path, `${sleeper.pid}\n`);
    assert.throws(
      () => DataDirLock.acquire(dir),
      (error: unknown) => error instanceof DataDirInUseError && error.pid === sleeper.pid && error.message.includes(path),
    );
    assert.equal(readFileSync(path, 'utf8'), `${sleeper.pid}\n`, 'a refusal changes nothing');
    // Its process is gone (killed, as kill -9 leaves it): taken over.
    sleeper.kill('SIGKILL');
    await new Promise((resolve) => sleeper.once('exit', resolve));
    const taken = DataDirLock.acquire(dir);
    assert.equal(readFileSync(path, 'utf8'), `${process.pid}\n`);
    taken.release();
    // A file torn by a crash while it was written: taken over.
    writeFileSync(path, '');
    DataDirLock.acquire(dir).release();
    // Release leaves a lock that another process took meanwhile.
    const mine = DataDirLock.acquire(dir);
    writeFileSync(path, '1\n');
    mine.release();
    assert.equal(readFileSync(path, 'utf8'), '1\n');
  } finally {
    sleeper.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second server on a running server\'s DATA_DIR exits and the journal stays whole; a second server cannot share the port', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'data-dir-lock-server-'));
  const otherDir = mkdtempSync(join(tmpdir(), 'data-dir-lock-other-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
  try {
    const second = await runServer({ DATA_DIR: dataDir, PORT: '0' });
    assert.notEqual(second.status, 0, 'the second server exits with an error');
    assert.match(second.stderr, new RegExp(`in use by process ${process.pid}`));
    // Another directory but the same port: it cannot listen, and exits.
    const third = await runServer({ DATA_DIR: otherDir, PORT: String(server.port) });
    assert.notEqual(third.status, 0);
    assert.match(third.stderr, /cannot listen/);
    await server.close();
    assert.equal(existsSync(join(dataDir, lockFileName)), false, 'a clean shutdown removes the lock');
    assert.equal(existsSync(join(otherDir, lockFileName)), false, 'a failed start leaves no lock behind');
    // The journal is whole: the directory starts again (recovery reads every frame).
    const again = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
    assert.ok(again.context.durable.sequencer.lastSeq > 0);
    await again.close();
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  }
});
