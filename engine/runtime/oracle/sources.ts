/** Makes the price source PRICE_FEED names. */
import type { OracleAsset, PriceSource } from './source.ts';
import { SimSource } from './sim-source.ts';
import { FileSource } from './file-source.ts';
import { HttpSource } from './http-source.ts';

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
  /** Where a source reports how it loaded (the `file` source's rows and skipped rows). */
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Throws when the source cannot be made (a `file` source's file missing or malformed): the start stops. */
export function createPriceSource(kind: 'sim' | 'file' | 'http', settings: PriceSourceSettings, assets: readonly OracleAsset[]): PriceSource {
  switch (kind) {
    case 'sim':
      return new SimSource(assets, { seed: settings.seed, tickMs: settings.tickMs });
    case 'file':
      return new FileSource(settings.filePath, assets, {
        replayFromMs: settings.replayFromMs,
        ...(settings.log === undefined ? {} : { log: settings.log }),
      });
    case 'http':
      return new HttpSource(assets, { url: settings.url, timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate });
  }
}
