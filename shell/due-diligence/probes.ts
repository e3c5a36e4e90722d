/**
 * The due-diligence probes: live requests to a website, each through the guarded outbound fetch (public
 * addresses only unless OUTBOUND_ALLOW_PRIVATE, a deadline and a size cap per request), each answering an
 * outcome and its evidence. The list (README "AI due diligence" documents it):
 *
 *   home          GET /: title, meta description, JSON-LD types, links to AI/chat/agent pages and API docs, AI terms
 *   llms_txt      GET /llms.txt: an H1 first line and at least one markdown link
 *   agent_card    GET /.well-known/agent-card.json: an A2A card (name, description, an interface, skills)
 *   ai_plugin     GET /.well-known/ai-plugin.json: a plugin manifest (name_for_model, api.url)
 *   openapi       GET /openapi.json, /openapi-public.json, /.well-known/openapi.json, /swagger.json: openapi|swagger and paths
 *   mcp           POST a JSON-RPC initialize to /mcp, /mcp/v1, /sse: a result with protocolVersion (JSON or SSE)
 *   robots        GET /robots.txt: the rules for AI crawlers (GPTBot, ClaudeBot, Google-Extended, ...)
 *   skill_md      GET /.well-known/skills/default/SKILL.md: YAML front matter with name and description
 *   ai_endpoints  GET the AI/chat links of the home page (same site, at most `aiEndpointsMax`)
 *
 * Outcomes: found (present and valid), absent (404, 405 or 410; or nothing to probe), invalid (answered but
 * not the expected document), refused (401 or 403: it exists behind credentials), error (anything else: a
 * 5xx, a timeout, a size cap, a network failure, an outbound rule).
 *
 * The home page is fetched first: when it cannot be reached at all the assessment stops (502
 * SITE_UNREACHABLE, or 422 WEBSITE_NOT_PUBLIC when the outbound rules refused its address); an HTTP error
 * status there is only the home probe's outcome. The other probes then run with bounded concurrency.
 */
import { parseHTML } from 'linkedom';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { OutboundHttpError, OutboundNetworkError, OutboundRefusedError, OutboundTimeoutError, outboundFetch, type OutboundOptions } from '../../engine/runtime/outbound/fetch.ts';
import { ApiError } from '../http/errors.ts';

export const probeNames = ['home', 'llms_txt', 'agent_card', 'ai_plugin', 'openapi', 'mcp', 'robots', 'skill_md', 'ai_endpoints'] as const;
export type ProbeName = (typeof probeNames)[number];
export const probeOutcomes = ['found', 'absent', 'invalid', 'refused', 'error'] as const;
export type ProbeOutcome = (typeof probeOutcomes)[number];

export const probeLabels: Readonly<Record<ProbeName, string>> = {
  home: 'Home page and its markup',
  llms_txt: '/llms.txt',
  agent_card: 'A2A agent card (/.well-known/agent-card.json)',
  ai_plugin: 'AI plugin manifest (/.well-known/ai-plugin.json)',
  openapi: 'OpenAPI document',
  mcp: 'MCP server (initialize)',
  robots: 'robots.txt rules for AI crawlers',
  skill_md: 'SKILL.md (/.well-known/skills/default/SKILL.md)',
  ai_endpoints: 'AI or chat endpoints linked from the home page',
};

export const openApiPaths = ['/openapi.json', '/openapi-public.json', '/.well-known/openapi.json', '/swagger.json'] as const;
export const mcpPaths = ['/mcp', '/mcp/v1', '/sse'] as const;
export const llmsPath = '/llms.txt';
export const agentCardPath = '/.well-known/agent-card.json';
export const aiPluginPath = '/.well-known/ai-plugin.json';
export const robotsPath = '/robots.txt';
export const skillPath = '/.well-known/skills/default/SKILL.md';
/** The AI crawlers whose robots.txt rules are read (product tokens, matched case-insensitively). */
export const aiCrawlers = ['GPTBot', 'ChatGPT-User', 'OAI-SearchBot', 'ClaudeBot', 'Claude-Web', 'anthropic-ai', 'Google-Extended', 'PerplexityBot', 'CCBot', 'Applebot-Extended', 'Meta-ExternalAgent', 'Bytespider', 'cohere-ai'] as const;
/** AI/chat links of the home page probed at most. */
export const aiEndpointsMax = 3;
/** Links of each kind kept in the home page's evidence. */
const linksMax = 10;
/** Characters of an excerpt in the evidence. */
export const excerptCharsMax = 200;
/** Characters of the home page's text searched for AI terms. */
const homeTextCharsMax = 20_000;
/** JSON-LD blocks of the home page read at most. */
const jsonLdBlocksMax = 8;

