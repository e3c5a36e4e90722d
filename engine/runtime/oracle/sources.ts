/** Makes the price source PRICE_FEED names. */
import type { OracleAsset, PriceSource } from './source.ts';
import { SimSource } from './sim-source.ts';

export interface PriceSourceSettings {
  readonly seed: number;
  readonly tickMs: number;
  readonly filePath: string;
  /** `file`: play the file's timeline from this time (PRICE_FILE_REPLAY). */
  readonly replayFromMs: number | undefined;
  readonly url: string;
  readonly timeoutMs: number;
  /** Outbound requests may reach loopback and private addresses (tests only). */
  readonly allowPrivate: boolean;
}

export function createPriceSource(kind: 'sim' | 'file' | 'http', settings: PriceSourceSettings, assets: readonly OracleAsset[]): PriceSource {
  switch (kind) {
    case 'sim':
      return new SimSource(assets, { seed: settings.seed, tickMs: settings.tickMs });
    case 'file':
    case 'http':
      throw new Error(`PRICE_FEED=${kind} is not available in this build`);
  }
}
