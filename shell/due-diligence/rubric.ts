/**
 * The due-diligence rubric: a table of rules, each giving integer points on one of the four dimensions
 * when the probes' evidence shows a finding; a dimension is the sum of its rules' points capped at 10, the
 * total is the sum of the four (0 to 40), and the classification is the band the total falls in. Each
 * dimension lists the findings that gave its points, so an assessment explains itself. README "AI due
 * diligence" prints this table; a test checks that it matches.
 */
import type { ProbeName, ProbeOutcome, ProbeResult } from './probes.ts';

export const rubricVersion = 1;
export const dimensionPointsMax = 10;

export const dimensionKeys = ['live_ai_endpoints', 'ai_infrastructure_depth', 'agent_interoperability', 'self_referential_ai'] as const;
export type DimensionKey = (typeof dimensionKeys)[number];
export const dimensionLabels: Readonly<Record<DimensionKey, string>> = {
  live_ai_endpoints: 'Live AI Endpoints',
  ai_infrastructure_depth: 'AI Infrastructure Depth',
  agent_interoperability: 'Agent Interoperability',
  self_referential_ai: 'Self-Referential AI',
};

/** The bands of the total, lowest first: a total belongs to the last band whose minimum it reaches. */
export const classifications = [
  { classification: 'legacy', min: 0, max: 5 },
  { classification: 'ai_assisted', min: 6, max: 13 },
  { classification: 'ai_integrated', min: 14, max: 21 },
  { classification: 'ai_native', min: 22, max: 29 },
  { classification: 'fully_agentic', min: 30, max: 40 },
] as const;
export type Classification = (typeof classifications)[number]['classification'];

export function classify(total: number): Classification {
  if (!Number.isSafeInteger(total) || total < 0 || total > dimensionKeys.length * dimensionPointsMax) throw new RangeError(`a total is an integer 0..40, not ${total}`);
  let found: Classification = 'legacy';
  for (const band of classifications) if (total >= band.min) found = band.classification;
  return found;
}

type Probes = Readonly<Record<ProbeName, ProbeResult | undefined>>;

export interface Rule {
  readonly id: string;
  readonly dimension: DimensionKey;
  readonly points: number;
  readonly probe: ProbeName;
  /** What the finding says, as the assessment lists it. */
  readonly finding: string;
  readonly applies: (probes: Probes) => boolean;
}

const outcome = (probes: Probes, name: ProbeName): ProbeOutcome | null => probes[name]?.outcome ?? null;
const found = (probes: Probes, name: ProbeName): boolean => outcome(probes, name) === 'found';
const field = (probes: Probes, name: ProbeName, key: string): unknown => probes[name]?.evidence.fields[key];
const count = (probes: Probes, name: ProbeName, key: string): number => {
  const value = field(probes, name, key);
  return typeof value === 'number' ? value : Array.isArray(value) ? value.length : 0;
};
const list = (probes: Probes, name: ProbeName, key: string): unknown[] => {
  const value = field(probes, name, key);
  return Array.isArray(value) ? value : [];
};
const crawlerPolicies = (probes: Probes): string[] => {
  const value = field(probes, 'robots', 'ai_crawlers');
  return typeof value === 'object' && value !== null ? Object.values(value as Record<string, string>) : [];
};

