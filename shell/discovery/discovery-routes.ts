/**
 * The discovery documents (README "Discovery documents"): GET /openapi-public.json, /asyncapi.json,
 * /llms.txt, /.well-known/agent-card.json and /.well-known/skills/default/SKILL.md, all generated from the
 * route table and the mounted streams but SKILL.md (docs/skills/default/SKILL.md, read at start).
 *
 * Each document is built on its first request, not when the routes are added, because this table is
 * added before others may be; by the first request the table is final. The documents with absolute URLs
 * depend on the base URL (PUBLIC_BASE_URL, or the request's Host): the last one built is kept per
 * document, so a server behind one name builds each once.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Reply, Route, RouteTable } from '../http/route-table.ts';
import type { SettingsEnv } from '../config.ts';
import { defaultTag, discoveryPaths, isPublic, openApiDocument, tagDescriptionOf, tagsOf } from './openapi.ts';
import { asyncApiDocument } from './asyncapi.ts';
import { agentCard, wireJson } from './agent-card.ts';
import { llmsText } from './llms.ts';
import { baseUrlOf, discoverySettings } from './settings.ts';

// Two folders below the project root, as the server bundle (dist/shell/server.mjs) is: the same relative URL finds it.
export const skillPath = fileURLToPath(new URL('../../docs/skills/default/SKILL.md', import.meta.url));

export const textType = 'text/plain; charset=utf-8';
export const markdownType = 'text/markdown; charset=utf-8';

export interface DiscoveryOptions {
  readonly env: SettingsEnv;
  /** The uWS patterns of every WebSocket stream the server mounts. */
  readonly streamPatterns: readonly string[];
}

/** A document kept for the last base URL it was built for. */
function perBase(build: (baseUrl: string) => string): (baseUrl: string) => string {
  let last: { baseUrl: string; text: string } | null = null;
  return (baseUrl) => {
    if (last?.baseUrl !== baseUrl) last = { baseUrl, text: build(baseUrl) };
    return last.text;
  };
}

const documentSchema = (required: string[]) => ({ type: 'object', required, properties: Object.fromEntries(required.map((name) => [name, {}])) });

export function discoveryRoutes(table: RouteTable, options: DiscoveryOptions): Route[] {
  const settings = discoverySettings(options.env);
  const skill = readFileSync(skillPath, 'utf8');
  const usedTags = (): string[] => [...new Set(table.routes.filter(isPublic).flatMap((route) => tagsOf(route)))];
  let openApiText: string | null = null;
  const asyncApi = perBase((baseUrl) => JSON.stringify(asyncApiDocument({ baseUrl, streamPatterns: options.streamPatterns })));
  const card = perBase((baseUrl) => JSON.stringify(wireJson(agentCard(baseUrl, usedTags(), (tag) => tagDescriptionOf(table, tag)))));
  const llms = perBase((baseUrl) => llmsText(table, baseUrl));
  const base = (request: { header(name: string): string }) => baseUrlOf(settings, request.header('host'));
  const json = (text: string): Reply => ({ text, contentType: 'application/json' });
  // Limited per client address like any anonymous read: the documents are large (the OpenAPI one is
  // some 300 KB), and unlimited they would make a cheap amplifier.
  const common = { method: 'GET', auth: 'none', rateLimit: 'general', tags: [defaultTag] } as const;
  return [
    {
      ...common,
      name: 'get_openapi_document',
      path: discoveryPaths.openapi,
      summary: 'The OpenAPI 3.1 document of every public route',
      response: documentSchema(['openapi', 'info', 'servers', 'paths', 'components']),
      handler: () => json((openApiText ??= JSON.stringify(openApiDocument(table, { serverUrl: settings.publicBaseUrl ?? '/' })))),
    },
    {
      ...common,
      name: 'get_asyncapi_document',
      path: discoveryPaths.asyncapi,
      summary: 'The AsyncAPI 3.0 document of every WebSocket stream: client frames, server messages and their fields, snapshot and seq rules',
      response: documentSchema(['asyncapi', 'info', 'servers', 'channels', 'operations']),
      handler: (request) => json(asyncApi(base(request))),
    },
    {
      ...common,
      name: 'get_agent_card',
      path: discoveryPaths.agentCard,
      summary: 'The A2A agent card: the service, its skills per domain, its security schemes and the MCP endpoint',
      response: documentSchema(['name', 'description', 'supportedInterfaces', 'version', 'capabilities', 'securitySchemes', 'defaultInputModes', 'defaultOutputModes', 'skills']),
      handler: (request) => json(card(base(request))),
    },
    {
      ...common,
      name: 'get_skill_md',
      path: discoveryPaths.skill,
      contentType: markdownType,
      summary: 'SKILL.md: how an agent gets credentials, places an order and reads books and streams, with tested examples',
      handler: () => ({ text: skill, contentType: markdownType }),
    },
    {
      ...common,
      name: 'get_llms_txt',
      path: discoveryPaths.llms,
      contentType: textType,
      summary: 'llms.txt: what the service is, links to the other discovery documents and one line per public route',
      handler: (request) => ({ text: llms(base(request)), contentType: textType }),
    },
  ];
}
