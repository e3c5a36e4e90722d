/**
 * A node of a replicated pair (REPLICATION=jetstream, or `npm run standby`): it recovers its own journal,
 * follows the journal stream as a standby (serving only GET /leader and 503 NOT_LEADER meanwhile:
 * standby-server.ts), and once it holds the lease it closes its engine at the replayed seq and starts the
 * whole server (`startLeader`: shell/server.ts's startServer) on the same data directory, whose journal writer publishes every batch to the stream. The
 * first node of an empty stream takes the lease at once; a node started while another leads stands by.
 */
import { mkdirSync } from 'node:fs';
import { platformDomains } from '../../engine/domains/index.ts';
import { defaultMarketsPath, loadMarkets } from '../../engine/runtime/markets.ts';
import { ReplicaNode } from '../../engine/runtime/replication/replica-node.ts';
import type { Config } from '../config.ts';
import type { Log } from '../log.ts';
import { closeOnSignals } from '../shutdown.ts';
import type { StartLeader } from './view.ts';
import { replicationSettings } from './settings.ts';
import { startStandbyServer } from './standby-server.ts';

export async function runClusterNode(config: Config, log: Log, startLeader: StartLeader): Promise<void> {
  // `npm run standby` implies replication; its other settings are the same as the leader's.
  const settings = replicationSettings({ ...config, env: { ...config.env, REPLICATION: config.env['REPLICATION'] || 'jetstream' } });
  if (settings === null) throw new Error('runClusterNode: replication is off');
  mkdirSync(config.dataDir, { recursive: true });
  const node = await ReplicaNode.open({
    settings,
    durable: {
      dataDir: config.dataDir,
      engine: { markets: loadMarkets(defaultMarketsPath), domains: platformDomains },
      syncMode: config.journalSync,
      snapshotEveryCommands: config.snapshotEveryCommands,
      snapshotEveryMs: config.snapshotEveryMs,
      log,
    },
    handOver: true,
    log,
  });
  const standby = await startStandbyServer(config.host, config.port, node, settings.nodeId, settings.advertiseUrl);
  log('standby', { node: settings.nodeId, nats_url: settings.natsUrl, stream: settings.stream, port: standby.port, seq: node.durable.sequencer.lastSeq });
  let server: Awaited<ReturnType<StartLeader>> | null = null;
  const shutdown = closeOnSignals(
    log,
    async () => {
      standby.close();
      if (server !== null) await server.close();
      await node.close();
    },
    () => ({ role: node.role }),
  );
  await node.start();
  await node.becameLeader;
  if (shutdown.requested) return;
  standby.close();
  // Commands are stamped with the wall clock, never behind the last command of the previous leader.
  let lastTs = node.lastCommandTs;
  const clock = (): number => (lastTs = Math.max(lastTs, Date.now()));
  server = await startLeader(
    {
      wrapWriter: (local) => node.leaderWriter(local),
      putPositions: (json) => node.stream.putPositions(json),
      epoch: node.stream.epoch,
      positionsEveryMs: Math.max(50, Math.min(250, Math.floor(settings.leaseRenewMs / 2))),
      view: { nodeId: settings.nodeId, url: settings.advertiseUrl, role: () => node.role, leader: () => node.leader, streamSeq: () => node.streamSeq },
    },
    clock,
  );
  log('leading', { node: settings.nodeId, port: server.port, stream_seq: node.streamSeq });
}