export interface ProbeEvidence {
  /** The HTTP status of the deciding request (null when none answered). */
  readonly status: number | null;
  readonly content_type: string | null;
  /** The start of the answer, or the reason of a failure. */
  readonly excerpt: string | null;
  /** What the probe read: fields of the document, links, rules. */
  readonly fields: Record<string, unknown>;
}

export interface ProbeResult {
  readonly probe: ProbeName;
  readonly label: string;
  readonly url: string;
  readonly outcome: ProbeOutcome;
  readonly evidence: ProbeEvidence;
  readonly duration_ms: number;
}

export interface ProbeOptions {
  readonly timeoutMs: number;
  readonly bytesMax: number;
  readonly allowPrivate: boolean;
  readonly concurrency: number;
  /** The whole assessment's deadline: a probe still running then ends with `error`. */
  readonly deadlineMs: number;
  readonly clock: () => number;
}

/** Facts of the home page the later probes use. */
interface HomeFacts {
  readonly aiLinks: readonly string[];
}

// --- one request -----------------------------------------------------------------------------------

type Fetched =
  | { readonly kind: 'ok'; readonly status: number; readonly contentType: string; readonly text: string; readonly headers: Record<string, unknown> }
  | { readonly kind: 'failed'; readonly status: number | null; readonly outcome: ProbeOutcome; readonly reason: string; readonly error: unknown };

/** The outcome an HTTP error status means for a probe. */
export function outcomeOfStatus(status: number): ProbeOutcome {
  if (status === 404 || status === 405 || status === 410) return 'absent';
  if (status === 401 || status === 403) return 'refused';
  return 'error';
}

/** The deadline of the assessment under way, as the reason its signal aborts with. */
export class AssessmentDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the assessment's deadline of ${deadlineMs} ms passed`);
    this.name = 'AssessmentDeadlineError';
  }
}

/** Options of one assessment's requests: the caller's, and the signal of the assessment's deadline. */
type RunOptions = ProbeOptions & { readonly signal: AbortSignal };

async function request(url: string, options: RunOptions, extra: Partial<OutboundOptions> = {}): Promise<Fetched> {
  try {
    const response = await outboundFetch(url, { timeoutMs: options.timeoutMs, bytesMax: options.bytesMax, allowPrivate: options.allowPrivate, signal: options.signal, ...extra });
    const contentType = String(response.headers['content-type'] ?? '');
    return { kind: 'ok', status: response.status, contentType, text: response.body.toString('utf8'), headers: response.headers };
  } catch (error) {
    if (error instanceof OutboundHttpError) return { kind: 'failed', status: error.status, outcome: outcomeOfStatus(error.status), reason: `HTTP ${error.status}`, error };
    return { kind: 'failed', status: null, outcome: 'error', reason: error instanceof Error ? error.message : String(error), error };
  }
}

function excerptOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, excerptCharsMax);
}

function clip(text: string | null | undefined, chars = excerptCharsMax): string {
  return (text ?? '').replace(/\s+/g, ' ').trim().slice(0, chars);
}

