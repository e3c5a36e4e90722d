/**
 * Leadership as a lease in a JetStream key-value bucket whose entries expire after the lease TTL (the
 * bucket's max age). The holder's entry names its node and the URL clients reach it at. A node takes the
 * lease only by creating the key (which fails while someone holds it) and keeps it only by updating the
 * revision it wrote (compare-and-set): a holder that was replaced cannot renew.
 *
 * A holder counts its lease valid until a little before the TTL has passed since it sent its last
 * successful write (its own monotonic clock), so it stops writing before the server can let anyone else
 * take the lease; the expected-sequence check on the journal stream guards the rest.
 */
import type { KV } from '@nats-io/kv';

export interface LeaseHolder {
  readonly nodeId: string;
  readonly url: string;
  /** The lease entry's revision. */
  readonly revision: number;
}

export class Lease {
  private revision = 0;
  private validUntilMs = 0;
  private readonly value: string;

  constructor(
    private readonly bucket: KV,
    private readonly key: string,
    private readonly ttlMs: number,
    nodeId: string,
    url: string,
  ) {
    this.value = JSON.stringify({ node: nodeId, url });
  }

  /** Who holds the lease now, or null when nobody does (never taken, expired or released). */
  async holder(): Promise<LeaseHolder | null> {
    const entry = await this.bucket.get(this.key);
    if (entry === null || entry.operation !== 'PUT') return null;
    let parsed: { node?: unknown; url?: unknown };
    try {
      parsed = entry.json();
    } catch {
      return null;
    }
    return { nodeId: String(parsed.node ?? ''), url: String(parsed.url ?? ''), revision: entry.revision };
  }

  /** Takes the lease when nobody holds it; false when someone does. */
  async acquire(): Promise<boolean> {
    const sentAt = performance.now();
    try {
      this.revision = await this.bucket.create(this.key, this.value);
    } catch {
      return false;
    }
    this.validUntilMs = sentAt + this.safeMs();
    return true;
  }

  /** Renews the lease by its revision; false when it was taken over (or the write failed). */
  async renew(): Promise<boolean> {
    const sentAt = performance.now();
    try {
      this.revision = await this.bucket.update(this.key, this.value, this.revision);
    } catch {
      return false;
    }
    this.validUntilMs = sentAt + this.safeMs();
    return true;
  }

  /** The revision of this node's last write of the lease (0 when it holds none). */
  get heldRevision(): number {
    return this.revision;
  }

  /** Whether this node may still write as the leader (by its own clock). */
  get valid(): boolean {
    return this.revision !== 0 && performance.now() < this.validUntilMs;
  }

  /** Gives the lease up at once (a clean shutdown), only if it is still ours. */
  async release(): Promise<void> {
    if (this.revision === 0) return;
    const revision = this.revision;
    this.revision = 0;
    this.validUntilMs = 0;
    await this.bucket.delete(this.key, { previousSeq: revision }).catch(() => {});
  }

  /** The part of the TTL a holder trusts: a tenth (at least 100 ms) is left for clock rates and the write's own delay. */
  private safeMs(): number {
    return this.ttlMs - Math.max(100, Math.floor(this.ttlMs / 10));
  }
}
