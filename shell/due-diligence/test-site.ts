/**
 * Fixture websites for the due-diligence tests: a local node:http server answering each path from a table
 * (status, content type, body). `agenticSite` copies the shape of this platform's own discovery documents
 * (llms.txt, the A2A agent card, SKILL.md, an OpenAPI document of 120 operations, an MCP server answering
 * initialize over SSE at /mcp/v1), so the tests can show what the assessor makes of such a site on any
 * branch; `legacySite` is a plain page and nothing else; `mixedSite` gives every other outcome.
 *
 * The tests pass node:http's createServer in (`siteKit(http.createServer)`): only test files may import
 * node:http (engine/runtime/outbound/only-outbound.test.ts), and this helper is not one.
 */

export interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

export type Pages = Record<string, Answer | ((method: string, body: string) => Answer | Promise<Answer>)>;

export interface TestSite {
  readonly origin: string;
  /** Requests seen, as `METHOD /path`. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** The parts of node:http's server this helper uses. */
interface IncomingLike {
  readonly url?: string | undefined;
  readonly method?: string | undefined;
  on(event: string, listener: (...args: any[]) => void): unknown;
}
interface ResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}
interface ServerLike {
  listen(port: number, host: string, callback: () => void): unknown;
  address(): unknown;
  close(callback: () => void): unknown;
}
export type CreateServer = (listener: (request: IncomingLike, response: ResponseLike) => void) => ServerLike;

