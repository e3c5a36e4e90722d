/**
 * Prediction markets as a domain: its descriptor (engine/domains/index.ts lists it after prices, whose
 * prices it reads). The shell's markets module (shell/markets) serves its routes from durable events.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import type { Engine } from '../../core/engine.ts';
import { MarketsEventType, cancelMarketOrderCodec, createMarketCodec, marketsDomainId, placeBetCodec, placeMarketOrderCodec } from './commands.ts';
import { MarketsModule } from './markets.ts';
import { MarketsSimulation } from './simulation.ts';

export const marketsDomain: DomainDescriptor = {
  id: marketsDomainId,
  name: MarketsModule.domainName,
  formatVersion: 1,
  commands: [createMarketCodec, placeMarketOrderCodec, cancelMarketOrderCodec, placeBetCodec],
  eventNames: {
    [MarketsEventType.marketCreated]: 'MarketCreated',
    [MarketsEventType.marketActivated]: 'MarketActivated',
    [MarketsEventType.marketOrderAccepted]: 'MarketOrderAccepted',
    [MarketsEventType.marketOrderRested]: 'MarketOrderRested',
    [MarketsEventType.marketTradeExecuted]: 'MarketTradeExecuted',
    [MarketsEventType.marketOrderCancelled]: 'MarketOrderCancelled',
    [MarketsEventType.betPlaced]: 'BetPlaced',
    [MarketsEventType.marketCompleted]: 'MarketCompleted',
  },
  create: (port) => new MarketsModule(port),
  simulation: () => new MarketsSimulation(),
};

export { MarketsModule, Market, MarketOrder, Position, escrowUserId, poolUserId, takerFee } from './markets.ts';
export * from './commands.ts';

/** The markets module of an engine built with the platform's domains. */
export function marketsOf(engine: Engine): MarketsModule {
  const markets = engine.domain(MarketsModule.domainName);
  if (!(markets instanceof MarketsModule)) throw new Error('this engine has no markets module');
  return markets;
}
