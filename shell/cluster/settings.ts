/**
 * The replication settings (README, "Replication (NATS JetStream)"), read from the environment when the
 * server starts. REPLICATION unset or empty is the embedded single process, with nothing else read.
 */
import { hostname } from 'node:os';
import { integer, type Config } from '../config.ts';
import { replicationDefaults, type ReplicationSettings } from '../../engine/runtime/replication/settings.ts';

/** Names NATS accepts for a stream or bucket (no dots, spaces or wildcards), and for a subject. */
const namePattern = /^[A-Za-z0-9_-]{1,64}$/;
const subjectPattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){0,15}$/;

function named(env: Config['env'], name: string, fallback: string, pattern: RegExp): string {
  const value = env[name] || fallback;
  if (!pattern.test(value)) throw new Error(`${name} must match ${pattern.source}`);
  return value;
}

/** The settings when REPLICATION=jetstream, null when replication is off; throws on a bad value. */
export function replicationSettings(config: Config): ReplicationSettings | null {
  const env = config.env;
  const mode = env['REPLICATION'] ?? '';
  if (mode === '' || mode === 'off') return null;
  if (mode !== 'jetstream') throw new Error('REPLICATION must be jetstream or off (unset)');
  const ack = env['REPLICATION_ACK'] || replicationDefaults.ack;
  if (ack !== 'jetstream' && ack !== 'local') throw new Error('REPLICATION_ACK must be jetstream or local');
  const leaseTtlMs = integer(env, 'REPLICATION_LEASE_TTL_MS', replicationDefaults.leaseTtlMs, 500, 60_000);
  const leaseRenewMs = integer(env, 'REPLICATION_LEASE_RENEW_MS', Math.floor(leaseTtlMs / 3), 50, 60_000);
  if (leaseRenewMs * 2 > leaseTtlMs) throw new Error('REPLICATION_LEASE_RENEW_MS must be at most half of REPLICATION_LEASE_TTL_MS');
  const natsUrl = env['NATS_URL'] || 'nats://127.0.0.1:4222';
  const advertiseUrl = env['REPLICATION_ADVERTISE_URL'] || `http://${config.host}:${config.port}`;
  return {
    natsUrl,
    stream: named(env, 'REPLICATION_STREAM', replicationDefaults.stream, namePattern),
    subject: named(env, 'REPLICATION_SUBJECT', replicationDefaults.subject, subjectPattern),
    leaseBucket: named(env, 'REPLICATION_LEASE_BUCKET', replicationDefaults.leaseBucket, namePattern),
    leaseKey: replicationDefaults.leaseKey,
    leaseTtlMs,
    leaseRenewMs,
    nodeId: named(env, 'REPLICATION_NODE_ID', `${hostname()}-${config.port}`.replace(/[^A-Za-z0-9_-]/g, '-'), namePattern),
    advertiseUrl,
    ack,
    replicas: integer(env, 'REPLICATION_REPLICAS', replicationDefaults.replicas, 1, 5),
    publishTimeoutMs: integer(env, 'REPLICATION_PUBLISH_TIMEOUT_MS', replicationDefaults.publishTimeoutMs, 100, 60_000),
  };
}

/** Stream settings of every server, and of stream edges in particular (README, "Replication (NATS JetStream)"). */
export interface EdgeSettings {
  /** Messages kept per exchange-stream topic for resuming by seq (0: no resume). */
  readonly resumeMessagesMax: number;
}

export function edgeSettings(config: Config): EdgeSettings {
  return { resumeMessagesMax: integer(config.env, 'WS_RESUME_MESSAGES', 256, 0, 65_536) };
}