function isHtml(contentType: string): boolean {
  return /^(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

interface Draft {
  readonly url: string;
  readonly outcome: ProbeOutcome;
  readonly status: number | null;
  readonly contentType?: string | null;
  readonly excerpt?: string | null;
  readonly fields?: Record<string, unknown>;
}

function failedDraft(url: string, fetched: Extract<Fetched, { kind: 'failed' }>, fields: Record<string, unknown> = {}): Draft {
  return { url, outcome: fetched.outcome, status: fetched.status, excerpt: fetched.reason, fields };
}

// --- the probes ------------------------------------------------------------------------------------

const aiLinkPattern = /(^|[^a-z])(ai|chat|chatbot|assistant|agents?|mcp|llms?|gpt|copilot|ask)([^a-z]|$)/i;
const apiDocsPattern = /(^|[^a-z])(api|apis|docs|documentation|developers?|openapi|swagger|reference)([^a-z]|$)/i;
/** Terms whose presence on the home page says the site speaks of AI (word boundaries, case-insensitive but `AI`, `MCP`, `LLM`, `GPT`). */
const aiTerms: ReadonlyArray<readonly [string, RegExp]> = [
  ['AI', /\bAI\b/],
  ['artificial intelligence', /\bartificial intelligence\b/i],
  ['machine learning', /\bmachine learning\b/i],
  ['LLM', /\bLLMs?\b/],
  ['language model', /\blanguage models?\b/i],
  ['agent', /\bagents?\b/i],
  ['agentic', /\bagentic\b/i],
  ['MCP', /\bMCP\b|\bModel Context Protocol\b/],
  ['chatbot', /\bchat ?bots?\b/i],
  ['assistant', /\bassistants?\b/i],
  ['GPT', /\bGPT\b/],
  ['copilot', /\bcopilots?\b/i],
  ['generative', /\bgenerative\b/i],
];

/** Whether `candidate` is on the website's site: the same host, or a subdomain of it (chat.example.com). */
function sameSite(candidate: URL, origin: URL): boolean {
  const host = origin.hostname.replace(/^www\./, '');
  return candidate.hostname === origin.hostname || candidate.hostname === host || candidate.hostname.endsWith(`.${host}`);
}

function jsonLdTypes(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 4 || into.size >= 16) return;
  if (Array.isArray(value)) for (const item of value) jsonLdTypes(item, into, depth + 1);
  else if (isObject(value)) {
    const type = value['@type'];
    if (typeof type === 'string') into.add(type);
    else if (Array.isArray(type)) for (const item of type) if (typeof item === 'string') into.add(item);
    if (value['@graph'] !== undefined) jsonLdTypes(value['@graph'], into, depth + 1);
  }
}

/** A path with its escapes decoded, or as it is when they are malformed (a page's links are not to be trusted). */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The home page's evidence from its HTML. */
export function readHome(html: string, pageUrl: string): { fields: Record<string, unknown>; facts: HomeFacts } {
  const { document } = parseHTML(html);
  const origin = new URL(pageUrl);
  const meta = (selector: string): string => clip(document.querySelector(selector)?.getAttribute('content'));
  const title = clip(document.querySelector('title')?.textContent);
  const description = meta('meta[name="description"]') || meta('meta[property="og:description"]');
  const types = new Set<string>();
  const blocks = [...document.querySelectorAll('script[type="application/ld+json"]')].slice(0, jsonLdBlocksMax);
  for (const block of blocks) jsonLdTypes(parseJson(block.textContent ?? ''), types);
  const aiLinks: string[] = [];
  const apiDocsLinks: string[] = [];
  for (const anchor of [...document.querySelectorAll('a[href], link[href]')]) {
    const href = anchor.getAttribute('href') ?? '';
    let url: URL;
    try {
      url = new URL(href, pageUrl);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    const words = `${safeDecode(url.pathname).replace(/[/._-]+/g, ' ')} ${url.hostname.split('.')[0] ?? ''} ${clip(anchor.textContent, 100)}`;
    if (aiLinkPattern.test(words) && sameSite(url, origin) && url.pathname !== '/' && !aiLinks.includes(url.href) && aiLinks.length < linksMax) aiLinks.push(url.href);
    else if (apiDocsPattern.test(words) && !apiDocsLinks.includes(url.href) && apiDocsLinks.length < linksMax) apiDocsLinks.push(url.href);
  }
  const text = `${title} ${description} ${(document.body?.textContent ?? '').slice(0, homeTextCharsMax)}`;
  const terms = aiTerms.filter(([, pattern]) => pattern.test(text)).map(([term]) => term);
  return {
    fields: { title, description, json_ld_types: [...types], ai_links: aiLinks, api_docs_links: apiDocsLinks, ai_terms: terms },
    facts: { aiLinks },
  };
}

async function probeHome(origin: URL, options: RunOptions): Promise<{ draft: Draft; facts: HomeFacts }> {
  const url = new URL('/', origin).href;
  const fetched = await request(url, options, { headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' } });
  const none: HomeFacts = { aiLinks: [] };
  if (fetched.kind === 'failed') {
    // The home page decides whether the site can be assessed at all: no answer at all stops the assessment.
    const error = fetched.error;
    if (error instanceof OutboundRefusedError && error.reason === 'address_not_public') throw new ApiError(422, 'WEBSITE_NOT_PUBLIC', `website: ${error.message}`);
    if (error instanceof OutboundRefusedError) throw new ApiError(422, 'VALIDATION_FAILED', `website: ${error.message}`);
    if (error instanceof OutboundNetworkError || error instanceof OutboundTimeoutError || error instanceof AssessmentDeadlineError) throw new ApiError(502, 'SITE_UNREACHABLE', `the website's home page could not be fetched: ${error.message}`);
    return { draft: failedDraft(url, fetched), facts: none };
  }
  if (!isHtml(fetched.contentType)) return { draft: { url, outcome: 'invalid', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text), fields: { reason: 'not an HTML page' } }, facts: none };
  const { fields, facts } = readHome(fetched.text, url);
  return { draft: { url, outcome: 'found', status: fetched.status, contentType: fetched.contentType, excerpt: clip(fields['title'] as string) || excerptOf(fetched.text), fields }, facts };
}

/** llms.txt's shape: an H1 first line, an optional `>` summary, markdown links. */
export function readLlmsTxt(text: string): { valid: boolean; fields: Record<string, unknown> } {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const first = lines.find((line) => line !== '') ?? '';
  const h1 = /^# \S/.test(first) ? first.slice(2).trim() : null;
  const summary = lines.find((line) => line.startsWith('> '))?.slice(2).trim() ?? null;
  const links = [...text.matchAll(/\[[^\]\n]+\]\(([^)\s]+)\)/g)].length;
  const sections = lines.filter((line) => /^## \S/.test(line)).length;
  return { valid: h1 !== null && links >= 1, fields: { title: clip(h1), summary: summary === null ? null : clip(summary), links, sections } };
}

async function probeText(url: string, options: RunOptions, read: (text: string) => { valid: boolean; fields: Record<string, unknown> }): Promise<Draft> {
  const fetched = await request(url, options, { headers: { accept: 'text/plain, text/markdown, */*;q=0.5' } });
  if (fetched.kind === 'failed') return failedDraft(url, fetched);
  // A page of HTML where a text document belongs is a site's catch-all answer, not the document.
  if (isHtml(fetched.contentType)) return { url, outcome: 'invalid', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text), fields: { reason: 'an HTML page, not the text document' } };
  const { valid, fields } = read(fetched.text);
  return { url, outcome: valid ? 'found' : 'invalid', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text), fields };
}

