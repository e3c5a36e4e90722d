/**
 * What a replicated node and the server it leads through tell each other: a leaf file, so that the
 * server, its context and the cluster's files import it and not each other.
 */
import type { SegmentWriter } from '../../engine/journal/segments.ts';
import type { JournalWriter } from '../../engine/runtime/sequencer.ts';

/** What a replicated node tells the routes about itself (ShellContext.cluster). */
export interface ClusterView {
  readonly nodeId: string;
  readonly url: string;
  role(): 'leader' | 'standby' | 'fenced' | 'failed' | 'closed';
  leader(): { readonly nodeId: string; readonly url: string } | null;
  streamSeq(): number;
}

/** What a replicated node that took the lease gives the server it starts. */
export interface ServerReplication {
  /** The journal writer that also publishes to the journal stream. */
  readonly wrapWriter: (local: SegmentWriter) => JournalWriter;
  readonly view: ClusterView;
}

/** How the node starts the whole server once it leads (shell/server.ts passes its startServer). */
export type StartLeader = (replication: ServerReplication, clock: () => number) => Promise<{ readonly port: number; close(): Promise<void> }>;
