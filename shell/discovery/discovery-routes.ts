/**
 * Discovery documents for agents and tools: GET /openapi-public.json and GET /llms.txt, both generated from
 * the route table. Each is built on its first request, not when the routes are added, because this table
 * is added before others may be; by the first request the table is final.
 */
import type { Route, RouteTable } from '../http/route-table.ts';
import { isPublic, openApiDocument, serviceSummary, serviceTitle } from './openapi.ts';

const authHelp = [
  'Auth kinds: `none` needs no credential; `bearer` needs `Authorization: Bearer <access token>` from /auth/register, /auth/login or',
  '/auth/2fa/verify; `key` needs `X-API-Key: <api key>` from POST /api/v1/api-keys, /auth/api-key or /mcp/v1/register;',
  '`bearer_or_key` takes either. Bodies are JSON; every error is {"error":{"code","message"}}.',
].join('\n');

/** llms.txt (llmstxt.org): a title, a summary, how to authenticate, then one line per public route. */
function llmsText(table: RouteTable): string {
  const lines = table.routes.filter(isPublic).map((route) => `- ${route.method} ${route.path} (auth: ${route.auth}): ${route.summary}`);
  return [`# ${serviceTitle}`, '', `> ${serviceSummary}`, '', authHelp, '', 'The full schemas: /openapi-public.json', '', '## Routes', '', ...lines, ''].join('\n');
}

export function discoveryRoutes(table: RouteTable): Route[] {
  let openApiText: string | null = null;
  let llmsTxt: string | null = null;
  return [
    {
      method: 'GET',
      name: 'get_openapi_document',
      path: '/openapi-public.json',
      auth: 'none',
      rateLimit: 'none',
      summary: 'The OpenAPI 3.1 document of every public route',
      handler: () => {
        openApiText ??= JSON.stringify(openApiDocument(table));
        return { text: openApiText, contentType: 'application/json' };
      },
    },
    {
      method: 'GET',
      name: 'get_llms_txt',
      path: '/llms.txt',
      auth: 'none',
      rateLimit: 'none',
      summary: 'A plain-text guide for agents: what the service is and one line per public route',
      handler: () => {
        llmsTxt ??= llmsText(table);
        return { text: llmsTxt, contentType: 'text/plain; charset=utf-8' };
      },
    },
  ];
}