/** The rubric, by dimension; a rule's points count once. */
export const rules: readonly Rule[] = [
  // Live AI Endpoints: AI interfaces that answer now.
  { id: 'mcp_live', dimension: 'live_ai_endpoints', points: 6, probe: 'mcp', finding: 'an MCP server answers initialize', applies: (p) => found(p, 'mcp') },
  { id: 'mcp_protected', dimension: 'live_ai_endpoints', points: 3, probe: 'mcp', finding: 'an MCP endpoint answers but requires credentials (401/403)', applies: (p) => outcome(p, 'mcp') === 'refused' },
  { id: 'mcp_tools', dimension: 'live_ai_endpoints', points: 1, probe: 'mcp', finding: 'the MCP server declares the tools capability', applies: (p) => found(p, 'mcp') && list(p, 'mcp', 'capabilities').includes('tools') },
  { id: 'ai_endpoint_live', dimension: 'live_ai_endpoints', points: 3, probe: 'ai_endpoints', finding: 'an AI or chat endpoint linked from the home page answers', applies: (p) => found(p, 'ai_endpoints') || outcome(p, 'ai_endpoints') === 'refused' },
  { id: 'plugin_api', dimension: 'live_ai_endpoints', points: 1, probe: 'ai_plugin', finding: 'an AI plugin manifest declares an API for models', applies: (p) => found(p, 'ai_plugin') },

  // AI Infrastructure Depth: machine-readable descriptions of what the service does.
  { id: 'openapi', dimension: 'ai_infrastructure_depth', points: 4, probe: 'openapi', finding: 'a valid OpenAPI document is published', applies: (p) => found(p, 'openapi') },
  { id: 'openapi_20', dimension: 'ai_infrastructure_depth', points: 2, probe: 'openapi', finding: 'the OpenAPI document describes 20 operations or more', applies: (p) => found(p, 'openapi') && count(p, 'openapi', 'operations') >= 20 },
  { id: 'openapi_100', dimension: 'ai_infrastructure_depth', points: 1, probe: 'openapi', finding: 'the OpenAPI document describes 100 operations or more', applies: (p) => found(p, 'openapi') && count(p, 'openapi', 'operations') >= 100 },
  { id: 'llms_txt', dimension: 'ai_infrastructure_depth', points: 2, probe: 'llms_txt', finding: 'llms.txt is well formed (an H1 title and links)', applies: (p) => found(p, 'llms_txt') },
  { id: 'llms_summary', dimension: 'ai_infrastructure_depth', points: 1, probe: 'llms_txt', finding: 'llms.txt has a summary and sections', applies: (p) => found(p, 'llms_txt') && field(p, 'llms_txt', 'summary') !== null && count(p, 'llms_txt', 'sections') >= 1 },
  { id: 'json_ld', dimension: 'ai_infrastructure_depth', points: 1, probe: 'home', finding: 'the home page carries JSON-LD structured data', applies: (p) => count(p, 'home', 'json_ld_types') > 0 },
  { id: 'api_docs_link', dimension: 'ai_infrastructure_depth', points: 1, probe: 'home', finding: 'the home page links API documentation', applies: (p) => count(p, 'home', 'api_docs_links') > 0 },

  // Agent Interoperability: standard ways for other agents to find and call the service.
  { id: 'agent_card', dimension: 'agent_interoperability', points: 3, probe: 'agent_card', finding: 'a valid A2A agent card is published', applies: (p) => found(p, 'agent_card') },
  { id: 'agent_card_skills', dimension: 'agent_interoperability', points: 1, probe: 'agent_card', finding: 'the agent card lists skills', applies: (p) => found(p, 'agent_card') && count(p, 'agent_card', 'skills') > 0 },
  { id: 'agent_card_security', dimension: 'agent_interoperability', points: 1, probe: 'agent_card', finding: 'the agent card declares security schemes', applies: (p) => found(p, 'agent_card') && count(p, 'agent_card', 'security_schemes') > 0 },
  {
    id: 'agent_card_protocol',
    dimension: 'agent_interoperability',
    points: 1,
    probe: 'agent_card',
    finding: 'the agent card names an interface protocol (MCP, JSONRPC, GRPC, HTTP+JSON)',
    applies: (p) => found(p, 'agent_card') && list(p, 'agent_card', 'interfaces').some((item) => typeof item === 'object' && item !== null && (item as { protocol: string }).protocol !== ''),
  },
  { id: 'skill_md', dimension: 'agent_interoperability', points: 2, probe: 'skill_md', finding: 'SKILL.md is published with a name and description', applies: (p) => found(p, 'skill_md') },
  { id: 'mcp_interop', dimension: 'agent_interoperability', points: 2, probe: 'mcp', finding: 'agents can connect over MCP', applies: (p) => found(p, 'mcp') },
  { id: 'mcp_interop_protected', dimension: 'agent_interoperability', points: 1, probe: 'mcp', finding: 'agents with credentials can connect over MCP', applies: (p) => outcome(p, 'mcp') === 'refused' },
  { id: 'ai_plugin', dimension: 'agent_interoperability', points: 1, probe: 'ai_plugin', finding: 'an AI plugin manifest is published', applies: (p) => found(p, 'ai_plugin') },

  // Self-Referential AI: the site describes itself to AI readers and speaks of AI itself.
  { id: 'llms_self', dimension: 'self_referential_ai', points: 2, probe: 'llms_txt', finding: 'the site describes itself to language models in llms.txt', applies: (p) => found(p, 'llms_txt') },
  { id: 'robots_ai_named', dimension: 'self_referential_ai', points: 2, probe: 'robots', finding: 'robots.txt has rules naming AI crawlers', applies: (p) => crawlerPolicies(p).length > 0 },
  {
    id: 'robots_ai_allowed',
    dimension: 'self_referential_ai',
    points: 1,
    probe: 'robots',
    finding: 'robots.txt lets AI crawlers read the site (none named is shut out)',
    applies: (p) => found(p, 'robots') && crawlerPolicies(p).length > 0 && !crawlerPolicies(p).includes('disallowed'),
  },
  { id: 'home_ai_terms', dimension: 'self_referential_ai', points: 2, probe: 'home', finding: 'the home page speaks of AI (two AI terms or more)', applies: (p) => count(p, 'home', 'ai_terms') >= 2 },
  { id: 'home_ai_links', dimension: 'self_referential_ai', points: 1, probe: 'home', finding: 'the home page links AI, chat or agent pages', applies: (p) => count(p, 'home', 'ai_links') > 0 },
  { id: 'skill_self', dimension: 'self_referential_ai', points: 1, probe: 'skill_md', finding: 'the site explains itself to agents in SKILL.md', applies: (p) => found(p, 'skill_md') },
  { id: 'card_self', dimension: 'self_referential_ai', points: 1, probe: 'agent_card', finding: 'the site presents itself as an agent in its agent card', applies: (p) => found(p, 'agent_card') },
];

