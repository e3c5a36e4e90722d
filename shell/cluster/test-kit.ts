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
