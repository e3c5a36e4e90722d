/**
 * One node of a replicated engine: a durable engine whose journal follows the JetStream journal stream
 * while another node leads, and which leads itself once the lease is free.
 *
 * Open: connect, cut the local journal back to what the stream holds (reconcile.ts), recover the durable
 * engine (snapshot + journal), and start as a standby.
 *
 * Standby: an ordered consumer delivers the stream's batches from the one holding the node's next seq; each
 * frame is decoded and run through the node's own sequencer with the frame's own time, so the engine
 * applies it exactly as the leader did and the local journal gets the same frame bytes. A command the
 * engine refuses, or a gap in seqs, means the node no longer matches the stream: it stops (`failed`).
 * Every `pollMs` the node looks at the lease; when nobody holds it, the node catches up to the stream's
 * last message, takes the lease, and leads: its sequencer continues from the last replayed seq, and its
 * writer publishes with the expected stream sequence of that last message.
 *
 * Leader: renews the lease every `leaseRenewMs`. A renewal refused (someone else took the lease) or a
 * lease that ran out, and any failed publish, fence the node: its writer fails every batch, so the
 * sequencer stops taking commands, and `role` says `fenced`.
 */
import { stateHash } from '../../core/state-hash.ts';
import { FrameDecoder, FrameStatus, journalFormatVersion } from '../../journal/codec.ts';
import { DurableEngine, type DurableEngineOptions } from '../durable-engine.ts';
import { SequencerBusyError, type Outcome } from '../sequencer.ts';
import { Result } from '../../core/results.ts';
import { JournalStream, type StreamBatch } from './journal-stream.ts';
import { Lease, type LeaseHolder } from './lease.ts';
import { reconcileJournal } from './reconcile.ts';
import { ReplicatedWriter } from './replicated-writer.ts';
import type { ReplicationSettings } from './settings.ts';
import type { SegmentWriter } from '../../journal/segments.ts';

export type ReplicaRole = 'standby' | 'leader' | 'fenced' | 'failed' | 'closed';

export interface ReplicaNodeOptions {
  readonly settings: ReplicationSettings;
  /** The durable engine's options, without its clock and writer (the node supplies both). */
  readonly durable: Omit<DurableEngineOptions, 'clock' | 'wrapWriter'>;
  /** The wall clock the node stamps commands with when it leads (never behind the last replayed command). */
  readonly wallClock?: () => number;
  /** How often a standby looks at the lease (defaults to a fifth of the renewal interval, at most 200 ms). */
  readonly pollMs?: number;
  /**
   * When set, a node that takes the lease closes its durable engine (a snapshot at the last replayed seq)
   * instead of leading through it, and whoever awaited `becameLeader` opens the engine again with
   * `leaderWriter` as its writer: the server, which wires its read models to the engine it opens.
   */
  readonly handOver?: boolean;
  /**
   * When set, the node is a stream edge (shell/cluster/edge.ts): it never takes the lease, it applies each
   * stream message as one durable batch of its own (it waits for the message's commands to be durable
   * before it enqueues the next message's), so its durable batches are the leader's batches and its
   * `onDurable` consumers see the same batches the leader's saw; `afterMessage` is called after each.
   */
  readonly edge?: { beforeMessage(batch: StreamBatch): Promise<void>; afterMessage(batch: StreamBatch): void };
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Commands a standby lets queue in front of its journal before it waits for them to be durable. */
const followQueueMax = 4096;

export class ReplicaNode {
  role: ReplicaRole = 'standby';
  /** Why the node stopped (fenced or failed). */
  problem: Error | null = null;
  /** The lease holder last seen (null when none): whom a standby sends clients to. */
  leader: LeaseHolder | null = null;
  /** The JetStream sequence of the last batch this node has applied or appended. */
  appliedStreamSeq = 0;
  private lastTs = 0;
  private readonly lease: Lease;
  private follower: { stop(): void; done: Promise<void> } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private leading: Promise<void>;
  private resolveLeading!: () => void;
  private ticking = false;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;
  private readonly wallClock: () => number;

  private constructor(
    private readonly options: ReplicaNodeOptions,
    readonly stream: JournalStream,
    readonly durable: DurableEngine,
    private writer: ReplicatedWriter,
  ) {
    const settings = options.settings;
    this.log = options.log ?? (() => {});
    this.wallClock = options.wallClock ?? Date.now;
    this.lease = new Lease(stream.leaseBucket, settings.leaseKey, settings.leaseTtlMs, settings.nodeId, settings.advertiseUrl);
    this.leading = new Promise((resolve) => (this.resolveLeading = resolve));
  }

