/**
 * Stream edges (`npm run edge`): a leader and two edges as real server processes on a NATS server of the
 * test's own. Orders go to the leader; a WebSocket client on edge A gets the same exchange-stream messages
 * with the same seqs as a client on the leader; the client moves to edge B and resumes by seq with no gap;
 * an edge serves public reads and answers writes 503 NOT_LEADER with the leader's URL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import type { LeaderBody } from './routes.ts';
import { freeLoopbackPort, natsAbsent, startLocalNats } from '../../engine/runtime/replication/local-nats.ts';
import { leaderOf, servesAsLeader } from './test-kit.ts';

const serverPath = fileURLToPath(new URL('../server.ts', import.meta.url));
// Messages are compared field by field.
type Message = Record<string, any>;

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, child?: ChildProcess, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) throw new Error(`the process exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

class StreamClient {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;

  constructor(port: number) {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}/ws/exchange/ETH`);
    this.socket.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString('utf8')) as Message));
  }

  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The messages of a channel that carry a seq (not the subscribed answers), snapshots included. */
  of(channel: string): Message[] {
    return this.messages.filter((message) => message['channel'] === channel && typeof message['seq'] === 'number');
  }
}

async function post(port: number, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Message; headers: Headers }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Message, headers: response.headers };
}

async function trader(port: number, name: string): Promise<Record<string, string>> {
  const registered = await post(port, '/auth/register', { email: `${name}@example.com`, password: 'correct horse', username: name });
  assert.equal(registered.status, 201, JSON.stringify(registered.json));
  const key = await post(port, '/api/v1/api-keys', { key_name: 'bot' }, { authorization: `Bearer ${registered.json['access_token']}` });
  for (const [asset, amount] of [['USDC', '10000000'], ['ETH', '10000']]) {
    const credited = await post(port, '/admin/v1/credit', { user_id: registered.json['user_id'], asset, amount }, { 'x-api-key': 'admin' });
    assert.equal(credited.status, 200, JSON.stringify(credited.json));
  }
  return { 'x-api-key': key.json['api_key'] as string };
}

/** A round of crossing orders from two traders: trades, book changes. */
async function burst(port: number, alice: Record<string, string>, bob: Record<string, string>, round: number): Promise<void> {
  const requests: Array<Promise<void>> = [];
  for (let index = 0; index < 12; index++) {
    const buy = (round + index) % 2 === 0;
    // Buys at 3000 or above, sells at 3000 or below: most orders trade against what rests.
    const price = (buy ? 3000 + ((index * 7 + round * 3) % 9) * 0.05 : 3000 - ((index * 5 + round) % 9) * 0.05).toFixed(2);
    requests.push(
      post(port, '/api/v1/exchange/eth/orders', { side: buy ? 'buy' : 'sell', order_type: 'limit', quantity: '0.25', price }, index % 2 === 0 ? bob : alice).then((response) => {
        assert.equal(response.status, 201, JSON.stringify(response.json));
      }),
    );
  }
  await Promise.all(requests);
}

/** A server process (a replicated node, or an edge with `--edge`) on the test's NATS server. */
function spawnServer(natsUrl: string, root: string, name: string, port: number, args: readonly string[]): ChildProcess {
  const env = {
    ...process.env,
    REPLICATION: 'jetstream',
    NATS_URL: natsUrl,
    REPLICATION_NODE_ID: name,
    PORT: String(port),
    DATA_DIR: join(root, name),
    ADMIN_API_KEY: 'admin',
    AMM_CHAINS: '',
    PRICE_TICK_MS: '200',
  };
  return spawn(process.execPath, ['--import', 'tsx', serverPath, ...args], { env, stdio: 'ignore' });
}

/** The messages of a channel by seq, from the first seq both lists hold on. */
function bySeq(messages: Message[]): Map<number, Message> {
  return new Map(messages.filter((message) => message['snapshot'] !== true).map((message) => [message['seq'] as number, message]));
}

/**
 * Waits (a few seconds at most) until the leader's client holds every seq that the edge's client got on
 * `channels`: the two sockets are fed by different processes, so one may be a message ahead. A seq the
 * leader never sends is left to the comparison that follows, which names it.
 */
