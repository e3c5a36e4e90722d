/**
 * Agent self-registration (API specification: POST /mcp/v1/register). An AI agent gets an account of its own and an
 * `mcp_` key with read and trade permissions, limited to its registered rate. Registration needs no
 * credential, so the number of agents is capped and every field is bounded.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from './errors.ts';
import type { Route } from './route-table.ts';
import type { ShellContext } from '../context.ts';
import { hashPassword } from '../auth/passwords.ts';
import { Type } from '@sinclair/typebox';
import { closed, userIdField } from './schemas.ts';

/** Requests per minute an agent key gets at registration (the API specification's example). */
export const agentRequestsPerMinute = 60;
export const agentsMax = 100_000;
const trustLevel = 'recognized';

/** The agent registration record of the API specification. */
const registrationSchema = closed({
  agent_id: Type.String({ format: 'uuid', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: "the agent's id" }),
  user_id: userIdField,
  api_key: Type.String({ pattern: '^mcp_', description: 'the agent key (mcp_…), shown only now' }),
  api_secret: Type.String({ description: 'its secret, shown only now' }),
  trust_level: Type.Literal(trustLevel),
  rate_limits: closed({ requests_per_minute: Type.Integer({ minimum: 1, description: 'in each rate-limit class' }) }),
  onboarding_url: Type.String({ description: 'where an agent starts reading (llms.txt)' }),
});

export function agentRoutes(context: ShellContext): Route[] {
  const { db, keys } = context.identity;
  const countAgents = db.prepare('SELECT COUNT(*) AS count FROM agents');
  const insertUser = db.prepare('INSERT INTO users (email, username, password_hash, created_at) VALUES (?, ?, ?, ?)');
  const insertAgent = db.prepare(
    'INSERT INTO agents (id, user_id, api_key_id, name, contact_email, intended_use, description, capabilities, role, trust_level, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
  return [
    {
      method: 'POST',
      name: 'register_agent',
      path: '/mcp/v1/register',
      auth: 'none',
      rateLimit: 'credentials',
      tags: ['Agents'],
      status: 201,
      errors: ['REGISTRATION_CLOSED'],
      summary: 'Register an AI agent: an account and an mcp_ API key limited to its registered rate',
      response: registrationSchema,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'contact_email', 'intended_use'],
        properties: {
          name: text(100),
          contact_email: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' },
          intended_use: text(1000),
          description: { type: 'string', maxLength: 2000 },
          capabilities: { type: 'array', maxItems: 32, items: text(64) },
          role: text(64),
        },
      },
      handler: async (request) => {
        const body = request.body as { name: string; contact_email: string; intended_use: string; description?: string; capabilities?: string[]; role?: string };
        if ((countAgents.get() as { count: number }).count >= agentsMax) throw new ApiError(503, 'REGISTRATION_CLOSED', 'agent registration is at capacity');
        const agentId = randomUUID();
        // The agent's own account: no password anyone knows, so it can only be reached through its key.
        const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
        const createdAt = new Date(context.clock()).toISOString();
        const registered = db.transaction(() => {
          const userId = Number(insertUser.run(`agent+${agentId}@agents.invalid`, `agent_${agentId}`, passwordHash, createdAt).lastInsertRowid);
          const key = keys.create(userId, `agent ${body.name}`, ['read', 'trade'], 'STANDARD', { requestsPerMinute: agentRequestsPerMinute });
          insertAgent.run(
            agentId,
            userId,
            key.record.id,
            body.name,
            body.contact_email,
            body.intended_use,
            body.description ?? '',
            JSON.stringify(body.capabilities ?? []),
            body.role ?? 'trader',
            trustLevel,
            createdAt,
          );
          return { userId, key };
        })();
        const host = request.header('host') || `${context.config.host}:${context.config.port}`;
        return {
          status: 201,
          body: {
            agent_id: agentId,
            user_id: registered.userId,
            api_key: registered.key.apiKey,
            api_secret: registered.key.apiSecret,
            trust_level: trustLevel,
            rate_limits: { requests_per_minute: agentRequestsPerMinute },
            onboarding_url: `http://${host}/llms.txt`,
          },
        };
      },
    },
  ];
}
