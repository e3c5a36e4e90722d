/**
 * Settings from environment variables, each with an embedded default so that `npm start` needs nothing.
 * README.md lists them; this is the one place that reads process.env.
 */
import type { SyncMode } from '../engine/journal/segments.ts';
import { epochMsMax, epochMsMin } from '../engine/domains/perpetual/commands.ts';
import { Result } from '../engine/core/results.ts';
import { threadPriorities, type ThreadPriority } from './thread-priority.ts';
import { newConversion, parseStep, toSteps } from '../engine/core/units.ts';
import { epochMsMax as arenaEpochMsMax, epochMsMin as arenaEpochMsMin, mmInventoryLotsMax, mmSpreadBpsMax, mmSpreadBpsMin, orderLotsMax } from '../engine/domains/arena/commands.ts';

/** The environment as the settings see it (process.env, or a test's map). */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

export interface Config {
  /**
   * The environment the settings were read from: a shell module reads its own settings from it with
   * `integer` and `flag` (in its own settings.ts, checked when the module is created, before the server
   * listens), instead of adding fields here.
   */
  readonly env: SettingsEnv;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly journalSync: SyncMode;
  /** Enables the admin routes (funding in the embedded default) when set. */
  readonly adminApiKey: string;
  /** Largest request body accepted, in bytes. */
  readonly bodyBytesMax: number;
  readonly snapshotEveryCommands: number;
  readonly snapshotEveryMs: number;
  /** How the read models' worker thread runs below the order path (thread-priority.ts). */
  readonly readModelsPriority: ThreadPriority;
  /** Bytes a WebSocket subscriber may fall behind before it is disconnected. */
  readonly wsBackpressureBytes: number;
  /** Open WebSocket connections at most; further upgrades get 503. */
  readonly wsConnectionsMax: number;
  /** Open orders a second the private stream copies for one user's large snapshots (over one part); past it they wait. */
  readonly wsSnapshotOrdersPerS: number;
  /** A paper account's starting balances, `ASSET:amount` pairs separated by commas (checked at start). */
  readonly paperBalances: string;
  /** Chains whose AMM pools quote into the hybrid book (names from fixtures/chains.json); empty: none. */
  readonly ammChains: readonly string[];
  /** `sim`: the pools move by a seeded simulated outside flow; `off`: only our own fills move them. */
  readonly ammFlow: 'sim' | 'off';
  readonly ammQuoteIntervalMs: number;
  readonly ammSeed: number;
  /** The price oracle's source: `sim` (seeded walk, the default), `file` (PRICE_FILE) or `http` (PRICE_HTTP_URL). */
  readonly priceFeed: 'sim' | 'file' | 'http';
  readonly priceSeed: number;
  /** How often the oracle polls its source and journals the prices. */
  readonly priceTickMs: number;
  /** A price older than this is reported `stale`. */
  readonly priceStaleMs: number;
  /** Daily closes asked of the source for an asset the journal has never priced. */
  readonly priceHistoryDays: number;
  readonly priceFile: string;
  /** `file` feed: when set (1), the file's timeline is shifted to play from the server's start. */
  readonly priceFileReplay: boolean;
  readonly priceHttpUrl: string;
  readonly priceHttpTimeoutMs: number;
  /** Lets outbound requests reach loopback and private addresses: for tests only, never in production. */
  readonly outboundAllowPrivate: boolean;
  /** Length of a perpetual market's epoch (journaled by ConfigurePerpetual; applies from the next epoch). */
  readonly perpetualEpochMs: number;
  /** The house's seed on each side of each perpetual epoch, in PRED (a decimal, checked at start). */
  readonly perpetualSeedPred: string;
  /** What the perpetual house treasury is funded up to at start, per mode, in PRED (a decimal, checked at start). */
  readonly perpetualHouseFundPred: string;
  /** The arena's epoch length, journaled in its seed. */
  readonly arenaEpochMs: number;
  /** The house's spread around NAV (basis points), and its quote size and inventory bound per team (lots of 0.001 share). */
  readonly arenaMmSpreadBps: number;
  readonly arenaMmSizeLots: number;
  readonly arenaMmInventoryMaxLots: number;
  /** Whole USDC the house account is funded with (one journaled Deposit) before the arena is seeded. */
  readonly arenaHouseFundUsdc: number;
  /** Whether the shell seeds the arena itself at start when it does not exist yet. */
  readonly arenaAutoSeed: boolean;
  /** Journaled time between two fundings of the event cards' perpetuals (a ConfigureEventCards when it changes). */
  readonly eventCardsFundingMs: number;
  /** What the event cards' house treasury is topped up to at start, per mode (USDC, a decimal string). */
  readonly eventCardsHouseFundUsdc: string;
}

