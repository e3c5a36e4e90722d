/**
 * The AI due-diligence assessor's shell module: the saved assessments (DATA_DIR/due-diligence.sqlite), the
 * assessor that probes websites and scores them by the rubric, and the routes. It keeps no engine state:
 * assessments describe other websites, not the platform's books.
 */
import { join } from 'node:path';
import type { ShellModule } from '../shell-module.ts';
import { Assessor } from './assessor.ts';
import { dueDiligenceRoutes } from './routes.ts';
import { dueDiligenceSettings } from './settings.ts';
import { AssessmentStore } from './store.ts';

export const dueDiligenceFile = 'due-diligence.sqlite';

export const dueDiligenceModule: ShellModule = {
  name: 'due-diligence',
  create(context) {
    const settings = dueDiligenceSettings(context.config.env);
    const store = new AssessmentStore(join(context.config.dataDir, dueDiligenceFile), settings.historyPerDomain, settings.storedMax);
    const assessor = new Assessor({
      store,
      runningMax: settings.runningMax,
      clock: context.clock,
      probes: { timeoutMs: settings.probeTimeoutMs, bytesMax: settings.probeBytesMax, allowPrivate: settings.allowPrivate, concurrency: settings.probeConcurrency, deadlineMs: settings.assessmentTimeoutMs },
    });
    return {
      routes: dueDiligenceRoutes({ context, settings, store, assessor }),
      tags: {
        'AI due diligence':
          'AI-readiness assessments of websites from live probes (MCP, agent card, llms.txt, OpenAPI, SKILL.md, robots.txt), scored 0-40 by a documented rubric.',
      },
      close: () => store.close(),
    };
  },
};
