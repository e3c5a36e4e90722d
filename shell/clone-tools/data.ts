/**
 * Where the clone tools' outside-world data comes from, behind one interface: wallets' trades per chain
 * (fomo radar) and protocols' daily fees and revenue (protocol revenue). With no network the embedded
 * default is a seeded sample of fictional wallets and protocols (`source: "sample"`, named "Sample ..."
 * so no answer can pass them for real ones); CLONE_TOOLS_DATA_FILE loads the same shapes from a JSON file
 * (`source: "file"`). Every answer built on this data carries its `source`.
 *
 * The file: `{"wallets": [{"address", "label", "chain": "robinhood"|"solana", "trades": [{"token", "side":
 * "buy"|"sell", "amount_usd", "time"}]}], "protocols": [{"slug", "name", "chain", "category", "daily":
 * [{"date": "YYYY-MM-DD", "fees_usd", "revenue_usd"}]}]}`; amounts are decimal strings or numbers of USD,
 * times ISO 8601 with a zone. Read once at start; a malformed entry stops the start naming it.
 */
import { readFileSync } from 'node:fs';
import { Prng } from '../../engine/core/sim/generator.ts';

export const chains = ['robinhood', 'solana'] as const;
export type Chain = (typeof chains)[number];

export interface WalletTrade {
  readonly token: string;
  readonly side: 'buy' | 'sell';
  readonly amountUsd: number;
  readonly timeMs: number;
}

export interface WalletRecord {
  readonly address: string;
  readonly label: string;
  readonly chain: Chain;
  /** Oldest first. */
  readonly trades: readonly WalletTrade[];
}

export interface ProtocolDay {
  /** UTC day number (ms / 86 400 000). */
  readonly day: number;
  readonly feesUsd: number;
  readonly revenueUsd: number;
}

export interface ProtocolRecord {
  readonly slug: string;
  readonly name: string;
  readonly chain: string;
  readonly category: string;
  /** Oldest first, one per day at most. */
  readonly daily: readonly ProtocolDay[];
}

export type DataSource = 'sample' | 'file';

/** The adapter: `wallets` throws when its source is down (the fomo radar then falls back). */
export interface CloneToolsData {
  readonly source: DataSource;
  wallets(chain: Chain): readonly WalletRecord[];
  protocols(): readonly ProtocolRecord[];
}

// Limits of the data a source may bring.
export const walletsMax = 10_000;
export const tradesPerWalletMax = 10_000;
export const protocolsMax = 5_000;
export const daysPerProtocolMax = 400;
export const dataFileBytesMax = 64 * 1024 * 1024;

const msPerDay = 86_400_000;
const sampleTokens = ['SAMPLEDOG', 'SAMPLECAT', 'SAMPLEMOON', 'SAMPLEFROG', 'SAMPLEBEAR', 'SAMPLEAPE'] as const;
const sampleCategories = ['dex', 'lending', 'perps', 'launchpad', 'stablecoin'] as const;
const sampleChains = ['solana', 'ethereum', 'base', 'robinhood'] as const;

/**
 * The seeded sample: 24 fictional wallets per chain over the last two days (some with closed round trips,
 * some only buying, so some have no closed trade at all) and 30 fictional protocols with 60 days of fees,
 * all relative to `nowMs` (the server's start) so the windows always hold data. The same seed and start time give
 * the same sample.
 */
export class SampleData implements CloneToolsData {
  readonly source = 'sample' as const;
  private readonly walletsByChain = new Map<Chain, WalletRecord[]>();
  private readonly protocolList: ProtocolRecord[] = [];

  constructor(seed: number, nowMs: number) {
    const random = new Prng(seed);
    const today = Math.floor(nowMs / msPerDay);
    for (const chain of chains) {
      const wallets: WalletRecord[] = [];
      for (let index = 0; index < 24; index++) {
        const trades: WalletTrade[] = [];
        // Each wallet starts trading between 2 and 48 hours ago, so the last day always holds signals.
        let timeMs = nowMs - random.int(2 * 3600, 48 * 3600) * 1000;
        const roundTrips = index % 6 === 5 ? 0 : random.int(1, 8);
        for (let trip = 0; trip < roundTrips && timeMs < nowMs; trip++) {
          const token = random.pick(sampleTokens);
          const buyUsd = random.int(100, 5_000);
          trades.push({ token, side: 'buy', amountUsd: buyUsd, timeMs });
          timeMs += random.int(60, 4 * 3600) * 1000;
          // Open positions stay open now and then: the last trip of some wallets.
          if (trip === roundTrips - 1 && random.chance(0.4)) break;
          if (timeMs >= nowMs) break;
          const skill = (index % 4) / 3;
          const returnPct = random.int(-60, 80) + Math.round(skill * 40);
          trades.push({ token, side: 'sell', amountUsd: Math.max(1, Math.round((buyUsd * (100 + returnPct)) / 100)), timeMs });
          timeMs += random.int(60, 4 * 3600) * 1000;
        }
        wallets.push({ address: `Sample${chain === 'solana' ? 'Sol' : 'Rh'}Wallet${String(index + 1).padStart(2, '0')}`, label: `Sample wallet ${chain} #${index + 1} (fictional)`, chain, trades });
      }
      this.walletsByChain.set(chain, wallets);
    }
    for (let index = 0; index < 30; index++) {
      const daily: ProtocolDay[] = [];
      let fees = random.int(1_000, 2_000_000);
      const take = random.int(5, 60) / 100;
      for (let day = today - 59; day <= today; day++) {
        fees = Math.max(10, Math.round(fees * (1 + random.int(-15, 15) / 100)));
        daily.push({ day, feesUsd: fees, revenueUsd: Math.round(fees * take) });
      }
      this.protocolList.push({
        slug: `sample-protocol-${index + 1}`,
        name: `Sample Protocol ${index + 1} ${random.pick(['Swap', 'Lend', 'Perp', 'Launch', 'Vault'])}`,
        chain: random.pick(sampleChains),
        category: random.pick(sampleCategories),
        daily,
      });
    }
  }

