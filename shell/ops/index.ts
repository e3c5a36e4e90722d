/**
 * The operations module: GET /health, /ready and /metrics (routes.ts), the Prometheus registry fed by the
 * runtime's figures (metrics.ts), and the CORS policy of CORS_ORIGINS. When the server starts it, it sets
 * the route table's CORS policy and observes the order routes, and the journal's write times go to the
 * fsync histogram; readiness holds from that start until the server begins to stop.
 */
import type { ShellModule } from '../shell-module.ts';
import { corsPolicy } from './cors.ts';
import { OpsMetrics, orderRouteNames } from './metrics.ts';
import { readinessChecks } from './readiness.ts';
import { opsRoutes, opsTag, opsTagDescription } from './routes.ts';
import { opsSettings } from './settings.ts';

export const opsModule: ShellModule = {
  name: 'ops',
  create(context) {
    const settings = opsSettings(context.config.env);
    const metrics = new OpsMetrics(context);
    const sequencer = context.durable.sequencer;
    let started = false;
    const checks = () =>
      readinessChecks({
        started,
        journalAccepting: sequencer.accepting,
        nowMs: context.clock(),
        quoteLifetimeMs: context.durable.engine.settings.venueQuoteLifetimeMs,
        ammChains: context.amm.chainStates(),
        readModelLag: context.readModels.lagCommands,
        readModelLagMax: settings.readyReadModelLagMax,
      });
    return {
      routes: opsRoutes({ checks, metricsText: () => metrics.registry.metrics(), metricsToken: settings.metricsToken }),
      tags: { [opsTag]: opsTagDescription },
      start(table) {
        const named = new Set(table.routes.map((route) => route.name));
        const missing = orderRouteNames.filter((name) => !named.has(name));
        if (missing.length > 0) throw new Error(`ops metrics: no route is named ${missing.join(', ')}`);
        table.useCors(corsPolicy(settings.corsOrigins, settings.corsMaxAgeS));
        table.observe((route) => metrics.observerFor(route));
        sequencer.journalWriteObserver = (seconds) => metrics.journalFsync.observe(seconds);
        context.durable.snapshotHoldObserver = (seconds) => metrics.snapshotHold.observe(seconds);
        started = true;
      },
      stop() {
        started = false;
      },
      close() {
        sequencer.journalWriteObserver = null;
        context.durable.snapshotHoldObserver = null;
      },
    };
  },
};
