/**
 * A nats-server with JetStream of a test's or a bench's own: on a free loopback port, storing under a
 * given directory, ready (accepting connections) when the promise resolves.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/** What tests and the suite's summary say when the binary is missing. */
export const natsMissingMessage = 'nats-server missing: apt-get install -y nats-server';

export function natsServerPresent(): boolean {
  return spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * For a test that needs nats-server: true when the binary is missing (the test says so and returns), unless
 * REQUIRE_NATS=1 (CI), where a missing binary fails the test.
 */
export function natsAbsent(t: { diagnostic(message: string): void }): boolean {
  if (natsServerPresent()) return false;
  t.diagnostic(natsMissingMessage);
  if (process.env['REQUIRE_NATS'] === '1') throw new Error(`${natsMissingMessage} (REQUIRE_NATS=1)`);
  return true;
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface LocalNats {
  readonly url: string;
  readonly process: ChildProcess;
  stop(): void;
}

/** Starts `nats-server -js` storing under `root/nats`; `maxPayloadBytes` sets the message size limit. */
export async function startLocalNats(root: string, maxPayloadBytes?: number): Promise<LocalNats> {
  const port = await freeLoopbackPort();
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(root, 'nats')];
  if (maxPayloadBytes !== undefined) {
    // The command line has no flag for the message size limit: a configuration file sets it.
    const path = join(root, 'nats.conf');
    writeFileSync(path, `max_payload: ${maxPayloadBytes}\n`);
    args.push('-c', path);
  }
  const child = spawn('nats-server', args, { stdio: 'ignore' });
  const stop = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (tries > 200 || child.exitCode !== null) {
      stop();
      throw new Error('nats-server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `nats://127.0.0.1:${port}`, process: child, stop };
}