/** An A2A agent card's fields, and which required ones are missing. */
export function readAgentCard(value: unknown): { valid: boolean; fields: Record<string, unknown> } {
  if (!isObject(value)) return { valid: false, fields: { reason: 'not a JSON object' } };
  const interfaces: Array<{ url: string; protocol: string }> = [];
  if (Array.isArray(value['supportedInterfaces'])) {
    for (const item of value['supportedInterfaces'].slice(0, 8)) if (isObject(item) && nonEmptyString(item['url'])) interfaces.push({ url: clip(item['url']), protocol: clip(String(item['protocolBinding'] ?? item['transport'] ?? '')) });
  }
  if (nonEmptyString(value['url'])) interfaces.unshift({ url: clip(value['url']), protocol: clip(String(value['preferredTransport'] ?? '')) });
  const skills = Array.isArray(value['skills']) ? value['skills'] : null;
  const securitySchemes = isObject(value['securitySchemes']) ? Object.keys(value['securitySchemes']).slice(0, 8) : [];
  const capabilities = isObject(value['capabilities']) ? Object.keys(value['capabilities']).slice(0, 8) : [];
  const missing = [
    ...(nonEmptyString(value['name']) ? [] : ['name']),
    ...(nonEmptyString(value['description']) ? [] : ['description']),
    ...(interfaces.length > 0 ? [] : ['url or supportedInterfaces']),
    ...(skills !== null ? [] : ['skills']),
  ];
  return {
    valid: missing.length === 0,
    fields: {
      name: clip(String(value['name'] ?? '')),
      description: clip(String(value['description'] ?? '')),
      version: clip(String(value['version'] ?? '')),
      interfaces,
      skills: skills?.length ?? 0,
      skill_names: (skills ?? []).slice(0, 5).map((skill) => clip(String(isObject(skill) ? (skill['name'] ?? skill['id'] ?? '') : ''), 60)),
      security_schemes: securitySchemes,
      capabilities,
      missing,
    },
  };
}

