/**
 * Shape checks shared by the command handlers: user ids, chain ids, withdrawal addresses and prices on a
 * pair's grid. Pure predicates; a handler calls them before it changes anything.
 */
import { userIdMax, withdrawAddressCharsMax, withdrawChainIdMax } from './limits.ts';
import type { Pair } from './units.ts';

export function validUser(userId: number): boolean {
  return Number.isSafeInteger(userId) && userId > 0 && userId <= userIdMax;
}

export function validChainId(chainId: number): boolean {
  return Number.isInteger(chainId) && chainId >= 1 && chainId <= withdrawChainIdMax;
}

export function validAddress(address: string): boolean {
  return typeof address === 'string' && address.length >= 1 && address.length <= withdrawAddressCharsMax;
}

export function validTicks(ticks: number, pair: Pair): boolean {
  return Number.isSafeInteger(ticks) && ticks >= 1 && ticks <= pair.priceTicksMax;
}
