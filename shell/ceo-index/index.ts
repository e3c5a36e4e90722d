/**
 * The CEO AI expertise index's shell module: the dataset (the fictional sample, or CEO_INDEX_DATA_FILE)
 * put through the formulas into the published board once, the scoring queue, and the routes. It keeps no
 * engine state: the board is read-only data, and scorings are answers cached in memory.
 */
import type { ShellModule } from '../shell-module.ts';
import { chatProvider } from '../llm/provider.ts';
import { buildBoard } from './board.ts';
import { fileDataset, sampleDataset } from './dataset.ts';
import { ScoringQueue } from './queue.ts';
import { ceoIndexRoutes } from './routes.ts';
import { scorePage } from './scorer.ts';
import { ceoIndexSettings } from './settings.ts';

export const ceoIndexModule: ShellModule = {
  name: 'ceo-index',
  create(context) {
    const settings = ceoIndexSettings(context.config.env);
    const dataset = settings.dataFile === '' ? sampleDataset() : fileDataset(settings.dataFile);
    const board = buildBoard(dataset);
    const provider = chatProvider(context.config.env);
    const scorer = { fetchTimeoutMs: settings.fetchTimeoutMs, fetchBytesMax: settings.fetchBytesMax, allowPrivate: settings.allowPrivate, clock: context.clock, provider };
    const queue = new ScoringQueue({
      workersMax: settings.workersMax,
      queueMax: settings.queueMax,
      cacheMs: settings.cacheMs,
      failureMs: settings.failureMs,
      cacheMax: settings.cacheMax,
      clock: context.clock,
      run: (url, progress) => scorePage(url, scorer, progress),
    });
    return {
      routes: ceoIndexRoutes({ context, dataset, board, queue, settings, modelConfigured: provider !== null }),
      tags: {
        'CEO AI expertise index':
          'A published index of how deeply executives understand AI: a fictional sample board by default, its export and methodology, and scoring of a profile page by a documented rubric.',
      },
    };
  },
};
