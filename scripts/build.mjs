/**
 * Builds the server into ES modules for `npm start`: dist/shell/server.mjs, and one module per worker
 * thread entry at its source path under dist/ (dist/shell/read-models/worker.mjs,
 * dist/engine/runtime/amm-worker.mjs, dist/engine/runtime/snapshot-worker.mjs), where shell/workers.ts
 * looks for them.
 *
 * Why not run it through tsx: tsx compiles with esbuild's keepNames, which wraps every named closure in
 * a defineProperty call each time it is created; the request path creates several per request, and in
 * bench:http profiles that cost a few percent of the server's only thread. This build keeps names off.
 * Packages stay external (node_modules at run time); the output sits two levels down, as the sources do,
 * so paths like ../../fixtures resolve the same.
 */
import { build } from 'esbuild';

await build({
  entryPoints: ['shell/server.ts', 'shell/read-models/worker.ts', 'engine/runtime/amm-worker.ts', 'engine/runtime/snapshot-worker.ts', 'shell/bots/backtest-worker.ts'],
  outdir: 'dist',
  outbase: '.',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
