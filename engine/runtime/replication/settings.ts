/**
 * Settings of the replicated journal (README, "Replication (NATS JetStream)"); the shell reads them from
 * the environment (shell/cluster/settings.ts), the failover test's children from their arguments.
 */
export interface ReplicationSettings {
  /** `nats://host:port` of a NATS server or cluster with JetStream. */
  readonly natsUrl: string;
  /** The JetStream stream holding the journal batches, and the subject they are published on. */
  readonly stream: string;
  readonly subject: string;
  /** The key-value bucket holding the lease, and the lease's key in it. */
  readonly leaseBucket: string;
  readonly leaseKey: string;
  /** How long a lease lives without renewal (the bucket's max age): a dead leader is replaced after about this. */
  readonly leaseTtlMs: number;
  /** How often the leader renews its lease, and how often a standby looks whether it has expired. */
  readonly leaseRenewMs: number;
  /** This node's name in the lease, and the URL clients reach it at when it leads. */
  readonly nodeId: string;
  readonly advertiseUrl: string;
  /**
   * `jetstream`: a batch is acknowledged once it is on the local disk and in JetStream; `local`: once it
   * is on the local disk (a failover can then lose the batches JetStream had not stored).
   */
  readonly ack: 'jetstream' | 'local';
  /** Replicas of the stream and the bucket when this node creates them (1 for a single server). */
  readonly replicas: number;
  /** How long a publish waits for JetStream's acknowledgement before the journal counts as failed. */
  readonly publishTimeoutMs: number;
}

export const replicationDefaults = {
  stream: 'JOURNAL',
  subject: 'journal.batches',
  leaseBucket: 'journal-lease',
  leaseKey: 'leader',
  leaseTtlMs: 3000,
  ack: 'jetstream',
  replicas: 1,
  publishTimeoutMs: 5000,
} as const;