async function startSite(createServer: CreateServer, pages: Pages): Promise<TestSite> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const method = request.method ?? 'GET';
    requests.push(`${method} ${path}`);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const page = pages[path];
      const pending = page === undefined ? { status: 404, type: 'text/plain', body: 'not found' } : typeof page === 'function' ? page(method, Buffer.concat(chunks).toString('utf8')) : page;
      void Promise.resolve(pending).then((answer) => {
        response.writeHead(answer.status, { 'content-type': answer.type, ...answer.headers });
        response.end(answer.body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { origin: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const html = (body: string, status = 200): Answer => ({ status, type: 'text/html; charset=utf-8', body });
const json = (value: unknown, status = 200): Answer => ({ status, type: 'application/json', body: JSON.stringify(value) });
const text = (body: string, type = 'text/plain; charset=utf-8'): Answer => ({ status: 200, type, body });

/** An OpenAPI 3.1 document with `count` operations (GET and POST on count/2 paths). */
export function openApiWith(count: number): unknown {
  const paths: Record<string, unknown> = {};
  for (let index = 0; index < count / 2; index++) {
    paths[`/api/v1/area${index}`] = {
      get: { operationId: `get_area_${index}`, responses: { '200': { description: 'ok' } } },
      post: { operationId: `post_area_${index}`, responses: { '200': { description: 'ok' } } },
    };
  }
  return { openapi: '3.1.0', info: { title: 'Fixture Trading Platform API', version: '0.1.0' }, servers: [{ url: '/' }], paths, components: {} };
}

const llmsTxt = (origin: string) =>
  [
    '# Fixture Trading Platform',
    '',
    '> A fictional trading and prediction platform used in tests: token exchange, prediction markets and agents.',
    '',
    '## Documents',
    '',
    `- [OpenAPI 3.1 document](${origin}/openapi-public.json): every public route`,
    `- [SKILL.md](${origin}/.well-known/skills/default/SKILL.md): how an agent gets credentials`,
    `- [Agent card](${origin}/.well-known/agent-card.json): the A2A agent card`,
    `- [MCP endpoint](${origin}/mcp/v1): MCP over Streamable HTTP`,
    '',
    '## Exchange',
    '',
    '- GET /api/v1/exchange/markets (auth: none): the markets',
    '',
  ].join('\n');

const agentCard = (origin: string) => ({
  name: 'Fixture Trading Platform',
  description: 'A fictional trading platform. Agents connect over MCP (Streamable HTTP) or call the REST API.',
  supportedInterfaces: [{ url: `${origin}/mcp/v1`, protocolBinding: 'MCP', tenant: '', protocolVersion: '1.0' }],
  version: '0.1.0',
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { apiKey: { apiKeySecuritySchemeDetails: { location: 'header', name: 'X-API-Key' } } },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [
    { id: 'exchange', name: 'Exchange', description: 'Pairs, books, orders and trades.', tags: ['exchange'] },
    { id: 'markets', name: 'Prediction markets', description: 'Binary markets.', tags: ['markets'] },
  ],
});

const skillMd = [
  '---',
  'name: fixture-trading-platform',
  'description: Trade on the fixture platform as an agent - get an API key, place orders, read books and streams.',
  '---',
  '',
  '# Fixture Trading Platform',
  '',
  'Register at POST /mcp/v1/register for an agent key, then send it as X-API-Key.',
  '',
].join('\n');

/** An MCP server's answer to initialize, as the SDK's Streamable HTTP transport sends it (one SSE message). */
export function mcpInitialize(method: string, body: string): Answer {
  if (method !== 'POST') return { status: 405, type: 'text/plain', body: 'method not allowed' };
  const message = JSON.parse(body) as { id: number; method: string };
  if (message.method !== 'initialize') return json({ jsonrpc: '2.0', id: message.id, error: { code: -32600, message: 'not initialized' } }, 400);
  const result = { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} }, serverInfo: { name: 'fixture-trading-platform', version: '0.1.0' } };
  return {
    status: 200,
    type: 'text/event-stream',
    headers: { 'mcp-session-id': 'fixture-session' },
    body: `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`,
  };
}

/** A site with the platform's discovery documents and MCP server (the origin is filled in once listening). */
async function agenticSite(createServer: CreateServer): Promise<TestSite> {
  const pages: Pages = {};
  const site = await startSite(createServer, pages);
  Object.assign(pages, {
    '/llms.txt': text(llmsTxt(site.origin)),
    '/.well-known/agent-card.json': json(agentCard(site.origin)),
    '/.well-known/skills/default/SKILL.md': text(skillMd, 'text/markdown; charset=utf-8'),
    '/openapi-public.json': json(openApiWith(120)),
    '/mcp/v1': mcpInitialize,
  } satisfies Pages);
  return site;
}

/** A plain home page and nothing else. */
function legacySite(createServer: CreateServer): Promise<TestSite> {
  return startSite(createServer, { '/': html('<!doctype html><html><head><title>Bakery</title></head><body><h1>Fresh bread daily</h1><a href="/contact">Contact</a></body></html>') });
}

export const mixedHome = `<!doctype html><html><head><title>Acme AI Assistant</title>
<meta name="description" content="Acme builds an AI assistant and agents for accountants, powered by a large language model.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"SoftwareApplication","name":"Acme Assistant"}</script>
<script type="application/ld+json">{ not json</script>
</head><body>
<a href="/chat">Chat with our assistant</a>
<a href="/ai/ask">Ask AI</a>
<a href="https://elsewhere.invalid/agents">Partner agents</a>
<a href="/docs/api">API reference</a>
<a href="/bad%E0%A4%A">Broken escape</a>
<a href="/">Home</a>
</body></html>`;

/** Every other outcome: invalid documents, an error, a protected MCP endpoint, Swagger at its last location, robots rules. */
function mixedSite(createServer: CreateServer): Promise<TestSite> {
  return startSite(createServer, {
    '/': html(mixedHome),
    '/llms.txt': html('<html><body>Not the file</body></html>'),
    '/.well-known/agent-card.json': json({ name: 'Acme', skills: [] }),
    '/.well-known/ai-plugin.json': { status: 500, type: 'text/plain', body: 'boom' },
    '/openapi.json': text('{ truncated', 'application/json'),
    '/swagger.json': json({ swagger: '2.0', info: { title: 'Acme API', version: '1' }, paths: { '/a': { get: {} }, '/b': { get: {}, post: {} } } }),
    '/mcp': { status: 401, type: 'application/json', body: '{"error":"unauthorized"}' },
    '/robots.txt': text('User-agent: GPTBot\nDisallow: /\n\nUser-agent: ClaudeBot\nUser-agent: PerplexityBot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n'),
    '/.well-known/skills/default/SKILL.md': text('# Acme skill\n\nNo front matter here.\n', 'text/markdown'),
    '/chat': { status: 403, type: 'text/plain', body: 'sign in' },
    '/ai/ask': json({ answer: 'hello' }),
  });
}

/** The fixture sites, served by `createServer` (node:http's, from the test). */
export function siteKit(createServer: CreateServer) {
  return {
    startSite: (pages: Pages) => startSite(createServer, pages),
    agenticSite: () => agenticSite(createServer),
    legacySite: () => legacySite(createServer),
    mixedSite: () => mixedSite(createServer),
  };
}
