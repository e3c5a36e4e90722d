/**
 * The A2A agent card (GET /.well-known/agent-card.json): who the service is, the MCP endpoint agents use,
 * its credentials and one skill per domain. Typed with the A2A SDK's `AgentCard` (a type-only import: the
 * server bundle does not need the SDK), whose 1.0 shape puts the endpoint URL and protocol version on each
 * of `supportedInterfaces` rather than on the card. The card is served in the A2A JSON form, which
 * `wireJson` makes from the typed card the way the SDK's own `AgentCard.toJSON` does (security schemes
 * keyed by their kind, empty strings and lists left out); the discovery test checks the two agree.
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { discoveryPaths, serviceSummary, serviceTitle, tagDescriptions } from './openapi.ts';

/** The platform capability document's version (API specification), not the API's. */
export const agentCardVersion = '1.0.0';
/** The A2A protocol version whose card shape this is. */
export const a2aProtocolVersion = '1.0';

/** One skill per domain (the OpenAPI tags), with its description. */
function skills(tags: readonly string[], describe: (tag: string) => string | undefined): AgentSkill[] {
  return tags.map((tag) => ({
    id: tag.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
    name: tag,
    description: describe(tag) ?? tag,
    tags: [tag],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
}

/** `describe` gives a tag's description (default: the shared list's; the server passes the modules' too). */
export function agentCard(baseUrl: string, tags: readonly string[], describe: (tag: string) => string | undefined = (tag) => tagDescriptions[tag]): AgentCard {
  const url = (path: string) => `${baseUrl}${path}`;
  return {
    name: serviceTitle,
    description: `${serviceSummary} Agents connect over MCP (Streamable HTTP) at ${url(discoveryPaths.mcp)} or call the REST API described at ${url(discoveryPaths.openapi)}.`,
    supportedInterfaces: [{ url: url(discoveryPaths.mcp), protocolBinding: 'MCP', tenant: '', protocolVersion: a2aProtocolVersion }],
    provider: { url: baseUrl, organization: serviceTitle },
    version: agentCardVersion,
    documentationUrl: url(discoveryPaths.llms),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      apiKey: {
        scheme: {
          $case: 'apiKeySecurityScheme',
          value: { description: 'A user API key or an agent key from POST /mcp/v1/register', location: 'header', name: 'X-API-Key' },
        },
      },
      bearer: {
        scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'An access token from POST /auth/login', scheme: 'Bearer', bearerFormat: 'JWT' } },
      },
    },
    securityRequirements: [{ schemes: { apiKey: { list: [] } } }, { schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: skills(tags, describe),
    signatures: [],
  };
}

/** The value in the A2A JSON form: empty strings and lists left out, a security scheme as {kind: value}. */
function wire(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value.map((item) => wire(item, ''));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
    if (child === '' || child === undefined || (Array.isArray(child) && child.length === 0)) continue;
    if (key === 'securitySchemes') {
      const scheme = (child as { scheme?: { $case: string; value: unknown } }).scheme;
      out[name] = scheme === undefined ? {} : { [scheme.$case]: wire(scheme.value, '') };
    } else {
      out[name] = wire(child, name);
    }
  }
  return out;
}

export function wireJson(card: AgentCard): Record<string, unknown> {
  return wire(card, '') as Record<string, unknown>;
}