/** An AI plugin manifest's fields. */
export function readAiPlugin(value: unknown): { valid: boolean; fields: Record<string, unknown> } {
  if (!isObject(value)) return { valid: false, fields: { reason: 'not a JSON object' } };
  const api = isObject(value['api']) ? value['api'] : {};
  const missing = [...(nonEmptyString(value['name_for_model']) ? [] : ['name_for_model']), ...(nonEmptyString(api['url']) ? [] : ['api.url'])];
  return {
    valid: missing.length === 0,
    fields: { schema_version: clip(String(value['schema_version'] ?? '')), name_for_model: clip(String(value['name_for_model'] ?? '')), api_type: clip(String(api['type'] ?? '')), api_url: clip(String(api['url'] ?? '')), missing },
  };
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

/** An OpenAPI (or Swagger 2) document's fields: its version, title, and how many paths and operations it has. */
export function readOpenApi(value: unknown): { valid: boolean; fields: Record<string, unknown> } {
  if (!isObject(value)) return { valid: false, fields: { reason: 'not a JSON object' } };
  const version = nonEmptyString(value['openapi']) ? value['openapi'] : nonEmptyString(value['swagger']) ? value['swagger'] : null;
  const paths = isObject(value['paths']) ? value['paths'] : null;
  let operations = 0;
  for (const item of Object.values(paths ?? {})) if (isObject(item)) operations += Object.keys(item).filter((key) => httpMethods.has(key)).length;
  const info = isObject(value['info']) ? value['info'] : {};
  return {
    valid: version !== null && paths !== null,
    fields: { version: version === null ? null : clip(version, 20), title: clip(String(info['title'] ?? '')), paths: paths === null ? 0 : Object.keys(paths).length, operations, missing: [...(version === null ? ['openapi'] : []), ...(paths === null ? ['paths'] : [])] },
  };
}

async function probeJson(url: string, options: RunOptions, read: (value: unknown) => { valid: boolean; fields: Record<string, unknown> }): Promise<Draft> {
  const fetched = await request(url, options, { headers: { accept: 'application/json' } });
  if (fetched.kind === 'failed') return failedDraft(url, fetched);
  const value = parseJson(fetched.text);
  if (value === undefined) return { url, outcome: 'invalid', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text), fields: { reason: 'not JSON' } };
  const { valid, fields } = read(value);
  return { url, outcome: valid ? 'found' : 'invalid', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text), fields };
}

/** How good a location's draft is when several are tried: the best one answers for the probe. */
const outcomeRank: Readonly<Record<ProbeOutcome, number>> = { found: 4, refused: 3, invalid: 2, error: 1, absent: 0 };

function best(drafts: readonly Draft[]): Draft {
  return drafts.reduce((chosen, draft) => (outcomeRank[draft.outcome] > outcomeRank[chosen.outcome] ? draft : chosen));
}

async function probeOpenApi(origin: URL, options: RunOptions): Promise<Draft> {
  const drafts: Draft[] = [];
  for (const path of openApiPaths) {
    const draft = await probeJson(new URL(path, origin).href, options, readOpenApi);
    drafts.push(draft);
    if (draft.outcome === 'found') break;
  }
  const chosen = best(drafts);
  return { ...chosen, fields: { ...chosen.fields, tried: drafts.map((draft) => ({ url: draft.url, outcome: draft.outcome })) } };
}

/** The JSON-RPC answer to the initialize request, from a JSON body or a text/event-stream body. */
export function initializeAnswer(contentType: string, text: string): Record<string, unknown> | null {
  const candidates: unknown[] = [];
  if (/^text\/event-stream\b/i.test(contentType)) {
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '') candidates.push(parseJson(data));
    }
  } else {
    candidates.push(parseJson(text));
  }
  for (const candidate of candidates.flat()) {
    if (isObject(candidate) && candidate['jsonrpc'] === '2.0' && candidate['id'] === 1 && isObject(candidate['result'])) return candidate['result'];
  }
  return null;
}