  static async open(options: ReplicaNodeOptions): Promise<ReplicaNode> {
    const log = options.log ?? (() => {});
    const stream = await JournalStream.open(options.settings);
    try {
      // An edge's journal holds only frames it read from the stream (it never appends its own), so there
      // is nothing to cut back.
      if (options.edge === undefined) await reconcileJournal(options.durable.dataDir, stream, log);
      let node: ReplicaNode | null = null;
      let writer: ReplicatedWriter | null = null;
      const durable = DurableEngine.open({
        ...options.durable,
        // The durable engine reads the clock once while it is made, before the node exists.
        clock: () => (node === null ? (options.wallClock ?? Date.now)() : node.clock()),
        wrapWriter: (local) => (writer = new ReplicatedWriter(local, options.settings.ack, (error) => node?.fence(error))),
      });
      // An edge's commands come only from the stream: whatever else in its process would make one is refused.
      if (options.edge !== undefined) durable.refuseCommands('a stream edge takes no commands: send them to the leader');
      node = new ReplicaNode(options, stream, durable, writer!);
      return node;
    } catch (error) {
      await stream.close();
      throw error;
    }
  }

  /** Starts following the stream and watching the lease; resolves once this node leads. */
  async start(): Promise<void> {
    const from = await this.stream.streamSeqOf(this.durable.sequencer.lastSeq + 1);
    this.appliedStreamSeq = from - 1;
    this.follower = this.stream.follow(from, (batch) => this.apply(batch));
    this.follower.done.catch((error: unknown) => this.stop('failed', error as Error));
    const pollMs = this.options.pollMs ?? Math.min(200, Math.max(20, Math.floor(this.options.settings.leaseRenewMs / 5)));
    this.timer = setInterval(() => void this.tick(), pollMs);
    void this.tick();
  }

  /** The time of the last command replayed or stamped: a leader's clock never goes behind it. */
  get lastCommandTs(): number {
    return this.lastTs;
  }

  /** The JetStream sequence of the last batch this node applied (standby) or appended (leader). */
  get streamSeq(): number {
    return this.role === 'leader' ? Math.max(this.appliedStreamSeq, this.writer.expectedStreamSeq) : this.appliedStreamSeq;
  }

  /** Resolves when this node becomes the leader. */
  get becameLeader(): Promise<void> {
    return this.leading;
  }

  /** The clock the sequencer stamps with: the replayed frame's own time, or the wall clock when leading. */
  private clock(): number {
    if (this.role === 'leader') this.lastTs = Math.max(this.lastTs, this.wallClock());
    return this.lastTs;
  }

  private async apply(batch: StreamBatch): Promise<void> {
    if (this.role !== 'standby') return;
    if (batch.formatVersion !== journalFormatVersion) {
      throw new Error(`journal stream message ${batch.streamSeq} is in journal format ${batch.formatVersion}; this build writes ${journalFormatVersion}`);
    }
    const sequencer = this.durable.sequencer;
    if (this.options.edge !== undefined) await this.options.edge.beforeMessage(batch);
    const decoder = new FrameDecoder(batch.frames, 0);
    for (let command = decoder.next(); command !== null; command = decoder.next()) {
      if (command.seq <= sequencer.lastSeq) continue;
      if (command.seq !== sequencer.lastSeq + 1) throw new Error(`journal stream message ${batch.streamSeq} holds seq ${command.seq}; this node expected ${sequencer.lastSeq + 1}`);
      for (;;) {
        this.lastTs = command.ts;
        let busy = false;
        sequencer.enqueue(command, (outcome) => {
          if (outcome.error instanceof SequencerBusyError) busy = true;
          else this.checkApplied(outcome, command.seq);
        });
        if (!busy) break;
        await sequencer.drain();
      }
    }
    if (decoder.status !== FrameStatus.ok) throw new Error(`journal stream message ${batch.streamSeq}: ${decoder.problem}`);
    this.appliedStreamSeq = batch.streamSeq;
    const edge = this.options.edge;
    if (edge !== undefined) {
      await sequencer.drain();
      if (this.role === 'standby') edge.afterMessage(batch);
      return;
    }
    if (sequencer.queueDepth > followQueueMax) await sequencer.drain();
  }

  private checkApplied(outcome: Outcome, seq: number): void {
    if (outcome.error !== null) return this.stop('failed', outcome.error);
    if (outcome.result !== Result.ok) this.stop('failed', new Error(`the engine refused replicated seq ${seq} (result ${outcome.result}): this node no longer matches the stream`));
  }

  /** Looks at the lease: a standby takes it when free; the leader renews it. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      if (this.role === 'standby' && this.options.edge !== undefined) this.leader = await this.lease.holder();
      else if (this.role === 'standby') await this.tryToLead();
      else if (this.role === 'leader') await this.renew();
    } catch (error) {
      this.log('replication_lease_error', { error: String(error) });
    } finally {
      this.ticking = false;
    }
  }

  private lastRenewMs = 0;
  private keeping: Promise<boolean> | null = null;

  private async renew(): Promise<void> {
    if (performance.now() - this.lastRenewMs < this.options.settings.leaseRenewMs && this.lease.valid) return;
    await this.keepLease();
  }

  /**
   * Renews the lease; when that is refused because the entry expired while this node was held up (a long
   * synchronous start, a pause), takes it again if nobody else did and the stream still ends where this
   * node left it. Anything else fences the node. One attempt at a time.
   */
  private keepLease(): Promise<boolean> {
    this.keeping ??= this.keepLeaseOnce().finally(() => (this.keeping = null));
    return this.keeping;
  }

