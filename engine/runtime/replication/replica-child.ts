/**
 * A child of the failover test (failover.test.ts): one replica node over a data directory. While it
 * leads it submits generated commands at a steady pace and prints each acknowledged one; the parent
 * kills or pauses it at random moments.
 *
 *   node --import tsx engine/runtime/replication/replica-child.ts <data dir> <nats url> <node id> <seed> <lease ttl ms>
 *
 * Lines out: `standby <seq>` once following, `leader <seq> <stream seq> <wall ms> <stall ms>` when it starts
 * leading (the wall clock then, and the longest its event loop was held up over the last 4 s),
 * `ack <seq> <crc32 of the frame>` per acknowledged command, `cut <from seq> <local last seq>` when it cut
 * frames the stream never stored off its journal, `stopped <role> <message>` when fenced or
 * failed, `status <role> <durable seq> <state hash>` for each `status` line in. `pause` in stops the load.
 */
import { createInterface } from 'node:readline';
import { noSlot } from '../../core/order-store.ts';
import { CommandGenerator } from '../../core/sim/generator.ts';
import { FrameEncoder } from '../../journal/codec.ts';
import { crc32 } from '../../journal/crc32.ts';
import { domainGenerators, platformDomains } from '../../domains/index.ts';
import { loadMarkets } from '../markets.ts';
import { SequencerBusyError } from '../sequencer.ts';
import { ReplicaNode } from './replica-node.ts';
import { replicationDefaults } from './settings.ts';

const [dataDir, natsUrl, nodeId, seedText, ttlText] = process.argv.slice(2);
if (dataDir === undefined || natsUrl === undefined || nodeId === undefined || seedText === undefined || ttlText === undefined) {
  console.error('usage: replica-child.ts <data dir> <nats url> <node id> <seed> <lease ttl ms>');
  process.exit(2);
}
const leaseTtlMs = Number(ttlText);
const markets = loadMarkets();
const node = await ReplicaNode.open({
  settings: { ...replicationDefaults, natsUrl, nodeId, advertiseUrl: `http://${nodeId}.invalid`, leaseTtlMs, leaseRenewMs: Math.floor(leaseTtlMs / 3) },
  durable: { dataDir, engine: { markets, domains: platformDomains }, snapshotEveryCommands: 2000 },
  log: (event, fields) => {
    if (event === 'replication_fenced' || event === 'replication_failed') process.stdout.write(`stopped ${event} ${String(fields['error']).replace(/\s+/g, '_')}\n`);
    if (event === 'journal_cut_to_stream') process.stdout.write(`cut ${String(fields['from_seq'])} ${String(fields['local_last_seq'])}\n`);
    process.stderr.write(JSON.stringify({ node: nodeId, event, ...fields }) + '\n');
  },
});
// How long this process's event loop was held up lately (a loaded machine pausing it): a standby held up
// while the lease ran out takes over late for that reason alone, and the parent allows for it.
const stallWindowMs = 4000;
const stallTickMs = 50;
const stalls: Array<{ at: number; ms: number }> = [];
let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  stalls.push({ at: now, ms: Math.max(0, now - lastTick - stallTickMs) });
  lastTick = now;
  while (stalls[0]!.at < now - stallWindowMs) stalls.shift();
}, stallTickMs).unref();
function recentStallMs(): number {
  // The time since the last tick counts too: the loop may be held up right now.
  let worst = Math.max(0, performance.now() - lastTick - stallTickMs);
  for (const stall of stalls) worst = Math.max(worst, stall.ms);
  return worst;
}

await node.start();
process.stdout.write(`standby ${node.durable.sequencer.lastSeq}\n`);

let paused = false;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'pause') paused = true;
  if (line === 'status') {
    void node.durable.sequencer.drain().then(() => {
      const status = node.status();
      process.stdout.write(`status ${status.role} ${status.seq} ${status.stateHash}\n`);
    });
  }
});

await node.becameLeader;
process.stdout.write(`leader ${node.durable.sequencer.lastSeq} ${node.appliedStreamSeq} ${Date.now()} ${Math.round(recentStallMs())}\n`);
// A generator of its own per leadership (seeded by the parent), funded first; commands it makes that the
// engine refuses (an order of another generator's user, an expired quote) are simply not journaled.
const engine = node.durable.engine;
const generator = new CommandGenerator({
  seed: Number(seedText),
  markets,
  domains: domainGenerators(),
  startTs: Date.now(),
  oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId },
});
const queue = generator.fundingCommands();
const encoder = new FrameEncoder(1 << 16);
let pending = '';

function pump(): void {
  if (paused || node.role !== 'leader') return;
  for (let index = 0; index < 40; index++) {
    const command = queue.length > 0 ? queue.shift()! : generator.next();
    node.durable.submit(command).then(
      (submission) => {
        if (submission.seq === 0) return;
        encoder.reset();
        encoder.append(command);
        pending += `ack ${submission.seq} ${crc32(encoder.bytes())}\n`;
      },
      (error: unknown) => {
        if (error instanceof SequencerBusyError) queue.unshift(command);
      },
    );
  }
  if (pending !== '') {
    process.stdout.write(pending);
    pending = '';
  }
  setTimeout(pump, 5);
}
pump();
