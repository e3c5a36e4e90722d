/**
 * The journal writer of a replicated node: the local SegmentWriter, and, while the node leads, JetStream.
 *
 * Following, a batch goes to the local journal only (its frames came from the stream). Leading, a batch
 * is written locally and published at the same time, with the stream sequence this node last appended as
 * the expected tail; with acknowledgement `jetstream` the sequencer hears of the batch once both are
 * done, with `local` once the local write is (the publish continues behind it, in order). A batch larger
 * than the server's message limit goes as several messages, split at frames.
 *
 * Any publish failure (a refused expected sequence: another node appended; a timeout; a lost lease) is
 * final: the writer fails this and every later batch, the sequencer stops taking commands, and the node
 * is told through `onFailure`.
 */
import type { SegmentWriter } from '../../journal/segments.ts';
import { frameHeaderBytes } from '../../journal/codec.ts';
import type { JournalWriter } from '../sequencer.ts';
import { FencedError, type JournalStream } from './journal-stream.ts';
import type { Lease } from './lease.ts';

/** Room left in a message for its headers and protocol line. */
const messageSlackBytes = 4096;

export class ReplicatedWriter implements JournalWriter {
  private leading: { readonly stream: JournalStream; readonly lease: Lease; readonly keepLease: () => Promise<boolean> } | null = null;
  /** The stream sequence of this node's last appended message: the tail its next publish expects. */
  expectedStreamSeq = 0;
  private failure: Error | null = null;
  /** Publishes still running behind local acknowledgements (`local` mode), chained in order. */
  private behind: Promise<void> = Promise.resolve();

  constructor(
    private readonly local: SegmentWriter,
    private readonly ack: 'jetstream' | 'local',
    private readonly onFailure: (error: Error) => void,
  ) {}

  /**
   * From now on batches are published too, the first one expecting the stream to end at `streamSeq`.
   * `keepLease` is asked when a batch finds the lease run out by this node's clock (the event loop was
   * held up past the renewal): it renews or takes the lease back when nobody else took it, or says no.
   */
  lead(stream: JournalStream, lease: Lease, streamSeq: number, keepLease: () => Promise<boolean>): void {
    this.leading = { stream, lease, keepLease };
    this.expectedStreamSeq = streamSeq;
  }

  get failed(): Error | null {
    return this.failure;
  }

  /** Fails every batch from now on (a lost lease): the sequencer stops at its next one. */
  fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    this.onFailure(error);
  }

  append(bytes: Uint8Array, firstSeq: number, done: (error: Error | null) => void): void {
    if (this.failure !== null) return done(this.failure);
    const leading = this.leading;
    if (leading === null) return this.local.append(bytes, firstSeq, done);
    if (leading.lease.valid) return this.appendLeading(leading.stream, bytes, firstSeq, done);
    leading.keepLease().then(
      (kept) => {
        if (kept && this.failure === null) return this.appendLeading(leading.stream, bytes, firstSeq, done);
        this.fail(new FencedError('the leadership lease is no longer held'));
        done(this.failure);
      },
      (error: unknown) => {
        this.fail(error as Error);
        done(this.failure);
      },
    );
  }

  private appendLeading(stream: JournalStream, bytes: Uint8Array, firstSeq: number, done: (error: Error | null) => void): void {
    if (this.ack === 'local') {
      // The sequencer reuses the bytes once answered: the publish behind it needs its own copy.
      const copy = Uint8Array.from(bytes);
      this.behind = this.behind.then(() => (this.failure === null ? this.publish(stream, copy, firstSeq) : undefined)).catch((error: unknown) => this.fail(error as Error));
      return this.local.append(bytes, firstSeq, done);
    }
    let pending = 2;
    let firstError: Error | null = null;
    const finish = (error: Error | null): void => {
      if (error !== null && firstError === null) firstError = error;
      if (--pending === 0) done(firstError);
    };
    this.local.append(bytes, firstSeq, finish);
    this.publish(stream, bytes, firstSeq).then(
      () => finish(null),
      (error: unknown) => {
        this.fail(error as Error);
        finish(error as Error);
      },
    );
  }

  /** Publishes a batch as one message, or several split at frames when it exceeds the server's limit. */
  private async publish(stream: JournalStream, bytes: Uint8Array, firstSeq: number): Promise<void> {
    const limit = Math.max(frameHeaderBytes + 1, stream.maxPayload - messageSlackBytes);
    let start = 0;
    let seq = firstSeq;
    while (start < bytes.length) {
      let end = start;
      let frames = 0;
      while (end < bytes.length) {
        const length = (bytes[end]! | (bytes[end + 1]! << 8) | (bytes[end + 2]! << 16) | (bytes[end + 3]! << 24)) >>> 0;
        const next = end + frameHeaderBytes + length;
        if (frames > 0 && next - start > limit) break;
        end = next;
        frames++;
      }
      const streamSeq = await stream.publish(bytes.subarray(start, end), seq, seq + frames - 1, this.expectedStreamSeq);
      if (streamSeq !== this.expectedStreamSeq + 1) throw new FencedError(`the journal stream stored batch ${seq} at ${streamSeq}, not ${this.expectedStreamSeq + 1}`);
      this.expectedStreamSeq = streamSeq;
      seq += frames;
      start = end;
    }
  }

  /** Waits for publishes still running behind local acknowledgements. */
  async settle(): Promise<void> {
    await this.behind;
  }
}
