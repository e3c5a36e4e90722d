/**
 * GET /leader: which node leads and where clients reach it. Every node answers it: the embedded single
 * process (`replication: "off"`), the leader, and a standby (shell/cluster/standby-server.ts, with the same
 * body). A standby also gives its replayed seq and its engine's state hash, which equals the leader's at
 * the same seq; the leader gives no hash (its engine may be ahead of what is durable, which no route shows).
 */
import { Type, type Static } from '@sinclair/typebox';
import { declareRoute, type Route } from '../http/route-table.ts';
import type { ShellModule } from '../shell-module.ts';
import type { ShellContext } from '../context.ts';
import { opsTag } from '../ops/routes.ts';

export const leaderSchema = Type.Object(
  {
    replication: Type.Union([Type.Literal('off'), Type.Literal('jetstream')]),
    /** `single` without replication; a replicated node is `leader`, `standby`, `edge` (a stream edge), `fenced` (deposed) or `failed`. */
    role: Type.Union([Type.Literal('single'), Type.Literal('leader'), Type.Literal('standby'), Type.Literal('edge'), Type.Literal('fenced'), Type.Literal('failed')]),
    /** This node's id and advertised URL ('' without replication). */
    node: Type.String(),
    url: Type.String(),
    /** The last durable journal seq of this node. */
    seq: Type.Integer({ minimum: 0 }),
    /** A standby's engine state hash at `seq`; null on a leader or a single process. */
    state_hash: Type.Union([Type.String(), Type.Null()]),
    /** The JetStream sequence of the last journal batch this node applied or appended (null without replication). */
    stream_seq: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    /** The lease holder: where commands go (null while nobody holds the lease, and without replication). */
    leader: Type.Union([Type.Object({ node: Type.String(), url: Type.String() }, { additionalProperties: false }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type LeaderBody = Static<typeof leaderSchema>;

export function leaderBody(context: ShellContext): LeaderBody {
  const seq = context.durable.sequencer.durableSeq;
  const cluster = context.cluster;
  if (cluster === undefined) return { replication: 'off', role: 'single', node: '', url: '', seq, state_hash: null, stream_seq: null, leader: null };
  const role = cluster.role();
  const leader = cluster.leader();
  return {
    replication: 'jetstream',
    role: role === 'closed' ? 'fenced' : role,
    node: cluster.nodeId,
    url: cluster.url,
    seq,
    state_hash: null,
    stream_seq: cluster.streamSeq(),
    leader: leader === null ? null : { node: leader.nodeId, url: leader.url },
  };
}

function clusterRoutes(context: ShellContext): Route[] {
  return [
    declareRoute({
      method: 'GET',
      path: '/leader',
      name: 'get_leader',
      tags: [opsTag],
      auth: 'none',
      rateLimit: 'none',
      errors: ['METHOD_NOT_ALLOWED'],
      summary:
        'Which node leads (replication on NATS JetStream): this node role, seq and the lease holder URL. A standby answers every other route 503 NOT_LEADER with Retry-After and the leader URL',
      response: leaderSchema,
      handler: () => ({ body: leaderBody(context) }),
    }),
  ];
}

export const clusterModule: ShellModule = {
  name: 'cluster',
  create: (context) => ({ routes: clusterRoutes(context) }),
};
