/**
 * What every MCP session offers, made once from the final route table: the tools (tools.ts), the discovery
 * documents as resources, a few prompts for common agent tasks and completions of their arguments. Each session's low-level SDK `Server`
 * answers from here (`serveCatalogue`); the caller of each request comes from the HTTP request that carried
 * it (`callerOf`), so credentials work exactly as on REST, request by request.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type GetPromptResult,
  type Prompt,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { LocalCaller, RouteTable } from '../http/route-table.ts';
import { callRouteTool, discoveryRouteNames, routeTools, type RouteTool } from './tools.ts';
import { toolsPageSize } from './settings.ts';
import { serviceSummary, serviceTitle } from '../discovery/openapi.ts';

/** Resource URIs of the discovery documents: this scheme, then the route's path. */
export const resourceScheme = 'tp://discovery';

/** The conformance suite's fixture resource (MCP_CONFORMANCE_FIXTURES=1 only). */
const fixtureResource = { uri: 'test://static-text', name: 'static_text', description: 'Conformance fixture', mimeType: 'text/plain' };
const fixtureText = 'This is the content of the static text resource.';

interface DocumentResource {
  readonly resource: Resource;
  readonly routeName: string;
}

export interface Catalogue {
  readonly table: RouteTable;
  readonly tools: readonly RouteTool[];
  readonly toolsByName: ReadonlyMap<string, RouteTool>;
  readonly documents: readonly DocumentResource[];
  readonly conformanceFixtures: boolean;
}

function mimeTypeOf(path: string): string {
  if (path.endsWith('.json')) return 'application/json';
  if (path.endsWith('.md')) return 'text/markdown';
  return 'text/plain';
}

export function buildCatalogue(table: RouteTable, conformanceFixtures: boolean): Catalogue {
  const tools = routeTools(table);
  const toolsByName = new Map(tools.map((tool) => [tool.tool.name, tool]));
  const documents: DocumentResource[] = [];
  for (const name of discoveryRouteNames) {
    const route = table.routes.find((candidate) => candidate.name === name);
    if (route === undefined) continue;
    documents.push({ routeName: name, resource: { uri: `${resourceScheme}${route.path}`, name, description: route.summary, mimeType: mimeTypeOf(route.path) } });
  }
  return { table, tools, toolsByName, documents, conformanceFixtures };
}

/** The caller a request's HTTP headers name, as the bridge put them into the SDK's auth info. */
export function authInfoOf(caller: LocalCaller): AuthInfo {
  return { token: caller.authorization || caller.apiKey, clientId: '', scopes: [], extra: { caller } };
}

function callerOf(authInfo: AuthInfo | undefined): LocalCaller {
  const caller = authInfo?.extra?.['caller'] as LocalCaller | undefined;
  return caller ?? { apiKey: '', authorization: '', remoteAddress: '', host: '', idempotencyKey: '' };
}

/**
 * The caller of one tool call: its request's, with the Idempotency-Key the call names in
 * `_meta.idempotency_key` (routes that take one read it as the REST header), since a session's HTTP
 * headers are usually the same for every call.
 */
function callerOfCall(authInfo: AuthInfo | undefined, meta: Record<string, unknown> | undefined): LocalCaller {
  const caller = callerOf(authInfo);
  const key = meta?.['idempotency_key'];
  return typeof key === 'string' ? { ...caller, idempotencyKey: key } : caller;
}

const prompts: readonly Prompt[] = [
  {
    name: 'place_order',
    description: 'Place a limit order on the exchange after reading the book',
    arguments: [
      { name: 'symbol', description: "The market: its base token's symbol, e.g. ETH (tp_clob_list_pairs lists them)", required: true },
      { name: 'side', description: 'buy or sell', required: true },
      { name: 'quantity', description: 'Decimal quantity in the base asset', required: true },
      { name: 'price', description: 'Decimal limit price (omit to be told the best price first)', required: false },
    ],
  },
  {
    name: 'read_order_book',
    description: 'Read and summarise a market: best bid and offer, depth and recent trades',
    arguments: [{ name: 'symbol', description: "The market: its base token's symbol, e.g. ETH", required: true }],
  },
];

