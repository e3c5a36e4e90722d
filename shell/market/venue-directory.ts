/**
 * Names of the places liquidity comes from, as the API shows them: `clob` for our own order book, and
 * for each outside venue (an AMM pool) its name, chain, exchange and kind, from the pool fixtures the AMM
 * workers quote (engine/runtime/amm). Engine events carry only numbers (pool id, chain id).
 */
import { liveBookVenueId } from '../../engine/core/events.ts';
import type { Chains } from '../funding/chains.ts';
import type { PoolState } from '../../engine/amm/pool.ts';

export const clobVenueName = 'clob';

export interface VenueInfo {
  /** The pool's stable id (what QuoteVenue and AmmFill carry). */
  readonly id: number;
  /** E.g. `uniswap-v3:ethereum:USDC/WETH:0.05%`. */
  readonly name: string;
  readonly chainId: number;
  /** The exchange (uniswap, aerodrome, orca, ...) and its pool kind (v2, v3, clmm). */
  readonly dex: string;
  readonly kind: string;
  /** The pair it quotes, BASE/QUOTE as the engine names pairs. */
  readonly pair: string;
}

export class VenueDirectory {
  private readonly byId = new Map<number, VenueInfo>();

  constructor(
    private readonly chains: Chains,
    venues: readonly VenueInfo[],
  ) {
    for (const venue of venues) this.byId.set(venue.id, venue);
  }

  get all(): readonly VenueInfo[] {
    return [...this.byId.values()];
  }

  info(venueId: number): VenueInfo | undefined {
    return this.byId.get(venueId);
  }

  /** `clob` for the live order book (a paper order's fill against it), the pool's name otherwise. */
  name(venueId: number): string {
    if (venueId === liveBookVenueId) return clobVenueName;
    return this.byId.get(venueId)?.name ?? `pool-${venueId}`;
  }

  chainName(chainId: number): string | null {
    return chainId === 0 ? null : (this.chains.byId(chainId)?.name ?? String(chainId));
  }
}

/** A fixture pool as the API names it: its label (e.g. `Uniswap v3 WETH/USDC 0.05 %`), exchange and kind. */
export function venueInfoOf(pool: PoolState): VenueInfo {
  return { id: pool.poolId, name: pool.venue, chainId: pool.chainId, dex: pool.venue.split(' ')[0]!.toLowerCase(), kind: pool.kind, pair: pool.pair };
}
