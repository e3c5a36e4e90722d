/**
 * llms.txt (the llms.txt format): an H1 title, a blockquote summary, how to authenticate, a section
 * linking the other discovery documents and the MCP endpoint, then one section per tag with one line per
 * public route. Served as text/plain; charset=utf-8.
 */
import type { RouteTable } from '../http/route-table.ts';
import { discoveryPaths, isPublic, serviceSummary, serviceTitle, tagsOf } from './openapi.ts';

const authHelp = [
  'Auth kinds: `none` needs no credential; `bearer` needs `Authorization: Bearer <access token>` from /auth/register, /auth/login or',
  '/auth/2fa/verify; `key` needs `X-API-Key: <api key>` from POST /api/v1/api-keys, /auth/api-key or /mcp/v1/register;',
  '`bearer_or_key` takes either; `optional` serves anonymous callers and adds the caller\'s own rows when it knows who asks.',
  'POST /auth/2fa/verify takes the limited token a 2FA login answers as its bearer. Bodies are JSON; every error is {"error":{"code","message"}}.',
].join('\n');

/** The route's line: `- GET /path (auth: kind): summary`. */
export function routeLine(route: { method: string; path: string; auth: string; summary: string }): string {
  return `- ${route.method} ${route.path} (auth: ${route.auth}): ${route.summary}`;
}

export function llmsText(table: RouteTable, baseUrl: string): string {
  const link = (path: string) => `${baseUrl}${path}`;
  const documents = [
    `- [OpenAPI 3.1 document](${link(discoveryPaths.openapi)}): every public route with its request and response schemas, errors, security and rate limits`,
    `- [AsyncAPI 3.0 document](${link(discoveryPaths.asyncapi)}): every WebSocket stream with its client frames, messages, snapshot and seq rules`,
    `- [SKILL.md](${link(discoveryPaths.skill)}): how an agent gets credentials, places an order and reads books and streams, with tested examples`,
    `- [Agent card](${link(discoveryPaths.agentCard)}): the A2A agent card (skills per domain, security schemes, the MCP endpoint)`,
    `- [MCP endpoint](${link(discoveryPaths.mcp)}): MCP over Streamable HTTP; every route is a tool named as its operationId (X-API-Key or Bearer)`,
  ];
  const sections = new Map<string, string[]>();
  for (const route of table.routes.filter(isPublic)) {
    const tag = tagsOf(route)[0]!;
    const lines = sections.get(tag) ?? [];
    lines.push(routeLine(route));
    sections.set(tag, lines);
  }
  const routeSections = [...sections].flatMap(([tag, lines]) => [`## ${tag}`, '', ...lines, '']);
  return [`# ${serviceTitle}`, '', `> ${serviceSummary}`, '', authHelp, '', '## Documents', '', ...documents, '', ...routeSections].join('\n');
}
