/**
 * The catalogue of source bots and AI agents (fixtures/bots.json), loaded strictly: a bad entry stops the
 * start with its reason. A source's index among the sources of its type is what StartClone journals, so
 * the fixture only ever grows at the end of each type.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Result } from '../../engine/core/results.ts';
import { amountToAtoms, parseStep, type Asset } from '../../engine/core/units.ts';
import { sourcesPerTypeMax, sourceTypeNames, type SourceType } from '../../engine/domains/bots/commands.ts';
import { lookbackDaysMax, lookbackDaysMin, riskProfiles, strategyTypes, type RiskProfile, type StrategyType } from './strategy.ts';

/** Two folders below the project root, as the server bundle is, so the same URL works from both. */
export const defaultBotsPath = fileURLToPath(new URL('../../fixtures/bots.json', import.meta.url));

export type SourceTypeName = (typeof sourceTypeNames)[number];

export interface SourceBot {
  readonly type: SourceTypeName;
  readonly typeCode: SourceType;
  /** Index among the sources of its type: journaled with each clone. */
  readonly index: number;
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly symbol: string;
  readonly strategyType: StrategyType;
  readonly riskProfile: RiskProfile;
  readonly lookbackDays: number;
  /** What one strike stakes or buys, as written (a decimal amount of the collateral). */
  readonly orderAmount: string;
  readonly active: boolean;
}

export interface AgentEntry {
  readonly agentId: string;
  readonly slug: string;
  readonly name: string;
  readonly source: SourceBot;
}

export interface Catalogue {
  readonly sources: readonly SourceBot[];
  readonly agents: readonly AgentEntry[];
  byId(id: string): SourceBot | undefined;
  bySlug(slug: string): SourceBot | undefined;
  byIndex(typeCode: number, index: number): SourceBot | undefined;
  agent(idOrSlug: string): AgentEntry | undefined;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const slugPattern = /^[a-z0-9-]{1,40}$/;
/** Any asset of the collateral's decimals accepts the amount: the runtime converts with the real asset. */
const amountCheck: Asset = { id: 0, index: 0, symbol: 'CHECK', decimals: 6, atom: parseStep('0.000001') };

export function isUuid(text: string): boolean {
  return uuidPattern.test(text);
}

export function loadCatalogue(path = defaultBotsPath, known?: ReadonlySet<string>): Catalogue {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { sources?: unknown; agents?: unknown };
  if (!Array.isArray(document.sources) || !Array.isArray(document.agents)) throw new Error(`${path}: sources and agents must be arrays`);
  const counts = [0, 0, 0];
  const ids = new Set<string>();
  const slugs = new Set<string>();
  const sources = document.sources.map((entry: Record<string, unknown>, position): SourceBot => {
    const where = `${path}: sources[${position}]`;
    const typeCode = sourceTypeNames.indexOf(entry['type'] as SourceTypeName);
    const fail = (rule: string): never => {
      throw new Error(`${where}: ${rule}`);
    };
    if (typeCode < 0) fail(`type must be one of ${sourceTypeNames.join(', ')}`);
    const id = entry['id'];
    if (typeof id !== 'string' || !isUuid(id) || ids.has(id)) fail('id must be a new lower-case UUID');
    const slug = entry['slug'];
    if (typeof slug !== 'string' || !slugPattern.test(slug) || slugs.has(slug)) fail('slug must be a new 1 to 40 of a-z, 0-9 and -');
    const name = entry['name'];
    if (typeof name !== 'string' || name.length < 1 || name.length > 64) fail('name must be 1 to 64 characters');
    const symbol = entry['symbol'];
    if (typeof symbol !== 'string' || (known !== undefined && !known.has(symbol))) fail('symbol must be an oracle asset');
    if (!strategyTypes.includes(entry['strategy_type'] as StrategyType)) fail(`strategy_type must be one of ${strategyTypes.join(', ')}`);
    if (!riskProfiles.includes(entry['risk_profile'] as RiskProfile)) fail(`risk_profile must be one of ${riskProfiles.join(', ')}`);
    const lookback = entry['lookback_days'];
    if (!Number.isInteger(lookback) || (lookback as number) < lookbackDaysMin || (lookback as number) > lookbackDaysMax) fail(`lookback_days must be ${lookbackDaysMin} to ${lookbackDaysMax}`);
    const amount = entry['order_amount'];
    if (typeof amount !== 'string' || amountToAtoms(amount, amountCheck).code !== Result.ok) fail('order_amount must be a positive decimal amount with at most 6 decimals');
    if (typeof entry['active'] !== 'boolean') fail('active must be true or false');
    const index = counts[typeCode]!++;
    if (index >= sourcesPerTypeMax) fail(`at most ${sourcesPerTypeMax} sources per type`);
    ids.add(id as string);
    slugs.add(slug as string);
    return {
      type: sourceTypeNames[typeCode]!,
      typeCode: typeCode as SourceType,
      index,
      id: id as string,
      slug: slug as string,
      name: name as string,
      symbol: symbol as string,
      strategyType: entry['strategy_type'] as StrategyType,
      riskProfile: entry['risk_profile'] as RiskProfile,
      lookbackDays: lookback as number,
      orderAmount: amount as string,
      active: entry['active'] as boolean,
    };
  });
  const byId = new Map(sources.map((source) => [source.id, source]));
  const agents = document.agents.map((entry: Record<string, unknown>, position): AgentEntry => {
    const where = `${path}: agents[${position}]`;
    const agentId = entry['agent_id'];
    const slug = entry['slug'];
    const name = entry['name'];
    const source = byId.get(entry['source_id'] as string);
    if (typeof agentId !== 'string' || !isUuid(agentId) || typeof slug !== 'string' || !slugPattern.test(slug) || typeof name !== 'string' || source === undefined) {
      throw new Error(`${where}: agent_id (a UUID), slug, name and the source_id of a listed source`);
    }
    return { agentId, slug, name, source };
  });
  return {
    sources,
    agents,
    byId: (id) => byId.get(id),
    bySlug: (slug) => sources.find((source) => source.slug === slug),
    byIndex: (typeCode, index) => sources.find((source) => source.typeCode === typeCode && source.index === index),
    agent: (idOrSlug) => agents.find((agent) => agent.agentId === idOrSlug || agent.slug === idOrSlug),
  };
}