export interface Finding {
  readonly rule: string;
  readonly probe: ProbeName;
  readonly finding: string;
  readonly points: number;
}

export interface DimensionScore {
  readonly key: DimensionKey;
  readonly label: string;
  /** The findings' points, capped at `dimensionPointsMax`. */
  readonly score: number;
  readonly max: number;
  /** The findings' points before the cap. */
  readonly points_uncapped: number;
  readonly findings: Finding[];
}

export interface Scored {
  readonly score: number;
  readonly classification: Classification;
  readonly dimensions: DimensionScore[];
}

/** Scores the probes' results by the rubric. */
export function scoreProbes(results: readonly ProbeResult[]): Scored {
  const probes = Object.fromEntries(results.map((result) => [result.probe, result])) as Probes;
  const dimensions = dimensionKeys.map((key): DimensionScore => {
    const findings = rules.filter((rule) => rule.dimension === key && rule.applies(probes)).map((rule) => ({ rule: rule.id, probe: rule.probe, finding: rule.finding, points: rule.points }));
    const uncapped = findings.reduce((sum, finding) => sum + finding.points, 0);
    return { key, label: dimensionLabels[key], score: Math.min(dimensionPointsMax, uncapped), max: dimensionPointsMax, points_uncapped: uncapped, findings };
  });
  const score = dimensions.reduce((sum, dimension) => sum + dimension.score, 0);
  return { score, classification: classify(score), dimensions };
}