const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'trading-platform-due-diligence', version: '1.0.0' } },
});

async function probeMcpPath(url: string, options: RunOptions): Promise<Draft> {
  const fetched = await request(url, options, {
    method: 'POST',
    body: initializeBody,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  if (fetched.kind === 'failed') return failedDraft(url, fetched);
  const result = initializeAnswer(fetched.contentType, fetched.text);
  if (result === null || !nonEmptyString(result['protocolVersion'])) {
    return { url, outcome: 'invalid', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text), fields: { reason: 'no JSON-RPC initialize result with a protocolVersion' } };
  }
  const serverInfo = isObject(result['serverInfo']) ? result['serverInfo'] : {};
  return {
    url,
    outcome: 'found',
    status: fetched.status,
    contentType: fetched.contentType,
    excerpt: excerptOf(fetched.text),
    fields: {
      protocol_version: clip(result['protocolVersion'], 40),
      server_name: clip(String(serverInfo['name'] ?? ''), 100),
      server_version: clip(String(serverInfo['version'] ?? ''), 40),
      capabilities: isObject(result['capabilities']) ? Object.keys(result['capabilities']).slice(0, 8) : [],
      transport: /^text\/event-stream\b/i.test(fetched.contentType) ? 'sse' : 'json',
      session: fetched.headers['mcp-session-id'] !== undefined,
    },
  };
}

async function probeMcp(origin: URL, options: RunOptions): Promise<Draft> {
  const drafts: Draft[] = [];
  for (const path of mcpPaths) {
    const draft = await probeMcpPath(new URL(path, origin).href, options);
    drafts.push(draft);
    if (draft.outcome === 'found') break;
  }
  const chosen = best(drafts);
  return { ...chosen, fields: { ...chosen.fields, tried: drafts.map((draft) => ({ url: draft.url, outcome: draft.outcome })) } };
}

export type CrawlerPolicy = 'allowed' | 'disallowed' | 'partial';

/**
 * robots.txt's rules for the AI crawlers: each crawler named in a group of its own gets that group's
 * policy (disallowed for `Disallow: /`, partial for narrower disallows, allowed otherwise), and the `*`
 * group's policy is reported apart (it applies to crawlers not named).
 */
export function readRobots(text: string): { valid: boolean; fields: Record<string, unknown> } {
  const groups: Array<{ agents: string[]; disallow: string[] }> = [];
  let current: { agents: string[]; disallow: string[] } | null = null;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n/).slice(0, 5_000)) {
    const line = raw.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (current === null || !lastWasAgent) {
        current = { agents: [], disallow: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
    } else {
      lastWasAgent = false;
      if (key === 'disallow' && current !== null && value !== '') current.disallow.push(value);
    }
  }
  const policyOf = (group: { disallow: string[] }): CrawlerPolicy => (group.disallow.includes('/') ? 'disallowed' : group.disallow.length > 0 ? 'partial' : 'allowed');
  const named: Record<string, CrawlerPolicy> = {};
  for (const crawler of aiCrawlers) {
    const group = groups.find((candidate) => candidate.agents.includes(crawler.toLowerCase()));
    if (group !== undefined) named[crawler] = policyOf(group);
  }
  const wildcard = groups.find((group) => group.agents.includes('*'));
  return { valid: true, fields: { groups: groups.length, ai_crawlers: named, wildcard: wildcard === undefined ? 'none' : policyOf(wildcard) } };
}

