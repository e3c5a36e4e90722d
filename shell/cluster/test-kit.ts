/** What the cluster tests share: reading a node's GET /leader. */
import type { LeaderBody } from './routes.ts';

/** A node's GET /leader, or null while it does not answer (starting, killed). */
export async function leaderOf(port: number): Promise<LeaderBody | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/leader`);
    return response.status === 200 ? ((await response.json()) as LeaderBody) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a GET /leader answer comes from a leader's whole server. A node that has just taken the lease
 * still answers from its standby server (with its state hash) until it hands over to the whole server on
 * the same port; a request sent in that window is refused, so tests wait for the server's own answer,
 * which carries no state hash.
 */
export function servesAsLeader(body: LeaderBody | null): boolean {
  return body !== null && body.role === 'leader' && body.state_hash === null;
}
