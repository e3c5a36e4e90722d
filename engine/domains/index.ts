/**
 * The platform's domain modules, as one factory: every engine built for real work or replay (the durable
 * engine, the replay and generator scripts, the generator-driven tests) registers the same modules, so a
 * journal replays anywhere to the same state.
 */
import type { DomainFactory } from '../core/domain.ts';
import type { Engine } from '../core/engine.ts';
import { Twaps } from './exchange-algos/twaps.ts';

export const platformDomains: DomainFactory = (engine) => [new Twaps(engine)];

/** The TWAP module of an engine built with `platformDomains`. */
export function twapsOf(engine: Engine): Twaps {
  const twaps = engine.domains.find((domain) => domain instanceof Twaps);
  if (twaps === undefined) throw new Error('this engine has no TWAP module');
  return twaps as Twaps;
}