  wallets(chain: Chain): readonly WalletRecord[] {
    return this.walletsByChain.get(chain) ?? [];
  }

  protocols(): readonly ProtocolRecord[] {
    return this.protocolList;
  }
}

/** The same shapes from a JSON file (CLONE_TOOLS_DATA_FILE), read and checked once. */
export class FileData implements CloneToolsData {
  readonly source = 'file' as const;
  private readonly walletsByChain = new Map<Chain, WalletRecord[]>();
  private readonly protocolList: ProtocolRecord[];

  constructor(path: string) {
    const text = readFileSync(path, 'utf8');
    if (text.length > dataFileBytesMax) throw new Error(`CLONE_TOOLS_DATA_FILE: over ${dataFileBytesMax} bytes`);
    const data = parseData(JSON.parse(text) as unknown, `CLONE_TOOLS_DATA_FILE ${path}`);
    for (const chain of chains) this.walletsByChain.set(chain, data.wallets.filter((wallet) => wallet.chain === chain));
    this.protocolList = data.protocols;
  }

  wallets(chain: Chain): readonly WalletRecord[] {
    return this.walletsByChain.get(chain) ?? [];
  }

  protocols(): readonly ProtocolRecord[] {
    return this.protocolList;
  }
}

function usd(value: unknown, where: string): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^[0-9]{1,15}(\.[0-9]{1,8})?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(number) || number < 0) throw new Error(`${where}: must be a non-negative USD amount`);
  return number;
}

function text(value: unknown, where: string, max = 100): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw new Error(`${where}: must be a string of 1 to ${max} characters`);
  return value;
}

/** Checks a data document and turns it into records; throws naming the first bad entry. */
export function parseData(document: unknown, where: string): { wallets: WalletRecord[]; protocols: ProtocolRecord[] } {
  const data = document as { wallets?: unknown; protocols?: unknown } | null;
  if (data === null || typeof data !== 'object') throw new Error(`${where}: must be a JSON object`);
  const walletRows = data.wallets ?? [];
  const protocolRows = data.protocols ?? [];
  if (!Array.isArray(walletRows) || walletRows.length > walletsMax) throw new Error(`${where}: wallets must be an array of at most ${walletsMax}`);
  if (!Array.isArray(protocolRows) || protocolRows.length > protocolsMax) throw new Error(`${where}: protocols must be an array of at most ${protocolsMax}`);
  const wallets = walletRows.map((row: Record<string, unknown>, index): WalletRecord => {
    const at = `${where}: wallets[${index}]`;
    const chain = row['chain'];
    if (chain !== 'robinhood' && chain !== 'solana') throw new Error(`${at}.chain: must be robinhood or solana`);
    const trades = row['trades'];
    if (!Array.isArray(trades) || trades.length > tradesPerWalletMax) throw new Error(`${at}.trades: must be an array of at most ${tradesPerWalletMax}`);
    const parsed = trades.map((trade: Record<string, unknown>, tradeIndex): WalletTrade => {
      const tradeAt = `${at}.trades[${tradeIndex}]`;
      const side = trade['side'];
      if (side !== 'buy' && side !== 'sell') throw new Error(`${tradeAt}.side: must be buy or sell`);
      const time = typeof trade['time'] === 'string' && /(Z|[+-][0-9]{2}:[0-9]{2})$/.test(trade['time']) ? Date.parse(trade['time']) : NaN;
      if (!Number.isFinite(time)) throw new Error(`${tradeAt}.time: must be ISO 8601 with a zone`);
      return { token: text(trade['token'], `${tradeAt}.token`, 40), side, amountUsd: usd(trade['amount_usd'], `${tradeAt}.amount_usd`), timeMs: time };
    });
    parsed.sort((a, b) => a.timeMs - b.timeMs);
    return { address: text(row['address'], `${at}.address`), label: text(row['label'], `${at}.label`), chain, trades: parsed };
  });
  const protocols = protocolRows.map((row: Record<string, unknown>, index): ProtocolRecord => {
    const at = `${where}: protocols[${index}]`;
    const slug = text(row['slug'], `${at}.slug`, 80);
    if (!/^[a-z0-9-]+$/.test(slug)) throw new Error(`${at}.slug: must be of a-z, 0-9 and -`);
    const daily = row['daily'];
    if (!Array.isArray(daily) || daily.length > daysPerProtocolMax) throw new Error(`${at}.daily: must be an array of at most ${daysPerProtocolMax}`);
    const days = daily.map((entry: Record<string, unknown>, dayIndex): ProtocolDay => {
      const dayAt = `${at}.daily[${dayIndex}]`;
      const date = typeof entry['date'] === 'string' && /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(entry['date']) ? Date.parse(`${entry['date']}T00:00:00Z`) : NaN;
      if (!Number.isFinite(date)) throw new Error(`${dayAt}.date: must be YYYY-MM-DD`);
      return { day: date / msPerDay, feesUsd: usd(entry['fees_usd'], `${dayAt}.fees_usd`), revenueUsd: usd(entry['revenue_usd'], `${dayAt}.revenue_usd`) };
    });
    days.sort((a, b) => a.day - b.day);
    return { slug, name: text(row['name'], `${at}.name`), chain: text(row['chain'], `${at}.chain`, 40), category: text(row['category'], `${at}.category`, 40), daily: days };
  });
  return { wallets, protocols };
}
