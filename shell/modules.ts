/**
 * The shell's modules, in one list: what each area of the service adds to the server (its routes, and
 * what it runs beside them: a read model fed by durable batches, a runtime service such as the price
 * oracle). server.ts registers whatever this list holds, in order; adding a domain's shell is one line
 * here (and one in engine/domains/index.ts for its engine side).
 */
import type { ShellContext } from './context.ts';
import type { Route } from './http/route-table.ts';
import type { ModuleInstance, ShellModule } from './shell-module.ts';
import { exchangePublicRoutes } from './http/exchange-public.ts';
import { adminRoutes } from './http/admin.ts';
import { authRoutes } from './http/auth-routes.ts';
import { accountRoutes } from './http/account.ts';
import { fundingRoutes } from './http/funding.ts';
import { apiKeyRoutes } from './http/api-keys.ts';
import { exchangeOrderRoutes } from './http/exchange-orders.ts';
import { exchangeAlgoRoutes } from './http/exchange-algos.ts';
import { cancelSwitchModule } from './http/cancel-switch.ts';
import { exchangeHistoryRoutes } from './http/exchange-history.ts';
import { twoFactorRoutes } from './http/two-factor-routes.ts';
import { agentRoutes } from './http/agents.ts';
import { pricesModule } from './prices/index.ts';
import { marketsModule } from './markets/index.ts';
import { perpetualModule } from './perpetual/index.ts';
import { arenaModule } from './arena/index.ts';
import { eventCardsModule } from './event-cards/index.ts';
import { botsModule } from './bots/index.ts';
import { gamesModule } from './games/index.ts';
import { moversModule } from './movers/index.ts';
import { cloneToolsModule } from './clone-tools/index.ts';
import { rewardsModule } from './rewards/index.ts';
import { bountyModule } from './bounty/index.ts';
import { passiveIncomeModule } from './passive-income/index.ts';
import { promoModule } from './promo/index.ts';
import { vaultsModule } from './vaults/index.ts';
import { incentivesModule } from './incentives/index.ts';
import { ceoIndexModule } from './ceo-index/index.ts';
import { supportModule } from './support/index.ts';
import { aiAnalysisModule } from './ai-analysis/index.ts';
import { dueDiligenceModule } from './due-diligence/index.ts';
import { opsModule } from './ops/index.ts';
import { clusterModule } from './cluster/routes.ts';

// Modules import these types from shell-module.ts; the server names them from here with the list.
export type { ModuleInstance, ShellModule };

/** A module that only adds routes. */
function routesOnly(name: string, routes: (context: ShellContext) => Route[]): ShellModule {
  return { name, create: (context) => ({ routes: routes(context) }) };
}

export const shellModules: readonly ShellModule[] = [
  routesOnly('exchange-public', exchangePublicRoutes),
  routesOnly('admin', adminRoutes),
  routesOnly('auth', authRoutes),
  routesOnly('account', accountRoutes),
  routesOnly('funding', fundingRoutes),
  routesOnly('api-keys', apiKeyRoutes),
  routesOnly('exchange-orders', exchangeOrderRoutes),
  routesOnly('exchange-algos', exchangeAlgoRoutes),
  cancelSwitchModule,
  routesOnly('exchange-history', (context) => exchangeHistoryRoutes(context, context.readModels)),
  routesOnly('two-factor', twoFactorRoutes),
  routesOnly('agents', agentRoutes),
  pricesModule,
  marketsModule,
  perpetualModule,
  arenaModule,
  eventCardsModule,
  vaultsModule,
  botsModule,
  gamesModule,
  moversModule,
  cloneToolsModule,
  rewardsModule,
  bountyModule,
  passiveIncomeModule,
  promoModule,
  incentivesModule,
  ceoIndexModule,
  supportModule,
  aiAnalysisModule,
  dueDiligenceModule,
  opsModule,
  clusterModule,
];