/** SKILL.md's YAML front matter: its name and description. */
export function readSkill(text: string): { valid: boolean; fields: Record<string, unknown> } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (match === null) return { valid: false, fields: { reason: 'no YAML front matter' } };
  const entries = new Map<string, string>();
  for (const line of match[1]!.split(/\r?\n/)) {
    const found = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    if (found !== null) entries.set(found[1]!.toLowerCase(), found[2]!.replace(/^["']|["']$/g, '').trim());
  }
  const name = entries.get('name') ?? '';
  const description = entries.get('description') ?? '';
  const missing = [...(name === '' ? ['name'] : []), ...(description === '' ? ['description'] : [])];
  return { valid: missing.length === 0, fields: { name: clip(name, 100), description: clip(description), missing } };
}

async function probeAiEndpoints(origin: URL, facts: HomeFacts, options: RunOptions): Promise<Draft> {
  const candidates = facts.aiLinks.slice(0, aiEndpointsMax);
  if (candidates.length === 0) return { url: new URL('/', origin).href, outcome: 'absent', status: null, excerpt: 'the home page links no AI or chat page', fields: { mentioned: facts.aiLinks.length, tried: [] } };
  const drafts: Draft[] = [];
  for (const url of candidates) {
    const fetched = await request(url, options);
    drafts.push(fetched.kind === 'failed' ? failedDraft(url, fetched) : { url, outcome: 'found', status: fetched.status, contentType: fetched.contentType, excerpt: excerptOf(fetched.text) });
  }
  const chosen = best(drafts);
  return { ...chosen, fields: { mentioned: facts.aiLinks.length, tried: drafts.map((draft) => ({ url: draft.url, outcome: draft.outcome, status: draft.status })) } };
}

// --- the run ---------------------------------------------------------------------------------------

async function timed(name: ProbeName, clock: () => number, run: () => Promise<Draft>): Promise<ProbeResult> {
  const startMs = clock();
  let draft: Draft;
  try {
    draft = await run();
  } catch (error) {
    // A probe's own failure (a malformed answer it did not expect) is its outcome, never the assessment's.
    draft = { url: '', outcome: 'error', status: null, excerpt: error instanceof Error ? clip(error.message) : 'failed' };
  }
  return {
    probe: name,
    label: probeLabels[name],
    url: draft.url,
    outcome: draft.outcome,
    evidence: { status: draft.status, content_type: draft.contentType ?? null, excerpt: draft.excerpt ?? null, fields: draft.fields ?? {} },
    duration_ms: Math.max(0, clock() - startMs),
  };
}

/** Runs the tasks, at most `concurrency` at once, and answers their results in the tasks' order. */
async function bounded<T>(tasks: ReadonlyArray<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  return results;
}

/**
 * Probes the website at `origin`: the home page first (its failure to answer at all throws the ApiError
 * the routes answer), then the others, `onProbe` called as each completes. Answers the results in the
 * documented order.
 */
export async function runProbes(origin: URL, probeOptions: ProbeOptions, onProbe: (result: ProbeResult) => void): Promise<ProbeResult[]> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AssessmentDeadlineError(probeOptions.deadlineMs)), probeOptions.deadlineMs);
  try {
    return await probeAll(origin, { ...probeOptions, signal: deadline.signal }, onProbe);
  } finally {
    clearTimeout(timer);
  }
}

async function probeAll(origin: URL, options: RunOptions, onProbe: (result: ProbeResult) => void): Promise<ProbeResult[]> {
  let facts: HomeFacts = { aiLinks: [] };
  const homeStart = options.clock();
  const home = await probeHome(origin, options);
  facts = home.facts;
  const homeResult: ProbeResult = {
    probe: 'home',
    label: probeLabels.home,
    url: home.draft.url,
    outcome: home.draft.outcome,
    evidence: { status: home.draft.status, content_type: home.draft.contentType ?? null, excerpt: home.draft.excerpt ?? null, fields: home.draft.fields ?? {} },
    duration_ms: Math.max(0, options.clock() - homeStart),
  };
  onProbe(homeResult);
  const at = (path: string): string => new URL(path, origin).href;
  const runs: Record<Exclude<ProbeName, 'home'>, () => Promise<Draft>> = {
    llms_txt: () => probeText(at(llmsPath), options, readLlmsTxt),
    agent_card: () => probeJson(at(agentCardPath), options, readAgentCard),
    ai_plugin: () => probeJson(at(aiPluginPath), options, readAiPlugin),
    openapi: () => probeOpenApi(origin, options),
    mcp: () => probeMcp(origin, options),
    robots: () => probeText(at(robotsPath), options, readRobots),
    skill_md: () => probeText(at(skillPath), options, readSkill),
    ai_endpoints: () => probeAiEndpoints(origin, facts, options),
  };
  const names = probeNames.filter((name): name is Exclude<ProbeName, 'home'> => name !== 'home');
  const rest = await bounded(
    names.map((name) => async () => {
      const result = await timed(name, options.clock, runs[name]);
      onProbe(result);
      return result;
    }),
    options.concurrency,
  );
  return [homeResult, ...rest];
}