export const defaultPaperBalances = 'USDC:100000,ETH:10,BTC:1,SOL:500,DOGE:500000,PLAT:100000,PRED:100000';

/**
 * An integer setting in low..high, or `fallback` when unset. Exported with `flag` for the shell modules
 * that read their own settings from `Config.env` (shell/<domain>/settings.ts), so that adding a domain
 * does not touch this file.
 */
export function integer(env: SettingsEnv, name: string, fallback: number, low: number, high: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < low || value > high) throw new Error(`${name} must be an integer in ${low}..${high}`);
  return value;
}

function priceFeed(text: string): 'sim' | 'file' | 'http' {
  if (text !== 'sim' && text !== 'file' && text !== 'http') throw new Error('PRICE_FEED must be sim, file or http');
  return text;
}

/** A 0/1 setting; unset is 0. */
export function flag(env: SettingsEnv, name: string): boolean {
  const text = env[name] ?? '';
  if (text !== '' && text !== '0' && text !== '1') throw new Error(`${name} must be 0 or 1`);
  return text === '1';
}

function threadPriority(text: string): ThreadPriority {
  const priority = threadPriorities.find((known) => known === text);
  if (priority === undefined) throw new Error(`READ_MODELS_PRIORITY must be ${threadPriorities.join(', ')}`);
  return priority;
}

function ammFlow(text: string): 'sim' | 'off' {
  if (text !== 'sim' && text !== 'off') throw new Error('AMM_FLOW must be sim or off');
  return text;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const journalSync = env['JOURNAL_SYNC'] ?? 'sync';
  if (journalSync !== 'sync' && journalSync !== 'none') throw new Error('JOURNAL_SYNC must be sync or none');
  return {
    env: { ...env },
    host: env['HOST'] ?? '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir: env['DATA_DIR'] ?? './data',
    journalSync,
    adminApiKey: env['ADMIN_API_KEY'] ?? '',
    bodyBytesMax: integer(env, 'BODY_BYTES_MAX', 64 * 1024, 1024, 16 * 1024 * 1024),
    snapshotEveryCommands: integer(env, 'SNAPSHOT_EVERY_COMMANDS', 1_000_000, 1, Number.MAX_SAFE_INTEGER),
    snapshotEveryMs: integer(env, 'SNAPSHOT_EVERY_MS', 300_000, 1000, Number.MAX_SAFE_INTEGER),
    readModelsPriority: threadPriority(env['READ_MODELS_PRIORITY'] ?? 'idle'),
    wsBackpressureBytes: integer(env, 'WS_BACKPRESSURE_BYTES', 1024 * 1024, 16 * 1024, 256 * 1024 * 1024),
    wsConnectionsMax: integer(env, 'WS_CONNECTIONS_MAX', 20_000, 1, 1_000_000),
    wsSnapshotOrdersPerS: integer(env, 'WS_SNAPSHOT_ORDERS_PER_S', 100_000, 1000, 100_000_000),
    paperBalances: env['PAPER_BALANCES'] ?? defaultPaperBalances,
    ammChains: (env['AMM_CHAINS'] ?? 'ethereum,base,arbitrum,solana')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
    ammFlow: ammFlow(env['AMM_FLOW'] ?? 'sim'),
    ammQuoteIntervalMs: integer(env, 'AMM_QUOTE_INTERVAL_MS', 500, 50, 60_000),
    ammSeed: integer(env, 'AMM_SEED', 1, 0, 2 ** 31 - 1),
    ...priceSettings(env),
    eventCardsFundingMs: integer(env, 'EVENT_CARDS_FUNDING_MS', 3_600_000, 1000, 7 * 86_400_000),
    eventCardsHouseFundUsdc: env['EVENT_CARDS_HOUSE_FUND_USDC'] ?? '10000000',
    perpetualEpochMs: integer(env, 'PERPETUAL_EPOCH_MS', 3_600_000, epochMsMin, epochMsMax),
    perpetualSeedPred: env['PERPETUAL_SEED_PRED'] ?? '1000',
    perpetualHouseFundPred: env['PERPETUAL_HOUSE_FUND_PRED'] ?? '1000000',
    ...arenaSettings(env),
  };
}

