/**
 * The replicated journal's place in NATS JetStream: one stream whose messages are journal batches (the
 * same frame bytes as on disk) and one key-value bucket holding the leadership lease.
 *
 * A message's payload is a batch's frames; its headers carry the batch's first and last journal seq and
 * the journal format version its frames are written in. Appends use JetStream's expected-last-sequence
 * check (`Nats-Expected-Last-Sequence`): a publisher names the stream sequence it believes is the tail,
 * and the server refuses the message when anything else was appended since. Whoever does not hold the
 * tail cannot append: a deposed leader fails its next publish.
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, JetStreamApiError, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { frameHeaderBytes, journalFormatVersion } from '../../journal/codec.ts';
import type { ReplicationSettings } from './settings.ts';

export const firstSeqHeader = 'Journal-First-Seq';
export const lastSeqHeader = 'Journal-Last-Seq';
export const formatHeader = 'Journal-Format';
/**
 * The leading process's epoch: a random id per JournalStream (per process), the same on every batch that
 * process appends. A stream edge sees a new leader begin where it changes (shell/cluster/edge.ts).
 */
export const epochHeader = 'Journal-Epoch';
/** The lease bucket's key where the leader puts its stream positions (shell/cluster/edge.ts). */
export const positionsKey = 'positions';
/** JetStream's error code for a refused expected-last-sequence check. */
const wrongLastSequenceCode = 10071;

/** A publish refused because someone else appended to the stream: this process no longer holds its tail. */
export class FencedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FencedError';
  }
}

/** One batch read back from the stream. */
export interface StreamBatch {
  /** The JetStream sequence of the message. */
  readonly streamSeq: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly formatVersion: number;
  /** The epoch of the process that appended it ('' for a batch without one). */
  readonly epoch: string;
  readonly frames: Uint8Array;
}

