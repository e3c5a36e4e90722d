/**
 * The replicated server (REPLICATION=jetstream): the settings, and a leader and a standby as real server
 * processes on a NATS server of the test's own. The standby tells clients where the leader is (503
 * NOT_LEADER, Retry-After, X-Leader-Url; GET /leader with its seq and state hash); when the leader is
 * killed it starts the whole server and leads from the seq it replayed; the old node, restarted, stands by.
 * The failover rounds under load are engine/runtime/replication/failover.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.ts';
import { replicationSettings } from './settings.ts';
import type { LeaderBody } from './routes.ts';
import { freeLoopbackPort, natsAbsent, startLocalNats } from '../../engine/runtime/replication/local-nats.ts';
import { leaderOf, servesAsLeader } from './test-kit.ts';

const serverPath = fileURLToPath(new URL('../server.ts', import.meta.url));

test('replication settings: off unless REPLICATION=jetstream, defaults, refusals', () => {
  assert.equal(replicationSettings(loadConfig({})), null);
  assert.equal(replicationSettings(loadConfig({ REPLICATION: 'off' })), null);
  const settings = replicationSettings(loadConfig({ REPLICATION: 'jetstream', PORT: '9000', REPLICATION_NODE_ID: 'n1' }));
  assert.ok(settings !== null);
  assert.equal(settings.natsUrl, 'nats://127.0.0.1:4222');
  assert.equal(settings.advertiseUrl, 'http://127.0.0.1:9000');
  assert.equal(settings.nodeId, 'n1');
  assert.equal(settings.ack, 'jetstream');
  assert.equal(settings.leaseTtlMs, 3000);
  assert.equal(settings.leaseRenewMs, 1000);
  assert.equal(settings.replicas, 1);
  assert.throws(() => replicationSettings(loadConfig({ REPLICATION: 'raft' })), /REPLICATION must be jetstream/);
  assert.throws(() => replicationSettings(loadConfig({ REPLICATION: 'jetstream', REPLICATION_ACK: 'none' })), /REPLICATION_ACK/);
  assert.throws(() => replicationSettings(loadConfig({ REPLICATION: 'jetstream', REPLICATION_LEASE_TTL_MS: '1000', REPLICATION_LEASE_RENEW_MS: '600' })), /at most half/);
  assert.throws(() => replicationSettings(loadConfig({ REPLICATION: 'jetstream', REPLICATION_STREAM: 'a.b' })), /REPLICATION_STREAM/);
});

/** Polls GET /leader until `done` holds (or the process exits, or 60 s pass). */
async function waitForLeader(port: number, process: ChildProcess, done: (body: LeaderBody) => boolean): Promise<LeaderBody> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const body = await leaderOf(port);
    if (body !== null && done(body)) return body;
    if (process.exitCode !== null || process.signalCode !== null) throw new Error(`the node on ${port} exited`);
    if (Date.now() > deadline) throw new Error(`the node on ${port} did not reach the expected state: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('replicated server: the standby redirects to the leader, takes over when it is killed, and the old node stands by', { timeout: 180_000 }, async (t) => {
  if (natsAbsent(t)) return;
  const root = mkdtempSync(join(tmpdir(), 'cluster-'));
  const nats = await startLocalNats(root);
  const ports = { a: await freeLoopbackPort(), b: await freeLoopbackPort() };
  const processes: ChildProcess[] = [];
  const startNode = (name: 'a' | 'b', standby: boolean): ChildProcess => {
    const env = {
      ...process.env,
      REPLICATION: 'jetstream',
      NATS_URL: nats.url,
      REPLICATION_NODE_ID: name,
      PORT: String(ports[name]),
      DATA_DIR: join(root, name),
      AMM_CHAINS: '',
      PRICE_TICK_MS: '200',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', serverPath, ...(standby ? ['--standby'] : [])], { env, stdio: 'ignore' });
    processes.push(child);
    return child;
  };
  try {
    const a = startNode('a', false);
    const aLeads = await waitForLeader(ports.a, a, servesAsLeader);
    assert.equal(aLeads.replication, 'jetstream');
    assert.deepEqual(aLeads.leader, { node: 'a', url: `http://127.0.0.1:${ports.a}` });
    assert.equal(aLeads.state_hash, null);
    const b = startNode('b', true);
    // The price oracle journals a tick every 200 ms: the standby follows the leader's seq.
    const bStands = await waitForLeader(ports.b, b, (body) => body.role === 'standby' && body.seq > aLeads.seq);
    assert.deepEqual(bStands.leader, { node: 'a', url: `http://127.0.0.1:${ports.a}` });
    assert.match(bStands.state_hash ?? '', /^[0-9a-f]{16}$/);
    const refused = await fetch(`http://127.0.0.1:${ports.b}/api/v1/markets`);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.headers.get('x-leader-url'), `http://127.0.0.1:${ports.a}`);
    const body = (await refused.json()) as { error: { code: string; message: string }; leader: { node: string; url: string } };
    assert.equal(body.error.code, 'NOT_LEADER');
    assert.deepEqual(body.leader, { node: 'a', url: `http://127.0.0.1:${ports.a}` });

    const lastSeen = (await leaderOf(ports.a))!.seq;
    const killedAt = performance.now();
    a.kill('SIGKILL');
    // The server's own answer (no state hash), not the standby's: b serves as the leader.
    const bLeads = await waitForLeader(ports.b, b, servesAsLeader);
    const tookMs = Math.round(performance.now() - killedAt);
    assert.ok(bLeads.seq >= lastSeen, `the new leader is at seq ${bLeads.seq}, before ${lastSeen} which the old one had made durable`);
    assert.deepEqual(bLeads.leader, { node: 'b', url: `http://127.0.0.1:${ports.b}` });
    // It takes commands: the oracle's ticks move its seq on.
    await waitForLeader(ports.b, b, (leader) => leader.seq > bLeads.seq);
    for (let index = 0; index < 5; index++) assert.equal((await leaderOf(ports.b))?.state_hash, null, 'no answer comes from the closed standby listener any more');

    const aAgain = startNode('a', true);
    const aStands = await waitForLeader(ports.a, aAgain, (leader) => leader.role === 'standby' && leader.seq >= bLeads.seq);
    assert.deepEqual(aStands.leader, { node: 'b', url: `http://127.0.0.1:${ports.b}` });
    t.diagnostic(`the standby served as leader ${tookMs} ms after the leader was killed (lease TTL 3000 ms, then the server's start)`);
  } finally {
    for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    nats.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
