/**
 * Starting worker threads, from the sources (tests, tsx) and from the bundle (`npm start`) alike. `entry`
 * names a worker module relative to the repository root, without its extension (`shell/read-models/worker`,
 * `engine/runtime/amm-worker`).
 *
 * Bundled, every module's import.meta.url is dist/shell/server.mjs and scripts/build.mjs writes each worker
 * entry under dist/ at its source path as .mjs; from the sources this file is shell/workers.ts. Either way
 * the root is one level up. Node 20 resolves a worker's entry before the worker has tsx's loader, so a
 * TypeScript entry is started through ts-worker.mjs, which registers the loader first.
 */
import { Worker } from 'node:worker_threads';

const bundled = import.meta.url.endsWith('.mjs');

export function startWorker(entry: string, workerData: unknown): Worker {
  if (bundled) return new Worker(new URL(`../${entry}.mjs`, import.meta.url), { workerData });
  const module = new URL(`../${entry}.ts`, import.meta.url).href;
  return new Worker(new URL('./ts-worker.mjs', import.meta.url), { workerData, argv: [module] });
}