/** Frames in a batch's bytes, by their length prefixes (the last seq of a batch is first + count - 1). */
export function countFrames(bytes: Uint8Array): number {
  let count = 0;
  let at = 0;
  while (at + frameHeaderBytes <= bytes.length) {
    const length = (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
    at += frameHeaderBytes + length;
    count++;
  }
  return count;
}

function batchOf(streamSeq: number, header: { get(name: string): string } | undefined, data: Uint8Array): StreamBatch {
  const firstSeq = Number(header?.get(firstSeqHeader) ?? '');
  const lastSeq = Number(header?.get(lastSeqHeader) ?? '');
  const formatVersion = Number(header?.get(formatHeader) ?? '');
  if (!Number.isSafeInteger(firstSeq) || !Number.isSafeInteger(lastSeq) || firstSeq < 1 || lastSeq < firstSeq || !Number.isSafeInteger(formatVersion)) {
    throw new Error(`journal stream message ${streamSeq} has no valid ${firstSeqHeader}/${lastSeqHeader}/${formatHeader} headers`);
  }
  return { streamSeq, firstSeq, lastSeq, formatVersion, epoch: header?.get(epochHeader) ?? '', frames: data };
}

export class JournalStream {
  /** This process's epoch, on every batch it appends. */
  readonly epoch = randomUUID();

  private constructor(
    readonly settings: ReplicationSettings,
    readonly connection: NatsConnection,
    private readonly manager: JetStreamManager,
    private readonly client: JetStreamClient,
    readonly leaseBucket: KV,
  ) {}

  /** Connects and makes the stream and the lease bucket when they do not exist yet (an existing one is used as it is). */
  static async open(settings: ReplicationSettings): Promise<JournalStream> {
    const connection = await connect({ servers: settings.natsUrl, name: settings.nodeId, maxReconnectAttempts: -1 });
    const manager = await jetstreamManager(connection);
    try {
      await manager.streams.info(settings.stream);
    } catch (error) {
      if (!(error instanceof JetStreamApiError)) throw error;
      await manager.streams.add({
        name: settings.stream,
        subjects: [settings.subject],
        storage: 'file',
        num_replicas: settings.replicas,
      });
    }
    const leaseBucket = await new Kvm(connection).create(settings.leaseBucket, { ttl: settings.leaseTtlMs, history: 1, replicas: settings.replicas, storage: 'file' });
    return new JournalStream(settings, connection, manager, jetstream(connection), leaseBucket);
  }

  /** The largest message the server takes (a batch larger than this goes as several messages). */
  get maxPayload(): number {
    return this.connection.info?.max_payload ?? 1024 * 1024;
  }

  /** The stream's last JetStream sequence (0 when empty). */
  async tail(): Promise<number> {
    const info = await this.manager.streams.info(this.settings.stream);
    return info.state.last_seq;
  }

  /** The stream's first JetStream sequence still held (retention may have dropped older ones). */
  async head(): Promise<number> {
    const info = await this.manager.streams.info(this.settings.stream);
    return info.state.messages === 0 ? info.state.last_seq + 1 : info.state.first_seq;
  }

  /** The batch stored at a JetStream sequence, or null when there is none. */
  async batchAt(streamSeq: number): Promise<StreamBatch | null> {
    let message: StoredMsg | null;
    try {
      message = await this.manager.streams.getMessage(this.settings.stream, { seq: streamSeq });
    } catch (error) {
      if (error instanceof JetStreamApiError) return null;
      throw error;
    }
    if (message === null) return null;
    return batchOf(message.seq, message.header, message.data);
  }

  /**
   * The JetStream sequence of the batch holding journal seq `seq`, or `tail + 1` when the stream ends
   * before it: a binary search over the stream by the batches' seq headers.
   */
  async streamSeqOf(seq: number): Promise<number> {
    let low = await this.head();
    let high = await this.tail();
    let found = high + 1;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const batch = await this.batchAt(middle);
      if (batch === null) throw new Error(`journal stream message ${middle} is missing inside the stream`);
      if (batch.lastSeq >= seq) {
        found = middle;
        high = middle - 1;
      } else low = middle + 1;
    }
    return found;
  }

  /**
   * Appends a batch, but only when the stream's tail is still `expectedStreamSeq`; resolves with the
   * message's JetStream sequence. A refusal of that check is a FencedError.
   */
  async publish(frames: Uint8Array, firstSeq: number, lastSeq: number, expectedStreamSeq: number): Promise<number> {
    const header = headers();
    header.set(firstSeqHeader, String(firstSeq));
    header.set(lastSeqHeader, String(lastSeq));
    header.set(formatHeader, String(journalFormatVersion));
    header.set(epochHeader, this.epoch);
    try {
      const ack = await this.client.publish(this.settings.subject, frames, { headers: header, expect: { lastSequence: expectedStreamSeq }, timeout: this.settings.publishTimeoutMs });
      return ack.seq;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === wrongLastSequenceCode) {
        throw new FencedError(`the journal stream moved past ${expectedStreamSeq}: another node appended (${error.message})`);
      }
      throw error;
    }
  }

  /**
   * Delivers every batch from JetStream sequence `fromStreamSeq` on, in order, as it arrives (an ordered
   * consumer: no state on the server, restarted by the client on a gap). `onBatch` is awaited before the
   * next. Resolves when `stop` is called.
   */
  follow(fromStreamSeq: number, onBatch: (batch: StreamBatch) => Promise<void>): { stop(): void; done: Promise<void> } {
    let stopped = false;
    let stopIterator: (() => void) | null = null;
    const done = (async () => {
      const consumer = await this.client.consumers.get(this.settings.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(1, fromStreamSeq) });
      if (stopped) return;
      const messages = await consumer.consume({ max_messages: 64 });
      stopIterator = () => void messages.stop();
      try {
        for await (const message of messages) {
          await onBatch(batchOf(message.seq, message.headers, message.data));
          if (stopped) break;
        }
      } finally {
        // A batch that could not be applied ends the following too: nothing more is fetched.
        void messages.stop();
      }
    })();
    return {
      stop: () => {
        stopped = true;
        stopIterator?.();
      },
      done,
    };
  }

  /**
   * Puts the leader's stream positions (JSON) beside its lease: the entry lives as long as the lease's
   * max age unless renewed, so a dead leader's positions vanish with its lease.
   */
  async putPositions(json: string): Promise<void> {
    await this.leaseBucket.put(positionsKey, json);
  }

  /** The leader's last stream positions (JSON), or null when there are none. */
  async positions(): Promise<string | null> {
    const entry = await this.leaseBucket.get(positionsKey);
    return entry === null || entry.operation !== 'PUT' ? null : entry.string();
  }

  async close(): Promise<void> {
    await this.connection.drain();
  }
}
