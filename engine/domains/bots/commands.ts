/**
 * The bots domain's commands, events, result codes and limits (domain id 7: numbers 7000..7999).
 *
 * The domain is the journaled registry of running clones and the strategy clock: which platform users are
 * clones of which source bot (a source type and the source's index in fixtures/bots.json), in which mode,
 * and when the strategies run. It holds no money and places no orders: at each StrategyTicked event the
 * shell's bots runtime runs every clone's strategy on durable state and submits the clone's orders,
 * bets and predictions as ordinary journaled commands (see README "Bots, clones and backtests").
 */
import type { DomainCommandCodec, FieldReader, FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const botsDomainId = 7;

/** The three kinds of source bots, in the order their codes are journaled. */
export const SourceType = { wtaSpecies: 0, perpetualAgent: 1, backtestBot: 2 } as const;
export type SourceType = (typeof SourceType)[keyof typeof SourceType];
export const sourceTypeNames = ['wta_species', 'perpetual_agent', 'backtest_bot'] as const;

// Limits (a named maximum for everything).
/** Clones that may run at once, over all users. */
export const clonesMax = 100_000;
/** Source bots the catalogue may hold per type (fixtures/bots.json). */
export const sourcesPerTypeMax = 1_000;
/** The strategy period: at least a second, at most a day; 0 stops the strategies. */
export const strategyMsMin = 1_000;
export const strategyMsMax = 86_400_000;

export const BotsCommandType = { configure: 7001, startClone: 7002 } as const;
export const BotsEventType = { configured: 7001, cloneStarted: 7002, strategyTicked: 7003 } as const;

/** Sets the strategy period (BOTS_STRATEGY_MS); 0 stops the strategy clock. */
export interface ConfigureBots {
  strategyMs: number;
}

/** Registers a platform user as a running clone of a source bot. */
export interface StartClone {
  userId: number;
  mode: number;
  sourceType: number;
  sourceIndex: number;
}

export interface BotsConfigured {
  strategyMs: number;
}

export interface CloneStarted {
  userId: number;
  mode: number;
  sourceType: number;
  sourceIndex: number;
  /** Clones running after this one started. */
  clonesRunning: number;
}

/** The strategy clock struck: the runtime runs every clone's strategy once, at this journaled time. */
export interface StrategyTicked {
  tick: number;
  timestampMs: number;
  clonesRunning: number;
}

export const BotsResult = {
  invalidConfiguration: domainResult(botsDomainId, 7001, 'INVALID_BOTS_CONFIGURATION', `the strategy period is 0 (stopped) or ${strategyMsMin} to ${strategyMsMax} ms`),
  invalidClone: domainResult(
    botsDomainId,
    7002,
    'INVALID_CLONE',
    `a clone is a platform user (not a domain account) in mode live or paper, of source type 0 to 2 and source index 0 to ${sourcesPerTypeMax - 1}`,
  ),
  alreadyRunning: domainResult(botsDomainId, 7003, 'CLONE_ALREADY_RUNNING', 'this user already runs a clone'),
  tooManyClones: domainResult(botsDomainId, 7004, 'TOO_MANY_CLONES', `at most ${clonesMax} clones run at once`),
} as const;

export const configureBotsCodec: DomainCommandCodec<ConfigureBots> = {
  type: BotsCommandType.configure,
  name: 'ConfigureBots',
  fieldCount: 1,
  isEncodable: (body) => Number.isSafeInteger(body.strategyMs),
  write(writer: FieldWriter, body) {
    writer.integer(body.strategyMs);
  },
  read(reader: FieldReader) {
    return { strategyMs: reader.integer('strategyMs') };
  },
};

export const startCloneCodec: DomainCommandCodec<StartClone> = {
  type: BotsCommandType.startClone,
  name: 'StartClone',
  fieldCount: 4,
  isEncodable: (body) => [body.userId, body.mode, body.sourceType, body.sourceIndex].every((value) => Number.isSafeInteger(value)),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.integer(body.mode);
    writer.integer(body.sourceType);
    writer.integer(body.sourceIndex);
  },
  read(reader: FieldReader) {
    return { userId: reader.integer('userId'), mode: reader.integer('mode'), sourceType: reader.integer('sourceType'), sourceIndex: reader.integer('sourceIndex') };
  },
};

export function validStrategyMs(value: unknown): value is number {
  return Number.isSafeInteger(value) && ((value as number) === 0 || ((value as number) >= strategyMsMin && (value as number) <= strategyMsMax));
}