  private async keepLeaseOnce(): Promise<boolean> {
    if (this.role !== 'leader') return false;
    const startedAt = performance.now();
    if (await this.lease.renew()) {
      this.lastRenewMs = startedAt;
      return true;
    }
    let holder: LeaseHolder | null;
    try {
      holder = await this.lease.holder();
    } catch (error) {
      if (this.lease.valid) return true;
      this.fence(new Error(`the leadership lease could not be renewed: ${String(error)}`));
      return false;
    }
    if (holder !== null && holder.nodeId === this.options.settings.nodeId && holder.revision === this.lease.heldRevision) {
      // The entry is still this node's own write: the renewal failed on the way (a timeout), not on the
      // revision. Keep leading while the lease lasts; the next tick tries again.
      return this.lease.valid;
    }
    if (holder !== null) {
      this.fence(new Error(`the leadership lease is held by ${holder.nodeId} (revision ${holder.revision})`));
      return false;
    }
    if (!(await this.lease.acquire())) {
      this.fence(new Error('the leadership lease ran out and another node took it'));
      return false;
    }
    const tail = await this.stream.tail();
    if (tail !== this.writer.expectedStreamSeq) {
      this.fence(new Error(`the leadership lease ran out and the journal stream moved to ${tail} meanwhile`));
      return false;
    }
    this.lastRenewMs = startedAt;
    this.log('replication_lease_taken_back', { node: this.options.settings.nodeId, stream_seq: tail });
    return true;
  }

  private async tryToLead(): Promise<void> {
    this.leader = await this.lease.holder();
    if (this.leader !== null) return;
    // Nobody holds the lease: everything the last leader appended must be applied before this node appends.
    const tail = await this.stream.tail();
    if (this.appliedStreamSeq < tail) return;
    await this.durable.sequencer.drain();
    if (this.role !== 'standby') return;
    if (!(await this.lease.acquire())) return;
    if ((await this.stream.tail()) !== this.appliedStreamSeq || this.role !== 'standby') {
      // Someone appended after all (or this node stopped): give the lease back and follow on.
      await this.lease.release();
      return;
    }
    this.follower?.stop();
    this.follower = null;
    this.lastRenewMs = performance.now();
    if (this.options.handOver === true) {
      await this.durable.close();
      this.durableClosed = true;
    } else this.writer.lead(this.stream, this.lease, this.appliedStreamSeq, () => this.keepLease());
    this.role = 'leader';
    this.leader = { nodeId: this.options.settings.nodeId, url: this.options.settings.advertiseUrl, revision: 0 };
    this.log('replication_leading', { node: this.options.settings.nodeId, seq: this.durable.sequencer.lastSeq, stream_seq: this.appliedStreamSeq });
    this.resolveLeading();
  }

  private durableClosed = false;

  /**
   * The writer of the durable engine a handed-over leader opens again: publishing from the stream
   * sequence this node caught up to. Only once, after `becameLeader`.
   */
  leaderWriter(local: SegmentWriter): ReplicatedWriter {
    if (this.role !== 'leader' || !this.durableClosed) throw new Error('leaderWriter: this node has not taken the lease in hand-over mode');
    this.writer = new ReplicatedWriter(local, this.options.settings.ack, (error) => this.fence(error));
    this.writer.lead(this.stream, this.lease, this.appliedStreamSeq, () => this.keepLease());
    return this.writer;
  }

  /** This node may no longer append: commands are refused from now on. */
  fence(error: Error): void {
    if (this.role === 'fenced' || this.role === 'closed') return;
    this.writer.fail(error);
    this.stop('fenced', error);
  }

  private stop(role: 'fenced' | 'failed', error: Error): void {
    if (this.role === 'fenced' || this.role === 'failed' || this.role === 'closed') return;
    this.role = role;
    this.problem = error;
    this.follower?.stop();
    this.log(role === 'fenced' ? 'replication_fenced' : 'replication_failed', { node: this.options.settings.nodeId, error: error.message, seq: this.durable.sequencer.durableSeq });
  }

  /** The last seq the engine applied and its state hash there (a standby's equals the leader's at the same seq). */
  status(): { role: ReplicaRole; seq: number; stateHash: string; streamSeq: number; leader: LeaseHolder | null } {
    return { role: this.role, seq: this.durable.sequencer.lastSeq, stateHash: stateHash(this.durable.engine), streamSeq: this.streamSeq, leader: this.leader };
  }

  /**
   * Stops following and leading; a leader's last batches are made durable first and its lease given up.
   * A handed-over leader's engine is closed by whoever opened it, before this.
   */
  async close(): Promise<void> {
    const wasLeader = this.role === 'leader';
    if (this.timer !== null) clearInterval(this.timer);
    this.follower?.stop();
    try {
      if (!this.durableClosed) await this.durable.close();
      await this.writer.settle();
    } finally {
      this.role = 'closed';
      if (wasLeader) await this.lease.release();
      await this.stream.close();
    }
  }
}