function promptResult(name: string, args: Record<string, string>): GetPromptResult {
  const argument = (key: string): string => {
    const value = args[key];
    if (value === undefined || value === '') throw new McpError(ErrorCode.InvalidParams, `prompt ${name} needs the argument ${key}`);
    return value;
  };
  let text: string;
  if (name === 'place_order') {
    const symbol = argument('symbol');
    const price = args['price'];
    text = [
      `Place a ${argument('side')} limit order for ${argument('quantity')} on ${symbol}.`,
      `First call tp_clob_bbo with symbol ${symbol} to read the best bid and offer, and tp_clob_balance to check the funds.`,
      price === undefined || price === '' ? 'Tell me the best price on the other side and ask me for a limit price before placing anything.' : `Then call tp_clob_place_order with symbol ${symbol}, order_type limit, price ${price}.`,
      'Report the order record the tool returns (its id and status), or the error code and message if it is refused.',
    ].join('\n');
  } else if (name === 'read_order_book') {
    const symbol = argument('symbol');
    text = [
      `Summarise the market ${symbol}.`,
      `Call tp_clob_bbo, tp_clob_orderbook and tp_clob_recent_trades with symbol ${symbol}.`,
      'Give the best bid and offer, the spread, the depth on each side and the last few trades.',
    ].join('\n');
  } else {
    throw new McpError(ErrorCode.InvalidParams, `no prompt is named ${name}`);
  }
  return { description: prompts.find((prompt) => prompt.name === name)?.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

/** Values completed for a prompt argument, at most this many (the protocol's own bound). */
const completionValuesMax = 100;

/**
 * Completions of our prompts' arguments: `side` from its two values, `symbol` from the markets
 * (tp_clob_list_pairs run in-process); nothing for any other argument or prompt.
 */
async function complete(catalogue: Catalogue, promptName: string, argument: string, prefix: string, caller: LocalCaller): Promise<string[]> {
  if (!prompts.some((prompt) => prompt.name === promptName)) return [];
  let values: string[] = [];
  if (argument === 'side') values = ['buy', 'sell'];
  else if (argument === 'symbol') {
    const answer = await catalogue.table.runByName('tp_clob_list_pairs', { params: {}, query: {}, body: undefined }, caller);
    if (answer.status === 200) values = (JSON.parse(answer.text) as { pairs: Array<{ symbol: string }> }).pairs.map((pair) => pair.symbol);
  }
  const lower = prefix.toLowerCase();
  return values.filter((value) => value.toLowerCase().startsWith(lower)).slice(0, completionValuesMax);
}

/** A cursor is the index of the page's first tool, as text. */
function pageStart(cursor: string | undefined, total: number): number {
  if (cursor === undefined) return 0;
  const start = Number(cursor);
  if (!/^[0-9]+$/.test(cursor) || start >= total) throw new McpError(ErrorCode.InvalidParams, 'invalid cursor');
  return start;
}

/** A session's server: the low-level SDK Server answering from the catalogue. */
export function serveCatalogue(catalogue: Catalogue, version: string): Server {
  const server = new Server(
    { name: 'trading-platform', title: serviceTitle, version },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false }, completions: {} },
      instructions: `${serviceSummary} Every REST route an agent may use is a tool of the same name; send X-API-Key (or Authorization: Bearer) on the MCP connection for the tools that need credentials (register with register_agent to get an mcp_ key).`,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = pageStart(request.params?.cursor, catalogue.tools.length);
    const end = Math.min(start + toolsPageSize, catalogue.tools.length);
    const tools = catalogue.tools.slice(start, end).map((routeTool) => routeTool.tool);
    return end < catalogue.tools.length ? { tools, nextCursor: String(end) } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const routeTool = catalogue.toolsByName.get(request.params.name);
    if (routeTool === undefined) throw new McpError(ErrorCode.InvalidParams, `no tool is named ${request.params.name}`);
    return callRouteTool(catalogue.table, routeTool, request.params.arguments ?? {}, callerOfCall(extra.authInfo, request.params._meta));
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [...catalogue.documents.map((document) => document.resource), ...(catalogue.conformanceFixtures ? [fixtureResource] : [])],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    if (catalogue.conformanceFixtures && uri === fixtureResource.uri) return { contents: [{ uri, mimeType: fixtureResource.mimeType, text: fixtureText }] };
    const document = catalogue.documents.find((candidate) => candidate.resource.uri === uri);
    // -32002 is the protocol's "resource not found".
    if (document === undefined) throw new McpError(-32002, `no resource ${uri}`, { uri });
    const answer = await catalogue.table.runByName(document.routeName, { params: {}, query: {}, body: undefined }, callerOf(extra.authInfo));
    if (answer.status !== 200) throw new McpError(ErrorCode.InternalError, `reading ${uri} answered ${answer.status}: ${answer.text}`);
    return { contents: [{ uri, mimeType: answer.contentType.split(';')[0]!.trim(), text: answer.text }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...prompts] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => promptResult(request.params.name, request.params.arguments ?? {}));
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const ref = request.params.ref;
    const values = ref.type === 'ref/prompt' ? await complete(catalogue, ref.name, request.params.argument.name, request.params.argument.value, callerOf(extra.authInfo)) : [];
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}
