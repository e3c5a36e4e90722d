/**
 * The MCP server's settings (README.md, settings table), read from the environment when the server starts
 * so that a bad value stops it before it listens.
 */
import { flag, integer, type SettingsEnv } from '../config.ts';

export interface McpSettings {
  /** Open sessions at most; an initialize beyond it is refused (503) until one ends or expires. */
  readonly sessionsMax: number;
  /** Open sessions at most from one client address (429 beyond), so that one client cannot hold them all. */
  readonly sessionsPerAddressMax: number;
  /** A session with no request for this long (and no open stream) is closed. */
  readonly sessionIdleMs: number;
  /**
   * Host names (no port) the Host header may name; '*' accepts any. The default accepts only loopback
   * names, which is what protects a local server from DNS rebinding: a public deployment lists its own
   * names here.
   */
  readonly allowedHosts: readonly string[];
  /**
   * Origins (scheme://host[:port]) a browser's Origin header may name; empty accepts the origins whose host
   * is an allowed host; '*' accepts any. Requests without an Origin (every non-browser client) pass.
   */
  readonly allowedOrigins: readonly string[];
  /** Adds the conformance suite's fixture resource (test://static-text); for `npm run conformance` only. */
  readonly conformanceFixtures: boolean;
}

/** Tools per tools/list page. */
export const toolsPageSize = 50;

function list(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

export function mcpSettings(env: SettingsEnv): McpSettings {
  return {
    sessionsMax: integer(env, 'MCP_SESSIONS_MAX', 1000, 1, 100_000),
    sessionsPerAddressMax: integer(env, 'MCP_SESSIONS_PER_ADDRESS', 32, 1, 100_000),
    sessionIdleMs: integer(env, 'MCP_SESSION_IDLE_MS', 1_800_000, 1000, 7 * 86_400_000),
    allowedHosts: list(env['MCP_ALLOWED_HOSTS'] ?? 'localhost,127.0.0.1,[::1]'),
    allowedOrigins: list(env['MCP_ALLOWED_ORIGINS'] ?? ''),
    conformanceFixtures: flag(env, 'MCP_CONFORMANCE_FIXTURES'),
  };
}
