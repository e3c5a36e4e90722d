/**
 * The price oracle as a domain: its descriptor (engine/domains/index.ts lists it). The runtime's oracle
 * (engine/runtime/oracle) journals the ticks; the shell's prices module (shell/prices) reads them.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { PricesEventType, postPriceTicksCodec, pricesDomainId, seedPriceHistoryCodec } from './commands.ts';
import { Prices } from './prices.ts';
import { PricesSimulation } from './simulation.ts';

export const pricesDomain: DomainDescriptor = {
  id: pricesDomainId,
  name: Prices.domainName,
  formatVersion: 1,
  commands: [postPriceTicksCodec, seedPriceHistoryCodec],
  eventNames: { [PricesEventType.pricesTicked]: 'PricesTicked', [PricesEventType.priceHistorySeeded]: 'PriceHistorySeeded' },
  create: (port) => new Prices(port),
  simulation: () => new PricesSimulation(),
};

export { Prices, AssetPrice } from './prices.ts';
export * from './commands.ts';
