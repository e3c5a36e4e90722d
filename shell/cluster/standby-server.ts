/**
 * What a standby serves until it leads: GET /leader (the same body as the leader's route, with this node's
 * replayed seq and state hash) and GET /health; every other request is answered 503 NOT_LEADER with
 * `Retry-After: 1`, the leader's URL in `X-Leader-Url` (when a leader holds the lease) and in the body, so a
 * client can go there. A standby has no read models: it serves no data, only where the data is.
 */
import uWS from 'uWebSockets.js';
import type { ReplicaNode } from '../../engine/runtime/replication/replica-node.ts';
import type { LeaderBody } from './routes.ts';

export function standbyBody(node: ReplicaNode, nodeId: string, url: string): LeaderBody {
  const status = node.status();
  return {
    replication: 'jetstream',
    role: status.role === 'closed' ? 'fenced' : status.role,
    node: nodeId,
    url,
    seq: status.seq,
    state_hash: status.stateHash,
    stream_seq: status.streamSeq,
    leader: status.leader === null ? null : { node: status.leader.nodeId, url: status.leader.url },
  };
}

export interface StandbyServer {
  readonly port: number;
  close(): void;
}

export async function startStandbyServer(host: string, port: number, node: ReplicaNode, nodeId: string, url: string): Promise<StandbyServer> {
  const json = (res: uWS.HttpResponse, status: string, body: unknown, headers: Record<string, string> = {}): void => {
    res.cork(() => {
      res.writeStatus(status);
      res.writeHeader('Content-Type', 'application/json');
      for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
      // Each answer closes its connection: a kept-alive connection would outlive the listening socket
      // once this node leads, and keep reaching these answers instead of the server's.
      res.end(JSON.stringify(body), true);
    });
  };
  const app = uWS.App();
  app.get('/leader', (res) => json(res, '200 OK', standbyBody(node, nodeId, url)));
  app.get('/health', (res) => json(res, '200 OK', { status: 'ok' }));
  app.any('/*', (res) => {
    const leader = node.leader;
    const where = leader === null ? 'no node holds the lease yet' : `the leader is ${leader.nodeId} at ${leader.url}`;
    const headers: Record<string, string> = { 'Retry-After': '1' };
    if (leader !== null) headers['X-Leader-Url'] = leader.url;
    json(res, '503 Service Unavailable', { error: { code: 'NOT_LEADER', message: `this node is a standby: ${where}` }, leader: leader === null ? null : { node: leader.nodeId, url: leader.url } }, headers);
  });
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(host, port, (listen) => (listen === false ? reject(new Error(`cannot listen on ${host}:${port}`)) : resolve(listen)));
  });
  let open = true;
  return {
    port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket),
    close: () => {
      // Once: the node closes it when it starts leading, and again when it stops.
      if (open) uWS.us_listen_socket_close(socket);
      open = false;
    },
  };
}