/** Shares (decimal, lots of 0.001) from a setting, within 1 lot and `lotsMax`. */
function shares(env: SettingsEnv, name: string, fallback: string, lotsMax: number): number {
  const conversion = toSteps(env[name] || fallback, parseStep('0.001'), false, Result.offLot, newConversion());
  if (conversion.code !== Result.ok || conversion.value > lotsMax) throw new Error(`${name} must be a positive number of shares with at most 3 decimals`);
  return conversion.value;
}

function arenaSettings(env: SettingsEnv) {
  const arenaMmSizeLots = shares(env, 'ARENA_MM_SIZE', '10', orderLotsMax);
  const arenaMmInventoryMaxLots = shares(env, 'ARENA_MM_INVENTORY_MAX', '1000', mmInventoryLotsMax);
  if (arenaMmInventoryMaxLots < 2 * arenaMmSizeLots) throw new Error('ARENA_MM_INVENTORY_MAX must be at least twice ARENA_MM_SIZE');
  return {
    arenaEpochMs: integer(env, 'ARENA_EPOCH_MS', 3_600_000, arenaEpochMsMin, arenaEpochMsMax),
    arenaMmSpreadBps: integer(env, 'ARENA_MM_SPREAD_BPS', 100, mmSpreadBpsMin, mmSpreadBpsMax),
    arenaMmSizeLots,
    arenaMmInventoryMaxLots,
    arenaHouseFundUsdc: integer(env, 'ARENA_HOUSE_FUND_USDC', 1_000_000, 0, 1_000_000_000),
    arenaAutoSeed: (env['ARENA_AUTO_SEED'] ?? '') === '' || flag(env, 'ARENA_AUTO_SEED'),
  };
}

function priceSettings(env: SettingsEnv) {
  const feed = priceFeed(env['PRICE_FEED'] ?? 'sim');
  const priceFile = env['PRICE_FILE'] ?? '';
  const priceHttpUrl = env['PRICE_HTTP_URL'] ?? '';
  if (feed === 'file' && priceFile === '') throw new Error('PRICE_FEED=file needs PRICE_FILE');
  if (feed === 'http' && priceHttpUrl === '') throw new Error('PRICE_FEED=http needs PRICE_HTTP_URL');
  const priceTickMs = integer(env, 'PRICE_TICK_MS', 2000, 100, 3_600_000);
  return {
    priceFeed: feed,
    priceSeed: integer(env, 'PRICE_SEED', 1, 0, 2 ** 31 - 1),
    priceTickMs,
    priceStaleMs: integer(env, 'PRICE_STALE_MS', Math.max(30_000, priceTickMs * 5), 1000, 86_400_000),
    priceHistoryDays: integer(env, 'PRICE_HISTORY_DAYS', 420, 0, 1000),
    priceFile,
    priceFileReplay: flag(env, 'PRICE_FILE_REPLAY'),
    priceHttpUrl,
    priceHttpTimeoutMs: integer(env, 'PRICE_HTTP_TIMEOUT_MS', 5000, 100, 60_000),
    outboundAllowPrivate: flag(env, 'OUTBOUND_ALLOW_PRIVATE'),
  };
}