async function leaderHolds(leader: StreamClient, edge: StreamClient, channels: readonly string[]): Promise<void> {
  const missing = (): boolean =>
    channels.some((channel) => {
      const seqs = bySeq(leader.of(channel));
      return [...bySeq(edge.of(channel)).keys()].some((seq) => !seqs.has(seq));
    });
  const deadline = Date.now() + 5_000;
  while (missing() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

test('stream edges: the same messages and seqs as the leader, resume by seq on another edge, writes refused', { timeout: 120_000 }, async (t) => {
  if (natsAbsent(t)) return;
  const root = mkdtempSync(join(tmpdir(), 'edge-'));
  const nats = await startLocalNats(root);
  const ports = { leader: await freeLoopbackPort(), a: await freeLoopbackPort(), b: await freeLoopbackPort() };
  const processes: ChildProcess[] = [];
  const clients: StreamClient[] = [];
  const start = (name: 'leader' | 'a' | 'b'): ChildProcess => {
    const child = spawnServer(nats.url, root, name, ports[name], name === 'leader' ? [] : ['--edge']);
    processes.push(child);
    return child;
  };
  try {
    const leader = start('leader');
    await until('the leader', async () => (servesAsLeader(await leaderOf(ports.leader)) ? true : null), leader);
    const alice = await trader(ports.leader, 'alice');
    const bob = await trader(ports.leader, 'bob');
    await burst(ports.leader, alice, bob, 0);
    // Edge A joins in the middle of the leader's epoch (it takes the leader's positions); edge B too.
    const edgeA = start('a');
    const edgeB = start('b');
    const [aBody] = await Promise.all([
      until('edge a', async () => ((await leaderOf(ports.a))?.role === 'edge' ? leaderOf(ports.a) : null), edgeA),
      until('edge b', async () => ((await leaderOf(ports.b))?.role === 'edge' ? true : null), edgeB),
    ]);
    assert.deepEqual(aBody!.leader, { node: 'leader', url: `http://127.0.0.1:${ports.leader}` });

    const onLeader = new StreamClient(ports.leader);
    const onA = new StreamClient(ports.a);
    clients.push(onLeader, onA);
    await Promise.all([onLeader.open(), onA.open()]);
    for (const client of [onLeader, onA]) for (const channel of ['orderbook', 'trades', 'market']) client.send({ action: 'subscribe', channel });
    await until('the subscriptions', () => (onLeader.of('orderbook').length > 0 && onA.of('orderbook').length > 0 ? true : null));
    for (let round = 1; round <= 3; round++) await burst(ports.leader, alice, bob, round);
    const traded = await until('trades on the leader stream', () => (onLeader.of('trades').length >= 10 ? onLeader.of('trades').at(-1)!['seq'] as number : null));
    await until('edge a to deliver the same trades', () => (onA.of('trades').some((message) => message['seq'] === traded) ? true : null));
    // Both connections subscribed at nearly the same time: the messages both got are the same, seq for seq.
    for (const channel of ['orderbook', 'trades', 'market']) {
      const fromLeader = bySeq(onLeader.of(channel));
      const fromEdge = bySeq(onA.of(channel));
      const common = [...fromLeader.keys()].filter((seq) => fromEdge.has(seq));
      assert.ok(common.length > 0, `${channel}: messages in common`);
      for (const seq of common) {
        const leaderMessage = { ...fromLeader.get(seq)! };
        const edgeMessage = { ...fromEdge.get(seq)! };
        if (channel === 'market') {
          // The 24-hour figures follow each process's clock; the rest is the batch's.
          for (const message of [leaderMessage, edgeMessage]) for (const key of Object.keys(message)) if (/24h|change|volume|high|low/.test(key)) delete message[key];
        }
        assert.deepEqual(edgeMessage, leaderMessage, `${channel} seq ${seq}`);
      }
    }
    assert.equal(onA.of('orderbook')[0]!['snapshot'], true, 'a snapshot first');
    const snapshotSeq = onA.of('orderbook')[0]!['seq'] as number;
    onA.of('orderbook').slice(1).forEach((message, index) => assert.equal(message['seq'], snapshotSeq + index + 1, 'no gap on edge a'));

    // The client leaves edge A, the market moves on, and it resumes on edge B from its last seqs.
    const last = { orderbook: onA.of('orderbook').at(-1)!['seq'] as number, trades: onA.of('trades').at(-1)!['seq'] as number };
    onA.socket.close();
    await burst(ports.leader, alice, bob, 4);
    const movedOn = await until('the leader to trade on', () => (onLeader.of('trades').at(-1)!['seq'] > last.trades ? (onLeader.of('trades').at(-1)!['seq'] as number) : null));
    const onB = new StreamClient(ports.b);
    clients.push(onB);
    await onB.open();
    onB.send({ action: 'subscribe', channel: 'orderbook', from_seq: last.orderbook });
    onB.send({ action: 'subscribe', channel: 'trades', from_seq: last.trades });
    await until('edge b to resume up to the leader', () => (onB.of('trades').some((message) => message['seq'] === movedOn) ? true : null));
    await leaderHolds(onLeader, onB, ['orderbook', 'trades']);
    const answers = onB.messages.filter((message) => message['type'] === 'subscribed');
    assert.deepEqual(answers.map((message) => [message['channel'], message['resumed']]), [['orderbook', true], ['trades', true]]);
    const leaderBySeq = { orderbook: bySeq(onLeader.of('orderbook')), trades: bySeq(onLeader.of('trades')) };
    for (const channel of ['orderbook', 'trades'] as const) {
      const resumed = onB.of(channel);
      assert.ok(resumed.every((message) => message['snapshot'] !== true), `${channel}: resumed without a snapshot`);
      // An edge behind the one the client left sends what the client has again: it drops those by seq.
      const fresh = resumed.filter((message) => message['seq'] > last[channel]);
      fresh.forEach((message, index) => {
        assert.equal(message['seq'], last[channel] + index + 1, `${channel}: no gap after the move`);
        assert.deepEqual(message, leaderBySeq[channel].get(message['seq']), `${channel} seq ${message['seq']} as on the leader`);
      });
    }

    // An edge serves public reads (from its own read models) and refuses writes with the leader's address.
    await until('edge b to catch up', async () => ((await leaderOf(ports.b))!.seq >= (await leaderOf(ports.leader))!.seq - 50 ? true : null));
    const pairs = await fetch(`http://127.0.0.1:${ports.b}/api/v1/exchange/pairs`);
    assert.equal(pairs.status, 200);
    const refused = await post(ports.b, '/api/v1/exchange/eth/orders', { side: 'buy', order_type: 'limit', quantity: '1', price: '3000' }, alice);
    assert.equal(refused.status, 503);
    assert.equal(refused.json['error']['code'], 'NOT_LEADER');
    assert.equal(refused.headers.get('x-leader-url'), `http://127.0.0.1:${ports.leader}`);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.deepEqual(refused.json['leader'], { node: 'leader', url: `http://127.0.0.1:${ports.leader}` });
    const login = await post(ports.a, '/auth/register', { email: 'carol@example.com', password: 'correct horse', username: 'carol' });
    assert.equal(login.status, 503);

    // Edge A restarts on its own journal in the middle of the leader's epoch: it takes the leader's
    // positions (put beside the lease) before it serves, and its seqs are the leader's again.
    edgeA.kill('SIGKILL');
    await burst(ports.leader, alice, bob, 5);
    const edgeAgain = start('a');
    await until('edge a again', async () => ((await leaderOf(ports.a))?.role === 'edge' ? true : null), edgeAgain);
    const again = new StreamClient(ports.a);
    clients.push(again);
    await again.open();
    for (const channel of ['orderbook', 'trades']) again.send({ action: 'subscribe', channel });
    await until('the subscriptions on edge a', () => (again.messages.filter((message) => message['type'] === 'subscribed').length === 2 ? true : null));
    const before = await until('the leader stream to settle', async () => {
      const seq = onLeader.of('trades').at(-1)!['seq'] as number;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return onLeader.of('trades').at(-1)!['seq'] === seq ? seq : null;
    });
    await burst(ports.leader, alice, bob, 6);
    const lastTrade = await until('the leader to trade again', () => (onLeader.of('trades').at(-1)!['seq'] > before ? (onLeader.of('trades').at(-1)!['seq'] as number) : null));
    await until('edge a to deliver it', () => (again.of('trades').some((message) => message['seq'] === lastTrade) ? true : null));
    // The leader's own client may get a batch's orderbook delta a moment after the edge's client does.
    await leaderHolds(onLeader, again, ['orderbook', 'trades']);
    for (const channel of ['orderbook', 'trades']) {
      const fromLeader = bySeq(onLeader.of(channel));
      const fromEdge = [...bySeq(again.of(channel)).values()];
      assert.ok(fromEdge.length > 0, `${channel}: messages after the restart`);
      for (const message of fromEdge) assert.deepEqual(message, fromLeader.get(message['seq']), `${channel} seq ${message['seq']} after the restart`);
    }
  } finally {
    for (const client of clients) client.socket.terminate();
    for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    nats.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

test('stream edges: when the leader dies the edge follows the new one, closes its clients, and serves the new leader\'s seqs', { timeout: 120_000 }, async (t) => {
  if (natsAbsent(t)) return;
  const root = mkdtempSync(join(tmpdir(), 'edge-failover-'));
  const nats = await startLocalNats(root);
  const ports = { a: await freeLoopbackPort(), b: await freeLoopbackPort(), edge: await freeLoopbackPort() };
  const processes: ChildProcess[] = [];
  const clients: StreamClient[] = [];
  const start = (name: 'a' | 'b' | 'edge', args: string[]): ChildProcess => {
    const child = spawnServer(nats.url, root, name, ports[name], args);
    processes.push(child);
    return child;
  };
  try {
    const a = start('a', []);
    await until('a to lead', async () => (servesAsLeader(await leaderOf(ports.a)) ? true : null), a);
    const b = start('b', ['--standby']);
    const edge = start('edge', ['--edge']);
    await until('b to stand by', async () => ((await leaderOf(ports.b))?.role === 'standby' ? true : null), b);
    await until('the edge', async () => ((await leaderOf(ports.edge))?.role === 'edge' ? true : null), edge);
    const before = new StreamClient(ports.edge);
    clients.push(before);
    await before.open();
    const closed = new Promise<number>((resolve) => before.socket.once('close', (code) => resolve(code)));

    a.kill('SIGKILL');
    await until('b to lead', async () => (servesAsLeader(await leaderOf(ports.b)) ? true : null), b);
    // The new leader's first batch (an oracle tick) carries its epoch: the edge starts its seqs again there.
    assert.equal(await closed, 1012, 'the edge closes connections whose seqs were the old leader\'s');
    assert.deepEqual((await until('the edge to see the new lease', async () => {
      const body = await leaderOf(ports.edge);
      return body?.leader?.node === 'b' ? body : null;
    })).role, 'edge');

    const alice = await trader(ports.b, 'alice');
    const bob = await trader(ports.b, 'bob');
    const onLeader = new StreamClient(ports.b);
    const onEdge = new StreamClient(ports.edge);
    clients.push(onLeader, onEdge);
    await Promise.all([onLeader.open(), onEdge.open()]);
    for (const client of [onLeader, onEdge]) for (const channel of ['orderbook', 'trades']) client.send({ action: 'subscribe', channel });
    await until('the subscriptions', () => (onLeader.of('orderbook').length > 0 && onEdge.of('orderbook').length > 0 ? true : null));
    await burst(ports.b, alice, bob, 1);
    const lastTrade = await until('trades on the new leader', () => (onLeader.of('trades').length > 0 ? (onLeader.of('trades').at(-1)!['seq'] as number) : null));
    await until('the edge to deliver them', () => (onEdge.of('trades').some((message) => message['seq'] === lastTrade) ? true : null));
    // The first trades since b began: seq 1 on both.
    assert.equal(onLeader.of('trades')[0]!['seq'], 1);
    for (const channel of ['orderbook', 'trades']) {
      // Each client's deltas start after its own snapshot, which the two servers may have taken at
      // different seqs, and either client may be a message ahead of the other when this runs: compare the
      // seqs both received.
      const fromLeader = bySeq(onLeader.of(channel));
      const fromEdge = bySeq(onEdge.of(channel));
      const common = [...fromEdge.keys()].filter((seq) => fromLeader.has(seq));
      assert.ok(common.length > 0, `${channel}: messages in common`);
      for (const seq of common) assert.deepEqual(fromEdge.get(seq), fromLeader.get(seq), `${channel} seq ${seq} as on the new leader`);
    }
  } finally {
    for (const client of clients) client.socket.terminate();
    for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    nats.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
