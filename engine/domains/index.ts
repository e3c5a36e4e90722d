/**
 * The platform's domains, in one list. Adding a domain is one line here (its descriptor) and one in
 * shell/modules.ts (its routes); the engine's dispatch, the journal codec, journal-inspect and the event
 * tape all work from this list. Order matters: it is the order modules are made, run their timers and
 * enter the state hash, and a module may read only modules listed before it. Never reorder or remove an
 * entry of a journal that exists (a domain's id and name are part of the journal and snapshot formats).
 *
 * Every engine built for real work or replay (the durable engine, the replay and generator scripts, the
 * tests) registers the same modules, so a journal replays anywhere to the same state.
 */
import type { DomainCodecs } from './registry.ts';
import { DomainRegistry } from './registry.ts';
import type { DomainFactory } from '../core/domain.ts';
import type { DomainPort } from '../core/port.ts';
import type { Engine } from '../core/engine.ts';
import { Twaps } from './exchange-algos/twaps.ts';
import { pricesDomain } from './prices/index.ts';
import { eventCardsDomain } from './event-cards/index.ts';
import { marketsDomain } from './markets/index.ts';
import { Prices } from './prices/prices.ts';
import { perpetualDomain } from './perpetual/index.ts';
import { arenaDomain } from './arena/index.ts';
import { botsDomain } from './bots/index.ts';
import { gamesDomain } from './games/index.ts';
import { moversDomain } from './movers/index.ts';
import { rewardsDomain } from './rewards/index.ts';
import { vaultsDomain } from './vaults/index.ts';
import { incentivesDomain } from './incentives/index.ts';
import { cancelSwitchDomain } from './cancel-switch/index.ts';

export const domainRegistry: DomainCodecs = new DomainRegistry([
  pricesDomain,
  marketsDomain,
  perpetualDomain,
  arenaDomain,
  eventCardsDomain,
  vaultsDomain,
  botsDomain,
  gamesDomain,
  moversDomain,
  rewardsDomain,
  incentivesDomain,
  cancelSwitchDomain,
]);

/**
 * Makes an engine's modules: the exchange algos (core command kinds of journal format 4, so not a
 * descriptor of the list) and then every listed domain.
 */
export const platformDomains: DomainFactory = [(port) => new Twaps(port), ...domainRegistry.descriptors.map((descriptor) => (port: DomainPort) => descriptor.create(port))];

/** Fresh generators of every listed domain's commands, for the seeded simulation (CommandGenerator's `domains`). */
export const domainGenerators = () => domainRegistry.descriptors.map((descriptor) => descriptor.simulation());

export const domainCodecOf = (type: number) => domainRegistry.codecOf(type);
export const domainOfType = (type: number) => domainRegistry.domainOfType(type);

/** The TWAP module of an engine built with `platformDomains`. */
export function twapsOf(engine: Engine): Twaps {
  const twaps = engine.domains.find((domain) => domain instanceof Twaps);
  if (twaps === undefined) throw new Error('this engine has no TWAP module');
  return twaps as Twaps;
}

/** The price oracle module of an engine built with `platformDomains`. */
export function pricesOf(engine: Engine): Prices {
  const prices = engine.domain(Prices.domainName);
  if (!(prices instanceof Prices)) throw new Error('this engine has no prices module');
  return prices;
}
